"""Smoke test of `bench/load.py --connect` (issue #20): the browser's transport (Connect over HTTP/1.1) under
the people-acting load, run alternately with gRPC, printing the paced p99 ratio per pair and over the pairs.
It checks the shape of the output and that both transports carried the moves, never a timing (benchmarks
print figures; the machines that run tests are too noisy for timed assertions, issue #9)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: What the run printed, kept for a person to read (the figures themselves are not checked).
CAPTURE = ROOT / "test-output" / "bench" / "load-connect-smoke.txt"
NUMBER = r"(?:[\d.,]+|-)"


def test_the_connect_benchmark_runs_grpc_and_http_viewers_alternately_and_prints_the_p99_ratio(
    tmp_path: Path,
) -> None:
    completed = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "load.py"), "--connect", "--smoke", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=150,
        cwd=ROOT,
        env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")},
        check=False,
    )
    CAPTURE.parent.mkdir(parents=True, exist_ok=True)
    CAPTURE.write_text(completed.stdout + "\n--- stderr ---\n" + completed.stderr)
    assert completed.returncode == 0, completed.stderr[-3000:]
    out = completed.stdout
    # The one pair of the smoke run (--quick has two): a line per side, then the pair's ratios.
    assert len(re.findall(r"^ {4}gRPC {10}paced p50 ", out, re.MULTILINE)) == 1, out
    assert len(re.findall(r"^ {4}Connect/HTTP  paced p50 ", out, re.MULTILINE)) == 1, out
    assert len(re.findall(rf"^ {{4}}ratio {{9}}paced p99 {NUMBER}, ", out, re.MULTILINE)) == 1, out
    # The headline: the paced p99 ratio over the pairs, beside its target.
    headline = rf"^  ratio paced p99 Connect/HTTP / gRPC: median {NUMBER} \[{NUMBER}\.\.{NUMBER}\] over \d pairs .*1\.5"
    assert re.search(headline, out, re.MULTILINE), out
    assert re.search(rf"^Targets at 2 tables: Connect/HTTP paced p99 {NUMBER} ms", out, re.MULTILINE), out

    figures = json.loads(out.strip().splitlines()[-1])
    assert figures["benchmark"] == "load-connect"
    assert figures["pairs"] == 1
    (point,) = figures["points"]
    assert len(point["runs"]) == 1
    for run in point["runs"]:
        for side in ("grpc", "connect"):
            summary = run[side]
            # Both transports carried the moves: acts accepted, every viewer's update timed, nothing refused.
            assert summary["saturated"]["actions_per_s"]["median"] > 0, f"{side} made no move"
            assert summary["saturated"]["views_per_s"]["median"] > 0, f"{side} delivered no view"
            assert summary["paced"]["latency_p99_ms"]["n"] > 0, f"{side} timed no update"
            assert summary["paced"]["refused"] + summary["saturated"]["refused"] == 0, f"{side} had moves refused"
    assert (tmp_path / "load-connect.csv").read_text().startswith("tables,pair,side,")
