// The Super Mario Kart board game drawn as its track: the loop of fields (an SVG stadium, as the Tk client
// draws it: a tall one on a phone held upright, a wide one on a wider screen), field 0 at the chequered
// finish line and the way the karts drive; each field's type by colour and mark (with a legend), the
// shortcuts as red arrows across the infield, banana chips and the karts on their fields; the die with the
// latest roll (its face is exactly the roll its caption names) and the rolls before it; the standings (lap,
// coins, item, skips). Tap targets: the Roll button, a field (place or move a banana), a shortcut's arrow or
// its legend entry (take it), a kart's row (aim the held shell or Ghost at it), the held item (use it), a
// coin bundle beside the die.

import type { KartRacer, KartTrack, KartView } from "../gen/toadstool/v1/kart_pb";
import { KartColor, KartFieldType, KartItem, KartStage } from "../gen/toadstool/v1/kart_pb";
import type { Update } from "../gen/toadstool/v1/table_pb";
import type { Choice } from "../choices";
import { h } from "../dom";
import { seatName } from "../names";
import { entryFor, isOpened, openedStep, tapFor } from "./taps";
import { svg } from "./svg";
import { t } from "../i18n";
import type { Key } from "../i18n";
import { NARROW } from "./types";
import type { GameRenderer, RenderContext } from "./types";

/** Each field type: its mark, its legend line and its short name (catalogue keys), its style. */
const FIELD_TYPES: { type: KartFieldType; mark: string; name: Key; short: Key; css: string }[] = [
  { type: KartFieldType.ITEM, mark: "?", name: "kart.fieldItem", short: "kart.fieldItemShort", css: "f-item" },
  { type: KartFieldType.BOOSTER, mark: "»", name: "kart.fieldBooster", short: "kart.fieldBoosterShort", css: "f-booster" },
  { type: KartFieldType.MUSHROOM, mark: "M", name: "kart.fieldMushroom", short: "kart.fieldMushroomShort", css: "f-mushroom" },
  { type: KartFieldType.THWOMP, mark: "▼", name: "kart.fieldThwomp", short: "kart.fieldThwompShort", css: "f-thwomp" },
];
const FIELD_BY_TYPE = new Map(FIELD_TYPES.map((field) => [field.type, field]));

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

const ITEM_WORDS: Record<number, Key> = {
  [KartItem.BANANA]: "kart.banana",
  [KartItem.MUSHROOM]: "kart.mushroom",
  [KartItem.FEATHER]: "kart.feather",
  [KartItem.GREEN_SHELL]: "kart.greenShell",
  [KartItem.RED_SHELL]: "kart.redShell",
  [KartItem.BLUE_SHELL]: "kart.blueShell",
  [KartItem.LIGHTNING]: "kart.lightning",
  [KartItem.GHOST]: "kart.ghost",
  [KartItem.DUD]: "kart.dud",
};

/** A Kart item in the person's words ("Green Shell", "Grüner Panzer"). */
export function kartItemName(item: number): string {
  return t(ITEM_WORDS[item] ?? "kart.item");
}

const COLOR_NAMES: Record<number, string> = {
  [KartColor.RED]: "red",
  [KartColor.BLUE]: "blue",
  [KartColor.GREEN]: "green",
  [KartColor.PURPLE]: "purple",
  [KartColor.WHITE]: "white",
  [KartColor.YELLOW]: "yellow",
  [KartColor.BLACK]: "black",
};

const PURPOSES = new Set(["start_order", "move", "booster", "thwomp"]);

/** A roll in a sentence: "Ann rolled 4 to move", "You rolled 6 for the start order". */
function rolledText(update: Update, roller: number, value: number, purpose: string): string {
  const which = PURPOSES.has(purpose) ? purpose : "other";
  if (update.viewerSeat === roller) return t(`kart.youRolled.${which}` as Key, { value });
  return t(`kart.rolled.${which}` as Key, { name: seatName(update, roller), value });
}

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

/** A stadium-shaped loop (two straights, two half circles): a point and the outward normal at a distance
 * along it. `tall`: the straights run up and down (a phone held upright), else across. Field 0 sits in the
 * middle of one straight, and the numbers grow clockwise. */
class Loop {
  readonly perimeter: number;
  constructor(
    readonly cx: number,
    readonly cy: number,
    readonly straight: number,
    readonly radius: number,
    readonly length: number,
    readonly tall: boolean,
  ) {
    this.perimeter = 2 * straight + 2 * Math.PI * radius;
  }

  /** [x, y, nx, ny] at distance `s` (0: the start of field 0). */
  at(s0: number): [number, number, number, number] {
    let s = ((s0 % this.perimeter) + this.perimeter) % this.perimeter;
    const half = this.straight / 2;
    const r = this.radius;
    const arc = Math.PI * r;
    // In the loop's own frame: u along the straights, v across; the start is the middle of the v = +r one.
    let u: number, v: number, nu: number, nv: number;
    if (s < half) [u, v, nu, nv] = [-s, r, 0, 1];
    else if ((s -= half) < arc) {
      const t = s / r;
      [u, v, nu, nv] = [-half - r * Math.sin(t), r * Math.cos(t), -Math.sin(t), Math.cos(t)];
    } else if ((s -= arc) < this.straight) [u, v, nu, nv] = [-half + s, -r, 0, -1];
    else if ((s -= this.straight) < arc) {
      const t = s / r;
      [u, v, nu, nv] = [half + r * Math.sin(t), -r * Math.cos(t), Math.sin(t), -Math.cos(t)];
    } else {
      s -= arc;
      [u, v, nu, nv] = [half - s, r, 0, 1];
    }
    // Tall: the frame turned a quarter, so the start is on the left straight and the karts drive up it.
    return this.tall ? [this.cx - v, this.cy + u, -nv, nu] : [this.cx + u, this.cy + v, nu, nv];
  }

  field(index: number): [number, number, number, number] {
    return this.at(((index + 0.5) * this.perimeter) / this.length);
  }
}

/** The smallest tap target on a phone, in CSS pixels (44 x 44), with a little to spare for rounding. */
const FINGER = 46;

/** The loop's size for a track of `length` fields, drawn in `width`. Upright (a phone) the fields are 25
 * apart, or, while some of them are to be tapped (`roomy`), a finger's width apart as drawn on this screen,
 * so each field's stretch of road is a 44 px tap target (the track is then taller, and scrolls). */
function layout(length: number, tall: boolean, roomy = false): { loop: Loop; width: number; height: number; tile: number } {
  const margin = 40;
  if (tall) {
    const width = 356;
    const radius = width / 2 - margin;
    // The drawing's width on screen: the page's, less the screen's and the board's padding and borders.
    const shown = Math.min(420, document.documentElement.clientWidth - 36);
    const spacing = roomy ? Math.max(25, Math.ceil((FINGER * width) / Math.max(200, shown))) : 25;
    const straight = Math.max(120, (length * spacing - 2 * Math.PI * radius) / 2);
    const height = straight + 2 * radius + 2 * margin;
    const loop = new Loop(width / 2, height / 2, straight, radius, length, true);
    return { loop, width, height, tile: Math.min(30, (loop.perimeter / length) * 0.84) };
  }
  const width = 900;
  const radius = 130;
  const straight = width - 2 * radius - 2 * margin;
  const height = 2 * radius + 2 * margin;
  const loop = new Loop(width / 2, height / 2, straight, radius, length, false);
  return { loop, width, height, tile: Math.min(34, (loop.perimeter / length) * 0.84) };
}

const KART_FILL: Record<number, string> = {
  [KartColor.RED]: "#e52521",
  [KartColor.BLUE]: "#2f5fe0",
  [KartColor.GREEN]: "#35b04a",
  [KartColor.PURPLE]: "#8e44ad",
  [KartColor.WHITE]: "#f5f5f5",
  [KartColor.YELLOW]: "#f3d02a",
  [KartColor.BLACK]: "#222222",
};
const DARK_KARTS = new Set([KartColor.RED, KartColor.BLUE, KartColor.GREEN, KartColor.PURPLE, KartColor.BLACK]);

function fieldShape(view: KartView, track: KartTrack, loop: Loop, tile: number, index: number, tap: Choice | undefined, context: RenderContext): SVGElement {
  const type = FIELD_BY_TYPE.get(track.fields[index]);
  const [x, y, nx, ny] = loop.field(index);
  const banana = view.bananaFields.includes(index);
  const half = tile / 2;
  const angle = (Math.atan2(ny, nx) * 180) / Math.PI;
  const spacing = loop.perimeter / loop.length;
  const parts: (SVGElement | null)[] = [
    // What a tap hits: the whole stretch of road of this field, wider than the tile (at least a finger's).
    tap ? svg("rect", { class: "hit", x: x - Math.max(tile, FINGER / 2), y: y - spacing / 2, width: Math.max(tile * 2, FINGER), height: spacing, transform: `rotate(${angle.toFixed(1)} ${x.toFixed(1)} ${y.toFixed(1)})` }) : null,
    svg("rect", { class: `tile ${type?.css ?? "f-plain"}`, x: x - half, y: y - half, width: tile, height: tile, rx: tile / 4 }),
    type?.type === KartFieldType.MUSHROOM
      ? svg("path", { class: "mushroom-cap", d: `M ${x - half * 0.62} ${y + half * 0.05} a ${half * 0.62} ${half * 0.62} 0 0 1 ${half * 1.24} 0 z` })
      : null,
    type?.type === KartFieldType.MUSHROOM
      ? svg("rect", { class: "mushroom-stem", x: x - half * 0.25, y: y + half * 0.05, width: half * 0.5, height: half * 0.45, rx: 2 })
      : null,
    type && type.type !== KartFieldType.MUSHROOM
      ? svg("text", { class: "mark", x, y: y + tile * 0.17, "font-size": tile * 0.5 }, type.mark)
      : null,
    banana
      ? svg("path", {
          class: "banana-chip",
          d: `M ${x - half * 0.8} ${y - half * 0.55} q ${half * 0.8} ${half * 1.6} ${half * 1.6} 0 q ${-half * 0.8} ${half * 0.9} ${-half * 1.6} 0 z`,
        })
      : null,
  ];
  const label = type
    ? t(banana ? "kart.fieldTypedBanana" : "kart.fieldTyped", { number: index, type: t(type.short) })
    : t(banana ? "kart.fieldBanana" : "kart.field", { number: index });
  const classes = ["field", type?.css ?? "f-plain", banana ? "has-banana" : "", tap ? "playable" : "", tap && isOpened(context, tap) ? "selected" : ""];
  const attrs: Record<string, string | number> = { class: classes.filter(Boolean).join(" "), "data-field": index };
  // A field that is no choice is named by its title (a tooltip too); a tap target by its label.
  if (!tap) return svg("g", attrs, svg("title", {}, label), ...parts);
  const element = svg("g", { ...attrs, role: "button", tabindex: 0, "aria-label": t("kart.chooseField", { field: label }) }, ...parts);
  element.addEventListener("click", () => context.open(tap));
  return element;
}

/** The karts on the track: on their fields (several on one field side by side across the road), and the
 * karts still in the start area on the grid beside the finish line. */
function karts(view: KartView, loop: Loop, tile: number, update: Update): SVGElement {
  const radius = Math.max(8, Math.min(13, tile * 0.42));
  const byField = new Map<number, KartRacer[]>();
  const grid: KartRacer[] = [];
  for (const racer of view.karts) {
    if (racer.inStartArea) grid.push(racer);
    else byField.set(racer.field, [...(byField.get(racer.field) ?? []), racer]);
  }
  const discs: SVGElement[] = [];
  const disc = (racer: KartRacer, x: number, y: number): SVGElement =>
    svg(
      "g",
      { class: `kart k-seat-${racer.seat}${view.turn === racer.seat ? " to-act" : ""}`, "data-seat": racer.seat },
      svg("title", {}, t("kart.kartTitle", { name: seatName(update, racer.seat), character: racer.character, field: racer.field })),
      svg("circle", { cx: x, cy: y, r: radius, fill: KART_FILL[racer.color] ?? "#999" }),
      svg("text", { x, y: y + radius * 0.38, "font-size": radius * 1.05, fill: DARK_KARTS.has(racer.color) ? "#fff" : "#111" }, racer.character.slice(0, 1)),
    );
  for (const [field, racers] of byField) {
    const [x, y, nx, ny] = loop.field(field);
    racers.forEach((racer, k) => {
      const offset = (k - (racers.length - 1) / 2) * (radius * 1.6);
      discs.push(disc(racer, x + nx * offset, y + ny * offset));
    });
  }
  if (grid.length) {
    // The start grid: in the infield beside the finish line, in pairs.
    const [x, y, nx, ny] = loop.at(0);
    const tx = -ny;
    const ty = nx;
    grid.forEach((racer, k) => {
      const row = Math.floor(k / 2);
      const col = k % 2;
      const into = tile * 0.9 + radius + 6 + col * (radius * 2 + 3);
      const along = (row - 1.5) * (radius * 2 + 3);
      discs.push(disc(racer, x - nx * into + tx * along, y - ny * into + ty * along));
    });
  }
  return svg("g", { class: "karts" }, ...discs);
}

/** A shortcut: a red arrow across the infield from its start field to its exit, with its label; a tap
 * target when a Feather may take it now. */
function shortcutArrow(context: RenderContext, loop: Loop, tile: number, index: number, label: string, from: number, to: number): SVGElement {
  const [x0, y0, n0x, n0y] = loop.field(from);
  const [x1, y1, n1x, n1y] = loop.field(to);
  const sx = x0 - n0x * tile * 0.6;
  const sy = y0 - n0y * tile * 0.6;
  const ex = x1 - n1x * tile * 0.75;
  const ey = y1 - n1y * tile * 0.75;
  const mx = (sx + ex) / 2 + (loop.cx - (sx + ex) / 2) * 0.45;
  const my = (sy + ey) / 2 + (loop.cy - (sy + ey) / 2) * 0.45;
  const entry = entryFor(context, ["take_shortcut"], ["shortcut"], index);
  const lx = 0.25 * sx + 0.5 * mx + 0.25 * ex;
  const ly = 0.25 * sy + 0.5 * my + 0.25 * ey;
  const parts = [
    svg("path", { class: "cut-line", d: `M ${sx} ${sy} Q ${mx} ${my} ${ex} ${ey}`, "marker-end": "url(#kart-arrow)" }),
    // What a tap hits: a finger-wide disc around the badge (the line alone is too thin to aim at).
    entry ? svg("circle", { class: "cut-hit", cx: lx, cy: ly, r: FINGER / 2 }) : null,
    svg("circle", { class: "cut-badge", cx: lx, cy: ly, r: entry ? 15 : 12 }),
    svg("text", { class: "cut-label", x: lx, y: ly + 4.5, "font-size": 13 }, label),
  ];
  const attrs = { class: `shortcut${entry ? " playable" : ""}`, "data-shortcut": index };
  if (!entry) return svg("g", attrs, svg("title", {}, t("kart.shortcut", { label, from, to })), ...parts);
  const element = svg("g", { ...attrs, role: "button", tabindex: 0, "aria-label": t("kart.takeShortcut", { label, from, to }) }, ...parts);
  element.addEventListener("click", () => context.open(entry));
  return element;
}

/** The track as a loop of fields (see Loop), the finish line at field 0, every fifth field numbered. */
function trackLoop(context: RenderContext, view: KartView, track: KartTrack): SVGElement {
  const tall = window.matchMedia(NARROW).matches;
  const length = Math.max(1, track.length || track.fields.length);
  const taps = Array.from({ length }, (_, i) => fieldTap(context, i));
  const { loop, width, height, tile } = layout(length, tall, taps.some((tap) => tap !== undefined));
  const road = tile * 1.7;
  const steps = 120;
  const points = Array.from({ length: steps }, (_, i) => loop.at((loop.perimeter * i) / steps)).map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`);
  const roadPath = `M ${points.join(" L ")} Z`;
  const [fx, fy, fnx, fny] = loop.at(0);
  const fields = Array.from({ length }, (_, i) => fieldShape(view, track, loop, tile, i, taps[i], context));
  const numbers = Array.from({ length }, (_, i) => i)
    .filter((i) => i % 5 === 0)
    .map((i) => {
      const [x, y, nx, ny] = loop.field(i);
      const out = road / 2 + 9;
      return svg("text", { class: "field-no", x: x + nx * out, y: y + ny * out + 4, "font-size": 11 }, String(i));
    });
  // The chequered finish line across the road, just before field 0.
  const squares: SVGElement[] = [];
  const across = road;
  const cells = 6;
  for (let row = 0; row < cells; row++) {
    for (let col = 0; col < 2; col++) {
      const t = -across / 2 + (row + 0.5) * (across / cells);
      const along = (col - 0.5) * 5;
      const cx = fx + fnx * t + -fny * along;
      const cy = fy + fny * t + fnx * along;
      squares.push(svg("rect", { class: (row + col) % 2 ? "chk-w" : "chk-b", x: cx - 2.5, y: cy - across / cells / 2, width: 5, height: across / cells, transform: tall ? `rotate(90 ${cx} ${cy})` : "" }));
    }
  }
  const arrow = tall
    ? svg("path", { class: "drive-arrow", d: `M ${loop.cx - 18} ${loop.cy + 40} L ${loop.cx - 18} ${loop.cy - 40}`, "marker-end": "url(#kart-drive)" })
    : svg("path", { class: "drive-arrow", d: `M ${loop.cx - 60} ${loop.cy - loop.radius + road + 22} L ${loop.cx + 60} ${loop.cy - loop.radius + road + 22}`, "marker-end": "url(#kart-drive)" });
  return svg(
    "svg",
    {
      class: `track-svg ${tall ? "tall" : "wide"}`,
      viewBox: `0 0 ${width} ${height.toFixed(0)}`,
      role: "group",
      "aria-label": t("kart.trackLabel", { track: track.title, length }),
      "data-fields": length,
    },
    svg(
      "defs",
      {},
      svg("marker", { id: "kart-arrow", viewBox: "0 0 10 10", refX: 6, refY: 5, markerWidth: 4, markerHeight: 4, orient: "auto-start-reverse" }, svg("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "cut-head" })),
      svg("marker", { id: "kart-drive", viewBox: "0 0 10 10", refX: 6, refY: 5, markerWidth: 4, markerHeight: 4, orient: "auto" }, svg("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "drive-head" })),
    ),
    svg("path", { class: "road-edge", d: roadPath, "stroke-width": road + 6 }),
    svg("path", { class: "road", d: roadPath, "stroke-width": road }),
    svg("text", { class: "infield-title", x: loop.cx + (tall ? 14 : 0), y: loop.cy + (tall ? 0 : 6), "font-size": tall ? 15 : 20 }, track.title),
    svg("text", { class: "infield-laps", x: loop.cx + (tall ? 14 : 0), y: loop.cy + (tall ? 20 : 30), "font-size": tall ? 12 : 14 }, t("kart.lapsFields", { laps: view.laps, length })),
    arrow,
    svg("g", { class: "finish" }, ...squares),
    // FINISH in the infield, to one side of the start grid.
    svg("text", { class: "finish-label", x: fx - fnx * (road / 2 + 16) + fny * 100, y: fy - fny * (road / 2 + 16) - fnx * 100 + 4, "font-size": 11 }, t("kart.finish")),
    ...numbers,
    svg("g", { class: "fields" }, ...fields),
    ...track.shortcuts.map((cut, i) => shortcutArrow(context, loop, tile, i, cut.label, cut.start, cut.exit)),
    karts(view, loop, tile, context.update),
  );
}

/** A field type as the track draws it, small, for the legend. */
function swatch(type: KartFieldType): SVGElement {
  const info = FIELD_BY_TYPE.get(type)!;
  return svg(
    "svg",
    { class: "swatch-svg track-svg-like", viewBox: "0 0 24 24", "aria-hidden": "true" },
    svg("rect", { class: `tile ${info.css}`, x: 1, y: 1, width: 22, height: 22, rx: 5 }),
    type === KartFieldType.MUSHROOM
      ? svg("path", { class: "mushroom-cap", d: "M 5.5 12.5 a 6.5 6.5 0 0 1 13 0 z" })
      : svg("text", { class: "mark", x: 12, y: 17, "font-size": 13 }, info.mark),
    type === KartFieldType.MUSHROOM ? svg("rect", { class: "mushroom-stem", x: 9.5, y: 12.5, width: 5, height: 5, rx: 1.5 }) : null,
  );
}

function legend(context: RenderContext, view: KartView, track: KartTrack): HTMLElement {
  return h(
    "div",
    { class: "legend" },
    ...FIELD_TYPES.map((field) => h("span", { class: "legend-item" }, swatch(field.type), t(field.name))),
    h("span", { class: "legend-item" }, h("span", { class: "swatch banana-swatch", "aria-hidden": "true" }), t("kart.bananaChips", { count: view.bananaChipsLeft })),
    ...track.shortcuts.map((cut, index) => {
      const entry = entryFor(context, ["take_shortcut"], ["shortcut"], index);
      const text = t("kart.shortcut", { label: cut.label, from: cut.start, to: cut.exit });
      return entry
        ? h("button", { class: "legend-item shortcut playable", onclick: () => context.open(entry) }, t("kart.takeShortcutLegend", { label: cut.label, from: cut.start, to: cut.exit }))
        : h("span", { class: "legend-item shortcut" }, h("span", { class: "swatch cut-swatch", "aria-hidden": "true" }, "➜"), text);
    }),
  );
}

/** The roll the die shows, remembered between drawings: a new roll lands with a short bounce, once (a
 * redraw of the same roll, or the next update at bot speed, does not start it again). */
let shownRoll = "";

const PIPS: Record<number, [number, number][]> = {
  1: [[2, 2]],
  2: [[1, 1], [3, 3]],
  3: [[1, 1], [2, 2], [3, 3]],
  4: [[1, 1], [3, 1], [1, 3], [3, 3]],
  5: [[1, 1], [3, 1], [2, 2], [1, 3], [3, 3]],
  6: [[1, 1], [3, 1], [1, 2], [3, 2], [1, 3], [3, 3]],
};

/** A die face with the pips of `value` (a number outside 1-6 is written instead). */
function dieFace(value: number): SVGElement {
  const pips = PIPS[value];
  return svg(
    "svg",
    { class: "die-pips", viewBox: "0 0 40 40", "aria-hidden": "true" },
    svg("rect", { class: "die-body", x: 1.5, y: 1.5, width: 37, height: 37, rx: 8 }),
    ...(pips ? pips.map(([c, r]) => svg("circle", { class: "pip", cx: c * 10, cy: r * 10, r: 3.6 })) : [svg("text", { x: 20, y: 27, "font-size": 20 }, String(value))]),
  );
}

/** The coin bundles offered before this roll, as chips beside the die (claimed: not again in the bar). */
function bundles(context: RenderContext): HTMLElement | null {
  const offers = context.entries.filter((e) => e.action !== null && e.steps[0]?.[0] === "pay_coins");
  if (!offers.length) return null;
  return h(
    "div",
    { class: "bundles", role: "group", "aria-label": t("kart.payCoins") },
    ...offers.map((entry) => {
      context.claim(entry);
      return h("button", { class: "bundle playable", onclick: () => context.open(entry) }, entry.action!.label);
    }),
  );
}

function die(context: RenderContext, view: KartView): HTMLElement {
  const roll = entryFor(context, ["roll"], [""], null);
  const last = view.lastRolls[view.lastRolls.length - 1];
  const key = JSON.stringify(view.lastRolls.map((r) => [r.roller, r.value, r.purpose]));
  const fresh = key !== shownRoll && last !== undefined && shownRoll !== "";
  shownRoll = key;
  const caption = last ? rolledText(context.update, last.roller, last.value, last.purpose) : t("kart.noRoll");
  // The last roll, whoever made it: its face and its caption name the same number.
  const shown = h(
    "div",
    { class: `die-shown${fresh ? " just-rolled" : ""}`, role: "img", "aria-label": caption, "data-value": last ? last.value : "" },
    last ? dieFace(last.value) : h("span", { class: "die-none" }, "–"),
    h("div", { class: "die-caption" }, caption),
  );
  const button = roll
    ? h("button", { class: "die playable roll-button", "aria-label": t("kart.rollDie"), "data-kind": "roll", onclick: () => context.open(roll) }, h("span", { class: "roll-icon", "aria-hidden": "true" }, "⚄"), h("span", {}, t("kart.roll")))
    : null;
  const notes = [
    view.mushroom ? t("kart.mushroomNote") : "",
    view.bundlePaid ? t("kart.paidNote", { coins: view.bundlePaid, bonus: view.bundleBonus }) : "",
    view.lightning ? t("kart.lightningNote") : "",
    view.stage === KartStage.SHORTCUT ? t("kart.shortcutNote", { move: view.pendingMove }) : "",
    view.stage === KartStage.BANANA ? t("kart.bananaNote") : "",
    view.itemUsed ? t("kart.itemUsedNote") : "",
  ].filter(Boolean);
  const earlier = [...view.lastRolls].reverse().slice(1, 4);
  return h(
    "div",
    { class: "dice" },
    h("div", { class: "die-row" }, shown, button, bundles(context)),
    notes.length || earlier.length
      ? h(
          "div",
          { class: "rolls" },
          ...notes.map((n) => h("div", { class: "kart-note" }, n)),
          ...earlier.map((r) => h("div", { class: "earlier" }, t("kart.before", { roll: rolledText(context.update, r.roller, r.value, r.purpose) }))),
        )
      : null,
  );
}

/** The held item as a button when it may be used now (an item with no target, or one opening its targets). */
function itemCell(context: RenderContext, view: KartView, racer: KartRacer): HTMLElement {
  const name = racer.item !== undefined ? kartItemName(racer.item) : "–";
  if (racer.seat !== view.you || racer.item === undefined) return h("span", { class: "item" }, name);
  const use = context.entries.find((e) => e.steps.length > 0 && e.steps.every((s) => !s[1]) && e.steps[0][0] === "use_item");
  if (!use) return h("span", { class: "item" }, name);
  context.claim(use);
  return h("button", { class: `item playable${isOpened(context, use) ? " selected" : ""}`, onclick: () => context.open(use) }, t("kart.use", { item: name }));
}

function standings(context: RenderContext, view: KartView): HTMLElement {
  const { update } = context;
  const order = [...view.karts].sort((a, b) =>
    view.ranking.length ? (view.ranking[a.seat] ?? 99) - (view.ranking[b.seat] ?? 99) : b.progress - a.progress || a.startPlace - b.startPlace,
  );
  return h(
    "ol",
    { class: "standings", "aria-label": t("kart.standings") },
    ...order.map((racer, index) => {
      const aim = tapFor(context, ["use_item"], ["target"], racer.seat);
      const turn = view.turn === racer.seat;
      const heldItem = view.karts[view.you ?? -1]?.item;
      const aimName = heldItem !== undefined ? kartItemName(heldItem) : t("kart.item");
      return h(
        "li",
        { class: `racer${turn ? " to-act" : ""}${view.you === racer.seat ? " you" : ""}`, "data-seat": racer.seat },
        h("span", { class: "place" }, `${view.ranking[racer.seat] ?? index + 1}.`),
        kartDot(racer, update),
        h("span", { class: "racer-name" }, seatName(update, racer.seat), h("small", {}, ` ${racer.character}`)),
        // One lap count, the one the scores give (laps completed), so the seats and the standings agree.
        h("span", { class: "lap", title: t("kart.drivingLap", { lap: racer.lap }) }, t("kart.laps", { done: view.scores[racer.seat] ?? 0, laps: view.laps })),
        h("span", { class: "coins" }, t("kart.coins", { count: racer.coins })),
        itemCell(context, view, racer),
        racer.skips ? h("span", { class: "skips" }, t("kart.skips", { count: racer.skips })) : null,
        racer.halving ? h("span", { class: "halving" }, t("kart.halved")) : null,
        aim ? h("button", { class: "aim playable", onclick: () => context.open(aim.entry) }, t("kart.aim", { item: aimName, name: seatName(update, racer.seat) })) : null,
      );
    }),
  );
}

export const renderKart: GameRenderer = (context) => {
  const game = context.update.view?.game;
  if (game?.case !== "kart") return h("div", {}, "");
  const view = game.value;
  const track = view.track;
  if (!track) return h("section", { class: "kart" }, t("kart.noTrack"));
  return h(
    "section",
    { class: "kart" },
    // The die first: on a phone the Roll button is on the first screen, above the track.
    die(context, view),
    h("div", { class: "track" }, trackLoop(context, view, track)),
    h("div", { class: "kart-side" }, standings(context, view)),
    legend(context, view, track),
    h("div", { class: "kart-bank" }, t("kart.bank", { bank: view.bank, deck: view.deckCount })),
  );
};
