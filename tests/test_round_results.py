"""A round's result travels marked (Event.round_result), so clients find a round's recap without reading
the event's words, which are in each reader's language (docs/design.md §11.4).

UNO (docs/rules/uno.md §9, scoring) marks who went out of a hand with the points scored (with that seat) and
the game's end with every score; the next hand's deal, dealt in the same instant, is not marked.
Power Up (docs/rules/powerup.md, the scoring at the end of a round) marks its scoring lines: the final
Levels and the lowest, who loses an Extra Life (or has none left to lose), who is out, and the game's end.
Level Up! (docs/rules/levelup.md, scoring a round) marks the champion's election that ends the round, each
seat's objective and points (with that seat), the coin points and the game's end. Nothing else is marked.

In English the UNO recaps, found by the mark, show what English words found before. Then the terminal's
pause between hands or rounds, in a real terminal (tmux) playing `toadstool play GAME --lang de` by keys to
the end of the first hand or round, shows its lines in German.
"""

from __future__ import annotations

import itertools
import re
import time
from pathlib import Path
from typing import Any

import pytest
from terminal_helpers import Tmux, save, terminal_env

from conftest import toadstool_command
from toadstool.api.v1 import table_pb2, uno_pb2
from toadstool.bots import RandomBot
from toadstool.engine import Event, event_text, name_seats
from toadstool.games import get_game
from toadstool.selfplay import play
from toadstool_clients.terminal.events import in_your_words
from toadstool_clients.terminal.pause import MOST_EVENTS, round_ended
from toadstool_clients.tk.games import uno as tk_uno

#: The English of every line Power Up marks, as the engine writes it (seats still `{pN}`).
POWER_UP_RESULT = re.compile(
    r"^(Final Levels: .*\. Lowest: \d+\.|Every player holds a Castle: nobody loses an Extra Life\."
    r"|\{p(\d)\} loses an Extra Life \(\d+ left\)\.|\{p(\d)\} has the lowest Level but no Extra Life left to lose\."
    r"|\{p(\d)\} has no Extra Lives left and is out\.|Game over: .*)$"
)
#: ... and every line Level Up! marks.
LEVEL_UP_RESULT = re.compile(
    r"^(.* is elected champion|\{p(\d)\}'s objective was .*: \d+ points in round \d"
    r"|\{p(\d)\} adds \d+ coin points?|.* wins? with \d+ points)$"
)


#: ... and every line UNO marks.
UNO_RESULT = re.compile(
    r"^(\{p(\d)\} went out and won the hand \(\d+ points in other hands\)|Game over: .* won \(scores \d+(, \d+)*\))$"
)


def _steps(
    game: str, players: int, seed: int, options: dict[str, Any] | None = None
) -> list[tuple[Any, tuple[Event, ...]]]:
    """Each state of a seeded bot game with the events of the action that led to it."""
    engine = get_game(game).engine
    seen: list[tuple[Any, tuple[Event, ...]]] = []
    play(engine, [RandomBot() for _ in range(players)], seed, options, observe=lambda s, _seat, _a: seen.append(
        (engine.view(s, None), tuple(engine.last_events(s)))))  # fmt: skip
    return seen


@pytest.mark.parametrize(("seed", "lowest_wins"), [(1, False), (2, False), (3, True)])
def test_uno_marks_who_went_out_with_the_points_and_the_games_end(seed: int, lowest_wins: bool) -> None:
    steps = _steps("uno", 4, seed, {"target": 200, "lowest_wins": lowest_wins})
    hands = 0
    for (before, _), (after, events) in itertools.pairwise(steps):
        marked = [index for index, event in enumerate(events) if event.round_result]
        for event in events:
            found = UNO_RESULT.match(str(event.text))
            assert bool(found) == event.round_result, (event.text, event.round_result)
            if found and found.group(2) is not None:
                assert event.seat == int(found.group(2)), event
        if after.hand_number != before.hand_number:
            hands += 1
            # One line, the hand's winner's, and right after it the next hand's deal (never marked).
            assert len(marked) == 1, events
            assert events[marked[0]].seat == after.last_hand_winner, (events, after.last_hand_winner)
            assert str(events[marked[0] + 1].text).startswith(f"Hand {after.hand_number}: "), events
        elif after.winners and not before.winners:
            assert len(marked) == 2, events  # who went out of the last hand, then the game's end
            assert marked[-1] == len(events) - 1, events
            assert events[-1].seat is None, events
            assert str(events[-1].text).startswith("Game over: "), events
        else:
            assert not marked, events
    assert hands >= 2
    assert steps[-1][0].winners


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_power_up_marks_exactly_its_scoring_lines(seed: int) -> None:
    steps = _steps("powerup", 4, seed)
    rounds_scored = 0
    for (before, _), (after, events) in itertools.pairwise(steps):
        for event in events:
            found = POWER_UP_RESULT.match(str(event.text))
            assert bool(found) == event.round_result, (event.text, event.round_result)
            if found and (seat := next((g for g in found.groups()[1:] if g is not None), None)) is not None:
                assert event.seat == int(seat), event
        if after.round != before.round or (after.winners and not before.winners):
            rounds_scored += 1
            assert any(e.round_result for e in events), f"round {before.round} was scored unmarked: {events}"
    assert rounds_scored >= 2


@pytest.mark.parametrize("seed", [1, 2])
def test_level_up_marks_the_champion_every_objective_by_its_seat_and_the_end(seed: int) -> None:
    steps = _steps("levelup", 4, seed)
    rounds = 0
    for (before, _), (after, events) in itertools.pairwise(steps):
        marked = [e for e in events if e.round_result]
        for event in events:
            found = LEVEL_UP_RESULT.match(str(event.text))
            assert bool(found) == event.round_result, (event.text, event.round_result)
            if found and (seat := next((g for g in found.groups()[1:] if g is not None), None)) is not None:
                assert event.seat == int(seat), event
        if after.round != before.round:
            rounds += 1
            assert sorted(e.seat for e in marked if e.seat is not None) == [0, 1, 2, 3], marked
            assert str(marked[0].text).endswith("is elected champion"), marked
    assert rounds == 2  # three rounds: two changes of round, then the game's end
    assert str(steps[-1][1][-1].text).endswith("points")
    assert steps[-1][1][-1].round_result


def test_in_english_the_uno_recaps_show_what_they_showed_when_found_by_words() -> None:
    """The Tk recap and the terminal's pause of an English UNO hand, found by the mark, show the lines the
    English words found before the mark existed: the Tk recap the hand's last three events before the next
    hand's deal ("Hand N: ..." or "you were dealt"), the pause the line of who went out."""
    names = ["Ann", "Bot 1", "Bot 2"]
    steps = _steps("uno", 3, 7, {"target": 300})
    hands = 0
    for (before, _), (after, events) in itertools.pairwise(steps):
        if after.hand_number == before.hand_number:
            continue
        hands += 1
        said = [name_seats(event_text(e, 0), names) for e in events]
        messages = [
            table_pb2.Event(text=text, round_result=e.round_result, **({"seat": e.seat} if e.seat is not None else {}))
            for text, e in zip(said, events, strict=True)
        ]
        old_view = uno_pb2.UnoView(hand_number=before.hand_number, scores=before.scores, target=300)
        new_view = uno_pb2.UnoView(hand_number=after.hand_number, scores=after.scores, target=300)
        recap = tk_uno.recap(old_view, new_view, messages, names)
        assert recap is not None
        dealt = next((i for i, t in enumerate(said) if t.lower().startswith(("hand ", "you were dealt"))), None)
        assert recap[1][:-1] == (said[:dealt] if dealt else said)[-3:], (recap, said)  # then one line of scores
        seats = [table_pb2.Seat(index=i, name=name) for i, name in enumerate(names)]
        previous = table_pb2.Update(seats=seats, viewer_seat=0, view=table_pb2.GameView(uno=old_view))
        update = table_pb2.Update(seats=seats, viewer_seat=0, view=table_pb2.GameView(uno=new_view), events=messages)
        paused = round_ended(previous, update)
        assert paused is not None
        words = [in_your_words(update, message) for message in messages]  # "You went out ..."
        closing = [t for t in words if "went out" in t or "won the hand" in t] or words
        assert [line.plain for line in paused[3:]] == closing[-MOST_EVENTS:], (paused, said)
    assert hands >= 2


#: What the German pause screen says at its foot (the clients' catalogue).
PAUSED = "zurück zum Spiel"
#: Per game: the pause's German heading, and a German line of the round's result that must be on it.
GERMAN = {
    "uno": ("Runde 1 ist vorbei", re.compile(r"\S+ ging raus und gewann die Runde \(\d+ Punkte in anderen Händen\)")),
    "powerup": ("Runde 1 ist vorbei", re.compile(r"Endgültige Level: .*Niedrigstes: \d+|Alle halten ein Schloss")),
    "levelup": ("Runde 1 von 3 ist vorbei", re.compile(r"Die Zielkarte von \S+ war .*: \d+ Punkte in Runde 1")),
}
ENGLISH = ["Final Levels", "Lowest", "loses an Extra Life", "objective was", "is elected champion", " is over",
           "went out", "won the hand"]  # fmt: skip
#: What only the next hand's deal says (UNO): never in the pause's box of the hand before (the event log
#: under the box has it, as it has every event).
NEXT_DEAL = ["gibt jedem 7 Karten", "bekommen", "Die erste Karte"]


def pause_box(screen: str) -> str:
    """The words inside the pause's box (its frame left out, wrapped lines joined): what the pause itself
    shows, not the event log under it."""
    lines = screen.splitlines()
    top = next(i for i, text in enumerate(lines) if text.lstrip().startswith("╭"))
    bottom = next(i for i in range(top, len(lines)) if lines[i].lstrip().startswith("╰"))
    return " ".join(" ".join(text.strip().strip("│").split()) for text in lines[top + 1 : bottom])


@pytest.mark.timeout(360)
@pytest.mark.parametrize("game", sorted(GERMAN))
def test_the_terminals_pause_shows_the_rounds_result_in_german(terminal: list[Tmux], tmp_path: Path, game: str) -> None:
    """`toadstool play GAME --bots 2 --lang de`, Enter at every choice until the first hand or round ends:
    the pause's box names it in German and shows its result's German lines (UNO: who went out, never the
    next hand's deal), and the screen no English one."""
    command = toadstool_command("play", game, "--bots", "2", "--seed", "5", "--bot-delay", "0.01", "--lang", "de")
    tmux = Tmux(tmp_path / "tmux.sock", command, 120, 40, terminal_env(tmp_path))
    terminal.append(tmux)
    heading, line = GERMAN[game]
    started, last, screen = time.monotonic(), "", ""
    while time.monotonic() - started < 300:
        screen = tmux.wait_for(lambda s: "Deine Wahl" in s or PAUSED in s or "EXIT=" in s, timeout=60)
        if PAUSED in screen or "EXIT=" in screen:
            break
        if screen == last:  # the same screen as before our key: let the table answer first
            time.sleep(0.05)
            continue
        tmux.send("Enter")
        last = screen
    save(f"{game}-pause-de-120x40", screen)
    assert PAUSED in screen, screen
    box = pause_box(screen)
    assert box.startswith(heading), screen
    assert line.search(box), screen
    for english in ENGLISH:
        assert english not in screen, (english, screen)
    for dealt in NEXT_DEAL:
        assert dealt not in box, (dealt, screen)
