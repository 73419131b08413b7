"""Smoke test of bench/peers.py, Toadstool beside boardgame.io (issue #24): `--quick` runs Toadstool over
gRPC, Toadstool over Connect and boardgame.io alternately, each under its own clients, and prints each
Toadstool side's ratio lines and its final JSON line. It checks the shape
of the output only, never a timing (benchmarks print figures; the machines that run tests are too noisy for
timed assertions, issue #9). Needs node and `npm ci --prefix bench/peers` (scripts/test installs them)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: What the run printed, kept for a person to read (the figures themselves are not checked).
CAPTURE = ROOT / "test-output" / "bench" / "peers-quick.txt"
NUMBER = r"[\d.]+"
SPAN = rf"{NUMBER}\.\.{NUMBER}"
#: Toadstool's two default sides: over gRPC and over the browser's transport, a seat's WebSocket.
OURS = ("toadstool", "toadstool/socket")
FIGURES = ("saturated views/s", "server CPU per move", "paced p99", "server RSS per client", "bytes per update")


def test_the_peer_benchmark_runs_toadstool_and_boardgame_io_alternately_and_prints_ratios_per_pair(
    tmp_path: Path,
) -> None:
    assert shutil.which("node"), "Node.js is needed for the boardgame.io peer (scripts/test installs nodejs)"
    assert (ROOT / "bench/peers/node_modules/boardgame.io").is_dir(), "run `npm ci --prefix bench/peers`"
    completed = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "peers.py"), "--quick", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=ROOT,
        env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")},
        check=False,
    )
    CAPTURE.parent.mkdir(parents=True, exist_ok=True)
    CAPTURE.write_text(completed.stdout + "\n--- stderr ---\n" + completed.stderr)
    assert completed.returncode == 0, completed.stderr[-3000:]
    out = completed.stdout
    # A ratio line per Toadstool side and round, then one median [min..max] line per side and figure.
    for side in OURS:
        per_round = rf"^ {{4}}ratio {re.escape(side)} +saturated views/s \d"
        assert len(re.findall(per_round, out, re.MULTILINE)) == 2, out
        for label in FIGURES:
            spread = rf"^  ratio {re.escape(label)} {re.escape(side)} / boardgame\.io: median {NUMBER} \[{SPAN}\]"
            assert re.search(spread + " over 2 pairs", out, re.MULTILINE), f"no ratio line for {side}, {label}:\n{out}"
    # The other load on the machine is recorded beside every run.
    other = r"other load: [\d.]+ cores busy, loadavg [\d.]+->[\d.]+ \(this run: [\d.]+ cores\)"
    assert len(re.findall(other, out)) == 6, out
    # And how the machine's cores were shared while saturated: the server's and the load processes'.
    shared = r"saturated: server [\d.]+ cores, load processes [\d.]+ cores \([\d.,]+ µs/view\)"
    assert len(re.findall(shared, out)) == 6, out

    figures = json.loads(out.strip().splitlines()[-1])
    assert figures["benchmark"] == "peers"
    assert figures["pairs"] == 2
    (point,) = figures["points"]
    assert len(point["runs"]) == 2
    assert figures["sides"] == [*OURS, "boardgame.io"]
    for run in point["runs"]:
        for side in figures["sides"]:
            summary = run[side]
            assert summary["saturated"]["views_per_s"]["median"] > 0, f"{side} delivered no view"
            assert summary["saturated"]["actions_per_s"]["median"] > 0, f"{side} made no move"
            assert summary["saturated"]["mean_message_bytes"] > 0
            # Every side's load processes are measured, boardgame.io's Node ones too.
            assert summary["saturated"]["client_cpu_us_per_view"]["median"] > 0, f"{side}: no load CPU"
            assert {"other_cores_busy", "own_cores_busy", "loadavg_before", "loadavg_after"} <= set(
                summary["other_load"]
            )
    assert set(point["ratios"]) == set(OURS)
    for ratio in (r for side in OURS for r in point["ratios"][side].values()):
        assert ratio["n"] == 2
        assert ratio["min"] <= ratio["median"] <= ratio["max"]
    assert (tmp_path / "peers.csv").read_text().startswith("tables,pair,side,")
