"""Power Up, Level Up! and the Kart race drawn in the web client, played to the end in a real headless Chromium.

For each game, one person sits at a seeded table against bots and plays it to the end by taps on the
board itself (Level cards' targets, ? cards, characters and levels, vote cards, track fields, the Roll button), or
on the action bar where the board offers nothing; the test is bounded by time and by a count of taps, and
fails unless the board was tapped. Screenshots of each game's main screens at phone (360x640) and laptop
(1280x800) sizes go to test-output/web/; each state the first time it shows (a two-step choice, a challenge,
a vote) and the end are checked as drawn (web_helpers.check_layout: no empty box, tap targets apart and
44 px on the phone). What the page draws is checked against the viewer's own view from
the server (fetched with the seat's token over the Connect protocol): a Level card the view does not give
is drawn face down, never with a value, and no other seat's vote shows before the reveal.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from web_helpers import (
    LAPTOP,
    PHONE,
    WebClient,
    check_layout,
    click,
    create_table,
    find,
    new_states,
    page_text,
    resize,
    screenshot,
    tap,
    text_of,
    wait_for,
    web_server,
)

from toadstool.api.v1 import powerup_pb2, service_pb2, table_pb2

#: How long one game may take in the browser, and how many taps, before the test fails.
GAME_SECONDS = 240.0
MAX_TAPS = 1500
#: A tap target for the next step of an opened entry (a level, a seat aimed at, a field).
NEXT_STEP = ".board .next, .board button.lu-level-label, .board .pu-aim, .board .field.playable"
BOARD_TAP = ".board button.playable"


@pytest.fixture
def web_url(tmp_path: Path) -> Iterator[str]:
    """`toadstool serve` on loopback with its web side on a free port, and the page's URL."""
    with web_server(tmp_path / "serve.log", bot_delay=0.02) as url:
        yield url


def _create(
    url: str,
    game: str,
    players: int,
    seed: int,
    options: dict[str, str] | None = None,
    bots: int | None = None,
    bot_delay_ms: int = 20,
) -> str:
    """A seeded table over the Connect protocol (seat 0 left for the person, the rest bots); its id."""
    request = service_pb2.CreateTableRequest(
        game=game,
        players=players,
        bots=players - 1 if bots is None else bots,
        seed=seed,
        name=f"{game} test",
        bot_delay_ms=bot_delay_ms,
    )
    request.options.update(options or {})
    return create_table(url, request).table.table_id


def _sit_down(driver: Any, url: str, table_id: str, board: str) -> None:
    """In the lobby, as a person: type a name, take the table's open seat; wait for the game's board."""
    driver.get(url)
    name = wait_for(driver, "#name")
    name.clear()
    name.send_keys("Ann")
    click(driver, f"li.table-item[data-table='{table_id}'] button.join")  # the live list may re-render it
    wait_for(driver, f".table-screen .board {board}")


def _my_turn(driver: Any) -> bool:
    # Read in one script: the page re-renders on every update, so a found element may be gone a moment later.
    turn = driver.execute_script("return document.querySelector('[data-testid=turn]')?.textContent ?? ''")
    return bool(turn == "Your turn!")


def _tap_once(driver: Any, rng: random.Random, taps: dict[str, int]) -> bool:
    """One tap as a person would make it: the next step on the board if an entry is open, else mostly a
    tap target on the board, else a choice in the action bar. True if something was tapped."""
    try:
        if not _my_turn(driver) or find(driver, ".actions button[disabled]"):
            return False
        opened = bool(find(driver, ".actions .opened"))
        board = find(driver, NEXT_STEP if opened else BOARD_TAP)
        bar = find(driver, ".actions button.action:not(.cancel)")
        if board and (not bar or rng.random() < 0.85):
            tap(driver, rng.choice(board))
            taps["board"] += 1
            return True
        if bar:
            tap(driver, rng.choice(bar))
            taps["bar"] += 1
            return True
    except StaleElementReferenceException:  # the page re-rendered under the tap: look again
        return False
    return False


def _seat_token(driver: Any, table_id: str) -> str:
    held = driver.execute_script(f"return localStorage.getItem('toadstool:seats:{table_id}')")
    return str(json.loads(held)[0]["token"])


def _view(url: str, table_id: str, token: str | None) -> table_pb2.Update:
    """The viewer's current update, as the server sends it over the Connect protocol."""

    async def first() -> table_pb2.Update:
        async with WebClient(url.rstrip("/")) as web:
            async for response in web.watch(table_id, token=token):
                if response.HasField("update"):
                    return response.update
        raise AssertionError("the Watch stream ended without an update")

    return asyncio.run(first())


def chip_id(driver: Any, name: str, url: str, table_id: str, token: str) -> int:
    """A Level Up! character's id by its name, from the viewer's view."""
    return list(_view(url, table_id, token).view.levelup.character_names).index(name)


def _play(driver: Any, name: str, check: Any = None) -> dict[str, int]:
    """Play to the end by taps, bounded by time and count; screenshots along the way; `check(driver)` on the
    person's turns. Returns how many taps went to the board and to the action bar."""
    rng = random.Random(20)
    taps = {"board": 0, "bar": 0}
    deadline = time.monotonic() + GAME_SECONDS
    shots: set[str] = set()
    states: set[str] = set()
    while not find(driver, ".outcome"):
        assert time.monotonic() < deadline, f"the game did not end in {GAME_SECONDS} s:\n{page_text(driver)}"
        assert sum(taps.values()) < MAX_TAPS, f"the game did not end in {MAX_TAPS} taps:\n{page_text(driver)}"
        if _my_turn(driver):
            if check is not None:
                check(driver)
            total = sum(taps.values())
            shot = f"{name}-turn{total}"
            if total in (6, 40) and shot not in shots:
                shots.add(shot)
                screenshot(driver, f"{shot}-phone")
                resize(driver, LAPTOP)
                screenshot(driver, f"{shot}-laptop")
                resize(driver, PHONE)
            if find(driver, ".board .aim, .board .lu-one-up, .board .pu-trade") and "aim" not in shots:
                shots.add("aim")
                screenshot(driver, f"{name}-aim-phone")
            if find(driver, ".actions .opened") and "two-step" not in shots:
                shots.add("two-step")
                screenshot(driver, f"{name}-two-step-phone")
            # Each state (a challenge, a vote, a two-step choice...) is checked as drawn the first time it shows.
            for state in new_states(driver, states):
                check_layout(driver, f"{name}: {state}", f"{name}-{state.removeprefix(name + '-')}")
        time.sleep(0.06 if _tap_once(driver, rng, taps) else 0.03)
    driver.execute_script("window.scrollTo(0, 0)")
    check_layout(driver, f"{name} at its end", f"{name}-over")
    resize(driver, LAPTOP)
    return taps


def test_one_person_plays_power_up_to_the_end_by_taps_and_never_sees_a_level_card_the_view_hides(
    web_url: str, chromium: Any
) -> None:
    driver = chromium
    table_id = _create(web_url, "powerup", players=3, seed=7)
    _sit_down(driver, web_url, table_id, ".powerup .pu-seat")
    token = _seat_token(driver, table_id)
    checked = {"backs": 0, "turns": 0}

    def same_as_the_view(driver: Any) -> None:
        """Each seat's Level card on the page is what the viewer's view gives: a face, or a back."""
        if checked["turns"] >= 6:
            return
        for _ in range(5):  # a bot's any-time card may change the table between the two looks
            update = _view(web_url, table_id, token)
            view = update.view.powerup
            try:
                drawn = {
                    int(seat.get_attribute("data-seat")): seat.find_element(By.CSS_SELECTOR, ".level-card")
                    for seat in find(driver, ".pu-seat")
                }
                faces = {s: "face" in e.get_attribute("class").split() for s, e in drawn.items()}
                texts = {s: e.text.strip() for s, e in drawn.items()}
            except StaleElementReferenceException:  # the page re-rendered while it was read
                continue
            if faces == {s.seat: s.HasField("level") for s in view.seats if s.has_level} | {
                s.seat: False for s in view.seats if not s.has_level
            }:
                for seat in view.seats:
                    if seat.has_level and not seat.HasField("level"):
                        assert texts[seat.seat] == "?", texts[seat.seat]
                        checked["backs"] += 1
                checked["turns"] += 1
                return
            time.sleep(0.1)
        raise AssertionError("the Level cards drawn never matched the viewer's view")

    taps = _play(driver, "powerup", same_as_the_view)
    assert taps["board"] > 0, taps
    assert checked["backs"] > 0, "no face-down Level card of another seat was ever checked"
    outcome = text_of(driver, ".outcome")
    assert "won" in outcome or "Game over" in outcome
    update = _view(web_url, table_id, token)
    assert update.view.powerup.stage == powerup_pb2.POWER_UP_STAGE_GAME_OVER


def test_one_person_plays_level_up_to_the_end_by_tapping_characters_levels_and_vote_cards(
    web_url: str, chromium: Any
) -> None:
    driver = chromium
    table_id = _create(web_url, "levelup", players=3, seed=11)
    _sit_down(driver, web_url, table_id, ".levelup .lu-board")
    token = _seat_token(driver, table_id)
    seen = {"votes": 0}
    # The first placement in two taps on the board: a character, then its level (docs/rules/levelup.md
    # §3.2: "on any level 1 to 4 with room"); the character is then drawn on that level.
    deadline = time.monotonic() + 20
    while not (_my_turn(driver) and find(driver, ".lu-tray button.lu-char")):
        assert time.monotonic() < deadline, page_text(driver)
        time.sleep(0.05)
    chip = find(driver, ".lu-tray button.lu-char")[0]
    name = chip.text.lstrip("★").strip()
    tap(driver, chip)
    assert text_of(driver, ".actions .opened") == f"Place {name}:"
    assert sorted(int(e.get_attribute("data-level")) for e in find(driver, ".lu-level.target")) == [1, 2, 3, 4]
    screenshot(driver, "levelup-place-phone")
    tap(driver, wait_for(driver, ".lu-level[data-level='2'] button.lu-level-label"))
    wait_for(
        driver,
        f".lu-level[data-level='2'] .lu-char[data-character='{chip_id(driver, name, web_url, table_id, token)}']",
    )

    def only_my_vote_is_known(driver: Any) -> None:
        """While a vote is open, no other seat's vote card is named on the page."""
        if not find(driver, ".lu-vote"):
            return
        view = _view(web_url, table_id, token).view.levelup
        # Read in one script, and only while the vote is still drawn: the reveal may come meanwhile.
        read = driver.execute_script(
            "if (!document.querySelector('.lu-vote')) return null;"
            "const text = (s) => [...document.querySelectorAll(s)].map((e) => e.innerText);"
            "return [text('.lu-seat:not(.you) .lu-voted'), text('.lu-favourites .lu-char')];"
        )
        if read is None:
            return
        votes, shown = read
        seen["votes"] += 1
        for vote in votes:
            assert vote in ("has voted", "choosing…"), vote
        # My secret favourites are mine: the page names exactly the view's.
        assert shown == [view.character_names[c] for c in view.favourites]

    taps = _play(driver, "levelup", only_my_vote_is_known)
    assert taps["board"] > 0, taps
    assert seen["votes"] > 0, "no vote was ever cast on the page"
    assert "won" in text_of(driver, ".outcome") or "Game over" in page_text(driver)


def test_one_person_races_the_kart_track_to_the_end_by_tapping_the_die_and_the_fields(
    web_url: str, chromium: Any
) -> None:
    driver = chromium
    table_id = _create(web_url, "kart", players=2, seed=5, options={"track": "mini-loop"})
    _sit_down(driver, web_url, table_id, ".kart .track .field")
    fields = find(driver, ".track-svg .field")
    assert len(fields) == 40, "every field of the 40-field Mini Loop is drawn once"
    assert [int(f.get_attribute("data-field")) for f in fields] == list(range(40))
    # A loop: tall on a phone, wide on a laptop (the screen draws again when it crosses 600 px).
    assert find(driver, ".track-svg.tall")
    resize(driver, LAPTOP)
    wait_for(driver, ".track-svg.wide")
    resize(driver, PHONE)
    wait_for(driver, ".track-svg.tall")
    assert find(driver, ".legend .shortcut"), "the shortcuts are in the legend"
    screenshot(driver, "kart-start-phone")
    # The Roll button rolls the die, and the die then shows the roll (the viewer's own is "You rolled").
    deadline = time.monotonic() + 20
    while not (_my_turn(driver) and find(driver, "button.die.playable")):
        assert time.monotonic() < deadline, page_text(driver)
        time.sleep(0.05)
    before = driver.execute_script("return document.querySelector('.dice')?.textContent ?? ''")
    tap(driver, find(driver, "button.die.playable")[0])
    deadline = time.monotonic() + 10
    while True:
        after = driver.execute_script("return document.querySelector('.dice').textContent")
        if "you rolled" in after.lower() and after != before:
            break
        assert time.monotonic() < deadline, page_text(driver)
        time.sleep(0.05)
    taps = _play(driver, "kart")
    assert taps["board"] > 0, taps
    assert text_of(driver, ".outcome")
    assert len(find(driver, ".standings .racer")) == 2


def _level_cards(driver: Any) -> dict[int, tuple[bool, str]] | None:
    """Each drawn seat's Level card: (drawn face up, its text), or None if the page re-rendered meanwhile."""
    try:
        cards = {
            int(seat.get_attribute("data-seat")): seat.find_element(By.CSS_SELECTOR, ".level-card")
            for seat in find(driver, ".pu-seat")
        }
        return {s: ("face" in e.get_attribute("class").split(), e.text.strip()) for s, e in cards.items()}
    except StaleElementReferenceException:
        return None


def test_the_table_display_of_a_power_up_game_shows_every_face_down_level_card_as_a_back(
    web_url: str, chromium: Any
) -> None:
    driver = chromium
    table_id = _create(web_url, "powerup", players=3, seed=3, bots=3, bot_delay_ms=2000)
    resize(driver, LAPTOP)
    driver.get(f"{web_url}#/t/{table_id}/display")
    wait_for(driver, ".mode-display .powerup .pu-seat")
    backs = 0
    misses = 0  # looks in a row where the page had not caught up with the view yet
    deadline = time.monotonic() + 60
    while backs < 3:
        assert time.monotonic() < deadline, f"never saw three face-down Level cards:\n{page_text(driver)}"
        view = _view(web_url, table_id, None).view.powerup
        time.sleep(0.05)  # the page's stream delivers the same update a moment later
        drawn = _level_cards(driver)
        if drawn is None or _view(web_url, table_id, None).view.powerup != view:
            continue  # the table moved on between the looks
        expected = {seat.seat: seat.HasField("level") for seat in view.seats}
        if {seat: face for seat, (face, _) in drawn.items()} != expected:
            misses += 1
            assert misses < 5, f"the Level cards drawn {drawn} are not the spectator's view {view}"
            continue
        misses = 0
        for seat in view.seats:
            if seat.has_level and not seat.HasField("level"):
                assert drawn[seat.seat][1] == "?", drawn[seat.seat]
                backs += 1
        screenshot(driver, "powerup-display-laptop")
    assert not find(driver, ".q-hand"), "a spectator's display has no hand"
