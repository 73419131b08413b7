"""The Tk client's screens as a person sees them: every game at 760x520, 1200x780 and 1280x800, at small and
large tables, walked item by item for overlapping text, text leaving its panel and widgets cut off.

Each test sits at a table with bots, plays random legal moves from the window, and at several points of the
game draws the table at each size and checks it; a screenshot of each game at each size is saved under
test-output/tk/ for a person to look at.
"""

from __future__ import annotations

import random

import pytest

import tk_helpers
from tk_helpers import LAYOUT_SIZES, TK_SCREENSHOTS, TkDriver, canvas_layout_problems, widget_layout_problems
from toadstool.api.v1 import table_pb2
from toadstool.server.app import RunningServer
from toadstool_clients.tk.motion import Motion
from toadstool_clients.tk.table import TableScreen

display = tk_helpers.display
driver = tk_helpers.driver

#: (game, players, options): every game, at a small table and at the largest the screen must take.
TABLES = [
    ("uno", 4, {"target": "60"}),
    ("uno", 8, {"target": "60"}),
    ("powerup", 4, {}),
    ("powerup", 6, {}),
    ("powerup", 8, {}),
    ("levelup", 4, {}),
    ("levelup", 6, {}),
    ("kart", 4, {}),
    ("kart", 7, {}),
]
#: After how many of the viewer's own moves the screen is checked at every size.
CHECKPOINTS = (0, 3, 9)


@pytest.fixture(autouse=True)
def still(monkeypatch: pytest.MonkeyPatch) -> None:
    """No animation: each frame sequence ends at once, so the board is checked as it comes to rest."""
    monkeypatch.setattr(Motion, "frame_ms", 0)


async def show_at(driver: TkDriver, table: TableScreen, width: int, height: int) -> None:
    """Resize the window and wait for the table to be drawn at the new size."""
    drawn = table.draw_count
    driver.root.geometry(f"{width}x{height}")
    await driver.pump(
        lambda: driver.root.winfo_width() == width and table.draw_count > drawn and table.redraw_pending is None,
        10,
        f"a redraw at {width}x{height}",
    )
    await driver.settle(0.05)


def problems_at(driver: TkDriver, table: TableScreen) -> list[str]:
    board = table.board
    assert board is not None
    problems = canvas_layout_problems(table.canvas, board.width, board.height) + widget_layout_problems(driver.root)
    shown = (table.canvas.winfo_width(), table.canvas.winfo_height())
    if shown < (board.width, board.height) or shown[1] < board.height:
        problems.append(f"the board ({board.width}x{board.height}) scrolls in a {shown[0]}x{shown[1]} canvas")
    return problems


async def my_turn(driver: TkDriver, table: TableScreen) -> bool:
    """Wait until the viewer may act (True) or the game is over (False)."""
    await driver.pump(
        lambda: (
            table.latest is not None
            and table.redraw_pending is None
            and table.acting is None
            and (table.latest.status == table_pb2.TABLE_STATUS_FINISHED or bool(table.offered_actions()))
        ),
        30,
        "my turn",
    )
    assert table.latest is not None
    return table.latest.status != table_pb2.TABLE_STATUS_FINISHED


@pytest.mark.timeout(240)
@pytest.mark.parametrize(("game", "players", "options"), TABLES, ids=[f"{g}-{p}" for g, p, _ in TABLES])
async def test_no_text_overlaps_and_no_control_is_cut_off_at_any_window_size(
    driver: TkDriver, server: RunningServer, game: str, players: int, options: dict[str, str]
) -> None:
    await driver.connect(server.address)
    table = await driver.create_table(game, players, players - 1, seed=players * 7, options=options)
    rng = random.Random(players)
    found: dict[str, list[str]] = {}
    moves = 0
    for checkpoint in CHECKPOINTS:
        playing = await my_turn(driver, table)
        while playing and moves < checkpoint:
            legal = rng.choice(table.offered_actions())
            version = table.latest.version if table.latest else 0
            table.act(legal)
            await driver.pump(lambda v=version: driver._moved(table, v), 10, "the move to land")
            moves += 1
            playing = await my_turn(driver, table)
        for width, height in LAYOUT_SIZES:
            await show_at(driver, table, width, height)
            for problem in problems_at(driver, table):
                found.setdefault(f"{width}x{height} after {moves} moves", []).append(problem)
            if checkpoint == CHECKPOINTS[1] or not playing:
                driver.screenshot(f"{game}-{players}p-{width}x{height}", TK_SCREENSHOTS)
        if not playing:
            break
    assert not found, "\n".join(f"{where}:\n  " + "\n  ".join(problems) for where, problems in found.items())


async def test_the_connect_screen_the_lobby_and_the_waiting_room_fit_every_window_size(
    driver: TkDriver, server: RunningServer
) -> None:
    found: dict[str, list[str]] = {}

    async def check(screen: str) -> None:
        for width, height in LAYOUT_SIZES:
            driver.root.geometry(f"{width}x{height}")
            await driver.pump(lambda w=width: driver.root.winfo_width() == w, 10, f"{width}x{height}")
            await driver.settle(0.15)
            problems = widget_layout_problems(driver.root)
            if isinstance(driver.app.screen, TableScreen) and driver.app.screen.board is not None:
                board = driver.app.screen.board
                problems += canvas_layout_problems(driver.app.screen.canvas, board.width, board.height)
            if problems:
                found[f"{screen} at {width}x{height}"] = problems
            driver.screenshot(f"{screen}-{width}x{height}", TK_SCREENSHOTS)

    await check("connect")
    await driver.connect(server.address)
    await check("lobby")
    table = await driver.create_table("uno", 6, 2, seed=1, options={"target": "30"})
    await driver.pump(lambda: table.host_button is not None and table.redraw_pending is None, 10, "the waiting room")
    await check("waiting-room")
    assert not found, "\n".join(f"{where}:\n  " + "\n  ".join(problems) for where, problems in found.items())
