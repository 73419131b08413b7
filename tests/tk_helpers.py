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
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest

from conftest import stop_process
from toadstool.api.v1 import table_pb2
from toadstool_clients.tk.app import App
from toadstool_clients.tk.connect import ConnectScreen
from toadstool_clients.tk.lobby import LobbyScreen
from toadstool_clients.tk.network import ignore_spurious_grpc_wakeups
from toadstool_clients.tk.table import TableScreen

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOTS = ROOT / "test-output" / "screenshots"
NOTES_SCREENSHOTS = Path("/work/notes/screenshots")


@contextmanager
def xvfb(seconds: float = 10.0, size: str = "1280x800", screens: tuple[str, ...] = ()) -> Iterator[str]:
    """A private Xvfb with a screen of `size` (and further screens of the `screens` sizes) on a display number
    it picks itself (-displayfd); yields ":N" and stops it after."""
    more = [arg for index, extra in enumerate(screens, 1) for arg in ("-screen", str(index), f"{extra}x24")]
    read_end, write_end = os.pipe()
    process = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_end), "-screen", "0", f"{size}x24", *more, "-nolisten", "tcp"],
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


def _screen() -> list[str]:
    """xdotool's option for the screen DISPLAY names (":N.S"), which it would not otherwise move on."""
    _display, dot, screen = os.environ.get("DISPLAY", "").rpartition(":")[2].partition(".")
    return ["--screen", screen] if dot and screen.isdigit() else []


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
        subprocess.run(["xdotool", "mousemove", *_screen(), str(px), str(py), "click", "1"], check=True, timeout=10)

    def hover(self, widget: tk.Misc, x: float, y: float) -> None:
        """Move the real pointer (xdotool) to (x, y) inside `widget`."""
        self.root.update_idletasks()
        self.turn()
        px, py = widget.winfo_rootx() + int(x), widget.winfo_rooty() + int(y)
        subprocess.run(["xdotool", "mousemove", *_screen(), str(px), str(py)], check=True, timeout=10)

    def key(self, *keys: str, widget: tk.Misc | None = None) -> None:
        """Real key presses (xdotool) into the window (where its focus is), or into `widget` once it has it."""
        if self.root.focus_get() is None:
            self.root.focus_force()
        if widget is not None:
            widget.focus_force()
        self.root.update()
        subprocess.run(["xdotool", "key", "--delay", "30", *keys], check=True, timeout=10)

    def screenshot(self, name: str, directory: Path = SCREENSHOTS) -> Path:
        """Save the window as test-output/screenshots/NAME.png (or in `directory`; and a copy for the lead)."""
        self.turn()
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{name}.png"
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
            sliding = any(name.startswith("slide") for name in table.motion.sequences)  # pieces still moving
            ready = table.acting is None and table.redraw_pending is None and bool(table.bar.buttons) and not sliding
            if not ready or not (table.seat in update.to_act or rng.random() < 0.2):
                await self.settle(0.01)
                continue
            if not shot and counts["moves"] >= shot_after and table.seat in update.to_act and worth_a_picture(update):
                await self.settle(0.2)
                self.screenshot(screenshot)
                shot = True
                continue
            if table.held is not None:  # a hand's or round's result over the board: clicked away first
                table.release_held()
                await self.settle(0.05)
                continue
            version = update.version
            table.set_status("")
            legal_ids = {a.id for a in table.offered_actions()}
            pieces = [t for t in table.targets if len(t.action_ids) == 1 and t.action_ids[0] in legal_ids]
            if pieces and (counts["piece_clicks"] == 0 or rng.random() < 0.7):
                target = rng.choice(pieces)
                self.click(table.canvas, target.x, target.y)
                counts["piece_clicks"] += 1
            else:
                depth = len(table.bar.path)
                rng.choice(table.bar.buttons).invoke()
                counts["button_presses"] += 1
                if len(table.bar.path) > depth:  # an entry that opens its choices (a wild: its colours)
                    await self.settle(0.05)
                    continue
            counts["moves"] += 1
            assert counts["moves"] <= max_moves, "the game does not end"
            moved = functools.partial(self._moved, table, version)
            await self.pump(moved, 10, "the move to land")
        raise TimeoutError(f"the game did not end in {seconds} s")


@pytest.fixture(scope="session")
def display() -> Iterator[str]:
    """One private X server for this test session (or xdist worker)."""
    with xvfb(screens=SCREEN_SIZES) as name:
        previous = os.environ.get("DISPLAY")
        os.environ["DISPLAY"] = name
        try:
            yield name
        finally:
            if previous is None:
                os.environ.pop("DISPLAY", None)
            else:
                os.environ["DISPLAY"] = previous


@pytest.fixture
async def driver(
    display: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, record_property: Callable[[str, object], None]
) -> AsyncIterator[TkDriver]:
    """A fresh window whose settings live in the test's own config directory; no turn of its loop may wait
    for the network (every test checks), and its slowest turn is recorded in the test's report."""
    # This process runs grpc.aio in two loops (the test's server, the window's network thread).
    asyncio.get_running_loop().set_exception_handler(ignore_spurious_grpc_wakeups)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("USER", "tester")
    monkeypatch.setenv("LOGNAME", "tester")  # the login name comes first (getpass.getuser)
    app = open_app()
    driver = TkDriver(app)
    driver.watch_network(monkeypatch)
    try:
        yield driver
        driver.assert_never_waited_for_the_network()
    finally:
        record_property("slowest_tk_turn_seconds", round(driver.slowest, 3))
        print(f"the slowest turn of the Tk loop took {driver.slowest:.3f} s")
        close_app(app)


#: The screens of the session's X server after its first (1280x800): the sizes people use, by index.
SCREEN_SIZES = ("1024x600", "1366x768")


def screen_of(size: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The session's X screen of `size` ("1024x600"), made this test's DISPLAY (its windows, clicks and
    shots). The sizes are further screens of the one X server: Tk shares one connection between them, where
    a window on a second X server after one on a first dies of an X I/O error."""
    display = os.environ["DISPLAY"].split(".")[0]
    name = f"{display}.{SCREEN_SIZES.index(size) + 1}"
    monkeypatch.setenv("DISPLAY", name)
    return name


@asynccontextmanager
async def shown_window(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: str | None = None
) -> AsyncIterator[TkDriver]:
    """A fresh window on the session's screen of `size` (None: its first, 1280x800), its settings in the
    test's own config directory, handed over once it is shown; no turn of its loop may wait for the network
    (checked as it closes). What the fixtures of sized windows share."""
    asyncio.get_running_loop().set_exception_handler(ignore_spurious_grpc_wakeups)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("USER", "tester")
    monkeypatch.setenv("LOGNAME", "tester")  # the login name comes first (getpass.getuser)
    if size is not None:
        screen_of(size, monkeypatch)
    app = open_app()
    driver = TkDriver(app)
    driver.watch_network(monkeypatch)
    try:
        await driver.pump(lambda: app.root.winfo_ismapped() and app.root.winfo_width() > 1, 10, "the window")
        yield driver
        driver.assert_never_waited_for_the_network()
    finally:
        close_app(app)


def open_app(address: str | None = None, discovery_interfaces: list[str] | None = None) -> App:
    # Collect earlier tests' windows here, on the Tk thread: a Tcl interpreter freed by the garbage
    # collector running on a network thread aborts the process ("async handler deleted by the wrong thread").
    gc.collect()
    # No default root: a variable, font or style made without its window's master fails loudly here, where
    # it would otherwise bind to whichever window this process opened first (a tick box that never ticks).
    tk.NoDefaultRoot()
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


# --- what a person sees: overlapping text, text outside its panel, widgets cut off ---------------------
LAYOUT_SIZES = ((760, 520), (1200, 780), (1280, 800))
TK_SCREENSHOTS = ROOT / "test-output" / "tk"
SHAPES = ("rectangle", "oval", "polygon", "arc")
#: Widgets a person uses: each must be shown whenever its parent is.
CONTROLS = ("TButton", "Button", "TCheckbutton", "Checkbutton", "TMenubutton", "TCombobox", "TEntry", "TSpinbox")


def _intersection(a: tuple[int, ...], b: tuple[int, ...], shrink: int = 2) -> tuple[int, int, int, int] | None:
    """The overlap of two boxes, each first shrunk by `shrink` px (Tk pads a text's box a little)."""
    x0, y0 = max(a[0], b[0]) + shrink, max(a[1], b[1]) + shrink
    x1, y1 = min(a[2], b[2]) - shrink, min(a[3], b[3]) - shrink
    return (x0, y0, x1, y1) if x0 < x1 and y0 < y1 else None


def _inside(inner: tuple[int, ...], outer: tuple[int, ...], slack: int = 1) -> bool:
    return (
        inner[0] >= outer[0] - slack
        and inner[1] >= outer[1] - slack
        and inner[2] <= outer[2] + slack
        and inner[3] <= outer[3] + slack
    )


def canvas_layout_problems(canvas: tk.Canvas, width: int, height: int) -> list[str]:
    """What is wrong on the canvas as drawn: text items that overlap (unless a filled shape drawn between
    them hides the lower one, as a card laid over another does), text that leaves the drawing or the panel
    (an item tagged "panel", drawn before it) it starts in."""
    items = list(canvas.find_all())  # bottom to top
    order = {item: index for index, item in enumerate(items)}
    texts = []
    for item in items:
        if canvas.type(item) != "text" or not canvas.itemcget(item, "text").strip():
            continue
        if canvas.itemcget(item, "state") == "hidden" or "hover" in canvas.gettags(item):
            continue
        texts.append((item, canvas.bbox(item), canvas.itemcget(item, "text")))
    shapes = [
        (order[item], canvas.bbox(item))
        for item in items
        if canvas.type(item) in SHAPES and canvas.itemcget(item, "fill") not in ("", "{}")
    ]
    panels = [
        (order[item], canvas.bbox(item), canvas.itemcget(item, "fill") not in ("", "{}"))
        for item in canvas.find_withtag("panel")
    ]
    problems = []
    for index, (a, box_a, text_a) in enumerate(texts):
        if not _inside(box_a, (0, 0, width, height), slack=0):
            problems.append(f"{text_a!r} leaves the drawing ({box_a} in {width}x{height})")
        cx, cy = (box_a[0] + box_a[2]) / 2, (box_a[1] + box_a[3]) / 2
        # A panel holds the texts drawn on it; a text drawn before it is under it (a held result card laid
        # over the board), not in it; and a panel a filled one drawn later covers there is under that one (the
        # board's panel under the held card's text), not holding it.
        under = [
            (at, p, filled) for at, p, filled in panels if at < order[a] and p[0] <= cx <= p[2] and p[1] <= cy <= p[3]
        ]
        holders = [p for at, p, _ in under if not any(filled and later > at for later, _, filled in under)]
        if holders:
            panel = min(holders, key=lambda p: (p[2] - p[0]) * (p[3] - p[1]))
            if not _inside(box_a, panel, slack=1):
                problems.append(f"{text_a!r} runs out of its panel ({box_a} in {panel})")
        for b, box_b, text_b in texts[index + 1 :]:
            overlap = _intersection(box_a, box_b)
            if overlap is None:
                continue
            if text_a == text_b and abs(box_a[0] - box_b[0]) <= 3 and abs(box_a[1] - box_b[1]) <= 3:
                continue  # a drop shadow
            low, high = sorted((order[a], order[b]))
            if any(low < at < high and _inside(overlap, box, slack=0) for at, box in shapes):
                continue  # the lower text is hidden under a piece laid over it
            problems.append(f"{text_a!r} {box_a} overlaps {text_b!r} {box_b}")
    return problems


def widget_layout_problems(root: tk.Misc) -> list[str]:
    """Widgets a person cannot fully see: mapped ones outside their parent's visible area, and controls
    (buttons) that are not shown at all while their parent is."""
    problems = []

    def walk(widget: tk.Misc) -> None:
        for child in widget.winfo_children():
            if isinstance(child, tk.Menu | tk.Toplevel):
                continue
            if child.winfo_ismapped():
                box = (child.winfo_rootx(), child.winfo_rooty(), child.winfo_rootx() + child.winfo_width(),
                       child.winfo_rooty() + child.winfo_height())  # fmt: skip
                outer = (widget.winfo_rootx(), widget.winfo_rooty(), widget.winfo_rootx() + widget.winfo_width(),
                         widget.winfo_rooty() + widget.winfo_height())  # fmt: skip
                if not _inside(box, outer, slack=0):
                    problems.append(f"{child.winfo_class()} {child} {box} is cut off by its parent {outer}")
                walk(child)
            elif (
                widget.winfo_ismapped()
                and child.winfo_manager() in ("pack", "grid", "place")
                and (child.winfo_class() in CONTROLS or child.winfo_children())
            ):
                problems.append(f"the {child.winfo_class()} {child} is hidden (no room for it)")

    walk(root)
    return problems
