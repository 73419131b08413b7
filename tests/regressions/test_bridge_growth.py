"""Regression: per-table state of a long-running bridge must not grow for ever."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from mqtt_helpers import Broker, bridge_args, broker_fixture, running_bridge  # noqa: F401
from toadstool.api.v1 import table_pb2
from toadstool.server.app import RunningServer
from toadstool_clients.connection import Client


async def _finished_bot_table(client: Client) -> str:
    created = await client.create_table("kart", 2, bots=2, options={"track": "mini-loop"}, bot_delay_ms=0)
    return created.table.table_id


async def _wait_finished(client: Client, ids: list[str], seconds: float = 60.0) -> None:
    async with asyncio.timeout(seconds):
        while True:
            listed = {t.table_id: t.status for t in await client.list_tables()}
            if all(listed.get(i, table_pb2.TABLE_STATUS_FINISHED) == table_pb2.TABLE_STATUS_FINISHED for i in ids):
                return
            await asyncio.sleep(0.1)


@pytest.mark.timeout(170)
async def test_a_table_the_server_forgot_is_forgotten_by_the_bridge_too(
    server: RunningServer, client: Client, broker: Broker
) -> None:
    """The server keeps only the latest 200 finished tables (tables.KEEP_FINISHED); the bridge's `done` set
    keeps the id of every table it ever saw finish or vanish, so a bridge running for months grows without
    bound. Once a table is neither listed nor followed, nothing about it should remain in the bridge."""
    async with running_bridge(*bridge_args(server.address, broker)) as bridge:
        first = await _finished_bot_table(client)
        await _wait_finished(client, [first])
        async with asyncio.timeout(20):
            while first not in bridge.done or first in bridge.mirrors:
                await asyncio.sleep(0.1)
        made: list[str] = []
        while True:
            listed = {t.table_id for t in await client.list_tables()}
            if first not in listed:
                break
            batch = [await _finished_bot_table(client) for _ in range(40)]
            await _wait_finished(client, batch)
            made += batch
        # A listing (every 0.2 s) after the server forgot the table: bounded, as the loop is busy clearing the
        # other tables' topics meanwhile.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(20):
                while first in bridge.done:
                    await asyncio.sleep(0.1)
        assert first not in bridge.done, f"{len(bridge.done)} table ids kept, the forgotten {first!r} among them"
