// How a game's drawing plugs into the table screen (see /tmp/notes/web-interface.md and games/index.ts).
//
// A renderer is a function from the viewer's update to an element. It draws only what the view says, and
// offers the legal actions through the shared choice tree: an entry it draws as a tap target (a card, a
// piece) it `claim`s, so the action bar does not list it again, and a tap calls `open(entry)` (a leaf is
// sent; an inner entry, such as a wild card, opens its next step in the action bar: the colours).

import type { Update } from "../gen/toadstool/v1/table_pb";
import type { Choice, Step } from "../choices";

export interface RenderContext {
  /** Everything this viewer may know now (the view, seats, scores, legal actions, events). */
  update: Update;
  /** The root entries of the choice tree (split runs flattened): what can be tapped at the top level. */
  entries: Choice[];
  /** The entry opened by the last tap, if any (to highlight it). */
  opened: Choice | null;
  /** Activate an entry: send a leaf's action, or open an inner entry's next step. */
  open(entry: Choice): void;
  /** Mark an entry as drawn on the board, so the action bar leaves it out. */
  claim(entry: Choice): void;
  /** The root entry one of whose steps is (kind, field, value), if any: "is this card playable?"; with
   * field "" (and value null), the first entry of that kind. */
  entryWith(kind: string, field: string, value: number | string | boolean | null): Choice | undefined;
  /** A step in words ("red 5", "you", "level 3"). */
  stepLabel(step: Step): string;
  /** Whether a toggle of the plays offered now (UNO's "uno": call UNO with this play) is switched on. */
  toggled(name: string): boolean;
  /** Switch a toggle on or off (the board draws again). */
  setToggle(name: string, on: boolean): void;
  /** Mark a toggle as drawn on the board (UNO's big button), so the action bar leaves its tick box out. */
  claimToggle(name: string): void;
}

export type GameRenderer = (context: RenderContext) => HTMLElement;

/** A phone held upright: a drawing may lay itself out differently (the Kart track's rows); the table screen
 * draws again when the screen crosses this width. */
export const NARROW = "(max-width: 599px)";
