"""The table display (#/t/ID/display, the spectator's view for a shared screen) at 1920x1080, and at a laptop's
1366x768 and 1280x720 and a tablet's or old projector's 1024x768 standing in for a TV, in a real headless
Chromium against a real `toadstool serve`: for every game at its largest table, bots playing, once the log
holds a few dozen events the page never scrolls (its scrollHeight is the screen's height), and the whole
board, Kart's track and every racer of its race order included, is on the screen beside the newest events.
Kart's race order used to sit under its track and the log grew with every event, so the page was about 1,700
px tall. On the laptop a board taller than the room it has is zoomed down to fit (display.ts fitBoard). Below
1200 px wide the display used to be a scrolling page, 1,559-2,398 px tall at 1024x768 with the result above
the board. Screenshots go to test-output/web/ (display-GAME-WxH.png).

Once the game is over the same holds with the result on the screen (the ranking, the summary and the game's
account, readable): a finished Kart display used to add its result above the board and reach about 1,266 px at
1920x1080, and every game's finished display reached 900-1,198 px at 1366x768 (display-GAME-finished-WxH.png).
And a finished Kart race is ranked by progress on the track, not laps (docs/rules/kart.md §8): the display's
ranking and the TV's podium show the places the server states (Outcome.places), where the ranking by laps used
to put every racer on the same lap on one shared place in seat order.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import (
    WebClient,
    browser,
    create_table,
    find,
    get_table,
    page_text,
    resize,
    screenshot,
    texts_of,
    wait_for,
    web_server,
)

from toadstool.api.v1 import service_pb2, table_pb2

SIZE = (1920, 1080)
#: The largest table of each game (README's table of games).
LARGEST = {"uno": 10, "powerup": 8, "levelup": 6, "kart": 7}
#: Events in the log before the page is measured (the log keeps the newest 60).
EVENTS = 30

#: The screens a display is measured on: a TV, and a laptop standing in for one (its usual sizes).
SIZES = [(1920, 1080), (1366, 768), (1280, 720), (1024, 768)]
#: Two animation frames: a resize's event (the display zooms its board to the new size then) has been handled.
FRAMES = "const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(() => done()));"


def _resized(screen: Any, size: tuple[int, int]) -> None:
    """The page at `size`, as a window dragged to it, once the page has answered the resize."""
    resize(screen, size)
    screen.execute_async_script(FRAMES)


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
  zoom: document.querySelector('.board')?.style.zoom,
};
"""


@pytest.mark.timeout(180)
@pytest.mark.parametrize("game", list(LARGEST))
def test_the_table_display_of_each_game_fits_a_tv_and_a_laptop_without_scrolling(
    web_url: str, screen: Any, game: str
) -> None:
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
    for width, height in SIZES:  # then dragged to a laptop's sizes: its board zoomed to the room it has
        _resized(screen, (width, height))
        found: dict[str, Any] = screen.execute_script(MEASURE)
        found["size"] = f"{width}x{height}"
        screenshot(screen, f"display-{game}-{width}x{height}")
        assert found["scrollHeight"] <= found["innerHeight"], f"{game}'s display scrolls: {found}"
        assert found["scrollWidth"] <= found["innerWidth"], f"{game}'s display scrolls sideways: {found}"
        assert 0 < found["board"] <= found["innerHeight"], f"{game}'s board is not all on the screen: {found}"
        assert found["newest"] is not None, found
        assert found["newest"] <= found["innerHeight"], found
        if game == "kart":
            assert found["racerCount"] == players, found
            assert 0 < found["track"] <= found["innerHeight"], found
            assert 0 < found["racers"] <= found["innerHeight"], f"the race order is under the screen's edge: {found}"


def _finished(url: str, game: str, players: int, seed: int) -> table_pb2.Update:
    """A table of `players` bots of `game` played to its end (bots without delay), as a spectator's update."""
    request = service_pb2.CreateTableRequest(
        game=game, players=players, bots=players, seed=seed, name=f"{game} night", bot_delay_ms=0
    )
    table_id = create_table(url, request).table.table_id
    deadline = time.monotonic() + 120
    while get_table(url, table_id).status != table_pb2.TABLE_STATUS_FINISHED:
        assert time.monotonic() < deadline, f"{game} did not end in 120 s"
        time.sleep(0.25)

    async def first() -> table_pb2.Update:
        async with WebClient(url.rstrip("/")) as web:
            async for response in web.watch(table_id):
                if response.HasField("update"):
                    return response.update
        raise AssertionError("the Watch stream ended without an update")

    update = asyncio.run(first())
    assert update.status == table_pb2.TABLE_STATUS_FINISHED, update
    assert update.HasField("outcome"), update
    return update


FINISHED = """
const page = document.scrollingElement;
const box = (s) => { const e = document.querySelector(s); return e ? e.getBoundingClientRect().toJSON() : null; };
const font = (s) => { const e = document.querySelector(s); return e ? parseFloat(getComputedStyle(e).fontSize) : 0; };
const bottom = (s) => Math.max(0, ...[...document.querySelectorAll(s)].map((e) => e.getBoundingClientRect().bottom));
return {
  scrollHeight: page.scrollHeight, innerHeight, scrollWidth: page.scrollWidth, innerWidth,
  outcome: box('.outcome'), ranking: bottom('.outcome .ranking li'), rankingFont: font('.outcome .ranking li'),
  summary: box('.outcome .summary'), details: bottom('.outcome .how-it-went[open] li, .outcome .how-it-went summary'),
  board: bottom('.board'), track: bottom('.board .track-svg'), zoom: document.querySelector('.board')?.style.zoom,
};
"""


def _finished_fits(screen: Any, game: str, size: str) -> None:
    found: dict[str, Any] = screen.execute_script(FINISHED)
    found["size"] = size
    assert found["scrollHeight"] <= found["innerHeight"], f"{game}'s finished display scrolls: {found}"
    assert found["scrollWidth"] <= found["innerWidth"], f"{game}'s finished display scrolls sideways: {found}"
    # The result is on the screen and readable across a table: the ranking whole, in at least 20 px type,
    # the game's summary and its account (or the account's heading, folded when it is long) too.
    assert 0 < found["ranking"] <= found["innerHeight"], found
    assert found["rankingFont"] >= 20, found
    assert found["summary"], found
    assert 0 < found["summary"]["bottom"] <= found["innerHeight"], found
    assert 0 < found["details"] <= found["innerHeight"], found
    assert 0 < found["board"] <= found["innerHeight"], f"{game}'s board is not all on the screen: {found}"
    if game == "kart":
        assert 0 < found["track"] <= found["innerHeight"], found


@pytest.mark.timeout(300)
@pytest.mark.parametrize("game", list(LARGEST))
def test_the_finished_display_of_each_game_fits_a_tv_and_a_laptop_with_its_result(
    web_url: str, screen: Any, game: str
) -> None:
    """At 1920x1080, then dragged to 1366x768 and 1280x720 (a laptop as the TV), and loaded afresh at
    1280x720: every time the whole result and the whole board on the screen, nothing scrolled. Below 900 px
    of height the board is zoomed to the room the result leaves it; at 1366x768 the page used to reach 900-1,198 px."""
    players = LARGEST[game]
    update = _finished(web_url, game, players, seed=11)
    screen.get(f"{web_url}#/t/{update.table_id}/display")
    wait_for(screen, ".mode-display .outcome .ranking li", 20)
    wait_for(screen, f".mode-display .board .{game}", 20)
    assert len(find(screen, ".outcome .ranking li")) == players
    for width, height in SIZES:
        _resized(screen, (width, height))
        screenshot(screen, f"display-{game}-finished-{width}x{height}")
        _finished_fits(screen, game, f"{width}x{height}")
    screen.refresh()  # drawn first at the laptop's size, not zoomed on a resize
    wait_for(screen, ".mode-display .outcome .ranking li", 20)
    wait_for(screen, f".mode-display .board .{game}", 20)
    screen.execute_async_script(FRAMES)
    _finished_fits(screen, game, "1280x720, loaded")


def _laps_and_places(update: table_pb2.Update) -> tuple[list[int], list[int]]:
    return list(update.scores), list(update.outcome.places)


@pytest.mark.timeout(240)
def test_a_finished_kart_race_is_ranked_by_progress_on_the_display_and_the_tv(web_url: str, screen: Any) -> None:
    """Seven racers: six behind the winner on at most three laps, so some share a lap; the seed makes two
    of them on one lap finish in the other order than their seats' (the ranking by laps kept seat order)."""
    update = _finished(web_url, "kart", 7, seed=11)
    laps, places = _laps_and_places(update)
    assert len(places) == 7, places
    assert min(places) == 1, places
    assert places[update.outcome.winners[0]] == 1, (places, update.outcome.winners)
    # The places follow the karts' progress (docs/rules/kart.md §8), which the view carries.
    progress = [k.progress for k in update.view.kart.karts]
    for a in range(7):
        for b in range(7):
            if a != b and places[a] != 1 and places[b] != 1:
                assert (places[a] < places[b]) == (progress[a] > progress[b]), (places, progress)
    crossed = [(a, b) for a in range(7) for b in range(a + 1, 7) if laps[a] == laps[b] and places[a] > places[b]]
    assert crossed, f"the seed gives no two racers on one lap out of seat order: laps {laps}, places {places}"
    names = {s.index: s.name for s in update.seats}
    expected = sorted(range(7), key=lambda s: (places[s], s))

    # The display's ranking: the server's places, in their order, each with its ordinal.
    screen.get(f"{web_url}#/t/{update.table_id}/display")
    wait_for(screen, ".mode-display .outcome .ranking li", 20)
    rows = screen.execute_script(
        "return [...document.querySelectorAll('.outcome .ranking li')]"
        ".map((e) => [Number(e.dataset.seat), e.querySelector('.place').textContent])"
    )
    assert [seat for seat, _ in rows] == expected, (rows, places)
    assert [int("".join(c for c in place if c.isdigit())) for _, place in rows] == [places[s] for s in expected]
    # The game's own summary says the same order.
    summary = update.outcome.summary
    assert [summary.index(f"{places[s]}. {names[s]}") for s in expected] == sorted(
        summary.index(f"{places[s]}. {names[s]}") for s in expected
    ), summary

    # The TV's podium: the first three places on their steps, the others after them in order.
    screen.get(f"{web_url}#/t/{update.table_id}/tv")
    wait_for(screen, ".tv-podium .podium .place-1", 20)
    screenshot(screen, "tv-kart-podium-1920x1080")
    steps = screen.execute_script(
        "return [...document.querySelectorAll('.podium .step')]"
        ".map((e) => [Number(e.value), e.querySelector('.name').textContent])"
    )
    assert sorted(steps) == sorted([places[s], names[s]] for s in expected[:3]), (steps, places)
    rest = texts_of(screen, ".tv-rest")[0]
    at = [rest.index(names[s]) for s in expected[3:]]
    assert at == sorted(at), (rest, places)
    # The podium fits the screen whole, its summary unclipped (squeezed, it lost its last line).
    fits = screen.execute_script(TV_FITS)
    assert fits["scrollHeight"] <= fits["innerHeight"], fits
    assert fits["top"] >= 0, fits
    assert fits["bottom"] <= fits["innerHeight"], fits
    assert fits["summary"][0] <= fits["summary"][1] + 1, f"the TV's summary is clipped: {fits}"
    assert fits["finalLines"] >= 1, fits


TV_FITS = """
const p = document.querySelector('.tv-podium');
const s = document.querySelector('.tv-summary');
const lines = [...document.querySelectorAll('.tv-final li:not(.earlier)')].filter((e) => e.offsetParent);
return {
  scrollHeight: document.scrollingElement.scrollHeight, innerHeight,
  top: p.firstElementChild.getBoundingClientRect().top, bottom: p.lastElementChild.getBoundingClientRect().bottom,
  summary: [s.scrollHeight, s.clientHeight], finalLines: lines.length,
};
"""
