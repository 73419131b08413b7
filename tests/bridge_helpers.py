"""Running the MQTT bridge in the test's own event loop, against a test server and broker."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from mqtt_helpers import Broker

from toadstool.v1 import table_pb2
from toadstool_clients.bridge.app import Bridge
from toadstool_clients.bridge.config import config_from_args
from toadstool_clients.connection import Client


def bridge_args(server: str, broker: Broker, *more: str) -> list[str]:
    """Command-line arguments for a quick bridge: fast polling, short linger, small per-topic interval."""
    return [
        "--server", server, "--broker", broker.address, "--poll", "0.2", "--linger", "1",
        "--min-interval", "0.05", "--max-backoff", "1", *more,
    ]  # fmt: skip


@contextlib.asynccontextmanager
async def running_bridge(*argv: str) -> AsyncIterator[Bridge]:
    """A bridge running in this loop until the block ends (then stopped cleanly, bounded in time)."""
    config, _ = config_from_args(argv)
    bridge = Bridge(config)
    stop = asyncio.Event()
    task = asyncio.create_task(bridge.run(stop), name="bridge")
    try:
        await asyncio.wait_for(bridge.link.connected.wait(), 10)
        yield bridge
    finally:
        stop.set()
        async with asyncio.timeout(10):
            await task


@dataclass
class WaitingTable:
    """A Kart table whose human seat 0 (Ann) must roll: the game waits there until someone rolls."""

    table_id: str
    host_token: str
    seat_token: str


async def kart_waiting_for_ann(client: Client, seed: int = 3) -> WaitingTable:
    created = await client.create_table(
        "kart", 2, bots=1, options={"track": "mini-loop"}, seed=seed, bot_delay_ms=0, name="Kart night"
    )
    table_id = created.table.table_id
    joined = await client.join(table_id, "Ann", 0)
    await wait_until_waiting(client, table_id)
    return WaitingTable(table_id, created.host_token, joined.seat_token)


async def wait_until_waiting(client: Client, table_id: str, seconds: float = 10.0) -> table_pb2.Update:
    """The first spectator update where the game waits for seat 0 alone."""

    async def first() -> table_pb2.Update:
        call = client.watch(table_id)
        try:
            async for response in call:
                if list(response.update.to_act) == [0]:
                    return response.update
        finally:
            call.cancel()
        raise AssertionError("the stream ended")

    return await asyncio.wait_for(first(), seconds)
