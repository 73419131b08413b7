"""Choices made on the board itself (#22): a UNO wild's colour from swatches that appear at the card, a
Level Up! character's level from the levels that light up on the board, the action bar staying a second
way to the same choice (an entry opened in the bar shows on the board too, and Escape closes both).

A real window under Xvfb against a real server on a loopback port; the clicks are xdotool's; each pick is
drawn at the smallest and the default window size and walked for overlapping text.
"""

from __future__ import annotations

import pytest
from test_tk_layout import clickable_problems, covered_label_problems

import tk_helpers
from tk_helpers import TkDriver, canvas_layout_problems
from toadstool.api.v1 import table_pb2, uno_pb2
from toadstool.server.app import RunningServer
from toadstool_clients.tk.games import ClickTarget
from toadstool_clients.tk.motion import Motion
from toadstool_clients.tk.table import TableScreen

display = tk_helpers.display
driver = tk_helpers.driver


@pytest.fixture(autouse=True)
def still(monkeypatch: pytest.MonkeyPatch) -> None:
    """Animations end at once."""
    monkeypatch.setattr(Motion, "frame_ms", 0)


async def my_turn(driver: TkDriver, table: TableScreen) -> table_pb2.Update:
    await driver.pump(
        lambda: (
            table.latest is not None
            and table.acting is None
            and table.redraw_pending is None
            and table.seat in table.latest.to_act
            and bool(table.offered_actions())
        ),
        20,
        "my turn",
    )
    assert table.latest is not None
    return table.latest


async def drawn(driver: TkDriver, table: TableScreen) -> None:
    await driver.pump(lambda: table.redraw_pending is None, 5, "the redraw")
    await driver.settle(0.05)


def targets(table: TableScreen, prefix: str) -> list[ClickTarget]:
    return [t for t in table.targets if t.what.startswith(prefix)]


async def layout_at(driver: TkDriver, table: TableScreen, width: int, height: int, shot: str) -> list[str]:
    drawn_before = table.draw_count
    driver.root.geometry(f"{width}x{height}")
    await driver.pump(lambda: driver.root.winfo_width() == width and table.draw_count > drawn_before, 10, "resize")
    await drawn(driver, table)
    driver.screenshot(shot, tk_helpers.TK_SCREENSHOTS)
    board = table.board
    assert board is not None
    return (
        canvas_layout_problems(table.canvas, board.width, board.height)
        + covered_label_problems(table.canvas)
        + clickable_problems(table.canvas, board.targets)
    )


def wild_plays(update: table_pb2.Update) -> dict[int, list[table_pb2.LegalAction]]:
    """Playable cards that need a colour, by card id."""
    hand = {card.id: card for card in update.view.uno.hand}
    found: dict[int, list[table_pb2.LegalAction]] = {}
    for legal in update.legal_actions:
        if legal.action.uno.WhichOneof("kind") != "play_card":
            continue
        play = legal.action.uno.play_card
        if hand[play.card_id].color == uno_pb2.UNO_COLOR_UNSPECIFIED and play.color != uno_pb2.UNO_COLOR_UNSPECIFIED:
            found.setdefault(play.card_id, []).append(legal)
    return found


async def test_clicking_a_wild_shows_colour_swatches_at_the_card_and_a_swatch_plays_it_in_that_colour(
    driver: TkDriver, server: RunningServer
) -> None:
    await driver.connect(server.address)
    table = await driver.create_table("uno", 2, 1, seed=2, options={"target": "30"})
    update = await my_turn(driver, table)
    wilds = wild_plays(update)
    assert wilds, "seed 2 deals the first player a wild they may play"
    card_id = next(iter(wilds))
    assert not targets(table, "swatch"), "no swatches before a wild is chosen"
    # The bar is one way: its wild entry opens the colours, and the board shows them at the card too.
    entry = next(b for b in table.bar.buttons if b.cget("text").endswith("▸") and "Wild" in b.cget("text"))
    driver.click(entry)
    await driver.pump(lambda: bool(targets(table, "swatch")), 5, "the swatches from the bar")
    driver.key("Escape")
    await driver.pump(lambda: not targets(table, "swatch") and not table.bar.path, 5, "Escape to close both")
    # The board is the other: a click on the card.
    card = next(t for t in table.targets if t.what == f"card {card_id}")
    driver.click(table.canvas, card.x, card.y)
    await driver.pump(lambda: bool(targets(table, "swatch")) and table.redraw_pending is None, 5, "the swatches")
    swatches = targets(table, "swatch")
    assert [t.what for t in swatches] == ["swatch red", "swatch yellow", "swatch green", "swatch blue"]
    assert table.bar.shown_labels() == ["red", "yellow", "green", "blue"], "the bar offers the same colours"
    card = next(t for t in table.targets if t.what == f"card {card_id}")
    for swatch in swatches:
        assert swatch.y < card.y, "the swatches sit just above the card"
        assert abs(swatch.x - card.x) < 100, "at the card, not somewhere else on the table"
    problems = await layout_at(driver, table, 760, 520, "uno-wild-swatches-760x520")
    problems += await layout_at(driver, table, 1200, 780, "uno-wild-swatches-1200x780")
    assert not problems, problems
    assert table.bar.path, "resizing keeps the choice open"
    blue = next(t for t in targets(table, "swatch") if t.what == "swatch blue")
    version = update.version
    driver.click(table.canvas, blue.x, blue.y)
    await driver.pump(lambda: table.latest is not None and table.latest.version > version, 10, "the wild played")
    played = table.latest
    assert played is not None
    assert card_id not in [card.id for card in played.view.uno.hand], "the wild left the hand"
    log = table.log.get("1.0", "end").splitlines()
    assert any(line.startswith("Tester played") and "blue" in line for line in log), log[-5:]
    assert "Not accepted" not in table.status.cget("text")


async def test_choosing_a_character_to_place_lights_its_levels_and_a_lit_level_places_it_there(
    driver: TkDriver, server: RunningServer
) -> None:
    await driver.connect(server.address)
    table = await driver.create_table("levelup", 3, 2, seed=5)
    update = await my_turn(driver, table)
    view = update.view.levelup
    assert view.unplaced, "the first turns place characters"
    names = {view.character_names[c]: c for c in view.unplaced}
    tokens = [t for t in table.targets if t.what in names and len(t.action_ids) > 1]
    assert tokens, (names, [(t.what, len(t.action_ids)) for t in table.targets])
    token = tokens[0]
    character = names[token.what]
    assert not targets(table, "place on level"), "no level is lit before a character is chosen"
    driver.click(table.canvas, token.x, token.y)
    await driver.pump(lambda: bool(targets(table, "place on level")) and table.redraw_pending is None, 5, "lit levels")
    lit = {t.what: t for t in targets(table, "place on level")}
    places = {
        legal.action.levelup.place.level
        for legal in update.legal_actions
        if legal.action.levelup.WhichOneof("kind") == "place" and legal.action.levelup.place.character == character
    }
    assert set(lit) == {f"place on level {level}" for level in places}, "exactly the levels it may go to"
    assert len(table.bar.shown_labels()) == len(places), "the bar offers the same levels"
    problems = await layout_at(driver, table, 760, 520, "levelup-lit-levels-760x520")
    problems += await layout_at(driver, table, 1200, 780, "levelup-lit-levels-1200x780")
    assert not problems, problems
    level = max(places)
    target = next(t for t in targets(table, "place on level") if t.what == f"place on level {level}")
    version = update.version
    driver.click(table.canvas, target.x, target.y)
    await driver.pump(lambda: table.latest is not None and table.latest.version > version, 10, "the placement")
    assert table.latest is not None
    on_level = {lv.level: list(lv.characters) for lv in table.latest.view.levelup.levels}
    assert character in on_level[level], f"{token.what} stands on level {level}"
    await drawn(driver, table)
    assert not targets(table, "place on level"), "the levels go dark once it is placed"
