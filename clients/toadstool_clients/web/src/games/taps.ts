// Tap targets on a drawn board: which choice-tree entry a piece (a card, a character, a field, a seat)
// stands for, so the Power Up, Level Up! and Kart drawings can make the piece itself the button.
//
// A piece is the next step of the opened entry (a Wild's colour, a character's level, a shell's target) or
// an entry of the top menu; an entry one menu down (a kind group too long to be flattened, or a run of a
// long list such as Kart's free fields) is found too, so a field is tappable even when the bar shows
// "Banana on ▸". Presentation only: the entries come from the view's legal actions.

import type { Choice, Step } from "../choices";
import { isLeaf } from "../choices";
import type { RenderContext } from "./types";

type Value = number | string | boolean | null;

function has(entry: Choice, fields: readonly string[], value: Value, kinds?: readonly string[]): boolean {
  return entry.steps.some(
    (s: Step) => fields.includes(s[1]) && s[2] === value && (kinds === undefined || kinds.includes(s[0])),
  );
}

/** The children of an entry with runs flattened. */
function below(entry: Choice): Choice[] {
  return entry.children.flatMap((c) => (c.run ? c.children : [c]));
}

/** An inner entry that only names a kind ("Banana on ▸") or is a run of one. */
function isMenu(entry: Choice): boolean {
  return !isLeaf(entry) && (entry.run || entry.steps.every((s) => !s[1]));
}

/** The next step of the opened entry that is this piece, if an entry is open. It is claimed: the piece is
 * drawn as the tap target, so the action bar does not offer the same step again in words. */
export function openedStep(context: RenderContext, fields: readonly string[], value: Value): Choice | undefined {
  const next = context.opened ? below(context.opened).find((c) => has(c, fields, value)) : undefined;
  if (next) context.claim(next);
  return next;
}

/** The top-menu entry (claimed, so the bar leaves it out) or the entry one menu down that is this piece. */
export function entryFor(
  context: RenderContext,
  kinds: readonly string[],
  fields: readonly string[],
  value: Value,
): Choice | undefined {
  const top = context.entries.find((e) => has(e, fields, value, kinds));
  if (top) {
    context.claim(top);
    return top;
  }
  for (const menu of context.entries.filter(isMenu)) {
    const inner = below(menu).find((c) => has(c, fields, value, kinds));
    if (inner) return inner;
  }
  return undefined;
}

/** What a tap on this piece does now: the opened entry's next step if it is one, else its own entry. */
export function tapFor(
  context: RenderContext,
  kinds: readonly string[],
  fields: readonly string[],
  value: Value,
): { entry: Choice; next: boolean } | undefined {
  const next = openedStep(context, fields, value);
  const own = entryFor(context, kinds, fields, value);
  if (next) return { entry: next, next: true };
  return own ? { entry: own, next: false } : undefined;
}

/** Whether this entry is the one opened by the last tap. The tree is built again on every update, so the
 * opened entry is recognised by its steps, not by identity. */
export function isOpened(context: RenderContext, entry: Choice): boolean {
  const opened = context.opened;
  if (!opened || opened.steps.length !== entry.steps.length) return false;
  return opened.steps.every((s, i) => s[0] === entry.steps[i][0] && s[1] === entry.steps[i][1] && s[2] === entry.steps[i][2]);
}
