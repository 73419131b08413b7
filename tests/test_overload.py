"""A server with more to play than the machine can do keeps its streams and its people first: bots give
way while most streams are still sending (found with bench/load.py: 500 tables of bots spent the server
on moves nobody saw, under one view per move, and calls waited 30 s to be taken), and the counts behind
that never leak as streams come and go."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from toadstool.server import RunningServer
from toadstool.tables import BACKLOG_FLOOR, Backlog
from toadstool_clients.connection import Client


def test_a_few_slow_streams_never_count_as_the_server_being_behind() -> None:
    assert not Backlog(open=1, sending=1).behind(), "one slow viewer must never slow a table"
    assert not Backlog(open=BACKLOG_FLOOR, sending=BACKLOG_FLOOR).behind()
    assert not Backlog(open=200, sending=100).behind(), "half the streams sending is not behind"
    assert Backlog(open=200, sending=101).behind()
    assert Backlog(open=BACKLOG_FLOOR + 2, sending=BACKLOG_FLOOR + 1).behind()


async def _until(condition: object, seconds: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while not condition():  # type: ignore[operator]
        assert loop.time() < end, "the condition did not hold in time"
        await asyncio.sleep(0.02)


async def test_bots_wait_while_the_server_is_behind_and_play_on_when_it_catches_up(server: RunningServer) -> None:
    async with Client(server.address) as client:
        created = await client.create_table("uno", 3, bots=3, bot_delay_ms=10)
        table = server.registry.tables[created.table.table_id]
        await _until(lambda: table.version >= 3)  # the bots play
        backlog = server.registry.backlog
        # The state a server is in when gRPC has not finished sending to most of its streams.
        backlog.open += 1000
        for _ in range(1000):
            backlog.start_sending()
        try:
            await asyncio.sleep(0.1)  # a move already past its wait may still land
            held = table.version
            await asyncio.sleep(0.3)  # 30 bot delays: many moves if the bots did not wait
            assert table.version == held, "bots moved while the server was behind"
        finally:
            for _ in range(1000):
                backlog.done_sending()
            backlog.open -= 1000
        await _until(lambda: table.version >= held + 3, seconds=1.5)  # woken, not timed out (2 s)


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
        assert 0 <= backlog.sending <= 3
        for call in calls:
            call.cancel()
        await _until(lambda: (backlog.open, backlog.sending) == (0, 0))
    # A stream refused before it starts counts nothing.
    async with Client(server.address) as client:
        refused = client.watch("no-such-table")
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await asyncio.wait_for(refused.read(), 10)
        assert error.value.code() is grpc.StatusCode.NOT_FOUND
        assert backlog.open == 0
        assert backlog.sending == 0
