"""`--auto` on `toadstool play` and `toadstool join`, end to end in a real terminal (tmux) with a real
server: auto is on from the start, and a single forced choice (a Kart roll) is played with no key pressed
after a visible "auto: playing" line; the player's own roll then reads "You roll" in the events.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from terminal_helpers import Tmux, save, terminal_env

from conftest import TEST_LIMIT_FLAGS, start_serve, stop_process, toadstool_command


def _rolls_by_itself(tmux: Tmux, name: str) -> None:
    """Without a key: auto is on, says it plays the forced roll, and the roll happens; Ctrl+C then exits 0."""
    announced = tmux.wait_for(lambda s: "auto: playing" in s, timeout=60)
    assert "a: auto on" in announced
    save(name, announced)
    rolled = tmux.wait_for(lambda s: "· You roll" in s, timeout=30)
    assert "Traceback" not in rolled
    tmux.send("C-c")
    final = tmux.wait_for(lambda s: "EXIT=" in s, timeout=20)
    assert "EXIT=0" in final


@pytest.mark.timeout(120)
def test_play_with_auto_plays_a_forced_roll_with_no_key_pressed(terminal: list[Tmux], tmp_path: Path) -> None:
    command = toadstool_command(
        "play", "kart", "--bots", "2", "--seed", "5", "--bot-delay", "0.01", "--option", "track=mini-loop", "--auto"
    )
    tmux = Tmux(tmp_path / "tmux.sock", command, 80, 24, terminal_env(tmp_path))
    terminal.append(tmux)
    _rolls_by_itself(tmux, "kart-80x24-play-auto")


@pytest.mark.timeout(120)
def test_join_with_auto_plays_a_forced_roll_with_no_key_pressed(terminal: list[Tmux], tmp_path: Path) -> None:
    env = {**os.environ, **terminal_env(tmp_path)}
    flags = ("--bot-delay", "0.01", "--no-db", "--no-announce", "--no-web", *TEST_LIMIT_FLAGS)
    process, address = start_serve(*flags, output=tmp_path / "serve.log", env=env)
    try:
        created = subprocess.run(
            toadstool_command(
                "new", "kart", "--players", "2", "--bots", "1", "--option", "track=mini-loop", "--server", address
            ),
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        table = created.stdout.strip()
        join = toadstool_command("join", table, "--name", "Ann", "--auto", "--server", address)
        tmux = Tmux(tmp_path / "tmux.sock", join, 160, 50, terminal_env(tmp_path))
        terminal.append(tmux)
        _rolls_by_itself(tmux, "kart-160x50-join-auto")
    finally:
        stop_process(process)
