// The TV screen: the table as the living room sees it, from across the room (#/tv for the server's newest
// game, #/t/ID/tv for one table and the games that follow it). Waiting: a large QR code and address, and
// the seats filling up. Playing: the board, whose turn, the last few events and the scores in large type,
// and a small QR code for latecomers. At the end: a podium; then it follows the next game. It never scrolls
// (the board is zoomed to fit the screen), keeps the screen awake (Screen Wake Lock), offers full screen,
// and holds no controls: it watches without any token, as any spectator.

import { Code, ConnectError } from "@connectrpc/connect";
import type { TableInfo, Update } from "./gen/toadstool/v1/table_pb";
import { SeatKind, TableStatus } from "./gen/toadstool/v1/table_pb";
import { api } from "./api";
import { h, largestZoom, replace } from "./dom";
import { rendererFor } from "./games/index";
import type { RenderContext } from "./games/types";
import { botNote, scoreWords, seatName } from "./names";
import { invite, pageAddress, qrImage } from "./qr";
import { lowerWins, ordinal, ranking } from "./ranking";
import { list, t } from "./i18n";

const EVENTS_SHOWN = 4;
/** The most lines of the game's account on the podium: a long UNO game shows its last hands. */
const TV_DETAIL_LINES = 5;
const POLL_MS = 2500;

type WakeLock = { release(): Promise<void> };

export class TvScreen {
  private stopped = false;
  private update: Update | null = null;
  private tableId: string | null;
  /** #/tv: whichever game is newest on the server, not one table's line of games. */
  private readonly wide: boolean;
  private events: string[] = [];
  private games = new Map<string, string>();
  private connection: AbortController | null = null;
  private wakeLock: WakeLock | null = null;
  private offline = false;
  /** The shown table's options make the lowest score the best (UNO's lowest_wins). */
  private lowerWins = false;
  private readonly fullScreen = h("button", { class: "tv-fullscreen", onclick: () => void this.goFullScreen() }, t("tv.fullScreen"));
  private readonly onVisible = (): void => {
    if (!document.hidden) void this.keepAwake();
  };
  private readonly onResize = (): void => this.fit();

  /** `tableId` null: the server's newest game, whichever it is. */
  constructor(
    private readonly root: HTMLElement,
    tableId: string | null,
  ) {
    this.tableId = tableId;
    this.wide = tableId === null;
  }

  start(): void {
    this.root.className = "tv";
    document.documentElement.classList.add("tv-page");
    document.addEventListener("visibilitychange", this.onVisible);
    document.addEventListener("fullscreenchange", this.onResize);
    window.addEventListener("resize", this.onResize);
    void this.keepAwake();
    void api.listGames({}).then(
      (r) => r.games.forEach((g) => this.games.set(g.name, g.title)),
      () => undefined,
    );
    void this.run();
  }

  stop(): void {
    this.stopped = true;
    this.connection?.abort();
    document.documentElement.classList.remove("tv-page");
    delete this.root.dataset.awake;
    document.removeEventListener("visibilitychange", this.onVisible);
    document.removeEventListener("fullscreenchange", this.onResize);
    window.removeEventListener("resize", this.onResize);
    void this.wakeLock?.release().catch(() => undefined);
  }

  private async keepAwake(): Promise<void> {
    const lock = (navigator as Navigator & { wakeLock?: { request(type: "screen"): Promise<WakeLock> } }).wakeLock;
    if (!lock || document.hidden) return;
    try {
      const held = await lock.request("screen");
      this.wakeLock = held;
      // Said on the page (tests read it); the system may release the lock, e.g. when the tab is hidden.
      this.root.dataset.awake = "yes";
      (held as unknown as EventTarget).addEventListener?.("release", () => {
        if (!this.stopped) this.root.dataset.awake = "no";
      });
    } catch {
      // Refused (no user gesture yet, or a battery saver): the screen then sleeps as it would have.
    }
  }

  private async goFullScreen(): Promise<void> {
    try {
      await document.documentElement.requestFullscreen();
    } catch {
      // Not allowed here: the screen stays as it is.
    }
    void this.keepAwake();
    this.render();
  }

  /** Follow the chosen table, then each next one, until the screen is closed. */
  private async run(): Promise<void> {
    while (!this.stopped) {
      if (this.tableId === null || this.update?.status === TableStatus.FINISHED) {
        const next = await this.nextTable();
        if (next === null) {
          this.render();
          await sleep(POLL_MS);
          continue;
        }
        this.tableId = next;
        this.update = null;
        this.events = [];
      }
      await this.watch(this.tableId);
    }
  }

  /** The table to show now: for #/tv the newest unfinished one; after a game, the one its people chose to
   * play again at, else the next game of the same people (an unfinished table listed after this one with
   * someone of it at it). */
  private async nextTable(): Promise<string | null> {
    let tables: TableInfo[];
    try {
      tables = (await api.listTables({})).tables;
      this.offline = false;
    } catch {
      this.offline = true;
      return null;
    }
    const live = (t: TableInfo) => t.status !== TableStatus.FINISHED;
    const current = this.update;
    if (current === null || this.wide) return [...tables].reverse().find(live)?.tableId ?? null;
    // Its people chose to play again (PlayAgain): the table names its follow-up.
    const named = tables.find((t) => t.tableId === current.tableId)?.nextTableId;
    if (named) return named;
    const people = new Set(current.seats.filter((s) => s.kind === SeatKind.HUMAN).map((s) => s.name));
    const after = tables.slice(tables.findIndex((t) => t.tableId === current.tableId) + 1);
    return after.find((t) => live(t) && t.seats.some((s) => s.kind === SeatKind.HUMAN && people.has(s.name)))?.tableId ?? null;
  }

  /** Watch one table until it finishes (then return) or the screen is closed. */
  private async watch(tableId: string): Promise<void> {
    let since: bigint | undefined;
    this.lowerWins = false;
    void api.getTable({ tableId }).then(
      ({ table }) => {
        this.lowerWins = lowerWins(table?.options);
        if (this.lowerWins && this.update && !this.stopped) this.render();
      },
      () => undefined,
    );
    let delay = 500;
    while (!this.stopped) {
      const connection = new AbortController();
      this.connection = connection;
      try {
        for await (const response of api.watch({ tableId, sinceVersion: since }, { signal: connection.signal })) {
          const update = response.update;
          if (!update) continue;
          this.offline = false;
          delay = 500;
          this.events = [...this.events, ...update.events.map((e) => e.text)].slice(-EVENTS_SHOWN);
          if (since === undefined) this.events = update.events.map((e) => e.text).slice(-EVENTS_SHOWN);
          since = update.version;
          this.update = update;
          this.render();
          if (update.status === TableStatus.FINISHED) {
            connection.abort();
            await sleep(POLL_MS);
            return;
          }
        }
      } catch (error) {
        if (this.stopped) return;
        if (this.update?.status === TableStatus.FINISHED) return;
        const code = ConnectError.from(error).code;
        if (code === Code.NotFound) {
          this.update = null;
          this.tableId = null;
          return;
        }
        this.offline = true;
        this.render();
      }
      await sleep(delay);
      delay = Math.min(delay * 2, 8000);
    }
  }

  private title(game: string): string {
    return this.games.get(game) ?? game;
  }

  render(): void {
    const update = this.update;
    const offer = document.fullscreenElement ? null : this.fullScreen;
    const status = this.offline ? h("div", { class: "tv-offline", role: "status" }, t("tv.reconnecting")) : null;
    if (!update) {
      replace(
        this.root,
        h(
          "section",
          { class: "tv-waiting tv-empty" },
          h("div", { class: "tv-side" }, invite("#/", 0)),
          h("div", { class: "tv-main" }, h("h1", {}, "Toadstool"), h("p", { class: "tv-big" }, t("tv.scanToStart")), status),
        ),
        offer,
      );
      return;
    }
    const screen =
      update.status === TableStatus.LOBBY ? this.waiting(update) : update.status === TableStatus.FINISHED ? this.podium(update) : this.playing(update);
    replace(this.root, screen, status, offer);
    this.fit();
  }

  private waiting(update: Update): HTMLElement {
    const taken = update.seats.filter((s) => s.kind !== SeatKind.EMPTY).length;
    return h(
      "section",
      { class: "tv-waiting" },
      h("div", { class: "tv-side" }, invite(`#/t/${update.tableId}`, 0)),
      h(
        "div",
        { class: "tv-main" },
        h("h1", {}, update.tableName),
        h("p", { class: "tv-game" }, t("tv.seatsTaken", { game: this.title(update.game), taken, seats: update.seats.length })),
        h(
          "ol",
          { class: "tv-seats", style: `--rows:${update.seats.length}` },
          ...update.seats.map((s) =>
            h(
              "li",
              { class: s.kind === SeatKind.EMPTY ? "open" : "taken" },
              s.kind === SeatKind.EMPTY ? t("tv.waitingForPlayer") : `${s.name}${botNote(s)}`,
            ),
          ),
        ),
        h("p", { class: "tv-live", "aria-live": "polite" }, taken === update.seats.length ? t("tv.everyoneHere") : t("tv.scanToSit")),
      ),
    );
  }

  private playing(update: Update): HTMLElement {
    const waiting = list(update.toAct.map((s) => seatName(update, s)));
    const context: RenderContext = {
      update,
      entries: [],
      opened: null,
      open: () => undefined,
      claim: () => undefined,
      entryWith: () => undefined,
      stepLabel: (step) => String(step[2] ?? step[0]),
      toggled: () => false, // the TV offers no choices: nothing is switched on
      setToggle: () => undefined,
      claimToggle: () => undefined,
    };
    const board = rendererFor(update.view?.game.case)(context);
    // The drawing is a spectator's: nothing in it may be tapped or focused on a screen without controls.
    board.querySelectorAll("button, a, input, select").forEach((e) => {
      e.setAttribute("tabindex", "-1");
      if (e instanceof HTMLButtonElement) e.disabled = true;
    });
    // More than eight at the table: the scores in two columns, the unit heading them once.
    const many = update.seats.length > 8;
    return h(
      "section",
      { class: "tv-playing" },
      h(
        "header",
        { class: "tv-banner" },
        h("span", { class: "tv-table" }, update.tableName.startsWith(this.title(update.game)) ? update.tableName : `${update.tableName} · ${this.title(update.game)}`),
        h("span", { class: "tv-turn", "aria-live": "polite" }, waiting ? t("tv.turnOf", { names: waiting }) : update.phase),
      ),
      h("div", { class: "tv-board", "aria-label": t("tv.board") }, h("div", { class: "tv-fit" }, board)),
      h(
        "aside",
        { class: "tv-aside" },
        many && update.scores.length ? h("p", { class: "tv-score-unit" }, update.scoreLabel) : null,
        h(
          "ol",
          {
            class: `tv-scores${many ? " many" : ""}`,
            "aria-label": t("tv.scores"),
            style: `--rows:${update.seats.length};--half:${Math.ceil(update.seats.length / 2)}`,
          },
          ...update.seats.map((s) =>
            h(
              "li",
              { class: update.toAct.includes(s.index) ? "to-act" : undefined },
              h("span", { class: "name" }, s.kind === SeatKind.EMPTY ? t("seat.empty") : s.name),
              update.scores.length ? scoreCell(update.scores[s.index] ?? 0, many ? "" : update.scoreLabel) : null,
            ),
          ),
        ),
        h("ol", { class: "tv-events", "aria-label": t("table.log"), "aria-live": "polite" }, ...[...this.events].reverse().map((e) => h("li", {}, e))),
        h(
          "div",
          { class: "tv-corner" },
          qrImage(`#/t/${update.tableId}/watch`, 0, t("tv.followQr", { address: pageAddress(`#/t/${update.tableId}/watch`) })),
          h("span", {}, t("tv.follow")),
        ),
      ),
    );
  }

  private podium(update: Update): HTMLElement {
    const placed = ranking(update, this.lowerWins);
    const outcome = update.outcome;
    const top = placed.slice(0, 3);
    const rest = placed.slice(3);
    // Second, first, third: the classic podium, the winner in the middle and highest.
    const order = [top[1], top[0], top[2]].filter((p) => p !== undefined);
    return h(
      "section",
      { class: "tv-podium" },
      h("h1", { "aria-live": "polite" }, outcome?.ended ? outcome.ended : top[0] ? t("tv.wins", { name: top[0].name }) : t("table.gameOver")),
      outcome?.summary && outcome.summary !== outcome.ended ? h("p", { class: "tv-summary" }, outcome.summary) : null,
      h(
        "ol",
        { class: "podium" },
        ...order.map((p) =>
          h(
            "li",
            { class: `step place-${p.place}`, value: p.place },
            h("span", { class: "name" }, p.name),
            p.score !== null ? h("span", { class: "score" }, scoreWords(p.score, update.scoreLabel)) : null,
            h("span", { class: "block" }, ordinal(p.place)),
          ),
        ),
      ),
      // How the game went, in the game's own words (UNO's hands, Level Up!'s rounds, Power Up's
      // eliminations, Kart's finishing order): the last few lines, large enough to read across the room.
      outcome?.details.length ? this.finalLines(outcome.details) : null,
      rest.length
        ? h("p", { class: "tv-rest" }, rest.map((p) => t(p.score !== null ? "tv.restPlaceScore" : "tv.restPlace", { place: ordinal(p.place), name: p.name, score: p.score !== null ? scoreWords(p.score, update.scoreLabel) : "" })).join(" · "))
        : null,
      h("p", { class: "tv-next" }, t("tv.next")),
    );
  }

  /** The game's account, a line each, after a line saying how many earlier ones fitPodium leaves out. */
  private finalLines(details: string[]): HTMLElement {
    return h("ol", { class: "tv-final", "aria-label": t("tv.howItWent") }, h("li", { class: "earlier" }), ...details.map((line) => h("li", {}, line)));
  }

  /** At most the last TV_DETAIL_LINES lines of the game's account, fewer while the podium's parts (which never
   * shrink: a squeezed summary lost its last line) do not fit the screen. */
  private fitPodium(podium: HTMLElement): void {
    const earlier = podium.querySelector<HTMLElement>(".tv-final .earlier");
    if (!earlier) return;
    const lines = [...podium.querySelectorAll<HTMLElement>(".tv-final li:not(.earlier)")];
    const box = podium.getBoundingClientRect();
    const over = (): boolean =>
      podium.firstElementChild!.getBoundingClientRect().top < box.top - 1 || podium.lastElementChild!.getBoundingClientRect().bottom > box.bottom + 1;
    let cut = Math.max(0, lines.length - TV_DETAIL_LINES) - 1;
    do {
      cut++;
      lines.forEach((line, i) => (line.hidden = i < cut));
      earlier.textContent = cut ? t("tv.earlier", { count: cut }) : "";
      earlier.hidden = !cut;
    } while (cut < lines.length - 1 && over());
  }

  /** Zoom the board to the largest size that fits its part of the screen (never scrolls), and show only the
   * newest events that fit whole under the scores. */
  private fit(): void {
    const podium = this.root.querySelector<HTMLElement>(".tv-podium");
    if (podium) this.fitPodium(podium);
    const events = this.root.querySelector<HTMLElement>(".tv-events");
    if (events) {
      const items = [...events.children] as HTMLElement[];
      items.forEach((e) => (e.style.display = ""));
      const bottom = events.getBoundingClientRect().bottom;
      // The first (newest) always shows; older ones while they end inside the list's room.
      let room = true;
      for (const e of items.slice(1)) {
        room = room && e.getBoundingClientRect().bottom <= bottom + 1;
        e.style.display = room ? "" : "none";
      }
    }
    const box = this.root.querySelector<HTMLElement>(".tv-board");
    const inner = box?.querySelector<HTMLElement>(".tv-fit");
    if (!box || !inner) return;
    // The box holds the drawing, and no row of it (a list item: Kart's race order) spills out of its own
    // width; a row that spills even at the smallest zoom is the drawing's own affair, not the zoom's.
    inner.style.removeProperty("width");
    inner.style.setProperty("zoom", "0.6");
    const spills = (row: HTMLElement): boolean => row.scrollWidth > row.clientWidth + 1;
    const rows = [...inner.querySelectorAll<HTMLElement>("li")].filter((row) => !spills(row));
    const fits = () =>
      box.scrollHeight <= box.clientHeight + 1 &&
      box.scrollWidth <= box.clientWidth + 1 &&
      !rows.some(spills);
    // The drawing across the box's whole width if it fits so at some zoom (Kart's track then as large as
    // it gets, Power Up's seats in rows, not one column), else at its own width.
    const wide = (zoom: number): boolean => {
      inner.style.setProperty("zoom", String(zoom));
      inner.style.setProperty("width", `${Math.floor(box.clientWidth / zoom) - 2}px`);
      return fits();
    };
    const own = (zoom: number): boolean => {
      inner.style.setProperty("zoom", String(zoom));
      inner.style.removeProperty("width");
      return fits();
    };
    const at = largestZoom(wide) !== null ? wide : own;
    const zoom = largestZoom(at) ?? 0.6;
    at(zoom);
    // A drawing whose boxes grow with its width (the Kart track's fields) is not made shorter by zooming
    // alone: then it is given less width too.
    for (let width = 0.9; width > 0.25 && !fits(); width *= 0.9) {
      inner.style.setProperty("width", `${Math.floor((box.clientWidth * width) / zoom)}px`);
    }
  }
}

/** A seat's score as the TV shows it: the number large, its unit ("laps", "1 lap") small beside it, once
 * per row (the game's score label is no line of its own). */
function scoreCell(score: number, label: string): HTMLElement {
  const words = scoreWords(score, label);
  const unit = words.slice(String(score).length).trim();
  return h("span", { class: "score" }, String(score), unit ? h("small", { class: "unit" }, ` ${unit}`) : null);
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
