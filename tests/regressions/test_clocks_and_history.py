"""Regression: takeover of a seat whose person never connected; GetHistory is lazy and limited."""

from __future__ import annotations

import asyncio
import inspect

import grpc
import pytest

from toadstool.api.v1 import service_pb2
from toadstool.bots import RandomBot
from toadstool.selfplay import play
from toadstool.server import messages
from toadstool.server.app import RunningServer, ServerConfig, running_server
from toadstool.server.limits import Limits
from toadstool_clients.connection import Client


async def test_a_seat_whose_person_never_opened_a_stream_is_taken_over(server: RunningServer) -> None:
    """`takeover_seconds`: "Seconds a disconnected person's seat waits before a bot plays it". Someone who
    joined and never watched (crashed client, closed laptop) is disconnected too; today the table waits for
    them for ever (after a restart the same seat *would* be taken over: load() sets away_since)."""
    async with Client(server.address) as client:
        created = await client.create_table("uno", 2, bots=1, seed=41, takeover_seconds=1, bot_delay_ms=5)
        table_id = created.table.table_id
        await client.join(table_id, "Ann")  # and never watches
        table = server.registry.tables[table_id]
        for _ in range(60):
            if table.seats[0].bot_controlled:
                break
            await asyncio.sleep(0.05)
    assert table.seats[0].bot_controlled, f"the game waits at version {table.version} for a person who never came"


async def test_get_history_is_streamed_step_by_step_and_counts_as_an_open_stream() -> None:
    """A history replay is produced lazily, one step per message (so a long game never holds the event loop
    for its whole replay), and each one counts against the per-client stream limit like a Watch."""
    limits = Limits(max_streams_per_client=1, actions_per_second=100_000, action_burst=100_000)
    config = ServerConfig(host="127.0.0.1", port=0, bot_delay=0.0, grace=0.5, limits=limits)
    async with running_server(config) as server, Client(server.address) as client:
        created = await client.create_table("uno", 4, seed=2, manual_start=True)
        table_id, host = created.table.table_id, created.host_token
        for seat in range(4):
            await client.add_bot(table_id, host, seat)
        table = server.registry.tables[table_id]
        table.bot_delay = 3600.0  # the log below is played instead (same engine, same legality ladder)
        await client.start(table_id, host)
        for seat, action in play(table.engine, [RandomBot() for _ in range(4)], 2).log:
            if table.status.name != "PLAYING":
                break
            table.apply_now(seat, action)
        assert inspect.isgenerator(messages.history_for(table, None))
        first = client.stub.GetHistory(service_pb2.GetHistoryRequest(table_id=table_id))
        assert (await first.read()).step.version == 0
        second = client.stub.GetHistory(service_pb2.GetHistoryRequest(table_id=table_id))
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await second.read()
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        first.cancel()
