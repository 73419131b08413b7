// The lobby, for people: your name, the live tables first (your own seat, a tap to sit, to watch or to
// show it on the TV), finished games folded away (the server lists a finished table for a day after it
// finished, on every device alike), and a new table that starts from the games (a picture and a line each), then players and
// bots, with everything else under "More options" (the contract's LAN defaults: a bot plays a disconnected
// person's seat after DEFAULT_TAKEOVER_SECONDS). The browser that creates a table keeps its host token
// (storage.ts): the table screen then offers the host's controls and the invite. The list is refreshed every
// 2 s and drawn again only when something in it changed; a keyboard's focus and the page's scroll position
// stay where they were (each button names its table and what it does: data-table, data-do).

import type { GameInfo, TableInfo } from "./gen/toadstool/v1/table_pb";
import { SeatKind, TableStatus } from "./gen/toadstool/v1/table_pb";
import { api, DEFAULT_TAKEOVER_SECONDS, requestId } from "./api";
import { h, replace } from "./dom";
import { nameProblem } from "./join";
import { gameLine, gamePicture } from "./pictures";
import { chooseSeat, heldSeats, holdSeat, savedName, saveHostToken, saveName } from "./storage";
import { isConnectionProblem, plainWords } from "./words";
import { BOT_LEVELS, botLevelName, botNote } from "./names";
import { chooseLanguage, language, NAMES, t } from "./i18n";
import type { Language } from "./i18n";

const REFRESH_MS = 2000;

export class LobbyScreen {
  private games: GameInfo[] = [];
  private tables: TableInfo[] = [];
  private shownKey = "";
  /** Finished games are folded away until asked for. */
  private finishedOpen = false;
  private timer: number | undefined;
  private stopped = false;
  /** A refusal or a lost connection, in words; the connection's goes with the next answer. */
  private problem = "";
  private chosenGame = "";
  private readonly nameInput = h("input", {
    id: "name",
    name: "name",
    maxlength: 40,
    autocomplete: "nickname",
    placeholder: t("lobby.namePlaceholder"),
    value: savedName(),
    oninput: (event: Event) => saveName((event.target as HTMLInputElement).value.trim()),
  });
  private readonly nameProblem = h("p", { class: "problem name-problem", id: "name-problem", role: "alert", hidden: true });
  private readonly list = h("section", { class: "tables", "aria-label": t("lobby.tablesLabel") });
  private readonly form = h("section", { class: "create", "aria-label": t("lobby.newTableLabel") });

  constructor(private readonly root: HTMLElement) {}

  async start(): Promise<void> {
    this.root.className = "screen lobby-screen";
    replace(
      this.root,
      h(
        "header",
        { class: "lobby-header" },
        h("h1", {}, "Toadstool"),
        h("label", { class: "name-field", for: "name" }, t("lobby.name")),
        this.nameInput,
        h("a", { class: "button show-tv", href: "#/tv" }, t("lobby.showOnTv")),
        languageMenu(),
        this.nameProblem,
      ),
      this.list,
      this.form,
    );
    // Both first calls at once: on a weak Wi-Fi each round trip is a noticeable wait.
    const games = api.listGames({});
    const tables = this.refresh();
    try {
      this.games = (await games).games;
    } catch (error) {
      this.problem = plainWords(error);
    }
    if (this.stopped) return;
    this.renderForm();
    this.shownKey = ""; // the list again, now with the games' titles
    this.renderTables();
    await tables;
  }

  stop(): void {
    this.stopped = true;
    window.clearTimeout(this.timer);
  }

  private async refresh(): Promise<void> {
    try {
      this.tables = (await api.listTables({})).tables;
      if (isConnectionProblem(this.problemCause)) this.problem = "";
      this.problemCause = null;
    } catch (error) {
      this.problem = plainWords(error);
      this.problemCause = error;
    }
    if (this.stopped) return;
    this.renderTables();
    this.list.dataset.refreshes = String(++this.refreshes);
    this.timer = window.setTimeout(() => void this.refresh(), REFRESH_MS);
  }

  private problemCause: unknown = null;
  /** How many times the list was asked for (said on the page as data-refreshes: tests wait on it). */
  private refreshes = 0;

  private title(game: string): string {
    return this.games.find((g) => g.name === game)?.title ?? game;
  }

  /** The name typed, or "" after saying why it will not do (focusing the field). */
  private name(seats: readonly { kind: SeatKind; name: string }[] = []): string {
    const name = this.nameInput.value.trim();
    const problem = nameProblem(name, seats);
    this.nameProblem.textContent = problem;
    this.nameProblem.hidden = !problem;
    if (problem) {
      this.nameInput.setAttribute("aria-describedby", "name-problem");
      this.nameInput.focus();
      return "";
    }
    this.nameInput.removeAttribute("aria-describedby");
    saveName(name);
    return name;
  }

  private renderTables(): void {
    const live = this.tables.filter((t) => t.status !== TableStatus.FINISHED);
    // Waiting tables first (a seat to take), then those playing; yours first among each.
    live.sort((a, b) => rank(a) - rank(b));
    const finished = this.tables.filter((t) => t.status === TableStatus.FINISHED);
    // Redraw only when something shown changed; then the focus and the scroll position stay as they were.
    const key = JSON.stringify([this.problem, live.map(keyOf), finished.map(keyOf)]);
    if (key === this.shownKey) return;
    this.shownKey = key;
    const scrolled = window.scrollY;
    const active = document.activeElement;
    const focused = active instanceof HTMLElement && this.list.contains(active) ? { ...active.dataset } : null;
    this.drawTables(live, finished);
    if (focused?.do) {
      // The same button (its table and what it does), or, when it is gone (its table filled up: no "Sit
      // down" any more), that table's first one.
      const of = focused.table ? `[data-table="${CSS.escape(focused.table)}"]` : "";
      const again =
        this.list.querySelector<HTMLElement>(`${of}[data-do="${CSS.escape(focused.do)}"]`) ??
        (of ? this.list.querySelector<HTMLElement>(`${of}[data-do]`) : null);
      again?.focus({ preventScroll: true });
    }
    if (window.scrollY !== scrolled) window.scrollTo(0, scrolled);
  }

  private drawTables(live: TableInfo[], finished: TableInfo[]): void {
    replace(
      this.list,
      h("h2", {}, t("lobby.tables")),
      this.problem ? h("p", { class: "problem", role: "alert" }, this.problem) : null,
      live.length ? null : h("p", { class: "hint" }, t("lobby.noGame")),
      live.length ? h("ul", {}, ...live.map((t) => this.tableItem(t))) : null,
      finished.length
        ? h(
            "section",
            { class: "finished", "aria-label": t("lobby.finishedLabel") },
            h(
              "button",
              {
                type: "button",
                class: "finished-toggle",
                "data-do": "finished",
                "aria-expanded": String(this.finishedOpen),
                onclick: () => {
                  this.finishedOpen = !this.finishedOpen;
                  this.shownKey = "";
                  this.renderTables();
                },
              },
              `${t("lobby.finished", { count: finished.length })} ${this.finishedOpen ? "▾" : "▸"}`,
            ),
            this.finishedOpen ? h("ul", {}, ...finished.map((t) => this.finishedItem(t))) : null,
          )
        : null,
    );
  }

  private tableItem(table: TableInfo): HTMLElement {
    const held = heldSeats(table.tableId);
    const open = table.seats.some((s) => s.kind === SeatKind.EMPTY);
    const status = table.status === TableStatus.LOBBY ? t("lobby.waitingFor", { count: table.openSeats }) : t("lobby.playing");
    return h(
      "li",
      { class: `table-item${held.length ? " yours" : ""}`, "data-table": table.tableId },
      h("div", { class: "table-title" }, gamePicture(table.game, 48), h("div", { class: "table-name" }, table.name)),
      h("div", { class: "table-meta" }, t("lobby.tableMeta", { game: this.title(table.game), status })),
      h(
        "div",
        { class: "table-seats" },
        table.seats.map((s) => (s.kind === SeatKind.EMPTY ? t("lobby.openSeat") : s.kind === SeatKind.BOT ? `${s.name}${botNote(s)}` : s.name)).join(" · "),
      ),
      h(
        "div",
        { class: "table-actions" },
        ...held.map((seat) =>
          h(
            "button",
            { class: "primary resume", "data-table": table.tableId, "data-do": `resume-${seat.seat}`, onclick: () => this.resume(table.tableId, seat) },
            t("lobby.backToSeat", { name: seat.name }),
          ),
        ),
        open && !held.length
          ? h("button", { class: "primary join", "data-table": table.tableId, "data-do": "join", onclick: () => void this.join(table) }, t("lobby.sitDown"))
          : null,
        h("a", { class: "button watch", "data-table": table.tableId, "data-do": "watch", href: `#/t/${table.tableId}/watch` }, t("lobby.watch")),
        h("a", { class: "button show-tv", "data-table": table.tableId, "data-do": "tv", href: `#/t/${table.tableId}/tv` }, t("lobby.showOnTv")),
      ),
    );
  }

  private finishedItem(table: TableInfo): HTMLElement {
    return h(
      "li",
      { class: "table-item done", "data-table": table.tableId },
      h("span", { class: "table-name" }, table.name),
      h("span", { class: "table-meta" }, ` · ${this.title(table.game)}`),
      h(
        "a",
        { class: "button watch", "data-table": table.tableId, "data-do": "end", href: `#/t/${table.tableId}${heldSeats(table.tableId).length ? "" : "/watch"}` },
        t("lobby.seeTheEnd"),
      ),
    );
  }

  private resume(tableId: string, seat: { seat: number; name: string; token: string }): void {
    chooseSeat(tableId, seat);
    location.hash = `#/t/${tableId}`;
  }

  private async join(table: TableInfo, seat?: number): Promise<void> {
    const name = this.name(table.seats);
    if (!name) return;
    try {
      const joined = await api.joinTable({ tableId: table.tableId, name, seat, requestId: requestId() });
      holdSeat(table.tableId, { seat: joined.seat, name, token: joined.seatToken });
      location.hash = `#/t/${table.tableId}`;
    } catch (error) {
      this.problem = plainWords(error);
      this.problemCause = error;
      this.shownKey = "";
      this.renderTables();
    }
  }

  private renderForm(): void {
    if (!this.games.length) {
      replace(this.form, h("h2", {}, t("lobby.newTable")), h("p", { class: "problem" }, this.problem || t("lobby.noGames")));
      return;
    }
    const game = this.games.find((g) => g.name === this.chosenGame);
    const cards = h(
      "div",
      { class: "game-cards", role: "radiogroup", "aria-label": t("lobby.theGame") },
      ...this.games.map((g) =>
        h(
          "button",
          {
            type: "button",
            class: `game-card${g.name === this.chosenGame ? " chosen" : ""}`,
            role: "radio",
            "aria-checked": g.name === this.chosenGame ? "true" : "false",
            "data-game": g.name,
            onclick: () => {
              this.chosenGame = g.name;
              this.renderForm();
              this.form.querySelector<HTMLElement>(".create-details")?.scrollIntoView({ block: "nearest" });
            },
          },
          gamePicture(g.name, 72),
          h("span", { class: "game-title" }, g.title),
          h("span", { class: "game-line" }, gameLine(g.name, g.title)),
          h("span", { class: "game-players" }, t("lobby.players", { min: g.minPlayers, max: g.maxPlayers })),
        ),
      ),
    );
    replace(this.form, h("h2", {}, t("lobby.newTable")), h("p", { class: "hint" }, t("lobby.pickGame")), cards, game ? this.details(game) : null);
  }

  private details(game: GameInfo): HTMLElement {
    const fields: HTMLElement[] = [];
    const players = stepper("players", [t("form.fewerPlayers"), t("form.morePlayers")], game.minPlayers, game.maxPlayers, Math.min(Math.max(game.minPlayers, 3), game.maxPlayers));
    const bots = stepper("bots", [t("form.fewerBots"), t("form.moreBots")], 0, game.maxPlayers, 0);
    // How strong the bots play: three big radio buttons (a tap each), normal unless chosen.
    const levels = Object.entries(BOT_LEVELS).map(([number, word]) =>
      h("input", { type: "radio", name: "bot_level", value: number, id: `bot-level-${word}`, checked: word === "normal" }),
    );
    const levelPicker = h(
      "div",
      { class: "segmented", role: "radiogroup", "aria-label": t("form.botsPlayLabel") },
      ...levels.flatMap((input) => [input, h("label", { for: input.id }, botLevelName(Number(input.value)))]),
    );
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
        // Each choice as a person reads it (a track's title), in their language; its value is what is sent.
        // Labels that do not line up with the choices (an older server), or two that read alike: the values.
        const labels = option.choiceLabels.length === option.choices.length && new Set(option.choiceLabels).size === option.choices.length ? option.choiceLabels : option.choices;
        input = h("select", { name: option.name }, ...option.choices.map((c, i) => h("option", { value: c, selected: c === option.defaultValue }, labels[i] || c)));
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
      // The option's label is the server's, in the person's language; an older server gives none: its name.
      const label = option.label || option.name.replace(/_/g, " ");
      fields.push(h("label", { class: "option", title: option.help }, h("span", { class: "option-name" }, label), input, h("small", {}, option.help)));
    }
    const create = async (event: Event) => {
      event.preventDefault();
      const name = this.name();
      if (!name) return;
      const chosen: Record<string, string> = {};
      for (const [key, read] of options) chosen[key] = read();
      try {
        const created = await api.createTable({
          game: game.name,
          players: Number(players.input.value),
          bots: Number(bots.input.value),
          botLevel: Number(levels.find((input) => input.checked)?.value ?? 0),
          options: chosen,
          takeoverSeconds: seconds(takeover.value),
          turnSeconds: seconds(turnClock.value),
          manualStart: manualStart.checked,
        });
        const table = created.table!;
        saveHostToken(table.tableId, created.hostToken);
        await this.join(table);
      } catch (error) {
        this.formProblem.textContent = plainWords(error);
        this.formProblem.hidden = false;
      }
    };
    this.formProblem.hidden = true;
    // Not a <details>: its folded fields would still be laid out; hidden ones take no room at all.
    const moreToggle = h(
      "button",
      {
        type: "button",
        class: "more-toggle",
        "aria-expanded": "false",
        "aria-controls": "more-fields",
        onclick: () => {
          const fields = this.form.querySelector<HTMLElement>("#more-fields")!;
          fields.hidden = !fields.hidden;
          moreToggle.setAttribute("aria-expanded", String(!fields.hidden));
          moreToggle.textContent = fields.hidden ? t("form.moreOptions") : t("form.fewerOptions");
        },
      },
      t("form.moreOptions"),
    );
    return h(
      "form",
      { class: "create-details", onsubmit: create, "aria-label": t("form.label", { game: game.title }) },
      h("h3", {}, game.title),
      h("div", { class: "option" }, h("label", { for: "players" }, t("form.players")), players.element, h("small", {}, t("form.playersHint", { min: game.minPlayers, max: game.maxPlayers }))),
      h("div", { class: "option" }, h("label", { for: "bots" }, t("form.bots")), bots.element, h("small", {}, t("form.botsHint"))),
      h("div", { class: "option bot-levels" }, h("span", { class: "label" }, t("form.botsPlay")), levelPicker, h("small", {}, t("form.botsPlayHint"))),
      h(
        "div",
        { class: "more-options" },
        moreToggle,
        h(
          "div",
          { class: "more-fields", id: "more-fields", hidden: true },
          ...fields,
        h(
          "label",
          { class: "option" },
          h("span", {}, t("form.takeover")),
          takeover,
          h("small", {}, t("form.takeoverHint")),
        ),
        h("label", { class: "option" }, h("span", {}, t("form.turnSeconds")), turnClock, h("small", {}, t("form.turnSecondsHint"))),
          h("label", { class: "option" }, h("span", {}, t("form.manualStart")), manualStart, h("small", {}, t("form.manualStartHint"))),
        ),
      ),
      this.formProblem,
      h("button", { class: "primary create-button", type: "submit" }, t("form.create")),
    );
  }

  private readonly formProblem = h("p", { class: "problem", role: "alert", hidden: true });
}

/** A number with − and + buttons (44 px tap targets), as `name`, between `min` and `max`. */
function stepper(name: string, [fewer, more]: [string, string], min: number, max: number, value: number): { element: HTMLElement; input: HTMLInputElement } {
  const input = h("input", { type: "number", id: name, name, min, max, value, inputmode: "numeric" });
  const step = (by: number) => {
    input.value = String(Math.min(max, Math.max(min, (Number(input.value) || 0) + by)));
  };
  return {
    input,
    element: h(
      "div",
      { class: "stepper" },
      h("button", { type: "button", class: "step-down", "aria-label": fewer, onclick: () => step(-1) }, "−"),
      input,
      h("button", { type: "button", class: "step-up", "aria-label": more, onclick: () => step(1) }, "+"),
    ),
  };
}

function rank(table: TableInfo): number {
  const yours = heldSeats(table.tableId).length ? 0 : 1;
  return (table.status === TableStatus.LOBBY ? 0 : 2) + yours;
}

function keyOf(table: TableInfo): unknown {
  return [table.tableId, table.name, table.status, table.seats.map((s) => [s.name, s.kind]), heldSeats(table.tableId).length];
}

/** A form's seconds as the contract's unsigned count (an empty or negative entry is 0: off). */
function seconds(text: string): number {
  return Math.max(0, Math.trunc(Number(text) || 0));
}

/** The language menu: each language in its own words; a choice is remembered and the page drawn again in it. */
function languageMenu(): HTMLElement {
  const select = h(
    "select",
    {
      id: "language",
      name: "language",
      class: "language-menu",
      onchange: () => {
        chooseLanguage(select.value as Language);
        location.reload();
      },
    },
    ...(Object.entries(NAMES) as [Language, string][]).map(([code, name]) =>
      h("option", { value: code, lang: code, selected: code === language() }, name),
    ),
  ) as HTMLSelectElement;
  return h("div", { class: "language-field" }, h("label", { for: "language" }, t("lobby.language")), select);
}
