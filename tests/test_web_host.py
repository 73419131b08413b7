"""The host's controls in the browser (issue #25), the table display's motion and the tabs of one browser
(issue #20), in a real headless Chromium against a real `toadstool serve`.

The browser that created a table holds its host token and is offered Start now, Add a bot, Remove <name>,
Let a bot play <name>'s seat and End the table; removing and ending ask first; a browser without the token
is offered none, and one with a forged token sees the server's refusal and changes nothing. An ended table
shows why it ended, never a winner. The table display marks a new roll and new events for their animation
(the DOM is asserted, not the timing) and honours prefers-reduced-motion. Hidden windows close their
streams, so more than six windows of one browser each follow the table. Screenshots go to test-output/web/.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from web_helpers import (
    LAPTOP,
    PHONE,
    ConnectError,
    WebClient,
    browser,
    choose_game,
    click,
    create_table,
    find,
    get_table,
    more_options,
    page_text,
    resize,
    screenshot,
    text_of,
    type_into,
    wait_for,
    wait_gone,
    web_server,
)

from toadstool.api import HOST_TOKEN_KEY
from toadstool.api.v1 import service_pb2

#: What the server names as the reason when the host ends a table (toadstool.server.tables.hosting).
ENDED_BY_HOST = "The host ended the game"


@pytest.fixture
def web_url(tmp_path: Path) -> Iterator[str]:
    with web_server(tmp_path / "serve.log", bot_delay=0.05) as url:
        yield url


@pytest.fixture
def ann(tmp_path: Path) -> Iterator[Any]:
    driver = browser(tmp_path / "profile-ann", PHONE)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def bea(tmp_path: Path) -> Iterator[Any]:
    driver = browser(tmp_path / "profile-bea", LAPTOP)
    try:
        yield driver
    finally:
        driver.quit()


def _create_uno(driver: Any, url: str, players: int, bots: int, by_hand: bool = False) -> str:
    """As Ann in the lobby: a UNO table (one hand, to 1 point) created and sat at; its id."""
    driver.get(url)
    type_into(driver, "#name", "Ann")
    choose_game(driver, "uno")
    type_into(driver, "input[name=players]", str(players))
    type_into(driver, "input[name=bots]", str(bots))
    more_options(driver)
    type_into(driver, "input[name=target]", "1")
    if by_hand:
        click(driver, "input[name=manual_start]")
    click(driver, "form button[type=submit]")
    wait_for(driver, ".table-screen .seats")
    return str(driver.current_url.rsplit("/", 1)[-1])


def _sit(driver: Any, url: str, name: str, table_id: str) -> None:
    driver.get(url)
    type_into(driver, "#name", name)
    click(driver, f"li.table-item[data-table='{table_id}'] button.join")
    wait_for(driver, ".table-screen .seats .seat.you")


def _seat_text(driver: Any, seat: int) -> str:
    return str(
        driver.execute_script(f"return document.querySelector(\".seats .seat[data-seat='{seat}']\")?.textContent ?? ''")
    )


def _wait_seat(driver: Any, seat: int, wanted: str, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while wanted not in _seat_text(driver, seat):
        assert time.monotonic() < deadline, f"seat {seat} never showed {wanted!r}:\n{page_text(driver)}"
        time.sleep(0.05)


def _controls(driver: Any) -> list[str]:
    found = driver.execute_script(
        "return [...document.querySelectorAll('.host .host-control')].map((b) => b.textContent)"
    )
    return [str(label) for label in found]


def test_the_creators_browser_is_offered_the_lobby_controls_and_a_guest_none(web_url: str, ann: Any, bea: Any) -> None:
    ann.get(web_url)
    choose_game(ann, "uno")
    more_options(ann)
    takeover = wait_for(ann, "input[name=takeover_seconds]")
    assert takeover.get_attribute("value") == "60", "tables from the browser default to a 60 s takeover"
    table_id = _create_uno(ann, web_url, players=3, bots=0, by_hand=True)
    wait_for(ann, ".host")
    assert _controls(ann) == ["Add a bot", "Start now (bots take the 2 open seats)", "End the table"]
    _sit(bea, web_url, "Bea", table_id)
    _wait_seat(ann, 1, "Bea")
    assert not find(bea, ".host"), "a browser without the host token is offered no host control"
    wait_for(ann, ".host-control[data-control='kick-1']")
    assert "Remove Bea" in _controls(ann)
    screenshot(ann, "host-lobby-phone")

    # Removing asks first; Cancel changes nothing.
    click(ann, ".host-control[data-control='kick-1']")
    question = text_of(ann, ".host-confirm")
    assert "Remove Bea from the table?" in question
    screenshot(ann, "host-confirm-remove-phone")
    click(ann, ".host-confirm .confirm-no")
    wait_for(ann, ".host-buttons")
    assert "Bea" in _seat_text(ann, 1)
    click(ann, ".host-control[data-control='kick-1']")
    click(ann, ".host-confirm .confirm-yes")
    _wait_seat(ann, 1, "(empty)")
    wait_gone(bea, ".seats .seat.you")  # Bea's token stopped working: her tab watches now
    assert "Start now (bots take the 2 open seats)" in _controls(ann)  # as it says: see the terminal's test

    # Two bots fill the table; it waits for the host (start by hand), who starts it.
    click(ann, ".host-control[data-control='add-bot']")
    _wait_seat(ann, 1, "(bot)")
    click(ann, ".host-control[data-control='add-bot']")
    _wait_seat(ann, 2, "(bot)")
    wait_for(ann, ".host-control[data-control='start']")
    assert _controls(ann) == ["Start now", "End the table"]
    click(ann, ".host-control[data-control='start']")
    wait_for(ann, ".table-screen .uno .hand .card")


def test_the_new_table_form_chooses_the_bots_level_and_the_host_changes_one_at_the_table(
    web_url: str, ann: Any
) -> None:
    """Issue #46 in the browser: "Bots play: easy / normal / hard" in the form (a tap each, 44 px tall),
    then one select per bot in the host's controls, which every seat's label follows."""
    ann.get(web_url)
    type_into(ann, "#name", "Ann")
    choose_game(ann, "uno")
    type_into(ann, "input[name=players]", "3")
    type_into(ann, "input[name=bots]", "2")
    hard = wait_for(ann, "label[for=bot-level-hard]")
    assert hard.size["height"] >= 44, hard.size
    hard.click()
    assert ann.execute_script("return document.querySelector('input[name=bot_level]:checked').value") == "3"
    more_options(ann)
    click(ann, "input[name=manual_start]")
    screenshot(ann, "bot-level-form-phone")
    click(ann, "form button[type=submit]")
    wait_for(ann, ".table-screen .seats")
    table_id = str(ann.current_url.rsplit("/", 1)[-1])
    table = get_table(web_url, table_id)
    assert [seat.bot_level for seat in table.seats] == [0, 3, 3]
    _wait_seat(ann, 1, "(hard bot)")
    select = wait_for(ann, "select.bot-level[data-seat='1']")
    assert select.get_attribute("value") == "3"
    assert "Bot 1 plays" in text_of(ann, ".host .bot-level-row")
    ann.execute_script(
        "const s = document.querySelector(\"select.bot-level[data-seat='1']\");"
        "s.value = '1'; s.dispatchEvent(new Event('change'));"
    )
    _wait_seat(ann, 1, "(easy bot)")
    assert "(hard bot)" in _seat_text(ann, 2)
    table = get_table(web_url, table_id)
    assert [seat.bot_level for seat in table.seats] == [0, 1, 3]
    ann.execute_script("document.querySelector('.host').scrollIntoView()")
    screenshot(ann, "bot-level-host-phone")


def test_the_host_hands_a_seat_to_a_bot_removes_it_and_ends_the_table_and_a_forged_token_is_refused(
    web_url: str, ann: Any, bea: Any
) -> None:
    table_id = _create_uno(ann, web_url, players=3, bots=1)
    _sit(bea, web_url, "Bea", table_id)
    wait_for(bea, ".table-screen .uno .hand .card")
    wait_for(ann, ".host-control[data-control='hand-1']")
    assert not find(bea, ".host")
    assert _controls(ann) == ["Let a bot play Bea's seat", "Remove Bea (a bot plays on)", "End the table"]
    resize(ann, LAPTOP)
    screenshot(ann, "host-playing-laptop")
    resize(ann, PHONE)

    # A forged host token in Bea's browser: the controls show, the server refuses, nothing changes.
    forged = "forged-host-token-0123456789"
    bea.execute_script("localStorage.setItem(arguments[0], arguments[1])", f"toadstool:host:{table_id}", forged)
    bea.refresh()
    click(bea, ".host-control[data-control='end']")
    click(bea, ".host-confirm .confirm-yes")
    refusal = text_of(bea, ".problem")
    assert "host" in refusal
    screenshot(bea, "host-forged-refused-laptop")
    assert not find(bea, ".outcome"), "a refused call ends nothing"
    assert not find(ann, ".outcome")

    # The same call over the Connect protocol gets the same refusal, word for word.
    async def forged_end() -> ConnectError:
        async with WebClient(web_url.rstrip("/")) as client:
            try:
                await client.call(
                    "EndTable",
                    service_pb2.EndTableRequest(table_id=table_id),
                    service_pb2.EndTableResponse,
                    headers={HOST_TOKEN_KEY: forged},
                )
            except ConnectError as error:
                return error
        raise AssertionError("a forged host token was accepted")

    error = asyncio.run(forged_end())
    assert error.code is grpc.StatusCode.PERMISSION_DENIED
    assert refusal == error.message
    bea.execute_script("localStorage.removeItem(arguments[0])", f"toadstool:host:{table_id}")
    bea.refresh()
    wait_for(bea, ".table-screen .uno .hand")
    assert not find(bea, ".host")

    # Let a bot play Bea's seat now: everyone sees it; her token keeps working.
    click(ann, ".host-control[data-control='hand-1']")
    _wait_seat(ann, 1, "a bot plays for now")
    _wait_seat(bea, 1, "a bot plays for now")
    assert "Let a bot play Bea's seat" not in _controls(ann)
    screenshot(ann, "host-handed-to-bot-phone")

    # Remove Bea for good: asked first; her tab watches afterwards.
    click(ann, ".host-control[data-control='kick-1']")
    assert "A bot plays their seat for the rest of the game" in text_of(ann, ".host-confirm")
    click(ann, ".host-confirm .confirm-yes")
    wait_gone(bea, ".seats .seat.you")
    wait_for(bea, ".problem")

    # End the table: asked first; the outcome says why, and no one won.
    click(ann, ".host-control[data-control='end']")
    wait_for(ann, ".host-confirm")
    click(ann, ".host-confirm .confirm-yes")
    for driver in (ann, bea):
        outcome = text_of(driver, ".outcome.ended")
        assert ENDED_BY_HOST in outcome
        assert "won" not in outcome.lower()
        assert "winner" not in outcome.lower()
        assert "The table has ended" in text_of(driver, "[data-testid=turn]")
    wait_gone(ann, ".host")
    screenshot(ann, "host-ended-phone")
    resize(ann, LAPTOP)
    screenshot(ann, "host-ended-laptop")


def _create_over_http(url: str, game: str, players: int, bots: int, bot_delay_ms: int) -> tuple[str, str]:
    request = service_pb2.CreateTableRequest(
        game=game, players=players, bots=bots, seed=7, name="Race night", bot_delay_ms=bot_delay_ms
    )
    created = create_table(url, request)
    return created.table.table_id, created.host_token


def _animation(driver: Any, selector: str, pseudo: str | None = None, prop: str = "animationName") -> str:
    """The animation of the first element matching `selector`, read in the same script that finds it (the
    display redraws on every update, and only the update that rolled marks its die); waits for one."""
    deadline = time.monotonic() + 20
    while True:
        name = driver.execute_script(
            "const e = document.querySelector(arguments[0]);"
            "return e ? getComputedStyle(e, arguments[1])[arguments[2]] : null",
            selector,
            pseudo,
            prop,
        )
        if name is not None:
            return str(name)
        assert time.monotonic() < deadline, f"{selector!r} never appeared:\n{page_text(driver)}"
        time.sleep(0.02)


def test_the_table_display_rolls_a_new_roll_on_a_big_die_and_slides_new_events_in(web_url: str, ann: Any) -> None:
    table_id, _ = _create_over_http(web_url, "kart", players=3, bots=3, bot_delay_ms=250)
    tv = ann
    resize(tv, LAPTOP)
    tv.get(f"{web_url}#/t/{table_id}/display")
    wait_for(tv, ".mode-display .display-roll .roll-die.rolling", seconds=20)
    value, face, label = tv.execute_script(
        "const d = document.querySelector('.roll-die');"
        "return [d.dataset.value, d.querySelector('.die-face').textContent, d.getAttribute('aria-label')]"
    )
    assert value, "the die shows the roll"
    assert value == face, "the die lands on the roll's value"
    assert f"rolled {value}" in label
    wait_for(tv, ".mode-display .log li.fresh")
    assert _animation(tv, ".roll-die.rolling") == "die-tumble"
    assert _animation(tv, ".mode-display .log li.fresh") == "event-in"
    assert not find(tv, ".actions"), "the display offers no choices"
    assert not find(tv, ".host"), "nor any host control"
    screenshot(tv, "kart-table-display-laptop")

    # With reduced motion asked for, the same classes come and nothing moves.
    tv.execute_cdp_cmd(
        "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]}
    )
    assert _animation(tv, ".roll-die.rolling") == "none"
    assert _animation(tv, ".roll-die.rolling .die-face") == "none"
    assert _animation(tv, ".roll-die.rolling", "::after", "content") == "none", "no faces run by"
    resize(tv, PHONE)
    screenshot(tv, "kart-table-display-phone")


def test_the_table_display_in_the_hosts_own_browser_shows_no_hand_and_no_host_control(web_url: str, ann: Any) -> None:
    table_id = _create_uno(ann, web_url, players=2, bots=1)
    wait_for(ann, ".table-screen .uno .hand .card")
    ann.get(f"{web_url}#/t/{table_id}/display")
    wait_for(ann, ".mode-display .uno .top-card")
    assert not find(ann, ".uno .hand .card"), "the display watches as a spectator, whatever this browser holds"
    assert not find(ann, ".host")
    assert not find(ann, ".actions")


def test_more_than_six_windows_of_one_browser_each_follow_the_table_once_shown(web_url: str, ann: Any) -> None:
    # A browser opens at most 6 HTTP/1.1 connections to one server; each shown table holds a Watch stream.
    # Windows are minimized (hidden) as the next opens, as tabs behind the one in front are.
    table_id = _create_uno(ann, web_url, players=2, bots=1)
    wait_for(ann, ".table-screen .uno .hand .card")
    windows = [ann.current_window_handle]
    for _ in range(7):
        ann.minimize_window()
        wait_for(ann, ".link.down")  # hidden: its stream is closed ("paused while hidden")
        ann.switch_to.new_window("window")
        windows.append(ann.current_window_handle)
        ann.get(f"{web_url}#/t/{table_id}/watch")
        wait_for(ann, ".mode-watch .link.live")
    assert "paused while hidden" not in page_text(ann)
    # Each one, shown again, follows the table from where it left it.
    for handle in windows:
        ann.switch_to.window(handle)
        ann.set_window_rect(width=LAPTOP[0], height=LAPTOP[1])
        wait_for(ann, ".link.live")
        ann.minimize_window()
        wait_for(ann, ".link.down")
    ann.switch_to.window(windows[0])
    ann.set_window_rect(width=LAPTOP[0], height=LAPTOP[1])
    wait_for(ann, ".link.live")
    assert "Ann (you)" in text_of(ann, ".seats"), "the first window still plays Ann's seat"
