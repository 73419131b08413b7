"""The Tk client's table as a person plays it: hover, keys, the choice tree in the action bar, the die and
the Power Up result held a moment, the result card with its rematch, and a table that is gone.

A real window under Xvfb against a real server on a loopback port; the pointer and the keys are xdotool's.
Animations are stepped by the test (Motion.frame_ms = None), never timed.
"""

from __future__ import annotations

import random

import pytest

import tk_helpers
from tk_helpers import TkDriver
from toadstool.api.v1 import table_pb2, uno_pb2
from toadstool.server.app import RunningServer, ServerConfig, running_server
from toadstool_clients.tk.games import HOVER
from toadstool_clients.tk.motion import Motion
from toadstool_clients.tk.overlays import HELD, HOLD_FRAMES, ROLL_FRAMES, ROLL_HOLD_FRAMES
from toadstool_clients.tk.table import TableScreen

display = tk_helpers.display
driver = tk_helpers.driver


@pytest.fixture
def stepped(monkeypatch: pytest.MonkeyPatch) -> None:
    """Animations advance only when the test calls Motion.step."""
    monkeypatch.setattr(Motion, "frame_ms", None)


@pytest.fixture
def still(monkeypatch: pytest.MonkeyPatch) -> None:
    """Animations end at once."""
    monkeypatch.setattr(Motion, "frame_ms", 0)


async def my_turn(driver: TkDriver, table: TableScreen, seconds: float = 20) -> table_pb2.Update:
    await driver.pump(
        lambda: (
            table.latest is not None
            and table.acting is None
            and table.redraw_pending is None
            and bool(table.offered_actions())
        ),
        seconds,
        "my turn",
    )
    assert table.latest is not None
    return table.latest


def texts(table: TableScreen, tag: str = "all") -> list[str]:
    canvas = table.canvas
    return [canvas.itemcget(i, "text") for i in canvas.find_withtag(tag) if canvas.type(i) == "text"]


async def test_hovering_a_playable_card_outlines_it_and_leaving_it_takes_the_outline_away(
    driver: TkDriver, server: RunningServer, still: None
) -> None:
    await driver.connect(server.address)
    table = await driver.create_table("uno", 2, 1, seed=21, options={"target": "30"})
    await my_turn(driver, table)
    target = next(t for t in table.targets if t.what.startswith("card ") or t.what == "draw pile")
    driver.hover(table.canvas, target.x, target.y)
    await driver.pump(lambda: bool(table.canvas.find_withtag(HOVER)), 5, "the hover outline")
    x0, y0, x1, y1 = table.canvas.bbox(HOVER)
    assert x0 <= target.x <= x1
    assert y0 <= target.y <= y1
    assert table.canvas.cget("cursor") == "hand2"
    driver.screenshot("uno-hover", tk_helpers.TK_SCREENSHOTS)
    driver.hover(table.canvas, 4, 4)  # the felt's corner: nothing to play there
    await driver.pump(lambda: not table.canvas.find_withtag(HOVER), 5, "the outline to go")


async def test_a_level_up_token_names_its_character_on_hover(
    driver: TkDriver, server: RunningServer, still: None
) -> None:
    await driver.connect(server.address)
    table = await driver.create_table("levelup", 3, 2, seed=5)
    update = await my_turn(driver, table)
    view = update.view.levelup
    assert view.unplaced, "the first turns place characters"
    board = table.board
    assert board is not None
    tag, name = next((t, n) for t, n in board.tips.items() if n in view.character_names)
    x0, y0, x1, y1 = table.canvas.bbox(tag)
    driver.hover(table.canvas, (x0 + x1) / 2, (y0 + y1) / 2)
    await driver.pump(lambda: name in texts(table, HOVER), 5, f"the tooltip {name!r}")
    driver.screenshot("levelup-tooltip", tk_helpers.TK_SCREENSHOTS)


async def test_number_keys_choose_the_bar_entries_and_d_draws_a_card(
    driver: TkDriver, server: RunningServer, still: None
) -> None:
    await driver.connect(server.address)
    table = await driver.create_table("uno", 2, 1, seed=33, options={"target": "30"})
    update = await my_turn(driver, table)
    labels = table.bar.shown_labels()
    assert labels
    assert all(len(b.cget("text")) for b in table.bar.buttons)
    assert table.bar.buttons[0].cget("text").startswith("1 "), "entries are numbered for their keys"
    before = update.version
    driver.key("1")
    await driver.pump(
        lambda: (table.latest is not None and table.latest.version > before) or bool(table.bar.path), 10, "key 1"
    )
    if table.bar.path:  # the first entry opened its choices (a wild: its colours): 1 again takes one
        driver.key("1")
        await driver.pump(lambda: table.latest is not None and table.latest.version > before, 10, "the colour")
    update = await my_turn(driver, table, 30)
    hand = len(update.view.uno.hand)
    drawn_before = update.version
    assert any(a.action.uno.WhichOneof("kind") == "draw" for a in update.legal_actions)
    driver.key("d")
    await driver.pump(lambda: table.latest is not None and table.latest.version > drawn_before, 10, "the draw")
    mine = [e for e in table.latest.events if e.HasField("seat") and e.seat == table.seat]
    assert mine or len(table.latest.view.uno.hand) > hand, "d drew a card"


async def test_a_wild_is_one_entry_and_clicking_it_on_the_board_opens_its_colours_in_the_bar(
    driver: TkDriver, server: RunningServer, still: None
) -> None:
    """Two identical Wild Draw Fours in the hand are one entry; the card on the board opens the same choice
    (its colours, with "and call UNO" as a toggle), and the colour sends that card's action."""
    await driver.connect(server.address)
    table = await driver.create_table("uno", 2, 1, seed=8, options={"target": "30"})
    update = await my_turn(driver, table)
    crafted = table_pb2.Update()
    crafted.CopyFrom(update)
    for card_id in (901, 902):  # two identical Wild Draw Fours, as a deal can give
        crafted.view.uno.hand.add(id=card_id, kind=uno_pb2.UNO_KIND_WILD_DRAW_FOUR)
        for colour in (
            uno_pb2.UNO_COLOR_RED,
            uno_pb2.UNO_COLOR_YELLOW,
            uno_pb2.UNO_COLOR_GREEN,
            uno_pb2.UNO_COLOR_BLUE,
        ):
            for uno in (False, True):
                legal = crafted.legal_actions.add(id=f"wild-{card_id}-{colour}-{uno}", label="Play Wild Draw Four")
                legal.action.uno.play_card.card_id = card_id
                legal.action.uno.play_card.color = colour
                legal.action.uno.play_card.uno = uno
    table.receive(crafted)
    await driver.pump(lambda: table.redraw_pending is None, 5, "the redraw")
    await driver.settle(0.1)
    wilds = [label for label in table.bar.shown_labels() if "Wild Draw Four" in label]
    assert len(wilds) == 1, table.bar.shown_labels()
    assert wilds[0].endswith("▸"), "an entry that opens its colours"
    assert len(table.bar.frame.winfo_children()) == 1, "one row"
    card = next(t for t in table.targets if t.what == "card 901")
    driver.click(table.canvas, card.x, card.y)
    await driver.pump(lambda: bool(table.bar.path), 5, "the colours")
    await driver.settle(0.1)
    colours = table.bar.shown_labels()
    assert colours == ["red", "yellow", "green", "blue"], colours
    assert "uno" in table.bar.toggles, "calling UNO is a toggle beside the colours"
    driver.screenshot("uno-wild-colours", tk_helpers.TK_SCREENSHOTS)
    driver.key("Escape")
    await driver.pump(lambda: not table.bar.path, 5, "back to the top")
    table.bar.open({a.id for a in crafted.legal_actions if a.id.startswith("wild-901")})
    await driver.settle(0.05)
    driver.key("2")  # yellow: a card the server never dealt, so it says no, and the screen says why
    await driver.pump(lambda: "Not accepted" in table.status.cget("text"), 10, "the refusal")


async def test_a_die_roll_tumbles_frame_by_frame_then_shows_the_roll_and_rests(
    driver: TkDriver, server: RunningServer, stepped: None
) -> None:
    await driver.connect(server.address)
    table = await driver.create_table("kart", 2, 1, seed=3, options={"track": "mini-loop"})
    while True:
        update = await my_turn(driver, table)
        if any(a.action.kart.WhichOneof("kind") == "roll" for a in update.legal_actions):
            break
        table.act(update.legal_actions[0])
        await driver.pump(lambda v=update.version: table.latest is not None and table.latest.version > v, 10, "move")
    table.motion.cancel()
    table.roll = None
    driver.key("r")
    await driver.pump(lambda: table.motion.running("roll") and table.redraw_pending is None, 10, "a roll")
    assert table.roll is not None
    assert table.roll_fresh
    table.motion.step()
    assert any("rolling…" in text for text in texts(table, "roll")), "the die tumbles first"
    for _ in range(ROLL_FRAMES - 1):
        table.motion.step()
    shown = " ".join(texts(table, "roll"))
    assert f": {table.roll.value}" in shown
    assert "rolling" not in shown
    for _ in range(ROLL_HOLD_FRAMES + 1):
        table.motion.step()
    assert not table.motion.running("roll"), "after its moment the die rests"
    assert not table.roll_fresh


async def test_a_power_up_round_result_is_held_on_the_board_until_its_frames_run_out(
    driver: TkDriver, server: RunningServer, stepped: None
) -> None:
    await driver.connect(server.address)
    table = await driver.create_table("powerup", 3, 2, seed=4)
    rng = random.Random(4)
    for _ in range(200):
        if table.held is not None:
            break
        update = await my_turn(driver, table, 30)
        table.act(rng.choice(update.legal_actions))
        await driver.pump(
            lambda v=update.version: table.held is not None or (table.latest is not None and table.latest.version > v),
            10,
            "the move",
        )
    assert table.held is not None, "a round was scored"
    await driver.pump(lambda: table.redraw_pending is None, 5, "the redraw")
    held = texts(table, HELD)
    assert any(text.startswith("Round ") for text in held)
    assert any("Lowest" in text or "Castle" in text for text in held), held
    driver.screenshot("powerup-round-result", tk_helpers.TK_SCREENSHOTS)
    for _ in range(HOLD_FRAMES + 1):
        table.motion.step()
    assert table.held is None
    assert not table.canvas.find_withtag(HELD)


@pytest.mark.timeout(240)
@pytest.mark.parametrize(
    ("game", "players", "options", "title"),
    [("uno", 3, {"target": "500"}, "Hand 1: the result"), ("levelup", 3, {}, "Round 1: the result")],
    ids=["uno", "levelup"],
)
async def test_the_end_of_an_uno_hand_or_a_level_up_round_is_held_with_every_seats_score(
    driver: TkDriver, server: RunningServer, stepped: None, game: str, players: int, options: dict[str, str],
    title: str,
) -> None:  # fmt: skip
    await driver.connect(server.address)
    table = await driver.create_table(game, players, players - 1, seed=4, options=options)
    rng = random.Random(4)
    for _ in range(600):
        if table.held is not None:
            break
        update = await my_turn(driver, table, 30)
        table.act(rng.choice(update.legal_actions))
        await driver.pump(
            lambda v=update.version: table.held is not None or (table.latest is not None and table.latest.version > v),
            10,
            "the move",
        )
    assert table.held is not None, "a hand or round was scored"
    await driver.pump(lambda: table.redraw_pending is None, 5, "the redraw")
    held = texts(table, HELD)
    assert title in held
    scores = [text for text in held if " = " in text]
    assert scores, held
    for name in ("Tester", "Bot 1", "Bot 2"):
        assert any(name in text for text in scores), (name, scores)
    driver.screenshot(f"{game}-result-held", tk_helpers.ROOT / "shots")
    for _ in range(HOLD_FRAMES + 1):
        table.motion.step()
    assert table.held is None


async def test_the_result_card_tells_how_the_game_went(driver: TkDriver, server: RunningServer, still: None) -> None:
    """UNO to one hand's end: the card names the winner and, from the outcome's account, the hand."""
    await driver.connect(server.address)
    table = await driver.create_table("uno", 2, 1, seed=4, options={"target": "1"})
    await driver.play_to_the_end(random.Random(4), 90, "uno-result-card")
    await driver.pump(lambda: table.redraw_pending is None, 5, "the last drawing")
    await driver.settle(0.1)
    details = list(table.latest.outcome.details) if table.latest is not None else []
    assert len(details) == 1, details
    assert details[0].startswith("Hand 1: ")
    card = texts(table, "outcome")
    assert any("won!" in text for text in card), card
    assert details[0] in card, card
    driver.screenshot("uno-result-card", tk_helpers.ROOT / "shots")


async def test_the_result_card_closes_with_escape_and_rematch_sits_you_at_a_new_table(
    driver: TkDriver, server: RunningServer, still: None
) -> None:
    await driver.connect(server.address)
    table = await driver.create_table("pig", 2, 1, seed=4, options={"target": "10"})
    await driver.play_to_the_end(random.Random(4), 70, "pig-rematch")
    await driver.pump(lambda: table.redraw_pending is None, 5, "the last drawing")
    await driver.settle(0.1)
    assert any("won!" in text for text in texts(table, "outcome"))
    rematch = table.bar_button("Rematch")
    assert rematch is not None
    assert rematch.winfo_ismapped()
    driver.screenshot("result-card", tk_helpers.TK_SCREENSHOTS)
    driver.key("Escape")
    await driver.pump(lambda: not table.canvas.find_withtag("outcome"), 5, "the card to close")
    old = table.table_id
    driver.click(rematch)
    await driver.pump(lambda: isinstance(driver.app.screen, TableScreen) and driver.app.screen is not table, 15, "it")
    again = driver.table
    assert again.table_id != old
    assert again.seat == 0
    assert again.token
    await driver.pump(lambda: again.latest is not None, 10, "the rematch's first update")
    assert again.table_info.game == "pig"
    assert dict(again.table_info.options).get("target") == "10"
    # It is the finished table's own follow-up (PlayAgain): everyone who plays again meets there.
    found = server.registry.next_table(old)
    assert found is not None
    assert found[0].table_id == again.table_id
    assert again.host_token, "the host of the old table hosts the new one"


async def test_a_note_in_the_status_line_goes_away_when_the_game_starts(
    driver: TkDriver, server: RunningServer, still: None
) -> None:
    await driver.connect(server.address)
    table = await driver.create_table("uno", 3, 1, seed=6, options={"target": "30"})
    await driver.pump(lambda: table.host_button is not None, 10, "the waiting room")
    button = table.host_button
    assert button is not None
    driver.click(button)
    await driver.pump(
        lambda: table.latest is not None and table.latest.status == table_pb2.TABLE_STATUS_PLAYING, 10, "the start"
    )
    await driver.settle(0.1)
    assert "bot sits" not in table.status.cget("text")


async def test_once_the_table_is_gone_its_buttons_are_gone_and_the_screen_says_so(
    driver: TkDriver, server: RunningServer, still: None
) -> None:
    config = ServerConfig(host="127.0.0.1", port=0, bot_delay=0.0, grace=0.2)
    async with running_server(config) as first:
        await driver.connect(first.address)
        table = await driver.create_table("uno", 2, 1, seed=4, options={"target": "30"})
        await my_turn(driver, table)
        assert table.bar.buttons
    async with running_server(ServerConfig(host="127.0.0.1", port=first.port, bot_delay=0.0, grace=0.2)):
        await driver.pump(lambda: table.gone, 30, "the table to be reported gone")
        await driver.settle(0.1)
        assert not table.bar.buttons
        assert not table.action_buttons
        assert "gone" in table.bar.note
        shown = [w.cget("text") for w in table.bar.row.winfo_children() if w.winfo_class() == "Label"]
        assert shown == [table.bar.note], "the bar says why nothing can be chosen"
        assert not table.offered_actions()


async def test_arrow_keys_move_between_the_entries_and_return_takes_the_focused_one(
    driver: TkDriver, server: RunningServer, still: None
) -> None:
    await driver.connect(server.address)
    table = await driver.create_table("uno", 2, 1, seed=33, options={"target": "30"})
    update = await my_turn(driver, table)
    driver.key("Right", "Right")
    await driver.settle(0.1)
    focused = driver.root.focus_get()
    assert focused in table.bar.buttons
    assert table.bar.buttons.index(focused) == min(1, len(table.bar.buttons) - 1)
    driver.key("Return")
    await driver.pump(
        lambda: (table.latest is not None and table.latest.version > update.version) or bool(table.bar.path),
        10,
        "the focused entry to be taken",
    )


async def test_a_kart_drives_to_its_new_field_frame_by_frame_and_comes_to_rest_there(
    driver: TkDriver, server: RunningServer, stepped: None
) -> None:
    await driver.connect(server.address)
    table = await driver.create_table("kart", 2, 1, seed=5, options={"track": "mini-loop"})
    slides: list[str] = []
    for _ in range(40):
        update = await my_turn(driver, table)
        table.act(update.legal_actions[0])
        await driver.pump(lambda v=update.version: table.latest is not None and table.latest.version > v, 10, "move")
        await driver.pump(lambda: table.redraw_pending is None, 5, "the redraw")
        slides = [name for name in table.motion.sequences if name.startswith("slide kart")]
        if slides:
            break
    assert slides, "a kart moved to another field"
    key = slides[0].removeprefix("slide ")
    board = table.board
    assert board is not None
    rest = board.positions[key]
    tag = board.movers[key][0]

    def centre() -> tuple[float, float]:
        x0, y0, x1, y1 = table.canvas.bbox(tag)
        return (x0 + x1) / 2, (y0 + y1) / 2

    start = centre()
    assert abs(start[0] - rest[0]) + abs(start[1] - rest[1]) > 4, "it starts where it was"
    table.motion.step()
    first = centre()
    assert abs(first[0] - rest[0]) + abs(first[1] - rest[1]) < abs(start[0] - rest[0]) + abs(start[1] - rest[1])
    while table.motion.running(slides[0]):
        table.motion.step()
    end = centre()
    assert abs(end[0] - rest[0]) < 1.5
    assert abs(end[1] - rest[1]) < 1.5
