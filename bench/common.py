"""Helpers shared by the benchmark scripts: repetition statistics, machine facts, process sampling from /proc,
and the three outputs every benchmark writes (a final JSON line, a CSV, an optional PNG).

It is for measuring and reporting only. It asserts nothing about speed: benchmarks print figures, and the
figures that matter are ratios against a baseline measured in the same run (issue #9), because the machines
this runs on are noisy.
"""

from __future__ import annotations

import csv
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
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
