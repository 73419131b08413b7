// The table screen: whose turn at a glance, the seats and scores, the game's drawing (games/), the legal
// actions as the shared choice tree (tap a card or an entry; a two-step choice opens its next step), and
// the event log; the host's controls in the browser that created the table (host.ts); the table display's
// big die and sliding events (display.ts). It follows the table's Watch stream, reconnecting with backoff
// and resuming from the last version it saw; it never decides what is legal (the update lists it).
//
// The stream and the seat's Acts go on one WebSocket (socket.ts); where WebSockets never open, over Connect.
// A hidden tab closes its stream and resumes from its version when shown again: over Connect a browser
// opens at most 6 HTTP/1.1 connections to one server and each open Watch holds one, so without this a
// seventh tab of the same browser (or its lobby) would stall until another closed. A seat whose tab stays
// hidden is away, as a locked phone is: after the table's takeover wait a bot plays it until the tab is
// shown again.

import { Code, ConnectError } from "@connectrpc/connect";
import type { Update } from "./gen/toadstool/v1/table_pb";
import { SeatKind, TableStatus } from "./gen/toadstool/v1/table_pb";
import type { WatchResponse } from "./gen/toadstool/v1/service_pb";
import { api, hostHeaders, requestId, seatHeaders } from "./api";
import { SeatSocket } from "./socket";
import { actionId, choiceTree, entryLabel, isLeaf } from "./choices";
import type { Choice, Step } from "./choices";
import { h, replace } from "./dom";
import { rendererFor } from "./games/index";
import { NARROW } from "./games/types";
import type { RenderContext } from "./games/types";
import { botNote, scoreWords, seatName, stepLabel } from "./names";
import { forgetSeat, holdSeat, hostToken, savedName, savedResume, saveHostToken, saveResume, tabSeat } from "./storage";
import type { HeldSeat } from "./storage";
import { HostControls } from "./host";
import { fitBoard, freshCount, rollPanel } from "./display";
import { TableKeys, keepFocus } from "./keys";
import { rulesButton } from "./rules";
import { inYourWords } from "./games/words";
import type { LoggedEvent } from "./display";
import { announce } from "./announce";
import { joinPanel, nameProblem } from "./join";
import { invite } from "./qr";
import { detailsList, lowerWins, rankingList } from "./ranking";
import { isConnectionProblem, plainWords } from "./words";
import { list, t } from "./i18n";
import type { Key } from "./i18n";

/** The connection's state (this.status) in words. */
const STATUS_WORDS: Record<string, Key> = {
  "connecting…": "status.connecting",
  live: "status.live",
  "reconnecting…": "status.reconnecting",
  "paused while hidden": "status.paused",
  closed: "status.closed",
};

const LOG_LENGTH = 60;
/** Refusals after which reconnecting cannot help. */
const FINAL = new Set([Code.NotFound, Code.Unauthenticated, Code.PermissionDenied, Code.InvalidArgument]);

export type Mode = "play" | "watch" | "display";

export class TableScreen {
  private update: Update | null = null;
  private opened: Choice[] = [];
  private togglesOn = new Set<string>();
  private log: LoggedEvent[] = [];
  private status = "connecting…";
  private problem = "";
  private sending = false;
  /** Whether the problem shown is the connection's: it goes as soon as an update arrives. */
  private connectionProblem = false;
  /** A move refused as stale or no longer legal: sent again by itself if the newest update still offers
   * the very same action (same id), else the refusal is said in words. */
  private retry: { actionId: string; after: bigint } | null = null;
  /** The name problem of the join panel (a name already at the table), shown under the name. */
  private joinProblem = "";
  /** Once the game is over: the timer that asks whether its people chose to play again (next_table_id). */
  private nextTimer: number | undefined;
  private movingOn = false;
  /** The table's options make the lowest score the best (UNO's lowest_wins): the ranking's order. */
  private lowerWins = false;
  private stopped = false;
  /** The open stream's abort: stopping the screen, or hiding the tab, closes it. */
  private connection: AbortController | null = null;
  /** The seat's WebSocket (socket.ts) while it is open: the Watch, and the Acts beside it. */
  private socket: SeatSocket | null = null;
  private connectNext = false;
  /** Resolves the wait of a hidden tab's stream when the tab is shown again. */
  private shown: (() => void) | null = null;
  private held: HeldSeat | null;
  private readonly host: HostControls | null;
  /** The terminal's keys at the table (keys.ts), and the offered choices they pick from. */
  private readonly keys: TableKeys;
  private choices: Choice | null = null;
  /** How many of the log's newest events came with the update just received, and whether it rolled a die:
   * the table display animates those once (the next render of the same update does not). */
  private fresh = 0;
  private rolled = false;
  private animate = false;
  /** A drawing may depend on the screen's width class (games/types.ts NARROW): crossing it draws again. */
  private readonly narrow = window.matchMedia(NARROW);
  private readonly onWidth = (): void => this.render();
  /** The table display fits its board to the screen again when the screen changes size (display.ts). */
  private readonly onResize = (): void => fitBoard(this.root);
  private readonly onVisibility = (): void => {
    if (document.hidden) this.connection?.abort();
    else this.shown?.();
  };

  constructor(
    private readonly root: HTMLElement,
    private readonly tableId: string,
    private readonly mode: Mode,
  ) {
    this.held = mode === "play" ? tabSeat(tableId) : null;
    const token = mode === "display" ? null : hostToken(tableId);
    this.host = token
      ? new HostControls(tableId, token, () => this.render(), (problem) => {
          this.problem = problem;
        })
      : null;
    this.keys = new TableKeys({
      root,
      tree: () => this.choices,
      open: (entry) => this.open(entry),
      back: () => (this.opened.length ? (this.back(), true) : false),
      toggled: (name) => this.togglesOn.has(name),
      setToggle: (name, on) => this.setToggle(name, on),
    });
  }

  private get viewerKey(): string {
    return this.held ? `seat:${this.held.seat}` : "spectator";
  }

  start(): void {
    document.addEventListener("visibilitychange", this.onVisibility);
    this.narrow.addEventListener("change", this.onWidth);
    if (this.mode === "display") window.addEventListener("resize", this.onResize);
    if (this.mode === "play") this.keys.attach();
    void this.follow();
    void api.getTable({ tableId: this.tableId }).then(
      ({ table }) => {
        this.lowerWins = lowerWins(table?.options);
        if (this.lowerWins && this.update && !this.stopped) this.render();
      },
      () => undefined, // the stream says what is wrong with the connection
    );
    this.render();
  }

  stop(): void {
    this.stopped = true;
    window.clearTimeout(this.nextTimer);
    document.removeEventListener("visibilitychange", this.onVisibility);
    this.narrow.removeEventListener("change", this.onWidth);
    window.removeEventListener("resize", this.onResize);
    this.keys.detach();
    document.documentElement.style.scrollPaddingBottom = "";
    this.connection?.abort();
    this.shown?.();
  }

  private async follow(): Promise<void> {
    let delay = 500;
    const resume = savedResume(this.tableId, this.viewerKey);
    let since: bigint | undefined = resume ? BigInt(resume.version) : undefined;
    if (resume) this.log = resume.events;
    while (!this.stopped) {
      if (document.hidden) {
        this.status = "paused while hidden";
        this.render();
        await new Promise<void>((done) => (this.shown = done));
        this.shown = null;
        continue;
      }
      const connection = new AbortController();
      this.connection = connection;
      try {
        let stream: AsyncIterable<WatchResponse>;
        const overSocket = !this.connectNext;
        this.connectNext = false;
        if (overSocket) {
          const socket = new SeatSocket(this.tableId, since, this.held?.token);
          this.socket = socket;
          connection.signal.addEventListener("abort", () => socket.close());
          stream = this.fallBackUnlessOpened(socket);
        } else {
          stream = api.watch(
            { tableId: this.tableId, sinceVersion: since },
            { headers: seatHeaders(this.held?.token), signal: connection.signal },
          );
        }
        for await (const response of stream) {
          if (!response.update) continue;
          delay = 500;
          this.status = "live";
          this.receive(response.update, since === undefined && this.update === null);
          since = response.update.version;
        }
        this.status = "reconnecting…";
      } catch (error) {
        if (this.stopped) return;
        if (connection.signal.aborted) continue; // the tab was hidden: resume from `since` once it is shown
        const failure = ConnectError.from(error);
        if (failure.code === Code.Unauthenticated && this.held) {
          // The seat was given up or taken away: forget it, and watch instead.
          forgetSeat(this.tableId, this.held.token);
          this.held = null;
          this.problem = plainWords(failure);
          since = undefined;
          this.update = null;
          continue;
        }
        if (failure.code === Code.InvalidArgument && since !== undefined) {
          // The version this tab saw is ahead of the table (the server came back without it): start afresh.
          since = undefined;
          this.update = null;
          continue;
        }
        if (FINAL.has(failure.code)) {
          this.status = "closed";
          this.problem = plainWords(failure);
          this.render();
          return;
        }
        this.status = "reconnecting…";
      }
      this.render();
      await new Promise((done) => setTimeout(done, delay * (0.5 + Math.random())));
      delay = Math.min(delay * 2, 8000);
    }
  }

  /** The socket's responses. If it never opened (the server restarting, or a network or proxy that
   * refuses WebSockets), the next attempt goes over Connect, and the one after tries the socket again:
   * where WebSockets never work, a Connect stream then stays up, and a blip does not end socket use. */
  private async *fallBackUnlessOpened(socket: SeatSocket): AsyncGenerator<WatchResponse> {
    try {
      yield* socket.responses();
    } finally {
      if (!socket.opened) this.connectNext = true;
    }
  }

  private receive(update: Update, first: boolean): void {
    const events: LoggedEvent[] = update.events.map((e) => ({
      text: e.text,
      seat: e.seat,
      roll: e.roll ? { roller: e.roll.roller, value: e.roll.value } : undefined,
    }));
    this.log = (first ? events : [...this.log, ...events]).slice(-LOG_LENGTH);
    this.fresh = Math.min(freshCount(update, first), this.log.length);
    this.rolled = !first && update.events.some((e) => e.roll !== undefined);
    this.animate = true;
    const changed = this.update === null || this.update.version !== update.version;
    const wasYourTurn = this.update !== null && this.update.viewerSeat !== undefined && this.update.toAct.includes(this.update.viewerSeat);
    this.update = update;
    if (changed) {
      this.opened = [];
      this.sending = false;
      if (!first) for (const e of events) announce(e.text);
      const yourTurn = update.viewerSeat !== undefined && update.toAct.includes(update.viewerSeat);
      if (yourTurn && !wasYourTurn) announce(t("table.yourTurn"));
      if (this.connectionProblem) {
        this.problem = "";
        this.connectionProblem = false;
      }
    }
    if (this.retry && update.version > this.retry.after) this.retryOrSay(update);
    if (update.status === TableStatus.FINISHED && this.nextTimer === undefined && !update.outcome?.ended) this.followNext();
    saveResume(this.tableId, this.viewerKey, { version: String(update.version), events: this.log });
    this.render();
  }

  /** After the game: as soon as someone at the table chose to play again, everyone moves to the new table
   * together (a seat holder takes its seat there, PlayAgain; a spectator or the display watches it). */
  private followNext(): void {
    this.nextTimer = window.setTimeout(async () => {
      if (this.stopped) return;
      try {
        const { table } = await api.getTable({ tableId: this.tableId });
        if (table?.nextTableId) {
          await this.moveTo(table.nextTableId);
          return;
        }
      } catch {
        // Asked again in a moment: the connection's state is shown by the stream.
      }
      if (!this.stopped) this.followNext();
    }, 1500);
  }

  /** "Play again": the follow-up table, made by the first to ask (every later call gets the same one). */
  private async playAgain(): Promise<void> {
    if (this.movingOn) return;
    this.movingOn = true;
    this.render();
    try {
      await this.moveTo(null);
    } catch (error) {
      this.movingOn = false;
      this.problem = plainWords(error);
      this.render();
    }
  }

  /** Go to the next table (`next` known) or make it (null): a seat holder sits in its seat there first. */
  private async moveTo(next: string | null): Promise<void> {
    if (this.stopped) return;
    if (!this.held) {
      if (next) location.hash = `#/t/${next}${this.mode === "play" ? "/watch" : `/${this.mode}`}`;
      return;
    }
    const host = hostToken(this.tableId);
    const again = await api.playAgain({ tableId: this.tableId }, { headers: { ...seatHeaders(this.held.token), ...(host ? hostHeaders(host) : {}) } });
    const tableId = again.table!.tableId;
    holdSeat(tableId, { seat: again.seat, name: this.held.name, token: again.seatToken });
    if (again.hostToken) saveHostToken(tableId, again.hostToken);
    if (!this.stopped) location.hash = `#/t/${tableId}`;
  }

  private send(leaf: Choice): Promise<void> {
    return this.sendId(actionId(leaf, [...this.togglesOn]), true);
  }

  /** Send one action; a refusal because the table moved on waits for the newest update (retryOrSay). */
  private async sendId(id: string, again: boolean): Promise<void> {
    const update = this.update;
    if (!update || !this.held || this.sending || this.status !== "live") return;
    this.sending = true;
    this.problem = "";
    this.connectionProblem = false;
    this.render();
    try {
      const request = { tableId: this.tableId, version: update.version, actionId: id, requestId: requestId() };
      if (this.socket?.ready) await this.socket.act(request);
      else await api.act(request, { headers: seatHeaders(this.held.token) });
      this.togglesOn.clear();
    } catch (error) {
      this.sending = false;
      const code = ConnectError.from(error).code;
      if (again && (code === Code.Aborted || code === Code.FailedPrecondition) && this.update?.status === TableStatus.PLAYING) {
        this.retry = { actionId: id, after: update.version };
        if (this.update && this.update.version > update.version) this.retryOrSay(this.update);
        return;
      }
      this.problem = plainWords(error);
      this.connectionProblem = isConnectionProblem(error);
      this.render();
    }
  }

  /** The newest update after a stale refusal: send the same action again if it is still offered, else say so. */
  private retryOrSay(update: Update): void {
    const retry = this.retry!;
    this.retry = null;
    if (update.legalActions.some((a) => a.id === retry.actionId)) {
      void this.sendId(retry.actionId, false);
    } else {
      this.problem = t("error.movedOn");
      this.render();
    }
  }

  private open(entry: Choice): void {
    if (isLeaf(entry)) {
      void this.send(entry);
      return;
    }
    this.opened = [...this.opened, entry];
    this.render();
  }

  private async join(seat: number | undefined, typed?: string): Promise<void> {
    const name = (typed ?? savedName()).trim();
    const problem = nameProblem(name, this.update?.seats ?? []);
    if (problem) {
      this.joinProblem = problem;
      this.render();
      document.getElementById("join-name")?.focus();
      return;
    }
    this.joinProblem = "";
    try {
      const joined = await api.joinTable({ tableId: this.tableId, name, seat, requestId: requestId() });
      holdSeat(this.tableId, { seat: joined.seat, name, token: joined.seatToken });
      // The same fragment: start the screen again, now as that seat.
      location.hash = `#/t/${this.tableId}`;
      window.dispatchEvent(new HashChangeEvent("hashchange"));
    } catch (error) {
      this.joinProblem = plainWords(error);
      this.render();
    }
  }

  private label(step: Step): string {
    return this.update ? stepLabel(this.update, step) : step[0];
  }

  render(): void {
    const update = this.update;
    const offline = this.update !== null && this.status !== "live" && this.status !== "paused while hidden";
    const finished = update?.outcome && !update.outcome.ended ? " finished" : "";
    this.root.className = `screen table-screen mode-${this.mode}${offline ? " offline" : ""}${finished}`;
    if (!update) {
      replace(this.root, h("p", { class: "status" }, this.problem || t("table.connecting")), h("a", { href: "#/" }, t("table.toLobby")));
      return;
    }
    const tree = choiceTree(update.legalActions);
    this.choices = this.held && update.legalActions.length && !this.sending ? tree : null;
    const entries = tree.children.flatMap((c) => (c.run ? c.children : [c]));
    const claimed = new Set<Choice>();
    const claimedToggles = new Set<string>();
    const top = this.opened.length ? this.opened[this.opened.length - 1] : null;
    const context: RenderContext = {
      update,
      entries,
      opened: top,
      open: (entry) => this.open(entry),
      claim: (entry) => claimed.add(entry),
      entryWith: (kind, field, value) =>
        entries.find((e) =>
          e.steps.some((s) => s[0] === kind && (field === "" ? !s[1] : s[1] === field && s[2] === value)),
        ),
      stepLabel: (step) => this.label(step),
      toggled: (name) => this.togglesOn.has(name),
      setToggle: (name, on) => this.setToggle(name, on),
      claimToggle: (name) => claimedToggles.add(name),
    };
    const member = update.view?.game.case;
    const board = rendererFor(member)(context);
    const display = this.mode === "display";
    const animate = display && this.animate;
    this.animate = false;
    const joining = this.mode === "play" && !this.held;
    const lobby = update.status === TableStatus.LOBBY;
    keepFocus(this.root, () => replace(
      this.root,
      this.header(update),
      offline ? h("div", { class: "offline-banner", role: "status" }, t("table.offline")) : null,
      joining ? joinPanel(update, this.joinProblem, (name) => void this.join(undefined, name), () => (location.hash = `#/t/${this.tableId}/watch`)) : null,
      this.seats(update),
      lobby && !display ? h("section", { class: "waiting-invite", "aria-label": t("table.inviteLabel") }, h("h2", {}, t("table.invite")), invite(`#/t/${this.tableId}`, 168)) : null,
      update.outcome && update.status === TableStatus.FINISHED ? this.outcome(update) : null,
      display ? rollPanel(update, this.log, animate && this.rolled) : null,
      // Nothing is drawn empty: a board before the game has a view, a bar of no choices, a log of no events.
      hasContent(board) ? h("div", { class: "board" }, board) : null,
      display ? null : this.actions(update, tree, claimed, claimedToggles),
      this.host?.render(update) ?? null,
      this.problem ? h("div", { class: "problem", role: "alert" }, this.problem) : null,
      this.log.length ? this.events(animate ? this.fresh : 0) : null,
    ));
    if (display) fitBoard(this.root);
    this.keys.numberChoices();
    // The action bar sticks to the bottom of the screen: whatever is scrolled into view (a focused choice,
    // a standings row) stops above it, not under it.
    const bar = this.root.querySelector<HTMLElement>(".actions");
    document.documentElement.style.scrollPaddingBottom = bar ? `${bar.offsetHeight + 8}px` : "";
  }

  private header(update: Update): HTMLElement {
    const you = update.viewerSeat;
    const yourTurn = you !== undefined && update.toAct.includes(you);
    const waiting = list(update.toAct.map((s) => seatName(update, s)));
    const turn =
      update.status === TableStatus.FINISHED
        ? update.outcome?.ended
          ? t("table.ended")
          : t("table.gameOver")
        : update.status === TableStatus.LOBBY
          ? t("table.waitingForPlayers")
          : yourTurn
            ? t("table.yourTurn")
            : waiting
              ? t("table.waitingFor", { names: waiting })
              : "";
    return h(
      "header",
      { class: `table-header${yourTurn ? " your-turn" : ""}` },
      h("a", { class: "to-lobby", href: "#/", "aria-label": t("table.toLobby") }, "←"),
      h("div", { class: "titles" }, h("h1", {}, update.tableName), h("div", { class: "phase" }, update.phase)),
      h("div", { class: "turn", "data-testid": "turn" }, turn),
      h("div", { class: `link ${this.status === "live" ? "live" : "down"}`, title: statusWords(this.status) }, statusWords(this.status)),
      this.mode === "display" ? null : h("a", { class: "button show-tv", href: `#/t/${this.tableId}/tv` }, t("lobby.showOnTv")),
      this.mode === "display" ? null : rulesButton(update.game),
    );
  }

  private seats(update: Update): HTMLElement {
    return h(
      "ol",
      { class: "seats" },
      ...update.seats.map((seat) => {
        const turn = update.toAct.includes(seat.index);
        const you = update.viewerSeat === seat.index;
        const empty = seat.kind === SeatKind.EMPTY;
        return h(
          "li",
          { class: `seat${turn ? " to-act" : ""}${you ? " you" : ""}`, "data-seat": seat.index },
          h("span", { class: `dot ${seat.connected || seat.kind === SeatKind.BOT ? "on" : "off"}` }),
          h("span", { class: "name" }, empty ? t("seat.empty") : seat.name, you ? t("seat.youNote") : "", botNote(seat)),
          seat.botControlled ? h("span", { class: "away" }, t("seat.awayBot")) : null,
          update.scores.length ? h("span", { class: "score" }, scoreWords(update.scores[seat.index] ?? 0, update.scoreLabel)) : null,
          empty && this.mode === "play" && !this.held
            ? h("button", { class: "join", onclick: () => void this.join(seat.index, (document.getElementById("join-name") as HTMLInputElement | null)?.value) }, t("seat.sitHere"))
            : null,
        );
      }),
    );
  }

  private outcome(update: Update): HTMLElement {
    const outcome = update.outcome!;
    if (outcome.ended) {
      // Not ended by the game's rules (the host ended it, or nobody was left): nobody won.
      const more = outcome.summary && outcome.summary !== outcome.ended ? outcome.summary : null;
      return h("div", { class: "outcome ended", role: "status" }, h("strong", {}, outcome.ended), more ? h("div", {}, more) : null);
    }
    const winners = list(outcome.winners.map((w) => seatName(update, w)));
    return h(
      "section",
      { class: "outcome", role: "status", "aria-label": t("table.endLabel") },
      h("strong", { class: "outcome-title" }, winners ? t("table.won", { names: winners, count: outcome.winners.length }) : t("table.gameOver")),
      rankingList(update, this.lowerWins),
      outcome.summary ? h("p", { class: "summary" }, outcome.summary) : null,
      detailsList(outcome),
      this.mode === "display"
        ? null
        : h(
            "div",
            { class: "outcome-actions" },
            this.held
              ? h("button", { class: "primary play-again", disabled: this.movingOn, onclick: () => void this.playAgain() }, this.movingOn ? t("table.settingTable") : t("table.playAgain"))
              : null,
            h("a", { class: "button to-lobby-button", href: "#/" }, t("table.toLobby")),
          ),
    );
  }

  /** The action bar: what the board does not offer as a tap target; nothing when it would be empty. */
  private actions(update: Update, tree: Choice, claimed: Set<Choice>, claimedToggles: Set<string>): HTMLElement | null {
    const top = this.opened.length ? this.opened[this.opened.length - 1] : null;
    const level = (top ? top.children : tree.children).filter((c) => !claimed.has(c) && !(c.run && c.children.every((e) => claimed.has(e))));
    const toggles = [...new Set(tree.children.flatMap((c) => collectToggles(c)))].filter((name) => !claimedToggles.has(name));
    const buttons = level.map((entry) =>
      h(
        "button",
        { class: `action${isLeaf(entry) ? "" : " opens"}`, disabled: this.sending, onclick: () => this.open(entry) },
        entryLabel(entry, top === null, (s) => this.label(s)) + (isLeaf(entry) ? "" : " ▸"),
      ),
    );
    if (!update.legalActions.length || (!top && !buttons.length && !toggles.length)) return null;
    return h(
      "div",
      { class: "actions", role: "group", "aria-label": t("table.choices") },
      top ? h("div", { class: "opened" }, entryLabel(top, this.opened.length === 1, (s) => this.label(s)) + ":") : null,
      ...buttons,
      ...toggles.map((name) =>
        h(
          "label",
          { class: "toggle" },
          h("input", {
            type: "checkbox",
            checked: this.togglesOn.has(name),
            onchange: (event: Event) => {
              const on = (event.target as HTMLInputElement).checked;
              if (on) this.togglesOn.add(name);
              else this.togglesOn.delete(name);
            },
          }),
          name === "uno" ? t("table.andCallUno") : t("table.andFlag", { flag: name.replace(/_/g, " ") }),
        ),
      ),
      top ? h("button", { class: "action cancel", onclick: () => this.back() }, t("table.back")) : null,
    );
  }

  /** Switch a toggle of the offered plays (UNO's call) on or off; the board draws it at once. */
  private setToggle(name: string, on: boolean): void {
    if (on) this.togglesOn.add(name);
    else this.togglesOn.delete(name);
    this.render();
  }

  private back(): void {
    this.opened = this.opened.slice(0, -1);
    this.render();
  }

  /** The event log, newest first; the newest `fresh` entries slide in (the table display). */
  private events(fresh: number): HTMLElement {
    return h(
      "section",
      { class: "log", "aria-label": t("table.log") },
      h("h2", {}, t("table.logHeading")),
      h("ol", { tabindex: 0, "aria-label": t("table.logList") }, ...[...this.log].reverse().map((e, i) => h("li", { class: i < fresh ? "fresh" : undefined }, inYourWords(this.update!, e)))),
    );
  }
}

/** Whether a game's drawing shows anything: before the game has a view, a renderer draws empty elements
 * (the generic panels an empty list); every drawing of a view has some text. */
function hasContent(element: HTMLElement): boolean {
  return (element.textContent ?? "").trim() !== "" || element.querySelector("button, img, svg, canvas") !== null;
}

function collectToggles(choice: Choice): string[] {
  return isLeaf(choice) ? Object.keys(choice.toggles) : choice.children.flatMap(collectToggles);
}

function statusWords(status: string): string {
  const key = STATUS_WORDS[status];
  return key ? t(key) : status;
}
