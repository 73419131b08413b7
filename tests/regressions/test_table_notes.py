"""Regression: table-level notes ("left the table", "is away", "is back", "the host removed") are recorded at
the current version, so a live stream (which sends only events newer than the version it last sent) never
delivers them; and they are not in the store, so history changes after a restart."""

from __future__ import annotations

import asyncio
from pathlib import Path

from conftest import TEST_LIMITS
from toadstool.api.v1 import table_pb2
from toadstool.server.app import RunningServer, ServerConfig, running_server
from toadstool_clients.connection import Client


async def _texts_seen(call, seconds: float) -> list[str]:  # type: ignore[no-untyped-def]
    texts: list[str] = []
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    try:
        while (left := end - loop.time()) > 0:
            update: table_pb2.Update = (await asyncio.wait_for(call.read(), left)).update
            texts.extend(e.text for e in update.events)
    except TimeoutError:
        pass
    return texts


async def test_a_live_spectator_is_told_that_a_player_left(server: RunningServer) -> None:
    async with Client(server.address) as client:
        created = await client.create_table("uno", 2, seed=21, bot_delay_ms=60_000)
        table_id = created.table.table_id
        ann = await client.join(table_id, "Ann", 0)
        await client.join(table_id, "Bob", 1)
        spectator = client.watch(table_id)
        await asyncio.wait_for(spectator.read(), 10)
        await client.leave(table_id, ann.seat_token)
        texts = await _texts_seen(spectator, 1.0)
        spectator.cancel()
    recorded = [e.text for _, e in server.registry.tables[table_id].events]
    assert any("left the table" in t for t in recorded)
    assert any("left the table" in t for t in texts), f"the watcher got only {texts}"


async def test_a_live_player_is_told_that_an_absent_seat_was_taken_over(server: RunningServer) -> None:
    async with Client(server.address) as client:
        created = await client.create_table("uno", 2, seed=22, takeover_seconds=1, bot_delay_ms=60_000)
        table_id = created.table.table_id
        ann = await client.join(table_id, "Ann", 0)
        bob = await client.join(table_id, "Bob", 1)
        bob_stream = client.watch(table_id, bob.seat_token)
        ann_stream = client.watch(table_id, ann.seat_token)
        await asyncio.wait_for(bob_stream.read(), 10)
        await asyncio.wait_for(ann_stream.read(), 10)
        ann_stream.cancel()
        texts = await _texts_seen(bob_stream, 2.5)
        bob_stream.cancel()
    assert server.registry.tables[table_id].seats[0].bot_controlled
    assert any("is away" in t for t in texts), f"Bob saw seat 0 turn into a bot but no event says so: {texts}"


async def test_history_keeps_table_notes_across_a_restart(tmp_path: Path) -> None:
    config = ServerConfig(
        host="127.0.0.1", port=0, bot_delay=60.0, grace=0.5, limits=TEST_LIMITS, db=str(tmp_path / "t.db")
    )
    async with running_server(config) as running, Client(running.address) as client:
        created = await client.create_table("uno", 2, seed=23, bot_delay_ms=60_000)
        table_id = created.table.table_id
        ann = await client.join(table_id, "Ann", 0)
        await client.join(table_id, "Bob", 1)
        await client.leave(table_id, ann.seat_token)
        before = [e.text for step in await client.history(table_id) for e in step.events]
    async with running_server(config) as running, Client(running.address) as client:
        after = [e.text for step in await client.history(table_id) for e in step.events]
    assert any("left the table" in t for t in before)
    assert after == before, f"lost on restart: {[t for t in before if t not in after]}"


async def test_a_note_made_in_the_lobby_reaches_those_watching_it(server: RunningServer) -> None:
    async with Client(server.address) as client:
        created = await client.create_table("uno", 3, seed=23, manual_start=True)
        table_id, host = created.table.table_id, created.host_token
        await client.join(table_id, "Ann", 0)
        await client.join(table_id, "Bob", 1)
        watching = client.watch(table_id)
        await asyncio.wait_for(watching.read(), 10)
        await client.kick(table_id, host, 1)
        texts = await _texts_seen(watching, 1.0)
        watching.cancel()
    assert any("removed Bob" in text for text in texts), texts
