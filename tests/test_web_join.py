"""Joining in seconds and the lobby for people, in a real headless Chromium against a real `toadstool serve`.

A table's page (what a phone opens from the QR code) asks for a name once, remembered on the device, and
seats the person with one tap; a name already at the table is refused with a sentence and nothing is sent;
"Just watch" watches. The host's waiting screen carries the invite (QR code and link to that page). The
lobby lists live tables first and folds finished ones away, and a new table starts from the games' cards,
then players and bots, with the rest under "More options". Screenshots (test-output/web/join-*, lobby-*)
at phone 390x844, laptop 1366x768 and TV 1920x1080.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from web_helpers import (
    attribute_of,
    browser,
    check_layout,
    choose_game,
    click,
    create_table,
    find,
    page_text,
    resize,
    screenshot,
    text_of,
    type_into,
    wait_for,
    wait_gone,
    web_server,
)

from toadstool.api.v1 import service_pb2

PHONE = (390, 844)
LAPTOP = (1366, 768)
TV = (1920, 1080)


@pytest.fixture
def web_url(tmp_path: Path) -> Iterator[str]:
    with web_server(tmp_path / "serve.log", bot_delay=0.05) as url:
        yield url


@pytest.fixture
def phones(tmp_path: Path) -> Iterator[list[Any]]:
    drivers = [browser(tmp_path / f"profile-{i}", PHONE) for i in range(2)]
    try:
        yield drivers
    finally:
        for driver in drivers:
            driver.quit()


def _table(url: str, game: str = "uno", players: int = 3, bots: int = 0) -> str:
    request = service_pb2.CreateTableRequest(game=game, players=players, bots=bots, seed=3, name="Friday")
    return create_table(url, request).table.table_id


def _join_over_http(url: str, table_id: str, name: str) -> None:
    httpx.post(
        f"{url}toadstool.v1.ToadstoolService/JoinTable",
        json={"tableId": table_id, "name": name},
        headers={"content-type": "application/json"},
        timeout=10,
    ).raise_for_status()


def _seat_names(url: str, table_id: str) -> list[str]:
    answer = httpx.post(
        f"{url}toadstool.v1.ToadstoolService/GetTable",
        json={"tableId": table_id},
        headers={"content-type": "application/json"},
        timeout=10,
    )
    answer.raise_for_status()
    return [seat.get("name", "") for seat in answer.json()["table"]["seats"]]


def _list_calls(driver: Any) -> int:
    script = "return performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/ListTables')).length"
    return int(driver.execute_script(script))


def test_a_tables_page_asks_a_name_once_refuses_one_already_there_and_seats_with_one_tap(
    web_url: str, phones: list[Any]
) -> None:
    bea, cy = phones
    table_id = _table(web_url)
    _join_over_http(web_url, table_id, "Ann")
    bea.get(f"{web_url}#/t/{table_id}")
    name = wait_for(bea, ".join-panel #join-name")
    assert bea.switch_to.active_element == name, "with no name remembered, the name field has the focus"
    screenshot(bea, "join-ask-name-phone")
    name.send_keys("ann")
    click(bea, ".join-panel button.sit")
    problem = text_of(bea, ".join-panel .problem")
    assert "Someone called ann is already at this table" in problem
    assert _seat_names(web_url, table_id) == ["Ann", "", ""], "nothing was sent"
    screenshot(bea, "join-name-taken-phone")
    type_into(bea, "#join-name", "Bea")
    click(bea, ".join-panel button.sit")
    wait_for(bea, ".seats .seat.you")
    assert _seat_names(web_url, table_id) == ["Ann", "Bea", ""]
    assert bea.execute_script("return localStorage.getItem('toadstool:name')") == "Bea"
    # The waiting screen carries the invite: the QR code of this very page and its link.
    invite = attribute_of(bea, ".waiting-invite .invite img.qr", "src")
    assert invite == f"/qr.svg?page=%23%2Ft%2F{table_id}"
    assert text_of(bea, ".waiting-invite .invite-link") == f"{web_url}#/t/{table_id}"
    check_layout(bea, "the waiting screen with its invite", "join-waiting-phone")
    resize(bea, LAPTOP)
    screenshot(bea, "join-waiting-laptop")

    # The same device on another table's page: the name is remembered, one tap seats.
    other = _table(web_url, "powerup", 2)
    bea.get(f"{web_url}#/t/{other}")
    assert wait_for(bea, "#join-name").get_attribute("value") == "Bea"
    click(bea, ".join-panel button.sit")
    wait_for(bea, ".seats .seat.you")
    assert _seat_names(web_url, other) == ["Bea", ""]

    # Just watch: a spectator, no seat taken.
    cy.get(f"{web_url}#/t/{table_id}")
    resize(cy, LAPTOP)
    wait_for(cy, ".join-panel")
    screenshot(cy, "join-ask-name-laptop")
    click(cy, ".join-panel button.watch")
    deadline = time.monotonic() + 10
    while not cy.current_url.endswith(f"#/t/{table_id}/watch"):
        assert time.monotonic() < deadline, cy.current_url
        time.sleep(0.05)
    wait_for(cy, ".table-screen.mode-watch .seats")
    assert not find(cy, ".join-panel")
    assert _seat_names(web_url, table_id) == ["Ann", "Bea", ""]


def test_the_lobby_puts_live_tables_first_folds_finished_ones_and_starts_a_table_from_the_games(
    web_url: str, phones: list[Any]
) -> None:
    driver = phones[0]
    finished = _table(web_url, "powerup", 2, 2)  # bots only: over in a moment
    waiting = _table(web_url, "uno", 3, 0)
    _join_over_http(web_url, waiting, "Ann")
    driver.get(web_url)
    wait_for(driver, f"li.table-item[data-table='{waiting}']")
    toggle = wait_for(driver, ".finished .finished-toggle", seconds=60)
    assert toggle.get_attribute("aria-expanded") == "false", "finished games are folded away"
    assert not find(driver, f".finished li[data-table='{finished}']")
    first = driver.execute_script("return document.querySelector('.tables > ul > li.table-item')?.dataset.table")
    assert first == waiting, "the live table comes first"
    assert "Finished games (1)" in page_text(driver)
    # The list is asked for every 2 s and drawn again only when it changed: a keyboard's focus stays put.
    driver.execute_script(f"document.querySelector(\"li[data-table='{waiting}'] a.watch\").focus()")
    asked = _list_calls(driver)
    deadline = time.monotonic() + 20
    while _list_calls(driver) < asked + 2:
        assert time.monotonic() < deadline, "the lobby stopped asking for the tables"
        time.sleep(0.1)
    focused = driver.execute_script("return document.activeElement.closest('li')?.dataset.table ?? ''")
    assert focused == waiting, "the lobby's refresh took the focus away"
    click(driver, ".finished .finished-toggle")
    wait_for(driver, f".finished li[data-table='{finished}'] a.watch")
    screenshot(driver, "lobby-finished-open-phone")
    click(driver, ".finished .finished-toggle")
    wait_gone(driver, f".finished li[data-table='{finished}']")
    for label, size in (("phone", PHONE), ("laptop", LAPTOP), ("tv", TV)):
        resize(driver, size)
        screenshot(driver, f"lobby-{label}")
    resize(driver, PHONE)
    cards = [c.get_attribute("data-game") for c in find(driver, ".game-card")]
    assert {"uno", "powerup", "levelup", "kart"} <= set(cards)
    for card in find(driver, ".game-card"):
        assert card.find_element("css selector", "svg.game-picture")
        assert card.find_element("css selector", ".game-line").text
    assert not find(driver, "form.create-details"), "the form waits for a game to be picked"
    choose_game(driver, "kart")
    assert driver.execute_script("return document.querySelector('.more-fields').hidden"), "More options folded"
    check_layout(driver, "the new-table form", "lobby-new-kart-phone")
    resize(driver, LAPTOP)
    screenshot(driver, "lobby-new-kart-laptop")
    visible = driver.execute_script(
        "const r = document.querySelector('.create-button').getBoundingClientRect(); return r.bottom <= innerHeight"
    )
    assert visible or driver.execute_script("return document.scrollingElement.scrollTop") == 0
    # Without a name the table is not created: the name is asked for, with a sentence.
    type_into(driver, "#name", " ")
    click(driver, ".create-button")
    assert "Type your name first" in text_of(driver, ".name-problem")
    type_into(driver, "#name", "Dee")
    click(driver, ".create-button")
    wait_for(driver, ".table-screen .seats .seat.you")
    assert "Dee" in text_of(driver, ".seats .seat.you")


def _refreshes(driver: Any) -> int:
    return int(driver.execute_script("return Number(document.querySelector('.tables')?.dataset.refreshes ?? 0)"))


def test_the_lobbys_refresh_keeps_the_focus_and_the_scroll_position_while_tables_change(
    web_url: str, phones: list[Any]
) -> None:
    driver = phones[0]
    tables = [_table(web_url) for _ in range(5)]
    driver.get(web_url)
    for table_id in tables:
        wait_for(driver, f"li.table-item[data-table='{table_id}'] a.watch")
    mark = tables[3]
    # A keyboard user on the fourth table's Watch, the page scrolled down to it.
    scrolled = driver.execute_script(
        "const e = document.querySelector(arguments[0]); e.scrollIntoView({block: 'center'});"
        "e.focus({preventScroll: true}); window.focusedBefore = e; return scrollY",
        f"li.table-item[data-table='{mark}'] a.watch",
    )
    assert scrolled > 100, "the page is long enough to be scrolled"
    asked = _refreshes(driver)
    # The tables change under it: someone sits at it and at the first, and a new table opens.
    _join_over_http(web_url, mark, "Bea")
    _join_over_http(web_url, tables[0], "Cy")
    _table(web_url, "kart", 3, 1)
    deadline = time.monotonic() + 20
    while (
        "Bea" not in text_of(driver, f"li.table-item[data-table='{mark}'] .table-seats")
        or _refreshes(driver) < asked + 2
    ):
        assert time.monotonic() < deadline, f"the lobby did not show the change in 20 s:\n{page_text(driver)}"
        time.sleep(0.05)
    now = driver.execute_script(
        "const a = document.activeElement;"
        "return {table: a.dataset.table ?? '', does: a.dataset.do ?? '', tag: a.tagName, y: scrollY,"
        " redrawn: !window.focusedBefore.isConnected}"
    )
    assert now["redrawn"], "the list was drawn again (the test checks a redraw, not an idle refresh)"
    assert (now["table"], now["does"], now["tag"]) == (mark, "watch", "A"), f"the focus moved: {now}"
    assert now["y"] == scrolled, f"the page scrolled from {scrolled} to {now['y']}"
    # A focused "Sit down" keeps the focus too once the table it is on changes.
    driver.execute_script("document.querySelector(arguments[0]).focus()", f"button.join[data-table='{tables[1]}']")
    asked = _refreshes(driver)
    _join_over_http(web_url, tables[1], "Dee")
    deadline = time.monotonic() + 20
    while (
        "Dee" not in text_of(driver, f"li.table-item[data-table='{tables[1]}'] .table-seats")
        or _refreshes(driver) < asked + 2
    ):
        assert time.monotonic() < deadline, page_text(driver)
        time.sleep(0.05)
    focused = driver.execute_script("return [document.activeElement.dataset.table, document.activeElement.dataset.do]")
    assert focused == [tables[1], "join"], focused
    screenshot(driver, "lobby-focus-kept-phone")


def test_a_focused_sit_down_that_goes_away_leaves_the_focus_on_its_table(web_url: str, phones: list[Any]) -> None:
    driver = phones[0]
    other, table_id = _table(web_url), _table(web_url)
    driver.get(web_url)
    wait_for(driver, f"button.join[data-table='{table_id}']")
    wait_for(driver, f"button.join[data-table='{other}']")
    driver.execute_script("document.querySelector(arguments[0]).focus()", f"button.join[data-table='{table_id}']")
    for name in ("Ann", "Bea", "Cy"):  # the table fills up and starts: its "Sit down" goes
        _join_over_http(web_url, table_id, name)
    wait_gone(driver, f"button.join[data-table='{table_id}']", seconds=20)
    focused = driver.execute_script(
        "const a = document.activeElement; return [a.dataset.table ?? a.tagName, a.dataset.do ?? '']"
    )
    assert focused == [table_id, "watch"], f"the focus left the table: {focused}"
