"""The Tk client on the screens people have: a laptop's 1366x768 and a netbook's 1024x600.

Each test opens the real window on a private Xvfb screen of that size and checks what a person would see:
the window fits the screen (at most 90% of it, centred, its size remembered), and on the connect screen,
the lobby and every game's table no button is outside the window, no label or list cell has its text cut
without an ellipsis, and nothing of the board overlaps. Screenshots of each screen go to shots/ (or
$TOADSTOOL_SHOTS) for a person to look at.
"""

from __future__ import annotations

import os
import tkinter as tk
import tkinter.font as tkfont
from collections.abc import AsyncIterator
from pathlib import Path
from tkinter import ttk

import pytest

import tk_helpers
from tk_helpers import ROOT, TkDriver, canvas_layout_problems, close_app, open_app, widget_layout_problems
from toadstool.api.v1 import table_pb2
from toadstool.server.app import RunningServer
from toadstool_clients.connection import Client
from toadstool_clients.tk.app import load_settings
from toadstool_clients.tk.games import kart
from toadstool_clients.tk.lobby import LobbyScreen
from toadstool_clients.tk.motion import Motion
from toadstool_clients.tk.table import TableScreen

display = tk_helpers.display
SHOTS = Path(os.environ.get("TOADSTOOL_SHOTS", ROOT / "shots"))
SIZES = tk_helpers.SCREEN_SIZES


@pytest.fixture(params=SIZES)
async def screen(
    request: pytest.FixtureRequest, display: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[TkDriver]:
    """A fresh window on a screen of each size people use (its settings in the test's own directory)."""
    monkeypatch.setattr(Motion, "frame_ms", 0)
    async with tk_helpers.shown_window(tmp_path, monkeypatch, request.param) as driver:
        yield driver


def size_of(driver: TkDriver) -> str:
    return f"{driver.root.winfo_screenwidth()}x{driver.root.winfo_screenheight()}"


def cut_texts(root: tk.Misc) -> list[str]:
    """Labels and buttons whose text is wider than they are drawn (Tk cuts it without a word), and list
    cells wider than their column. A label given a width of its own cuts its text itself, with "…"."""
    problems = []

    def walk(widget: tk.Misc) -> None:
        for child in widget.winfo_children():
            if not child.winfo_ismapped():
                continue
            kind = child.winfo_class()
            if kind in ("Label", "TLabel", "TButton", "Button", "TCheckbutton") and str(child.cget("text")):
                own_width = str(child.cget("width")) not in ("0", "")
                if not own_width and child.winfo_reqwidth() > child.winfo_width() + 1:
                    problems.append(f"{kind} {child.cget('text')!r}: needs {child.winfo_reqwidth()} px, has "
                                    f"{child.winfo_width()}")  # fmt: skip
            if isinstance(child, ttk.Treeview):
                font = tkfont.nametofont("TkDefaultFont", root)
                shown = child.cget("displaycolumns")
                columns = list(child.cget("columns")) if shown in ("#all", ("#all",)) else list(shown)
                for item in child.get_children():
                    values = child.item(item, "values")
                    for column in columns:
                        index = list(child.cget("columns")).index(column)
                        text = str(values[index]) if index < len(values) else ""
                        room = int(child.column(column, "width"))
                        if text and not text.endswith("…") and font.measure(text) + 4 > room:
                            problems.append(f"the list cell {text!r} is cut ({font.measure(text)} px in {room})")
            walk(child)

    walk(root)
    return problems


def window_problems(driver: TkDriver) -> list[str]:
    """Everything a person could not see whole: widgets outside the window, cut text, the window off the
    screen or bigger than 90% of it."""
    root = driver.root
    problems = widget_layout_problems(root) + cut_texts(root)
    sw, sh = root.winfo_screenwidth(), root.winfo_screenheight()
    if root.winfo_width() > sw * 0.9 + 1 or root.winfo_height() > sh * 0.9 + 1:
        problems.append(f"the window ({root.winfo_width()}x{root.winfo_height()}) is over 90% of {sw}x{sh}")
    if root.winfo_rootx() < 0 or root.winfo_rooty() < 0:
        problems.append("the window starts off the screen")
    return problems


def shot(driver: TkDriver, name: str) -> Path:
    return driver.screenshot(f"{name}-{size_of(driver)}", SHOTS)


async def test_the_window_fits_the_screen_is_centred_and_its_size_is_remembered(screen: TkDriver) -> None:
    root = screen.root
    sw, sh = root.winfo_screenwidth(), root.winfo_screenheight()
    width, height = root.winfo_width(), root.winfo_height()
    assert width <= sw * 0.9, (width, sw)
    assert height <= sh * 0.9, (height, sh)
    assert abs(root.winfo_rootx() - (sw - width) // 2) <= 1
    assert abs(root.winfo_rooty() - (sh - height) // 2) <= 1
    connect = screen.app.screen
    box = connect.connect_button.master
    assert abs((box.winfo_rootx() + box.winfo_width() / 2) - (root.winfo_rootx() + width / 2)) <= 2
    assert window_problems(screen) == []
    shot(screen, "connect")
    root.geometry(f"{width - 40}x{height - 10}")
    await screen.pump(lambda: root.winfo_width() == width - 40, 10, "the resize")
    screen.app.close()
    assert load_settings()["size"] == f"{width - 40}x{height - 10}"
    again = open_app()
    try:
        await screen.settle(0.3)
        assert (again.root.winfo_width(), again.root.winfo_height()) == (width - 40, height - 10)
    finally:
        close_app(again)


async def test_a_remembered_size_bigger_than_the_screen_is_cut_to_it(
    screen: TkDriver, monkeypatch: pytest.MonkeyPatch
) -> None:
    screen.app.settings["size"] = "3000x2000"
    screen.app.place_window()
    await screen.settle(0.3)
    root = screen.root
    assert root.winfo_width() <= root.winfo_screenwidth() * 0.9
    assert root.winfo_height() <= root.winfo_screenheight() * 0.9


async def test_the_lobby_is_whole(screen: TkDriver, server: RunningServer) -> None:
    lobby = await screen.connect(server.address)
    for game in ("powerup", "kart"):
        lobby.select_game(game)
        await screen.settle(0.2)
        shot(screen, f"lobby-form-{game}")
        assert window_problems(screen) == [], game
    await screen.create_table("powerup", 4, 3, seed=3)
    screen.table.back_to_lobby()
    await screen.pump(lambda: isinstance(screen.app.screen, LobbyScreen), 10, "the lobby")
    lobby = screen.app.screen
    assert isinstance(lobby, LobbyScreen)
    await screen.pump(lambda: bool(lobby.tree.get_children()), 10, "the table list")
    shot(screen, "lobby")
    assert window_problems(screen) == []


async def test_the_lobby_and_a_table_in_german_are_whole(
    screen: TkDriver, server: RunningServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With --lang de (TOADSTOOL_LANG) the window's own words are German, the server's game titles too, and
    the longer words still fit at every size."""
    monkeypatch.setenv("TOADSTOOL_LANG", "de")
    lobby = await screen.connect(server.address)
    assert lobby.create_button.cget("text") == "Erstellen und hinsetzen"
    assert "Super Mario Kart (Brettspiel)" in lobby.game_box.cget("values")
    lobby.select_game("kart")
    await screen.settle(0.2)
    # The option's label and its choices are the server's words, in German; the value sent is the track's id.
    labels = [w.cget("text") for w in lobby.options_frame.winfo_children() if w.winfo_class() == "TLabel"]
    assert "Strecke" in labels, labels
    assert lobby.choice_ids["track"]["Pilz-Rundkurs"] == "mushroom-loop"
    assert lobby.option_vars["track"].get() == "Pilz-Rundkurs"
    shot(screen, "lobby-de")
    assert window_problems(screen) == []
    table = await screen.create_table("uno", 3, 2, seed=3)
    await screen.settle(0.3)
    assert table.back_button.cget("text") == "Zurück zur Lobby"
    shot(screen, "uno-de")
    assert window_problems(screen) == []


async def play_until(driver: TkDriver, table: TableScreen, moves: int, seconds: float = 60) -> None:
    """Take the first offered action `moves` times (or until the game is over)."""
    for _ in range(moves):
        await driver.pump(
            lambda: (
                table.latest is not None
                and table.acting is None
                and (table.latest.status == table_pb2.TABLE_STATUS_FINISHED or bool(table.offered_actions()))
            ),
            seconds,
            "my turn",
        )
        assert table.latest is not None
        if table.latest.status == table_pb2.TABLE_STATUS_FINISHED:
            return
        buttons = table.bar.buttons
        if buttons:
            buttons[0].invoke()
        else:
            table.act(table.offered_actions()[0])
        await driver.settle(0.05)


GAMES: list[tuple[str, int, dict[str, str]]] = [
    ("uno", 4, {"target": "60"}),
    ("powerup", 6, {}),
    ("levelup", 6, {}),
    ("kart", 7, {}),
]


@pytest.mark.timeout(240)
@pytest.mark.parametrize(("game", "players", "options"), GAMES, ids=[g for g, _p, _o in GAMES])
async def test_every_game_is_whole_on_the_screen(
    screen: TkDriver, server: RunningServer, game: str, players: int, options: dict[str, str]
) -> None:
    await screen.connect(server.address)
    table = await screen.create_table(game, players, players - 1, seed=11, options=options)
    await play_until(screen, table, 5)
    await screen.settle(0.3)
    problems = window_problems(screen)
    board = table.board
    assert board is not None
    problems += canvas_layout_problems(table.canvas, board.width, board.height)
    shot(screen, f"table-{game}")
    assert problems == []


async def test_a_pending_power_up_trade_is_drawn_under_the_seats_panels(
    screen: TkDriver, server: RunningServer, client: Client
) -> None:
    """The trade arrow (and the gold rings of the two seats) lie under every panel: no seat's Extra Lives,
    notes or dealer badge is drawn over."""
    created = await client.create_table("powerup", 2, 0, {}, 5, "Duel")
    table_id = created.table.table_id
    lobby = await screen.connect(server.address)
    await screen.pump(lambda: table_id in lobby.tree.get_children(), 10, "the table in the list")
    lobby.tree.selection_set(table_id)
    await screen.settle(0.1)
    screen.click(lobby.join_button)
    await screen.pump(lambda: isinstance(screen.app.screen, TableScreen), 10, "the table screen")
    table = screen.table
    rival = await client.join(table_id, "Rival")
    await screen.pump(lambda: table.latest is not None and table.latest.version == 0, 10, "the deal")
    await client.act(table_id, rival.seat_token, 0, "trade:target=0")  # Rival asks the window's seat to trade
    await screen.pump(
        lambda: table.latest is not None and table.latest.view.powerup.pending.kind != 0 and table.redraw_pending
        is None, 10, "the pending trade",
    )  # fmt: skip
    await screen.settle(0.2)
    canvas = table.canvas
    order = list(canvas.find_all())
    arrows = [i for i in order if canvas.type(i) == "line" and canvas.itemcget(i, "arrow") == "last"]
    assert len(arrows) == 1
    panels = list(canvas.find_withtag("panel"))
    assert panels, "the seats' panels are drawn"
    assert all(order.index(arrows[0]) < order.index(panel) for panel in panels), "the arrow is under the panels"
    shot(screen, "powerup-trade")
    board = table.board
    assert board is not None
    assert canvas_layout_problems(canvas, board.width, board.height) == []


@pytest.mark.timeout(240)
async def test_kart_banana_chips_are_seen_on_the_track_and_named_in_the_legend(
    screen: TkDriver, server: RunningServer
) -> None:
    await screen.connect(server.address)
    table = await screen.create_table("kart", 7, 6, seed=11)

    def bananas() -> bool:
        return table.latest is not None and bool(table.latest.view.kart.banana_fields)

    for _ in range(80):
        if bananas() or (table.latest is not None and table.latest.status == table_pb2.TABLE_STATUS_FINISHED):
            break
        await play_until(screen, table, 1)
    assert bananas(), "a banana was laid on the track"
    await screen.pump(lambda: table.redraw_pending is None, 10, "the redraw")
    await screen.settle(0.2)
    canvas = table.canvas
    legend = [canvas.itemcget(i, "text") for i in canvas.find_all() if canvas.type(i) == "text"]
    assert "banana chip" in legend
    chips = [i for i in canvas.find_all() if canvas.type(i) == "oval" and canvas.itemcget(i, "fill") == kart.BANANA]
    on_track = [i for i in chips if (canvas.bbox(i)[2] - canvas.bbox(i)[0]) > 14]  # the legend's is smaller
    assert table.latest is not None
    assert len(on_track) == len(set(table.latest.view.kart.banana_fields)), "one chip on each banana's field"
    for chip in on_track:
        x0, y0, x1, y1 = canvas.bbox(chip)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        above = [
            i
            for i in canvas.find_overlapping(cx, cy, cx, cy)
            if canvas.find_all().index(i) > canvas.find_all().index(chip)
        ]
        fields = [i for i in above if canvas.type(i) == "polygon" and "move:" not in " ".join(canvas.gettags(i))]
        assert not fields, f"the chip at ({cx:.0f}, {cy:.0f}) is under a field"
    shot(screen, "kart-banana")
    board = table.board
    assert board is not None
    assert canvas_layout_problems(canvas, board.width, board.height) == []


@pytest.mark.timeout(240)
async def test_the_result_of_a_hand_is_held_whole_on_the_board(
    screen: TkDriver, server: RunningServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Motion, "frame_ms", None)  # the held result stays until the test steps it away
    await screen.connect(server.address)
    table = await screen.create_table("uno", 4, 3, seed=4, options={"target": "500"})
    for _ in range(400):
        if table.held is not None:
            break
        await play_until(screen, table, 1)
    assert table.held is not None, "a hand was won"
    await screen.pump(lambda: table.redraw_pending is None, 10, "the redraw")
    await screen.settle(0.2)
    shot(screen, "uno-hand-result")
    held = [
        table.canvas.itemcget(i, "text") for i in table.canvas.find_withtag("held") if table.canvas.type(i) == "text"
    ]
    assert "Hand 1: the result" in held
    assert not any(text.endswith("…") for text in held if " = " in text), held
    board = table.board
    assert board is not None
    assert canvas_layout_problems(table.canvas, board.width, board.height) == []
