"""The table screen: the game canvas, seats and scores, the event log, the legal actions, dice, banners.

It follows one table's stream on the network thread and redraws on the Tk thread, at most once per poll
however many updates arrived (events are all logged; only the latest view is drawn). The game itself is
drawn by the game's presentation module (games/); this screen is the part every game shares. It knows
no rules: its buttons are the update's legal actions, sent back by id with the update's version.
"""

from __future__ import annotations

import functools
import time
import tkinter as tk
import tkinter.font as tkfont
from tkinter import ttk
from typing import TYPE_CHECKING, Any

import grpc

from toadstool.api.v1 import table_pb2
from toadstool_clients.connection import Client, StreamState
from toadstool_clients.i18n import _
from toadstool_clients.names import bot_level_name
from toadstool_clients.tk.actions import ActionBar
from toadstool_clients.tk.connect import explain
from toadstool_clients.tk.games import FONT, Board, ClickTarget, bind_clicks, cut_to, draw_game, recap_of, safe_text
from toadstool_clients.tk.host import HostControls
from toadstool_clients.tk.keys import table_key
from toadstool_clients.tk.lobby import STATUS_NAMES, create_and_sit
from toadstool_clients.tk.motion import Motion
from toadstool_clients.tk.overlays import (
    CLOSE_OUTCOME,
    HELD,
    draw_held,
    draw_outcome,
    draw_roll,
    draw_waiting,
    hold,
    start_roll,
    start_slides,
)

if TYPE_CHECKING:
    from toadstool_clients.tk.shell import Shell, TableResult

#: The smallest drawing the game screens are designed for (what a 760x520 window leaves); smaller scrolls.
MIN_WIDTH, MIN_HEIGHT = 470, 340
#: The side panel's width (seats and events), and in a window narrower than SMALL_WINDOW.
SIDE_W, SIDE_W_SMALL, SMALL_WINDOW = 270, 222, 1000

DIE_FACES = "⚀⚁⚂⚃⚄⚅"
#: How often a move refused as late is sent again while it is still offered (a busy simultaneous vote).
STALE_RETRIES = 3
#: How many of the events after your move are shown beside it as its result.
RESULT_EVENTS = 3


def plain_refusal(error: grpc.aio.AioRpcError) -> str:
    """The server's reason for refusing a move, as one sentence (without the list of legal actions it may
    add in brackets, which the action bar shows anyway)."""
    details = (error.details() or "").split(" (")[0].strip().rstrip(".")
    return (details[:1].upper() + details[1:] + ".") if details else "the table did not take it."


def lost_banner(why: str) -> str:
    """The banner while the stream is lost: why, once, with no brackets inside brackets ("the server cannot
    be reached (is it running...?)" already has its own)."""
    why = why.strip().rstrip(".")
    return (
        f"Connection to the server lost: {why}. Reconnecting…"
        if why
        else "Connection to the server lost. Reconnecting…"
    )


class TableScreen:
    """One table, as a seat or as a spectator."""

    def __init__(
        self,
        app: Shell,
        table: table_pb2.TableInfo,
        seat: int | None,
        token: str | None,
        host_token: str | None = None,
    ) -> None:
        self.app = app
        self.host_token = host_token
        self.table_id = table.table_id
        self.seat = seat
        self.token = token
        self.latest: table_pb2.Update | None = None
        self.targets: list[ClickTarget] = []
        self.menu: tk.Menu | None = None
        self.acting: Any = None
        self.following: Any = None
        self.connected = True
        self.redraw_pending: str | None = None
        self.roll: table_pb2.DieRoll | None = None
        self.roll_fresh = False
        #: The table's status when the status line was last written (a note goes stale when it changes).
        self.status_for: int | None = None
        self.gone = False
        self.fallback_note = ""
        self.left = False
        self.draw_count = 0

        self.frame = ttk.Frame(app.body, style="Shell.TFrame")
        header = tk.Frame(self.frame, background="#1d2230")
        header.pack(side="top", fill="x", padx=10, pady=(8, 4))
        # The right-hand widgets are packed first so that a long phase squeezes itself, not the button.
        self.back_button = ttk.Button(header, text=_("Back to lobby"), command=self.back_to_lobby)
        self.back_button.pack(side="right")
        # Before leaving, the pointer on the button says what leaving does to your seat.
        self.back_button.bind("<Enter>", lambda _e: self._say_leaving(), add="+")
        self.back_button.bind("<Leave>", lambda _e: self._unsay_leaving(), add="+")
        self.role = tk.Label(header, text="", font=(FONT, 10), fg="#b0bec5", bg="#1d2230")
        self.role.pack(side="right", padx=10)
        self.title = tk.Label(header, text=safe_text(table.name or table.table_id, 30), font=(FONT, 16, "bold"),
                              fg="#ffd54a", bg="#1d2230")  # fmt: skip
        self.title.pack(side="left")
        # As wide as the header leaves it (width=1: it asks for nothing), its text shortened to fit.
        self.phase = tk.Label(header, text="", font=(FONT, 13, "bold"), fg="white", bg="#1d2230", anchor="w",
                              width=1)  # fmt: skip
        self.phase.pack(side="left", padx=18, fill="x", expand=True)
        self.phase_text = ""
        self.phase.bind("<Configure>", lambda _e: self._fit_phase())

        bottom = tk.Frame(self.frame, background="#1d2230")
        bottom.pack(side="bottom", fill="x", padx=10, pady=(0, 6))
        # One line under the action bar: a note of the moment on the right (a refusal, "Reconnected"), and
        # your own last move with what came of it on the left until you move again (width=1: it is cut to
        # the room the note leaves it, with "…").
        line = tk.Frame(bottom, background="#1d2230")
        line.pack(side="bottom", fill="x")
        self.status = tk.Label(line, text="", font=(FONT, 10, "bold"), fg="#ffb74d", bg="#1d2230", anchor="e")
        self.status.pack(side="right")
        self.last_move = tk.Label(line, text="", font=(FONT, 10), fg="#b3e5fc", bg="#1d2230", anchor="w", width=1)
        self.last_move.pack(side="left", fill="x", expand=True)
        self.last_move_text = ""
        self.last_move.bind("<Configure>", lambda _e: self._fit_last_move())
        #: The version your last move was sent on: the first update after it carries what came of it.
        self.result_after: int | None = None
        self.move_label = ""
        self.move_result: list[str] | None = None
        #: A move the table refused as sent on an older version: (its id, its label, that version, tries).
        self.stale: tuple[str, str, int, int] | None = None
        self.bar = ActionBar(bottom, self.act, lambda: self.schedule_redraw(0))
        self.bar.frame.pack(side="top", fill="x")
        self.host = HostControls(self, header, bottom)

        middle = tk.Frame(self.frame, background="#1d2230")
        middle.pack(fill="both", expand=True, padx=10, pady=4)
        middle.rowconfigure(0, weight=1)
        middle.columnconfigure(0, weight=1)
        holder = tk.Frame(middle, background="#1d2230")
        holder.grid(row=0, column=0, sticky="nsew")
        holder.rowconfigure(0, weight=1)
        holder.columnconfigure(0, weight=1)
        self.canvas = tk.Canvas(holder, background="#1f6f43", highlightthickness=0, width=480, height=360)
        self.canvas.grid(row=0, column=0, sticky="nsew")
        # Below the smallest size a screen is designed for, the drawing scrolls instead of squashing.
        self.vbar = ttk.Scrollbar(holder, orient="vertical", command=self.canvas.yview)
        self.hbar = ttk.Scrollbar(holder, orient="horizontal", command=self.canvas.xview)
        self.canvas.configure(yscrollcommand=self.vbar.set, xscrollcommand=self.hbar.set)
        # The seats and the log keep a fixed width (narrower in a small window): the board takes the rest.
        side = self.side = ttk.Frame(middle, style="Card.TFrame", padding=6, width=SIDE_W)
        side.grid(row=0, column=1, sticky="ns", padx=(6, 0))
        side.pack_propagate(False)
        self.frame.bind("<Configure>", lambda e: self._fit_side(e.width))
        ttk.Label(side, text=_("Seats"), style="Card.TLabel", font=(FONT, 11, "bold")).pack(anchor="w")
        self.seats = ttk.Treeview(side, columns=("turn", "name", "score", "state"), show="headings", height=7,
                                  selectmode="none")  # fmt: skip
        for column, title, width in (("turn", "", 16), ("name", _("Player"), 90), ("score", _("Score"), 70),
                                     ("state", "", 76)):  # fmt: skip
            self.seats.heading(column, text=title, anchor="w")
            self.seats.column(column, width=width, minwidth=width if column != "name" else 60,
                              stretch=column == "name", anchor="w")  # fmt: skip
        self.seats.tag_configure("turn", background="#fff3c4")
        self.seats.tag_configure("you", foreground="#0d47a1")
        self.seats.pack(fill="x", pady=(2, 8))
        self.seats.bind("<Button-3>", self.host.seat_menu_at)
        ttk.Label(side, text=_("Events"), style="Card.TLabel", font=(FONT, 11, "bold")).pack(anchor="w")
        self.log = tk.Text(side, width=24, height=8, wrap="word", background="#fbfaf6", borderwidth=0,
                           font=(FONT, 9), state="disabled")  # fmt: skip
        self.log.tag_configure("roll", foreground="#6a1b9a", font=(FONT, 9, "bold"))
        self.log.pack(fill="both", expand=True)
        self.canvas.bind("<Configure>", lambda _e: self.schedule_redraw(60))
        self.board: Board | None = None
        bind_clicks(self.canvas, lambda: self.board)
        self.outcome_closed = False
        self.table_info = table
        self.rematching: Any = None
        self.motion = Motion(self.canvas)
        self.positions: dict[str, tuple[float, float]] = {}
        self.canvas.tag_bind(CLOSE_OUTCOME, "<Button-1>", lambda _e: self.close_outcome())
        self.canvas.tag_bind(HELD, "<Button-1>", lambda _e: self.release_held())
        self.held: tuple[str, list[str]] | None = None
        self.key_binding = app.root.bind("<KeyPress>", lambda event: table_key(self, event), add="+")

        self.role.configure(text=_("spectator") if seat is None else _("you are seat {number}", number=seat + 1))
        self.window_title = table.name or table.table_id
        self.follow()

    # --- the stream ---------------------------------------------------------------------------------
    def follow(self) -> None:
        client = self.app.client
        if client is None:
            return
        network = self.app.network

        async def follow() -> None:
            async for item in client.follow(self.table_id, self.token, max_backoff=2.0):
                network.post(functools.partial(self.receive, item))

        self.following = network.submit(follow(), None, self._stream_failed)

    def _stream_failed(self, error: BaseException) -> None:
        if self.left:
            return
        self.app.set_banner(f"Stopped following the table: {explain(error)}")
        self.gone = True
        self.bar.disable("This table is gone: nothing more can be played here.")

    def receive(self, item: table_pb2.Update | StreamState) -> None:
        """A stream item on the Tk thread: log events at once, draw the latest view soon."""
        if self.left:
            return
        if isinstance(item, StreamState):
            self.connected = item.connected
            if item.connected:
                self.app.set_banner("")
                self.set_status(_("Reconnected to the server."))
            else:
                self.app.set_banner(lost_banner(item.message))
            return
        rolled = False
        for event in item.events:
            rolled = self.log_event(event) or rolled
        if self.status_for is not None and item.status != self.status_for:
            self.set_status("")  # "a bot sits in seat 2" is stale once the game has started
        recap = recap_of(self.latest, item)
        self.latest = item
        if self.result_after is not None and item.version > self.result_after:
            self.result_after = None  # the update your move made: what came of it
            self.move_result = [safe_text(e.text, 120) for e in item.events if e.text.strip()][:RESULT_EVENTS]
            if self.acting is None and self.move_label:
                self._show_move()
        if self.stale is not None and item.version > self.stale[2]:
            self._act_again()
        if recap is not None:
            hold(self, recap)
        if item.table_name and item.table_name != self.window_title:
            self.window_title = item.table_name
            self.app.set_title(item.table_name)
            self.title.configure(text=safe_text(item.table_name, 30))
        self.schedule_redraw(0)
        if rolled:
            start_roll(self)

    def log_event(self, event: table_pb2.Event) -> bool:
        """Add the event to the log; True when it rolled a die."""
        text = safe_text(event.text, 300)
        tag: tuple[str, ...] = ()
        if event.HasField("roll"):
            value = event.roll.value
            face = DIE_FACES[value - 1] if 1 <= value <= 6 else str(value)
            text = f"{face} {text}"
            tag = ("roll",)
            self.roll = event.roll
        self.log.configure(state="normal")
        self.log.insert("end", text + "\n", tag)
        lines = int(self.log.index("end-1c").split(".")[0])
        if lines > 400:
            self.log.delete("1.0", f"{lines - 400}.0")
        self.log.configure(state="disabled")
        self.log.see("end")
        return bool(event.HasField("roll"))

    # --- drawing ------------------------------------------------------------------------------------
    def _fit_side(self, window_width: int) -> None:
        """In a small window: a narrower side panel (without the seats' state column), a shorter title and
        no role, so that the board and the phase keep their room."""
        small = window_width < SMALL_WINDOW
        width = SIDE_W_SMALL if small else SIDE_W
        if int(self.side.cget("width")) != width:
            self.side.configure(width=width)
            self.seats.configure(displaycolumns=("turn", "name", "score") if small else ("turn", "name", "score",
                                                                                      "state"))  # fmt: skip
            self.title.configure(text=safe_text(self.window_title, 16 if small else 30))
            if small:
                self.role.pack_forget()
            else:
                self.role.pack(side="right", padx=10, before=self.title)

    def schedule_redraw(self, delay_ms: int) -> None:
        if self.left:
            return
        if self.redraw_pending is not None:
            if delay_ms > 0:
                return
            self.canvas.after_cancel(self.redraw_pending)
        self.redraw_pending = (
            self.canvas.after(delay_ms, self.redraw) if delay_ms else self.canvas.after_idle(self.redraw)
        )

    def redraw(self) -> None:
        self.redraw_pending = None
        update = self.latest
        if update is None or self.left:
            return
        self.draw_count += 1
        shown_w, shown_h = self.canvas.winfo_width(), self.canvas.winfo_height()
        width, height = max(MIN_WIDTH, shown_w), max(MIN_HEIGHT, shown_h)
        self.canvas.configure(scrollregion=(0, 0, width, height))
        for bar, needed, place in ((self.hbar, width > shown_w, (1, 0)), (self.vbar, height > shown_h, (0, 1))):
            if needed and not bar.winfo_manager():
                bar.grid(row=place[0], column=place[1], sticky="ew" if place[0] else "ns")
            elif not needed and bar.winfo_manager():
                bar.grid_remove()
        for name in [n for n in self.motion.sequences if n.startswith("slide")]:
            del self.motion.sequences[name]  # the pieces are drawn anew, where they now are
        self.canvas.delete("all")
        self.canvas.configure(cursor="")
        self._show_actions(update)  # first: a new update closes an open choice the board would show
        board = Board(self.canvas, width, height, update, self.choose, picking=self.bar.picking())
        self.board = board
        if update.status == table_pb2.TABLE_STATUS_LOBBY and update.view.WhichOneof("game") is None:
            draw_waiting(self, board)
            self.fallback_note = ""
        else:
            self.fallback_note = draw_game(board)
        self.targets = board.targets
        if board.movers and (shown_w, shown_h) == getattr(self, "_drawn_size", None):
            start_slides(self, board, self.positions)
        self._drawn_size = (shown_w, shown_h)
        self.positions = dict(board.positions)
        draw_roll(self, board)
        draw_held(self, board)
        draw_outcome(self, board)
        self._show_header(update)
        self._show_seats(update)

    def release_held(self) -> None:
        """Put a held recap away before its time."""
        self.held = None
        self.motion.sequences.pop("held", None)
        self.canvas.delete(HELD)

    def close_outcome(self) -> None:
        """Put the result card away to look at the table as it ended."""
        if not self.outcome_closed:
            self.outcome_closed = True
            self.canvas.delete("outcome", CLOSE_OUTCOME)

    def rematch(self) -> None:
        """Play again: for a seat, the table's follow-up (PlayAgain: the same people in the same seats, each
        bot at its level, everyone who asks moved to one table); for a spectator, a new table of the same
        game, options and seats (bots where bots sat) with a seat at it."""
        client = self.app.client
        update = self.latest
        if client is None or update is None or self.rematching is not None:
            return
        if self.token is not None:
            self.set_status(_("Setting up the next game…"))
            call = self._play_again(client, self.token)
            self.rematching = self.app.network.submit(call, self._go_to_rematch, self._no_rematch)
            return
        bots = sum(1 for s in update.seats if s.kind == table_pb2.SEAT_KIND_BOT)
        players = len(update.seats)
        options = dict(self.table_info.options)
        name = safe_text(update.table_name or self.window_title, 40)
        self.set_status(_("Setting up the rematch…"))

        def failed(error: BaseException) -> None:
            self.rematching = None
            self.set_status(_("No rematch: {why}", why=explain(error)))

        game, seated = self.table_info.game, min(bots, players - 1)
        call = create_and_sit(client, self.app.host_tokens, game, players, seated, options, None, name,
                              self.app.player_name)  # fmt: skip
        self.rematching = self.app.network.submit(call, self._go_to_rematch, failed)

    async def _play_again(self, client: Client, token: str) -> TableResult:
        """PlayAgain at this table (runs on the network thread); the new table's host token is kept too."""
        answer = await client.play_again(self.table_id, token, self.host_token)
        if answer.host_token:
            self.app.host_tokens[answer.table.table_id] = answer.host_token
        return answer.table, answer.seat, answer.seat_token

    def _no_rematch(self, error: BaseException) -> None:
        self.rematching = None
        self.set_status(_("No rematch: {why}", why=explain(error)))

    def _go_to_rematch(self, result: tuple[table_pb2.TableInfo, int | None, str | None]) -> None:
        self.rematching = None
        self.app.show_table(result)

    def _show_header(self, update: table_pb2.Update) -> None:
        phase = safe_text(update.phase or STATUS_NAMES.get(update.status, ""), 90)
        mine = self.seat is not None and self.seat in update.to_act
        self.phase_text = ("▶ " if mine else "") + phase
        self.phase.configure(fg="#ffeb3b" if mine else "white")
        self._fit_phase()

    def _fit_phase(self) -> None:
        """The phase in the room the header has for it: a size smaller (11 points) before it is cut, and then
        cut with "…" rather than at the label's edge."""
        text, room = self.phase_text, self.phase.winfo_width() - 6
        fonts = self._phase_fonts = getattr(self, "_phase_fonts", None) or [
            tkfont.Font(self.frame, family=FONT, size=size, weight="bold") for size in (13, 11)
        ]
        font = next((f for f in fonts if f.measure(text) <= room), fonts[-1])
        text = cut_to(font.measure, text, room)
        if self.phase.cget("text") != text or self.phase.cget("font") != str(font):
            self.phase.configure(text=text, font=font)

    def _show_seats(self, update: table_pb2.Update) -> None:
        heading = safe_text(update.score_label, 14).capitalize() or _("Score")
        if heading != self.seats.heading("score", "text"):  # as wide as its heading ("Extra lives")
            self.seats.heading("score", text=heading)
            self.seats.column("score", width=tkfont.Font(self.frame, family=FONT, size=10).measure(heading) + 22)
        self.seats.delete(*self.seats.get_children())
        rows = max(4, min(10, len(update.seats)))  # every seat in view, up to ten
        if int(self.seats.cget("height")) != rows:
            self.seats.configure(height=rows)
        to_act = set(update.to_act)
        self._seat_font = getattr(self, "_seat_font", None) or tkfont.Font(self.frame, family=FONT, size=10)
        room = int(self.seats.column("name", "width")) - 6
        for seat in update.seats:
            name = safe_text(seat.name or _("(open)"), 24)
            tags = []
            if seat.index in to_act:
                tags.append("turn")
            mark = " " + _("(you)") if self.seat == seat.index else ""
            if mark:
                tags.append("you")
            if seat.kind == table_pb2.SEAT_KIND_BOT:  # "bot" plays normal; the others say how strong
                level = bot_level_name(seat.bot_level)
                state = _("bot") if level == "normal" else _("easy bot") if level == "easy" else _("hard bot")
            elif seat.kind == table_pb2.SEAT_KIND_EMPTY:
                state = _("open")
            elif seat.bot_controlled:
                state = _("by bot")
            else:
                state = _("online") if seat.connected else _("offline")
            # cut to the column with "…" (a Treeview would cut it without a word), "(you)" kept whole
            name = cut_to(self._seat_font.measure, name, room - self._seat_font.measure(mark)) + mark
            score = str(update.scores[seat.index]) if seat.index < len(update.scores) else ""
            turn = "▶" if seat.index in to_act else ""
            self.seats.insert("", "end", iid=f"seat{seat.index}", values=(turn, name, score, state), tags=tags)

    def _show_actions(self, update: table_pb2.Update) -> None:
        """The action bar: the legal actions, or the host's "Add a bot", or "Rematch" when it is over."""
        if self.gone:
            return
        hosting = bool(self.host_token) and update.status == table_pb2.TABLE_STATUS_LOBBY
        finished = update.status == table_pb2.TABLE_STATUS_FINISHED
        actions = self.offered_actions() if not hosting else []
        extra: list[tuple[str, Any]] = []
        if hosting:  # the host's controls that fill the waiting room (the rest are in the Host menu)
            # by what a control does, not by its words (they are in the person's language)
            bar = (self.host.add_bot, self.host.start_now)
            extra += [c for c in self.host.table_controls() if c[1] in bar]
        if finished:
            extra.append((_("Rematch"), self.rematch))
        key = (hosting, finished, tuple(a.id for a in actions), tuple(label for label, _ in extra))
        if key == getattr(self, "_shown", None):
            return
        self._shown = key
        note = _("Watching.") if self.token is None else _("Waiting for the other players…")
        if finished:
            note = _("The game is over.")
        self.bar.show(update, actions, "" if hosting else note, extra)

    @property
    def action_buttons(self) -> dict[str, ttk.Button]:
        """The bar's buttons that send one action, by its id."""
        return self.bar.by_id

    @property
    def host_button(self) -> ttk.Button | None:
        return self.bar_button(_("Add a bot"))

    def bar_button(self, text: str) -> ttk.Button | None:
        """The bar's button reading `text` (an extra such as "Rematch")."""
        for child in self.bar.row.winfo_children():
            if isinstance(child, ttk.Button) and child.cget("text") == text:
                return child
        return None

    # --- acting ---------------------------------------------------------------------------------------
    def offered_actions(self) -> list[table_pb2.LegalAction]:
        """The legal actions this screen offers now (none to a spectator, none once the table is gone)."""
        if self.latest is None or self.token is None or self.gone:
            return []
        return list(self.latest.legal_actions)

    def choose(self, actions: list[table_pb2.LegalAction], event: tk.Event[Any] | None) -> None:
        """A click on a drawn piece: one action is taken; several open their entry in the action bar (a
        wild card: its colours), or else a menu of their labels."""
        if not self.token:
            return
        if self.bar.path and self.bar.pick({a.id for a in actions}):
            return  # an entry of the open choice, drawn on the board (a colour swatch, a lit level)
        if len(actions) == 1:
            self.act(actions[0])
            return
        if self.bar.open({a.id for a in actions}):
            return
        if self.menu is not None:
            self.menu.destroy()
        menu = self.menu = tk.Menu(self.canvas, tearoff=False, font=(FONT, 10))
        for legal in actions:
            menu.add_command(label=safe_text(legal.label, 60), command=functools.partial(self.act, legal))
        x = event.x_root if event is not None else self.canvas.winfo_rootx()
        y = event.y_root if event is not None else self.canvas.winfo_rooty()
        menu.tk_popup(x, y)

    def act(self, legal: table_pb2.LegalAction, action_id: str | None = None, tries: int = 0) -> None:
        """Send the action id (or `action_id`, its toggled twin) with the version it was offered at. A move
        refused because the table moved on meanwhile is sent again if it is still offered (`_act_again`);
        any other refusal shows in the status line."""
        update = self.latest
        client = self.app.client
        if update is None or client is None or self.token is None or self.gone:
            return
        if self.acting is not None:
            self.set_status(_("Still sending your last move…"))
            return
        sent = action_id or legal.id
        label = safe_text(next((a.label for a in update.legal_actions if a.id == sent), legal.label), 80)
        version = update.version
        self.set_status(_("Sending: {move}", move=label))
        self.result_after, self.move_result = version, None

        def done(_response: Any) -> None:
            self.acting = None
            self.set_status("")
            self.move_label = label
            self._show_move()

        def refused(error: BaseException) -> None:
            self.acting = None
            self.result_after, self.move_result = None, None
            code = error.code() if isinstance(error, grpc.aio.AioRpcError) else None
            if code in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION):
                # Sent on a view the table has moved past (ABORTED), or no longer legal once it had: sent
                # again, or said in words, when the newer view is here; never the server's raw message.
                again = code == grpc.StatusCode.ABORTED
                self.stale = (sent, label, version, tries if again else STALE_RETRIES)
                if self.latest is not None and self.latest.version > version:
                    self._act_again()
                else:
                    self.set_status("" if again else f"Not accepted: {plain_refusal(error)}")
            else:
                self.set_status(_("Not accepted: {why}", why=explain(error)))

        self.acting = self.app.network.submit(client.act(self.table_id, self.token, version, sent), done, refused)

    def _act_again(self) -> None:
        """A move the table refused as sent on an older version: send it again when the newest update still
        offers it (another seat's simultaneous decision raised the version, nothing of yours changed);
        otherwise say in plain words that it came too late."""
        if self.stale is None or self.latest is None:
            return
        sent, label, _version, tries = self.stale
        self.stale = None
        again = next((a for a in self.offered_actions() if a.id == sent), None)
        if again is not None and tries < STALE_RETRIES:
            self.act(again, tries=tries + 1)
            return
        mine = self.seat is not None and self.seat in self.latest.to_act
        self.set_status(f"“{label}” came too late: the table had moved on, so it was not made."
                        + (" Choose again." if mine else ""))  # fmt: skip

    def _show_move(self) -> None:
        """Your own last move, and what came of it once the table says (the events of the update it made),
        under the action bar until you move again: the bots' moves after it never push it out of view."""
        said = " · ".join(self.move_result or [])
        if said:
            self.last_move_text = _("Your last move: {move} → {result}", move=self.move_label, result=said)
        else:
            self.last_move_text = _("Your last move: {move}", move=self.move_label)
        self._fit_last_move()

    def _fit_last_move(self) -> None:
        font = self._last_move_font = getattr(self, "_last_move_font", None) or tkfont.Font(
            self.frame, family=FONT, size=10
        )
        text = cut_to(font.measure, self.last_move_text, self.last_move.winfo_width() - 6)
        if self.last_move.cget("text") != text:
            self.last_move.configure(text=text)

    def set_status(self, text: str) -> None:
        self.status.configure(text=text)
        self.status_for = self.latest.status if text and self.latest is not None else None

    def back_to_lobby(self) -> None:
        """To the lobby, saying what happens to this person's seat while they are away (a bot plays it after
        the table's takeover time, until they Join again)."""
        self.app.show_lobby(self.leaving_note(), chosen=self.table_id)

    def leaving_hint(self) -> str:
        """What leaving would do to your seat, said while the pointer is on "Back to lobby" ("" when it
        does nothing to it: a spectator, a game not being played, a table without takeover)."""
        update, takeover = self.latest, self.table_info.takeover_seconds
        if self.seat is None or update is None or update.status != table_pb2.TABLE_STATUS_PLAYING:
            return ""
        if not takeover:
            return "Back to lobby: your seat waits for you until you Join again."
        return f"Back to lobby: a bot plays your seat after {takeover} s away, until you Join again."

    def _say_leaving(self) -> None:
        hint = self.leaving_hint()
        if hint and not self.status.cget("text"):
            self.set_status(hint)

    def _unsay_leaving(self) -> None:
        if self.status.cget("text") == self.leaving_hint():
            self.set_status("")

    def leaving_note(self) -> str:
        """What leaving does to the seat, in words (and the moment it was left, for the lobby's countdown)."""
        update = self.latest
        if self.seat is None or self.token is None or update is None:
            return ""
        if update.status != table_pb2.TABLE_STATUS_PLAYING:
            return ""
        self.app.left_tables[self.table_id] = time.monotonic()
        takeover = self.table_info.takeover_seconds
        name = safe_text(update.table_name or self.window_title, 30)
        back = "To go back, choose the table and Join."
        if not takeover:
            return f"You left {name}: your seat {self.seat + 1} waits for you. {back}"
        return (f"You left {name}: if you are not back within {takeover} s, a bot plays your seat {self.seat + 1} "
                f"until you are. {back}")  # fmt: skip

    def leave(self) -> None:
        self.left = True
        self.motion.cancel()
        if self.key_binding:
            self.app.root.unbind("<KeyPress>", self.key_binding)
            self.key_binding = ""
        self.host.leave()
        for call in (self.following, self.acting, self.rematching):
            if call is not None:
                call.cancel()
        if self.redraw_pending is not None:
            self.canvas.after_cancel(self.redraw_pending)
            self.redraw_pending = None
