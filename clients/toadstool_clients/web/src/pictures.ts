// The four games' pictures and one-line descriptions for the new-table flow: drawn here as SVG (the
// project's own shapes, no copied art), so they cost no request and scale to any screen.

import { t } from "./i18n";
import type { Key } from "./i18n";

const SVG = "http://www.w3.org/2000/svg";

type Shape = [tag: string, attributes: Record<string, string | number>];

const SHAPES: Record<string, Shape[]> = {
  // Three fanned cards, red, yellow and blue, a white oval on the front one.
  uno: [
    ["rect", { x: 18, y: 14, width: 34, height: 50, rx: 5, fill: "#1e6fd9", transform: "rotate(-16 35 39)" }],
    ["rect", { x: 30, y: 10, width: 34, height: 50, rx: 5, fill: "#f2c230", transform: "rotate(-3 47 35)" }],
    ["rect", { x: 44, y: 12, width: 34, height: 50, rx: 5, fill: "#d7263d", transform: "rotate(12 61 37)" }],
    ["ellipse", { cx: 61, cy: 37, rx: 11, ry: 17, fill: "#fff", transform: "rotate(42 61 37)" }],
    ["text", { x: 61, y: 44, "text-anchor": "middle", "font-size": 20, "font-weight": 900, fill: "#d7263d", "font-family": "sans-serif" }],
  ],
  // A mushroom: a red cap with white spots on a pale stem.
  powerup: [
    ["rect", { x: 36, y: 40, width: 24, height: 24, rx: 8, fill: "#f4e3c1", stroke: "#6b4f2a", "stroke-width": 2 }],
    ["path", { d: "M18 46 C18 20 78 20 78 46 Z", fill: "#d7263d", stroke: "#6b1020", "stroke-width": 2 }],
    ["circle", { cx: 48, cy: 29, r: 7, fill: "#fff" }],
    ["circle", { cx: 30, cy: 39, r: 5, fill: "#fff" }],
    ["circle", { cx: 66, cy: 39, r: 5, fill: "#fff" }],
    ["circle", { cx: 43, cy: 53, r: 2, fill: "#222" }],
    ["circle", { cx: 53, cy: 53, r: 2, fill: "#222" }],
  ],
  // A staircase of levels with a star on the top step.
  levelup: [
    ["rect", { x: 12, y: 56, width: 18, height: 12, fill: "#7bc950" }],
    ["rect", { x: 30, y: 44, width: 18, height: 24, fill: "#5fb13b" }],
    ["rect", { x: 48, y: 32, width: 18, height: 36, fill: "#47952a" }],
    ["rect", { x: 66, y: 20, width: 18, height: 48, fill: "#347a1c" }],
    ["path", { d: "M75 3 l3.5 7.5 8 1 -6 5.5 1.6 8 -7.1-4 -7.1 4 1.6-8 -6-5.5 8-1 Z", fill: "#f2c230", stroke: "#8a6d00", "stroke-width": 1.2 }],
  ],
  // A looped track with its checkered line and a kart on it.
  kart: [
    ["rect", { x: 10, y: 14, width: 76, height: 48, rx: 24, fill: "none", stroke: "#555", "stroke-width": 12 }],
    ["rect", { x: 10, y: 14, width: 76, height: 48, rx: 24, fill: "none", stroke: "#fff", "stroke-width": 1.5, "stroke-dasharray": "5 5" }],
    ["rect", { x: 44, y: 56, width: 4, height: 12, fill: "#fff" }],
    ["rect", { x: 48, y: 56, width: 4, height: 12, fill: "#222" }],
    ["rect", { x: 22, y: 4, width: 22, height: 14, rx: 4, fill: "#d7263d" }],
    ["circle", { cx: 26, cy: 19, r: 4, fill: "#222" }],
    ["circle", { cx: 40, cy: 19, r: 4, fill: "#222" }],
  ],
};

const DESCRIPTIONS: Record<string, Key> = { uno: "game.uno", powerup: "game.powerup", levelup: "game.levelup", kart: "game.kart" };

/** A game's line for its card in the lobby (its title, said by the server, for a game without one). */
export function gameLine(game: string, title: string): string {
  const key = DESCRIPTIONS[game];
  return key ? t(key) : t("game.other", { title });
}

/** The game's picture (a generic die for a game without one), `size` CSS pixels wide. */
export function gamePicture(game: string, size: number): SVGSVGElement {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 96 72");
  svg.setAttribute("width", String(size));
  svg.setAttribute("height", String(Math.round((size * 72) / 96)));
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("class", "game-picture");
  const shapes = SHAPES[game] ?? [["rect", { x: 28, y: 16, width: 40, height: 40, rx: 8, fill: "#fff", stroke: "#333", "stroke-width": 3 }] as Shape];
  for (const [tag, attributes] of shapes) {
    const element = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
    if (tag === "text") element.textContent = "1";
    svg.appendChild(element);
  }
  return svg;
}
