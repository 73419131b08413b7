"""Memory per table over a long game, and server start time with many finished tables on disk (issue #21).

Usage: ``python bench/memory.py [--quick | --smoke] [--out DIR]``

Part 1, bytes per action: one all-bot UNO table (4 bots, target 100,000 points: a game that does not end)
is played action after action in-process, each action written to a real SQLite store as a server writes
it, and the memory Python holds (tracemalloc) is sampled as it goes. The figure is the growth per action
over the second half of the game. Measured twice in the same run: with a store (the table keeps its
recent past only, `toadstool.server.tables.history`) and, as the baseline, without one (a table with no
store keeps every event and action, which is what every table did before). The ratio of the two is the
figure to quote; the absolute bytes depend on the machine and Python.

Part 2, start time: N finished UNO tables (2 bots, played to the end) are written to a database, then
the time `TableRegistry.load()` takes is measured (finished tables are not replayed), against the baseline
of the same tables stored as before they recorded that they ended (every one replayed) in the same run.

Not for: asserting anything (tests only check the output's shape), or a server's speed (bench/load.py).
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import RESULTS, final_json, fmt, machine, write_csv

from toadstool.server.store import Store
from toadstool.server.tables import Status, TableRegistry

#: (actions in the long game, finished tables on disk, target points of each finished game) per mode.
BUDGETS = {"smoke": (3_000, 6, "1"), "quick": (20_000, 100, "100"), "full": (100_000, 1000, "500")}


def _play(registry: TableRegistry, table_id: str, actions: int, samples: list[tuple[int, int]] | None) -> int:
    """Play up to `actions` bot moves at `table_id` synchronously (each written as a server writes it);
    with `samples`, record (actions so far, bytes traced) twenty times on the way. Returns the moves played."""
    table = registry.get(table_id)
    every = max(1, actions // 20)
    played = 0
    while played < actions and table.status is Status.PLAYING:
        choice = table.bot_choice()
        if choice is None:
            break
        seat, action = choice
        table.apply_now(seat, action)
        played += 1
        if samples is not None and played % every == 0:
            samples.append((played, tracemalloc.get_traced_memory()[0]))
    return played


def _growth(samples: list[tuple[int, int]]) -> float:
    """Bytes per action over the second half of the samples (least squares)."""
    half = samples[len(samples) // 2 :]
    if len(half) < 2:
        return float("nan")
    mean_x = sum(x for x, _ in half) / len(half)
    mean_y = sum(y for _, y in half) / len(half)
    spread = sum((x - mean_x) ** 2 for x, _ in half)
    return sum((x - mean_x) * (y - mean_y) for x, y in half) / spread if spread else float("nan")


def long_game(actions: int, folder: Path, stored: bool) -> dict[str, Any]:
    """One long all-bot game's memory growth, with a store or (the baseline) without one."""
    store = Store(folder / f"long-{stored}.db") if stored else None
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        registry = TableRegistry(store=store)
        table, _ = registry.create("uno", 4, bots=4, seed=1, options={"target": "100000"})
        samples: list[tuple[int, int]] = []
        played = _play(registry, table.table_id, actions, samples)
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
        if store is not None:
            store.close()
    return {
        "actions": played,
        "bytes_per_action": round(_growth(samples), 1),
        "table_bytes": after - before,
        "samples": samples,
    }


def start_time(tables: int, target: str, folder: Path) -> dict[str, Any]:
    """Seconds to restore `tables` finished tables, and to only read their rows (the baseline)."""
    db = folder / "finished.db"
    store = Store(db)
    registry = TableRegistry(store=store)
    actions = 0
    for seed in range(tables):
        table, _ = registry.create("uno", 2, bots=2, seed=seed, options={"target": target})
        actions += _play(registry, table.table_id, 10**9, None)
    store.close()
    replayed = folder / "replayed.db"  # the baseline: the same tables, as stored before they knew they ended
    shutil.copy(db, replayed)
    with sqlite3.connect(replayed) as raw:
        raw.execute("UPDATE tables SET finished_version = NULL")
    raw.close()
    seconds = {}
    for name, path in (("replay_all", replayed), ("load", db)):
        started = time.perf_counter()
        store = Store(path)
        restored = TableRegistry(store=store).load()
        seconds[name] = time.perf_counter() - started
        store.close()
    return {
        "tables": restored,
        "actions": actions,
        "load_seconds": round(seconds["load"], 3),
        "baseline_replay_all_seconds": round(seconds["replay_all"], 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="a 20,000-action game and 100 finished tables")
    mode.add_argument("--smoke", action="store_true", help="tiny: checks the harness, not memory")
    parser.add_argument("--plot", action="store_true", help="accepted for the smoke tests' sake (no chart)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="directory for the CSV")
    args = parser.parse_args(argv)
    mode_name = "smoke" if args.smoke else "quick" if args.quick else "full"
    actions, finished, target = BUDGETS[mode_name]
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        windowed = long_game(actions, folder, stored=True)
        baseline = long_game(actions, folder, stored=False)
        start = start_time(finished, target, folder)
    ratio = windowed["bytes_per_action"] / baseline["bytes_per_action"] if baseline["bytes_per_action"] else None
    print(f"memory per table over a {fmt(windowed['actions'])}-action game ({mode_name}):")
    for name, entry in (("with a store (recent past only)", windowed), ("baseline: no store, all kept", baseline)):
        print(
            f"  {name:34} {fmt(entry['bytes_per_action'], 1):>8} bytes/action, "
            f"{fmt(entry['table_bytes'] / 1e6, 2):>6} MB at the end"
        )
    print(f"  ratio (store / baseline): {fmt(ratio, 3) if ratio is not None else '-'}")
    start_ratio = (
        start["load_seconds"] / start["baseline_replay_all_seconds"] if start["baseline_replay_all_seconds"] else None
    )
    print(
        f"start with {start['tables']} finished tables ({fmt(start['actions'])} actions): "
        f"load {start['load_seconds']} s; baseline, replaying them all: {start['baseline_replay_all_seconds']} s "
        f"(ratio {fmt(start_ratio, 3) if start_ratio is not None else '-'})"
    )
    args.out.mkdir(parents=True, exist_ok=True)
    write_csv(
        args.out / "memory.csv",
        [
            {"setting": name, "actions": n, "bytes_traced": b}
            for name, entry in (("store", windowed), ("baseline", baseline))
            for n, b in entry["samples"]
        ],
    )
    final_json(
        {
            "benchmark": "memory",
            "mode": mode_name,
            "machine": machine(),
            "long_game": {k: v for k, v in windowed.items() if k != "samples"},
            "long_game_baseline": {k: v for k, v in baseline.items() if k != "samples"},
            "bytes_per_action_ratio": ratio,
            "start": start,
            "start_ratio_vs_replay_all": start_ratio,
        }
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
