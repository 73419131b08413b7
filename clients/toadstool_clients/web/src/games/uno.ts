// UNO Super Mario drawn as a table: the opponents with their card counts (and a Catch! on whoever forgot
// to call UNO), the draw pile and the top card with the colour in play, the viewer's hand as cards. A card
// that may be played is a tap target: a coloured card is played at once, a wild opens its colours.

import type { UnoCard, UnoView } from "../gen/toadstool/v1/uno_pb";
import { UnoColor, UnoDirection, UnoKind, UnoStage } from "../gen/toadstool/v1/uno_pb";
import { h } from "../dom";
import { UNO_COLOR_NAMES, seatName, unoCardName } from "../names";
import type { GameRenderer, RenderContext } from "./types";

const FACES: Record<number, string> = {
  [UnoKind.SKIP]: "⊘",
  [UnoKind.REVERSE]: "⇄",
  [UnoKind.DRAW_TWO]: "+2",
  [UnoKind.WILD]: "W",
  [UnoKind.WILD_DRAW_FOUR]: "+4",
  [UnoKind.WILD_CUSTOMIZABLE]: "W★",
  [UnoKind.SUPER_STAR]: "★",
};

function face(card: UnoCard): string {
  return card.number !== undefined ? String(card.number) : (FACES[card.kind] ?? "?");
}

function colourClass(color: UnoColor): string {
  return `c-${UNO_COLOR_NAMES[color] ?? "wild"}`;
}

/** One card; a button when `onTap` is given (it may be played now). */
function card(item: UnoCard, onTap?: () => void, selected = false): HTMLElement {
  const name = unoCardName(item);
  const inner = [h("span", { class: "corner" }, face(item)), h("span", { class: "face" }, face(item))];
  if (!onTap) return h("div", { class: `card ${colourClass(item.color)}`, title: name, "data-card-id": item.id }, ...inner);
  return h(
    "button",
    {
      class: `card playable ${colourClass(item.color)}${selected ? " selected" : ""}`,
      title: `Play ${name}`,
      "aria-label": `Play ${name}`,
      "data-card-id": item.id,
      onclick: onTap,
    },
    ...inner,
  );
}

function backs(count: number): HTMLElement {
  const shown = Math.min(count, 12);
  return h(
    "div",
    { class: "backs", "aria-label": `${count} cards` },
    ...Array.from({ length: shown }, () => h("span", { class: "back" })),
    h("span", { class: "count" }, String(count)),
  );
}

function opponents(context: RenderContext, view: UnoView): HTMLElement {
  const { update } = context;
  const seats = update.seats.filter((s) => s.index !== view.you);
  return h(
    "div",
    { class: "opponents" },
    ...seats.map((seat) => {
      const count = view.handCounts[seat.index] ?? 0;
      const catchEntry = context.entryWith("catch", "seat", seat.index);
      if (catchEntry) context.claim(catchEntry);
      const turn = update.toAct.includes(seat.index);
      return h(
        "div",
        { class: `opponent${turn ? " to-act" : ""}`, "data-seat": seat.index },
        h("div", { class: "who" }, seatName(update, seat.index), turn ? h("span", { class: "turn-dot", title: "to play" }) : null),
        backs(count),
        count === 1 ? h("div", { class: "uno-badge" }, "UNO!") : null,
        catchEntry
          ? h("button", { class: "catch", onclick: () => context.open(catchEntry) }, `Catch ${seatName(update, seat.index)}!`)
          : null,
      );
    }),
  );
}

function middle(context: RenderContext, view: UnoView): HTMLElement {
  const drawEntry = context.entryWith("draw", "", null);
  if (drawEntry) context.claim(drawEntry);
  const pile = drawEntry
    ? h("button", { class: "pile playable", "aria-label": "Draw a card", onclick: () => context.open(drawEntry) }, h("span", {}, "Draw"), h("small", {}, `${view.drawPileCount}`))
    : h("div", { class: "pile" }, h("span", {}, "Deck"), h("small", {}, `${view.drawPileCount}`));
  const arrow = view.direction === UnoDirection.COUNTER_CLOCKWISE ? "↺" : "↻";
  return h(
    "div",
    { class: "middle" },
    pile,
    view.topCard ? h("div", { class: "top-card" }, card(view.topCard)) : null,
    h(
      "div",
      { class: "state" },
      h("div", { class: `colour-chip ${colourClass(view.color)}` }, UNO_COLOR_NAMES[view.color] ?? "any colour"),
      h("div", { class: "direction", title: "direction of play" }, arrow),
      view.pendingPenalty ? h("div", { class: "penalty" }, `+${view.pendingPenalty} waiting`) : null,
    ),
  );
}

function reveal(context: RenderContext, view: UnoView): HTMLElement | null {
  if (!view.reveal) return null;
  const who = seatName(context.update, view.reveal.attacker);
  return h(
    "div",
    { class: "reveal" },
    h("div", {}, `Challenge: ${who}'s hand${view.reveal.heldPriorColor ? " had the colour in play" : " had no card of the colour in play"}`),
    h("div", { class: "hand small" }, ...view.reveal.cards.map((c) => card(c))),
  );
}

function hand(context: RenderContext, view: UnoView): HTMLElement | null {
  if (view.you === undefined) return null;
  const cards = [...view.hand];
  if (view.drawnCard && !cards.some((c) => c.id === view.drawnCard!.id)) cards.push(view.drawnCard);
  return h(
    "div",
    { class: "hand", "aria-label": "your hand" },
    ...cards.map((item) => {
      const entry = context.entryWith("play_card", "card_id", item.id);
      if (!entry) return card(item);
      context.claim(entry);
      return card(item, () => context.open(entry), context.opened === entry);
    }),
  );
}

export const renderUno: GameRenderer = (context) => {
  const game = context.update.view?.game;
  if (game?.case !== "uno") return h("div", {}, "");
  const view = game.value;
  const stageNote =
    view.stage === UnoStage.ANSWER_WILD_DRAW_FOUR
      ? "A Wild Draw Four was played on you: accept it, or challenge it."
      : view.stage === UnoStage.ANSWER_DRAW_TWO
        ? "A Draw Two was played on you."
        : null;
  return h(
    "section",
    { class: "uno" },
    opponents(context, view),
    middle(context, view),
    stageNote && view.you !== undefined && context.update.toAct.includes(view.you) ? h("div", { class: "note" }, stageNote) : null,
    reveal(context, view),
    hand(context, view),
    h("div", { class: "hand-info" }, `Hand ${view.handNumber} · to ${view.target} points${view.lowestWins ? " (lowest wins)" : ""}`),
  );
};
