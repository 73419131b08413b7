"""The Tk client's screens as a person sees them: every game at 760x520, 1200x780 and 1280x800, at its
smallest table, at four seats and at the largest it allows, walked item by item for overlapping text, text
leaving its panel, labels covered by another piece, labels that run into a mark beside them, pieces that
cannot be clicked where they are drawn (another piece or a label on top) and widgets cut off.

Each test sits at a table with bots, plays random legal moves from the window, and at several points of the
game draws the table at each size and checks it; a screenshot of each game at each size is saved under
test-output/tk/ for a person to look at.
"""

from __future__ import annotations

import random
import tkinter as tk

import pytest

import tk_helpers
from tk_helpers import (
    LAYOUT_SIZES,
    SHAPES,
    TK_SCREENSHOTS,
    TkDriver,
    canvas_layout_problems,
    widget_layout_problems,
)
from toadstool.api.v1 import kart_pb2, table_pb2
from toadstool.server.app import RunningServer
from toadstool_clients.tk.games import CLICKABLE, HOVER, STACKED, TIPPED, Board, ClickTarget, kart
from toadstool_clients.tk.motion import Motion
from toadstool_clients.tk.table import TableScreen

display = tk_helpers.display
driver = tk_helpers.driver

#: (game, players, options): every game at its smallest table, at four seats and at the largest it allows.
TABLES = [
    ("uno", 2, {"target": "60"}),
    ("uno", 4, {"target": "60"}),
    ("uno", 10, {"target": "60"}),
    ("powerup", 2, {}),
    ("powerup", 4, {}),
    ("powerup", 6, {}),
    ("powerup", 8, {}),
    ("levelup", 3, {}),
    ("levelup", 4, {}),
    ("levelup", 6, {}),
    ("kart", 2, {}),
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


#: Items drawn over the board on purpose, for a moment or until closed: they may cover what is under them.
OVER_THE_BOARD = {"outcome", "held", HOVER}
#: The tags that make items one piece (a token and its name, a card and its symbols).
PIECE_TAGS = ("click", "tip", "move:")


def _piece(canvas: tk.Canvas, item: int) -> set[str]:
    return {tag for tag in canvas.gettags(item) if tag.startswith(PIECE_TAGS) and tag not in (CLICKABLE, TIPPED)}


def _shown(canvas: tk.Canvas, item: int) -> bool:
    return canvas.itemcget(item, "state") not in ("hidden", "disabled") and not OVER_THE_BOARD & set(
        canvas.gettags(item)
    )


def covered_label_problems(canvas: tk.Canvas) -> list[str]:
    """Labels a person cannot read: text of which more than a third lies under a filled shape of another
    piece drawn after it (a token laid over the next one's initials), unless the text belongs to a pile or
    fan whose hidden faces are hidden on purpose (tagged STACKED)."""
    order = {item: index for index, item in enumerate(canvas.find_all())}
    problems = []
    for item in order:
        if canvas.type(item) != "text" or not canvas.itemcget(item, "text").strip() or not _shown(canvas, item):
            continue
        if STACKED in canvas.gettags(item):
            continue
        x0, y0, x1, y1 = canvas.bbox(item)
        x0, y0, x1, y1 = x0 + 2, y0 + 2, x1 - 2, y1 - 2
        own = _piece(canvas, item)
        points = [(x0 + (x1 - x0) * i / 4, y0 + (y1 - y0) * j / 2) for i in range(5) for j in range(3)]
        covered = []
        for px, py in points:
            for other in canvas.find_overlapping(px, py, px, py):
                if order[other] <= order[item] or not _shown(canvas, other) or canvas.type(other) not in SHAPES:
                    continue
                if canvas.itemcget(other, "fill") in ("", "{}") or own & _piece(canvas, other):
                    continue
                covered.append(other)
                break
        if len(covered) * 3 > len(points):
            by = covered[0]
            text = f"{canvas.itemcget(item, 'text')!r} at {canvas.bbox(item)} {canvas.gettags(item)}"
            problems.append(f"{text} is covered by the {canvas.type(by)} {canvas.bbox(by)} {canvas.gettags(by)}")
    return problems


def touching_problems(canvas: tk.Canvas) -> list[str]:
    """Labels that run into a small mark beside them (a dot, a swatch, a field): a mark that is not part of the
    label's piece must keep at least 2 px from the text on its line, or the two read as one ("Peach●")."""
    texts, marks = [], []
    for item in canvas.find_all():
        if not _shown(canvas, item) or STACKED in canvas.gettags(item):
            continue
        moving = any(tag.startswith("move:") for tag in canvas.gettags(item))  # a token: on its own disc
        if canvas.type(item) == "text" and canvas.itemcget(item, "text").strip() and not moving:
            texts.append(item)
        elif canvas.type(item) in SHAPES and canvas.itemcget(item, "fill") not in ("", "{}"):
            x0, y0, x1, y1 = canvas.bbox(item)
            if x1 - x0 <= 16 and y1 - y0 <= 16 and not moving:
                marks.append(item)  # a moving piece (a token) is not a mark: overlaps of pieces are checked apart
    problems = []
    for text in texts:
        tx0, ty0, tx1, ty1 = canvas.bbox(text)
        tx0, tx1 = tx0 + 1, tx1 - 1  # Tk pads a text's box by a pixel
        own = _piece(canvas, text)
        for mark in marks:
            if own & _piece(canvas, mark):
                continue
            mx0, my0, mx1, my1 = canvas.bbox(mark)
            if mx0 <= (tx0 + tx1) / 2 <= mx1 and my0 <= (ty0 + ty1) / 2 <= my1:
                continue  # the mark's own label, written on it (a swatch's sign)
            if min(ty1, my1) - max(ty0, my0) < min(ty1 - ty0, my1 - my0) / 2:
                continue  # not on the text's line
            gap = max(mx0 - tx1, tx0 - mx1)
            if gap < 2:  # touching, or laid over the text's end
                problems.append(
                    f"{canvas.itemcget(text, 'text')!r} {canvas.bbox(text)} touches the mark {(mx0, my0, mx1, my1)}"
                )
    return problems


def clickable_problems(canvas: tk.Canvas, targets: list[ClickTarget]) -> list[str]:
    """Pieces a person cannot click: at a clickable piece's spot (and a few pixels round it) the topmost item
    must be that piece, not another piece or a label laid over it."""
    problems = []
    for target in targets:
        for dx, dy in ((0, 0), (-3, -3), (3, -3), (-3, 3), (3, 3)):
            x, y = target.x + dx, target.y + dy
            under = [item for item in canvas.find_overlapping(x, y, x, y) if _shown(canvas, item)]
            if not under or target.tag not in canvas.gettags(under[-1]):
                top = f"{canvas.type(under[-1])} {canvas.gettags(under[-1])}" if under else "nothing"
                problems.append(f"{target.what!r} at ({x:.0f}, {y:.0f}) is under {top}")
                break
    return problems


def problems_at(driver: TkDriver, table: TableScreen) -> list[str]:
    board = table.board
    assert board is not None
    problems = canvas_layout_problems(table.canvas, board.width, board.height) + widget_layout_problems(driver.root)
    problems += covered_label_problems(table.canvas) + clickable_problems(table.canvas, board.targets)
    problems += touching_problems(table.canvas)
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


#: The board's size (the canvas) in a window of each of the LAYOUT_SIZES.
BOARD_SIZES = ((520, 398), (900, 658), (980, 678))


@pytest.mark.parametrize(("width", "height"), BOARD_SIZES, ids=[f"{w}x{h}" for w, h in BOARD_SIZES])
async def test_a_kart_racer_s_name_keeps_clear_of_the_dot_for_its_item_in_the_standings(
    driver: TkDriver, width: int, height: int
) -> None:
    """Seven karts, each holding an item (the yellow dot when a row has one line): drawn on a real canvas, no
    name touches or runs under its dot ("Peach●" was seen at 760x520), at every board size."""
    characters = ["Peach", "Luigi", "Toad", "Yoshi", "Wario", "Mario", "Donkey Kong"]
    update = table_pb2.Update(status=table_pb2.TABLE_STATUS_PLAYING, viewer_seat=0)
    view = update.view.kart
    view.laps = 3
    view.track.length = 40
    view.track.fields.extend([kart_pb2.KART_FIELD_TYPE_PLAIN] * 40)
    for seat, character in enumerate(characters):
        update.seats.add(index=seat, name=f"Player number {seat + 1}", kind=table_pb2.SEAT_KIND_BOT)
        update.scores.append(0)
        shell = kart_pb2.KART_ITEM_GREEN_SHELL
        view.karts.add(seat=seat, color=seat % 7 + 1, character=character, field=seat * 5, progress=40 - seat,
                       coins=10 + seat, item=shell, skips=seat % 2, start_place=seat)  # fmt: skip
    for roller in (1, 2, 0):  # the latest rolls and the die to roll take their room: one line a racer
        view.last_rolls.add(roller=roller, value=roller + 2)
    update.legal_actions.add(id="roll").action.kart.roll.SetInParent()
    window = tk.Toplevel(driver.root)
    try:
        canvas = tk.Canvas(window, width=width, height=height, highlightthickness=0)
        canvas.pack()
        board = Board(canvas, width, height, update, lambda _actions, _event: None)
        kart.draw(board, view)
        await driver.settle(0.05)
        problems = canvas_layout_problems(canvas, width, height) + covered_label_problems(canvas)
        problems += touching_problems(canvas)
        names = [i for i in canvas.find_all() if canvas.type(i) == "text" and any(
            canvas.itemcget(i, "text").startswith(c[:3]) for c in characters)]  # fmt: skip
        assert len(names) >= len(characters), "every racer is named in the standings"
        assert not problems, "\n".join(problems)
    finally:
        window.destroy()
