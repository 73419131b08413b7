"""The web client in a real headless Chromium (Debian's chromium + chromium-driver), played by clicks.

`toadstool serve` serves the built client (clients/toadstool_clients/web/dist) itself; a person types a
name, creates a table with options, plays UNO to the end against a bot, reloads mid-game and keeps the seat;
two people in two browsers play each other. Screenshots at phone and laptop sizes go to test-output/web/.
Also: the TypeScript choice tree gives the same trees as the Python one (tests/choices_cases.json), and the
built assets are what the sources build.
"""

from __future__ import annotations

import fcntl
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.common.exceptions import StaleElementReferenceException
from web_helpers import (
    LAPTOP,
    PHONE,
    browser,
    check_layout,
    choose_game,
    click,
    create_table,
    find,
    more_options,
    new_states,
    page_text,
    resize,
    screenshot,
    tap,
    text_of,
    wait_for,
    web_server,
)

from toadstool.api import HOST_TOKEN_KEY, SEAT_TOKEN_KEY
from toadstool.api.v1 import service_pb2

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "clients" / "toadstool_clients" / "web"
#: How long one game may take in the browser before the test fails (a UNO hand to 1 point is ~30 moves).
GAME_SECONDS = 80.0
#: The seed of the two people's table: a deal both play to its end in a few dozen moves.
TWO_PEOPLE_SEED = 5


@pytest.fixture
def web_url(tmp_path: Path) -> Iterator[str]:
    """`toadstool serve` on loopback with its web side on a free port, and the page's URL."""
    with web_server(tmp_path / "serve.log", bot_delay=0.05) as url:
        yield url


def _type(element: Any, text: str) -> None:
    element.clear()
    element.send_keys(text)


def _create_uno(driver: Any, url: str, name: str, bots: int) -> None:
    """In the lobby: type a name, choose UNO with one hand to play (target 1), create and sit down."""
    driver.get(url)
    _type(wait_for(driver, "#name"), name)
    choose_game(driver, "uno")
    _type(wait_for(driver, "input[name=players]"), "2")
    _type(wait_for(driver, "input[name=bots]"), str(bots))
    more_options(driver)
    _type(wait_for(driver, "input[name=target]"), "1")
    click(driver, "form button[type=submit]")
    wait_for(driver, ".table-screen .uno .hand" if bots else ".table-screen .seats")


def _my_turn(driver: Any) -> bool:
    # Read in one script: the page re-renders on every update, so a found element may be gone a moment later.
    turn = driver.execute_script("return document.querySelector('[data-testid=turn]')?.textContent ?? ''")
    return bool(turn == "Your turn!")


def _play_once(driver: Any) -> bool:
    """Take one turn by clicks, as a person would: a colour if a wild's colours are open, else a playable
    card (calling UNO with the second-to-last card), else the draw pile, else the first choice offered
    (keep, pass, accept, challenge). True if something was clicked."""
    try:
        if not _my_turn(driver) or find(driver, ".actions button[disabled]"):
            return False
        opened = find(driver, ".actions .opened")
        if opened:
            # A wild's colours are four coloured targets on the board; anything else opened is in the bar.
            colours = find(driver, ".colour-pick .colour-target")
            tap(driver, (colours or find(driver, ".actions button.action:not(.cancel)"))[0])
            return True
        playable = find(driver, ".hand .card.playable")
        if playable:
            call = find(driver, ".uno-call[data-kind=uno]")
            if call and len(find(driver, ".hand .card")) == 2 and call[0].get_attribute("aria-pressed") != "true":
                tap(driver, call[0])
            tap(driver, playable[0])
            return True
        pile = find(driver, ".pile.playable")
        if pile:
            tap(driver, pile[0])
            return True
        offered = find(driver, ".actions button.action")
        if offered:
            tap(driver, offered[0])
            return True
    except StaleElementReferenceException:  # the page re-rendered under the click: look again
        return False
    return False


def _game_over(driver: Any) -> bool:
    return bool(find(driver, ".outcome"))


def _build_web(*flags: str) -> subprocess.CompletedProcess[str]:
    """scripts/build-web, one run at a time across the test workers: each run regenerates src/gen (and
    without --check dist/), so two at once (a fresh clone's first run of the next two tests, on two
    workers) would each find the other's files half made."""
    lock = WEB / "build" / ".build-web.lock"  # build/ is ignored by git and never removed by the script
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        return subprocess.run(
            [str(ROOT / "scripts" / "build-web"), *flags], capture_output=True, text=True, timeout=300, check=False
        )


def test_the_typescript_choice_tree_builds_the_same_trees_as_the_python_one() -> None:
    built = WEB / "build" / "choices_check.mjs"
    if not built.exists():
        made = _build_web()
        assert made.returncode == 0, made.stdout + made.stderr
    result = subprocess.run(
        ["node", str(built), str(ROOT / "tests" / "choices_cases.json")], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("ok ") >= 10


def test_the_committed_web_client_is_what_its_sources_build() -> None:
    result = _build_web("--check")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_web_clients_sources_pass_typescripts_strict_checks() -> None:
    """tsc --noEmit over src/ (tsconfig.json: strict): esbuild bundles without checking types, so a source
    that no longer fits another's types (two changes merged) would otherwise build and fail in a browser."""
    if not (WEB / "src" / "gen").is_dir():
        made = _build_web()
        assert made.returncode == 0, made.stdout + made.stderr
    lock = WEB / "build" / ".build-web.lock"
    with lock.open("w") as held:  # not while another test's build regenerates src/gen
        fcntl.flock(held, fcntl.LOCK_EX)
        result = subprocess.run(
            [str(WEB / "node_modules" / ".bin" / "tsc"), "--noEmit", "-p", str(WEB)],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_built_client_sends_tokens_in_the_contracts_header_keys() -> None:
    bundle = (WEB / "dist" / "app.js").read_text()
    assert SEAT_TOKEN_KEY in bundle
    assert HOST_TOKEN_KEY in bundle
    assert "innerHTML" not in bundle.replace("innerHTML:", ""), "names and texts are set as text, never as HTML"


def _acts_over_http(driver: Any) -> list[str]:
    """The Act requests the page has made over HTTP (Connect) since it loaded."""
    found: list[str] = driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name).filter(n => n.endsWith('/Act'))"
    )
    return found


def test_one_person_plays_uno_to_the_end_by_clicks_and_a_reload_keeps_the_seat(web_url: str, chromium: Any) -> None:
    driver = chromium
    driver.get(web_url)
    wait_for(driver, ".game-card")
    screenshot(driver, "lobby-phone")
    _create_uno(driver, web_url, "Ann <b>", bots=1)
    seat_names = text_of(driver, ".seats")
    assert "Ann <b>" in seat_names, "a name is shown as the text it is"
    screenshot(driver, "uno-table-phone")
    resize(driver, LAPTOP)
    screenshot(driver, "uno-table-laptop")
    resize(driver, PHONE)
    deadline = time.monotonic() + GAME_SECONDS
    turns = reloads = 0
    acts_over_http: list[str] = []
    states: set[str] = set()
    while not _game_over(driver):
        assert time.monotonic() < deadline, f"the game did not end in {GAME_SECONDS} s:\n{page_text(driver)}"
        # A wild's colours, the UNO call, a catch, a challenge: each checked as drawn the first time it shows.
        for state in new_states(driver, states) if _my_turn(driver) else []:
            check_layout(driver, f"UNO: {state}", f"uno-{state.removeprefix('uno-')}")
        if _play_once(driver):
            turns += 1
            time.sleep(0.15)
            if turns in (3, 8) and not _game_over(driver):
                acts_over_http += _acts_over_http(driver)  # a reload forgets the page's requests
                driver.refresh()  # mid-game: the tab comes back as the same seat, from the version it saw
                wait_for(driver, ".table-screen .uno .hand")
                assert "Ann <b> (you)" in text_of(driver, ".seats")
                reloads += 1
        else:
            time.sleep(0.05)
        if turns == 2:
            screenshot(driver, "uno-midgame-phone")
    assert reloads >= 1 or turns < 3
    assert "won" in text_of(driver, ".outcome")
    # The table screen acted on its WebSocket (socket.ts): none of its turns went over Connect.
    acts_over_http += _acts_over_http(driver)
    assert acts_over_http == [], acts_over_http
    driver.execute_script("window.scrollTo(0, 0)")
    check_layout(driver, "UNO at its end", "uno-game-over")
    resize(driver, LAPTOP)
    driver.get(web_url)  # the lobby lists the finished table this browser sat at, folded away
    click(driver, ".finished .finished-toggle")
    wait_for(driver, ".finished .table-item")
    screenshot(driver, "lobby-laptop")


@pytest.mark.timeout(300)
def test_two_people_in_two_browsers_play_each_other_to_the_end(web_url: str, tmp_path: Path, chromium: Any) -> None:
    ann = chromium
    # A seeded one-hand table (made over the Connect API: the form has no seed), so the game both play by
    # the same simple strategy is the same short one on every run (about 15 s; unseeded, 47 to 193 s in CI).
    request = service_pb2.CreateTableRequest(game="uno", players=2, seed=TWO_PEOPLE_SEED, name="Two people")
    request.options["target"] = "1"
    create_table(web_url, request)
    bea = browser(tmp_path / "profile-b", LAPTOP)
    try:
        for driver, name in ((ann, "Ann"), (bea, "Bea")):
            driver.get(web_url)
            _type(wait_for(driver, "#name"), name)
            click(driver, ".table-item button.join")  # the first open seat of the one table
            wait_for(driver, ".table-screen .seats")
        wait_for(bea, ".table-screen .uno .hand")
        wait_for(ann, ".seats .seat[data-seat='1'] .dot.on")
        screenshot(bea, "uno-two-people-laptop")
        screenshot(ann, "uno-two-people-phone")
        # Two browsers taking turns are slow on a loaded machine: bounded by moves, and by time only loosely.
        deadline, moves = time.monotonic() + 3 * GAME_SECONDS, 0
        while not (_game_over(ann) and _game_over(bea)):
            assert moves < 600, f"no end in {moves} moves:\n{page_text(ann)}\n---\n{page_text(bea)}"
            assert time.monotonic() < deadline, (
                f"no end in {3 * GAME_SECONDS} s:\n{page_text(ann)}\n---\n{page_text(bea)}"
            )
            moved = _play_once(ann) or _play_once(bea)
            moves += moved
            time.sleep(0.15 if moved else 0.05)
        # Each sees the same outcome, and never the other's hand.
        # (each ranking marks its own reader's line "(you)")
        assert text_of(ann, ".outcome").replace(" (you)", "") == text_of(bea, ".outcome").replace(" (you)", "")
        screenshot(bea, "uno-two-people-over-laptop")
    finally:
        bea.quit()


def test_the_table_display_shows_the_spectators_view_large_without_any_hand(
    web_url: str, tmp_path: Path, chromium: Any
) -> None:
    _create_uno(chromium, web_url, "Ann", bots=1)
    table_id = chromium.current_url.rsplit("/", 1)[-1]
    tv = browser(tmp_path / "profile-tv", LAPTOP)
    try:
        tv.get(f"{web_url}#/t/{table_id}/display")
        wait_for(tv, ".mode-display .uno .top-card")
        assert not find(tv, ".uno .hand .card"), "a spectator never sees a hand"
        assert not find(tv, ".actions"), "the table display offers no choices"
        assert "Ann" in text_of(tv, ".seats")
        screenshot(tv, "uno-table-display-laptop")
        resize(tv, PHONE)
        tv.get(f"{web_url}#/t/{table_id}/watch")
        wait_for(tv, ".mode-watch .uno .top-card")
        assert not find(tv, ".uno .hand .card")
        screenshot(tv, "uno-watch-phone")
    finally:
        tv.quit()


def test_a_game_without_its_own_drawing_is_shown_as_panels_and_played_to_the_end_by_clicks(
    web_url: str, chromium: Any
) -> None:
    # Pig (tests/plugin_games) is a plugin game no client knows: the generic panels draw it.
    driver = chromium
    driver.get(web_url)
    _type(wait_for(driver, "#name"), "Ann")
    choose_game(driver, "pig")
    _type(wait_for(driver, "input[name=players]"), "2")
    _type(wait_for(driver, "input[name=bots]"), "1")
    click(driver, "form button[type=submit]")
    wait_for(driver, ".table-screen .generic-view .panel")
    screenshot(driver, "pig-generic-phone")
    deadline = time.monotonic() + GAME_SECONDS
    while not _game_over(driver):
        assert time.monotonic() < deadline, f"the game did not end in {GAME_SECONDS} s:\n{page_text(driver)}"
        time.sleep(0.15 if _play_once(driver) else 0.05)
    assert text_of(driver, ".outcome")
    driver.execute_script("window.scrollTo(0, 0)")
    resize(driver, LAPTOP)
    screenshot(driver, "pig-generic-over-laptop")
