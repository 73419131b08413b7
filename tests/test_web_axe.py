"""Accessibility (issue #41 item 10): axe-core (the npm package, clients/toadstool_clients/web/node_modules,
injected by this test into a real headless Chromium) finds no serious or critical violation on the lobby,
each game's table (a person's seat, mid-game) and the TV screen; and "your turn" and each new event are said
through one live region that stays in the page.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import browser, click, create_table, type_into, wait_for, web_server

from toadstool.api.v1 import service_pb2

AXE = Path(__file__).resolve().parents[1] / "clients/toadstool_clients/web/node_modules/axe-core/axe.min.js"
GAMES = ("uno", "powerup", "levelup", "kart")
#: The rule sets run: WCAG 2.0/2.1 A and AA and axe's best practices.
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]


@pytest.fixture
def web_url(tmp_path: Path) -> Iterator[str]:
    with web_server(tmp_path / "serve.log", bot_delay=0.3) as url:
        yield url


@pytest.fixture
def driver(tmp_path: Path) -> Iterator[Any]:
    opened = browser(tmp_path / "profile", (390, 844))
    try:
        yield opened
    finally:
        opened.quit()


def _serious(driver: Any, where: str) -> list[str]:
    """The serious and critical violations axe-core finds on the page as it is now, the games' drawings too."""
    driver.execute_script(AXE.read_text())
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}})"
        ".then((r) => done(JSON.stringify(r.violations)), (e) => done(JSON.stringify({error: String(e)})));",
        TAGS,
    )
    violations = json.loads(result)
    assert isinstance(violations, list), violations
    return [
        f"{where}: {v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:4]}"
        for v in violations
        if v["impact"] in ("serious", "critical")
    ]


def test_axe_finds_no_serious_violation_on_the_lobby_each_games_table_and_the_tv(web_url: str, driver: Any) -> None:
    problems: list[str] = []
    driver.get(web_url)
    wait_for(driver, ".game-card")
    problems += _serious(driver, "the lobby")
    click(driver, ".game-card[data-game='uno']")
    wait_for(driver, ".create-details")
    problems += _serious(driver, "the new-table form")
    for game in GAMES:
        request = service_pb2.CreateTableRequest(game=game, players=3, bots=2, seed=5, name=f"{game} a11y")
        request.bot_delay_ms = 300
        table_id = create_table(web_url, request).table.table_id
        driver.get(f"{web_url}#/t/{table_id}")
        type_into(driver, "#join-name", "Ann")
        click(driver, ".join-panel button.sit")
        wait_for(driver, ".table-screen .board", seconds=20)
        problems += _serious(driver, f"{game}'s table")
        driver.get(f"{web_url}#/t/{table_id}/tv")
        wait_for(driver, ".tv-playing .tv-board", seconds=20)
        problems += _serious(driver, f"{game} on the TV")
    assert not problems, "\n".join(problems)


def _said(driver: Any) -> list[str]:
    return list(
        driver.execute_script("return [...document.querySelectorAll('#announcer p')].map((p) => p.textContent)")
    )


def test_your_turn_and_new_events_are_said_through_one_live_region(web_url: str, driver: Any) -> None:
    request = service_pb2.CreateTableRequest(game="uno", players=2, bots=1, seed=5, name="said")
    request.bot_delay_ms = 300
    table_id = create_table(web_url, request).table.table_id
    driver.get(f"{web_url}#/t/{table_id}")
    type_into(driver, "#join-name", "Ann")
    click(driver, ".join-panel button.sit")
    wait_for(driver, ".table-screen .board", seconds=20)
    region = wait_for(driver, "body > #announcer[aria-live=polite]", seconds=30)
    assert region.get_attribute("role") == "status"
    deadline = time.monotonic() + 30
    while "Your turn!" not in _said(driver):
        assert time.monotonic() < deadline, f"'Your turn!' was never said: {_said(driver)}"
        time.sleep(0.1)
    before = len(_said(driver))
    click(driver, ".hand .card.playable, .pile.playable")
    # My move is said as it comes, in the log's words.
    deadline = time.monotonic() + 30
    while len(_said(driver)) < before + 1:
        assert time.monotonic() < deadline, f"new events were not said: {_said(driver)}"
        time.sleep(0.1)
    log = driver.execute_script("return [...document.querySelectorAll('.log li')].map((li) => li.textContent)")
    assert set(_said(driver)[before:]) - {"Your turn!"} <= set(log), (_said(driver), log)
