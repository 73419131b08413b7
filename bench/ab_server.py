"""A/B of two versions of the server under bench/load.py's people-acting load, run alternately in one run
(issue #24: every change to the move's path measured against the code before it, on the same machine).

Usage: ``python bench/ab_server.py --base DIR [--other DIR] [--tables 100] [--pairs 3] [--window 2] [--windows 2]``

Why: on a shared 2-core machine absolute figures drift by a factor of two within minutes, so a change is
judged only by the ratio of runs made back to back, A B A B. Side A is the server of `--base` (a folder
holding another version's `server/` tree, e.g. ``git archive HEAD server | tar -x -C DIR``), put first on
PYTHONPATH of the server and its load processes; side B is `--other`'s, or this working tree's. Both run
`load.run_point("toadstool", ...)` unchanged: a real `toadstool serve` with its SQLite log. Prints each
pair's ratios B / A (server CPU per move: below 1 is better; saturated views/s: above 1 is; paced p99:
below 1 is) and their median [min..max]; the last line is the JSON of everything.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import load

FIGURES = (
    ("cpu_ms_per_move", lambda s: s["saturated"]["cpu_ms_per_action"]["median"]),
    ("saturated_views_per_s", lambda s: s["saturated"]["views_per_s"]["median"]),
    ("paced_p99_ms", lambda s: s["paced"]["latency_p99_ms"]["median"]),
    ("paced_cpu_ms_per_move", lambda s: s["paced"]["cpu_ms_per_action"]["median"]),
)


def run_side(base: Path | None, tables: int, budget: load.Budget) -> dict[str, float]:
    """One people-acting run against the server of `base` (None: this tree's)."""
    saved = os.environ.get("PYTHONPATH")
    if base is not None:
        os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(base / "server"), saved) if p)
    try:
        summary = load.summarise(load.run_point("toadstool", tables, budget, 0, "temp"))
    finally:
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved
    return {name: pick(summary) for name, pick in FIGURES} | {"loadavg": os.getloadavg()[0]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="a folder with the other version's server/")
    parser.add_argument("--other", type=Path, help="side B's folder with server/ (default: this working tree)")
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--window", type=float, default=2.0)
    parser.add_argument("--windows", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    for folder in (args.base, args.other):
        if folder is not None and not (folder / "server" / "toadstool").is_dir():
            parser.error(f"{folder} has no server/toadstool")
    budget = load.Budget(tables=(args.tables,), windows=args.windows, window=args.window, workers=args.workers)
    pairs: list[dict[str, Any]] = []
    for index in range(args.pairs):
        a = run_side(args.base, args.tables, budget)
        b = run_side(args.other, args.tables, budget)
        ratio = {name: b[name] / a[name] if a[name] else float("nan") for name, _ in FIGURES}
        pairs.append({"a": a, "b": b, "ratio": ratio})
        print(
            f"pair {index + 1}: "
            + ", ".join(f"{n} {a[n]:.3g} -> {b[n]:.3g} ({ratio[n]:.2f})" for n, _ in FIGURES)
            + f" | load {a['loadavg']:.1f}/{b['loadavg']:.1f}",
            flush=True,
        )
    summary = {}
    for name, _ in FIGURES:
        values = [p["ratio"][name] for p in pairs]
        summary[name] = {"median": statistics.median(values), "min": min(values), "max": max(values)}
        print(f"{name} B/A: {summary[name]['median']:.2f} [{summary[name]['min']:.2f}..{summary[name]['max']:.2f}]")
    print(json.dumps({"benchmark": "ab_server", "tables": args.tables, "pairs": pairs, "ratios": summary}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
