"""Golden playthroughs: a text record of what each seat and a spectator saw at every step of one seeded
game, diffed in CI so that any change in rules or views shows up as a readable diff (OpenSpiel's
playthroughs are the model).

Regenerate after an intended change with `python -m toadstool.playthrough --write`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from google.protobuf import text_format

from toadstool.bots import RandomBot
from toadstool.engine import Engine, action_id, event_text, name_seats, parse_options
from toadstool.games import GAMES, get_game
from toadstool.messages import game_view_message
from toadstool.selfplay import play

GOLDEN_DIR = Path(__file__).resolve().parents[2] / "tests" / "golden"

#: (players, seed) of the recorded game per registry key.
SETTINGS: dict[str, tuple[int, int]] = {"uno": (3, 7), "powerup": (4, 7), "levelup": (3, 7), "kart": (3, 7)}


def record(game: str, players: int, seed: int) -> str:
    """Play a seeded random short game (the engine's quick options) and record every viewer's view at every step."""
    engine: Engine[Any, Any] = get_game(game).engine
    options = parse_options(engine.options, engine.quick_options)
    lines: list[str] = [f"# {engine.title}: {players} players, seed {seed}"]
    step = 0
    previous: list[Any] = [None]

    def observe(state: Any, seat: int | None, action: Any) -> None:
        nonlocal step
        if seat is None:
            lines.append("== setup")
        else:
            step += 1
            label = name_seats(engine.describe(previous[0], seat, action), ())
            lines.append(f"== step {step}: seat {seat} {action_id(action)} ({label})")
        previous[0] = state
        for viewer in [*range(players), None]:
            who = "spectator" if viewer is None else f"seat {viewer}"
            for event in engine.last_events(state):
                lines.append(f"{who} event: {name_seats(event_text(event, viewer), ())}")
            view = text_format.MessageToString(game_view_message(engine, engine.view(state, viewer)), as_one_line=True)
            lines.append(f"{who} view: {view}")
            if viewer is not None:
                legal = [action_id(a) for a in engine.legal_actions(state, viewer)]
                lines.append(f"{who} legal: {' '.join(legal)}")

    result = play(engine, [RandomBot() for _ in range(players)], seed, options=options, observe=observe)
    lines.append(f"== outcome: winners {list(result.outcome.winners)} scores {list(result.outcome.scores)}")
    return "\n".join(lines) + "\n"


def golden_path(game: str) -> Path:
    return GOLDEN_DIR / f"{game}.txt"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("games", nargs="*", help="registry keys (default: all)")
    parser.add_argument("--write", action="store_true", help="rewrite the golden files")
    args = parser.parse_args(argv)
    stale = 0
    for game in args.games or list(GAMES):
        players, seed = SETTINGS[game]
        text = record(game, players, seed)
        path = golden_path(game)
        if args.write:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            print(f"wrote {path}")
        elif not path.exists() or path.read_text() != text:
            print(f"{path} is stale", file=sys.stderr)
            stale += 1
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
