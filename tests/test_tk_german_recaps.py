"""The Tk client's round recap in German: a UNO hand, a Power Up or Level Up! round played to its end in a
German window (TOADSTOOL_LANG=de, so the server says its events in German) holds the result on the board,
found by the events' round_result mark, never by their English words: who went out of the UNO hand (and none
of the next hand's deal), Power Up's final Levels and who lost an Extra Life, Level Up!'s champion and the
player's own objective, each seat's score, all in German.

A real window under Xvfb against a real server on a loopback port; animations are stepped by the test
(Motion.frame_ms = None), so the held recap stays until the test lets its frames run out. Screenshots go to
test-output/tk/ (tk-*-recap-de.png) for a person.
"""

from __future__ import annotations

import random
import re

import pytest

import tk_helpers
from tk_helpers import TkDriver, canvas_layout_problems
from toadstool.api.v1 import table_pb2
from toadstool.server.app import RunningServer
from toadstool_clients.tk.motion import Motion
from toadstool_clients.tk.overlays import HELD, HOLD_FRAMES
from toadstool_clients.tk.table import TableScreen

display = tk_helpers.display
driver = tk_helpers.driver

#: English the recap must never show: the old text matches' keys and the events' English words.
ENGLISH = ["Final Levels", "Lowest", "loses an Extra Life", "objective was", "is elected champion", "the result",
           "Round "]  # fmt: skip


@pytest.fixture(autouse=True)
def german_and_stepped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOADSTOOL_LANG", "de")
    monkeypatch.setattr(Motion, "frame_ms", None)


def held_texts(table: TableScreen) -> list[str]:
    canvas = table.canvas
    return [canvas.itemcget(i, "text") for i in canvas.find_withtag(HELD) if canvas.type(i) == "text"]


def whole(table: TableScreen) -> None:
    """Every held line whole (wrapped, never cut with an ellipsis) and inside its card, as the board's other
    texts inside theirs."""
    held = held_texts(table)
    assert not any(text.endswith("…") for text in held), held
    board = table.board
    assert board is not None
    assert canvas_layout_problems(table.canvas, board.width, board.height) == []


async def play_to_a_held_recap(driver: TkDriver, table: TableScreen, seed: int) -> table_pb2.Update:
    """Random offered moves until a recap is held (bounded); the update that brought it."""
    rng = random.Random(seed)
    for _ in range(600):
        if table.held is not None:
            break
        await driver.pump(
            lambda: (
                table.held is not None
                or (table.latest is not None and table.acting is None and bool(table.offered_actions()))
            ),
            30,
            "my turn",
        )
        if table.held is not None:
            break
        update = table.latest
        assert update is not None
        table.act(rng.choice(update.legal_actions))
        await driver.pump(
            lambda v=update.version: table.held is not None or (table.latest is not None and table.latest.version > v),
            10,
            "the move",
        )
    assert table.held is not None, "no round was scored"
    await driver.pump(lambda: table.redraw_pending is None, 5, "the redraw")
    assert table.latest is not None
    return table.latest


async def test_a_german_power_up_round_result_is_held_in_german(driver: TkDriver, server: RunningServer) -> None:
    await driver.connect(server.address)
    table = await driver.create_table("powerup", 3, 2, seed=4)
    await play_to_a_held_recap(driver, table, 4)
    held = held_texts(table)
    assert "Runde 1: das Ergebnis" in held, held
    assert any(re.match(r"Endgültige Level: .*Niedrigstes: \d+\.$|Alle halten ein Schloss", t) for t in held), held
    if not any(t.startswith("Alle halten ein Schloss") for t in held):  # else nobody lost one
        lost = re.compile(r" (verliert ein Extraleben \(noch \d+\)|hat das niedrigste Level)")
        assert any(lost.search(t) for t in held), held
    for english in ENGLISH:
        assert not any(english in text for text in held), (english, held)
    driver.screenshot("tk-powerup-recap-de", tk_helpers.TK_SCREENSHOTS)
    whole(table)
    for _ in range(HOLD_FRAMES + 1):
        table.motion.step()
    assert table.held is None


@pytest.mark.timeout(240)
async def test_a_german_level_up_round_result_is_held_with_the_champion_and_my_objective(
    driver: TkDriver, server: RunningServer
) -> None:
    await driver.connect(server.address)
    table = await driver.create_table("levelup", 3, 2, seed=4)
    update = await play_to_a_held_recap(driver, table, 4)
    held = held_texts(table)
    me = update.seats[update.viewer_seat].name
    assert "Runde 1: das Ergebnis" in held, held
    assert any(text.endswith("wird zum Champion gewählt") for text in held), held
    assert any(re.match(rf"Die Zielkarte von {re.escape(me)} war .*: \d+ Punkte in Runde 1$", t) for t in held), held
    others = [s.name for s in update.seats if s.index != update.viewer_seat]
    assert not any(f"Die Zielkarte von {name} " in text for text in held for name in others), held
    scores = [text for text in held if " = " in text]
    for name in (me, *others):
        assert any(name in text for text in scores), (name, scores)
    for english in ENGLISH:
        assert not any(english in text for text in held), (english, held)
    driver.screenshot("tk-levelup-recap-de", tk_helpers.TK_SCREENSHOTS)
    whole(table)


#: What only the next hand's deal says in German: never in the recap of the hand before.
NEXT_DEAL = ["gibt jedem 7 Karten", "bekommen", "Die erste Karte"]


@pytest.mark.timeout(240)
async def test_a_german_uno_hand_result_is_held_with_who_went_out_not_the_next_deal(
    driver: TkDriver, server: RunningServer
) -> None:
    await driver.connect(server.address)
    table = await driver.create_table("uno", 3, 2, seed=4)
    update = await play_to_a_held_recap(driver, table, 4)
    held = held_texts(table)
    assert "Runde 1: das Ergebnis" in held, held
    names = [seat.name for seat in update.seats]
    went_out = re.compile(rf"({'|'.join(map(re.escape, names))}) ging raus und gewann die Runde "
                          r"\(\d+ Punkte in anderen Händen\)$")  # fmt: skip
    assert any(went_out.match(text) for text in held), held
    # The recap's lines before the scores are the hand's last events, ending with who went out.
    assert table.held is not None
    title, lines = table.held
    assert title == "Runde 1: das Ergebnis", table.held
    said = [line for line in lines if " = " not in line]
    assert said, table.held
    assert went_out.match(said[-1]), table.held
    for dealt in NEXT_DEAL:
        assert not any(dealt in text for text in held), (dealt, held)
    scores = [text for text in held if " = " in text]
    for name in names:
        assert any(name in text for text in scores), (name, scores)
    for english in [*ENGLISH, "went out", "won the hand"]:
        assert not any(english in text for text in held), (english, held)
    driver.screenshot("tk-uno-recap-de", tk_helpers.TK_SCREENSHOTS)
    whole(table)
    for _ in range(HOLD_FRAMES + 1):
        table.motion.step()
    assert table.held is None
