"""The TV screen (#/tv and #/t/ID/tv) in a real headless Chromium against a real `toadstool serve`.

For every game at its largest table (bots only, so it plays while the screen is looked at), the screen at
1920x1080 and 1280x720: it never scrolls, the board is inside its box, the turn banner, the scores and the
last events are in type at least three times a phone's 16 px at 1080 lines (as large a share of a 720-line
screen): text a phone shows at 16 px and 35 cm subtends the same angle at 3 m at about 46 px on a 40-inch
1080p TV (0.46 mm pixels), so 48 px is what reads from the sofa. Kart's board says the last roll at that size
too, and its race order at twice a phone's type (detail beside the track, which takes the rest). Each score
reads once, naturally ("2 laps", "1 lap"; with more than eight seats the unit heads the list once). It holds
no control but the full-screen offer, and a spectator's QR code for latecomers is in its corner.
Waiting: the QR code of the table's page (the image the server draws for exactly that page) and the seats
filling as people sit. At the end: a podium. `#/tv` follows the newest game on the server. Screenshots go to
test-output/web/ (tv-*.png).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import httpx
import pytest
from web_helpers import (
    attribute_of,
    browser,
    create_table,
    find,
    page_text,
    resize,
    screenshot,
    text_of,
    texts_of,
    wait_for,
    web_server,
)

from toadstool.api.v1 import service_pb2

TV_SIZES = {"1080": (1920, 1080), "720": (1280, 720)}
#: The largest table of each game (README's table of games).
LARGEST = {"uno": 10, "powerup": 8, "levelup": 6, "kart": 7}
#: A phone's base type (px): the TV's turn banner, scores and events are at least three times it at 1080.
PHONE_TYPE = 16


@pytest.fixture
def web_url(tmp_path: Path) -> Iterator[str]:
    with web_server(tmp_path / "serve.log", bot_delay=0.05) as url:
        yield url


@pytest.fixture
def tv(tmp_path: Path) -> Iterator[Any]:
    driver = browser(tmp_path / "profile-tv", TV_SIZES["1080"])
    try:
        yield driver
    finally:
        driver.quit()


def _create(url: str, game: str, players: int, bots: int, bot_delay_ms: int = 600) -> str:
    request = service_pb2.CreateTableRequest(
        game=game, players=players, bots=bots, seed=7, name=f"{game} night", bot_delay_ms=bot_delay_ms
    )
    return create_table(url, request).table.table_id


def _fits(driver: Any) -> dict[str, Any]:
    """What the screen's layout measures: the page's and the board's overflow, the type sizes."""
    found: dict[str, Any] = driver.execute_script(
        """
        const page = document.scrollingElement;
        const board = document.querySelector('.tv-board');
        const px = (s) => Math.min(
          ...[...document.querySelectorAll(s)].map((e) => parseFloat(getComputedStyle(e).fontSize)));
        return {
          pageOver: page.scrollHeight - innerHeight, pageWide: page.scrollWidth - innerWidth,
          boardOver: board ? board.scrollHeight - board.clientHeight : 0,
          boardWide: board ? board.scrollWidth - board.clientWidth : 0,
          turn: px('.tv-turn'), scores: px('.tv-scores li'), events: px('.tv-events li'),
          // Inside the board, as shown: its type times the board's zoom.
          roll: px('.tv-board .die-caption') * parseFloat(board?.querySelector('.tv-fit').style.zoom || 1),
          race: px('.tv-board .standings .racer') * parseFloat(board?.querySelector('.tv-fit').style.zoom || 1),
          scoreRows: [...document.querySelectorAll('.tv-scores li')].map((e) => e.innerText.replace(/\\s+/g, ' ')),
          units: [...document.querySelectorAll('.tv-score-unit, .tv-score-label')].map((e) => e.textContent),
          clipped: [...document.querySelectorAll(
              '.tv-scores li, .tv-corner .qr, .tv-events li:first-child, .tv-turn, .tv-seats li')]
            .filter((e) => { const r = e.getBoundingClientRect(), box = e.parentElement.getBoundingClientRect();
              return r.right > Math.min(innerWidth, box.right) + 1 || r.bottom > Math.min(innerHeight, box.bottom) + 1
                || r.left < -1 || r.top < -1 || e.scrollWidth > e.clientWidth + 1 && !e.matches('.tv-turn'); })
            .map((e) => e.textContent || e.className),
          zoom: board ? parseFloat(board.querySelector('.tv-fit').style.zoom) : null,
          controls: [...document.querySelectorAll('button, input, select, a[href]')]
            .filter((e) => !e.disabled && !e.closest('.tv-board') && !e.classList.contains('tv-fullscreen')
              && !e.classList.contains('invite-link')).map((e) => e.outerHTML.slice(0, 80)),
        };
        """
    )
    return found


def _wait_playing(driver: Any, seconds: float = 20) -> None:
    wait_for(driver, ".tv-playing .tv-board .tv-fit > *", seconds)
    time.sleep(0.3)  # a frame for the fit to settle after the newest update


@pytest.mark.parametrize("game", list(LARGEST))
def test_each_game_at_its_largest_table_fits_the_tv_without_scrolling(web_url: str, tv: Any, game: str) -> None:
    table_id = _create(web_url, game, LARGEST[game], LARGEST[game])
    tv.get(f"{web_url}#/t/{table_id}/tv")
    for label, size in TV_SIZES.items():
        resize(tv, size)
        _wait_playing(tv)
        fits = _fits(tv)
        screenshot(tv, f"tv-{game}-{label}")
        assert fits["pageOver"] <= 0, f"{game} at {size} scrolls: {fits}"
        assert fits["pageWide"] <= 0, f"{game} at {size} scrolls: {fits}"
        assert fits["boardOver"] <= 1, f"{game}'s board overflows at {size}: {fits}"
        assert fits["boardWide"] <= 1, f"{game}'s board overflows at {size}: {fits}"
        scale = size[1] / 1080
        floor = 3 * PHONE_TYPE * scale
        assert fits["turn"] >= floor, fits
        assert fits["scores"] >= floor, fits
        assert fits["events"] >= floor, fits
        if game == "kart":
            assert fits["roll"] >= floor, fits
            assert fits["race"] >= 2 * PHONE_TYPE * scale - 0.5, fits
        label = {"uno": "points", "powerup": "Extra Lives", "levelup": "points", "kart": "laps"}[game]
        if LARGEST[game] > 8:
            assert fits["units"] == [label], f"the unit heads the scores once: {fits}"
            assert all(re.fullmatch(r".+ \d+", row) for row in fits["scoreRows"]), fits
        else:
            assert fits["units"] == [], f"no label line of its own: {fits}"
            one = {"points": "point", "Extra Lives": "Extra Life", "laps": "lap"}[label]
            for row in fits["scoreRows"]:
                said = re.fullmatch(r".+ (\d+) (.+)", row)
                assert said, row
                assert said.group(2) == (one if said.group(1) == "1" else label), row
        assert fits["controls"] == [], f"the TV screen holds controls: {fits['controls']}"
        assert fits["clipped"] == [], f"{game} at {size}: cut off: {fits['clipped']}"
        corner = attribute_of(tv, ".tv-corner img.qr", "src")
        assert parse_qs(urlparse(corner).query)["page"] == [f"#/t/{table_id}/watch"]


def test_the_waiting_screen_shows_the_tables_qr_code_and_the_seats_filling_up(web_url: str, tv: Any) -> None:
    table_id = _create(web_url, "uno", 4, 0)
    tv.get(f"{web_url}#/t/{table_id}/tv")
    qr = wait_for(tv, ".tv-waiting .invite img.qr")
    src = qr.get_attribute("src")
    assert parse_qs(urlparse(src).query)["page"] == [f"#/t/{table_id}"]
    image = httpx.get(src, timeout=10)
    assert image.status_code == 200
    assert image.headers["content-type"] == "image/svg+xml"
    assert b"<svg" in image.content
    link = wait_for(tv, ".tv-waiting .invite-link")
    assert link.text == f"{web_url}#/t/{table_id}"
    assert len(find(tv, ".tv-seats li.open")) == 4
    wait_for(tv, "main.tv[data-awake=yes]")  # the Screen Wake Lock is held
    assert find(tv, "button.tv-fullscreen"), "full screen is offered"
    for label, size in TV_SIZES.items():
        resize(tv, size)
        time.sleep(0.2)
        fits = _fits(tv)
        assert fits["pageOver"] <= 0, fits
        assert fits["pageWide"] <= 0, fits
        box = tv.execute_script(
            "const r = document.querySelector('.invite img.qr').getBoundingClientRect(); return [r.width, r.height]"
        )
        assert min(box) >= 0.35 * size[1], f"the QR code is small at {size}: {box}"
        screenshot(tv, f"tv-waiting-empty-{label}")

    for name in ("Ann", "Bob"):
        httpx.post(
            f"{web_url}toadstool.v1.ToadstoolService/JoinTable",
            json={"tableId": table_id, "name": name},
            headers={"content-type": "application/json"},
            timeout=10,
        ).raise_for_status()
    deadline = time.monotonic() + 10
    while texts_of(tv, ".tv-seats li.taken") != ["Ann", "Bob"]:
        assert time.monotonic() < deadline, page_text(tv)
        time.sleep(0.05)
    assert len(find(tv, ".tv-seats li.open")) == 2
    screenshot(tv, "tv-waiting-720")
    resize(tv, TV_SIZES["1080"])
    screenshot(tv, "tv-waiting-1080")


def test_the_server_wide_tv_follows_the_newest_game_and_ends_on_a_podium(web_url: str, tv: Any) -> None:
    tv.get(f"{web_url}#/tv")
    wait_for(tv, ".tv-empty .invite img.qr")
    assert "Scan the code to start a game" in page_text(tv)
    screenshot(tv, "tv-nothing-on-1080")
    table_id = _create(web_url, "powerup", 3, 3, bot_delay_ms=60)
    podium = wait_for(tv, ".tv-podium .podium .place-1", seconds=120)
    assert podium.is_displayed()
    assert _fits(tv)["pageOver"] <= 0
    assert tv.execute_script("return document.querySelector('.tv-podium h1').textContent").endswith("wins!")
    account = texts_of(tv, ".tv-final li")  # Power Up's account: who went out in which round
    assert any("lost their last Extra Life" in line for line in account), account
    assert account[-1].startswith("The game lasted"), account
    screenshot(tv, "tv-podium-1080")
    resize(tv, TV_SIZES["720"])
    time.sleep(0.2)
    assert _fits(tv)["pageOver"] <= 0
    screenshot(tv, "tv-podium-720")
    # The next game on the server takes the screen over.
    resize(tv, TV_SIZES["1080"])
    again = _create(web_url, "uno", 3, 0)
    assert again != table_id
    wait_for(tv, f".tv-waiting .invite img.qr[src*='{again}']", seconds=20)


def test_with_lowest_wins_the_ranking_and_the_podium_put_the_lowest_totals_first(web_url: str, tv: Any) -> None:
    request = service_pb2.CreateTableRequest(game="uno", players=4, bots=4, seed=5, name="low", bot_delay_ms=0)
    request.options.update({"target": "1", "lowest_wins": "true"})
    table_id = create_table(web_url, request).table.table_id
    tv.get(f"{web_url}#/t/{table_id}/watch")
    wait_for(tv, ".outcome .ranking", seconds=60)
    scores = [int(t.split()[0]) for t in texts_of(tv, ".outcome .ranking li .score")]
    assert len(set(scores[1:])) > 1, f"the seed gives no order to check: {scores}"
    assert scores[1:] == sorted(scores[1:]), f"after the winner, lowest totals first: {scores}"
    assert scores[0] == min(scores), scores
    account = text_of(tv, ".outcome .how-it-went")
    assert "the others were charged" in account, account
    tv.get(f"{web_url}#/t/{table_id}/tv")
    wait_for(tv, ".tv-podium .podium .place-1")
    script = (
        "return [...document.querySelectorAll('.podium .step')]"
        ".map((e) => [parseInt(e.className.split('place-')[1]), e.querySelector('.score').textContent])"
    )
    podium = {int(place): int(score.split()[0]) for place, score in tv.execute_script(script)}
    assert podium[1] == min(scores), podium
