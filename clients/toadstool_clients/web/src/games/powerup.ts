// The Super Mario Bros. Power Up Card Game drawn as a table: each seat's Level card (face down unless the
// view gives its face), its modifier and value, Extra Lives and ? card count; the viewer's ? cards as tap
// targets (a card with a target opens the seats, which become tap targets too); trades on the seat traded
// with; the cards played this round, a waiting trade or Warp Pipe, Boo's peeks and the round's result.
// Everything comes from the view: a Level card the viewer may not know is drawn as a back, never guessed.

import type { PowerUpCard, PowerUpLevelCard, PowerUpSeat, PowerUpView } from "../gen/toadstool/v1/powerup_pb";
import { PowerUpDecision, PowerUpStage, PowerUpSwapKind, PowerUpTiming } from "../gen/toadstool/v1/powerup_pb";
import type { Update } from "../gen/toadstool/v1/table_pb";
import { h } from "../dom";
import { seatName } from "../names";
import { entryFor, isOpened, openedStep } from "./taps";
import type { GameRenderer, RenderContext } from "./types";
import { t } from "../i18n";
import type { Key } from "../i18n";

const TIMING: Record<number, Key> = {
  [PowerUpTiming.MODIFY]: "pu.modify",
  [PowerUpTiming.ANY_TIME]: "pu.anyTime",
  [PowerUpTiming.TRADE_ANSWER]: "pu.tradeAnswer",
  [PowerUpTiming.BEFORE_DECISION]: "pu.beforeDecision",
  [PowerUpTiming.AS_DECISION]: "pu.asDecision",
};

function levelFace(card: PowerUpLevelCard): string {
  return card.castle ? t("pu.castle") : String(card.value);
}

/** A Level card: its face when the view gives it, else a back (the viewer may not know it). */
function levelCard(seat: PowerUpSeat, mine: boolean): HTMLElement {
  if (!seat.hasLevel) return h("div", { class: "level-card empty", role: "img", "aria-label": t("pu.noLevel") }, "–");
  if (!seat.level) return h("div", { class: "level-card back", role: "img", "aria-label": t("pu.faceDown") }, "?");
  const secret = !seat.faceUp;
  return h(
    "div",
    {
      class: `level-card face${seat.level.castle ? " castle" : ""}${secret ? " known" : ""}`,
      role: "img",
      "aria-label": t(secret ? (mine ? "pu.levelCardOnlyYou" : "pu.levelCardYouKnow") : "pu.levelCard", { face: levelFace(seat.level) }),
    },
    h("span", { class: "level-value" }, levelFace(seat.level)),
    secret ? h("small", { class: "level-note" }, mine ? t("pu.onlyYou") : t("pu.youKnow")) : null,
  );
}

function lives(count: number): HTMLElement {
  const shown = Math.min(count, 8);
  return h(
    "div",
    { class: "lives", role: "img", "aria-label": t("pu.lives", { count }) },
    ...Array.from({ length: shown }, () => h("span", { class: "life" }, "1UP")),
    count > shown ? h("span", { class: "more" }, `+${count - shown}`) : null,
    count === 0 ? h("span", { class: "none" }, t("pu.noLives")) : null,
  );
}

/** The seats that hold the lowest value now (modify phase, every contender's value known), else none. */
function lowestNow(view: PowerUpView): Set<number> {
  if (view.stage !== PowerUpStage.MODIFY) return new Set();
  const contenders = view.seats.filter((s) => s.inRound && s.active && !s.castle);
  if (!contenders.length || contenders.some((s) => s.value === undefined)) return new Set();
  const lowest = Math.min(...contenders.map((s) => s.value!));
  return new Set(contenders.filter((s) => s.value === lowest).map((s) => s.seat));
}

function seatBox(context: RenderContext, view: PowerUpView, seat: PowerUpSeat, lowest: Set<number>): HTMLElement {
  const { update } = context;
  const mine = view.you === seat.seat;
  const turn = update.toAct.includes(seat.seat);
  const trade = entryFor(context, ["trade"], ["target"], seat.seat);
  const aim = openedStep(context, ["target"], seat.seat);
  const classes = ["pu-seat", turn ? "to-act" : "", mine ? "you" : "", seat.active ? "" : "out", aim ? "target" : ""];
  return h(
    "div",
    { class: classes.filter(Boolean).join(" "), "data-seat": seat.seat },
    h(
      "div",
      { class: "who" },
      h("span", { class: "name" }, seatName(update, seat.seat), mine ? t("seat.youNote") : ""),
      view.dealer === seat.seat ? h("span", { class: "badge dealer", title: t("pu.dealer") }, t("pu.dealer")) : null,
      turn ? h("span", { class: "turn-dot", title: t("pu.toPlay") }) : null,
    ),
    lives(seat.tokens),
    h(
      "div",
      { class: "level-row" },
      levelCard(seat, mine),
      h(
        "div",
        { class: "level-info" },
        seat.modifier ? h("div", { class: "modifier" }, seat.modifier.name) : null,
        seat.value !== undefined && (seat.modifier || !seat.level?.castle) ? h("div", { class: "value" }, t("pu.value", { value: seat.value })) : null,
        seat.castle ? h("div", { class: "immune" }, t("pu.immune")) : null,
        lowest.has(seat.seat) ? h("div", { class: "lowest" }, t("pu.lowest")) : null,
      ),
    ),
    h(
      "div",
      { class: "pu-meta" },
      [
        t("pu.cards", { count: seat.handCount }),
        seat.decided && view.stage !== PowerUpStage.GAME_OVER ? decisionWords(seat.decision) : "",
        seat.active && !seat.inRound ? t("pu.sitsOut") : "",
        seat.active ? "" : t("pu.out"),
      ]
        .filter(Boolean)
        .join(" · "),
    ),
    trade ? h("button", { class: "pu-trade playable", onclick: () => context.open(trade) }, t("pu.tradeWith", { name: seatName(update, seat.seat) })) : null,
    aim ? h("button", { class: "pu-aim playable", onclick: () => context.open(aim) }, mine ? t("pu.onYourself") : t("pu.on", { name: seatName(update, seat.seat) })) : null,
  );
}

function questionCard(item: PowerUpCard, onTap?: () => void, selected = false): HTMLElement {
  const inner = [
    h("span", { class: "q-name" }, item.name),
    h("span", { class: "q-effect" }, item.effect),
    h("span", { class: "q-when" }, TIMING[item.timing] ? t(TIMING[item.timing]) : ""),
  ];
  if (!onTap) return h("div", { class: "q-card" }, ...inner);
  return h(
    "button",
    { class: `q-card playable${selected ? " selected" : ""}`, onclick: onTap },
    h("span", { class: "sr-only" }, t("pu.play")),
    ...inner,
  );
}

function hand(context: RenderContext, view: PowerUpView): HTMLElement | null {
  if (view.you === undefined) return null;
  if (!view.hand.length) return h("div", { class: "q-hand empty" }, t("pu.noCards"));
  return h(
    "div",
    { class: "q-hand", role: "group", "aria-label": t("pu.yourCards") },
    ...view.hand.map((item) => {
      const entry = entryFor(context, ["play_card"], ["card"], item.kind);
      if (!entry) return questionCard(item);
      return questionCard(item, () => context.open(entry), isOpened(context, entry));
    }),
  );
}

function pendingSwap(update: Update, view: PowerUpView): HTMLElement | null {
  const pending = view.pending;
  if (!pending || view.stage !== PowerUpStage.ANSWER) return null;
  const from = seatName(update, pending.fromSeat);
  const you = view.you === pending.toSeat;
  const to = seatName(update, pending.toSeat);
  const warp = pending.kind === PowerUpSwapKind.WARP_PIPE;
  const key: Key = warp ? (you ? "pu.warpPipeYou" : "pu.warpPipe") : you ? "pu.tradeYou" : "pu.trade";
  return h("div", { class: "pu-pending", role: "status" }, t(key, { from, to }));
}

/** The last round result seen, with the table and version it came with: an update of the same version (a
 * seat connected or left) carries no events, and the result stays until the table moves on. */
let lastResult: { table: string; version: bigint; lines: string[] } | null = null;

/** The round's result, when the table's last move scored it (the scoring deals a new round at once): the
 * events the server marks as the round's result, in whatever language they are said. (A stream's first
 * update carries older events too: an older round's result is not shown.) */
function result(update: Update): HTMLElement | null {
  let lines = update.events.filter((e) => e.roundResult && e.version === update.version).map((e) => e.text);
  if (lines.length) lastResult = { table: update.tableId, version: update.version, lines };
  else if (lastResult && lastResult.table === update.tableId && lastResult.version === update.version) lines = lastResult.lines;
  if (!lines.length) return null;
  return h("div", { class: "pu-result", role: "status" }, ...lines.map((t) => h("div", {}, t)));
}

function peeks(update: Update, view: PowerUpView): HTMLElement | null {
  if (!view.peeks.length) return null;
  return h(
    "div",
    { class: "pu-peeks" },
    ...view.peeks.map((p) => h("div", {}, t("pu.peek", { name: seatName(update, p.seat), face: p.card ? levelFace(p.card) : "?" }))),
  );
}

/** How a seat decided this round, as the log says it (public: what it hints is for everyone to read). */
const DECISION_KEYS: Record<number, Key> = {
  [PowerUpDecision.KEPT]: "pu.kept",
  [PowerUpDecision.TRADED]: "pu.traded",
  [PowerUpDecision.DREW_NEW]: "pu.drewNew",
  [PowerUpDecision.VINE]: "pu.vine",
  [PowerUpDecision.WARP_PIPE]: "pu.warped",
  [PowerUpDecision.BLOCKED]: "pu.blocked",
};

function decisionWords(decision: PowerUpDecision): string {
  const key = DECISION_KEYS[decision];
  return key ? t(key) : t("pu.decided");
}

export const renderPowerUp: GameRenderer = (context) => {
  const game = context.update.view?.game;
  if (game?.case !== "powerup") return h("div", {}, "");
  const view = game.value;
  const lowest = lowestNow(view);
  return h(
    "section",
    { class: "powerup" },
    h(
      "div",
      { class: "pu-decks" },
      h("span", {}, t("pu.round", { round: view.round })),
      h("span", {}, t("pu.levelDeck", { count: view.levelDeckCount })),
      h("span", {}, t("pu.questionDeck", { count: view.questionDeckCount })),
      h("span", {}, t("pu.supply", { count: view.supply })),
    ),
    pendingSwap(context.update, view),
    result(context.update),
    h("div", { class: "pu-seats" }, ...view.seats.map((s) => seatBox(context, view, s, lowest))),
    view.played.length
      ? h("div", { class: "pu-played" }, h("span", { class: "label" }, t("pu.played")), ...view.played.map((c) => h("span", { class: "chip" }, c.name)))
      : null,
    peeks(context.update, view),
    hand(context, view),
  );
};
