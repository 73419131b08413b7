"""How to play: each game's short rules panel opens from the table screen's header (here a spectator's), in a
real headless Chromium, at phone (390x844) and laptop (1366x768) size; it stays open while the table's updates draw the
table again (the bots play on), scrolls inside itself rather than past the screen, and Esc or Close shuts it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys
from web_helpers import click, find, page_text, wait_for, wait_gone, web_server
from web_play import LAPTOP_WIDE, PHONE_UPRIGHT, create, resize_to, shots

#: Each game: its board's element, options, players, and words its rules must say.
GAMES = {
    "uno": (".uno .hand", {}, 3, ["UNO Super Mario", "Wild Draw Four", "call UNO"]),
    "powerup": (".powerup .pu-seat", {}, 3, ["Power Up", "Extra Lives", "Castle"]),
    "levelup": (".levelup .lu-board", {}, 3, ["Level Up!", "favourite", "Thwomp Vote"]),
    "kart": (".kart .track-svg", {"track": "mini-loop"}, 3, ["Super Mario Kart", "Booster", "Feather"]),
}


@pytest.fixture
def web_url(tmp_path: Path) -> Iterator[str]:
    with web_server(tmp_path / "serve.log", bot_delay=0.02) as url:
        yield url


@pytest.mark.parametrize("game", list(GAMES))
def test_the_rules_panel_opens_from_the_table_stays_through_updates_and_closes(
    web_url: str, chromium: Any, game: str
) -> None:
    driver = resize_to(chromium, PHONE_UPRIGHT)
    board, options, players, words = GAMES[game]
    # A table of bots, watched: its updates keep coming while the panel is open.
    # Slow enough bots that no game ends while the page loads on a busy machine, quick enough to see a move.
    table_id = create(web_url, game, players, seed=3, options=options, bots=players, bot_delay_ms=1000)
    driver.get(f"{web_url}#/t/{table_id}/watch")
    wait_for(driver, f".table-screen .board {board.split()[0]}", 20)
    click(driver, f".table-header button.rules-open[data-rules='{game}']")
    panel = wait_for(driver, "dialog.rules[open]")
    text = panel.text
    for word in words:
        assert word in text, f"{game}: the rules do not say {word!r}:\n{text}"
    assert len(find(driver, "dialog.rules h3")) >= 3, "the rules come in short headed parts"
    # The panel fits the screen (it scrolls inside itself), at both sizes.
    for size in (PHONE_UPRIGHT, LAPTOP_WIDE):
        resize_to(driver, size)
        fits = driver.execute_script(
            "const r = document.querySelector('dialog.rules').getBoundingClientRect();"
            "return r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth;"
        )
        assert fits, f"{game}: the rules panel does not fit {size}"
    shots(driver, f"rules-{game}")
    # The bots play on: the table is drawn again underneath, and the panel stays open.
    log = driver.execute_script("return document.querySelector('.log')?.textContent ?? ''")
    deadline = time.monotonic() + 30
    while driver.execute_script("return document.querySelector('.log')?.textContent ?? ''") == log:
        assert time.monotonic() < deadline, f"no update came:\n{page_text(driver)}"
        time.sleep(0.05)
    assert find(driver, "dialog.rules[open]"), "an update closed the rules"
    ActionChains(driver).send_keys(Keys.ESCAPE).perform()
    wait_gone(driver, "dialog.rules[open]")
    click(driver, ".table-header button.rules-open")
    wait_for(driver, "dialog.rules[open]")
    click(driver, "dialog.rules .rules-foot button")
    wait_gone(driver, "dialog.rules[open]")
