// The lobby: the person's name, the tables (listed live: refreshed every few seconds), a seat to take or a
// table to watch, and a form that creates a table of any game with its options and bots, with the contract's
// LAN defaults shown (a bot plays a disconnected person's seat after DEFAULT_TAKEOVER_SECONDS). The browser
// that creates a table keeps its host token (storage.ts): the table screen then offers the host's controls.

import { ConnectError } from "@connectrpc/connect";
import type { GameInfo, TableInfo } from "./gen/toadstool/v1/table_pb";
import { SeatKind, TableStatus } from "./gen/toadstool/v1/table_pb";
import { api, DEFAULT_TAKEOVER_SECONDS, requestId } from "./api";
import { h, replace } from "./dom";
import { chooseSeat, heldSeats, holdSeat, savedName, saveHostToken, saveName } from "./storage";

const REFRESH_MS = 2000;
const STATUS: Record<number, string> = {
  [TableStatus.LOBBY]: "waiting for players",
  [TableStatus.PLAYING]: "playing",
  [TableStatus.FINISHED]: "finished",
};

export class LobbyScreen {
  private games: GameInfo[] = [];
  private tables: TableInfo[] = [];
  private timer: number | undefined;
  private problem = "";
  private chosenGame = "";
  private readonly list = h("section", { class: "tables", "aria-label": "tables" });
  private readonly form = h("section", { class: "create" });

  constructor(private readonly root: HTMLElement) {}

  async start(): Promise<void> {
    this.root.className = "screen lobby-screen";
    const name = h("input", {
      id: "name",
      name: "name",
      maxlength: 40,
      autocomplete: "nickname",
      placeholder: "Your name",
      value: savedName(),
      oninput: (event: Event) => saveName((event.target as HTMLInputElement).value.trim()),
    });
    replace(
      this.root,
      h("header", { class: "lobby-header" }, h("h1", {}, "Toadstool"), h("label", { class: "name-field" }, "Name ", name)),
      this.list,
      this.form,
    );
    try {
      this.games = (await api.listGames({})).games;
      this.chosenGame = this.games[0]?.name ?? "";
    } catch (error) {
      this.problem = ConnectError.from(error).rawMessage;
    }
    this.renderForm();
    await this.refresh();
  }

  stop(): void {
    window.clearTimeout(this.timer);
  }

  private async refresh(): Promise<void> {
    try {
      this.tables = (await api.listTables({})).tables;
      this.problem = "";
    } catch (error) {
      this.problem = ConnectError.from(error).rawMessage;
    }
    this.renderTables();
    this.timer = window.setTimeout(() => void this.refresh(), REFRESH_MS);
  }

  private title(game: string): string {
    return this.games.find((g) => g.name === game)?.title ?? game;
  }

  private renderTables(): void {
    const shown = this.tables.filter((t) => t.status !== TableStatus.FINISHED || heldSeats(t.tableId).length);
    replace(
      this.list,
      h("h2", {}, "Tables"),
      this.problem ? h("p", { class: "problem", role: "alert" }, this.problem) : null,
      shown.length ? null : h("p", { class: "hint" }, "No tables yet: create one below."),
      h("ul", {}, ...shown.map((t) => this.tableItem(t))),
    );
  }

  private tableItem(table: TableInfo): HTMLElement {
    const held = heldSeats(table.tableId);
    const open = table.seats.filter((s) => s.kind === SeatKind.EMPTY);
    return h(
      "li",
      { class: "table-item", "data-table": table.tableId },
      h("div", { class: "table-name" }, table.name),
      h("div", { class: "table-meta" }, `${this.title(table.game)} · ${STATUS[table.status] ?? ""}`),
      h("div", { class: "table-seats" }, table.seats.map((s) => (s.kind === SeatKind.EMPTY ? "(empty)" : s.name)).join(", ")),
      h(
        "div",
        { class: "table-actions" },
        ...held.map((seat) =>
          h("button", { class: "primary resume", onclick: () => this.resume(table.tableId, seat) }, `Resume as ${seat.name}`),
        ),
        ...open.map((seat) =>
          h("button", { class: "join", onclick: () => void this.join(table.tableId, seat.index) }, `Sit at seat ${seat.index + 1}`),
        ),
        h("a", { class: "button watch", href: `#/t/${table.tableId}/watch` }, "Watch"),
        h("a", { class: "button display", href: `#/t/${table.tableId}/display` }, "Table display"),
      ),
    );
  }

  private resume(tableId: string, seat: { seat: number; name: string; token: string }): void {
    chooseSeat(tableId, seat);
    location.hash = `#/t/${tableId}`;
  }

  private async join(tableId: string, seat?: number): Promise<void> {
    const name = savedName() || "Player";
    try {
      const joined = await api.joinTable({ tableId, name, seat, requestId: requestId() });
      holdSeat(tableId, { seat: joined.seat, name, token: joined.seatToken });
      location.hash = `#/t/${tableId}`;
    } catch (error) {
      this.problem = ConnectError.from(error).rawMessage;
      this.renderTables();
    }
  }

  private renderForm(): void {
    const game = this.games.find((g) => g.name === this.chosenGame);
    if (!game) {
      replace(this.form, h("h2", {}, "New table"), h("p", {}, this.problem || "No games"));
      return;
    }
    const fields: HTMLElement[] = [];
    const players = h("input", { type: "number", name: "players", min: game.minPlayers, max: game.maxPlayers, value: game.minPlayers });
    const bots = h("input", { type: "number", name: "bots", min: 0, max: game.maxPlayers, value: game.minPlayers - 1 });
    const takeover = h("input", { type: "number", name: "takeover_seconds", min: 0, max: 3600, value: DEFAULT_TAKEOVER_SECONDS });
    const turnClock = h("input", { type: "number", name: "turn_seconds", min: 0, max: 3600, value: 0 });
    const manualStart = h("input", { type: "checkbox", name: "manual_start" });
    const options = new Map<string, () => string>();
    for (const option of game.options) {
      let input: HTMLInputElement | HTMLSelectElement;
      if (option.kind === "bool") {
        input = h("input", { type: "checkbox", name: option.name, checked: option.defaultValue === "true" });
        const box = input;
        options.set(option.name, () => (box.checked ? "true" : "false"));
      } else if (option.kind === "choice") {
        input = h("select", { name: option.name }, ...option.choices.map((c) => h("option", { value: c, selected: c === option.defaultValue }, c)));
        const select = input;
        options.set(option.name, () => select.value);
      } else {
        input = h("input", {
          type: option.kind === "int" ? "number" : "text",
          name: option.name,
          value: option.defaultValue,
          min: option.minimum,
          max: option.maximum,
        });
        const text = input;
        options.set(option.name, () => text.value);
      }
      fields.push(h("label", { class: "option", title: option.help }, h("span", {}, option.name.replace(/_/g, " ")), input, h("small", {}, option.help)));
    }
    const picker = h(
      "select",
      {
        name: "game",
        onchange: (event: Event) => {
          this.chosenGame = (event.target as HTMLSelectElement).value;
          this.renderForm();
        },
      },
      ...this.games.map((g) => h("option", { value: g.name, selected: g.name === game.name }, g.title)),
    );
    const create = async (event: Event) => {
      event.preventDefault();
      const chosen: Record<string, string> = {};
      for (const [name, read] of options) chosen[name] = read();
      try {
        const created = await api.createTable({
          game: game.name,
          players: Number(players.value),
          bots: Number(bots.value),
          options: chosen,
          takeoverSeconds: seconds(takeover.value),
          turnSeconds: seconds(turnClock.value),
          manualStart: manualStart.checked,
        });
        const tableId = created.table!.tableId;
        saveHostToken(tableId, created.hostToken);
        await this.join(tableId);
      } catch (error) {
        this.problem = ConnectError.from(error).rawMessage;
        this.renderForm();
      }
    };
    replace(
      this.form,
      h("h2", {}, "New table"),
      h(
        "form",
        { onsubmit: create },
        h("label", { class: "option" }, h("span", {}, "game"), picker),
        h("label", { class: "option" }, h("span", {}, "players"), players, h("small", {}, `${game.minPlayers}-${game.maxPlayers} in all`)),
        h("label", { class: "option" }, h("span", {}, "bots"), bots, h("small", {}, "of those, played by the computer")),
        ...fields,
        h(
          "label",
          { class: "option" },
          h("span", {}, "takeover seconds"),
          takeover,
          h("small", {}, "a bot plays a disconnected person's seat after this wait, until they come back (0: never)"),
        ),
        h("label", { class: "option" }, h("span", {}, "turn seconds"), turnClock, h("small", {}, "a default move is made when a turn runs out (0: no clock)")),
        h("label", { class: "option" }, h("span", {}, "start by hand"), manualStart, h("small", {}, "wait for you to press Start now, even when every seat is taken")),
        this.problem ? h("p", { class: "problem", role: "alert" }, this.problem) : null,
        h("button", { class: "primary", type: "submit" }, "Create and sit down"),
      ),
    );
  }
}

/** A form's seconds as the contract's unsigned count (an empty or negative entry is 0: off). */
function seconds(text: string): number {
  return Math.max(0, Math.trunc(Number(text) || 0));
}
