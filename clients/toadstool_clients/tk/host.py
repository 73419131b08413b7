"""The host's controls at a table: start now, add a bot, a bot's level, remove a seat, let a bot play a
seat, end the table.

It is for the person who created the table (the window holds its host token): the controls are a "Host"
menu in the table's header and a right-click menu on a seat's row, built afresh from the latest update
each time they open, so they offer only what can be done now. Removing a seat and ending the table are
asked about first, in a strip above the action bar (never a modal dialog: the window must keep drawing
the table while the host thinks). Every call runs on the network thread; a refusal is shown in the
status line as the server's own message. It knows no rules and no game: the server decides and says no.
Not for a person who is not the host: without a host token nothing here is shown at all.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable, Coroutine
from functools import partial
from tkinter import ttk
from typing import TYPE_CHECKING, Any

from toadstool.api.v1 import table_pb2
from toadstool_clients.i18n import _, n_
from toadstool_clients.names import BOT_LEVELS, bot_level_name
from toadstool_clients.tk.connect import explain
from toadstool_clients.tk.games import FONT, safe_text

if TYPE_CHECKING:
    from toadstool_clients.tk.shell import TableFace

CONFIRM_BG = "#4e342e"
#: One control: its label and what it does.
Control = tuple[str, Callable[[], None]]


class HostControls:
    """The Host menu, the seats' right-click menu and the confirmation strip of one table screen."""

    def __init__(self, screen: TableFace, header: tk.Misc, bottom: tk.Misc) -> None:
        self.screen = screen
        self.menu = tk.Menu(header, tearoff=False, font=(FONT, 10), postcommand=self._fill_host_menu)
        self.button = ttk.Menubutton(header, text=_("Host"), menu=self.menu, width=max(6, len(_("Host")) + 1))
        # posted by hand, right-aligned under the button, so the menu stays inside the window
        self.button.bind("<ButtonPress-1>", self._post_host_menu)
        if screen.host_token:
            self.show_button()
        self.seat_menu = tk.Menu(header, tearoff=False, font=(FONT, 10))
        #: The question being asked before a destructive control, above the action bar (unpacked: none).
        self.confirm_row = tk.Frame(bottom, background=CONFIRM_BG)
        self.question = tk.Label(self.confirm_row, text="", background=CONFIRM_BG, foreground="white",
                                 font=(FONT, 10, "bold"), anchor="w")  # fmt: skip
        self.yes = ttk.Button(self.confirm_row, text="", style="Action.TButton")
        self.no = ttk.Button(self.confirm_row, text=_("Cancel"), style="Action.TButton", command=self.cancel)
        self.no.pack(side="right", padx=4, pady=3)
        self.yes.pack(side="right", padx=4, pady=3)
        self.question.pack(side="left", fill="x", expand=True, padx=6)
        #: The host call in flight (one at a time).
        self.calling: Any = None

    def show_button(self) -> None:
        """The Host menu button, in the header's packing order before the table's name and phase, so that
        a long phase in a small window squeezes itself and never the button."""
        self.button.pack(side="right", padx=(0, 8), before=self.screen.role)

    @property
    def hosting(self) -> bool:
        return bool(self.screen.host_token)

    # --- what is offered now ------------------------------------------------------------------------
    def table_controls(self) -> list[Control]:
        """The Host menu: the table's controls, then every seat's."""
        update = self.screen.latest
        if not self.hosting or update is None or update.status == table_pb2.TABLE_STATUS_FINISHED:
            return []
        controls: list[Control] = []
        if update.status == table_pb2.TABLE_STATUS_LOBBY:
            open_seats = sum(1 for s in update.seats if s.kind == table_pb2.SEAT_KIND_EMPTY)
            start = (
                n_("Start now (bots take the {n} open seat)", "Start now (bots take the {n} open seats)", open_seats)
                if open_seats
                else _("Start now")
            )
            controls.append((start, self.start_now))
            if open_seats:
                controls.append((_("Add a bot"), self.add_bot))
        for seat in update.seats:
            controls += self.seat_controls(seat.index)
        controls.append((_("End the table"), self.ask_end))
        return controls

    def seat_controls(self, index: int) -> list[Control]:
        """What the host may do to one seat now (nothing to their own seat, an open one or a bot in play)."""
        update = self.screen.latest
        if not self.hosting or update is None or update.status == table_pb2.TABLE_STATUS_FINISHED:
            return []
        seat = next((s for s in update.seats if s.index == index), None)
        if seat is None or seat.kind == table_pb2.SEAT_KIND_EMPTY or index == self.screen.seat:
            return []
        name = safe_text(seat.name or _("seat {number}", number=index + 1), 24)
        controls: list[Control] = []
        if seat.kind == table_pb2.SEAT_KIND_BOT:  # the other two levels, in the lobby and in play
            now = bot_level_name(seat.bot_level)
            for level, word in BOT_LEVELS.items():
                if word != now:
                    label = _("Make {name} {level} (now {now})", name=name, level=_(word), now=_(now))
                    controls.append((label, partial(self.set_level, index, name, level)))
        if update.status == table_pb2.TABLE_STATUS_LOBBY:
            return [*controls, (_("Remove {name}", name=name), lambda: self.ask_kick(index, name, lobby=True))]
        if seat.kind != table_pb2.SEAT_KIND_HUMAN:
            return controls
        controls.append((_("Remove {name} (a bot plays on)", name=name), lambda: self.ask_kick(index, name)))
        if not seat.bot_controlled:
            controls.append((_("Let a bot play {name}'s seat", name=name), lambda: self.hand_to_bot(index, name)))
        return controls

    def _fill_host_menu(self) -> None:
        fill_menu(self.menu, self.table_controls())

    def _post_host_menu(self, _event: tk.Event[Any] | None = None) -> str:
        """The Host menu under its button, its right edge at the button's when it would leave the window."""
        self._fill_host_menu()
        button = self.button
        post_inside(self.menu, button.winfo_rootx(), button.winfo_rooty() + button.winfo_height())
        return "break"

    def seat_menu_at(self, event: tk.Event[Any]) -> None:
        """A right-click on a seat's row: that seat's controls, where the pointer is."""
        if not self.hosting:
            return
        row = self.screen.seats.identify_row(event.y)
        if not row.startswith("seat"):
            return
        if not fill_menu(self.seat_menu, self.seat_controls(int(row.removeprefix("seat")))):
            return
        post_inside(self.seat_menu, event.x_root, event.y_root)

    # --- asking first ---------------------------------------------------------------------------------
    def confirm(self, question: str, yes: str, then: Callable[[], None]) -> None:
        """Ask before a control that cannot be undone; nothing is sent until `yes` is pressed."""

        def go() -> None:
            self.cancel()
            then()

        self.question.configure(text=question)
        self.yes.configure(text=yes, command=go)
        if not self.confirm_row.winfo_manager():
            self.confirm_row.pack(side="top", fill="x", pady=(0, 4), before=self.screen.bar.frame)

    def cancel(self) -> None:
        if self.confirm_row.winfo_manager():
            self.confirm_row.pack_forget()

    @property
    def asking(self) -> str:
        """The question being asked ("" when none)."""
        return str(self.question.cget("text")) if self.confirm_row.winfo_manager() else ""

    def ask_kick(self, index: int, name: str, lobby: bool = False) -> None:
        if lobby:
            self.confirm(_("Remove {name} from the table? The seat becomes open.", name=name),
                         _("Remove {name}", name=name), lambda: self.kick(index, name, lobby))  # fmt: skip
        else:
            self.confirm(_("Remove {name}? A bot plays their seat for the rest of the game.", name=name),
                         _("Remove {name}", name=name), lambda: self.kick(index, name, lobby))  # fmt: skip

    def ask_end(self) -> None:
        self.confirm(_("End the table for everyone? The game stops here."), _("End the table"), self.end_table)

    # --- the calls ------------------------------------------------------------------------------------
    def _call(self, doing: str, call: Callable[[Any, str], Coroutine[Any, Any, Any]], done: str,
              refused: str) -> None:  # fmt: skip
        screen = self.screen
        client = screen.app.client
        token = screen.host_token
        if client is None or not token or screen.left:
            return
        if self.calling is not None:
            screen.set_status(_("Still doing the last host action…"))
            return
        screen.set_status(doing)

        def finished(_result: Any) -> None:
            self.calling = None
            if not screen.left:
                screen.set_status(done)

        def failed(error: BaseException) -> None:
            self.calling = None
            if not screen.left:
                screen.set_status(_("{refused}: {reason}", refused=refused, reason=explain(error)))

        self.calling = screen.app.network.submit(call(client, token), finished, failed)

    def start_now(self) -> None:
        """Bots take the open seats (which starts a table that starts when full), then the game starts."""
        table_id = self.screen.table_id
        self._call(_("Starting the game…"), lambda client, token: client.start_now(table_id, token), "",
                   _("Not started"))  # fmt: skip

    def add_bot(self) -> None:
        table_id = self.screen.table_id
        self._call(_("Adding a bot…"), lambda client, token: client.add_bot(table_id, token), "",
                   _("No bot added"))  # fmt: skip

    def set_level(self, index: int, name: str, level: int) -> None:
        table_id = self.screen.table_id
        word = _(bot_level_name(level))
        self._call(_("Making {name} {level}…", name=name, level=word),
                   lambda client, token: client.set_bot_level(table_id, token, index, level),
                   _("{name} plays {level} from its next move.", name=name, level=word),
                   _("Level not changed"))  # fmt: skip

    def kick(self, index: int, name: str, lobby: bool) -> None:
        table_id = self.screen.table_id
        if lobby:
            done = _("{name} was removed; the seat is open.", name=name)
        else:
            done = _("{name} was removed; a bot plays on.", name=name)
        self._call(_("Removing {name}…", name=name), lambda client, token: client.kick(table_id, token, index), done,
                   _("{name} not removed", name=name))  # fmt: skip

    def hand_to_bot(self, index: int, name: str) -> None:
        table_id = self.screen.table_id
        self._call(_("Handing {name}'s seat to a bot…", name=name),
                   lambda client, token: client.hand_to_bot(table_id, token, index),
                   _("A bot plays {name}'s seat until they are back.", name=name),
                   _("Not handed to a bot"))  # fmt: skip

    def end_table(self) -> None:
        table_id = self.screen.table_id
        self._call(_("Ending the table…"), lambda client, token: client.end_table(table_id, token), "",
                   _("The table goes on"))  # fmt: skip

    def leave(self) -> None:
        if self.calling is not None:
            self.calling.cancel()


def post_inside(menu: tk.Menu, x: int, y: int) -> None:
    """Pop the menu up at (x, y) on the screen, moved left and up as far as it takes to stay inside its
    window (a menu half past the window's edge reads as cut off)."""
    menu.update_idletasks()
    window = menu.master.winfo_toplevel() if menu.master is not None else menu  # a menu is a toplevel itself
    right = window.winfo_rootx() + window.winfo_width()
    bottom = window.winfo_rooty() + window.winfo_height()
    x = max(window.winfo_rootx(), min(x, right - menu.winfo_reqwidth()))
    y = max(window.winfo_rooty(), min(y, bottom - menu.winfo_reqheight()))
    menu.tk_popup(x, y)


def fill_menu(menu: tk.Menu, controls: list[Control]) -> bool:
    """Replace the menu's entries with `controls`; False when there are none."""
    menu.delete(0, "end")
    for label, command in controls:
        menu.add_command(label=label, command=command)
    if not controls:
        menu.add_command(label=_("Nothing to do now"), state="disabled")
    return bool(controls)
