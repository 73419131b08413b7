// The table display's motion (the shared screen at the table, #/t/ID/display): the newest die roll on a
// big die that tumbles to its value, and the events of the newest update sliding into the log. Only what
// the spectator's own stream carried is drawn (the display watches without any token), and only the
// classes are set here: the motion itself is CSS (style.css "table display"), switched off under
// prefers-reduced-motion. Not for deciding anything about the game.

import type { Update } from "./gen/toadstool/v1/table_pb";
import { h } from "./dom";
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
