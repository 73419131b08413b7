"""A server with more to play than the machine can do keeps its streams and its people first: bots give
way while most streams are still sending (found with bench/load.py: 500 tables of bots spent the server
on moves nobody saw, under one view per move, and calls waited 30 s to be taken), and the counts behind
that never leak as streams come and go."""

from __future__ import annotations

import asyncio
import time

import grpc
import pytest
from timing import Clock, until

from toadstool.server.app import RunningServer
from toadstool.server.tables import BACKLOG_FLOOR, STUCK_AFTER, Backlog, Beat, pacing
from toadstool_clients.connection import Client


def backlog_with(open_streams: int, sending: int, clock: Clock) -> tuple[Backlog, list[int]]:
    backlog = Backlog(open=open_streams, clock=clock)
    return backlog, [backlog.start_sending() for _ in range(sending)]


def bots_held(beat: Beat) -> bool:
    """A bot waits on a beat held for the backlog: its table cannot move until the beat is let go."""
    return any(len(sounding.sleepers) for sounding in beat._held)


@pytest.fixture
def no_bot_wait_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Held beats are let go only when the server catches up, never by the per-move limit (an hour here), so
    what a test sees cannot depend on how fast a loaded machine runs."""
    monkeypatch.setattr(pacing, "MAX_BOT_WAIT", 3600.0)


def test_a_few_slow_streams_never_count_as_the_server_being_behind() -> None:
    clock = Clock()
    assert not backlog_with(1, 1, clock)[0].behind(), "one slow viewer must never slow a table"
    assert not backlog_with(BACKLOG_FLOOR, BACKLOG_FLOOR, clock)[0].behind()
    assert not backlog_with(200, 100, clock)[0].behind(), "half the streams sending is not behind"
    assert backlog_with(200, 101, clock)[0].behind()
    assert backlog_with(BACKLOG_FLOOR + 2, BACKLOG_FLOOR + 1, clock)[0].behind()


def test_sends_that_never_finish_are_a_stalled_client_not_a_busy_server() -> None:
    # A bridge whose broker hangs stops reading its 300 streams: gRPC never takes their updates.
    clock = Clock()
    backlog, stalled = backlog_with(400, 300, clock)
    assert backlog.behind()
    clock.now += 2 * STUCK_AFTER + 0.01
    assert not backlog.behind(), "a stalled client held up every table's bots"
    busy = [backlog.start_sending() for _ in range(201)]  # while the others are really busy, it is behind
    assert backlog.behind()
    for period in busy + stalled:
        backlog.done_sending(period)
    assert backlog.sending() == 0


@pytest.mark.usefixtures("no_bot_wait_limit")
async def test_bots_wait_while_the_server_is_behind_and_play_on_when_it_catches_up(server: RunningServer) -> None:
    async with Client(server.address) as client:
        created = await client.create_table("uno", 3, bots=3, bot_delay_ms=10)
        table = server.registry.tables[created.table.table_id]
        await until(lambda: table.version >= 3)  # the bots play
        backlog = server.registry.backlog
        # Held still: on the real clock these sends would count as a stalled client's, not a busy server's,
        # one to two seconds on, and a loaded machine may take that long to get to the assertion below.
        real_clock, backlog.clock = backlog.clock, Clock()
        # The state a server is in when gRPC has not finished sending to most of its streams.
        backlog.open += 1000
        periods = [backlog.start_sending() for _ in range(1000)]
        try:
            await until(lambda: bots_held(server.registry.beat))  # a move already past its wait may still land
            held = table.version
            await asyncio.sleep(0.3)  # 30 bot delays: many moves if the bots did not wait
            assert table.version == held, "bots moved while the server was behind"
        finally:
            for period in periods:
                backlog.done_sending(period)
            backlog.open -= 1000
            backlog.clock = real_clock
        await until(lambda: table.version >= held + 3)  # woken by the server catching up: the limit is an hour


async def test_the_stream_counts_follow_streams_that_open_read_and_close(server: RunningServer) -> None:
    backlog = server.registry.backlog
    async with Client(server.address) as client:
        created = await client.create_table("uno", 2, bots=2, bot_delay_ms=5)
        table_id = created.table.table_id
        calls = [client.watch(table_id) for _ in range(3)]
        for call in calls:
            await asyncio.wait_for(call.read(), 10)
        assert backlog.open == 3
        for _ in range(5):  # and the counts stay right while the bots play and updates flow
            for call in calls:
                await asyncio.wait_for(call.read(), 10)
        assert 0 <= backlog.sending() <= 3
        for call in calls:
            call.cancel()
        await until(lambda: (backlog.open, backlog.sending()) == (0, 0))
    # A stream refused before it starts counts nothing.
    async with Client(server.address) as client:
        refused = client.watch("no-such-table")
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await asyncio.wait_for(refused.read(), 10)
        assert error.value.code() is grpc.StatusCode.NOT_FOUND
        assert backlog.open == 0
        assert backlog.sending() == 0


@pytest.mark.usefixtures("no_bot_wait_limit")
async def test_bots_play_on_as_soon_as_stalled_sends_stop_counting(server: RunningServer) -> None:
    async with Client(server.address) as client:
        created = await client.create_table("uno", 3, bots=3, bot_delay_ms=10)
        table = server.registry.tables[created.table.table_id]
        await until(lambda: table.version >= 3)
        backlog = server.registry.backlog
        clock = Clock()
        backlog.clock = clock
        try:
            backlog.open += 1000
            stalled = [backlog.start_sending() for _ in range(1000)]  # a client that stopped reading
            await until(lambda: bots_held(server.registry.beat))  # a move already past its wait may still land
            held = table.version
            await asyncio.sleep(0.2)
            assert table.version == held, "bots moved while the server looked behind"
            clock.now += 2 * STUCK_AFTER + 0.01  # those sends are now a stalled client's, not a busy server's
            # Without looking again in slices, the bots would wait for sends that never finish (the limit is
            # an hour here).
            await until(lambda: table.version >= held + 3)
        finally:
            for period in stalled:
                backlog.done_sending(period)
            backlog.open -= 1000
            backlog.clock = time.monotonic
