"""The connect screen: the server's address and the player's name (remembered between runs), servers heard
on the LAN, and how a failed call is put in words.

It is for getting to a server. It runs no game and knows no rules.
"""

from __future__ import annotations

import logging
import tkinter as tk
from tkinter import ttk
from typing import TYPE_CHECKING, Any

import grpc

from toadstool_clients.connection import Client, describe_rpc_error, server_address
from toadstool_clients.i18n import _
from toadstool_clients.names import default_player_name
from toadstool_clients.tk.games import FONT, safe_text

if TYPE_CHECKING:
    from toadstool_clients.tk.shell import Shell

log = logging.getLogger(__name__)


async def open_client(address: str, tls_ca: str | None, seconds: float = 5.0) -> tuple[Client, list[Any]]:
    """A connected Client and the games its server hosts (runs on the network thread)."""
    client = Client(address, timeout=seconds, tls_ca=tls_ca)
    try:
        await client.wait_ready(seconds)
        games = await client.list_games()
    except BaseException:
        await client.close()
        raise
    return client, games


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

    def __init__(self, app: Shell) -> None:
        self.app = app
        self.frame = ttk.Frame(app.body, style="Shell.TFrame")
        self.pending: Any = None
        self.left = False
        box = ttk.Frame(self.frame, style="Card.TFrame", padding=28)
        box.place(relx=0.5, rely=0.5, anchor="center")
        logo = tk.Canvas(box, width=96, height=84, background="#f4f1ea", highlightthickness=0)
        draw_toadstool(logo, 48, 6, 84)
        logo.grid(row=0, column=0, sticky="e", padx=(0, 8))
        tk.Label(box, text="Toadstool", font=(FONT, 28, "bold"), fg="#d32f2f", bg="#f4f1ea").grid(
            row=0, column=1, sticky="w", pady=(0, 4)
        )
        ttk.Label(box, text=_("Mario tabletop games on your LAN"), style="Card.TLabel").grid(
            row=1, column=0, columnspan=2, pady=(0, 18)
        )
        ttk.Label(box, text=_("Server"), style="Card.TLabel").grid(row=2, column=0, sticky="e", padx=6, pady=4)
        self.address = tk.StringVar(box, value=app.address)
        self.address_entry = ttk.Entry(box, textvariable=self.address, width=30)
        self.address_entry.grid(row=2, column=1, pady=4)
        ttk.Label(box, text=_("Your name"), style="Card.TLabel").grid(row=3, column=0, sticky="e", padx=6, pady=4)
        self.name = tk.StringVar(box, value=app.player_name)
        self.name_entry = ttk.Entry(box, textvariable=self.name, width=30)
        self.name_entry.grid(row=3, column=1, pady=4)
        self.name_entry.bind("<Return>", lambda _e: self.connect())
        self.connect_button = ttk.Button(box, text=_("Connect"), style="Big.TButton", command=self.connect)
        self.connect_button.grid(row=4, column=0, columnspan=2, pady=(16, 4))
        self.status = tk.Label(box, text="", bg="#f4f1ea", fg="#b71c1c", font=(FONT, 10), wraplength=360)
        self.status.grid(row=5, column=0, columnspan=2)
        self.address_entry.bind("<Return>", lambda _e: self.connect())
        # Servers announced on the LAN (mDNS): pick one instead of typing an address.
        ttk.Label(box, text=_("On your LAN"), style="Card.TLabel").grid(
            row=6, column=0, sticky="ne", padx=6, pady=(14, 0)
        )
        self.servers = tk.Listbox(box, height=4, width=46, activestyle="none", exportselection=False)
        self.servers.grid(row=6, column=1, pady=(14, 0), sticky="we")
        self.servers.bind("<<ListboxSelect>>", lambda _e: self.pick_server())
        self.servers.bind("<Double-Button-1>", lambda _e: self.connect())
        self.find_button = ttk.Button(box, text=_("Find servers"), command=self.find_servers)
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
            if self.left:
                return
            self.find_button.state(["!disabled"])
            self.found = found
            self.servers.delete(0, "end")
            for server in found:
                self.servers.insert("end", safe_text(server.describe()))
            if not found:
                self.servers.insert("end", "No servers heard; type an address above.")

        def failed(error: BaseException) -> None:
            self.finding = None
            if self.left:
                return
            log.info("listening for servers failed: %s", error)
            self.find_button.state(["!disabled"])
            self.servers.delete(0, "end")
            self.servers.insert("end", "Cannot listen for servers here; type an address above.")

        self.finding = self.app.network.submit(browse_async(2.0, self.app.discovery_interfaces), done, failed)

    def pick_server(self) -> None:
        chosen: tuple[int, ...] = self.servers.curselection()  # type: ignore[no-untyped-call]
        if chosen and chosen[0] < len(self.found):
            self.address.set(self.found[chosen[0]].address)

    def connect(self) -> None:
        if self.pending is not None:
            return
        address = server_address(self.address.get().strip() or None)
        name = self.name.get().strip() or default_player_name()
        self.status.configure(text=_("Connecting to {address}…", address=address), fg="#555555")
        self.connect_button.state(["disabled"])

        def done(result: Any) -> None:
            self.pending = None
            client, games = result
            self.app.connected(client, games, address, name)

        def failed(error: BaseException) -> None:
            self.pending = None
            self.connect_button.state(["!disabled"])
            self.status.configure(text=_("Could not connect: {why}", why=explain(error)), fg="#b71c1c")

        self.pending = self.app.network.submit(open_client(address, self.app.tls_ca), done, failed)

    def leave(self) -> None:
        self.left = True
        for call in (self.pending, self.finding):
            if call is not None:
                call.cancel()
