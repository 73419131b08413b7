// The game drawings, by the view's member in GameView (uno, powerup, levelup, kart, generic). A game
// without an entry here is drawn by the generic panels. To add a game: write games/<game>.ts exporting a
// GameRenderer (games/types.ts) and add one line below.

import type { GameRenderer } from "./types";
import { renderGeneric } from "./generic";
import { renderUno } from "./uno";
import { renderPowerUp } from "./powerup";
import { renderLevelUp } from "./levelup";
import { renderKart } from "./kart";

export const renderers: Record<string, GameRenderer> = {
  uno: renderUno,
  powerup: renderPowerUp,
  levelup: renderLevelUp,
  kart: renderKart,
};

export function rendererFor(member: string | undefined): GameRenderer {
  return (member && renderers[member]) || renderGeneric;
}
