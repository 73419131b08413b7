"""Engine throughput: random-legal-action selfplay for every registered game, and RLCard's UNO as the baseline.

Usage: ``python bench/engines.py [--quick | --smoke] [--plot] [--profile GAME[:PLAYERS]]``

For each game and 2 and 4 players (where the game allows them) it plays whole games in-process through the
engine interface (`toadstool.selfplay.play` with `RandomBot`, exactly what `toadstool selfplay` runs) and
reports games/s and actions/s (per second of CPU time) as median [min..max] over repetitions. For UNO it
measures, in the same process and interleaved with ours, RLCard 1.2's low-level `UnoGame` with uniformly
random legal actions, and prints our figures as ratios of it (paired per repetition, then the median of the
ratios).

Which UNO ratio is like-for-like: a Toadstool game is many hands to 500 points while an RLCard game is one
hand, and RLCard's "draw" also plays the drawn card when it can (one action where ours is two), with no
answers, challenges or UNO calls. So three Toadstool UNO settings are measured:

- ``uno``: the full game, uniform random legal actions (what `toadstool selfplay` plays);
- ``uno/hand``: option target=1 (a game is one hand), uniform random legal actions. Per action this is the
  like-for-like engine cost (``actions_ratio``), since both sides run the same policy over their own rules;
- ``uno/hand-rlpolicy``: target=1 with RLCard's play shape (play a random playable card, draw only when
  none is playable, play the drawn card if it can, accept penalties, never challenge or catch). Hands then
  last about as long as RLCard's, so its hands/s against RLCard's games/s is the like-for-like per-game
  figure (``games_ratio``). Uniform random play in our rules draws far more often (Draw is always legal),
  which makes those hands about 20 times longer, so the per-game ratio of ``uno/hand`` means little.

Not for: asserting speed (benchmarks print figures; tests/test_bench_smoke.py only checks the output shape),
or the server (bench/load.py).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import RESULTS, final_json, fmt, fmt_spread, machine, spread, write_csv

from toadstool.bots import RandomBot
from toadstool.engine import Engine, parse_options
from toadstool.games import GAMES
from toadstool.selfplay import play

#: Longest game we let run (a game that does not end is an engine bug, reported rather than waited on).
MAX_ACTIONS = 200_000


@dataclass(frozen=True)
class Budget:
    """How long to measure: repetitions, seconds per configuration per repetition, games cap per run."""

    repetitions: int
    seconds: float
    max_games: int


BUDGETS = {
    "full": Budget(repetitions=5, seconds=1.5, max_games=100_000),
    "quick": Budget(repetitions=3, seconds=0.4, max_games=100_000),
    "smoke": Budget(repetitions=1, seconds=0.02, max_games=2),
}


class RLPolicyBot:
    """UNO only: plays the way RLCard's UNO is shaped, so hand lengths compare (see the module docstring).

    A random playable card when there is one; otherwise draw; a drawn card is played if it can be, else
    kept; a pending penalty is accepted; optional windows (catching a missed UNO call) are let pass.
    """

    needs_view = False

    def choose(self, view: Any, legal: Sequence[Any], must_act: bool, rng: random.Random) -> Any | None:
        if not must_act:
            return None
        plays = [a for a in legal if type(a).__name__ == "PlayCard"]
        if plays:
            return plays[rng.randrange(len(plays))]
        for name in ("Draw", "Keep", "AcceptPenalty", "PassTurn"):
            for action in legal:
                if type(action).__name__ == name:
                    return action
        return legal[rng.randrange(len(legal))]


@dataclass(frozen=True)
class Config:
    """One measured setting: a label, a player count, and a function that plays one game -> actions."""

    label: str
    game: str
    players: int
    play_one: Callable[[int], int]


def toadstool_config(
    label: str, game: str, players: int, options: dict[str, str] | None = None, bot: Callable[[], Any] = RandomBot
) -> Config:
    engine: Engine[Any, Any] = GAMES[game].engine
    parsed = parse_options(engine.options, options or {})
    bots = [bot() for _ in range(players)]

    def play_one(seed: int) -> int:
        return play(engine, bots, seed, parsed, max_actions=MAX_ACTIONS).actions

    return Config(label, game, players, play_one)


def rlcard_config(players: int) -> Config | None:
    """RLCard's UnoGame driven the cheapest fair way: its state already carries the legal actions."""
    try:
        import numpy as np
        from rlcard.games.uno.game import UnoGame
    except ImportError:
        return None
    game = UnoGame(num_players=players)

    def play_one(seed: int) -> int:
        game.np_random = np.random.RandomState(seed)
        rng = random.Random(seed)
        state, _ = game.init_game()
        actions = 0
        while not game.is_over():
            legal = state["legal_actions"]
            state, _ = game.step(legal[rng.randrange(len(legal))])
            actions += 1
            if actions >= MAX_ACTIONS:
                raise RuntimeError(f"RLCard UNO did not end after {MAX_ACTIONS} actions (seed {seed})")
        return actions

    return Config("rlcard-uno", "rlcard-uno", players, play_one)


def configs(games: Sequence[str]) -> list[Config]:
    out: list[Config] = []
    for players in (2, 4):
        for game in games:
            engine = GAMES[game].engine
            if not engine.min_players <= players <= engine.max_players:
                continue
            out.append(toadstool_config(game, game, players))
            if game == "uno":
                out.append(toadstool_config("uno/hand", game, players, {"target": "1"}))
                out.append(toadstool_config("uno/hand-rlpolicy", game, players, {"target": "1"}, RLPolicyBot))
                baseline = rlcard_config(players)
                if baseline is not None:
                    out.append(baseline)
    return out


def measure(config: Config, budget: Budget, seed: int) -> tuple[float, float, int, int]:
    """Play games until the time budget or the games cap: (games/s, actions/s, games, actions).

    Rates are per second of this process's CPU time, not of the wall clock: on a shared, noisy machine the
    time other processes take from us says nothing about the engine (both are single-threaded, so on an idle
    machine the two clocks agree).
    """
    games = actions = 0
    deadline = time.perf_counter() + budget.seconds
    cpu_started = time.process_time()
    while True:
        actions += config.play_one(seed + games)
        games += 1
        if time.perf_counter() >= deadline or games >= budget.max_games:
            break
    elapsed = max(time.process_time() - cpu_started, 1e-6)
    return games / elapsed, actions / elapsed, games, actions


def run(budget: Budget, games: Sequence[str]) -> dict[str, Any]:
    """Every configuration, repetitions interleaved (so drift on a noisy machine hits all alike)."""
    chosen = configs(games)
    samples: dict[tuple[str, int], list[tuple[float, float, int, int]]] = {(c.label, c.players): [] for c in chosen}
    for rep in range(budget.repetitions):
        for config in chosen:
            samples[(config.label, config.players)].append(measure(config, budget, seed=1000 * rep + 1))
    results: dict[str, Any] = {}
    for (label, players), runs in samples.items():
        results[f"{label}:{players}p"] = {
            "label": label,
            "players": players,
            "games_per_s": spread([r[0] for r in runs]),
            "actions_per_s": spread([r[1] for r in runs]),
            "actions_per_game": sum(r[3] for r in runs) / max(1, sum(r[2] for r in runs)),
            "games": sum(r[2] for r in runs),
            "_runs": runs,
        }
    ratios: dict[str, Any] = {}
    for players in (2, 4):
        base = results.get(f"rlcard-uno:{players}p")
        if base is None:
            continue
        for label in ("uno", "uno/hand", "uno/hand-rlpolicy"):
            ours = results.get(f"{label}:{players}p")
            if ours is None:
                continue
            pairs = list(zip(ours["_runs"], base["_runs"], strict=True))
            ratios[f"{label}:{players}p"] = {
                "games_ratio": spread([o[0] / b[0] for o, b in pairs]),
                "actions_ratio": spread([o[1] / b[1] for o, b in pairs]),
            }
    for entry in results.values():
        del entry["_runs"]
    return {"results": results, "ratios_vs_rlcard": ratios}


def like_for_like(ratios: dict[str, Any]) -> dict[str, Any]:
    """The two headline UNO ratios (2 players, as RLCard's own figures are quoted)."""
    out: dict[str, Any] = {}
    games = ratios.get("uno/hand-rlpolicy:2p")
    actions = ratios.get("uno/hand:2p")
    if games is not None:
        out["uno_games_ratio_2p"] = games["games_ratio"]["median"]
    if actions is not None:
        out["uno_actions_ratio_2p"] = actions["actions_ratio"]["median"]
    return out


def print_report(report: dict[str, Any]) -> None:
    print(f"{'setting':<22} {'players':>7} {'games/s median [min..max]':>34} {'actions/s median [min..max]':>36}")
    for entry in report["results"].values():
        print(
            f"{entry['label']:<22} {entry['players']:>7} {fmt_spread(entry['games_per_s'], 1):>34} "
            f"{fmt_spread(entry['actions_per_s']):>36}   ({fmt(entry['actions_per_game'], 1)} actions/game)"
        )
    if report["ratios_vs_rlcard"]:
        print("\nUNO as a ratio of RLCard's UNO (median [min..max] of paired repetitions; >= 1.0 is the target):")
        for key, ratio in report["ratios_vs_rlcard"].items():
            print(
                f"  {key:<22} games {fmt_spread(ratio['games_ratio'], 2):>22}   "
                f"actions {fmt_spread(ratio['actions_ratio'], 2):>22}"
            )
        print(
            "  like-for-like: per game = uno/hand-rlpolicy games ratio; per action = uno/hand actions ratio"
            " (see docs/benchmarks.md)"
        )
    else:
        print("\nRLCard is not installed (pip install 'toadstool[bench]'): no baseline ratio this run")


def profile(target: str, seconds: float) -> None:
    """cProfile one game's selfplay for a few seconds and print the functions that take the time."""
    game, _, players_text = target.partition(":")
    players = int(players_text or "2")
    options = {"target": "1"} if game == "uno/hand" else None
    game = game.split("/")[0]
    config = toadstool_config(game, game, players, options)
    profiler = cProfile.Profile()
    deadline = time.perf_counter() + seconds
    seed = 0
    profiler.enable()
    while time.perf_counter() < deadline:
        config.play_one(seed)
        seed += 1
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(25)
    print(f"profile of {target}: {seed} games in {seconds:.0f} s (under cProfile, so slower than measured)")
    print(out.getvalue())


def plot(report: dict[str, Any], path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    entries = list(report["results"].values())
    labels = [f"{e['label']}\n{e['players']}p" for e in entries]
    medians = [e["actions_per_s"]["median"] for e in entries]
    low = [e["actions_per_s"]["median"] - e["actions_per_s"]["min"] for e in entries]
    high = [e["actions_per_s"]["max"] - e["actions_per_s"]["median"] for e in entries]
    colors = ["tab:gray" if e["label"].startswith("rlcard") else "tab:green" for e in entries]
    fig, ax = plt.subplots(figsize=(max(8, len(entries) * 0.9), 4.5))
    ax.bar(range(len(entries)), medians, yerr=[low, high], color=colors, capsize=3)
    ax.set_xticks(range(len(entries)), labels, fontsize=7)
    ax.set_ylabel("actions per CPU-second (median, min..max)")
    ax.set_title("Random-legal-action selfplay throughput (grey: RLCard UNO baseline)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="3 short repetitions (under a minute)")
    mode.add_argument("--smoke", action="store_true", help="one tiny repetition: checks the harness, not speed")
    parser.add_argument("--plot", action="store_true", help="also write a PNG chart")
    parser.add_argument("--games", nargs="*", default=list(GAMES), help="games to measure (default: all)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="directory for the CSV and PNG")
    parser.add_argument(
        "--profile", metavar="GAME[:PLAYERS]", help="instead: cProfile selfplay of one game (uno/hand for one hand)"
    )
    args = parser.parse_args(argv)
    if args.profile:
        profile(args.profile, 3.0 if args.smoke or args.quick else 8.0)
        return 0
    unknown = [g for g in args.games if g not in GAMES]
    if unknown:
        parser.error(f"unknown games {unknown}; registered: {list(GAMES)}")
    mode_name = "smoke" if args.smoke else "quick" if args.quick else "full"
    budget = BUDGETS[mode_name]
    started = time.perf_counter()
    report = run(budget, args.games)
    report["wall_seconds"] = round(time.perf_counter() - started, 1)
    print_report(report)
    rows = []
    for entry in report["results"].values():
        key = f"{entry['label']}:{entry['players']}p"
        ratio = report["ratios_vs_rlcard"].get(key)
        rows.append(
            {
                "setting": entry["label"],
                "players": entry["players"],
                "games_per_s_median": round(entry["games_per_s"]["median"], 2),
                "games_per_s_min": round(entry["games_per_s"]["min"], 2),
                "games_per_s_max": round(entry["games_per_s"]["max"], 2),
                "actions_per_s_median": round(entry["actions_per_s"]["median"]),
                "actions_per_s_min": round(entry["actions_per_s"]["min"]),
                "actions_per_s_max": round(entry["actions_per_s"]["max"]),
                "actions_per_game": round(entry["actions_per_game"], 1),
                "games_ratio_vs_rlcard": round(ratio["games_ratio"]["median"], 3) if ratio else "",
                "actions_ratio_vs_rlcard": round(ratio["actions_ratio"]["median"], 3) if ratio else "",
            }
        )
    csv_path = write_csv(args.out / "engines.csv", rows)
    print(f"\nCSV: {csv_path}")
    figures: dict[str, Any] = {
        "benchmark": "engines",
        "mode": mode_name,
        "machine": machine(),
        **like_for_like(report["ratios_vs_rlcard"]),
        **report,
        "csv": str(csv_path),
    }
    if args.plot:
        figures["png"] = str(plot(report, args.out / "engines.png"))
        print(f"PNG: {figures['png']}")
    final_json(figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
