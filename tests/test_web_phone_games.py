"""Each game at its best on a phone held upright (390x844), in a real headless Chromium against a real server.

UNO: calling UNO is a big button at the moment it matters (it switches the call on for the next-to-last
card, whose play then says "called UNO"); a wild's colour is four coloured targets (not words in the bar);
every coloured card carries its colour's letter. Kart: the track is an SVG loop with one field per field of
the track file, its shortcuts as arrows and a legend; the die's face is the roll its caption names, update
after update at bot speed; seven karts' standings are never under the action bar. Level Up!: the vote cards
are on the first screen when it is your vote. Power Up: a ? card's targets are offered once (on the seats,
not again in the bar), and the log never calls the viewer by name: its lines are word for word the
terminal client's (toadstool_clients.terminal.events, which the browser's games/words.ts ports).
Screenshots of each at phone and laptop size go to test-output/web/.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.common.exceptions import StaleElementReferenceException
from web_helpers import WebClient, find, page_text, tap, wait_for, web_server
from web_play import PHONE_UPRIGHT, create, my_turn, play_until, resize_to, shots, sit_down, uno_step

from toadstool.api.v1 import table_pb2
from toadstool_clients.terminal.events import in_your_words

LETTERS = {"c-red": "R", "c-yellow": "Y", "c-green": "G", "c-blue": "B"}


@pytest.fixture
def web_url(tmp_path: Path) -> Iterator[str]:
    with web_server(tmp_path / "serve.log", bot_delay=0.02) as url:
        yield url


@pytest.fixture
def phone(chromium: Any) -> Any:
    return resize_to(chromium, PHONE_UPRIGHT)


def _log_lines(driver: Any) -> list[str]:
    return list(driver.execute_script("return [...document.querySelectorAll('.log li')].map((e) => e.textContent)"))


def _cards_lettered(driver: Any) -> int:
    """Every coloured card on the page carries its colour's letter; how many were checked."""
    cards = driver.execute_script(
        "return [...document.querySelectorAll('.uno .card')].map((c) => "
        "[c.className, c.querySelector('.colour-letter')?.textContent ?? ''])"
    )
    checked = 0
    for classes, letter in cards:
        colour = next((c for c in classes.split() if c in LETTERS), None)
        if colour is not None:
            assert letter == LETTERS[colour], (classes, letter)
            checked += 1
    return checked


def test_uno_calls_uno_with_a_big_button_and_picks_a_wilds_colour_from_four_coloured_targets(
    web_url: str, phone: Any
) -> None:
    driver = phone
    table_id = create(web_url, "uno", players=2, seed=4, options={"target": "500"})
    sit_down(driver, web_url, table_id, ".uno .hand")
    assert _cards_lettered(driver) >= 7, "the hand's coloured cards carry their letters"
    seen = {"call": False, "colours": False}

    def at_a_moment() -> bool:
        if not my_turn(driver) or find(driver, ".actions button[disabled]"):
            return seen["call"] and seen["colours"]
        wild = find(driver, ".hand .card.c-wild.playable")
        if not seen["colours"] and wild and not find(driver, ".actions .opened"):
            tap(driver, wild[0])
            wait_for(driver, ".colour-pick")
            targets = find(driver, ".colour-pick .colour-target")
            assert sorted(t.get_attribute("data-color") for t in targets) == ["blue", "green", "red", "yellow"]
            assert [t.text.split()[0] for t in targets] == ["R", "Y", "G", "B"], "each target has its letter"
            assert not find(driver, ".actions button.action:not(.cancel)"), "the colours are not words in the bar"
            shots(driver, "phone-uno-colours")
            tap(driver, find(driver, ".colour-pick .colour-target[data-color=blue]")[0])
            seen["colours"] = True
            return False
        call = find(driver, ".uno-call[data-kind=uno]")
        if not seen["call"] and call and len(find(driver, ".hand .card")) == 2:
            assert call[0].size["height"] >= 56, call[0].size
            assert call[0].size["width"] >= 100, call[0].size
            assert call[0].get_attribute("aria-pressed") == "false"
            assert not find(driver, ".actions .toggle"), "no tick box in the bar"
            tap(driver, call[0])
            button = wait_for(driver, ".uno-call[aria-pressed=true]")
            assert "✓" in button.text
            playable = find(driver, ".hand .card.playable:not(.c-wild)") or find(driver, ".hand .card.playable")
            label = playable[0].get_attribute("title")
            assert label.endswith("and call UNO"), label
            card = playable[0].get_attribute("data-card-id")
            shots(driver, "phone-uno-call")  # drawn again at each size: find the card again
            tap(driver, wait_for(driver, f".hand .card.playable[data-card-id='{card}']"))
            if find(driver, ".colour-pick"):
                tap(driver, find(driver, ".colour-pick .colour-target")[0])
            deadline = time.monotonic() + 10
            while not any("called UNO" in line for line in _log_lines(driver)):
                assert time.monotonic() < deadline, f"the play did not call UNO:\n{page_text(driver)}"
                time.sleep(0.05)
            seen["call"] = True
        return seen["call"] and seen["colours"]

    play_until(driver, at_a_moment, "called UNO and picked a wild's colour", step=lambda: uno_step(driver))
    assert _cards_lettered(driver) > 0


def test_the_kart_track_is_a_loop_and_the_die_shows_the_roll_its_caption_names_at_bot_speed(
    web_url: str, phone: Any
) -> None:
    driver = phone
    table_id = create(web_url, "kart", players=7, seed=3, options={"track": "mushroom-loop"})
    sit_down(driver, web_url, table_id, ".kart .track-svg")
    svg = wait_for(driver, ".track-svg.tall")
    assert svg.get_attribute("data-fields") == "60"
    assert len(find(driver, ".track-svg path.road")) == 1, "the road is one closed path"
    assert driver.execute_script(
        "return document.querySelector('.track-svg path.road').getAttribute('d').endsWith('Z')"
    )
    fields = find(driver, ".track-svg g.field")
    assert [int(f.get_attribute("data-field")) for f in fields] == list(range(60))
    kinds = {
        kind: len(find(driver, f".track-svg g.field.{kind}"))
        for kind in ("f-item", "f-booster", "f-mushroom", "f-thwomp")
    }
    assert kinds == {"f-item": 8, "f-booster": 4, "f-mushroom": 3, "f-thwomp": 3}, kinds
    arrows = find(driver, ".track-svg g.shortcut path.cut-line")
    assert len(arrows) == 2
    assert all(a.get_attribute("marker-end") == "url(#kart-arrow)" for a in arrows)
    legend = page_text(driver)
    for words in ("item: draw an item card", "booster: roll again", "mushroom", "Thwomp", "banana chip", "shortcut A"):
        assert words in legend, words
    assert len(find(driver, ".track-svg g.kart")) == 7, "all seven karts are on the track"
    shots(driver, "phone-kart-track")

    checked = {"dice": 0, "bar": 0}

    def die_agrees() -> bool:
        face, caption, newest = driver.execute_script(
            "const d = document.querySelector('.die-shown');"
            "const roll = [...document.querySelectorAll('.log li')].map((e) => e.textContent)"
            "  .find((t) => /\\brolls? \\d/.test(t));"
            "return [d?.dataset.value ?? '', d?.querySelector('.die-caption')?.textContent ?? '', roll ?? ''];"
        )
        said = re.search(r"rolled (\d+)", caption)
        if said:
            assert face == said.group(1), (face, caption)
            logged = re.search(r"\brolls? (\d+)", newest)
            assert logged, newest
            assert logged.group(1) == face, (face, caption, newest)
            checked["dice"] += 1
        if my_turn(driver) and checked["bar"] < 3:
            # Scrolled to the end of the page, no kart of the standings is under the sticky action bar.
            driver.execute_script("window.scrollTo(0, document.documentElement.scrollHeight)")
            overlap = driver.execute_script(
                "const bar = document.querySelector('.actions')?.getBoundingClientRect();"
                "if (!bar) return [];"
                "return [...document.querySelectorAll('.standings .racer')].map((r) => r.getBoundingClientRect())"
                "  .filter((r) => r.bottom > bar.top + 1 && r.top < bar.bottom).map((r) => r.top);"
            )
            assert not overlap, f"racers under the action bar: {overlap}"
            checked["bar"] += 1
            if checked["bar"] == 1:
                shots(driver, "phone-kart-standings")
            driver.execute_script("window.scrollTo(0, 0)")
        return checked["dice"] >= 40 and checked["bar"] >= 3

    play_until(driver, die_agrees, "checked the die 40 times", seconds=90)


def test_level_up_puts_your_vote_on_the_first_screen(web_url: str, phone: Any) -> None:
    driver = phone
    table_id = create(web_url, "levelup", players=3, seed=11)
    sit_down(driver, web_url, table_id, ".levelup .lu-board")

    def voting() -> bool:
        return bool(my_turn(driver) and find(driver, ".lu-vote .vote-card"))

    play_until(driver, voting, "was asked to vote", seconds=90)
    driver.execute_script("window.scrollTo(0, 0)")
    rects = driver.execute_script(
        "const bar = document.querySelector('.actions')?.getBoundingClientRect().top ?? innerHeight;"
        "return [Math.min(bar, innerHeight), ...[...document.querySelectorAll('.lu-vote .vote-card')]"
        ".map((e) => e.getBoundingClientRect().bottom)]"
    )
    bottom, *cards = rects
    assert cards, "the vote cards are drawn"
    assert all(0 < c <= bottom for c in cards), f"vote cards at {cards}, first screen ends at {bottom}"
    shots(driver, "phone-levelup-vote")
    viewer = "Ann"
    assert not [line for line in _log_lines(driver) if re.search(rf"\b{viewer}\b", line)], "the log says 'you'"
    tap(driver, find(driver, ".lu-vote .vote-card")[0])
    wait_for(driver, ".lu-seat.you .lu-voted")


def test_power_up_offers_each_target_once_and_its_log_calls_the_viewer_you(web_url: str, phone: Any) -> None:
    driver = phone
    table_id = create(web_url, "powerup", players=3, seed=7)
    sit_down(driver, web_url, table_id, ".powerup .pu-seat")
    seen = {"aims": 0}

    def aiming() -> bool:
        try:
            if my_turn(driver) and find(driver, ".actions .opened") and find(driver, ".pu-aim"):
                assert not find(driver, ".actions button.action:not(.cancel)"), (
                    "the targets on the seats are not offered again in the bar:\n" + page_text(driver)
                )
                if not seen["aims"]:
                    shots(driver, "phone-powerup-aim")
                seen["aims"] += 1
        except StaleElementReferenceException:
            return False
        return seen["aims"] >= 2

    play_until(driver, aiming, "aimed a ? card twice", seconds=90)
    lines = _log_lines(driver)
    assert any(re.search(r"\b[Yy]ou\b", line) for line in lines), lines
    assert not [line for line in lines if re.search(r"\bAnn\b", line)], "the viewer is 'you' throughout the log"
    # Word for word as the terminal client says them (toadstool_clients.terminal.events), for the same events.
    token = json.loads(driver.execute_script(f"return localStorage.getItem('toadstool:seats:{table_id}')"))[0]["token"]
    for _ in range(10):  # a bot's any-time card may move the table on between the two reads
        page = list(reversed(_log_lines(driver)))
        update = _first_update(web_url, table_id, token)
        said = [in_your_words(update, event) for event in update.events]
        shared = min(len(page), len(said))
        if shared >= 5 and page[-shared:] == said[-shared:]:
            break
        time.sleep(0.1)
    else:
        raise AssertionError(f"the page's log {page[-8:]} is not the terminal's {said[-8:]}")


def _first_update(url: str, table_id: str, token: str) -> table_pb2.Update:
    async def first() -> table_pb2.Update:
        async with WebClient(url.rstrip("/")) as web:
            async for response in web.watch(table_id, token=token):
                if response.HasField("update"):
                    return response.update
        raise AssertionError("the Watch stream ended without an update")

    return asyncio.run(first())


def _luminance(rgb: str) -> float:
    red, green, blue = (int(v) / 255 for v in re.findall(r"\d+", rgb)[:3])
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (red, green, blue)]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def test_a_wild_flipped_first_reads_any_colour_and_its_colour_is_four_targets(web_url: str, phone: Any) -> None:
    driver = phone
    # Seed 97 deals two players a Super Star as the first card, with seat 0 (Ann) to choose its colour.
    table_id = create(web_url, "uno", players=2, seed=97, bot_delay_ms=200)
    sit_down(driver, web_url, table_id, ".uno .hand")
    chip = wait_for(driver, ".colour-chip.c-any")
    assert chip.text == "Any colour"
    colours = driver.execute_script(
        "const c = getComputedStyle(document.querySelector('.colour-chip.c-any'));return [c.color, c.backgroundColor];"
    )
    light, dark = sorted((_luminance(c) for c in colours), reverse=True)
    assert (light + 0.05) / (dark + 0.05) >= 4.5, f"'Any colour' is hard to read: {colours}"
    assert "The first card is a wild" in wait_for(driver, ".colour-pick .pick-title").text
    assert len(find(driver, ".colour-pick .colour-target")) == 4
    assert not find(driver, ".actions button.action:not(.cancel)"), "the colours are not words in the bar"
    shots(driver, "phone-uno-any-colour")
    tap(driver, find(driver, ".colour-pick .colour-target[data-color=green]")[0])
    chip = wait_for(driver, ".colour-chip.c-green")
    assert chip.text.split() == ["G", "Green"]


#: Everything on the Kart table a finger may tap while it is enabled. An SVG piece (a field, a shortcut) is
#: measured by its invisible hit area (.hit, .cut-hit), the part that takes the tap; the group's own box
#: would count the whole arrow of a shortcut.
_SMALL_TARGETS = """
const min = arguments[0];
const selector = "#app button:not(:disabled), #app a[href], #app select, #app input:not([type=checkbox])," +
  " #app label:has(input[type=checkbox]), #app [role=button]";
const small = [], kinds = new Set();
for (const e of document.querySelectorAll(selector)) {
  const hit = e.querySelector(':scope > .hit, :scope > .cut-hit') ?? e;
  const r = hit.getBoundingClientRect();
  if (r.width === 0 && r.height === 0) continue;  // not drawn (a closed dialog's buttons)
  for (const kind of ['field', 'shortcut', 'aim', 'bundle', 'item', 'action', 'roll-button'])
    if (e.classList.contains(kind)) kinds.add(kind);
  if (r.width < min - 0.5 || r.height < min - 0.5) {
    const text = (e.getAttribute('aria-label') || e.textContent || '').trim().slice(0, 40);
    const size = `${r.width.toFixed(1)}x${r.height.toFixed(1)}`;
    small.push(`${e.tagName.toLowerCase()}.${[...e.classList].join('.')} "${text}": ${size}`);
  }
}
return [small, [...kinds]];
"""

#: Each standings row, scrolled into view as a person scrolling down reaches it (its nearest edge): the
#: element at its middle is inside the row, not the sticky action bar.
_ROWS_UNCOVERED = """
const covered = [];
window.scrollTo(0, 0);
for (const row of document.querySelectorAll('.standings .racer')) {
  row.scrollIntoView({block: 'nearest'});
  const r = row.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  if (!hit || !row.contains(hit)) covered.push(`${row.dataset.seat} under ${hit ? hit.className : 'nothing'}`);
}
window.scrollTo(0, document.documentElement.scrollHeight);
for (const row of document.querySelectorAll('.standings .racer')) {
  const r = row.getBoundingClientRect();
  if (r.bottom < 0 || r.top > innerHeight) continue;
  const hit = document.elementFromPoint(r.left + r.width / 2, Math.min(r.top + r.height / 2, innerHeight - 1));
  if (!hit || !row.contains(hit)) covered.push(`${row.dataset.seat} at the end under ${hit?.className}`);
}
window.scrollTo(0, 0);
return covered;
"""


def _kart_targets_checked(driver: Any, seen: set[str]) -> None:
    if not my_turn(driver) or find(driver, ".actions button[disabled]"):
        return
    small, kinds = driver.execute_script(_SMALL_TARGETS, 44)
    assert not small, "tap targets under 44 x 44 px on the Kart table:\n" + "\n".join(small)
    for kind in set(kinds) - seen:
        shots(driver, f"phone-kart-targets-{kind}", sizes=(PHONE_UPRIGHT,))
    seen.update(kinds)


def test_every_kart_tap_target_is_44_px_on_a_phone_and_seven_karts_are_never_under_the_action_bar(
    web_url: str, phone: Any
) -> None:
    driver = phone
    # Two racers on the short track: a banana chip to place (fields to tap) comes soon.
    table_id = create(web_url, "kart", players=2, seed=5, options={"track": "mini-loop"})
    sit_down(driver, web_url, table_id, ".kart .track-svg")
    seen: set[str] = set()

    def fields_checked() -> bool:
        _kart_targets_checked(driver, seen)
        return "field" in seen and "roll-button" in seen

    play_until(driver, fields_checked, "was offered fields to tap", seconds=120)

    # Seven racers on the long track: every turn's targets, and the standings never under the bar.
    table_id = create(web_url, "kart", players=7, seed=3, options={"track": "mushroom-loop"})
    sit_down(driver, web_url, table_id, ".kart .track-svg")
    checked = {"turns": 0, "bars": 0}

    def seven_checked() -> bool:
        if not my_turn(driver) or find(driver, ".actions button[disabled]"):
            return False
        _kart_targets_checked(driver, seen)
        covered = driver.execute_script(_ROWS_UNCOVERED)
        assert not covered, f"standings rows under the action bar: {covered}"
        assert len(find(driver, ".standings .racer")) == 7
        checked["turns"] += 1
        if find(driver, ".actions"):
            if not checked["bars"]:
                shots(driver, "phone-kart-seven-bar", sizes=(PHONE_UPRIGHT,))
            checked["bars"] += 1
        return checked["turns"] >= 20 and checked["bars"] >= 2

    play_until(driver, seven_checked, "checked 20 turns of seven karts, two with the action bar", seconds=150)
    assert {"field", "roll-button", "bundle"} <= seen, seen
