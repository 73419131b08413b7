"""The hard bots think in worker processes (issue 46 item 2, toadstool.server.tables.thinking): a table of four
hard bots plays to its end with its search in processes of their own, none of them outlives the server (even
one killed outright), and a worker that dies never stops a table: it thinks in the server's threads and the
pool is made anew.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import time
from pathlib import Path

import pytest

from conftest import TEST_LIMITS, start_serve, stop_process
from toadstool.api.v1 import service_pb2
from toadstool.bots import HardBot
from toadstool.server.app import ServerConfig, running_server
from toadstool.server.tables import Status, Table
from toadstool.server.tables.thinking import ThinkingPool
from toadstool_clients.connection import Client

#: A short hand of UNO and the shortest budget a table may ask for: a whole game of four hard bots in seconds.
SHORT = {"target": "1", "bot_budget_ms": "50"}


def _gone(pid: int) -> bool:
    """Whether process `pid` has ended (a zombie has: only its parent's wait is left)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")


async def _hard_table(client: Client, seed: int = 5) -> str:
    created = await client.stub.CreateTable(
        service_pb2.CreateTableRequest(
            game="uno", players=4, bots=4, bot_level=service_pb2.BOT_LEVEL_HARD, options=SHORT, seed=seed
        ),
        timeout=30,
    )
    return created.table.table_id


async def _until(check: object, seconds: float) -> None:
    async with asyncio.timeout(seconds):
        while not check():  # type: ignore[operator]
            await asyncio.sleep(0.02)


@pytest.mark.timeout(300)
async def test_a_table_of_four_hard_bots_plays_to_its_end_thinking_in_worker_processes() -> None:
    config = ServerConfig(host="127.0.0.1", port=0, bot_delay=0.0, grace=0.5, limits=TEST_LIMITS, bot_processes=2)
    async with running_server(config) as server, Client(server.address) as client:
        pool = server.registry.thinking
        assert isinstance(pool, ThinkingPool)
        assert pool.pids() == []  # made on the first hard decision, not before
        table: Table = server.registry.tables[await _hard_table(client)]
        assert all(isinstance(seat.bot, HardBot) for seat in table.seats)  # the seats keep their bots
        assert table.thinking is pool
        await _until(lambda: table.status is Status.FINISHED, 240)
        assert table.engine.outcome(table.state) is not None
        workers = pool.pids()
        assert workers
        assert os.getpid() not in workers
    assert all(_gone(pid) for pid in workers)  # ended (and waited for) with the server


@pytest.mark.timeout(300)
async def test_a_killed_worker_never_stops_a_table_and_the_pool_is_made_anew(caplog: pytest.LogCaptureFixture) -> None:
    config = ServerConfig(host="127.0.0.1", port=0, bot_delay=0.0, grace=0.5, limits=TEST_LIMITS, bot_processes=1)
    async with running_server(config) as server, Client(server.address) as client:
        pool = server.registry.thinking
        assert pool is not None
        table = server.registry.tables[await _hard_table(client, seed=8)]
        await _until(lambda: pool.pids(), 60)
        killed = pool.pids()
        versions = table.version
        for pid in killed:
            os.kill(pid, signal.SIGKILL)
        await _until(lambda: table.status is Status.FINISHED, 240)
        assert table.version > versions  # it played on
        said = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert any("ended unexpectedly" in line for line in said), said
        second = server.registry.tables[await _hard_table(client, seed=9)]  # a new pool thinks for the next
        await _until(lambda: second.status is Status.FINISHED, 240)
        assert pool.pids()
        assert not set(pool.pids()) & set(killed)
        workers = pool.pids()
    assert all(_gone(pid) for pid in workers + killed)


@pytest.mark.timeout(300)
async def test_with_no_bot_processes_the_hard_bots_think_in_threads_as_before() -> None:
    config = ServerConfig(host="127.0.0.1", port=0, bot_delay=0.0, grace=0.5, limits=TEST_LIMITS, bot_processes=0)
    async with running_server(config) as server, Client(server.address) as client:
        assert server.registry.thinking is None
        table = server.registry.tables[await _hard_table(client)]
        await _until(lambda: table.status is Status.FINISHED, 240)
        assert table.engine.outcome(table.state) is not None


def _children(pid: int) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = Path(f"/proc/{name}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(name))
    return found


@pytest.mark.timeout(300)
def test_no_worker_outlives_a_server_killed_outright(tmp_path: Path) -> None:
    process, address = start_serve("--no-db", "--no-web", "--no-announce", output=tmp_path / "serve.log")
    try:

        async def play() -> None:
            async with Client(address) as client:
                await _hard_table(client)
                await _until(lambda: _children(process.pid), 60)  # the first hard decision made a worker

        asyncio.run(play())
        workers = _children(process.pid)
        os.kill(process.pid, signal.SIGKILL)
        process.wait(30)
        deadline = time.monotonic() + 30
        while not all(_gone(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert all(_gone(pid) for pid in workers), workers
    finally:
        stop_process(process)
