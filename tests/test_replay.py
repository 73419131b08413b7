"""`toadstool replay` is a stepper: "Step N of M", keys to the next, previous, first and last step, a typed
step number to jump to, and q quits at once; not at a terminal it prints every step. Driven as a person
would: the real command in a real terminal (tmux, 80x24) against a `toadstool serve` process on loopback,
replaying a finished bot game."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from terminal_helpers import Terminal

from conftest import toadstool_command
from toadstool.api.v1 import table_pb2
from toadstool_clients.connection import Client


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_STATE_HOME": str(tmp_path / "state")}


def _finished_game(address: str, seconds: float = 60.0) -> tuple[str, int]:
    """A one-hand UNO game between two bots, played to its end: (table id, steps in its history)."""

    async def play() -> tuple[str, int]:
        async with Client(address) as client:
            created = await client.create_table("uno", 2, 2, {"target": "1"}, seed=11, bot_delay_ms=0)
            table_id = created.table.table_id
            deadline = time.monotonic() + seconds
            while (await client.get_table(table_id)).status != table_pb2.TABLE_STATUS_FINISHED:
                assert time.monotonic() < deadline, "the bots did not finish within the time"
                await asyncio.sleep(0.1)
            return table_id, len(await client.history(table_id))

    return asyncio.run(play())


@pytest.fixture
def replayed(tmp_path: Path, server_process: tuple[object, str]) -> Iterator[tuple[Terminal, int]]:
    """`toadstool replay` of a finished game in an 80x24 terminal, and the game's number of steps."""
    _, address = server_process
    table_id, steps = _finished_game(address)
    terminal = Terminal(toadstool_command("replay", table_id, "--server", address), _env(tmp_path))
    try:
        yield terminal, steps
    finally:
        terminal.close()


def _step_shown(terminal: Terminal, step: int, steps: int) -> str:
    shown = terminal.wait_for(f"Step {step} of {steps}")
    assert shown.splitlines()[0].startswith(f"Step {step} of {steps}"), shown
    return shown


def test_replay_steps_forward_and_back_jumps_and_q_quits_at_once(replayed: tuple[Terminal, int]) -> None:
    terminal, steps = replayed
    assert steps > 5
    first = _step_shown(terminal, 1, steps)
    assert "the start" in first.splitlines()[0]
    assert "q quit" in first.rstrip().splitlines()[-1]
    terminal.save("replay-step-1")
    terminal.keys("Right")
    _step_shown(terminal, 2, steps)
    terminal.keys("n", "n")
    _step_shown(terminal, 4, steps)
    terminal.keys("Left")
    _step_shown(terminal, 3, steps)
    terminal.keys("End")
    _step_shown(terminal, steps, steps)
    terminal.save("replay-last-step")
    terminal.keys("Right")  # past the end stays at the end
    _step_shown(terminal, steps, steps)
    terminal.keys("5")
    terminal.wait_for("go to step 5")
    terminal.keys("Enter")
    _step_shown(terminal, 5, steps)
    terminal.keys("Down", "Down")  # a step taller than the terminal scrolls; the title line stays
    _step_shown(terminal, 5, steps)
    terminal.keys("Home")
    _step_shown(terminal, 1, steps)
    terminal.keys("q")
    assert terminal.exit_status(seconds=10) == 0
    assert "Traceback" not in terminal.screen()


def test_ctrl_c_leaves_the_replay_with_exit_status_0(replayed: tuple[Terminal, int]) -> None:
    terminal, steps = replayed
    _step_shown(terminal, 1, steps)
    terminal.keys("C-c")
    assert terminal.exit_status(seconds=10) == 0
    assert "Traceback" not in terminal.screen()


def test_replay_not_at_a_terminal_prints_every_step(tmp_path: Path, server_process: tuple[object, str]) -> None:
    _, address = server_process
    table_id, steps = _finished_game(address)
    result = subprocess.run(
        toadstool_command("replay", table_id, "--server", address),
        env=_env(tmp_path),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    shown = [int(number) for number in re.findall(rf"Step (\d+) of {steps}\b", result.stdout)]
    assert shown == list(range(1, steps + 1))
    assert "the start" in result.stdout
