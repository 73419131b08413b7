// Keyboard play at the table: the terminal client's keys, and focus that stays where it was across updates.
//
// The keys (as `toadstool play` has them, clients/toadstool_clients/terminal/menu.py): a number chooses the
// choice of that number (the board's tap targets, then the action bar's, in page order; when the board's
// choices are Kart fields, the field's own number), at once when no longer number could follow, else it moves the
// focus there and Enter (or another digit) goes on; d draws (or passes when nothing is left to draw),
// u calls UNO (switches the call on for the next play, or calls it after the play), r rolls, k keeps the
// drawn card, e ends the turn, Esc goes back a step; ← → move the focus between the choices. Once a key
// has been used the choices show their numbers. The keys only pick among the offered choices; the update
// decides what those are.
//
// Every update draws the table again, so the focused element is replaced: `keepFocus` finds the same
// element in the new drawing (by what it is: its data attributes and label) and focuses it again.

import type { Choice } from "./choices";
import { leaves } from "./choices";

/** What the keys need from the table screen. */
export interface KeyTable {
  readonly root: HTMLElement;
  /** The offered choices now, or null when there are none (a spectator, not your moment). */
  tree(): Choice | null;
  open(entry: Choice): void;
  /** Up one step; false when nothing was open. */
  back(): boolean;
  toggled(name: string): boolean;
  setToggle(name: string, on: boolean): void;
}

/** One-key shortcuts: key -> the kinds of the offered action it takes, first found first. */
export const KIND_KEYS: Record<string, readonly string[]> = {
  d: ["draw", "pass_turn"],
  r: ["roll"],
  k: ["keep"],
  e: ["end_turn"],
};

/** The choices a number picks: the board's enabled tap targets, then the action bar's (Back aside). */
const CHOICES = ".board button:not(:disabled), .board [role=button], .actions button.action:not(.cancel):not(:disabled)";
/** Elements that may hold the focus, for keepFocus. */
const FOCUSABLE = "button:not(:disabled), a[href], input, select, textarea, [tabindex]:not([tabindex='-1'])";
/** Parts of the table a lost focus is looked for again in, by its place among their focusable elements. */
const REGIONS = [".hand", ".board", ".actions", ".host", ".table-header", ".seats", ".log"];
/** Classes that say an element's state, not what it is (ignored when finding it again). */
const STATE_CLASSES = new Set(["playable", "selected", "armed", "next", "target", "fresh", "to-act"]);

export function choiceTargets(root: ParentNode): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(CHOICES)];
}

/** Whether the board's choices are all Kart fields: numbers are then the fields' own (as on the terminal's
 * drawn track); the action bar's few choices ("Throw the Banana away") are a Tab or a click away. */
function onTrack(targets: HTMLElement[]): boolean {
  const board = targets.filter((t) => t.closest(".board"));
  return board.length > 0 && board.every((t) => t.dataset.field !== undefined);
}

/** The number each choice answers to: Kart fields by their field number, anything else by its place. */
function numbered(targets: HTMLElement[]): Map<string, HTMLElement> {
  if (onTrack(targets)) return new Map(targets.filter((t) => t.dataset.field !== undefined).map((t) => [t.dataset.field!, t]));
  return new Map(targets.map((t, i) => [String(i + 1), t]));
}

function activate(element: HTMLElement | SVGElement): void {
  if (element instanceof HTMLElement && element.tagName === "BUTTON") element.click();
  else element.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true }));
}

export class TableKeys {
  private typed = "";
  /** A key has been used at this table: the choices show their numbers from then on. */
  private used = false;
  private readonly onKey = (event: KeyboardEvent): void => this.key(event);

  constructor(private readonly table: KeyTable) {}

  attach(): void {
    document.addEventListener("keydown", this.onKey);
  }

  detach(): void {
    document.removeEventListener("keydown", this.onKey);
  }

  /** After each drawing: number the choices (shown once the keyboard has been used). */
  numberChoices(): void {
    if (this.used) this.table.root.classList.add("keyboard");
    const targets = choiceTargets(this.table.root);
    if (onTrack(targets)) return; // the fields show their own numbers
    targets.forEach((t, i) => {
      if (i < 99) t.setAttribute("data-key", String(i + 1));
    });
  }

  private key(event: KeyboardEvent): void {
    if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
    const target = event.target as HTMLElement | null;
    if (target && target.closest("input, select, textarea, dialog, [contenteditable]")) return;
    if (document.querySelector("dialog[open]")) return;
    const key = event.key;
    // An SVG tap target (a Kart field) is a button to the keyboard too.
    if ((key === "Enter" || key === " ") && target && target.getAttribute("role") === "button" && target.tagName !== "BUTTON") {
      event.preventDefault();
      activate(target);
      return;
    }
    if (key.length === 1 || key === "Escape" || key.startsWith("Arrow")) {
      this.used = true;
      this.table.root.classList.add("keyboard");
    }
    if (key === "Escape") {
      this.typed = "";
      if (this.table.back()) event.preventDefault();
      return;
    }
    if (key === "ArrowLeft" || key === "ArrowRight") {
      this.step(key === "ArrowRight" ? 1 : -1, event);
      return;
    }
    if (/^[0-9]$/.test(key)) {
      event.preventDefault();
      this.digit(key);
      return;
    }
    const lower = key.toLowerCase();
    if (lower === "u") {
      this.typed = "";
      if (this.callUno()) event.preventDefault();
      return;
    }
    const kinds = KIND_KEYS[lower];
    if (!kinds) return;
    this.typed = "";
    const tree = this.table.tree();
    if (!tree) return;
    const all = leaves(tree);
    for (const kind of kinds) {
      const leaf = all.find((l) => l.steps[0]?.[0] === kind);
      if (leaf) {
        event.preventDefault();
        this.table.open(leaf);
        return;
      }
    }
  }

  /** u: call UNO now if a call is open, else switch the call on (or off) for the next play. */
  private callUno(): boolean {
    const tree = this.table.tree();
    if (!tree) return false;
    const all = leaves(tree);
    const call = all.find((l) => l.steps[0]?.[0] === "call_uno");
    if (call) {
      this.table.open(call);
      return true;
    }
    if (all.some((l) => "uno" in l.toggles)) {
      this.table.setToggle("uno", !this.table.toggled("uno"));
      return true;
    }
    return false;
  }

  private digit(digit: string): void {
    const choices = numbered(choiceTargets(this.table.root));
    const numbers = [...choices.keys()];
    let typed = this.typed + digit;
    if (!numbers.some((n) => n.startsWith(typed))) typed = digit;
    if (!numbers.some((n) => n.startsWith(typed))) {
      this.typed = "";
      return;
    }
    const exact = choices.get(typed);
    const longer = numbers.some((n) => n !== typed && n.startsWith(typed));
    if (exact && !longer) {
      this.typed = "";
      activate(exact);
      return;
    }
    this.typed = typed;
    exact?.focus({ preventScroll: false });
  }

  private step(delta: number, event: KeyboardEvent): void {
    const targets = choiceTargets(this.table.root);
    const at = targets.indexOf(document.activeElement as HTMLElement);
    if (at < 0 || !targets.length) return;
    event.preventDefault();
    targets[(at + delta + targets.length) % targets.length].focus();
  }
}

interface FocusMemo {
  tag: string;
  data: string;
  label: string;
  classes: string;
  region: string | null;
  index: number;
}

function dataOf(element: Element): string {
  return [...element.attributes]
    .filter((a) => a.name.startsWith("data-") && a.name !== "data-key")
    .map((a) => `${a.name}=${a.value}`)
    .sort()
    .join("&");
}

function labelOf(element: Element): string {
  return (element.getAttribute("aria-label") ?? element.textContent ?? "").trim();
}

function classesOf(element: Element): string {
  return [...element.classList].filter((c) => !STATE_CLASSES.has(c)).sort().join(" ");
}

function describe(element: Element, root: HTMLElement): FocusMemo {
  const regionSelector = REGIONS.find((r) => element.closest(r) && root.contains(element.closest(r)));
  const region = regionSelector ? element.closest(regionSelector)! : root;
  return {
    tag: element.tagName,
    data: dataOf(element),
    label: labelOf(element),
    classes: classesOf(element),
    region: regionSelector ?? null,
    index: [...region.querySelectorAll(FOCUSABLE)].indexOf(element),
  };
}

function find(memo: FocusMemo, root: HTMLElement): HTMLElement | SVGElement | null {
  const candidates = [...root.querySelectorAll<HTMLElement | SVGElement>(FOCUSABLE)].filter((e) => e.tagName === memo.tag);
  const same =
    candidates.find((e) => dataOf(e) === memo.data && labelOf(e) === memo.label && classesOf(e) === memo.classes) ??
    (memo.data ? candidates.find((e) => dataOf(e) === memo.data && classesOf(e) === memo.classes) : undefined) ??
    candidates.find((e) => labelOf(e) === memo.label && classesOf(e) === memo.classes);
  if (same) return same;
  // The element itself is gone (the card was played): the one now at its place in the same part of the table.
  const region = memo.region ? root.querySelector(memo.region) : null;
  if (!region || memo.index < 0) return null;
  const inRegion = [...region.querySelectorAll<HTMLElement | SVGElement>(FOCUSABLE)];
  return inRegion.length ? inRegion[Math.min(memo.index, inRegion.length - 1)] : null;
}

/** Draw `root` again with `draw`, keeping the keyboard focus on the same element (or, when it is gone, on
 * the one at its place), without scrolling the page. */
export function keepFocus(root: HTMLElement, draw: () => void): void {
  const active = document.activeElement;
  const memo = active && active !== document.body && root.contains(active) ? describe(active, root) : null;
  draw();
  if (!memo) return;
  const again = find(memo, root);
  again?.focus({ preventScroll: true });
}
