"""The browser's UNO board says how the last hand ended: a person in Chromium sits at a two-seat UNO table
(one bot) and plays (their moves sent over the Connect API with the seat token the page keeps) until the
second hand is dealt; the board then shows under the hand's number who went out and the points left in the
other hands, read from the view (`last_hand_winner`, `last_hand_points`), in the page's language, and it
stays there while the bot plays on (an event-based box would be gone at the bot's next move).

A real `toadstool serve` on loopback and a real headless Chromium, English and German; screenshots at a
phone's 390x844 and a TV's 1920x1080 go to test-output/web/ (uno-last-hand-*.png) for a person.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import (
    ConnectError,
    WebClient,
    browser,
    click,
    create_table,
    layout_problems,
    resize,
    screenshot,
    wait_for,
    web_server,
)

from toadstool.api.v1 import service_pb2, table_pb2

PHONE = (390, 844)
TV = (1920, 1080)
#: With seed 11 the person goes out first; with SEED_DE the bot does (both sentences are checked).
SEED_DE = 14
#: The person's kinds of action, in this order of preference: play a card, else draw, else anything.
PREFERRED = ("play_card", "draw", "keep", "accept_penalty", "choose_color")


@pytest.fixture
def web_url(tmp_path: Path) -> Iterator[str]:
    with web_server(tmp_path / "serve.log", bot_delay=0.02) as url:
        yield url


async def _step(url: str, table_id: str, token: str) -> table_pb2.Update | None:
    """The table's update once the second hand is dealt, else None after one move (or none: not their turn)."""
    async with WebClient(url.rstrip("/")) as web:
        update = await web.newest(table_id, token)
        assert update.status == table_pb2.TABLE_STATUS_PLAYING, "the game ended in its first hand"
        if update.view.uno.hand_number >= 2:
            return update
        if update.viewer_seat not in update.to_act or not update.legal_actions:
            return None
        acts = list(update.legal_actions)
        kinds = [a.action.uno.WhichOneof("kind") for a in acts]
        chosen = next((a for kind in PREFERRED for a, k in zip(acts, kinds, strict=True) if k == kind), acts[0])
        request = service_pb2.ActRequest(
            table_id=table_id, version=update.version, request_id=str(uuid.uuid4()), action_id=chosen.id
        )
        with contextlib.suppress(ConnectError):  # the bot moved first (a stale version): look again
            await web.call("Act", request, service_pb2.ActResponse, token)
        return None


def _last_hand(driver: Any) -> str:
    return str(driver.execute_script("return document.querySelector('.uno-last-hand')?.textContent ?? ''"))


@pytest.mark.timeout(240)
@pytest.mark.parametrize(
    ("language", "seed", "expected"),
    [
        ("en-GB", 11, ("Hand 1: {name} went out, with {points} points", "Hand 1: you went out, with {points} points")),
        (
            "de-DE",
            SEED_DE,
            (
                "Runde 1: {name} hat alle Karten abgelegt, {points} Punkte",
                "Runde 1: du hast alle Karten abgelegt, {points} Punkte",
            ),
        ),
    ],
)
def test_the_uno_board_says_who_went_out_last_hand(
    web_url: str, tmp_path: Path, language: str, seed: int, expected: tuple[str, str]
) -> None:
    driver = browser(tmp_path / "profile", PHONE, language=language)
    try:
        options = {"target": "500"}
        request = service_pb2.CreateTableRequest(
            game="uno", players=2, bots=1, seed=seed, name="Hands", bot_delay_ms=20, options=options
        )
        table_id = create_table(web_url, request).table.table_id
        driver.get(web_url)
        name = wait_for(driver, "#name")
        name.clear()
        name.send_keys("Anna <i>")
        click(driver, f"li.table-item[data-table='{table_id}'] button.join")
        wait_for(driver, ".table-screen .board .uno .hand", 20)
        assert _last_hand(driver) == "", "the first hand has no last hand to tell"
        token = str(
            json.loads(driver.execute_script(f"return localStorage.getItem('toadstool:seats:{table_id}')"))[0]["token"]
        )
        deadline = time.monotonic() + 180
        second: table_pb2.Update | None = None
        while second is None:
            assert time.monotonic() < deadline, "the first hand did not end in 180 s"
            second = asyncio.run(_step(web_url, table_id, token))
            time.sleep(0.02)
        view = second.view.uno
        assert view.HasField("last_hand_winner")
        others, mine = expected
        template = mine if view.last_hand_winner == second.viewer_seat else others
        bot_name = second.seats[view.last_hand_winner].name
        want = template.format(name=bot_name, points=view.last_hand_points)
        end = time.monotonic() + 20
        while not _last_hand(driver).startswith(want) and time.monotonic() < end:
            time.sleep(0.05)
        assert _last_hand(driver).startswith(want), (_last_hand(driver), want)
        screenshot(driver, f"uno-last-hand-{language}-390x844")
        assert not layout_problems(driver, phone=True)
        resize(driver, TV)
        screenshot(driver, f"uno-last-hand-{language}-1920x1080")
        assert _last_hand(driver).startswith(want)
        assert not layout_problems(driver, phone=False)
    finally:
        driver.quit()
