// The Super Mario Kart board game drawn as its track: the fields in driving order, snaking in rows of ten
// (field 0 at the start line, top left; the arrows show the way), each field's type (with a legend), the
// shortcuts' start and exit, the karts and banana chips on the fields; the die with the latest rolls; the
// standings (lap, coins, item, skips). Tap targets: the die (roll), a field (place or move a banana), a
// shortcut (take it), a kart (aim the held shell or Ghost at it), the held item (use it).

import type { KartRacer, KartTrack, KartView } from "../gen/toadstool/v1/kart_pb";
import { KartColor, KartFieldType, KartItem, KartStage } from "../gen/toadstool/v1/kart_pb";
import type { Update } from "../gen/toadstool/v1/table_pb";
import type { Choice } from "../choices";
import { h } from "../dom";
import { seatName } from "../names";
import { entryFor, isOpened, openedStep, tapFor } from "./taps";
import { NARROW } from "./types";
import type { GameRenderer, RenderContext } from "./types";

/** Fields per row of the drawn track: ten on a wide screen; six on a phone held upright, so that each field
 * is a tap target of at least 44 px (ten would be under 30). */
const ROW_WIDE = 10;
const ROW_NARROW = 6;

const FIELD_TYPES: { type: KartFieldType; mark: string; name: string; css: string }[] = [
  { type: KartFieldType.ITEM, mark: "?", name: "item: draw an item card", css: "f-item" },
  { type: KartFieldType.BOOSTER, mark: "»", name: "booster: roll again", css: "f-booster" },
  { type: KartFieldType.MUSHROOM, mark: "½", name: "mushroom: the next move is halved", css: "f-mushroom" },
  { type: KartFieldType.THWOMP, mark: "T", name: "Thwomp: roll; 1-4 skip turns", css: "f-thwomp" },
];
const FIELD_BY_TYPE = new Map(FIELD_TYPES.map((t) => [t.type, t]));

export const KART_ITEM_NAMES: Record<number, string> = {
  [KartItem.BANANA]: "Banana",
  [KartItem.MUSHROOM]: "Mushroom",
  [KartItem.FEATHER]: "Feather",
  [KartItem.GREEN_SHELL]: "Green Shell",
  [KartItem.RED_SHELL]: "Red Shell",
  [KartItem.BLUE_SHELL]: "Blue Shell",
  [KartItem.LIGHTNING]: "Lightning",
  [KartItem.GHOST]: "Ghost",
  [KartItem.DUD]: "Dud",
};

const COLOR_NAMES: Record<number, string> = {
  [KartColor.RED]: "red",
  [KartColor.BLUE]: "blue",
  [KartColor.GREEN]: "green",
  [KartColor.PURPLE]: "purple",
  [KartColor.WHITE]: "white",
  [KartColor.YELLOW]: "yellow",
  [KartColor.BLACK]: "black",
};

const PURPOSES: Record<string, string> = {
  start_order: "for the start order",
  move: "to move",
  booster: "on a booster",
  thwomp: "for a Thwomp",
};

function kartDot(racer: KartRacer, update: Update): HTMLElement {
  const colour = COLOR_NAMES[racer.color] ?? "grey";
  return h("span", { class: `kart-dot k-${colour}`, title: `${seatName(update, racer.seat)} (${racer.character})` }, racer.character.slice(0, 1));
}

/** The field's tap: the opened entry's next step (a banana's new field), else a banana to place or move. */
function fieldTap(context: RenderContext, field: number): Choice | undefined {
  const next = openedStep(context, ["field"], field);
  if (next) return next;
  return entryFor(context, ["place_banana"], ["field"], field) ?? entryFor(context, ["move_banana"], ["from_field"], field);
}

function fieldCell(context: RenderContext, view: KartView, track: KartTrack, field: number): HTMLElement {
  const type = FIELD_BY_TYPE.get(track.fields[field]);
  const starts = track.shortcuts.filter((s) => s.start === field).map((s) => s.label);
  const exits = track.shortcuts.filter((s) => s.exit === field).map((s) => s.label);
  const karts = view.karts.filter((k) => k.field === field);
  const banana = view.bananaFields.includes(field);
  const tap = fieldTap(context, field);
  const classes = ["field", type?.css ?? "f-plain", field === 0 ? "start" : "", tap ? "playable" : "", tap && isOpened(context, tap) ? "selected" : ""];
  const inner = [
    h("span", { class: "f-no" }, String(field)),
    type ? h("span", { class: "f-mark", "aria-hidden": "true" }, type.mark) : null,
    starts.length ? h("span", { class: "cut-from", title: `shortcut ${starts.join(", ")} starts here` }, `${starts.join("")}↗`) : null,
    exits.length ? h("span", { class: "cut-to", title: `shortcut ${exits.join(", ")} ends here` }, `↘${exits.join("")}`) : null,
    banana ? h("span", { class: "banana", title: "banana chip" }) : null,
    karts.length ? h("span", { class: "karts" }, ...karts.map((k) => kartDot(k, context.update))) : null,
  ];
  const label = `field ${field}${type ? `, ${type.name.split(":")[0]}` : ""}${banana ? ", banana" : ""}`;
  if (!tap) return h("div", { class: classes.filter(Boolean).join(" "), "data-field": field, title: label }, ...inner);
  return h(
    "button",
    { class: classes.filter(Boolean).join(" "), "data-field": field, "aria-label": `${label}: choose it`, onclick: () => context.open(tap) },
    ...inner,
  );
}

/** The track in rows (of ten, or six on a phone), every other row right to left, so each field touches the next one; the gutter
 * at a row's end shows where the route turns (down to the next row, or back to field 0 for the next lap). */
function trackGrid(context: RenderContext, view: KartView, track: KartTrack): HTMLElement {
  const ROW = window.matchMedia(NARROW).matches ? ROW_NARROW : ROW_WIDE;
  const rows: HTMLElement[] = [];
  for (let start = 0, row = 0; start < track.length; start += ROW, row++) {
    const fields = Array.from({ length: Math.min(ROW, track.length - start) }, (_, i) => start + i);
    const backwards = row % 2 === 1;
    const last = start + ROW >= track.length;
    const cells = fields.map((f) => fieldCell(context, view, track, f));
    const turn = h("span", { class: "turn-arrow", title: last ? "on to field 0: the finish line" : "on to the next row" }, last ? "↺0" : "↓");
    const blank = h("span", { class: "turn-arrow" }, row === 0 ? "▶" : "");
    // A short last row keeps the grid: its cells sit under the row above's end, the gap is filled.
    const gap = Array.from({ length: ROW - fields.length }, () => h("span", { class: "field-gap" }));
    rows.push(
      h(
        "div",
        { class: `track-row${backwards ? " backwards" : ""}` },
        ...(backwards ? [turn, ...gap, ...cells.reverse(), blank] : [blank, ...cells, ...gap, turn]),
      ),
    );
  }
  return h(
    "div",
    { class: `track rows-${ROW}`, "aria-label": `${track.title}: ${track.length} fields; the finish line lies before field 0` },
    h("div", { class: "track-title" }, `${track.title} · ${view.laps} laps`),
    ...rows,
  );
}

function legend(context: RenderContext, view: KartView, track: KartTrack): HTMLElement {
  return h(
    "div",
    { class: "legend" },
    ...FIELD_TYPES.map((t) => h("span", { class: "legend-item" }, h("span", { class: `field mini ${t.css}` }, t.mark), t.name)),
    h("span", { class: "legend-item" }, h("span", { class: "banana" }), `banana chip (${view.bananaChipsLeft} left)`),
    ...track.shortcuts.map((cut, index) => {
      const entry = entryFor(context, ["take_shortcut"], ["shortcut"], index);
      const text = `shortcut ${cut.label}: field ${cut.start} → ${cut.exit}`;
      return entry
        ? h("button", { class: "legend-item shortcut playable", onclick: () => context.open(entry) }, `Take ${text} (Feather)`)
        : h("span", { class: "legend-item shortcut" }, h("span", { class: "cut-from" }, `${cut.label}↗`), text);
    }),
  );
}

function die(context: RenderContext, view: KartView): HTMLElement {
  const roll = entryFor(context, ["roll"], [""], null);
  const last = view.lastRolls[view.lastRolls.length - 1];
  const face = last ? String(last.value) : "–";
  const dieFace = roll
    ? h("button", { class: "die playable", "aria-label": "Roll the die", onclick: () => context.open(roll) }, h("span", { class: "die-face" }, face), h("small", {}, "Roll"))
    : h("div", { class: "die", "aria-label": last ? `the die shows ${face}` : "the die" }, h("span", { class: "die-face" }, face));
  const notes = [
    view.mushroom ? "Mushroom: this roll is doubled" : "",
    view.bundlePaid ? `paid ${view.bundlePaid} coins: +${view.bundleBonus} fields` : "",
    view.lightning ? "Lightning: this landing is safe" : "",
    view.stage === KartStage.SHORTCUT ? `a move of ${view.pendingMove} waits: shortcut or track?` : "",
    view.stage === KartStage.BANANA ? "a Banana was drawn: tap a field for the chip" : "",
    view.itemUsed ? "an item was used this turn" : "",
  ].filter(Boolean);
  return h(
    "div",
    { class: "dice" },
    dieFace,
    h(
      "div",
      { class: "rolls" },
      ...[...view.lastRolls].reverse().slice(0, 4).map((r) => h("div", {}, `${seatName(context.update, r.roller)} rolled ${r.value} ${PURPOSES[r.purpose] ?? r.purpose}`)),
      ...notes.map((n) => h("div", { class: "kart-note" }, n)),
    ),
  );
}

/** The held item as a button when it may be used now (an item with no target, or one opening its targets). */
function itemCell(context: RenderContext, view: KartView, racer: KartRacer): HTMLElement {
  const name = racer.item !== undefined ? (KART_ITEM_NAMES[racer.item] ?? "item") : "–";
  if (racer.seat !== view.you || racer.item === undefined) return h("span", { class: "item" }, name);
  const use = context.entries.find((e) => e.steps.length > 0 && e.steps.every((s) => !s[1]) && e.steps[0][0] === "use_item");
  if (!use) return h("span", { class: "item" }, name);
  context.claim(use);
  return h("button", { class: `item playable${isOpened(context, use) ? " selected" : ""}`, onclick: () => context.open(use) }, `Use ${name}`);
}

function standings(context: RenderContext, view: KartView): HTMLElement {
  const { update } = context;
  const order = [...view.karts].sort((a, b) =>
    view.ranking.length ? (view.ranking[a.seat] ?? 99) - (view.ranking[b.seat] ?? 99) : b.progress - a.progress || a.startPlace - b.startPlace,
  );
  return h(
    "ol",
    { class: "standings", "aria-label": "standings" },
    ...order.map((racer, index) => {
      const aim = tapFor(context, ["use_item"], ["target"], racer.seat);
      const turn = view.turn === racer.seat;
      const heldItem = view.karts[view.you ?? -1]?.item;
      const aimName = heldItem !== undefined ? (KART_ITEM_NAMES[heldItem] ?? "item") : "item";
      return h(
        "li",
        { class: `racer${turn ? " to-act" : ""}${view.you === racer.seat ? " you" : ""}`, "data-seat": racer.seat },
        h("span", { class: "place" }, `${view.ranking[racer.seat] ?? index + 1}.`),
        kartDot(racer, update),
        h("span", { class: "racer-name" }, seatName(update, racer.seat), h("small", {}, ` ${racer.character}`)),
        // One lap count, the one the scores give (laps completed), so the seats and the standings agree.
        h("span", { class: "lap", title: `driving lap ${racer.lap}` }, `${view.scores[racer.seat] ?? 0}/${view.laps} laps`),
        h("span", { class: "coins" }, `${racer.coins} coin${racer.coins === 1 ? "" : "s"}`),
        itemCell(context, view, racer),
        racer.skips ? h("span", { class: "skips" }, `skips ${racer.skips}`) : null,
        racer.halving ? h("span", { class: "halving" }, "halved") : null,
        aim ? h("button", { class: "aim playable", onclick: () => context.open(aim.entry) }, `${aimName} at ${seatName(update, racer.seat)}`) : null,
      );
    }),
  );
}

export const renderKart: GameRenderer = (context) => {
  const game = context.update.view?.game;
  if (game?.case !== "kart") return h("div", {}, "");
  const view = game.value;
  const track = view.track;
  if (!track) return h("section", { class: "kart" }, "No track.");
  return h(
    "section",
    { class: "kart" },
    trackGrid(context, view, track),
    h("div", { class: "kart-side" }, die(context, view), standings(context, view)),
    legend(context, view, track),
    h("div", { class: "kart-bank" }, `Bank ${view.bank} coins · item deck ${view.deckCount} cards`),
  );
};
