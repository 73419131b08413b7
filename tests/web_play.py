"""Playing a game in the web client as a person would, for the phone, laptop and rules tests: seeded tables,
sitting down through the lobby, taps on the board (or the action bar), and waiting for a state, each bounded
by time and by a count of taps. Sizes are the ones people use: a phone held upright (390x844) and a laptop
(1366x768)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from selenium.common.exceptions import StaleElementReferenceException
from web_helpers import click, create_table, find, page_text, resize, screenshot, tap, wait_for

from toadstool.api.v1 import service_pb2

PHONE_UPRIGHT = (390, 844)
LAPTOP_WIDE = (1366, 768)
#: The next step of an opened entry on the board, and a piece to play.
NEXT_STEP = ".board .next, .board button.lu-level-label, .board .pu-aim, .board .field.playable"
BOARD_TAP = ".board button.playable, .board [role=button].playable, .board button.catch"


def create(url: str, game: str, players: int, seed: int, options: dict[str, str] | None = None, bots: int | None = None,
           bot_delay_ms: int = 20) -> str:  # fmt: skip
    """A seeded table over the Connect protocol (seat 0 left for the person unless `bots` says otherwise)."""
    request = service_pb2.CreateTableRequest(
        game=game,
        players=players,
        bots=players - 1 if bots is None else bots,
        seed=seed,
        name=f"{game} table",
        bot_delay_ms=bot_delay_ms,
    )
    request.options.update(options or {})
    return str(create_table(url, request).table.table_id)


def sit_down(driver: Any, url: str, table_id: str, board: str, name: str = "Ann") -> None:
    """In the lobby, as a person: type a name, take the table's open seat; wait for the game's board."""
    driver.get(url)
    field = wait_for(driver, "#name")
    field.clear()
    field.send_keys(name)
    click(driver, f"li.table-item[data-table='{table_id}'] button.join")
    wait_for(driver, f".table-screen .board {board}", 20)


def my_turn(driver: Any) -> bool:
    turn = driver.execute_script("return document.querySelector('[data-testid=turn]')?.textContent ?? ''")
    return bool(turn == "Your turn!")


def tap_something(driver: Any, rng: random.Random) -> bool:
    """One tap as a person makes it: the next step on the board if an entry is open, else mostly a piece on
    the board, else a choice in the action bar. True if something was tapped."""
    try:
        if find(driver, ".actions button[disabled]"):
            return False
        opened = bool(find(driver, ".actions .opened"))
        board = find(driver, NEXT_STEP if opened else BOARD_TAP)
        bar = find(driver, ".actions button.action:not(.cancel)")
        choices = board if board and (not bar or rng.random() < 0.8) else bar
        if not choices:
            return False
        tap(driver, rng.choice(choices))
        return True
    except StaleElementReferenceException:
        return False


def play_until(
    driver: Any,
    done: Callable[[], bool],
    what: str,
    seconds: float = 90.0,
    seed: int = 1,
    taps: int = 1500,
    step: Callable[[], bool] | None = None,
) -> None:
    """Play the person's turns by taps until `done()` (checked before each tap); fail after `seconds` or
    `taps` taps, or if the game ends first. `step()` takes a turn its own way (True if it tapped), else a
    random tap does."""
    rng = random.Random(seed)
    deadline = time.monotonic() + seconds
    count = 0
    while True:
        try:
            if done():
                return
        except StaleElementReferenceException:
            continue
        assert not find(driver, ".outcome"), f"the game ended before {what}:\n{page_text(driver)}"
        assert time.monotonic() < deadline, f"never {what} in {seconds} s:\n{page_text(driver)}"
        assert count < taps, f"never {what} in {taps} taps:\n{page_text(driver)}"
        if my_turn(driver) and ((step is not None and step()) or tap_something(driver, rng)):
            count += 1
            time.sleep(0.06)
        else:
            time.sleep(0.03)


def shots(driver: Any, name: str, sizes: tuple[tuple[int, int], ...] = (PHONE_UPRIGHT, LAPTOP_WIDE)) -> list[Path]:
    """Screenshots of the page at each size (test-output/web/NAME-WxH.png); the page is left at the first."""
    saved = [screenshot(resize_to(driver, size), f"{name}-{size[0]}x{size[1]}") for size in sizes]
    resize_to(driver, sizes[0])
    return saved


def resize_to(driver: Any, size: tuple[int, int]) -> Any:
    resize(driver, size)
    time.sleep(0.2)  # the page draws again when it crosses the phone's width
    return driver


def uno_step(driver: Any) -> bool:
    """An UNO turn played to win: a wild's colour if one is open, else a coloured card (wilds are kept for
    later), else a wild, else a draw, else the bar's first choice. True if something was tapped. (The test's
    own moves, not what it checks: those are tapped where they are.)"""
    try:
        if find(driver, ".actions button[disabled]"):
            return False
        for selector in (
            ".colour-pick .colour-target",
            ".hand .card.playable:not(.c-wild)",
            ".hand .card.playable",
            ".pile.playable",
            ".actions button.action:not(.cancel)",
        ):
            found = find(driver, selector)
            if found:
                # Clicked in the page, not at the place it had a moment ago: the bots' updates move the cards.
                driver.execute_script("arguments[0].click()", found[0])
                return True
    except StaleElementReferenceException:
        return False
    return False
