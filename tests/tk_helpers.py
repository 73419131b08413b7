"""Helpers for the Tk client tests: a real X server (Xvfb) per test session, a driver that pumps the Tk
event loop while the test's asyncio loop (and the in-process server) keeps running and watches that no turn
of it waits for the network, real mouse clicks with xdotool, and screenshots with ImageMagick's `import`."""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import gc
import os
import random
import select
import shutil
import subprocess
import threading
import time
import tkinter as tk
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from conftest import stop_process
from toadstool.api.v1 import table_pb2
from toadstool_clients.tk.app import App
from toadstool_clients.tk.lobby import ConnectScreen, LobbyScreen
from toadstool_clients.tk.table import TableScreen

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOTS = ROOT / "test-output" / "screenshots"
NOTES_SCREENSHOTS = Path("/work/notes/screenshots")


@contextmanager
def xvfb(seconds: float = 10.0) -> Iterator[str]:
    """A private Xvfb on a display number it picks itself (-displayfd); yields ":N" and stops it after."""
    read_end, write_end = os.pipe()
    process = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_end), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        pass_fds=(write_end,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_end)
    try:
        number = b""
        deadline = time.monotonic() + seconds
        while not number.endswith(b"\n"):
            remaining = deadline - time.monotonic()
            ready, _, _ = select.select([read_end], [], [], max(0.0, remaining))
            if not ready:
                raise TimeoutError("Xvfb did not report its display number")
            chunk = os.read(read_end, 16)
            if not chunk:
                raise RuntimeError("Xvfb exited before reporting its display")
            number += chunk
        yield f":{int(number)}"
    finally:
        os.close(read_end)
        stop_process(process, 5)


class TkDriver:
    """Drives a real Toadstool window like a person would, bounded in time."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.root = app.root
        #: The longest single turn of the Tk loop (`turn`): a figure for the test's report, not a verdict
        #: (a loaded machine makes any turn slow); whether the window waits for the server is `network_waits`.
        self.slowest = 0.0
        #: Where a turn of the Tk loop waited for a network call that had not finished (once `watch_network`
        #: is on): the window then stops answering for as long as the server takes.
        self.network_waits: list[str] = []
        self._in_turn = False

    def watch_network(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """From now on, note every wait of a Tk turn on an unfinished network call (a future of the window's
        network thread, where every gRPC call runs)."""
        driver = self
        for name in ("result", "exception"):
            original = getattr(concurrent.futures.Future, name)

            def watched(
                future: concurrent.futures.Future[Any], timeout: float | None = None, *, _original: Any = original
            ) -> Any:
                if driver._in_turn and not future.done() and threading.current_thread() is threading.main_thread():
                    driver.network_waits.append("".join(traceback.format_stack(limit=12)))
                return _original(future, timeout)

            monkeypatch.setattr(concurrent.futures.Future, name, watched)

    def turn(self) -> None:
        """One turn of the Tk loop, timed and watched (see `network_waits`)."""
        started = time.monotonic()
        self._in_turn = True
        try:
            self.root.update()
        finally:
            self._in_turn = False
            self.slowest = max(self.slowest, time.monotonic() - started)

    def assert_never_waited_for_the_network(self) -> None:
        waits, self.network_waits = self.network_waits, []  # each wait is reported once
        assert not waits, f"a turn of the Tk loop waited for the server ({len(waits)} times); first:\n{waits[0]}"

    async def pump(self, until: Callable[[], bool], seconds: float, what: str) -> None:
        """Run the Tk loop (and let the test's asyncio loop breathe) until `until()` or time runs out."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.turn()
            if until():
                return
            await asyncio.sleep(0.005)
        raise TimeoutError(f"waited {seconds} s for {what}")

    async def settle(self, seconds: float = 0.2) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.turn()
            await asyncio.sleep(0.005)

    def click(self, widget: tk.Misc, x: float | None = None, y: float | None = None) -> None:
        """A real mouse click (xdotool) at (x, y) inside `widget`, by default its middle."""
        self.root.update_idletasks()
        self.turn()
        px = widget.winfo_rootx() + int(x if x is not None else widget.winfo_width() / 2)
        py = widget.winfo_rooty() + int(y if y is not None else widget.winfo_height() / 2)
        under = self.root.winfo_containing(px, py)
        assert under is not None, f"nothing of the window at ({px}, {py}) to click"
        subprocess.run(["xdotool", "mousemove", str(px), str(py), "click", "1"], check=True, timeout=10)

    def screenshot(self, name: str) -> Path:
        """Save the window as test-output/screenshots/NAME.png (and a copy for the lead)."""
        self.turn()
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        x, y = self.root.winfo_rootx(), self.root.winfo_rooty()
        w, h = self.root.winfo_width(), self.root.winfo_height()
        subprocess.run(
            ["import", "-display", os.environ["DISPLAY"], "-window", "root", "-crop", f"{w}x{h}+{x}+{y}", str(path)],
            check=True,
            timeout=20,
        )
        try:
            NOTES_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, NOTES_SCREENSHOTS / path.name)
        except OSError:
            pass
        return path

    # --- the screens ------------------------------------------------------------------------------
    @property
    def table(self) -> TableScreen:
        screen = self.app.screen
        assert isinstance(screen, TableScreen), f"not at a table but on {type(screen).__name__}"
        return screen

    async def connect(self, address: str) -> LobbyScreen:
        screen = self.app.screen
        assert isinstance(screen, ConnectScreen)
        screen.address.set(address)
        await self.settle(0.1)
        self.click(screen.connect_button)
        await self.pump(lambda: isinstance(self.app.screen, LobbyScreen), 15, "the lobby")
        lobby = self.app.screen
        assert isinstance(lobby, LobbyScreen)
        return lobby

    async def create_table(
        self, game: str, players: int, bots: int, seed: int, options: dict[str, str] | None = None
    ) -> TableScreen:
        lobby = self.app.screen
        assert isinstance(lobby, LobbyScreen)
        lobby.select_game(game)
        lobby.players_var.set(str(players))
        lobby.bots_var.set(str(bots))
        lobby.seed_var.set(str(seed))
        for name, value in (options or {}).items():
            lobby.set_option(name, value)
        await self.settle(0.2)
        self.click(lobby.create_button)
        await self.pump(
            lambda: isinstance(self.app.screen, TableScreen), 15, f"the table screen ({lobby.status.cget('text')})"
        )
        await self.pump(lambda: self.table.latest is not None, 15, "the first update")
        return self.table

    @staticmethod
    def _moved(table: TableScreen, version: int) -> bool:
        """The table moved past `version`, or the move was refused (and the refusal shown)."""
        if table.latest is None:
            return False
        return table.latest.version != version or (table.acting is None and bool(table.status.cget("text")))

    async def play_to_the_end(
        self,
        rng: random.Random,
        seconds: float,
        screenshot: str,
        max_moves: int = 2000,
        shot_after: int = 4,
        worth_a_picture: Callable[[table_pb2.Update], bool] = lambda _update: True,
    ) -> dict[str, int]:
        """Take offered actions (clicking drawn pieces with the real mouse where one offers exactly one
        action, else pressing a button) until the game is over; a screenshot is taken mid-game."""
        counts = {"moves": 0, "piece_clicks": 0, "button_presses": 0}
        deadline = time.monotonic() + seconds
        shot = False
        while time.monotonic() < deadline:
            table = self.table
            update = table.latest
            assert update is not None
            if update.status == table_pb2.TABLE_STATUS_FINISHED:
                await self.settle(0.3)
                if not shot:
                    self.screenshot(screenshot)
                self.screenshot(f"{screenshot}-end")
                return counts
            ready = table.acting is None and table.redraw_pending is None and table.action_buttons
            if not ready or not (table.seat in update.to_act or rng.random() < 0.2):
                await self.settle(0.01)
                continue
            if not shot and counts["moves"] >= shot_after and table.seat in update.to_act and worth_a_picture(update):
                await self.settle(0.2)
                self.screenshot(screenshot)
                shot = True
                continue
            version = update.version
            table.set_status("")
            legal_ids = set(table.action_buttons)
            pieces = [t for t in table.targets if len(t.action_ids) == 1 and t.action_ids[0] in legal_ids]
            if pieces and (counts["piece_clicks"] == 0 or rng.random() < 0.7):
                target = rng.choice(pieces)
                self.click(table.canvas, target.x, target.y)
                counts["piece_clicks"] += 1
            else:
                button = rng.choice(list(table.action_buttons.values()))
                button.invoke()
                counts["button_presses"] += 1
            counts["moves"] += 1
            assert counts["moves"] <= max_moves, "the game does not end"
            moved = functools.partial(self._moved, table, version)
            await self.pump(moved, 10, "the move to land")
        raise TimeoutError(f"the game did not end in {seconds} s")


def open_app(address: str | None = None, discovery_interfaces: list[str] | None = None) -> App:
    # Collect earlier tests' windows here, on the Tk thread: a Tcl interpreter freed by the garbage
    # collector running on a network thread aborts the process ("async handler deleted by the wrong thread").
    gc.collect()
    root = tk.Tk()
    # Tests listen for announced servers on loopback only: nothing of theirs is anywhere else.
    return App(root, address, discovery_interfaces=discovery_interfaces or ["127.0.0.1"])


def close_app(app: App) -> None:
    if not app.closed:
        app.close()
    gc.collect()


def describe(app: App) -> dict[str, Any]:
    """What a failing test should print about the window."""
    screen = app.screen
    return {"screen": type(screen).__name__, "banner": app.banner.cget("text")}
