"""Shared fixtures: a test fails if anything logged an ERROR (python-chess's habit); real servers on free
loopback ports, in this process or as a `toadstool serve` process."""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from toadstool.limits import Limits
from toadstool.server import RunningServer, ServerConfig, running_server
from toadstool_clients.connection import Client

ROOT = Path(__file__).resolve().parents[1]

# Property tests draw the same examples on every CI run (a red CI must be the change's fault, not a new
# random draw); locally they explore freely.
settings.register_profile("ci", derandomize=True, database=None, deadline=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


#: Scripted test players act far faster than people: tests that are not about limits lift the action
#: rate limit (tests/test_limits.py checks the limits themselves).
TEST_LIMITS = Limits(actions_per_second=100_000, action_burst=100_000)
TEST_LIMIT_FLAGS = ("--actions-per-second", "100000", "--min-bot-delay", "0")


@pytest.fixture(autouse=True)
def _fail_on_logged_errors(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    caplog.set_level(logging.WARNING)
    yield
    errors = [r for r in caplog.get_records("call") if r.levelno >= logging.ERROR]
    if errors:
        pytest.fail("ERROR logged during the test:\n" + "\n".join(r.getMessage() for r in errors))


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


def stop_process(process: subprocess.Popen[bytes], seconds: float = 10.0) -> None:
    """Ask a process to stop (SIGTERM), and kill it if it has not within `seconds`."""
    process.terminate()
    try:
        process.wait(seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def toadstool_command(*args: str) -> list[str]:
    """The `toadstool` command line, run with this interpreter."""
    return [sys.executable, "-m", "toadstool_clients.cli", *args]


def serve_command(port: int, *flags: str) -> list[str]:
    """`toadstool serve` on 127.0.0.1 (tests listen on loopback only) at `port`, with `flags`."""
    return toadstool_command("serve", "--host", "127.0.0.1", "--port", str(port), *flags)


@pytest.fixture
async def server() -> AsyncIterator[RunningServer]:
    """A real gRPC server in this process on a free loopback port, with instant bots."""
    config = ServerConfig(host="127.0.0.1", port=0, bot_delay=0.0, grace=0.5, limits=TEST_LIMITS)
    async with running_server(config) as running:
        yield running


@pytest.fixture
async def client(server: RunningServer) -> AsyncIterator[Client]:
    async with Client(server.address) as c:
        yield c


@pytest.fixture
def server_process(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """`toadstool serve` as a real process on a free loopback port; yields (process, address)."""
    port = free_port()
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    process = subprocess.Popen(
        serve_command(port, "--bot-delay", "0.01", "--no-db", "--no-announce", *TEST_LIMIT_FLAGS),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_for_port(port)
        yield process, f"127.0.0.1:{port}"
    finally:
        stop_process(process)
