"""What the Tk screens may ask of each other, as Protocols: the window (`Shell`, the App) and the table
screen (`TableFace`, for the host controls, the keys and the overlays drawn on it).

Why: the screens used to switch by importing each other and the app (an import cycle over seven modules,
issue #42). Now only the app imports the screens; a screen asks the app to show another one
(`show_lobby`, `show_table`) and names the app and the table screen by these faces, which import no screen.
Types only: nothing here runs.
"""

from __future__ import annotations

import tkinter as tk
from tkinter import ttk
from typing import Any, Protocol

from toadstool.api.v1 import table_pb2
from toadstool_clients.connection import Client
from toadstool_clients.tk.actions import ActionBar
from toadstool_clients.tk.games import Board
from toadstool_clients.tk.motion import Motion
from toadstool_clients.tk.network import Network

#: A table just sat at (or watched): its listing, the seat and the seat's token (None, None: watching).
TableResult = tuple[table_pb2.TableInfo, int | None, str | None]


class Shell(Protocol):
    """The window as its screens see it: its parts, what it remembers, and how to switch screens."""

    root: tk.Tk
    body: ttk.Frame
    screen: Any
    address: str
    player_name: str
    tls_ca: str | None
    discovery_interfaces: list[str] | None
    network: Network
    client: Client | None
    games: list[table_pb2.GameInfo]
    host_tokens: dict[str, str]
    left_tables: dict[str, float]
    form_memory: dict[str, Any]

    def show(self, screen: Any) -> None: ...
    def set_banner(self, text: str) -> None: ...
    def set_title(self, table_name: str) -> None: ...
    def save_form_memory(self) -> None: ...
    def connected(self, client: Client, games: list[table_pb2.GameInfo], address: str, name: str) -> None: ...
    def disconnect(self) -> None: ...
    def show_lobby(self, note: str = "", chosen: str | None = None) -> None: ...
    def show_table(self, result: TableResult) -> None: ...


class HostFace(Protocol):
    """The table's host controls, as the keys use them."""

    def cancel(self) -> None: ...


class TableFace(Protocol):
    """The table screen as its helpers (host controls, keys, overlays) see it."""

    app: Shell
    table_id: str
    seat: int | None
    host_token: str | None
    table_info: table_pb2.TableInfo
    latest: table_pb2.Update | None
    left: bool
    role: tk.Label
    bar: ActionBar
    canvas: tk.Canvas
    seats: ttk.Treeview
    board: Board | None
    motion: Motion
    roll: table_pb2.DieRoll | None
    roll_fresh: bool
    held: tuple[str, list[str]] | None
    outcome_closed: bool

    @property
    def host(self) -> HostFace: ...  # read-only, so the screen's HostControls fits it

    def set_status(self, text: str) -> None: ...
    def act(self, legal: table_pb2.LegalAction) -> None: ...
    def offered_actions(self) -> list[table_pb2.LegalAction]: ...
    def release_held(self) -> None: ...
    def close_outcome(self) -> None: ...
