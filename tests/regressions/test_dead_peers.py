"""Regression: no HTTP/2 keepalive on either side, so a peer that vanishes without closing its TCP connection
(Wi-Fi drops, laptop lid shut, server host frozen) is never noticed: the server keeps the seat
"connected" (takeover never happens, the table waits for ever) and the client's follow() never reports
the connection lost (the terminal shows a stale screen with no banner). Bounded at 40 s each."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from toadstool.server.app import RunningServer
from toadstool_clients.connection import Client, StreamState


class BlackholeProxy:
    """A loopback TCP proxy that can silently stop delivering bytes both ways (keeping sockets open)."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.frozen = False
        self.port = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: list[asyncio.StreamWriter] = []

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.CancelledError):
            while data := await reader.read(65536):
                if not self.frozen:
                    writer.write(data)
                    await writer.drain()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        self._writers += [writer, up_writer]
        for a, b in ((reader, up_writer), (up_reader, writer)):
            task = asyncio.create_task(self._pump(a, b))
            self._tasks.add(task)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[BlackholeProxy]:
        server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        try:
            yield self
        finally:
            server.close()
            for task in self._tasks:
                task.cancel()
            for writer in self._writers:
                writer.close()


async def test_the_server_notices_a_player_whose_connection_silently_died(server: RunningServer) -> None:
    async with BlackholeProxy(server.port).running() as proxy, Client(server.address) as client:
        created = await client.create_table("uno", 2, bots=1, seed=51, takeover_seconds=1, bot_delay_ms=5)
        table_id = created.table.table_id
        ann = await client.join(table_id, "Ann")
        async with Client(f"127.0.0.1:{proxy.port}") as lan_client:
            call = lan_client.watch(table_id, ann.seat_token)
            await asyncio.wait_for(call.read(), 10)
            table = server.registry.tables[table_id]
            assert table.seats[ann.seat].connections == 1
            proxy.frozen = True  # Ann's Wi-Fi is gone; no FIN, no RST
            for _ in range(400):
                if table.seats[ann.seat].bot_controlled:
                    break
                await asyncio.sleep(0.1)
            call.cancel()
    assert table.seats[ann.seat].bot_controlled, "40 s after Ann vanished her seat still counts as connected"


async def test_a_follower_notices_a_server_that_silently_went_away(server: RunningServer) -> None:
    async with BlackholeProxy(server.port).running() as proxy, Client(server.address) as client:
        created = await client.create_table("uno", 2, seed=52, manual_start=True)
        table_id = created.table.table_id
        async with Client(f"127.0.0.1:{proxy.port}") as lan_client:
            stream = lan_client.follow(table_id)
            first = await asyncio.wait_for(anext(stream), 10)
            assert not isinstance(first, StreamState)
            proxy.frozen = True
            try:
                item = await asyncio.wait_for(anext(stream), 40)
            except TimeoutError:
                item = None
            await stream.aclose()
    assert isinstance(item, StreamState), "follow() sat 40 s on a dead connection, silent"
    assert not item.connected
