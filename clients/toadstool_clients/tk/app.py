"""`toadstool tk`: the Tk desktop client's window, settings and entry point.

The window holds one screen at a time (connect, lobby, table) under a banner that appears when the server
is lost. Every call to the server runs on the network thread (network.py); results come back through a
queue that the window polls with `after`, so the window never waits for the server. The client knows no
game rules: screens render views and offer the legal actions the views carry.
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import sys
import time
import tkinter as tk
from pathlib import Path
from tkinter import ttk
from typing import Any

from toadstool.api.v1 import table_pb2
from toadstool_clients.connection import Client, server_address
from toadstool_clients.files import replace_private
from toadstool_clients.names import default_player_name
from toadstool_clients.paths import tk_settings_file
from toadstool_clients.seats import remember_host_token, remember_seat, remembered_host_token
from toadstool_clients.tk.connect import ConnectScreen
from toadstool_clients.tk.games import FONT, safe_text
from toadstool_clients.tk.lobby import LobbyScreen
from toadstool_clients.tk.network import Network
from toadstool_clients.tk.shell import TableResult
from toadstool_clients.tk.table import TableScreen

log = logging.getLogger(__name__)

POLL_MS = 25
#: How often the window runs the garbage collector itself (see App.__init__).
GC_MS = 5000
RETIRE_GRACE_S = 2.0
TITLE = "Toadstool"
#: The window's size when nothing is remembered (and the screen is big enough), and the smallest it may be.
DEFAULT_SIZE, MIN_SIZE = (1200, 780), (760, 520)
#: The share of the screen the window may take at most, so that its edges and the panel stay in view.
SCREEN_SHARE = 0.9


def settings_path() -> Path:
    """~/.config/toadstool/tk.json on Linux, respecting $XDG_CONFIG_HOME (`toadstool_clients.paths`)."""
    return tk_settings_file()


def load_settings() -> dict[str, str]:
    """What the last run remembered (address, name); empty when nothing (or nothing readable) is there."""
    try:
        data = json.loads(settings_path().read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def save_settings(settings: dict[str, str]) -> None:
    """Remember the address and name for the next run (a failure to write is not worth a crash)."""
    path = settings_path()
    try:
        replace_private(path, json.dumps(settings, indent=1))
    except OSError as error:
        log.warning("could not save %s: %s", path, error)


def remembered_size(text: str) -> tuple[int, int] | None:
    """A size saved as "WIDTHxHEIGHT", or None when there is none (or it is not one)."""
    width, _x, height = text.partition("x")
    if not (width.isdigit() and height.isdigit()) or not (100 <= int(width) <= 20000 and 100 <= int(height) <= 20000):
        return None
    return int(width), int(height)


def load_form_memory(settings: dict[str, str]) -> dict[str, Any]:
    """The create form's remembered values from the settings (empty when none or unreadable)."""
    try:
        memory = json.loads(settings.get("form", "{}"))
    except ValueError:
        return {}
    return memory if isinstance(memory, dict) else {}


class App:
    """The window: settings, the network thread, the banner, and whichever screen is showing."""

    def __init__(
        self,
        root: tk.Tk,
        address: str | None = None,
        tls_ca: str | None = None,
        discovery_interfaces: list[str] | None = None,
    ) -> None:
        self.root = root
        self.tls_ca = tls_ca
        #: Where to listen for announced servers (None: every interface).
        self.discovery_interfaces = discovery_interfaces
        self.settings = load_settings()
        self.address = address or self.settings.get("address") or server_address(None)
        self.player_name = self.settings.get("name") or default_player_name()
        self.network = Network()
        self.client: Client | None = None
        self.games: list[table_pb2.GameInfo] = []
        self.host_tokens: dict[str, str] = {}
        #: When this window left each table it held a seat at (time.monotonic()), for the lobby to say when a
        #: bot takes the seat over.
        self.left_tables: dict[str, float] = {}
        #: The create form's last values (game, players, bots, name, options per game), kept between runs.
        self.form_memory: dict[str, Any] = load_form_memory(self.settings)
        self.closed = False
        root.title(TITLE)
        self.place_window()
        root.configure(background="#1d2230")
        self._style()
        self._text_keys()
        self.banner = tk.Label(root, text="", background="#c62828", foreground="white", font=(FONT, 12, "bold"))
        self.body = ttk.Frame(root, style="Shell.TFrame")
        self.body.pack(fill="both", expand=True)
        self.screen: Any = None
        #: Screens left behind, kept until the calls they made are over: their last reference must be
        #: dropped on the Tk thread, never by the network thread (Tk objects are not thread-safe).
        self._retired: list[tuple[Any, int, float]] = []
        root.protocol("WM_DELETE_WINDOW", self.close)
        root.after(POLL_MS, self._poll)
        # Tk objects may only be freed on the Tk thread, but Python's cyclic garbage collector runs on
        # whichever thread happens to allocate: on the network thread it would free Tk variables there
        # ("main thread is not in main loop"). So automatic collection is off while the window is open,
        # and the window collects on its own thread instead, every few seconds and when it closes.
        self._gc_was_enabled = gc.isenabled()
        gc.disable()
        root.after(GC_MS, self._collect)
        self.show(ConnectScreen(self))

    def place_window(self) -> None:
        """Size the window to the screen: the size remembered from the last run (or DEFAULT_SIZE), but never
        more than SCREEN_SHARE of the screen, centred on it; the minimum size shrinks with a small screen."""
        screen_w, screen_h = self.root.winfo_screenwidth(), self.root.winfo_screenheight()
        most_w, most_h = int(screen_w * SCREEN_SHARE), int(screen_h * SCREEN_SHARE)
        width, height = remembered_size(self.settings.get("size", "")) or DEFAULT_SIZE
        width, height = min(width, most_w), min(height, most_h)
        self.root.minsize(min(MIN_SIZE[0], most_w), min(MIN_SIZE[1], most_h))
        self.root.geometry(f"{width}x{height}+{(screen_w - width) // 2}+{(screen_h - height) // 2}")

    def remember_size(self) -> None:
        """Keep the window's size for the next run (as the person last left it)."""
        if self.root.winfo_ismapped() and self.root.winfo_width() > 1:
            self.settings["size"] = f"{self.root.winfo_width()}x{self.root.winfo_height()}"
            save_settings(self.settings)

    def _style(self) -> None:
        style = ttk.Style(self.root)
        style.theme_use("clam")
        style.configure(".", font=(FONT, 10))
        style.configure("Shell.TFrame", background="#1d2230")
        style.configure("Card.TFrame", background="#f4f1ea")
        style.configure("Card.TLabel", background="#f4f1ea")
        style.configure("Title.TLabel", background="#1d2230", foreground="#ffd54a", font=(FONT, 18, "bold"))
        style.configure("Sub.TLabel", background="#1d2230", foreground="#e8e8e8", font=(FONT, 11))
        style.configure("Status.TLabel", background="#1d2230", foreground="#ffb74d", font=(FONT, 10, "bold"))
        style.configure("Action.TButton", font=(FONT, 10, "bold"), padding=(8, 4))
        style.configure("Big.TButton", font=(FONT, 11, "bold"), padding=(12, 6))
        style.configure("Treeview", rowheight=24)

    def _text_keys(self) -> None:
        """The usual keys in text fields: Ctrl+A selects everything (Tk's default jumps to the line start)."""

        def select_all(event: tk.Event[Any]) -> str:
            widget = event.widget
            widget.selection_range(0, "end")
            widget.icursor("end")
            return "break"

        for widget_class in ("TEntry", "Entry", "TSpinbox", "TCombobox"):
            self.root.bind_class(widget_class, "<Control-a>", select_all)
            self.root.bind_class(widget_class, "<Control-A>", select_all)

    def save_form_memory(self) -> None:
        self.settings["form"] = json.dumps(self.form_memory)
        save_settings(self.settings)

    # --- screens ----------------------------------------------------------------------------------
    def show(self, screen: Any) -> None:
        """Replace the current screen (its `leave` stops whatever it was following)."""
        if self.screen is not None:
            self.screen.leave()
            self.screen.frame.destroy()
            self._retired.append((self.screen, self.network.submitted, time.monotonic()))
        self.screen = screen
        screen.frame.pack(in_=self.body, fill="both", expand=True)
        self.set_banner("")
        self.set_title(getattr(screen, "window_title", ""))

    def set_title(self, table_name: str) -> None:
        self.root.title(f"{TITLE} — {safe_text(table_name, 40)}" if table_name else TITLE)

    def set_banner(self, text: str) -> None:
        """Show (or with "" hide) the red banner above the screen."""
        if text:
            self.banner.configure(text=text)
            if not self.banner.winfo_manager():
                self.banner.pack(side="top", fill="x", before=self.body, ipady=6)
        elif self.banner.winfo_manager():
            self.banner.pack_forget()

    def connected(self, client: Client, games: list[table_pb2.GameInfo], address: str, name: str) -> None:
        """The connect screen succeeded: remember the address and go to the lobby."""
        self.client = client
        self.games = games
        self.address = address
        self.player_name = name
        self.settings.update(address=address, name=name)
        save_settings(self.settings)
        self.show_lobby()

    def show_lobby(self, note: str = "", chosen: str | None = None) -> None:
        """The lobby (`note`: a line to say there; `chosen`: the table to select in its list)."""
        self.show(LobbyScreen(self, note, chosen=chosen))

    def show_table(self, result: TableResult) -> None:
        """The table screen for a seat just taken (remembered for coming back) or for watching; the host
        token of a table this machine created is remembered too, so its host controls are back after a
        restart of the window."""
        table, seat, token = result
        if token is not None and seat is not None:
            remember_seat(self.address, table.table_id, seat, token)
        host_token = self.host_tokens.get(table.table_id)
        if host_token is not None:
            remember_host_token(self.address, table.table_id, host_token)
        else:
            host_token = remembered_host_token(self.address, table.table_id)
        self.show(TableScreen(self, table, seat, token, host_token))

    def disconnect(self) -> None:
        """Back to the connect screen, closing the channel on the network thread."""
        if self.client is not None:
            self.network.submit(self.client.close())
            self.client = None
        self.show(ConnectScreen(self))

    # --- the poll that hands network results to Tk ------------------------------------------------
    def _poll(self) -> None:
        if self.closed:
            return
        try:
            self.network.drain()
            if self._retired:
                oldest = self.network.oldest_pending()
                now = time.monotonic()
                self._retired = [
                    (screen, number, since)
                    for screen, number, since in self._retired
                    if (oldest is not None and oldest <= number) or now - since < RETIRE_GRACE_S
                ]
        finally:
            if not self.closed:
                self.root.after(POLL_MS, self._poll)

    def _collect(self) -> None:
        if self.closed:
            return
        gc.collect()
        self.root.after(GC_MS, self._collect)

    def close(self) -> None:
        """Stop following, close the channel and the network thread, then the window."""
        if self.closed:
            return
        self.closed = True
        self.remember_size()
        if self.screen is not None:
            self.screen.leave()
        if self.client is not None:
            try:
                self.network.submit(self.client.close()).result(3)
            except Exception:  # closing is best effort
                log.debug("closing the channel failed", exc_info=True)
        self.network.close()
        self.root.destroy()
        gc.collect()  # on the Tk thread, while Tk objects may still be freed safely
        if self._gc_was_enabled:
            gc.enable()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `toadstool tk`."""
    parser.add_argument(
        "--server", help="HOST[:PORT] to connect to at once (default: fill in the last one used and wait)"
    )
    parser.add_argument(
        "--tls-ca", help="PEM certificate of a TLS server (default: $TOADSTOOL_TLS_CA; none: plaintext)"
    )
    parser.add_argument(
        "--interface", action="append", help="listen for announced servers on this address only (repeatable)"
    )
    parser.add_argument(
        "--lang", metavar="LANGUAGE", help="the language of the server's texts, such as de or en (default: $LANG)"
    )


def run(args: argparse.Namespace) -> int:
    """`toadstool tk`: open the window and run until it is closed."""
    try:
        root = tk.Tk()
    except tk.TclError as error:
        print(f"toadstool tk: cannot open a window ({error}); is DISPLAY set?", file=sys.stderr)
        return 1
    app = App(root, server_address(args.server) if args.server else None, args.tls_ca, args.interface)
    if args.server:  # a server named on the command line: connect at once
        app.screen.connect()
    try:
        root.mainloop()
    finally:
        if not app.closed:
            app.close()
    return 0
