"""The web client on a laptop (1366x768) in a real headless Chromium: the layout uses the width (board and log
side by side, UNO cards at a readable size) for all four games; keyboard focus stays on the same element when
an update draws the table again; a focused card looks different from a playable one; and the terminal
client's keys play (a number chooses, a Kart field by its own number typed digit by digit, d draws, u calls
UNO, r rolls, Esc goes back a step).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys
from web_helpers import WebClient, find, layout_problems, page_text, wait_for, web_server
from web_play import LAPTOP_WIDE, create, my_turn, play_until, resize_to, shots, sit_down, uno_step

from toadstool.api.v1 import service_pb2

#: Each game: its board's own element, its options and players.
GAMES = {
    "uno": (".uno .hand", {}, 3),
    "powerup": (".powerup .pu-seat", {}, 4),
    "levelup": (".levelup .lu-board", {}, 4),
    "kart": (".kart .track-svg", {"track": "mushroom-loop"}, 7),
}


@pytest.fixture
def web_url(tmp_path: Path) -> Iterator[str]:
    with web_server(tmp_path / "serve.log", bot_delay=0.02) as url:
        yield url


@pytest.fixture
def laptop(chromium: Any) -> Any:
    return resize_to(chromium, LAPTOP_WIDE)


def _press(driver: Any, *keys: str) -> None:
    ActionChains(driver).send_keys(*keys).perform()


def test_every_game_uses_the_laptops_width_with_the_log_beside_the_board(web_url: str, laptop: Any) -> None:
    driver = laptop
    for game, (board, options, players) in GAMES.items():
        table_id = create(web_url, game, players, seed=5, options=options, bot_delay_ms=400)
        sit_down(driver, web_url, table_id, board)
        wait_for(driver, ".log li")
        box = driver.execute_script(
            "const r = (s) => { const e = document.querySelector(s); if (!e) return null;"
            "  const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };"
            "return {board: r('.board'), log: r('.log'), width: innerWidth,"
            "  card: document.querySelector('.uno .hand .card')?.getBoundingClientRect().width ?? null};"
        )
        left, _, right, bottom = box["board"]
        log_left, log_top, _, _ = box["log"]
        assert log_left >= right - 1, f"{game}: the log is not beside the board: {box}"
        assert log_top < bottom, f"{game}: the log is not beside the board: {box}"
        assert right - left >= 0.6 * box["width"], f"{game}: the board is narrow: {box}"
        if game == "uno":
            assert box["card"] >= 80, f"UNO cards are {box['card']} px wide"
        problems = layout_problems(driver, phone=False)
        assert not problems, f"{game}:\n" + "\n".join(problems)
        shots(driver, f"laptop-{game}", (LAPTOP_WIDE,))


def _watch_once(url: str, table_id: str, token: str) -> None:
    """Bob's stream opens (his seat connects) and closes again: an update for everyone at the table."""

    async def run() -> None:
        async with WebClient(url.rstrip("/")) as web:
            async for response in web.watch(table_id, token=token):
                if response.HasField("update"):
                    return

    asyncio.run(run())


def _join(url: str, table_id: str, name: str) -> service_pb2.JoinTableResponse:
    async def run() -> service_pb2.JoinTableResponse:
        async with WebClient(url.rstrip("/")) as web:
            request = service_pb2.JoinTableRequest(table_id=table_id, name=name, request_id=str(uuid.uuid4()))
            return await web.call("JoinTable", request, service_pb2.JoinTableResponse)

    return asyncio.run(run())


def test_focus_stays_on_the_same_card_across_updates_and_a_focused_card_looks_apart(web_url: str, laptop: Any) -> None:
    driver = laptop
    # Ann, Bob (a person the test holds, whose connecting sends everyone an update) and a bot.
    table_id = create(web_url, "uno", players=3, seed=2, bots=1, bot_delay_ms=20)
    bob = _join(web_url, table_id, "Bob")
    sit_down(driver, web_url, table_id, ".uno .hand")
    deadline = time.monotonic() + 60
    while not (my_turn(driver) and find(driver, ".hand .card.playable")):
        assert time.monotonic() < deadline, f"Ann never had a playable card:\n{page_text(driver)}"
        if my_turn(driver):
            uno_step(driver)  # Ann draws, or plays what the bar offers
        else:
            # Bob's turns: the test plays them by drawing (or the first offer) over the Connect protocol.
            _bob_acts(web_url, table_id, bob.seat_token)
        time.sleep(0.05)
    unfocused = driver.execute_script(
        "const c = getComputedStyle(document.querySelector('.hand .card.playable'));"
        "return c.outlineColor + ' ' + c.outlineWidth;"
    )
    # The keyboard: Tab until a playable card has the focus.
    for _ in range(40):
        _press(driver, Keys.TAB)
        if driver.execute_script("return document.activeElement.matches('.hand .card.playable')"):
            break
    card = driver.execute_script("return document.activeElement.dataset.cardId")
    assert card, "Tab never reached a playable card"
    focused = driver.execute_script(
        "const c = getComputedStyle(document.activeElement); return c.outlineColor + ' ' + c.outlineWidth;"
    )
    assert focused != unfocused, f"a focused card looks like a playable one: {focused}"
    driver.execute_script("document.activeElement.dataset.before = 'yes'")  # gone once the table is drawn again
    _watch_once(web_url, table_id, bob.seat_token)
    deadline = time.monotonic() + 10
    while driver.execute_script("return document.querySelector('[data-before]') !== null"):
        assert time.monotonic() < deadline, "no update drew the table again"
        time.sleep(0.05)
    assert driver.execute_script("return document.activeElement.dataset.cardId") == card
    shots(driver, "laptop-uno-focus", (LAPTOP_WIDE,))


def _bob_acts(url: str, table_id: str, token: str) -> None:
    """If Bob is to act, he draws (or takes the first choice offered)."""

    async def run() -> None:
        async with WebClient(url.rstrip("/")) as web:
            update = None
            async for response in web.watch(table_id, token=token):
                if response.HasField("update"):
                    update = response.update
                    break
            if update is None or update.viewer_seat not in update.to_act or not update.legal_actions:
                return
            legal = next((a for a in update.legal_actions if a.label.startswith("Draw")), update.legal_actions[0])
            request = service_pb2.ActRequest(
                table_id=table_id, version=update.version, action_id=legal.id, request_id=str(uuid.uuid4())
            )
            try:
                await web.call("Act", request, service_pb2.ActResponse, token=token)
            except Exception:  # the table moved on meanwhile: the next look decides again
                return

    asyncio.run(run())


def test_the_terminals_keys_choose_draw_call_uno_roll_and_go_back(web_url: str, laptop: Any) -> None:
    driver = laptop
    table_id = create(web_url, "uno", players=2, seed=9, options={"target": "500"})
    sit_down(driver, web_url, table_id, ".uno .hand")
    done = {"d": False, "number": False, "esc": False, "u": False}

    def keys_tried() -> bool:
        if not my_turn(driver) or find(driver, ".actions button[disabled]") or find(driver, ".actions .opened"):
            return all(done.values())
        hand = len(find(driver, ".hand .card"))
        wild = find(driver, ".hand .card.c-wild.playable")
        if not done["esc"] and wild:
            wild[0].click()
            wait_for(driver, ".colour-pick")
            _press(driver, Keys.ESCAPE)
            _until(driver, "!document.querySelector('.colour-pick') && !document.querySelector('.actions .opened')")
            done["esc"] = True
            return False
        if not done["u"] and find(driver, ".uno-call[data-kind=uno]"):
            _press(driver, "u")
            wait_for(driver, ".uno-call[aria-pressed=true]")
            assert find(driver, ".keyboard [data-key]"), "after a key, the choices show their numbers"
            shots(driver, "laptop-uno-keys", (LAPTOP_WIDE,))
            _press(driver, "u")
            wait_for(driver, ".uno-call[aria-pressed=false]")
            done["u"] = True
            return False
        if not done["d"] and find(driver, ".pile.playable"):
            _press(driver, "d")
            _until(driver, "document.querySelectorAll('.hand .card').length > arguments[0]", hand)
            done["d"] = True
            return False
        playable = [c for c in find(driver, ".hand .card.playable:not(.c-wild)") if c.get_attribute("data-key")]
        targets = driver.execute_script("return document.querySelectorAll('[data-key]').length")
        if not done["number"] and playable and targets <= 9:
            number = playable[-1].get_attribute("data-key")
            card = playable[-1].get_attribute("data-card-id")
            _press(driver, number)
            _until(driver, "!document.querySelector(`.hand [data-card-id='${arguments[0]}']`)", card)
            done["number"] = True
        return all(done.values())

    play_until(driver, keys_tried, "tried every key", step=lambda: uno_step(driver))


def test_r_rolls_the_kart_die(web_url: str, laptop: Any) -> None:
    driver = laptop
    table_id = create(web_url, "kart", players=2, seed=5, options={"track": "mini-loop"})
    sit_down(driver, web_url, table_id, ".kart .track-svg")
    play_until(driver, lambda: bool(my_turn(driver) and find(driver, "button.die.playable")), "was asked to roll")
    before = driver.execute_script("return document.querySelector('.dice').textContent")
    _press(driver, "r")
    _until(driver, "document.querySelector('.dice').textContent !== arguments[0] && "
           "/\\byou rolled/i.test(document.querySelector('.dice').textContent)", before)  # fmt: skip


def _until(driver: Any, condition: str, *args: Any, seconds: float = 10.0) -> None:
    """Wait for a JavaScript condition (an expression; `arguments` are `args`) to hold."""
    deadline = time.monotonic() + seconds
    while not driver.execute_script(f"return {condition}", *args):
        assert time.monotonic() < deadline, f"never: {condition}\n{page_text(driver)}"
        time.sleep(0.05)


def test_typed_digits_choose_a_kart_field_by_its_number(web_url: str, laptop: Any) -> None:
    driver = laptop
    table_id = create(web_url, "kart", players=2, seed=5, options={"track": "mini-loop"})
    sit_down(driver, web_url, table_id, ".kart .track-svg")

    def fields_offered() -> bool:
        return bool(my_turn(driver) and find(driver, ".track-svg .field.playable"))

    play_until(driver, fields_offered, "was offered a field (a banana chip to place)")
    offered = [int(f.get_attribute("data-field")) for f in find(driver, ".track-svg .field.playable")]
    # A two-digit field if there is one (its first digit waits for the second), else any.
    field = max(offered, key=lambda f: (f >= 10, f))
    typed = str(field)
    _press(driver, *typed)
    _until(
        driver, "document.querySelector(`.track-svg .field[data-field='${arguments[0]}'].has-banana`) !== null", field
    )
    assert not find(driver, ".track-svg .field.playable") or not my_turn(driver), "the choice was made"
