"""What people see in the web client, checked in the DOM of a real headless Chromium at 360x640 and 1280x800.

For each of the four games a person sits at a seeded table against bots (through the lobby, as a person
does) and takes turns by taps; at each of their turns the page is checked as drawn: no empty box (a board
before the game has a view, a bar of no choices, a log of no events), no two tap targets overlapping, none
cut off at the side, no text spilling out of its button, no sideways scrolling, and on the phone every tap
target at least 44 x 44 px (web_helpers.layout_problems). The states each game reaches (a two-step choice
opened, UNO's call button and catch and a challenge's reveal, Power Up's challenge, Level Up!'s secret vote) are
screenshotted the first time they show, at both sizes, to test-output/web/layout-*.png. The end of each
game, the spectator's view and the table display are checked on a table of bots; the lobby and its form for
every game, and a table waiting for players, too. Bounded by time and by a count of turns.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.common.exceptions import StaleElementReferenceException
from web_helpers import (
    PHONE,
    WebClient,
    browser,
    check_layout,
    choose_game,
    click,
    create_table,
    find,
    more_options,
    new_states,
    page_text,
    tap,
    text_of,
    type_into,
    wait_for,
    web_server,
)

from toadstool.api.v1 import service_pb2

#: How many of the person's turns are checked per game, and how long that may take.
TURNS = 14
GAME_SECONDS = 120.0
#: How long a table of bots may take to reach its end.
END_SECONDS = 120.0
#: Each game: the board's own element, its table's options and players.
GAMES = {
    "uno": (".uno .hand", {"target": "60"}, 3),
    "powerup": (".powerup .pu-seat", {}, 3),
    "levelup": (".levelup .lu-board", {}, 3),
    "kart": (".kart .track .field", {"track": "mini-loop"}, 2),
}
#: What a tap on the board may be: the next step of an opened entry, or a piece to play.
NEXT_STEP = ".board .next, .board button.lu-level-label, .board .pu-aim, .board .field.playable"
BOARD_TAP = ".board button.playable, .board button.catch"


@pytest.fixture
def web_url(tmp_path: Path) -> Iterator[str]:
    with web_server(tmp_path / "serve.log", bot_delay=0.02) as url:
        yield url


def _create(
    url: str, game: str, players: int, bots: int, options: dict[str, str], delay_ms: int = 20, seed: int = 20
) -> str:
    """A seeded table over the Connect protocol; its id."""
    request = service_pb2.CreateTableRequest(
        game=game, players=players, bots=bots, seed=seed, name=f"{game} layout", bot_delay_ms=delay_ms
    )
    request.options.update(options)
    return create_table(url, request).table.table_id


def _my_turn(driver: Any) -> bool:
    turn = driver.execute_script("return document.querySelector('[data-testid=turn]')?.textContent ?? ''")
    return bool(turn == "Your turn!")


def _tap(driver: Any, rng: random.Random) -> bool:
    """One tap, as a person makes it: the next step on the board if an entry is open, else mostly a piece
    on the board, else a choice in the action bar. True if something was tapped."""
    try:
        opened = bool(find(driver, ".actions .opened"))
        board = find(driver, NEXT_STEP if opened else BOARD_TAP)
        bar = find(driver, ".actions button.action:not(.cancel)")
        choices = board if board and (not bar or rng.random() < 0.8) else bar
        if not choices:
            return False
        tap(driver, rng.choice(choices))
        return True
    except StaleElementReferenceException:  # the page re-rendered under the tap: look again
        return False


@pytest.mark.parametrize("game", list(GAMES))
def test_a_persons_turns_draw_no_empty_box_and_every_tap_target_is_apart_and_44_px_on_a_phone(
    web_url: str, chromium: Any, game: str
) -> None:
    driver = chromium
    board, options, players = GAMES[game]
    table_id = _create(web_url, game, players, players - 1, options)
    driver.get(web_url)
    type_into(driver, "#name", "Ann")
    wait_for(driver, f"li.table-item[data-table='{table_id}'] button.join")
    check_layout(driver, "the lobby listing the table", f"layout-{game}-lobby")
    click(driver, f"li.table-item[data-table='{table_id}'] button.join")  # the live list may re-render it
    wait_for(driver, f".table-screen .board {board}")
    rng = random.Random(game)
    seen: set[str] = set()
    turns = 0
    deadline = time.monotonic() + GAME_SECONDS
    while turns < TURNS and not find(driver, ".outcome"):
        assert time.monotonic() < deadline, f"{turns} turns in {GAME_SECONDS} s:\n{page_text(driver)}"
        if not _my_turn(driver) or find(driver, ".actions button[disabled]"):
            time.sleep(0.03)
            continue
        fresh = new_states(driver, seen)
        shot = (
            f"layout-{game}-{fresh[0].removeprefix(game + '-')}"
            if fresh
            else (f"layout-{game}-turn" if turns == 0 else None)
        )
        driver.execute_script("window.scrollTo(0, 0)")
        check_layout(driver, f"{game}, the person's turn {turns} ({', '.join(fresh) or 'a turn'})", shot)
        if _tap(driver, rng):
            turns += 1
            time.sleep(0.08)
    assert turns >= min(TURNS, 3), f"only {turns} turns were taken:\n{page_text(driver)}"


@pytest.mark.parametrize("game", list(GAMES))
def test_the_end_of_each_game_the_spectators_view_and_the_table_display_draw_no_empty_box(
    web_url: str, chromium: Any, game: str
) -> None:
    driver = chromium
    board, options, players = GAMES[game]
    if game == "uno":
        options = {"target": "1"}
    table_id = _create(web_url, game, players, players, options, delay_ms=0)
    driver.get(f"{web_url}#/t/{table_id}/watch")
    wait_for(driver, f".mode-watch .board {board.split()[0]}")
    check_layout(driver, f"{game} watched", f"layout-{game}-watch")
    deadline = time.monotonic() + END_SECONDS
    while not find(driver, ".outcome"):
        assert time.monotonic() < deadline, f"the bots did not finish in {END_SECONDS} s:\n{page_text(driver)}"
        time.sleep(0.1)
    driver.execute_script("window.scrollTo(0, 0)")
    check_layout(driver, f"{game} at its end, watched", f"layout-{game}-over-watch")
    driver.get(f"{web_url}#/t/{table_id}/display")
    wait_for(driver, ".mode-display .outcome")
    check_layout(driver, f"{game} at its end on the table display", f"layout-{game}-over-display")


def test_the_lobbys_form_for_every_game_and_a_table_waiting_for_players_fit_a_phone(
    web_url: str, chromium: Any
) -> None:
    driver = chromium
    driver.get(web_url)
    type_into(driver, "#name", "Ann")
    wait_for(driver, ".game-card")
    games = [str(card.get_attribute("data-game")) for card in find(driver, ".game-card")]
    assert set(GAMES) <= set(games), games
    for game in games:
        choose_game(driver, game)
        more_options(driver)
        check_layout(driver, f"the lobby's form for {game}", f"layout-lobby-form-{game}")
    # A table of three with one more person to come: the host's view while it waits.
    choose_game(driver, "uno")
    type_into(driver, "input[name=players]", "3")
    type_into(driver, "input[name=bots]", "1")
    click(driver, "form button[type=submit]")
    wait_for(driver, ".table-screen .host .host-control")
    assert not find(driver, ".board"), "a table without a game yet draws no board"
    check_layout(driver, "a table waiting for players", "layout-waiting")


#: How long two people may take to reach a call, and how many moves a person's catch may take to come.
UNO_SECONDS = 80.0
CATCH_MOVES = 400
#: The deal of the catch's table: Ann, playing whenever she can, is down to one card on her 6th move (seeds 1
#: to 6 took 6 to 76 of her moves; the sequence is the same on every run, so it is the same short one).
CATCH_SEED = 4


def _play_uno(driver: Any, calls: bool) -> bool:
    """One UNO move, as a person keen to go out: a wild's first colour, else a playable card, else the draw
    pile, else the first choice offered (never a late UNO call unless `calls`). True if something was tapped."""
    try:
        for selector in (
            ".colour-pick .colour-target",
            ".actions .opened ~ button.action",
            ".hand .card.playable",
            ".pile.playable",
        ):
            found = find(driver, selector)
            if found:
                tap(driver, found[0])
                return True
        offered = [b for b in find(driver, ".actions button.action") if calls or "UNO" not in b.text]
        if offered:
            tap(driver, offered[0])
            return True
    except StaleElementReferenceException:
        pass
    return False


def _sit(driver: Any, url: str, table_id: str, name: str) -> None:
    driver.get(url)
    type_into(driver, "#name", name)
    click(driver, f"li.table-item[data-table='{table_id}'] button.join")  # the live list may re-render it
    wait_for(driver, ".table-screen .seats")


def test_unos_call_between_two_people_draws_no_empty_box_and_fits_a_phone(
    web_url: str, chromium: Any, tmp_path: Path
) -> None:
    # Ann never calls UNO; Bea calls hers (and catches Ann's if it comes): each state is checked as drawn the
    # first time it shows. The catch is asserted on its own, below.
    table_id = _create(web_url, "uno", 2, 0, {"target": "500"})
    ann = chromium
    bea = browser(tmp_path / "profile-bea", PHONE)
    try:
        _sit(ann, web_url, table_id, "Ann")
        _sit(bea, web_url, table_id, "Bea")
        wait_for(ann, ".uno .hand")
        wait_for(bea, ".uno .hand")
        seen: dict[str, set[str]] = {"Ann": set(), "Bea": set()}
        deadline = time.monotonic() + UNO_SECONDS
        while "uno-call" not in seen["Bea"]:
            assert time.monotonic() < deadline, f"no UNO call in {UNO_SECONDS} s: {seen}\n{page_text(bea)}"
            assert not find(bea, ".outcome"), f"the game ended before a call: {seen}"
            moved = False
            for name, driver in (("Ann", ann), ("Bea", bea)):
                if not _my_turn(driver) or find(driver, ".actions button[disabled]"):
                    continue
                for state in new_states(driver, seen[name]):
                    check_layout(driver, f"UNO, {name}: {state}", f"layout-uno-{state.removeprefix('uno-')}-{name}")
                try:
                    if name == "Bea" and find(driver, ".uno .catch"):
                        find(driver, ".uno .catch")[0].click()
                        moved = True
                        continue
                    call = find(driver, ".uno-call[data-kind=uno]")
                    if name == "Bea" and call and call[0].get_attribute("aria-pressed") != "true":
                        call[0].click()
                except StaleElementReferenceException:
                    continue
                moved = _play_uno(driver, calls=name == "Bea") or moved
            time.sleep(0.1 if moved else 0.03)
        wait_for(ann, ".uno .hand")
        check_layout(ann, "UNO, Ann at the end", "layout-uno-two-people-Ann")
    finally:
        bea.quit()


async def _ann_acts(base: str, table_id: str, token: str) -> bool:
    """Ann's move over the Connect API, made from her own newest view: a card if she can play one, never
    calling UNO with it; else the draw pile; else what the game offers first (keep, pass, accept). True if
    it was her turn."""
    async with WebClient(base) as client:
        update = None
        async for message in client.watch(table_id, token):
            update = message.update
            break
        assert update is not None
        if update.viewer_seat not in update.to_act:
            return False
        acts = list(update.legal_actions)
        kinds = [a.action.uno.WhichOneof("kind") for a in acts]
        plays = [a for a, k in zip(acts, kinds, strict=True) if k == "play_card" and not a.action.uno.play_card.uno]
        draws = [a for a, k in zip(acts, kinds, strict=True) if k == "draw"]
        chosen = (plays or draws or [a for a, k in zip(acts, kinds, strict=True) if k not in ("call_uno", "catch")])[0]
        request = service_pb2.ActRequest(
            table_id=table_id, version=update.version, request_id=str(uuid.uuid4()), action_id=chosen.id
        )
        await client.call("Act", request, service_pb2.ActResponse, token)
        return True


def test_a_person_catches_a_player_who_did_not_call_uno_by_tapping_catch_on_their_hand(
    web_url: str, chromium: Any
) -> None:
    # Ann plays over the API and never calls UNO; Bea, in the browser, plays her turns by taps. Once Ann plays
    # her next-to-last card uncalled, Bea's page offers "Catch Ann!" on Ann's hand; a tap makes Ann draw 2.
    base = web_url.rstrip("/")
    table_id = _create(web_url, "uno", 2, 0, {"target": "500"}, seed=CATCH_SEED)
    joined = asyncio.run(_join(base, table_id, "Ann"))
    bea = chromium
    _sit(bea, web_url, table_id, "Bea")
    wait_for(bea, ".uno .hand")
    deadline = time.monotonic() + 2 * UNO_SECONDS
    for _ in range(CATCH_MOVES):
        assert time.monotonic() < deadline, f"no catch offered in {2 * UNO_SECONDS} s:\n{page_text(bea)}"
        moved = asyncio.run(_ann_acts(base, table_id, joined.seat_token))
        if find(bea, ".uno .catch"):
            break
        if not moved and _my_turn(bea) and not find(bea, ".actions button[disabled]"):
            if find(bea, ".uno .catch"):  # it came with the update that gave Bea the turn: a play would end it
                break
            call = find(bea, ".uno-call[data-kind=uno]")
            try:
                if call and call[0].get_attribute("aria-pressed") != "true":
                    call[0].click()
                _play_uno(bea, calls=True)
            except StaleElementReferenceException:
                pass
        time.sleep(0.05)
    # Read and tapped by selector, not by element: the page redraws on every update.
    assert text_of(bea, ".uno .opponent[data-seat='0'] .catch") == "Catch Ann!"
    assert text_of(bea, ".uno .opponent[data-seat='0'] .count") == "1"
    check_layout(bea, "UNO, Bea may catch Ann", "layout-uno-catch-Bea")
    click(bea, ".uno .opponent[data-seat='0'] .catch")
    deadline = time.monotonic() + 10
    while text_of(bea, ".uno .opponent[data-seat='0'] .count") != "3":
        assert time.monotonic() < deadline, f"Ann did not draw 2 for the catch:\n{page_text(bea)}"
        time.sleep(0.05)
    assert not find(bea, ".uno .catch"), "a catch is offered once"
    assert "You caught Ann not calling UNO" in text_of(bea, ".log"), 'the log names the viewer "you"'
    check_layout(bea, "UNO, after Bea's catch", "layout-uno-caught-Bea")


async def _join(base: str, table_id: str, name: str) -> service_pb2.JoinTableResponse:
    async with WebClient(base) as client:
        request = service_pb2.JoinTableRequest(table_id=table_id, name=name)
        return await client.call("JoinTable", request, service_pb2.JoinTableResponse)
