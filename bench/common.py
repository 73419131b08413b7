"""Helpers shared by the benchmark scripts: repetition statistics, machine facts, process sampling from /proc,
the three outputs every benchmark writes (a final JSON line, a CSV, an optional PNG), and the conductor of
sides run in turn whose ratios are taken per pair (`other_load`, `run_pairs`, `print_ratio_spreads`).

It is for measuring and reporting only. It asserts nothing about speed: benchmarks print figures, and the
figures that matter are ratios against a baseline measured in the same run (issue #9), because the machines
this runs on are noisy.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


def spread(values: Sequence[float]) -> dict[str, float]:
    """Median, min and max of repeated measurements (the median is the figure; min and max show the noise)."""
    if not values:
        return {"median": float("nan"), "min": float("nan"), "max": float("nan"), "n": 0}
    return {
        "median": float(statistics.median(values)),
        "min": float(min(values)),
        "max": float(max(values)),
        "n": len(values),
    }


def percentile(sorted_values: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile of already sorted values (NaN when there are none)."""
    if not sorted_values:
        return float("nan")
    index = min(len(sorted_values) - 1, max(0, round(fraction * len(sorted_values) + 0.5) - 1))
    return float(sorted_values[index])


def machine() -> dict[str, Any]:
    """What the figures came from: they mean little without it."""
    model = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        import uvloop  # noqa: F401

        has_uvloop = True
    except ImportError:
        has_uvloop = False
    return {
        "nproc": os.cpu_count(),
        "cpu": model,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "uvloop": has_uvloop,
        # Other work on the machine while we measured (1, 5, 15 minute load averages): a load above nproc
        # means the figures, latencies most of all, were taken on a busy machine.
        "loadavg": [round(x, 2) for x in os.getloadavg()],
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far (from /proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def rss_bytes(pid: int) -> int:
    """Resident memory of a process (from /proc/PID/statm)."""
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE_SIZE


def use_uvloop() -> bool:
    """Install uvloop's event loop policy when uvloop is installed; report whether it is in use."""
    try:
        import uvloop
    except ImportError:
        return False
    uvloop.install()
    return True


def write_csv(path: Path, rows: Iterable[Mapping[str, Any]]) -> Path:
    """Write rows (dicts with the same keys) as a CSV; returns the path."""
    rows = list(rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as handle:
        if rows:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    return path


def final_json(figures: Mapping[str, Any]) -> None:
    """Print the one-line JSON of every figure, last thing on stdout, for tracking over time."""
    sys.stdout.write(json.dumps(figures, sort_keys=True, allow_nan=True) + "\n")
    sys.stdout.flush()


def fmt(value: float, digits: int = 0) -> str:
    """A number for the human-readable tables: thousands separators, NaN as '-'."""
    if value != value:  # NaN
        return "-"
    return f"{value:,.{digits}f}"


def fmt_spread(s: Mapping[str, float], digits: int = 0) -> str:
    """'median [min..max]' for one repeated measurement."""
    return f"{fmt(s['median'], digits)} [{fmt(s['min'], digits)}..{fmt(s['max'], digits)}]"


# ----------------------------------------------------------------------------------------------------------
# Sides run in turn, A B A B: the other load on the machine beside each run, the ratios of each pair


def _machine_busy_seconds() -> float:
    """CPU seconds every core of the machine has spent busy so far (/proc/stat: all but idle and iowait)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
    return (user + nice + system + irq + softirq + steal) / CLOCK_TICKS


def _own_seconds() -> float:
    """CPU seconds of this process and of its children that have been waited for (servers, load processes)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


@contextlib.contextmanager
def other_load() -> Iterator[dict[str, Any]]:
    """Measures what else ran on the machine during the block: every run's figures are read beside it."""
    record: dict[str, Any] = {"loadavg_before": round(os.getloadavg()[0], 2)}
    busy, own, started = _machine_busy_seconds(), _own_seconds(), time.monotonic()
    yield record
    wall = max(1e-6, time.monotonic() - started)
    ours = _own_seconds() - own
    others = (_machine_busy_seconds() - busy) - ours
    record["loadavg_after"] = round(os.getloadavg()[0], 2)
    record["other_cores_busy"] = round(max(0.0, others) / wall, 2)
    # The benchmark's own share (server, load processes, conductor): on a full machine the two add up to
    # its cores, so a side whose processes win less of the CPU shows more "other" load.
    record["own_cores_busy"] = round(ours / wall, 2)
    record["seconds"] = round(wall, 1)


def ratio(a: float, b: float) -> float:
    """a / b, or NaN when either is NaN or b is 0 (a side that made no move)."""
    return a / b if b and a == a and b == b else float("nan")


def spread_known(values: Sequence[float]) -> dict[str, float]:
    """`spread` of the values that could be taken (NaN left out: a ratio of a side that made no move)."""
    return spread([v for v in values if v == v])


#: A figure compared between sides: (name, what it is, the figure of a run's summary, True when above 1 is
#: better for the side compared with the base).
Figure = tuple[str, str, Callable[[dict[str, Any]], float], bool]


def run_pairs(
    sides: Sequence[str],
    base: str,
    pairs: int,
    figures: Sequence[Figure],
    run_side: Callable[[str], dict[str, Any]],
    *,
    side_line: Callable[[str, dict[str, Any]], str],
    ratio_name: Callable[[str], str],
    row: Callable[[str, dict[str, Any]], dict[str, Any]],
    tables: int,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, dict[str, dict[str, float]]]]:
    """`pairs` rounds of every side in turn (`run_side(side)`: a run's summary), each round's ratios of every
    other side's `figures` to `base`'s. Prints each round as it ends: "  pair N:", each side's
    `side_line`, then each other side's ratios after `ratio_name(side)`. Returns the runs (each side's
    summary and "ratios"), the CSV rows (tables, pair, side, the figures to 3 places, then `row(side,
    summary)`) and each other side's ratios as `spread_known` over the rounds, by side and figure."""
    others = [side for side in sides if side != base]
    runs: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    for pair in range(pairs):
        run: dict[str, Any] = {side: run_side(side) for side in sides}
        run["ratios"] = {
            side: {name: ratio(get(run[side]), get(run[base])) for name, _, get, _ in figures} for side in others
        }
        runs.append(run)
        print(f"  pair {pair + 1}:", flush=True)
        for side in sides:
            print(side_line(side, run[side]), flush=True)
        for side in others:
            ratios = run["ratios"][side]
            shown = ", ".join(f"{label} {ratios[name]:.2f}" for name, label, _, _ in figures)
            print(f"    {ratio_name(side)} {shown}", flush=True)
        for side in sides:
            summary = run[side]
            rows.append(
                {
                    "tables": tables,
                    "pair": pair + 1,
                    "side": side,
                    **{name: round(get(summary), 3) for name, _, get, _ in figures},
                    **row(side, summary),
                }
            )
    spreads = {
        side: {name: spread_known([r["ratios"][side][name] for r in runs]) for name, _, _, _ in figures}
        for side in others
    }
    return runs, rows, spreads


def print_ratio_spreads(
    spreads: Mapping[str, Mapping[str, Mapping[str, float]]],
    figures: Sequence[Figure],
    side_name: Callable[[str], str],
    base_name: str,
    ahead: str,
    number: Callable[[float], str] = lambda value: fmt(value, 2),
    note: Callable[[str], str] = lambda name: "",
) -> None:
    """Each side's ratio of each figure to the base over the pairs, one line each: "  ratio <figure> <side> /
    <base>: median M [min..max] over N pairs (above 1: <ahead> ahead<note>)", the numbers by `number`."""
    for side, by_figure in spreads.items():
        for name, label, _, higher in figures:
            s = by_figure[name]
            better = f"above 1: {ahead} ahead" if higher else f"below 1: {ahead} ahead"
            print(
                f"  ratio {label} {side_name(side)} / {base_name}: median {number(s['median'])}"
                f" [{number(s['min'])}..{number(s['max'])}] over {s['n']} pairs ({better}{note(name)})",
                flush=True,
            )
