"""A round's result travels marked (Event.round_result), so clients find a round's recap without reading
the event's words, which are in each reader's language (docs/design.md §11.4).

Power Up (docs/rules/powerup.md, the scoring at the end of a round) marks its scoring lines: the final
Levels and the lowest, who loses an Extra Life (or has none left to lose), who is out, and the game's end.
Level Up! (docs/rules/levelup.md, scoring a round) marks the champion's election that ends the round, each
seat's objective and points (with that seat), the coin points and the game's end. Nothing else is marked.

Then the terminal's pause between rounds, in a real terminal (tmux) playing `toadstool play GAME --lang de`
by keys to the end of the first round, shows the round's lines in German.
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
from toadstool.bots import RandomBot
from toadstool.engine import Event
from toadstool.games import get_game
from toadstool.selfplay import play

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


def _steps(game: str, players: int, seed: int) -> list[tuple[Any, tuple[Event, ...]]]:
    """Each state of a seeded bot game with the events of the action that led to it."""
    engine = get_game(game).engine
    seen: list[tuple[Any, tuple[Event, ...]]] = []
    play(engine, [RandomBot() for _ in range(players)], seed, observe=lambda s, _seat, _a: seen.append(
        (engine.view(s, None), tuple(engine.last_events(s)))))  # fmt: skip
    return seen


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


#: What the German pause screen says at its foot (the clients' catalogue).
PAUSED = "zurück zum Spiel"
#: Per game: the pause's German heading, and a German line of the round's result that must be on it.
GERMAN = {
    "powerup": ("Runde 1 ist vorbei", re.compile(r"Endgültige Level: .*Niedrigstes: \d+|Alle halten ein Schloss")),
    "levelup": ("Runde 1 von 3 ist vorbei", re.compile(r"Die Zielkarte von \S+ war .*: \d+ Punkte in Runde 1")),
}
ENGLISH = ["Final Levels", "Lowest", "loses an Extra Life", "objective was", "is elected champion", " is over"]


@pytest.mark.timeout(360)
@pytest.mark.parametrize("game", sorted(GERMAN))
def test_the_terminals_pause_shows_the_rounds_result_in_german(terminal: list[Tmux], tmp_path: Path, game: str) -> None:
    """`toadstool play GAME --bots 2 --lang de`, Enter at every choice until the first round ends: the
    pause screen names the round in German and shows its result's German lines, no English one."""
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
    assert heading in screen, screen
    assert line.search(" ".join(screen.split())), screen
    for english in ENGLISH:
        assert english not in screen, (english, screen)
