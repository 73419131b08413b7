"""Smoke test of bench/ab_server.py: versions of the server (here copies of this one as sides A and B, and this
tree as C) under the people-acting load, alternated, with the ratios of every step printed. It checks the
shape of the output only, never a timing (issue #9: the machines that run tests are too noisy for timed assertions)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(command: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """One bounded run of bench/ab_server.py with its state in `tmp_path`; it must exit 0."""
    completed = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=150,
        cwd=ROOT,
        env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")},
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    return completed


@pytest.mark.parametrize("transport", ["connect", "socket"])
def test_the_ab_benchmark_runs_every_side_in_each_round_and_prints_each_steps_ratios(
    tmp_path: Path, transport: str
) -> None:
    # Three sides: A (--base), a step B (--then) and C (this tree), over one of the browser's transports.
    sides = []
    for name in ("base", "step"):
        sides.append(tmp_path / name)
        shutil.copytree(ROOT / "server" / "toadstool", sides[-1] / "server" / "toadstool")
    command = [sys.executable, str(ROOT / "bench" / "ab_server.py"), "--base", str(sides[0]), "--then", str(sides[1])]
    command += ["--transport", transport, "--tables", "2", "--pairs", "1", "--window", "0.6", "--windows", "1"]
    command += ["--workers", "1"]
    completed = _run(command, tmp_path)
    lines = completed.stdout.strip().splitlines()
    assert lines[0].startswith("round 1: A cpu_ms_per_move"), lines[0]
    assert " | B cpu_ms_per_move" in lines[0]
    assert " | C cpu_ms_per_move" in lines[0]
    figures = json.loads(lines[-1])
    assert figures["benchmark"] == "ab_server"
    assert figures["transport"] == transport
    assert figures["sides"] == [str(sides[0]), str(sides[1]), "."]
    (runs,) = figures["rounds"]
    assert len(runs) == 3
    for name, run in zip("ABC", runs, strict=True):
        assert run["saturated_views_per_s"] > 0, f"side {name} delivered no view"
        assert run["cpu_ms_per_move"] > 0
    assert set(figures["ratios"]) == {"B/A", "C/A", "C/B"}
    for comparison in figures["ratios"].values():
        assert set(comparison) == {"cpu_ms_per_move", "saturated_views_per_s", "paced_p99_ms", "paced_cpu_ms_per_move"}
        for spread in comparison.values():
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


def test_the_ab_benchmark_compares_the_play_stream_with_unary_acts_on_one_server(tmp_path: Path) -> None:
    # One server (this tree, as both sides), its people acting by unary Act (A) and on Play streams (B).
    command = [sys.executable, str(ROOT / "bench" / "ab_server.py"), "--base", str(ROOT), "--versus", "play"]
    command += ["--tables", "2", "--pairs", "1", "--window", "0.6", "--windows", "1", "--workers", "1"]
    completed = _run(command, tmp_path)
    figures = json.loads(completed.stdout.strip().splitlines()[-1])
    assert (figures["transport"], figures["versus"]) == ("grpc", "play")
    (runs,) = figures["rounds"]
    for name, run in zip("AB", runs, strict=True):
        assert run["saturated_views_per_s"] > 0, f"side {name} delivered no view"
        assert run["cpu_ms_per_move"] > 0, f"side {name} made no move"
    assert set(figures["ratios"]) == {"B/A"}
