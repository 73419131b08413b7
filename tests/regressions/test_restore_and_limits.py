"""Regression: start-up, request validation and the global table limit."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest

from conftest import TEST_LIMITS
from toadstool.server.app import ServerConfig, running_server
from toadstool.server.limits import Limits
from toadstool.server.store import Store, StoredSeat, StoredTable
from toadstool_clients.connection import Client


async def test_a_table_whose_options_no_longer_parse_does_not_stop_the_server_starting(tmp_path: Path) -> None:
    """Kart's track choices are the tracks found at start-up; a removed user track must cost one table
    (tables.load: "it stays in the file but is not served"), not the whole server."""
    db = tmp_path / "t.db"
    config = ServerConfig(host="127.0.0.1", port=0, bot_delay=60.0, grace=0.5, limits=TEST_LIMITS, db=str(db))
    async with running_server(config) as running, Client(running.address) as client:
        kept = (await client.create_table("uno", 2, seed=1)).table.table_id
    store = Store(db)
    store.add_table(
        StoredTable(
            table_id="gone22",
            game="kart",
            players=2,
            options={"track": "my-deleted-user-track"},
            seed=1,
            name="old race",
            manual_start=False,
            bot_delay=0.1,
            turn_seconds=0.0,
            takeover_seconds=0.0,
            host_token_hash=b"\0" * 32,
            device_token_hash=None,
            started=True,
        ),
        [StoredSeat(0, "Bot 1", 2, None), StoredSeat(1, "Bot 2", 2, None)],
    )
    store.close()
    async with running_server(config) as running, Client(running.address) as client:
        tables = [t.table_id for t in await client.list_tables()]
    assert kept in tables


async def test_a_seed_above_the_signed_64_bit_range_is_refused_as_a_bad_argument(tmp_path: Path) -> None:
    config = ServerConfig(host="127.0.0.1", port=0, grace=0.5, limits=TEST_LIMITS, db=str(tmp_path / "t.db"))
    async with running_server(config) as running, Client(running.address) as client:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await client.create_table("uno", 2, seed=2**64 - 1)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT, caught.value.details()


async def test_finished_tables_do_not_use_up_the_servers_table_limit_for_ever() -> None:
    limits = Limits(max_tables=2, actions_per_second=100_000, action_burst=100_000)
    config = ServerConfig(host="127.0.0.1", port=0, bot_delay=0.0, grace=0.5, limits=limits)
    async with running_server(config) as running, Client(running.address) as client:
        for seed in (1, 2):
            table_id = (
                await client.create_table("uno", 2, bots=2, seed=seed, bot_delay_ms=0, options={"target": "1"})
            ).table.table_id
            table = running.registry.tables[table_id]
            for _ in range(400):
                if table.status.name == "FINISHED":
                    break
                await asyncio.sleep(0.02)
            assert table.status.name == "FINISHED"
        # Both tables are over; nothing can remove them (no RPC deletes a table), and with a --db they
        # come back after every restart: the server refuses new tables for good.
        created = await client.create_table("uno", 2, seed=3)
        assert created.table.table_id
