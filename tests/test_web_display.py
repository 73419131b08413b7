"""The table display (#/t/ID/display, the spectator's view for a shared screen) at 1920x1080 in a real headless
Chromium against a real `toadstool serve`: for every game at its largest table, bots playing, once the log
holds a few dozen events the page never scrolls (its scrollHeight is the screen's height), and the whole
board, Kart's track and every racer of its race order included, is on the screen beside the newest events.
Kart's race order used to sit under its track and the log grew with every event, so the page was about
1,700 px tall. Screenshots go to test-output/web/ (display-*-1920x1080.png).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import browser, create_table, find, page_text, screenshot, wait_for, web_server

from toadstool.api.v1 import service_pb2

SIZE = (1920, 1080)
#: The largest table of each game (README's table of games).
LARGEST = {"uno": 10, "powerup": 8, "levelup": 6, "kart": 7}
#: Events in the log before the page is measured (the log keeps the newest 60).
EVENTS = 30


@pytest.fixture
def web_url(tmp_path: Path) -> Iterator[str]:
    with web_server(tmp_path / "serve.log", bot_delay=0.05) as url:
        yield url


@pytest.fixture
def screen(tmp_path: Path) -> Iterator[Any]:
    driver = browser(tmp_path / "profile-display", SIZE)
    try:
        yield driver
    finally:
        driver.quit()


MEASURE = """
const page = document.scrollingElement;
const bottom = (s) => Math.max(0, ...[...document.querySelectorAll(s)].map((e) => e.getBoundingClientRect().bottom));
const newest = document.querySelector('.log li');
return {
  scrollHeight: page.scrollHeight, innerHeight, scrollWidth: page.scrollWidth, innerWidth,
  board: bottom('.board'), track: bottom('.board .track-svg'), racers: bottom('.board .standings .racer'),
  racerCount: document.querySelectorAll('.board .standings .racer').length,
  newest: newest ? newest.getBoundingClientRect().bottom : null, events: document.querySelectorAll('.log li').length,
};
"""


@pytest.mark.timeout(180)
@pytest.mark.parametrize("game", list(LARGEST))
def test_the_table_display_of_each_game_fits_1920x1080_without_scrolling(web_url: str, screen: Any, game: str) -> None:
    players = LARGEST[game]
    request = service_pb2.CreateTableRequest(
        game=game, players=players, bots=players, seed=7, name=f"{game} night", bot_delay_ms=150
    )
    table_id = create_table(web_url, request).table.table_id
    screen.get(f"{web_url}#/t/{table_id}/display")
    wait_for(screen, f".mode-display .board .{game}", 20)
    deadline = time.monotonic() + 90
    while len(find(screen, ".log li")) < EVENTS:
        assert time.monotonic() < deadline, f"fewer than {EVENTS} events in 90 s:\n{page_text(screen)}"
        time.sleep(0.2)
    assert not find(screen, ".outcome"), "the game ended before the display was measured"
    found: dict[str, Any] = screen.execute_script(MEASURE)
    screenshot(screen, f"display-{game}-1920x1080")
    assert found["scrollHeight"] <= found["innerHeight"], f"{game}'s display scrolls: {found}"
    assert found["scrollWidth"] <= found["innerWidth"], f"{game}'s display scrolls sideways: {found}"
    assert 0 < found["board"] <= found["innerHeight"], f"{game}'s board is not all on the screen: {found}"
    assert found["newest"] is not None, found
    assert found["newest"] <= found["innerHeight"], found
    if game == "kart":
        assert found["racerCount"] == players, found
        assert 0 < found["track"] <= found["innerHeight"], found
        assert 0 < found["racers"] <= found["innerHeight"], f"the race order is under the screen's edge: {found}"
