"""The browser's Power Up round result in German: a person in a German Chromium (de-DE) sits at a Power Up
table and plays it (their moves sent over the Connect API with the seat token the page keeps) until a round
is scored with their turn next; the board's result box (`.pu-result`) then shows the round's lines the
server marked as its result (Event.round_result), in German, never found by English words.

A real `toadstool serve` on loopback and a real headless Chromium; screenshots of the German result at a
phone's 390x844 and a TV's 1920x1080 go to test-output/web/ (recap-de-*.png) for a person.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import (
    WebClient,
    browser,
    click,
    create_table,
    find,
    layout_problems,
    resize,
    screenshot,
    wait_for,
    web_server,
)

from toadstool.api.v1 import service_pb2, table_pb2

PHONE = (390, 844)
TV = (1920, 1080)
#: Power Up's kinds of action a person takes here, in this order of preference: the round ends soon.
QUIET = ("keep", "pass", "accept_swap")
ENGLISH = ["Final Levels", "Lowest", "loses an Extra Life", "nobody loses", "Extra Life"]


@pytest.fixture
def web_url(tmp_path: Path) -> Iterator[str]:
    with web_server(tmp_path / "serve.log", bot_delay=0.02) as url:
        yield url


@pytest.fixture
def german_chromium(tmp_path: Path) -> Iterator[Any]:
    driver = browser(tmp_path / "profile", PHONE, language="de-DE")
    try:
        yield driver
    finally:
        driver.quit()


async def _move_or_result(url: str, table_id: str, token: str) -> str:
    """One step of the person: "result" when a round was just scored and it is their turn (the page holds
    the result), "moved" after a move, "waiting" while others play."""
    async with WebClient(url.rstrip("/")) as web:
        update = await web.newest(table_id, token)
        assert update.status == table_pb2.TABLE_STATUS_PLAYING, "the game ended before a round result was seen"
        if update.viewer_seat not in update.to_act or not update.legal_actions:
            return "waiting"
        last = await web.newest(table_id, token, since=update.version - 1)
        if last.version == update.version and any(e.round_result for e in last.events):
            return "result"
        acts = list(update.legal_actions)
        kinds = [a.action.powerup.WhichOneof("kind") for a in acts]
        chosen = next((a for kind in QUIET for a, k in zip(acts, kinds, strict=True) if k == kind), acts[0])
        request = service_pb2.ActRequest(
            table_id=table_id, version=update.version, request_id=str(uuid.uuid4()), action_id=chosen.id
        )
        try:
            await web.call("Act", request, service_pb2.ActResponse, token)
        except Exception:  # a bot moved first (a stale version): look again
            return "waiting"
        return "moved"


def _result_lines(driver: Any) -> list[str]:
    return list(
        driver.execute_script("return [...document.querySelectorAll('.pu-result div')].map((e) => e.textContent)")
    )


@pytest.mark.timeout(300)
def test_a_german_power_up_round_result_shows_in_german(web_url: str, german_chromium: Any) -> None:
    driver = german_chromium
    request = service_pb2.CreateTableRequest(game="powerup", players=3, bots=2, seed=5, name="Abend", bot_delay_ms=20)
    table_id = create_table(web_url, request).table.table_id
    driver.get(web_url)
    name = wait_for(driver, "#name")
    name.clear()
    name.send_keys("Anna")
    click(driver, f"li.table-item[data-table='{table_id}'] button.join")
    wait_for(driver, ".table-screen .board .powerup .pu-seat", 20)
    held = driver.execute_script(f"return localStorage.getItem('toadstool:seats:{table_id}')")
    token = str(json.loads(held)[0]["token"])
    deadline = time.monotonic() + 240
    shown: list[str] = []
    while time.monotonic() < deadline:
        step = asyncio.run(_move_or_result(web_url, table_id, token))
        if step != "result":
            time.sleep(0.05 if step == "moved" else 0.1)
            continue
        # The page holds the result while the table waits for this person (a bot's any-time ? card may
        # still come first: then the next round's result is looked at instead).
        end = time.monotonic() + 10
        while not (shown := _result_lines(driver)) and time.monotonic() < end:
            time.sleep(0.05)
        if not shown:
            continue
        screenshot(driver, "recap-de-powerup-390x844")
        resize(driver, TV)
        screenshot(driver, "recap-de-powerup-1920x1080")
        wide = _result_lines(driver)
        tv_problems = layout_problems(driver, phone=False)
        resize(driver, PHONE)
        phone_problems = layout_problems(driver, phone=True)
        if wide == shown and _result_lines(driver) == shown:
            break
    assert shown, "no round's result was shown while it was the person's turn"
    assert any(re.match(r"Endgültige Level: .*Niedrigstes: \d+\.$|Alle halten ein Schloss", s) for s in shown), shown
    for english in ENGLISH:
        assert not any(english in line for line in shown), (english, shown)
    assert not tv_problems, tv_problems
    assert not phone_problems, phone_problems
    words = driver.execute_script("return document.querySelector('.pu-result').textContent")
    assert "Anna" in words or "Bot" in words, words
    assert find(driver, ".pu-result[role=status]")
