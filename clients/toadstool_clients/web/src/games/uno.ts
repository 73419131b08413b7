// UNO Super Mario drawn as a table: the opponents with their card counts (and a Catch! on whoever forgot
// to call UNO), the draw pile and the top card with the colour in play, the viewer's hand as cards. A card
// that may be played is a tap target: a coloured card is played at once, a wild opens its colours, drawn as
// four coloured targets. Calling UNO is a big button at the moment it matters: before the next-to-last card
// is played (it arms the call for that play) and while a call after the play is still open. Every card
// carries its colour's letter, so no one has to tell red from green by colour alone.

import type { UnoCard, UnoView } from "../gen/toadstool/v1/uno_pb";
import { UnoColor, UnoDirection, UnoKind, UnoStage } from "../gen/toadstool/v1/uno_pb";
import type { Choice } from "../choices";
import { leaves } from "../choices";
import { h } from "../dom";
import { UNO_COLOR_NAMES, seatName, unoCardName, unoColourName } from "../names";
import { isOpened } from "./taps";
import { t } from "../i18n";
import type { Key } from "../i18n";
import type { GameRenderer, RenderContext } from "./types";

/** Each colour's letter, printed on its cards and colour targets (for colour-blind players). */
const COLOUR_LETTER_KEYS: Record<number, Key> = {
  [UnoColor.RED]: "unoBoard.letterRed",
  [UnoColor.YELLOW]: "unoBoard.letterYellow",
  [UnoColor.GREEN]: "unoBoard.letterGreen",
  [UnoColor.BLUE]: "unoBoard.letterBlue",
};
/** A colour's letter in the person's language ("Ge" and "Gr" in German, where yellow and green share a G). */
function colourLetter(color: number): string | undefined {
  const key = COLOUR_LETTER_KEYS[color];
  return key ? t(key) : undefined;
}
const COLOURS = [UnoColor.RED, UnoColor.YELLOW, UnoColor.GREEN, UnoColor.BLUE];

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

/** One card; a button when `onTap` is given (it may be played now). Its colour's letter sits in the
 * bottom corner (a wild has none: its colour is chosen when it is played). */
function card(item: UnoCard, onTap?: () => void, selected = false, label?: string): HTMLElement {
  const name = unoCardName(item);
  const letter = colourLetter(item.color);
  // The glyphs are for the eye; the card's name in words is for a screen reader (and the button's name).
  const glyphs = [
    h("span", { class: "corner", "aria-hidden": "true" }, face(item)),
    h("span", { class: "face", "aria-hidden": "true" }, face(item)),
    letter ? h("span", { class: "colour-letter", "aria-hidden": "true" }, letter) : h("span", { class: "colour-letter wild-mark", "aria-hidden": "true" }, t("unoBoard.wildMark")),
  ];
  if (!onTap) {
    return h("div", { class: `card ${colourClass(item.color)}`, title: name, "data-card-id": item.id }, h("span", { class: "sr-only" }, name), ...glyphs);
  }
  const said = label ?? t("unoBoard.play", { card: name });
  return h(
    "button",
    {
      class: `card playable ${colourClass(item.color)}${selected ? " selected" : ""}`,
      title: said,
      "data-card-id": item.id,
      onclick: onTap,
    },
    h("span", { class: "sr-only" }, said),
    ...glyphs,
  );
}

function backs(count: number): HTMLElement {
  const shown = Math.min(count, 12);
  return h(
    "div",
    { class: "backs", role: "img", "aria-label": t("unoBoard.cards", { count }) },
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
        h("div", { class: "who" }, seatName(update, seat.index), turn ? h("span", { class: "turn-dot", title: t("unoBoard.toPlay") }) : null),
        backs(count),
        count === 1 ? h("div", { class: "uno-badge" }, "UNO!") : null,
        catchEntry
          ? h("button", { class: "catch", onclick: () => context.open(catchEntry) }, t("unoBoard.catch", { name: seatName(update, seat.index) }))
          : null,
      );
    }),
  );
}

function middle(context: RenderContext, view: UnoView): HTMLElement {
  const drawEntry = context.entryWith("draw", "", null);
  if (drawEntry) context.claim(drawEntry);
  const pile = drawEntry
    ? h("button", { class: "pile playable", "data-kind": "draw", onclick: () => context.open(drawEntry) }, h("span", {}, t("unoBoard.draw")), h("small", { "aria-hidden": "true" }, `${view.drawPileCount}`), h("span", { class: "sr-only" }, t("unoBoard.drawLeft", { count: view.drawPileCount })))
    : h("div", { class: "pile" }, h("span", {}, t("unoBoard.deck")), h("small", {}, `${view.drawPileCount}`));
  const arrow = view.direction === UnoDirection.COUNTER_CLOCKWISE ? "↺" : "↻";
  return h(
    "div",
    { class: "middle" },
    pile,
    view.topCard ? h("div", { class: "top-card" }, card(view.topCard)) : null,
    h(
      "div",
      { class: "state" },
      colourChip(view.color),
      h("div", { class: "direction", title: t("unoBoard.direction") }, arrow),
      view.pendingPenalty ? h("div", { class: "penalty" }, t("unoBoard.penalty", { count: view.pendingPenalty })) : null,
    ),
  );
}

function reveal(context: RenderContext, view: UnoView): HTMLElement | null {
  if (!view.reveal) return null;
  const who = seatName(context.update, view.reveal.attacker);
  return h(
    "div",
    { class: "reveal" },
    h("div", {}, t(view.reveal.heldPriorColor ? "unoBoard.challengeHad" : "unoBoard.challengeHadNot", { name: who })),
    h("div", { class: "hand small" }, ...view.reveal.cards.map((c) => card(c))),
  );
}

/** The colour in play, in words and letter (a wild on the first flip: any colour, dark with a ring of the
 * four, so its words stay readable). */
function colourChip(color: UnoColor): HTMLElement {
  const name = unoColourName(color);
  if (!name) return h("div", { class: "colour-chip c-any", title: t("unoBoard.colourInPlay") }, t("unoBoard.anyColour"));
  return h(
    "div",
    { class: `colour-chip ${colourClass(color)}`, title: t("unoBoard.colourInPlay") },
    h("span", { class: "chip-letter", "aria-hidden": "true" }, colourLetter(color)),
    name,
  );
}

/** The entry choosing this colour, among `choices` (a wild's colours, or the colour of a flipped wild). */
function colourEntry(choices: Choice[], color: UnoColor): Choice | undefined {
  return choices.find((c) => c.steps.some((s) => s[1] === "color" && s[2] === color));
}

/** A wild's colour as four coloured targets (big, each with its letter and name), when a wild is open or a
 * flipped wild's colour is to be chosen. The targets are claimed: the bar does not list them again. */
function colourPicker(context: RenderContext): HTMLElement | null {
  const opened = context.opened;
  const choices = opened
    ? opened.children.flatMap((c) => (c.run ? c.children : [c]))
    : context.entries.filter((e) => e.steps[0]?.[0] === "choose_color");
  const targets = COLOURS.map((color) => ({ color, entry: colourEntry(choices, color) })).filter((t) => t.entry);
  if (!targets.length) return null;
  const title = opened ? t("unoBoard.chooseColour") : t("unoBoard.firstWild");
  return h(
    "div",
    { class: "colour-pick", role: "group", "aria-label": title },
    h("div", { class: "pick-title" }, title),
    h(
      "div",
      { class: "pick-targets" },
      ...targets.map(({ color, entry }) => {
        context.claim(entry!);
        const name = UNO_COLOR_NAMES[color];
        return h(
          "button",
          {
            class: `colour-target playable next ${colourClass(color)}`,
            "data-color": name,
            onclick: () => context.open(entry!),
          },
          h("span", { class: "pick-letter", "aria-hidden": "true" }, colourLetter(color)),
          h("span", { class: "pick-name" }, unoColourName(color)),
        );
      }),
    ),
  );
}

/** The UNO call as a big button: "UNO!" before the next-to-last card is played (it switches the call on
 * for that play: the card then says so), or right after it while the call is still open. */
function unoCall(context: RenderContext): HTMLElement | null {
  const late = context.entries.find((e) => e.steps[0]?.[0] === "call_uno" && e.action !== null);
  if (late) {
    context.claim(late);
    return h(
      "div",
      { class: "uno-call-row" },
      h("button", { class: "uno-call urgent playable", "data-kind": "call_uno", onclick: () => context.open(late) }, "UNO!"),
      h("span", { class: "uno-hint" }, t("unoBoard.callHint")),
    );
  }
  const offered = context.entries.some((e) => leaves(e).some((leaf) => "uno" in leaf.toggles));
  if (!offered) return null;
  context.claimToggle("uno");
  const on = context.toggled("uno");
  return h(
    "div",
    { class: `uno-call-row${on ? " armed" : ""}` },
    h(
      "button",
      {
        class: `uno-call${on ? " armed" : ""}`,
        "data-kind": "uno",
        "aria-pressed": on ? "true" : "false",
        onclick: () => context.setToggle("uno", !on),
      },
      on ? "UNO! ✓" : "UNO!",
    ),
    h("span", { class: "uno-hint" }, on ? t("unoBoard.called") : t("unoBoard.callFirst")),
  );
}

function hand(context: RenderContext, view: UnoView): HTMLElement | null {
  if (view.you === undefined) return null;
  const cards = [...view.hand];
  if (view.drawnCard && !cards.some((c) => c.id === view.drawnCard!.id)) cards.push(view.drawnCard);
  const calling = context.toggled("uno");
  return h(
    "div",
    { class: "hand", role: "group", "aria-label": t("unoBoard.hand") },
    ...cards.map((item) => {
      const entry = context.entryWith("play_card", "card_id", item.id);
      if (!entry) return card(item);
      context.claim(entry);
      const withUno = calling && leaves(entry).some((leaf) => "uno" in leaf.toggles);
      const label = t(withUno ? "unoBoard.playAndCall" : "unoBoard.play", { card: unoCardName(item) });
      return card(item, () => context.open(entry), isOpened(context, entry), label);
    }),
  );
}

/** How the last hand ended, from the view (so in the person's language, and still there after bots moved
 * on): who went out and the points left in the other hands, which the winner scores (or, with lowest
 * wins, the others are charged). Shown for the whole next hand, under the hand's number. */
function lastHand(context: RenderContext, view: UnoView): HTMLElement | null {
  const winner = view.lastHandWinner;
  if (winner === undefined || view.handNumber < 2) return null;
  const values = { hand: view.handNumber - 1, name: seatName(context.update, winner), points: view.lastHandPoints };
  const key = winner === context.update.viewerSeat ? "unoBoard.lastHandYou" : "unoBoard.lastHand";
  return h("div", { class: "uno-last-hand", role: "status" }, t(key, values));
}

export const renderUno: GameRenderer = (context) => {
  const game = context.update.view?.game;
  if (game?.case !== "uno") return h("div", {}, "");
  const view = game.value;
  const stageNote =
    view.stage === UnoStage.ANSWER_WILD_DRAW_FOUR
      ? t("unoBoard.drawFour")
      : view.stage === UnoStage.ANSWER_DRAW_TWO
        ? t("unoBoard.drawTwo")
        : null;
  return h(
    "section",
    { class: "uno" },
    opponents(context, view),
    middle(context, view),
    stageNote && view.you !== undefined && context.update.toAct.includes(view.you) ? h("div", { class: "note" }, stageNote) : null,
    reveal(context, view),
    colourPicker(context),
    hand(context, view),
    // Below the hand, so that the hand never moves under a finger when the call appears.
    unoCall(context),
    h("div", { class: "hand-info" }, t(view.lowestWins ? "unoBoard.handInfoLowest" : "unoBoard.handInfo", { hand: view.handNumber, target: view.target })),
    lastHand(context, view),
  );
};
