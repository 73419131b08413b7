// The table display's motion (the shared screen at the table, #/t/ID/display): the newest die roll on a
// big die that tumbles to its value, and the events of the newest update sliding into the log. Only what
// the spectator's own stream carried is drawn (the display watches without any token), and only the
// classes are set here: the motion itself is CSS (style.css "table display"), switched off under
// prefers-reduced-motion. And the board's zoom on a wide screen that is not tall enough for it (a laptop
// standing in for a TV). Not for deciding anything about the game.

import type { Update } from "./gen/toadstool/v1/table_pb";
import { h, largestZoom } from "./dom";
import { t } from "./i18n";
import { seatName } from "./names";

/** An event as the table screen keeps it in its log (and in the tab's storage to resume from). */
export interface LoggedEvent {
  text: string;
  seat?: number;
  roll?: { roller: number; value: number };
}

/** The newest roll in the log, on a big die; `rolling` when it arrived with the update just received. */
export function rollPanel(update: Update, log: LoggedEvent[], rolling: boolean): HTMLElement | null {
  const event = [...log].reverse().find((e) => e.roll !== undefined);
  if (!event) return null;
  const roll = event.roll!;
  return h(
    "section",
    { class: "display-roll", "aria-label": t("display.lastRoll") },
    h(
      "div",
      {
        class: `roll-die${rolling ? " rolling" : ""}`,
        "data-value": roll.value,
        role: "img",
        "aria-label": t("display.rolled", { name: seatName(update, roll.roller), value: roll.value }),
      },
      h("span", { class: "die-face" }, roll.value),
    ),
    h("div", { class: "roll-text" }, event.text),
  );
}

/** How many of the newest log entries to mark as fresh (they slide in): those of the update just received. */
export function freshCount(update: Update, first: boolean): number {
  return first ? 0 : update.events.length;
}

/** Where the display is laid out to the screen's height (style.css: "A wide screen ... without scrolling"). */
const WIDE = "(min-width: 1000px) and (orientation: landscape)";

/** On a wide screen the display never scrolls: a board taller than the room the screen leaves it (a laptop's
 * 1366x768 or 1280x720 standing in for a TV) is zoomed down, as far as half size, to the largest zoom at
 * which it ends inside the screen; a board that fits keeps its own size (never zoomed up). */
export function fitBoard(root: HTMLElement): void {
  const board = root.querySelector<HTMLElement>(".board");
  if (!board) return;
  // Kept on the screen's root: each render builds a new board.
  const previous = parseFloat(root.dataset.boardZoom ?? "1");
  board.style.removeProperty("zoom");
  delete root.dataset.boardZoom;
  if (!matchMedia(WIDE).matches) return;
  // The board's rows end a row's gap above the last row (a problem, most often empty) and the screen's padding.
  const style = getComputedStyle(root);
  const room = innerHeight - parseFloat(style.paddingBottom) - (parseFloat(style.rowGap) || 0);
  const fits = (zoom: number): boolean => {
    board.style.setProperty("zoom", String(zoom));
    return board.getBoundingClientRect().bottom <= room + 0.5;
  };
  // Measured without a scrollbar, at the width the board has once it fits: a scrollbar left from a zoom
  // tried before would narrow it (Power Up's seats then take a row more at the same zoom).
  const page = document.documentElement.style;
  page.setProperty("overflow", "hidden");
  // Each update of a busy table fits again: the last zoom, while it still fits and a step larger does not,
  // costs two layouts where the search costs a dozen (a TV's laptop redraws a fast table of bots).
  const kept = previous < 1 && fits(previous) && !fits(Math.min(1, previous * 1.02));
  const zoom = kept ? previous : fits(1) ? 1 : (largestZoom(fits, 0.5, 1) ?? 0.5);
  fits(zoom);
  if (zoom < 1) root.dataset.boardZoom = String(zoom);
  page.removeProperty("overflow");
}
