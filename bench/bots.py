"""Bot strength: how often each level beats the level below it, per game, with 95% confidence intervals.

Usage: ``python bench/bots.py [--games N] [--budget-ms MS | --iterations N] [--game GAME ...] [--quick]
[--jobs J] [--seed S] [--matchup hard_vs_normal|normal_vs_easy ...]``

For every registered game it plays `--games` four-player games (400 by default, as the issue asks) of one
hard bot against three normal bots, and as many of one normal bot against three easy bots, the lone bot's
seat turning round the table from game to game (seat i % 4), in-process through `toadstool.selfplay.play`.
It prints one JSON line per game: each match-up's wins of the lone bot (a shared win counts), its win rate
and the Wilson 95% interval. Equal strength is a rate of 25%.

The hard bot's budget is CPU time of its thread (`toadstool.bots.Budget`), so a loaded machine plays as
strongly, only slower; `--iterations` fixes the searches per decision instead. `--quick` plays each game's
short options (one UNO hand, the short Kart track). `--jobs` plays games in that many processes.

`--oracle` measures a ceiling instead: the hard bot is dealt the REAL hidden cards (the others' hands,
Level cards and objectives), only the decks' order and the dice left to chance (`OracleSampler`). Not a
fair bot: it says how much better inference of the hidden cards could gain, game by game (Power Up, seeds
1-80: 48/80 with it, 22/80 without).

Not for: asserting strength in tests (tests/test_bot_levels.py checks the levels' behaviour), or speed.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from toadstool.bots import BotLevel, Budget, HardBot, make_bot
from toadstool.engine import creation_record, parse_options
from toadstool.games import GAMES, get_game
from toadstool.selfplay import play

PLAYERS = 4
#: Each match-up: (the lone bot's level, the level of the three others).
MATCHUPS: dict[str, tuple[BotLevel, BotLevel]] = {
    "hard_vs_normal": (BotLevel.HARD, BotLevel.NORMAL),
    "normal_vs_easy": (BotLevel.NORMAL, BotLevel.EASY),
}


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a win rate: sound at small counts and near 0 or 1, where the normal
    approximation gives intervals outside [0, 1]."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = p + z * z / (2 * games)
    margin = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games))
    scale = 1 + z * z / games
    return max(0.0, (centre - margin) / scale), min(1.0, (centre + margin) / scale)


#: What `--oracle` leaves to chance in each game's real state: the order of its decks (and the RNG, the dice).
ORACLE_SHUFFLED: dict[str, tuple[str, ...]] = {
    "uno": ("draw_pile",),
    "powerup": ("level_deck", "q_deck"),
    "levelup": ("block_pile", "power_deck", "objective_deck"),
    "kart": ("deck",),
}


class OracleSampler:
    """A determinizer that deals the hard bot the real present state (the others' cards known), each deck
    shuffled and the RNG fresh; the game's own determinizer for everything else (standing, stop, scale).
    For measuring a ceiling only: selfplay shows it every state (`observe`)."""

    def __init__(self, game: str, inner: Any) -> None:
        self.inner = inner
        self.decks = ORACLE_SHUFFLED.get(game, ())
        self.state: Any = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def observe(self, state: Any, seat: int | None, action: Any) -> None:
        self.state = state

    def sample(self, view: Any, rng: random.Random, hints: Any = None) -> Any:
        state = self.state
        changes: dict[str, Any] = {"rng" if hasattr(state, "_replace") else "rng_state": rng.getrandbits(64)}
        for name in self.decks:
            deck = list(getattr(state, name))
            rng.shuffle(deck)
            changes[name] = tuple(deck)
        return state._replace(**changes) if hasattr(state, "_replace") else dataclasses.replace(state, **changes)


def one_game(game: str, matchup: str, index: int, seed: int, budget: Budget, quick: bool, oracle: bool = False) -> bool:
    """Play game number `index` of a match-up; whether the lone bot won (alone or shared)."""
    engine = get_game(game).engine
    given = dict(engine.quick_options) if quick else {}
    record = creation_record(engine, parse_options(engine.options, given))
    lone, others = MATCHUPS[matchup]
    seat = index % PLAYERS
    bots = [make_bot(game, lone if s == seat else others, budget) for s in range(PLAYERS)]
    sampler = None
    if oracle and isinstance(bots[seat], HardBot):
        sampler = OracleSampler(game, bots[seat].determinizer)
        bots[seat].determinizer = sampler
    result = play(engine, bots, seed + index, record, observe=sampler.observe if sampler else None)
    return seat in result.outcome.winners


def measure(
    game: str,
    games: int,
    seed: int,
    budget: Budget,
    quick: bool,
    jobs: int,
    matchups: list[str] | None = None,
    oracle: bool = False,
) -> dict[str, Any]:
    """One game's JSON line."""
    line: dict[str, Any] = {"game": game, "players": PLAYERS, "games": games, "quick": quick}
    if oracle:
        line["oracle"] = True
    line["budget_ms"] = budget.ms
    line["iterations"] = budget.iterations
    started = time.perf_counter()
    for matchup in matchups or list(MATCHUPS):
        args = [(game, matchup, i, seed, budget, quick, oracle) for i in range(games)]
        if jobs > 1:
            with ProcessPoolExecutor(jobs) as pool:
                won = list(pool.map(_one, args))
        else:
            won = []
            for a in args:
                won.append(one_game(*a))
                if len(won) % 10 == 0:  # progress, for runs of many minutes
                    print(f"{game} {matchup}: {sum(won)}/{len(won)}", file=sys.stderr, flush=True)
        wins = sum(won)
        low, high = wilson(wins, games)
        line[matchup] = {
            "wins": wins,
            "rate": round(wins / games, 3) if games else None,
            "ci95": [round(low, 3), round(high, 3)],
        }
    line["seconds"] = round(time.perf_counter() - started, 1)
    return line


def _one(args: tuple[str, str, int, int, Budget, bool, bool]) -> bool:
    return one_game(*args)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="four-player games per match-up and game (400)")
    parser.add_argument("--budget-ms", type=float, default=150.0, help="the hard bot's CPU ms per decision (150)")
    parser.add_argument("--iterations", type=int, default=None, help="searches per decision instead of a time")
    parser.add_argument("--game", action="append", choices=sorted(GAMES), help="only this game (repeatable)")
    parser.add_argument("--quick", action="store_true", help="each game's short options (one UNO hand, ...)")
    parser.add_argument("--jobs", type=int, default=1, help="processes playing games (1)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--matchup", action="append", choices=sorted(MATCHUPS), help="only this match-up (repeatable)")
    parser.add_argument("--oracle", action="store_true", help="the hard bot knows the hidden cards: a ceiling")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    budget = Budget(ms=None, iterations=args.iterations) if args.iterations else Budget(ms=args.budget_ms)
    for game in args.game or list(GAMES):
        line = measure(game, args.games, args.seed, budget, args.quick, args.jobs, args.matchup, args.oracle)
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
