"""The Tk boards in German (issue #43): with --lang de (TOADSTOOL_LANG) every word a board draws itself comes
from the clients' catalogue, so a German table of each game shows none of the English board words, and the
longer German words still fit (no text overlapping or leaving its panel, no widget cut). The host's "Start
now" is found by what it does, not by its English label, so it works in German too.

A real window under Xvfb (1280x800, the session's first screen) against a real server on a loopback port;
screenshots of each German board go to test-output/screenshots/ (or $TOADSTOOL_SHOTS) for a person.
"""

from __future__ import annotations

import os
import tkinter as tk
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from test_tk_screens import play_until, window_problems

import tk_helpers
from tk_helpers import SCREENSHOTS, TkDriver, canvas_layout_problems
from toadstool.api.v1 import table_pb2
from toadstool.server.app import RunningServer
from toadstool_clients.tk.motion import Motion

display = tk_helpers.display
driver = tk_helpers.driver
SHOTS = Path(os.environ.get("TOADSTOOL_SHOTS", SCREENSHOTS))

#: English words each game's Tk board draws itself (never on a German board).
ENGLISH = {
    "uno": ["Your hand", "Colour", "clockwise", "Draw ·", "Discard ·", " pts", "Hand 1", "lowest wins",
            "Catch!", "Watching", " from ", "held the colour", "offline"],
    "powerup": ["Round ", "supply", "Extra Li", "dealer", "(you)", "decided", "castle", "Your ? cards", "Castle",
                "Level ·", "Trade?", "Played this round", "Boo showed", "your modify turn", "any time",
                "when traded with", "before deciding", "as your decision", "out of the game", "now "],
    "levelup": ["Round ", "To place", "Off the board", "nominee", "(you)", " pts", "voted", "Power Ups ",
                "blocks ", "skips", "Your secret favourites", "Favourites", "Your Power Ups", "? blocks left",
                "Power Up deck", "Coin", "Shell", "Cherry", "Star", "Yes!", "Thwomp!"],
    "kart": [" laps", "FINISH", "items ", "bananas ", "Standings", "Rolls", "Click to roll", "banana chip",
             "booster", "mushroom", "Mushroom:", "Lightning!", "fields to drive", "skips ", "½ move", "move:"],
}  # fmt: skip
GAMES: list[tuple[str, int, dict[str, str]]] = [
    ("uno", 4, {"target": "60"}),
    ("powerup", 4, {}),
    ("levelup", 4, {}),
    ("kart", 4, {}),
]


@pytest.fixture(autouse=True)
def german(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOADSTOOL_LANG", "de")
    monkeypatch.setattr(Motion, "frame_ms", 0)


def canvas_words(canvas: tk.Canvas) -> str:
    """Every text drawn on the canvas, a line each."""
    return "\n".join(str(canvas.itemcget(i, "text")) for i in canvas.find_all() if canvas.type(i) == "text")


@pytest.fixture(params=["1280x800", "1024x600"])
async def sized(
    request: pytest.FixtureRequest, display: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[TkDriver]:
    """A fresh window on the session's 1280x800 screen and on a netbook's 1024x600 (German words are longer
    where room is least)."""
    size = None if request.param == "1280x800" else request.param
    async with tk_helpers.shown_window(tmp_path, monkeypatch, size) as driver:
        yield driver


@pytest.mark.timeout(240)
@pytest.mark.parametrize(("game", "players", "options"), GAMES, ids=[g for g, _p, _o in GAMES])
async def test_a_german_board_shows_german_words_whole(
    sized: TkDriver, server: RunningServer, game: str, players: int, options: dict[str, str]
) -> None:
    driver = sized
    await driver.connect(server.address)
    table = await driver.create_table(game, players, players - 1, seed=11, options=options)
    await play_until(driver, table, 5)
    await driver.settle(0.3)
    board = table.board
    assert board is not None
    size = f"{driver.root.winfo_screenwidth()}x{driver.root.winfo_screenheight()}"
    driver.screenshot(f"tk-{game}-de-{size}", SHOTS)
    words = canvas_words(table.canvas)
    for word in ENGLISH[game]:
        assert word not in words, (word, words)
    problems = window_problems(driver) + canvas_layout_problems(table.canvas, board.width, board.height)
    assert problems == []


async def test_the_hosts_start_now_works_in_german(driver: TkDriver, server: RunningServer) -> None:
    """The waiting room's bar offers the host's German "Jetzt starten" (found by what it does, not by an
    English label); pressing it fills the open seats with bots and starts the game."""
    await driver.connect(server.address)
    table = await driver.create_table("uno", 4, 0, seed=3, options={"target": "30"})
    start = "Jetzt starten (Bots nehmen die 3 freien Plätze)"
    await driver.pump(lambda: table.bar_button(start) is not None, 15, "the German start button")
    assert table.host_button is not None, "the German 'Bot hinzufügen' is in the bar"
    assert table.host_button.cget("text") == "Bot hinzufügen"
    driver.screenshot("tk-host-de-1280x800", SHOTS)
    words = canvas_words(table.canvas)  # the waiting room's board
    assert "Warten auf Spieler" in words, words
    for english in ("Waiting for players", "open", "you", "You host this table", "table "):
        assert english not in words, (english, words)
    button = table.bar_button(start)
    assert button is not None
    driver.click(button)
    await driver.pump(
        lambda: table.latest is not None and table.latest.status == table_pb2.TABLE_STATUS_PLAYING,
        15,
        "the game to start",
    )
    assert table.latest is not None
    assert [s.kind for s in table.latest.seats if s.index] == [table_pb2.SEAT_KIND_BOT] * 3


@pytest.mark.timeout(120)
async def test_the_german_result_card(driver: TkDriver, server: RunningServer) -> None:
    """UNO to one hand's end in German: the result card's headline and hint are German, its words whole."""
    import random

    await driver.connect(server.address)
    table = await driver.create_table("uno", 2, 1, seed=4, options={"target": "1"})
    await driver.play_to_the_end(random.Random(4), 90, "uno-result-card-de")
    await driver.pump(lambda: table.redraw_pending is None, 5, "the last drawing")
    await driver.settle(0.1)
    driver.screenshot("tk-uno-result-de-1280x800", SHOTS)
    words = canvas_words(table.canvas)
    assert "hat gewonnen!" in words or "Niemand hat gewonnen" in words, words
    assert "Esc oder ✕, um den Tisch zu sehen" in words, words
    for english in ("won!", "Esc or", "Rematch"):
        assert english not in words, (english, words)
    assert driver.table.bar_button("Revanche") is not None, "the bar's Rematch is German"
    board = table.board
    assert board is not None
    assert canvas_layout_problems(table.canvas, board.width, board.height) == []
