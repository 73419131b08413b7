"""The connect screen (address and name, remembered between runs) and the lobby (tables; create, join,
watch).

It is for getting to a table. It runs no game and knows no rules: the create form is built from the
options each game declares (ListGames).
"""

from __future__ import annotations

import tkinter as tk
from tkinter import ttk
from typing import TYPE_CHECKING, Any

import grpc

from toadstool.api.v1 import table_pb2
from toadstool_clients.connection import describe_rpc_error, server_address
from toadstool_clients.seats import remember_seat, remembered_seat
from toadstool_clients.tk.games import FONT, safe_text

if TYPE_CHECKING:
    from toadstool_clients.tk.app import App

REFRESH_MS = 2000
STATUS_NAMES = {
    table_pb2.TABLE_STATUS_LOBBY: "waiting for players",
    table_pb2.TABLE_STATUS_PLAYING: "playing",
    table_pb2.TABLE_STATUS_FINISHED: "finished",
}


def explain(error: BaseException) -> str:
    """A failed call, in words for a person."""
    if isinstance(error, grpc.aio.AioRpcError):
        return describe_rpc_error(error)
    if isinstance(error, TimeoutError):
        return "the server cannot be reached (is it running, and is the address right?)"
    return str(error) or type(error).__name__


def draw_toadstool(canvas: tk.Canvas, cx: float, top: float, width: float) -> None:
    """The logo: a red-capped toadstool with white spots."""
    r = width / 2
    stem_top = top + r * 0.9
    canvas.create_rectangle(cx - r * 0.42, stem_top - 4, cx + r * 0.42, stem_top + r * 0.95, fill="#fff3e0",
                            outline="#5d4037", width=2)  # fmt: skip
    canvas.create_oval(cx - r * 0.2, stem_top + r * 0.2, cx - r * 0.06, stem_top + r * 0.5, fill="#222222")
    canvas.create_oval(cx + r * 0.06, stem_top + r * 0.2, cx + r * 0.2, stem_top + r * 0.5, fill="#222222")
    canvas.create_arc(cx - r, top, cx + r, top + r * 1.8, start=0, extent=180, fill="#e52521", outline="#7f1010",
                      width=2, style="chord")  # fmt: skip
    for dx, dy, size in ((0, 0.3, 0.3), (-0.62, 0.55, 0.22), (0.62, 0.55, 0.22)):
        x, y = cx + dx * r, top + dy * r
        canvas.create_oval(x - size * r, y - size * r * 0.8, x + size * r, y + size * r * 0.8, fill="white",
                           outline="")  # fmt: skip


class ConnectScreen:
    """Address and player name; Connect opens the channel off the Tk thread."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.frame = ttk.Frame(app.body, style="Shell.TFrame")
        self.pending: Any = None
        box = ttk.Frame(self.frame, style="Card.TFrame", padding=28)
        box.place(relx=0.5, rely=0.42, anchor="center")
        logo = tk.Canvas(box, width=96, height=84, background="#f4f1ea", highlightthickness=0)
        draw_toadstool(logo, 48, 6, 84)
        logo.grid(row=0, column=0, sticky="e", padx=(0, 8))
        tk.Label(box, text="Toadstool", font=(FONT, 28, "bold"), fg="#d32f2f", bg="#f4f1ea").grid(
            row=0, column=1, sticky="w", pady=(0, 4)
        )
        ttk.Label(box, text="Mario tabletop games on your LAN", style="Card.TLabel").grid(
            row=1, column=0, columnspan=2, pady=(0, 18)
        )
        ttk.Label(box, text="Server", style="Card.TLabel").grid(row=2, column=0, sticky="e", padx=6, pady=4)
        self.address = tk.StringVar(value=app.address)
        self.address_entry = ttk.Entry(box, textvariable=self.address, width=30)
        self.address_entry.grid(row=2, column=1, pady=4)
        ttk.Label(box, text="Your name", style="Card.TLabel").grid(row=3, column=0, sticky="e", padx=6, pady=4)
        self.name = tk.StringVar(value=app.player_name)
        ttk.Entry(box, textvariable=self.name, width=30).grid(row=3, column=1, pady=4)
        self.connect_button = ttk.Button(box, text="Connect", style="Big.TButton", command=self.connect)
        self.connect_button.grid(row=4, column=0, columnspan=2, pady=(16, 4))
        self.status = tk.Label(box, text="", bg="#f4f1ea", fg="#b71c1c", font=(FONT, 10), wraplength=360)
        self.status.grid(row=5, column=0, columnspan=2)
        self.address_entry.bind("<Return>", lambda _e: self.connect())
        # Servers announced on the LAN (mDNS): pick one instead of typing an address.
        ttk.Label(box, text="On your LAN", style="Card.TLabel").grid(row=6, column=0, sticky="ne", padx=6, pady=(14, 0))
        self.servers = tk.Listbox(box, height=4, width=46, activestyle="none", exportselection=False)
        self.servers.grid(row=6, column=1, pady=(14, 0), sticky="we")
        self.servers.bind("<<ListboxSelect>>", lambda _e: self.pick_server())
        self.servers.bind("<Double-Button-1>", lambda _e: self.connect())
        self.find_button = ttk.Button(box, text="Find servers", command=self.find_servers)
        self.find_button.grid(row=7, column=1, sticky="e", pady=4)
        self.found: list[Any] = []
        self.finding: Any = None
        self.find_servers()

    def find_servers(self) -> None:
        """Listen for announced servers for two seconds, off the Tk thread, and list them."""
        if self.finding is not None:
            return
        from toadstool_clients.discovery import browse_async

        self.find_button.state(["disabled"])
        self.found = []
        self.servers.delete(0, "end")
        self.servers.insert("end", "Looking for servers…")

        def done(found: list[Any]) -> None:
            self.finding = None
            self.find_button.state(["!disabled"])
            self.found = found
            self.servers.delete(0, "end")
            for server in found:
                self.servers.insert("end", safe_text(server.describe()))
            if not found:
                self.servers.insert("end", "No servers heard; type an address above.")

        def failed(error: BaseException) -> None:
            self.finding = None
            self.find_button.state(["!disabled"])
            self.servers.delete(0, "end")
            self.servers.insert("end", f"Could not listen on the LAN: {error}")

        self.finding = self.app.network.submit(browse_async(2.0, self.app.discovery_interfaces), done, failed)

    def pick_server(self) -> None:
        chosen = self.servers.curselection()
        if chosen and chosen[0] < len(self.found):
            self.address.set(self.found[chosen[0]].address)

    def connect(self) -> None:
        if self.pending is not None:
            return
        address = server_address(self.address.get().strip() or None)
        name = self.name.get().strip() or "Player"
        self.status.configure(text=f"Connecting to {address}…", fg="#555555")
        self.connect_button.state(["disabled"])
        from toadstool_clients.tk.app import open_client

        def done(result: Any) -> None:
            self.pending = None
            client, games = result
            self.app.connected(client, games, address, name)

        def failed(error: BaseException) -> None:
            self.pending = None
            self.connect_button.state(["!disabled"])
            self.status.configure(text=f"Could not connect: {explain(error)}", fg="#b71c1c")

        self.pending = self.app.network.submit(open_client(address, self.app.tls_ca), done, failed)

    def leave(self) -> None:
        for call in (self.pending, self.finding):
            if call is not None:
                call.cancel()


class LobbyScreen:
    """The tables on the server (refreshed every two seconds) and the form to create one."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.frame = ttk.Frame(app.body, style="Shell.TFrame", padding=14)
        self.tables: list[table_pb2.TableInfo] = []
        self.refreshing: Any = None
        self.busy: Any = None
        self.after_id: str | None = None
        self.left = False
        #: Tables this window created, for the host's "add a bot" (kept for the app's lifetime).
        self.host_tokens: dict[str, str] = app.host_tokens

        top = ttk.Frame(self.frame, style="Shell.TFrame")
        top.pack(fill="x")
        ttk.Label(top, text="Lobby", style="Title.TLabel").pack(side="left")
        ttk.Label(top, text=f"  {safe_text(app.player_name)} @ {app.address}", style="Sub.TLabel").pack(
            side="left", padx=8
        )
        ttk.Button(top, text="Disconnect", command=app.disconnect).pack(side="right")
        self.status = ttk.Label(self.frame, text="", style="Status.TLabel")
        self.status.pack(side="bottom", fill="x", pady=(8, 0))

        main = ttk.Frame(self.frame, style="Shell.TFrame")
        main.pack(fill="both", expand=True, pady=(10, 0))
        self.form = ttk.Frame(main, style="Card.TFrame", padding=12)
        self.form.pack(side="right", fill="y")
        self._build_form()
        tables_box = ttk.Frame(main, style="Card.TFrame", padding=10)
        tables_box.pack(side="left", fill="both", expand=True, padx=(0, 10))
        ttk.Label(tables_box, text="Tables", style="Card.TLabel", font=(FONT, 13, "bold")).pack(anchor="w")
        columns = ("name", "game", "seats", "status")
        self.tree = ttk.Treeview(tables_box, columns=columns, show="headings", selectmode="browse", height=14)
        headings = ("Table", "Game", "Seats", "Status")
        for column, title, width in zip(columns, headings, (150, 170, 200, 130), strict=True):
            self.tree.heading(column, text=title)
            self.tree.column(column, width=width, stretch=True)
        self.tree.pack(fill="both", expand=True, pady=6)
        self.tree.bind("<<TreeviewSelect>>", lambda _e: self._selected())
        self.tree.bind("<Double-1>", lambda _e: self.join())
        row = ttk.Frame(tables_box, style="Card.TFrame")
        row.pack(fill="x")
        ttk.Label(row, text="Seat", style="Card.TLabel").pack(side="left")
        self.seat_choice = tk.StringVar(value="any open")
        self.seat_box = ttk.Combobox(row, textvariable=self.seat_choice, width=10, state="readonly")
        self.seat_box["values"] = ("any open",)
        self.seat_box.pack(side="left", padx=6)
        self.join_button = ttk.Button(row, text="Join", command=self.join)
        self.join_button.pack(side="left", padx=4)
        self.watch_button = ttk.Button(row, text="Watch", command=self.watch)
        self.watch_button.pack(side="left", padx=4)
        ttk.Button(row, text="Refresh", command=self.refresh).pack(side="right")

        self.refresh()

    # --- the create form ------------------------------------------------------------------------
    def _build_form(self) -> None:
        form = self.form
        ttk.Label(form, text="New table", style="Card.TLabel", font=(FONT, 13, "bold")).grid(
            row=0, column=0, columnspan=2, sticky="w", pady=(0, 8)
        )
        titles = [f"{safe_text(g.title, 40)}" for g in self.app.games]
        self.game_var = tk.StringVar(value=titles[0] if titles else "")
        self.game_box = ttk.Combobox(form, textvariable=self.game_var, values=titles, state="readonly", width=34)
        self._row(1, "Game", self.game_box)
        self.game_box.bind("<<ComboboxSelected>>", lambda _e: self._game_changed())
        self.players_var = tk.StringVar(value="2")
        self.players_box = ttk.Spinbox(form, textvariable=self.players_var, from_=2, to=10, width=6)
        self._row(2, "Players", self.players_box)
        self.bots_var = tk.StringVar(value="1")
        self.bots_box = ttk.Spinbox(form, textvariable=self.bots_var, from_=0, to=9, width=6)
        self._row(3, "Bots", self.bots_box)
        self.seed_var = tk.StringVar(value="")
        self._row(4, "Seed", ttk.Entry(form, textvariable=self.seed_var, width=12))
        self.name_var = tk.StringVar(value="")
        self._row(5, "Table name", ttk.Entry(form, textvariable=self.name_var, width=24))
        self.options_frame = ttk.Frame(form, style="Card.TFrame")
        self.options_frame.grid(row=6, column=0, columnspan=2, sticky="ew", pady=(8, 0))
        self.option_vars: dict[str, tk.Variable] = {}
        self.create_button = ttk.Button(form, text="Create and sit down", style="Big.TButton", command=self.create)
        self.create_button.grid(row=7, column=0, columnspan=2, pady=(14, 0))
        self._game_changed()

    def _row(self, row: int, label: str, widget: tk.Widget) -> None:
        ttk.Label(self.form, text=label, style="Card.TLabel").grid(row=row, column=0, sticky="e", padx=6, pady=3)
        widget.grid(row=row, column=1, sticky="w", pady=3)

    def selected_game(self) -> table_pb2.GameInfo | None:
        for game in self.app.games:
            if safe_text(game.title, 40) == self.game_var.get():
                return game
        return self.app.games[0] if self.app.games else None

    def select_game(self, key: str) -> None:
        """Choose a game in the form by its registry key (for people and for tests)."""
        for game in self.app.games:
            if game.name == key:
                self.game_var.set(safe_text(game.title, 40))
        self._game_changed()

    def _game_changed(self) -> None:
        game = self.selected_game()
        # A fresh frame each time: an emptied grid keeps its old size in Tk.
        self.options_frame.destroy()
        self.options_frame = ttk.Frame(self.form, style="Card.TFrame")
        self.options_frame.grid(row=6, column=0, columnspan=2, sticky="ew", pady=(8, 0))
        self.option_vars = {}
        if game is None:
            return
        self.players_box.configure(from_=game.min_players, to=game.max_players)
        if not game.min_players <= int(self.players_var.get() or 0) <= game.max_players:
            self.players_var.set(str(game.min_players))
        self.bots_var.set(str(max(0, int(self.players_var.get()) - 1)))
        for row, option in enumerate(game.options):
            label = ttk.Label(self.options_frame, text=safe_text(option.name, 24), style="Card.TLabel")
            label.grid(row=2 * row, column=0, sticky="e", padx=6, pady=(4, 0))
            widget: tk.Widget
            if option.kind == "bool":
                var: tk.Variable = tk.BooleanVar(value=option.default_value.lower() == "true")
                widget = ttk.Checkbutton(self.options_frame, variable=var)
            elif option.kind == "choice" and option.choices:
                var = tk.StringVar(value=option.default_value)
                widget = ttk.Combobox(
                    self.options_frame, textvariable=var, values=list(option.choices), state="readonly", width=16
                )
            else:
                var = tk.StringVar(value=option.default_value)
                widget = ttk.Entry(self.options_frame, textvariable=var, width=18)
            widget.grid(row=2 * row, column=1, sticky="w", pady=(4, 0))
            self.option_vars[option.name] = var
            if option.help:
                ttk.Label(
                    self.options_frame,
                    text=safe_text(option.help, 80),
                    style="Card.TLabel",
                    foreground="#777777",
                    wraplength=220,
                    font=(FONT, 8),
                ).grid(row=2 * row + 1, column=1, sticky="w")

    def set_option(self, name: str, value: str) -> None:
        self.option_vars[name].set(value)

    def create(self) -> None:
        game = self.selected_game()
        if game is None or self.busy is not None or self.app.client is None:
            return
        try:
            players = int(self.players_var.get())
            bots = int(self.bots_var.get())
            seed = int(self.seed_var.get()) if self.seed_var.get().strip() else None
        except ValueError:
            self.status.configure(text="Players, bots and seed are whole numbers.")
            return
        options = {}
        for name, var in self.option_vars.items():
            value = var.get()  # type: ignore[no-untyped-call]
            options[name] = ("true" if value else "false") if isinstance(value, bool) else str(value)
        client = self.app.client
        name = (self.name_var.get().strip() or f"{safe_text(self.app.player_name, 16)}'s {game.title}")[:40].strip()
        player = self.app.player_name

        async def create_and_join() -> tuple[table_pb2.TableInfo, int | None, str | None]:
            created = await client.create_table(game.name, players, bots, options, seed, name)
            self.host_tokens[created.table.table_id] = created.host_token
            if bots >= players:
                return created.table, None, None
            joined = await client.join(created.table.table_id, player)
            return joined.table, joined.seat, joined.seat_token

        self.status.configure(text="Creating the table…")
        self.busy = self.app.network.submit(create_and_join(), self._go_to_table, self._failed)

    def _selected_table(self) -> table_pb2.TableInfo | None:
        selection = self.tree.selection()
        for table in self.tables:
            if selection and table.table_id == selection[0]:
                return table
        return None

    def _selected(self) -> None:
        table = self._selected_table()
        if table is None:
            return
        open_seats = [str(s.index + 1) for s in table.seats if s.kind == table_pb2.SEAT_KIND_EMPTY]
        self.seat_box["values"] = ("any open", *open_seats)
        self.seat_choice.set("any open")

    def join(self) -> None:
        table = self._selected_table()
        if table is None or self.busy is not None or self.app.client is None:
            self.status.configure(text="Choose a table first.")
            return
        mine = remembered_seat(self.app.address, table.table_id)
        if mine is not None and table.status != table_pb2.TABLE_STATUS_FINISHED:
            self._go_to_table((table, mine[0], mine[1]))  # back to the seat this machine holds
            return
        choice = self.seat_choice.get()
        seat = int(choice) - 1 if choice.isdigit() else None
        client = self.app.client

        async def join() -> tuple[table_pb2.TableInfo, int | None, str | None]:
            joined = await client.join(table.table_id, self.app.player_name, seat)
            return joined.table, joined.seat, joined.seat_token

        self.status.configure(text="Joining…")
        self.busy = self.app.network.submit(join(), self._go_to_table, self._failed)

    def watch(self) -> None:
        table = self._selected_table()
        if table is None:
            self.status.configure(text="Choose a table first.")
            return
        self._go_to_table((table, None, None))

    def _go_to_table(self, result: tuple[table_pb2.TableInfo, int | None, str | None]) -> None:
        self.busy = None
        table, seat, token = result
        if token is not None and seat is not None:
            remember_seat(self.app.address, table.table_id, seat, token)
        from toadstool_clients.tk.table import TableScreen

        self.app.show(TableScreen(self.app, table, seat, token, self.host_tokens.get(table.table_id)))

    def _failed(self, error: BaseException) -> None:
        self.busy = None
        self.status.configure(text=f"Not done: {explain(error)}")

    # --- the table list -------------------------------------------------------------------------
    def refresh(self) -> None:
        if self.left:
            return
        if self.after_id is not None:
            self.frame.after_cancel(self.after_id)
        self.after_id = self.frame.after(REFRESH_MS, self.refresh)
        if self.refreshing is not None or self.app.client is None:
            return
        self.refreshing = self.app.network.submit(self.app.client.list_tables(), self._listed, self._list_failed)

    def _listed(self, tables: list[table_pb2.TableInfo]) -> None:
        self.refreshing = None
        if self.left:
            return
        self.app.set_banner("")
        self.tables = tables
        selection = self.tree.selection()
        self.tree.delete(*self.tree.get_children())
        titles = {g.name: g.title for g in self.app.games}
        for table in tables:
            mine = remembered_seat(self.app.address, table.table_id)
            taken = [s for s in table.seats if s.kind != table_pb2.SEAT_KIND_EMPTY]
            names = ", ".join(safe_text(s.name, 14) for s in taken)
            seats = f"{len(taken)}/{len(table.seats)}" + (f": {names}" if names else "")
            self.tree.insert(
                "",
                "end",
                iid=table.table_id,
                values=(
                    safe_text(table.name or table.table_id, 30),
                    safe_text(titles.get(table.game, table.game), 40),
                    seats,
                    STATUS_NAMES.get(table.status, "?")
                    + (f", {table.open_seats} open" if table.open_seats else "")
                    + (f" · your seat {mine[0] + 1}" if mine else ""),
                ),
            )
        if selection and selection[0] in {t.table_id for t in tables}:
            self.tree.selection_set(selection[0])

    def _list_failed(self, error: BaseException) -> None:
        self.refreshing = None
        if not self.left:
            self.app.set_banner(f"Server lost: {explain(error)} Retrying…")

    def leave(self) -> None:
        self.left = True
        if self.after_id is not None:
            self.frame.after_cancel(self.after_id)
        for call in (self.refreshing, self.busy):
            if call is not None:
                call.cancel()
