"""Smoke test of bench/ab_server.py: two versions of the server (here a copy of this one as side A) under the
people-acting load, alternated, with the ratios of every pair printed. It checks the shape of the output
only, never a timing (issue #9: the machines that run tests are too noisy for timed assertions)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_ab_benchmark_runs_both_servers_alternately_and_prints_each_pairs_ratios(tmp_path: Path) -> None:
    base = tmp_path / "base"
    shutil.copytree(ROOT / "server" / "toadstool", base / "server" / "toadstool")
    command = [sys.executable, str(ROOT / "bench" / "ab_server.py"), "--base", str(base)]
    command += ["--tables", "2", "--pairs", "1", "--window", "0.6", "--windows", "1", "--workers", "1"]
    completed = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")},
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    lines = completed.stdout.strip().splitlines()
    assert lines[0].startswith("pair 1: cpu_ms_per_move")
    figures = json.loads(lines[-1])
    assert figures["benchmark"] == "ab_server"
    (pair,) = figures["pairs"]
    for side in ("a", "b"):
        assert pair[side]["saturated_views_per_s"] > 0, f"side {side} delivered no view"
        assert pair[side]["cpu_ms_per_move"] > 0
    assert set(figures["ratios"]) == {
        "cpu_ms_per_move",
        "saturated_views_per_s",
        "paced_p99_ms",
        "paced_cpu_ms_per_move",
    }
    for spread in figures["ratios"].values():
        assert {"median", "min", "max"} <= set(spread)


def test_the_ab_benchmark_refuses_a_base_folder_without_a_server(tmp_path: Path) -> None:
    completed = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "ab_server.py"), "--base", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        check=False,
    )
    assert completed.returncode == 2
    assert "has no server/toadstool" in completed.stderr
