"""The lobby: the server's tables (live ones first; create, join, watch), and the create form that remembers
its last values.

It is for getting to a table. It runs no game and knows no rules: the create form is built from the
options each game declares (ListGames).
"""

from __future__ import annotations

import functools
import re
import time
import tkinter as tk
import tkinter.font as tkfont
from collections.abc import Callable
from tkinter import ttk
from typing import TYPE_CHECKING, Any

from toadstool.api.v1 import table_pb2
from toadstool_clients.i18n import _
from toadstool_clients.names import BOT_LEVELS
from toadstool_clients.seats import remembered_seat
from toadstool_clients.tk.connect import explain
from toadstool_clients.tk.games import FONT, cut_to, safe_text

if TYPE_CHECKING:
    from toadstool_clients.tk.shell import Shell

REFRESH_MS = 2000
#: The lobby's height below which options' help moves from the form to the status line.
HELP_HEIGHT = 640
#: The lobby's width from which the create form's game box shows every game's title whole.
WIDE_LOBBY = 880
STATUS_NAMES = {
    table_pb2.TABLE_STATUS_LOBBY: "waiting for players",
    table_pb2.TABLE_STATUS_PLAYING: "playing",
    table_pb2.TABLE_STATUS_FINISHED: "finished",
}


async def create_and_sit(
    client: Any,
    host_tokens: dict[str, str],
    game: str,
    players: int,
    bots: int,
    options: dict[str, str],
    seed: int | None,
    name: str,
    player: str,
    bot_level: int = 0,
) -> tuple[table_pb2.TableInfo, int | None, str | None]:
    """Create a table and sit down at it (runs on the network thread); with every seat a bot, only watch
    it. Its bots play at `bot_level` (service.proto's BotLevel; 0: normal). Returns the table, the seat and
    its token (None, None: watching)."""
    created = await client.create_table(game, players, bots, options, seed, name, bot_level=bot_level)
    host_tokens[created.table.table_id] = created.host_token
    if bots >= players:
        return created.table, None, None
    joined = await client.join(created.table.table_id, player)
    return joined.table, joined.seat, joined.seat_token


def option_title(name: str) -> str:
    """An option's name as a form label: "track" -> "Track", "hand_size" -> "Hand size"."""
    text = name.replace("_", " ").replace("-", " ").strip()
    return text[:1].upper() + text[1:]


def choice_title(value: str) -> str:
    """A choice's id as a person reads it: "mushroom-loop" -> "Mushroom Loop" (ids with no dash or underscore,
    such as "classic", are only capitalised)."""
    words = re.split(r"[-_]+", value.strip())
    return " ".join(word[:1].upper() + word[1:] for word in words if word) or value


#: A hint about the command line inside an option's help ("(`toadstool tracks` lists them)"): of no use in a
#: window, and cut from what the form shows.
_COMMAND_HINT = re.compile(r"\s*\([^()]*`[^`]*`[^()]*\)|\s*`[^`]*`")


def window_help(text: str) -> str:
    """An option's help without the command-line hints it may carry for the terminal."""
    return _COMMAND_HINT.sub("", text).strip()


def seat_truth(table: table_pb2.TableInfo, seat: int, left_at: float | None, now: float) -> str:
    """What is true of this person's seat at a table, in words: "your seat 2", "your seat 2: a bot plays it
    until you are back", or, while it waits for them after they left (`left_at`, on the clock of `now`), when
    a bot will take it over."""
    mine = next((s for s in table.seats if s.index == seat), None)
    said = f"your seat {seat + 1}"
    if mine is None or table.status != table_pb2.TABLE_STATUS_PLAYING:
        return said
    if mine.bot_controlled:
        return f"{said}: a bot plays it until you are back (Join)"
    if mine.connected or not table.takeover_seconds:
        return said
    if left_at is None:
        return f"{said}: away; a bot plays it after {table.takeover_seconds} s away"
    remaining = max(0, round(table.takeover_seconds - (now - left_at)))
    return f"{said}: away; a bot plays it in {remaining} s" if remaining else f"{said}: a bot takes it now"


def sort_tables(tables: list[table_pb2.TableInfo], show_finished: bool) -> list[table_pb2.TableInfo]:
    """Live tables first (open ones before those being played), finished ones last or not at all."""
    rank = {table_pb2.TABLE_STATUS_LOBBY: 0, table_pb2.TABLE_STATUS_PLAYING: 1}
    shown = [t for t in tables if show_finished or t.status != table_pb2.TABLE_STATUS_FINISHED]
    return sorted(shown, key=lambda t: (rank.get(t.status, 2), (t.name or t.table_id).lower()))


class LobbyScreen:
    """The tables on the server (refreshed every two seconds) and the form to create one."""

    def __init__(self, app: Shell, note: str = "", chosen: str | None = None) -> None:
        self.app = app
        self.frame = ttk.Frame(app.body, style="Shell.TFrame", padding=14)
        #: The full text of each listed table's cells (the list shows them cut to their columns, with "…").
        self.cells: dict[str, tuple[str, ...]] = {}
        self.cell_font = tkfont.Font(app.root, family=FONT, size=10)
        #: The choice options' titles by id, per option ("mushroom-loop" is shown as "Mushroom Loop").
        self.choice_ids: dict[str, dict[str, str]] = {}
        #: The table to choose in the list once it is there (the one just left).
        self.chosen = chosen
        self.tables: list[table_pb2.TableInfo] = []
        self.refreshing: Any = None
        self.busy: Any = None
        self.after_id: str | None = None
        self.left = False
        #: Tables this window created, for the host's "add a bot" (kept for the app's lifetime).
        self.host_tokens: dict[str, str] = app.host_tokens

        top = ttk.Frame(self.frame, style="Shell.TFrame")
        top.pack(fill="x")
        ttk.Label(top, text=_("Lobby"), style="Title.TLabel").pack(side="left")
        ttk.Label(top, text=f"  {safe_text(app.player_name)} @ {app.address}", style="Sub.TLabel").pack(
            side="left", padx=8
        )
        ttk.Button(top, text=_("Disconnect"), command=app.disconnect).pack(side="right")
        self.frame.bind("<Configure>", lambda e: self._fit_form(e.width, e.height))
        self.status = ttk.Label(self.frame, text=note, style="Status.TLabel", wraplength=600)
        self.status.pack(side="bottom", fill="x", pady=(8, 0))
        self.status.bind("<Configure>", lambda e: self.status.configure(wraplength=max(200, e.width - 4)))

        main = ttk.Frame(self.frame, style="Shell.TFrame")
        main.pack(fill="both", expand=True, pady=(10, 0))
        self.form = ttk.Frame(main, style="Card.TFrame", padding=12)
        self.form.pack(side="right", fill="y")
        self._build_form()
        tables_box = ttk.Frame(main, style="Card.TFrame", padding=10)
        tables_box.pack(side="left", fill="both", expand=True, padx=(0, 10))
        heading = ttk.Frame(tables_box, style="Card.TFrame")
        heading.pack(fill="x")
        ttk.Label(heading, text=_("Tables"), style="Card.TLabel", font=(FONT, 13, "bold")).pack(side="left")
        self.show_finished = tk.BooleanVar(heading, value=False)
        self.finished_box = ttk.Checkbutton(
            heading, text=_("show finished"), variable=self.show_finished, command=self._show_list
        )
        ttk.Button(heading, text=_("Refresh"), command=self.refresh).pack(side="right")
        self.finished_box.pack(side="right", padx=6)
        columns = ("name", "game", "seats", "status")
        self.tree = ttk.Treeview(tables_box, columns=columns, show="headings", selectmode="browse", height=8)
        headings = (_("Table"), _("Game"), _("Players"), _("Status"))
        # Narrow enough to fit a 760-pixel window; every column stretches with a wider one.
        for column, title, width in zip(columns, headings, (110, 116, 66, 114), strict=True):
            self.tree.heading(column, text=title, anchor="w")
            self.tree.column(column, width=width, minwidth=60, stretch=column != "seats", anchor="w")
        self.tree.pack(fill="both", expand=True, pady=6)
        self.tree.bind("<<TreeviewSelect>>", lambda _e: self._selected())
        self.tree.bind("<Configure>", lambda _e: self.tree.after_idle(self._fit_cells))
        self.tree.bind("<Double-1>", lambda _e: self.join())
        row = ttk.Frame(tables_box, style="Card.TFrame")
        row.pack(side="bottom", fill="x", before=self.tree)  # the buttons keep their room; the list shrinks
        # The chosen table in full (the list's cells are cut to their columns).
        self.detail = ttk.Label(tables_box, text="", style="Card.TLabel", wraplength=400, foreground="#37474f")
        self.detail.pack(side="bottom", fill="x", before=self.tree)
        self.detail.bind("<Configure>", lambda e: self.detail.configure(wraplength=max(200, e.width - 4)))
        ttk.Label(row, text=_("Seat"), style="Card.TLabel").pack(side="left")
        self.seat_choice = tk.StringVar(row, value=_("any open"))
        self.seat_box = ttk.Combobox(row, textvariable=self.seat_choice, width=8, state="readonly")
        self.seat_box["values"] = (_("any open"),)
        self.seat_box.pack(side="left", padx=6)
        # as wide as their words (German ones are longer), so the row fits the narrowest window
        self.join_button = ttk.Button(row, text=_("Join"), command=self.join, width=max(6, len(_("Join")) + 2))
        self.join_button.pack(side="left", padx=4)
        self.watch_button = ttk.Button(row, text=_("Watch"), command=self.watch, width=max(6, len(_("Watch")) + 2))
        self.watch_button.pack(side="left", padx=4)

        self.refresh()

    # --- the create form ------------------------------------------------------------------------
    def _build_form(self) -> None:
        form = self.form
        ttk.Label(form, text=_("New table"), style="Card.TLabel", font=(FONT, 13, "bold")).grid(
            row=0, column=0, columnspan=2, sticky="w", pady=(0, 8)
        )
        titles = [f"{safe_text(g.title, 40)}" for g in self.app.games]
        self.game_var = tk.StringVar(form, value=titles[0] if titles else "")
        #: The game box's width in a wide window: every title whole (a narrow one cuts the longest).
        self.game_box_wide = max(24, min(40, max((len(title) for title in titles), default=24) + 1))
        self.game_box = ttk.Combobox(form, textvariable=self.game_var, values=titles, state="readonly", width=24)
        self._row(1, _("Game"), self.game_box)
        self.game_box.bind("<<ComboboxSelected>>", lambda _e: self._game_changed())
        self.players_var = tk.StringVar(form, value="2")
        self.players_box = ttk.Spinbox(form, textvariable=self.players_var, from_=2, to=10, width=6)
        self._row(2, _("Players"), self.players_box)
        self.bots_var = tk.StringVar(form, value="1")
        bots_row = ttk.Frame(form, style="Card.TFrame")
        self.bots_box = ttk.Spinbox(bots_row, textvariable=self.bots_var, from_=0, to=9, width=6)
        self.bots_box.pack(side="left")
        #: How strong the table's bots play; the host can change each bot's level at the table.
        self.level_var = tk.StringVar(form, value=_("normal"))
        levels = [_(word) for word in BOT_LEVELS.values()]
        self.level_box = ttk.Combobox(bots_row, textvariable=self.level_var, values=levels, state="readonly", width=8)
        self.level_box.pack(side="left", padx=(8, 0))
        self._row(3, _("Bots"), bots_row)
        self.seed_var = tk.StringVar(form, value="")
        self._row(4, _("Seed"), ttk.Entry(form, textvariable=self.seed_var, width=12))
        self.name_var = tk.StringVar(form, value="")
        self._row(5, _("Table name"), ttk.Entry(form, textvariable=self.name_var, width=20))
        self.options_frame = ttk.Frame(form, style="Card.TFrame")
        self.options_frame.grid(row=6, column=0, columnspan=2, sticky="ew", pady=(8, 0))
        self.option_vars: dict[str, tk.Variable] = {}
        self.create_button = ttk.Button(form, text=_("Create and sit down"), style="Big.TButton", command=self.create)
        self.create_button.grid(row=7, column=0, columnspan=2, pady=(14, 0))
        self.seat_note = ttk.Label(form, text="", style="Card.TLabel", foreground="#b71c1c", wraplength=260)
        self.seat_note.grid(row=8, column=0, columnspan=2, pady=(4, 0))
        for var in (self.players_var, self.bots_var):
            var.trace_add("write", lambda *_args: self._seats_changed())
        self._game_changed()
        self._restore_form()

    def _bind_return(self, frame: tk.Misc) -> None:
        """Return in any field of the form creates the table, as its button would."""
        for child in frame.winfo_children():
            if isinstance(child, ttk.Entry | ttk.Checkbutton):  # Spinbox and Combobox are Entries
                child.bind("<Return>", lambda _e: self.create())
            self._bind_return(child)

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
        self.choice_ids = {}
        if getattr(self, "hinting", False):  # another game's option help is stale now
            self.status.configure(text="")
            self.hinting = False
        self.help_labels: list[ttk.Label] = []
        if game is None:
            return
        self.players_box.configure(from_=game.min_players, to=game.max_players)
        if not game.min_players <= int(self.players_var.get() or 0) <= game.max_players:
            self.players_var.set(str(game.min_players))
        self.bots_var.set(str(max(0, int(self.players_var.get()) - 1)))
        for row, option in enumerate(game.options):
            title = option.label or option_title(option.name)  # the server's, in the person's language
            label = ttk.Label(self.options_frame, text=safe_text(title, 24), style="Card.TLabel")
            label.grid(row=2 * row, column=0, sticky="e", padx=6, pady=(4, 0))
            widget: tk.Widget
            if option.kind == "bool":
                var: tk.Variable = tk.BooleanVar(self.options_frame, value=option.default_value.lower() == "true")
                widget = ttk.Checkbutton(self.options_frame, variable=var)
            elif option.kind == "choice" and option.choices:
                labels = list(option.choice_labels)  # a track's title, in the person's language
                if len(labels) != len(option.choices):  # an older server: the ids as titles
                    labels = [choice_title(choice) for choice in option.choices]
                shown = {safe_text(label, 40): choice for label, choice in zip(labels, option.choices, strict=True)}
                if len(shown) < len(option.choices):  # two ids read alike: show the ids
                    shown = {safe_text(choice, 40): choice for choice in option.choices}
                self.choice_ids[option.name] = shown
                titles_of = {choice: title for title, choice in shown.items()}
                var = tk.StringVar(self.options_frame, value=titles_of.get(option.default_value, option.default_value))
                widget = ttk.Combobox(self.options_frame, textvariable=var, values=list(shown), state="readonly",
                                      width=max(16, min(30, max(len(t) for t in shown) + 1)))  # fmt: skip
            else:
                var = tk.StringVar(self.options_frame, value=option.default_value)
                widget = ttk.Entry(self.options_frame, textvariable=var, width=18)
            widget.grid(row=2 * row, column=1, sticky="w", pady=(4, 0))
            self.option_vars[option.name] = var
            remembered = self.app.form_memory.get(f"options:{game.name}", {})
            if isinstance(remembered, dict) and option.name in remembered:
                value = str(remembered[option.name])
                if option.name in self.choice_ids:
                    titles_of = {choice: title for title, choice in self.choice_ids[option.name].items()}
                    value = titles_of.get(value, value)
                var.set(value.lower() == "true" if isinstance(var, tk.BooleanVar) else value)
            help_text = window_help(option.help)
            if help_text:
                help_label = ttk.Label(
                    self.options_frame,
                    text=safe_text(help_text, 80),
                    style="Card.TLabel",
                    foreground="#777777",
                    wraplength=220,
                    font=(FONT, 8),
                )
                help_label.grid(row=2 * row + 1, column=1, sticky="w")
                self.help_labels.append(help_label)
                hint = functools.partial(self._hint, help_text)
                for hovered in (label, widget):  # in a short window the help is in the status line instead
                    hovered.bind("<Enter>", functools.partial(_hover, hint), add="+")
        self._bind_return(self.form)
        self._fit_help(self.frame.winfo_height())

    def _hint(self, text: str, _event: object = None) -> None:
        if not self.help_labels or not self.help_labels[0].winfo_ismapped():
            self.status.configure(text=safe_text(text, 120))
            self.hinting = True

    def _fit_form(self, width: int, height: int) -> None:
        """The game box as wide as the longest title where the window leaves room for it (the list keeps its
        buttons), and the options' help only where the window is tall enough (see `_fit_help`)."""
        wanted = self.game_box_wide if width >= WIDE_LOBBY else 24
        if int(self.game_box.cget("width")) != wanted:
            self.game_box.configure(width=wanted)
        self._fit_help(height)

    def _fit_help(self, height: int) -> None:
        """Options' help under each option only in a window tall enough for it, so Create is never cut off."""
        tall = height <= 1 or height >= HELP_HEIGHT
        for help_label in self.help_labels:
            if tall and not help_label.winfo_manager():
                help_label.grid()
            elif not tall and help_label.winfo_manager():
                help_label.grid_remove()

    def set_option(self, name: str, value: str) -> None:
        """Set an option in the form by its value as the server knows it (a choice by its id)."""
        titles_of = {choice: title for title, choice in self.choice_ids.get(name, {}).items()}
        self.option_vars[name].set(titles_of.get(value, value))

    def option_values(self) -> dict[str, str]:
        """The form's options as the server takes them (a choice by its id, a flag as "true"/"false")."""
        options = {}
        for name, var in self.option_vars.items():
            value = var.get()  # type: ignore[no-untyped-call]
            if isinstance(value, bool):
                options[name] = "true" if value else "false"
            else:
                options[name] = self.choice_ids.get(name, {}).get(str(value), str(value))
        return options

    def create(self) -> None:
        game = self.selected_game()
        if game is None or self.busy is not None or self.app.client is None:
            return
        try:
            players = int(self.players_var.get())
            bots = int(self.bots_var.get())
            seed = int(self.seed_var.get()) if self.seed_var.get().strip() else None
        except ValueError:
            self.status.configure(text=_("Players, bots and seed are whole numbers."))
            return
        options = self.option_values()
        client = self.app.client
        default = _("{name}'s {game}", name=safe_text(self.app.player_name, 16), game=game.title)
        name = (self.name_var.get().strip() or default)[:40].strip()
        self.remember_form()
        self.status.configure(text=_("Creating the table…") if bots < players else
                              _("Creating the table: every seat is a bot, so you will watch it."))  # fmt: skip
        self.busy = self.app.network.submit(
            create_and_sit(
                client,
                self.host_tokens,
                game.name,
                players,
                bots,
                options,
                seed,
                name,
                self.app.player_name,
                self.bot_level(),
            ),
            self._go_to_table,
            self._failed,
        )

    def bot_level(self) -> int:
        """The form's bot level as service.proto's BotLevel number."""
        return next((number for number, word in BOT_LEVELS.items() if _(word) == self.level_var.get()), 0)

    def remember_form(self) -> None:
        """Keep the form's values for the next table (and the next run)."""
        game = self.selected_game()
        memory = self.app.form_memory
        memory["game"] = game.name if game is not None else ""
        memory["players"] = self.players_var.get()
        memory["bots"] = self.bots_var.get()
        memory["bot_level"] = BOT_LEVELS.get(self.bot_level(), "normal")  # the English word: a language may change
        memory["name"] = self.name_var.get()
        if game is not None:
            memory[f"options:{game.name}"] = self.option_values()
        self.app.save_form_memory()

    def _restore_form(self) -> None:
        memory = self.app.form_memory
        if memory.get("game"):
            self.select_game(str(memory["game"]))
        game = self.selected_game()
        if game is not None and str(memory.get("players", "")).isdigit():
            players = int(memory["players"])
            if game.min_players <= players <= game.max_players:
                self.players_var.set(str(players))
        if str(memory.get("bots", "")).isdigit():
            self.bots_var.set(str(memory["bots"]))
        if memory.get("bot_level") in BOT_LEVELS.values():
            self.level_var.set(_(str(memory["bot_level"])))
        self.name_var.set(str(memory.get("name", "")))
        self._seats_changed()

    def _seats_changed(self) -> None:
        """Say before creating it when the table will have no seat for you."""
        try:
            everyone_a_bot = int(self.bots_var.get()) >= int(self.players_var.get())
        except ValueError:
            everyone_a_bot = False
        self.create_button.configure(text=_("Create and watch") if everyone_a_bot else _("Create and sit down"))
        self.seat_note.configure(text=_("Every seat is a bot: you will watch.") if everyone_a_bot else "")

    def _selected_table(self) -> table_pb2.TableInfo | None:
        selection = self.tree.selection()
        for table in self.tables:
            if selection and table.table_id == selection[0]:
                return table
        return None

    def _selected(self) -> None:
        table = self._selected_table()
        self.detail.configure(text=self._describe(table) if table is not None else "")
        if table is None:
            return
        open_seats = [str(s.index + 1) for s in table.seats if s.kind == table_pb2.SEAT_KIND_EMPTY]
        self.seat_box["values"] = (_("any open"), *open_seats)
        self.seat_choice.set(_("any open"))

    def join(self) -> None:
        table = self._selected_table()
        if table is None or self.busy is not None or self.app.client is None:
            self.status.configure(text=_("Choose a table first."))
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

        self.status.configure(text=_("Joining…"))
        self.busy = self.app.network.submit(join(), self._go_to_table, self._failed)

    def watch(self) -> None:
        table = self._selected_table()
        if table is None:
            self.status.configure(text=_("Choose a table first."))
            return
        self._go_to_table((table, None, None))

    def _go_to_table(self, result: tuple[table_pb2.TableInfo, int | None, str | None]) -> None:
        self.busy = None
        self.app.show_table(result)

    def _failed(self, error: BaseException) -> None:
        self.busy = None
        self.status.configure(text=_("Not done: {why}", why=explain(error)))

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
        self._show_list()

    def _show_list(self) -> None:
        """The tables in the list: live ones first, finished ones only when asked for."""
        selection = self.tree.selection()
        self.tree.delete(*self.tree.get_children())
        titles = {g.name: g.title for g in self.app.games}
        shown = sort_tables(self.tables, self.show_finished.get())
        self.cells = {}
        for table in shown:
            taken = [s for s in table.seats if s.kind != table_pb2.SEAT_KIND_EMPTY]
            self.cells[table.table_id] = (
                safe_text(table.name or table.table_id, 40),
                safe_text(titles.get(table.game, table.game), 40),
                f"{len(taken)}/{len(table.seats)}",
                self._status_of(table),
            )
            self.tree.insert("", "end", iid=table.table_id)
        self._fit_cells()
        if selection and selection[0] in self.cells:
            self.tree.selection_set(selection[0])
        elif self.chosen in self.cells:
            self.tree.selection_set(self.chosen)
            self.chosen = None
        chosen = self._selected_table()
        self.detail.configure(text=self._describe(chosen) if chosen is not None else "")

    def _status_of(self, table: table_pb2.TableInfo) -> str:
        """The status column: the table's state, its open seats, and the truth about this person's seat."""
        mine = remembered_seat(self.app.address, table.table_id)
        text = STATUS_NAMES.get(table.status, "?") + (f", {table.open_seats} open" if table.open_seats else "")
        if mine is not None:
            left_at = self.app.left_tables.get(table.table_id)
            text += " · " + seat_truth(table, mine[0], left_at, time.monotonic())
        return text

    def _describe(self, table: table_pb2.TableInfo) -> str:
        """The chosen table in one or two lines: every cell of its row in full."""
        name, game, players, status = self.cells.get(table.table_id, ("", "", "", ""))
        return f"{name} — {game} · {players} players · {status}"

    def _fit_cells(self) -> None:
        """Each cell cut to its column's width with "…" (a Treeview cuts text silently)."""
        if self.left:
            return
        columns = self.tree.cget("columns")
        room = self.tree.winfo_width() - 4
        if room > 200:  # the columns share the list's width (the players column keeps its own)
            fixed = int(self.tree.column("seats", "width"))
            for column, share in (("name", 0.3), ("game", 0.3), ("status", 0.4)):
                self.tree.column(column, width=max(60, int((room - fixed) * share)))
        widths = [int(self.tree.column(column, "width")) - 10 for column in columns]
        for iid, values in self.cells.items():
            if self.tree.exists(iid):
                pairs = zip(values, widths, strict=True)
                self.tree.item(iid, values=tuple(cut_to(self.cell_font.measure, text, room) for text, room in pairs))

    def _list_failed(self, error: BaseException) -> None:
        self.refreshing = None
        if not self.left:
            self.app.set_banner(f"Server lost: {explain(error).rstrip('.')}. Retrying…")

    def leave(self) -> None:
        self.left = True
        if self.after_id is not None:
            self.frame.after_cancel(self.after_id)
        for call in (self.refreshing, self.busy):
            if call is not None:
                call.cancel()


def _hover(hint: Callable[[], object], _event: object) -> None:
    """Show an option's help when the pointer is over its label or field (bound per option)."""
    hint()
