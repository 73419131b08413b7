"""A/B of two versions of the server under bench/load.py's people-acting load, run alternately in one run
(issue #24: every change to the move's path measured against the code before it, on the same machine).

Usage: ``python bench/ab_server.py --base DIR [--other DIR] [--transport grpc|play|connect|socket] [--versus T]
[--tables 100] [--pairs 3] [--window 2] [--windows 2]``

Why: on a shared 2-core machine absolute figures drift by a factor of two within minutes, so a change is
judged only by the ratio of runs made back to back, A B A B. Side A is the server of `--base` (a folder
holding another version's `server/` tree, e.g. ``git archive HEAD server | tar -x -C DIR``), put first on
PYTHONPATH of the server and its load processes; side B is `--other`'s, or this working tree's. Both run
`load.run_point` unchanged: a real `toadstool serve` with its SQLite log, acted on over gRPC (one channel a
seat), `--transport connect` (the browser's Connect over HTTP/1.1, load.py's raw client) or `--transport
socket` (each seat's Watch and Acts on one WebSocket, toadstool.server.web_socket) or `--transport play`
(each seat's Watch and Acts on one gRPC Play stream); `--versus T` runs the last side over transport T, so
`--base . --versus play` compares two transports of one server. With `--then`
steps between them (A, B, C...: each change on top of the one before), every round runs every side in order.
Prints each round's figures, then per comparison (each side / A, each side / the one before) the ratio's
median [min..max] over rounds (server CPU per move: below 1 is better; saturated views/s: above 1 is; paced
p99: below 1 is); the last line is the JSON of everything.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import load
from common import ratio, spread

#: The people's transport (`--transport`): bench/load.py's target for each.
TARGETS = {"grpc": "toadstool", "play": "play", "connect": "connect-raw", "socket": "socket"}
FIGURES = (
    ("cpu_ms_per_move", lambda s: s["saturated"]["cpu_ms_per_action"]["median"]),
    ("saturated_views_per_s", lambda s: s["saturated"]["views_per_s"]["median"]),
    ("paced_p99_ms", lambda s: s["paced"]["latency_p99_ms"]["median"]),
    ("paced_cpu_ms_per_move", lambda s: s["paced"]["cpu_ms_per_action"]["median"]),
)


def run_side(base: Path | None, tables: int, budget: load.Budget, target: str = "toadstool") -> dict[str, float]:
    """One people-acting run against the server of `base` (None: this tree's), through load.py's `target`."""
    saved = os.environ.get("PYTHONPATH")
    if base is not None:
        os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(base / "server"), saved) if p)
    try:
        summary = load.summarise(load.run_point(target, tables, budget, 0, "temp"))
    finally:
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved
    return {name: pick(summary) for name, pick in FIGURES} | {"loadavg": os.getloadavg()[0]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="a folder with the other version's server/")
    parser.add_argument(
        "--then",
        type=Path,
        action="append",
        default=[],
        help="a step between --base and --other (repeatable, in order): each is run in every round too, and"
        " compared with the step before it and with --base",
    )
    parser.add_argument("--other", type=Path, help="the last side's folder with server/ (default: this working tree)")
    parser.add_argument("--transport", choices=tuple(TARGETS), default="grpc", help="the people's transport")
    parser.add_argument(
        "--versus",
        choices=tuple(TARGETS),
        help="the last side's transport instead (e.g. --base . --transport grpc --versus play: one server, two"
        " transports)",
    )
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--pairs", type=int, default=3, help="rounds: each runs every side once, in order")
    parser.add_argument("--window", type=float, default=2.0)
    parser.add_argument("--windows", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    sides: list[Path | None] = [args.base, *args.then, args.other]
    for folder in sides:
        if folder is not None and not (folder / "server" / "toadstool").is_dir():
            parser.error(f"{folder} has no server/toadstool")
    names = [chr(ord("A") + i) for i in range(len(sides))]
    budget = load.Budget(tables=(args.tables,), windows=args.windows, window=args.window, workers=args.workers)
    rounds: list[list[dict[str, float]]] = []
    for index in range(args.pairs):
        targets = [TARGETS[args.transport]] * (len(sides) - 1) + [TARGETS[args.versus or args.transport]]
        runs = [run_side(side, args.tables, budget, target) for side, target in zip(sides, targets, strict=True)]
        rounds.append(runs)
        print(
            f"round {index + 1}: "
            + " | ".join(
                f"{name} " + ", ".join(f"{n} {run[n]:.3g}" for n, _ in FIGURES) + f", load {run['loadavg']:.1f}"
                for name, run in zip(names, runs, strict=True)
            ),
            flush=True,
        )
    comparisons = {f"{names[i]}/A": (0, i) for i in range(1, len(sides))}
    comparisons |= {f"{names[i]}/{names[i - 1]}": (i - 1, i) for i in range(2, len(sides))}
    summary: dict[str, dict[str, dict[str, float]]] = {}
    for label, (before, after) in comparisons.items():
        summary[label] = {}
        for name, _ in FIGURES:
            values = [ratio(r[after][name], r[before][name]) for r in rounds]
            figure = summary[label][name] = spread(values)
            print(f"{label} {name}: {figure['median']:.2f} [{figure['min']:.2f}..{figure['max']:.2f}]")
    print(
        json.dumps(
            {
                "benchmark": "ab_server",
                "transport": args.transport,
                "versus": args.versus,
                "tables": args.tables,
                "sides": [str(side) if side else "." for side in sides],
                "rounds": rounds,
                "ratios": summary,
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
