// The host's controls at a table (issue #25): start now, add a bot, each bot's level (issue #46), remove a
// seat, let a bot play a seat, end the table. Offered only in a browser that holds the table's host token (kept by the lobby when it
// created the table, storage.ts); the server decides: every refusal is shown as the server's own message (a lost connection in plain
// words, words.ts).
// Removing a seat and ending the table are confirmed first. Not for the table display (a shared screen
// holds no controls) and never for deciding what is legal in the game itself.

import { ConnectError } from "@connectrpc/connect";
import type { Seat, Update } from "./gen/toadstool/v1/table_pb";
import { SeatKind, TableStatus } from "./gen/toadstool/v1/table_pb";
import { api, hostHeaders } from "./api";
import { h } from "./dom";
import { BOT_LEVELS, botLevelName } from "./names";
import { isConnectionProblem, plainWords } from "./words";
import { t } from "./i18n";

/** One control: its label, whether it must be confirmed (and the question then asked), and its call. */
interface Control {
  key: string;
  label: string;
  confirm?: { question: string; yes: string };
  call(): Promise<unknown>;
}

export class HostControls {
  /** The control waiting for its confirmation, by key. */
  private confirming: string | null = null;
  private busy = false;

  constructor(
    private readonly tableId: string,
    private readonly token: string,
    /** Draw the screen again (after a confirmation opened or closed). */
    private readonly redraw: () => void,
    /** Show (or, with "", clear) a problem: the server's refusal. */
    private readonly report: (problem: string) => void,
  ) {}

  /** The controls for this update, or nothing once the table is over. */
  render(update: Update): HTMLElement | null {
    if (update.status === TableStatus.FINISHED) return null;
    const controls = this.controls(update);
    const pending = controls.find((c) => c.key === this.confirming && c.confirm);
    return h(
      "section",
      { class: "host", "aria-label": t("host.label") },
      h("h2", {}, t("host.heading")),
      pending ? null : h("div", { class: "host-levels" }, ...this.levels(update)),
      pending
        ? h(
            "div",
            { class: "host-confirm", role: "alertdialog", "aria-label": pending.confirm!.question },
            h("p", {}, pending.confirm!.question),
            h("button", { class: "primary confirm-yes", disabled: this.busy, onclick: () => void this.run(pending) }, pending.confirm!.yes),
            h("button", { class: "confirm-no", onclick: () => this.cancel() }, t("host.cancel")),
          )
        : h(
            "div",
            { class: "host-buttons" },
            ...controls.map((control) =>
              h(
                "button",
                {
                  class: `host-control${control.confirm ? " destructive" : ""}`,
                  "data-control": control.key,
                  disabled: this.busy,
                  onclick: () => (control.confirm ? this.ask(control) : void this.run(control)),
                },
                control.label,
              ),
            ),
          ),
    );
  }

  /** One row per bot: "Bot 1 plays [normal]", the level a select the host changes at once. */
  private levels(update: Update): HTMLElement[] {
    const headers = hostHeaders(this.token);
    return update.seats
      .filter((s) => s.kind === SeatKind.BOT)
      .map((seat) => {
        const id = `bot-level-${seat.index}`;
        const select = h(
          "select",
          {
            id,
            class: "bot-level",
            "data-seat": seat.index,
            disabled: this.busy,
            onchange: () => {
              const level = Number(select.value);
              void this.run({
                key: `level-${seat.index}`,
                label: t("host.playsLevel", { name: seat.name, level: botLevelName(level) }),
                call: () => api.setBotLevel({ tableId: this.tableId, seat: seat.index, botLevel: level }, { headers }),
              });
            },
          },
          ...Object.keys(BOT_LEVELS).map((number) =>
            h("option", { value: number, selected: botLevelName(seat.botLevel) === botLevelName(Number(number)) }, botLevelName(Number(number))),
          ),
        ) as HTMLSelectElement;
        return h("div", { class: "bot-level-row" }, h("label", { for: id }, t("host.plays", { name: seat.name })), select);
      });
  }

  private controls(update: Update): Control[] {
    const tableId = this.tableId;
    const headers = hostHeaders(this.token);
    const lobby = update.status === TableStatus.LOBBY;
    const others = update.seats.filter((s) => s.kind === SeatKind.HUMAN && s.index !== update.viewerSeat);
    const found: Control[] = [];
    if (lobby && update.seats.some((s) => s.kind === SeatKind.EMPTY)) {
      found.push({ key: "add-bot", label: t("host.addBot"), call: () => api.addBot({ tableId }, { headers }) });
    }
    if (lobby) {
      // Start now: bots take the open seats (the last one may start the table itself), then it starts.
      const open = update.seats.filter((s) => s.kind === SeatKind.EMPTY);
      const label = open.length ? t("host.startNowBots", { count: open.length }) : t("host.startNow");
      const call = async () => {
        for (const seat of open) await api.addBot({ tableId, seat: seat.index }, { headers });
        const { table } = await api.getTable({ tableId });
        if (table?.status === TableStatus.LOBBY) await api.startTable({ tableId }, { headers });
      };
      found.push({ key: "start", label, call });
    }
    for (const seat of others) {
      if (!lobby && !seat.botControlled) {
        found.push({
          key: `hand-${seat.index}`,
          label: t("host.handToBot", { name: seat.name }),
          call: () => api.handSeatToBot({ tableId, seat: seat.index }, { headers }),
        });
      }
    }
    for (const seat of others) found.push(this.removal(seat, lobby));
    found.push({
      key: "end",
      label: t("host.end"),
      confirm: { question: t("host.endQuestion"), yes: t("host.endYes") },
      call: () => api.endTable({ tableId }, { headers }),
    });
    return found;
  }

  private removal(seat: Seat, lobby: boolean): Control {
    const headers = hostHeaders(this.token);
    return {
      key: `kick-${seat.index}`,
      label: t(lobby ? "host.remove" : "host.removePlaying", { name: seat.name }),
      confirm: {
        question: t(lobby ? "host.removeQuestion" : "host.removeQuestionPlaying", { name: seat.name }),
        yes: t("host.removeYes", { name: seat.name }),
      },
      call: () => api.kickSeat({ tableId: this.tableId, seat: seat.index }, { headers }),
    };
  }

  private ask(control: Control): void {
    this.confirming = control.key;
    this.redraw();
  }

  private cancel(): void {
    this.confirming = null;
    this.redraw();
  }

  private async run(control: Control): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.confirming = null;
    this.report("");
    try {
      await control.call();
    } catch (error) {
      // The server's refusals here are written for people (a full table); a lost connection is not.
      this.report(isConnectionProblem(error) ? plainWords(error) : ConnectError.from(error).rawMessage);
    } finally {
      this.busy = false;
      this.redraw();
    }
  }
}
