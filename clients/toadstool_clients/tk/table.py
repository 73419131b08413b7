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
from tkinter import ttk
from typing import TYPE_CHECKING, Any

import grpc

from toadstool.api.v1 import table_pb2
from toadstool_clients.connection import StreamState
from toadstool_clients.tk.games import FONT, Board, ClickTarget, bind_clicks, draw_game, safe_text
from toadstool_clients.tk.lobby import STATUS_NAMES, explain

if TYPE_CHECKING:
    from toadstool_clients.tk.app import App

ROLL_HIGHLIGHT_S = 1.6
#: The smallest drawing the game screens are designed for; a smaller canvas scrolls.
MIN_WIDTH, MIN_HEIGHT = 640, 440
DIE_FACES = "⚀⚁⚂⚃⚄⚅"


class TableScreen:
    """One table, as a seat or as a spectator."""

    def __init__(
        self,
        app: App,
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
        self.action_buttons: dict[str, ttk.Button] = {}
        self.host_button: ttk.Button | None = None
        self.menu: tk.Menu | None = None
        self.shown_actions: tuple[str, ...] = ()
        self.acting: Any = None
        self.following: Any = None
        self.connected = True
        self.redraw_pending: str | None = None
        self.roll: tuple[table_pb2.DieRoll, float] | None = None
        self.fallback_note = ""
        self.left = False
        self.draw_count = 0

        self.frame = ttk.Frame(app.body, style="Shell.TFrame")
        header = tk.Frame(self.frame, background="#1d2230")
        header.pack(side="top", fill="x", padx=10, pady=(8, 4))
        # The right-hand widgets are packed first so that a long phase squeezes itself, not the button.
        ttk.Button(header, text="Back to lobby", command=self.back_to_lobby).pack(side="right")
        self.role = tk.Label(header, text="", font=(FONT, 10), fg="#b0bec5", bg="#1d2230")
        self.role.pack(side="right", padx=10)
        self.title = tk.Label(header, text=safe_text(table.name or table.table_id, 30), font=(FONT, 16, "bold"),
                              fg="#ffd54a", bg="#1d2230")  # fmt: skip
        self.title.pack(side="left")
        self.phase = tk.Label(header, text="", font=(FONT, 13, "bold"), fg="white", bg="#1d2230", anchor="w")
        self.phase.pack(side="left", padx=18, fill="x", expand=True)

        bottom = tk.Frame(self.frame, background="#1d2230")
        bottom.pack(side="bottom", fill="x", padx=10, pady=(0, 8))
        self.status = tk.Label(bottom, text="", font=(FONT, 10, "bold"), fg="#ffb74d", bg="#1d2230", anchor="w")
        self.status.pack(side="bottom", fill="x")
        self.actions_text = tk.Text(bottom, height=3, background="#263046", borderwidth=0, highlightthickness=0,
                                    wrap="char", cursor="arrow", padx=6, pady=6)  # fmt: skip
        self.actions_text.pack(side="left", fill="x", expand=True)
        scroll = ttk.Scrollbar(bottom, orient="vertical", command=self.actions_text.yview)
        scroll.pack(side="right", fill="y")
        self.actions_text.configure(yscrollcommand=scroll.set, state="disabled")

        middle = ttk.PanedWindow(self.frame, orient="horizontal")
        middle.pack(fill="both", expand=True, padx=10, pady=4)
        holder = tk.Frame(middle, background="#1d2230")
        holder.rowconfigure(0, weight=1)
        holder.columnconfigure(0, weight=1)
        self.canvas = tk.Canvas(holder, background="#1f6f43", highlightthickness=0, width=860, height=560)
        self.canvas.grid(row=0, column=0, sticky="nsew")
        # Below the smallest size a screen is designed for, the drawing scrolls instead of squashing.
        self.vbar = ttk.Scrollbar(holder, orient="vertical", command=self.canvas.yview)
        self.hbar = ttk.Scrollbar(holder, orient="horizontal", command=self.canvas.xview)
        self.canvas.configure(yscrollcommand=self.vbar.set, xscrollcommand=self.hbar.set)
        middle.add(holder, weight=4)
        side = ttk.Frame(middle, style="Card.TFrame", padding=6)
        middle.add(side, weight=1)
        ttk.Label(side, text="Seats", style="Card.TLabel", font=(FONT, 11, "bold")).pack(anchor="w")
        self.seats = ttk.Treeview(side, columns=("turn", "name", "score", "state"), show="headings", height=7,
                                  selectmode="none")  # fmt: skip
        for column, title, width in (("turn", "", 22), ("name", "Player", 110), ("score", "Score", 84),
                                     ("state", "", 56)):  # fmt: skip
            self.seats.heading(column, text=title)
            self.seats.column(column, width=width, stretch=column == "name", anchor="w")
        self.seats.tag_configure("turn", background="#fff3c4")
        self.seats.tag_configure("you", foreground="#0d47a1")
        self.seats.pack(fill="x", pady=(2, 8))
        ttk.Label(side, text="Events", style="Card.TLabel", font=(FONT, 11, "bold")).pack(anchor="w")
        self.log = tk.Text(side, width=30, height=12, wrap="word", background="#fbfaf6", borderwidth=0,
                           font=(FONT, 9), state="disabled")  # fmt: skip
        self.log.tag_configure("roll", foreground="#6a1b9a", font=(FONT, 9, "bold"))
        self.log.pack(fill="both", expand=True)
        self.canvas.bind("<Configure>", lambda _e: self.schedule_redraw(60))
        self.board: Board | None = None
        bind_clicks(self.canvas, lambda: self.board)

        self.role.configure(text="spectator" if seat is None else f"you are seat {seat + 1}")
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
        if not self.left:
            self.app.set_banner(f"Stopped following the table: {explain(error)}")

    def receive(self, item: table_pb2.Update | StreamState) -> None:
        """A stream item on the Tk thread: log events at once, draw the latest view soon."""
        if self.left:
            return
        if isinstance(item, StreamState):
            self.connected = item.connected
            if item.connected:
                self.app.set_banner("")
                self.set_status("Reconnected to the server.")
            else:
                self.app.set_banner(f"Connection to the server lost ({item.message}). Reconnecting…")
            return
        for event in item.events:
            self.log_event(event)
        self.latest = item
        if item.table_name and item.table_name != self.window_title:
            self.window_title = item.table_name
            self.app.set_title(item.table_name)
            self.title.configure(text=safe_text(item.table_name, 30))
        self.schedule_redraw(0)

    def log_event(self, event: table_pb2.Event) -> None:
        text = safe_text(event.text, 300)
        tag: tuple[str, ...] = ()
        if event.HasField("roll"):
            value = event.roll.value
            face = DIE_FACES[value - 1] if 1 <= value <= 6 else str(value)
            text = f"{face} {text}"
            tag = ("roll",)
            self.roll = (event.roll, time.monotonic())
            self.canvas.after(int(ROLL_HIGHLIGHT_S * 1000) + 50, lambda: self.schedule_redraw(0))
        self.log.configure(state="normal")
        self.log.insert("end", text + "\n", tag)
        lines = int(self.log.index("end-1c").split(".")[0])
        if lines > 400:
            self.log.delete("1.0", f"{lines - 400}.0")
        self.log.configure(state="disabled")
        self.log.see("end")

    # --- drawing ------------------------------------------------------------------------------------
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
        self.canvas.delete("all")
        self.canvas.configure(cursor="")
        board = Board(self.canvas, width, height, update, self.choose)
        self.board = board
        if update.status == table_pb2.TABLE_STATUS_LOBBY and update.view.WhichOneof("game") is None:
            self._draw_waiting(board)
            self.fallback_note = ""
        else:
            self.fallback_note = draw_game(board)
        self.targets = board.targets
        self._draw_roll(board)
        self._draw_outcome(board)
        self._show_header(update)
        self._show_seats(update)
        self._show_actions(update)

    def _draw_roll(self, board: Board) -> None:
        """The latest die roll, big and highlighted for a moment after it happens."""
        if self.roll is None:
            return
        roll, when = self.roll
        fresh = time.monotonic() - when < ROLL_HIGHLIGHT_S
        size = 56 if fresh else 36
        x, y = board.width - size - 18, 16
        if fresh:
            board.rounded(x - 150, y - 8, x + size + 10, y + size + 8, 12, fill="#263238", outline="#ffd54a", width=2)
        board.die(x, y, size, roll.value, highlight=fresh)
        who = board.seat_name(roll.roller)
        board.text(x - 10, y + size / 2, f"{who}\n{safe_text(roll.purpose, 16)}: {roll.value}",
                   10 if fresh else 9, "bold", anchor="e", justify="right")  # fmt: skip

    def _draw_waiting(self, board: Board) -> None:
        """Before the game starts: the seats as places round a table, open ones dashed."""
        update = board.update
        w, h = board.width, board.height
        self.canvas.configure(background="#263046")
        board.text(w / 2, 60, "Waiting for players", 22, "bold", fill="#ffd54a")
        board.text(w / 2, 96, f"{safe_text(update.phase, 80)} · table {safe_text(update.table_id, 20)}", 12,
                   fill="#cfd8dc")  # fmt: skip
        count = max(1, len(update.seats))
        slot = min(150.0, (w - 60) / count)
        left = (w - slot * count) / 2
        for seat in update.seats:
            x = left + seat.index * slot + slot / 2
            y = h / 2
            empty = seat.kind == table_pb2.SEAT_KIND_EMPTY
            fill = "" if empty else board.seat_colour(seat.index)
            board.canvas.create_oval(x - 40, y - 40, x + 40, y + 40, fill=fill, outline="white", width=3,
                                     dash=(6, 4) if empty else ())  # fmt: skip
            label = "open" if empty else board.seat_name(seat.index)
            board.text(x, y + 56, label, 11, "bold", fill="#90a4ae" if empty else "white")
            if seat.index == self.seat:
                board.text(x, y, "you", 12, "bold")
            elif seat.kind == table_pb2.SEAT_KIND_BOT:
                board.text(x, y, "bot", 12, "bold")
        if self.host_token:
            board.text(w / 2, h - 60, "You host this table: add bots below, or wait for friends to join.", 11,
                       fill="#cfd8dc")  # fmt: skip

    def add_bot(self) -> None:
        """The host fills one open seat with a bot."""
        client = self.app.client
        if client is None or self.host_token is None:
            return
        self.set_status("Adding a bot…")
        self.app.network.submit(
            client.add_bot(self.table_id, self.host_token),
            lambda seat: self.set_status(f"A bot sits in seat {seat + 1}."),
            lambda error: self.set_status(f"No bot added: {explain(error)}"),
        )

    def _draw_outcome(self, board: Board) -> None:
        update = board.update
        if update.status != table_pb2.TABLE_STATUS_FINISHED:
            return
        winners = ", ".join(board.seat_name(w) for w in update.outcome.winners) or "nobody"
        summary = safe_text(update.outcome.summary, 80)
        w, h = board.width, board.height
        half = min(260, w / 2 - 20)
        board.rounded(w / 2 - half, h / 2 - 60, w / 2 + half, h / 2 + 60, 22, fill="#fff8e1", outline="#f9a825",
                      width=4)  # fmt: skip
        board.text(w / 2, h / 2 - 22, f"★ {winners} won! ★", 20 if half > 200 else 15, "bold", fill="#c62828")
        board.text(w / 2, h / 2 + 18, summary or "Game over", 12 if half > 200 else 10, fill="#333333",
                   width=2 * half - 40, justify="center")  # fmt: skip

    def _show_header(self, update: table_pb2.Update) -> None:
        phase = safe_text(update.phase or STATUS_NAMES.get(update.status, ""), 90)
        mine = self.seat is not None and self.seat in update.to_act
        self.phase.configure(text=("▶ " if mine else "") + phase, fg="#ffeb3b" if mine else "white")

    def _show_seats(self, update: table_pb2.Update) -> None:
        self.seats.heading("score", text=safe_text(update.score_label, 12).capitalize() or "Score")
        self.seats.delete(*self.seats.get_children())
        to_act = set(update.to_act)
        for seat in update.seats:
            name = safe_text(seat.name or "(open)", 24)
            tags = []
            if seat.index in to_act:
                tags.append("turn")
            if self.seat == seat.index:
                name += " (you)"
                tags.append("you")
            if seat.kind == table_pb2.SEAT_KIND_BOT:
                state = "bot"
            elif seat.kind == table_pb2.SEAT_KIND_EMPTY:
                state = "open"
            else:
                state = "online" if seat.connected else "offline"
            score = str(update.scores[seat.index]) if seat.index < len(update.scores) else ""
            self.seats.insert("", "end", values=("▶" if seat.index in to_act else "", name, score, state),
                              tags=tags)  # fmt: skip

    def _show_actions(self, update: table_pb2.Update) -> None:
        ids = tuple(a.id for a in update.legal_actions) if self.token else ()
        hosting = bool(self.host_token) and update.status == table_pb2.TABLE_STATUS_LOBBY
        if hosting:
            ids = ("(add bot)",)
        if ids == self.shown_actions and (self.action_buttons or hosting):
            return
        self.shown_actions = ids
        self.action_buttons = {}
        text = self.actions_text
        text.configure(state="normal")
        for child in text.winfo_children():
            child.destroy()
        text.delete("1.0", "end")
        if hosting:
            button = ttk.Button(text, text="Add a bot", style="Action.TButton", command=self.add_bot)
            text.window_create("end", window=button, padx=3, pady=3)
            self.host_button = button
        elif not ids:
            waiting = "Watching." if self.token is None else "Waiting for the other players…"
            if update.status == table_pb2.TABLE_STATUS_FINISHED:
                waiting = "The game is over."
            text.insert("end", waiting)
            text.configure(foreground="#cfd8dc", font=(FONT, 10, "italic"))
        for legal in update.legal_actions if self.token else ():
            button = ttk.Button(text, text=safe_text(legal.label, 60), style="Action.TButton",
                                command=functools.partial(self.act, legal))  # fmt: skip
            text.window_create("end", window=button, padx=3, pady=3)
            self.action_buttons[legal.id] = button
        text.configure(state="disabled")

    # --- acting ---------------------------------------------------------------------------------------
    def choose(self, actions: list[table_pb2.LegalAction], event: tk.Event[Any] | None) -> None:
        """A click on a drawn piece: one action is taken, several open a menu of their labels."""
        if not self.token:
            return
        if len(actions) == 1:
            self.act(actions[0])
            return
        if self.menu is not None:
            self.menu.destroy()
        menu = self.menu = tk.Menu(self.canvas, tearoff=False, font=(FONT, 10))
        for legal in actions:
            menu.add_command(label=safe_text(legal.label, 60), command=functools.partial(self.act, legal))
        x = event.x_root if event is not None else self.canvas.winfo_rootx()
        y = event.y_root if event is not None else self.canvas.winfo_rooty()
        menu.tk_popup(x, y)

    def act(self, legal: table_pb2.LegalAction) -> None:
        """Send the action id with the version it was offered at; a refusal shows in the status line."""
        update = self.latest
        client = self.app.client
        if update is None or client is None or self.token is None:
            return
        if self.acting is not None:
            self.set_status("Still sending your last move…")
            return
        self.set_status(f"Sending: {safe_text(legal.label, 60)}")

        def done(_response: Any) -> None:
            self.acting = None
            self.set_status("")

        def refused(error: BaseException) -> None:
            self.acting = None
            if isinstance(error, grpc.aio.AioRpcError) and error.code() == grpc.StatusCode.ABORTED:
                self.set_status("The table moved on before your move arrived; choose again.")
            else:
                self.set_status(f"Not accepted: {explain(error)}")

        self.acting = self.app.network.submit(
            client.act(self.table_id, self.token, update.version, legal.id), done, refused
        )

    def set_status(self, text: str) -> None:
        self.status.configure(text=text)

    def back_to_lobby(self) -> None:
        from toadstool_clients.tk.lobby import LobbyScreen

        self.app.show(LobbyScreen(self.app))

    def leave(self) -> None:
        self.left = True
        for call in (self.following, self.acting):
            if call is not None:
                call.cancel()
        if self.redraw_pending is not None:
            self.canvas.after_cancel(self.redraw_pending)
            self.redraw_pending = None
