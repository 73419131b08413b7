"""A finished table leaves the table listing a day after it finished (docs/custom-clients.md, "Tables").

ListTables shows every unfinished table and those finished less than 24 hours ago, by the server's wall
clock: here a clock the test moves by hand (tests/timing.py), given to a real server in this process, so
nothing depends on how long the test takes. The finish time is stored, so a restart keeps it; GetTable still
finds a table the listing leaves out; and a database of the schema before finish times were kept counts its
finished tables as finished when it was upgraded.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from timing import Clock, until

from conftest import TEST_LIMITS
from toadstool.api.v1 import service_pb2, table_pb2
from toadstool.server.app import ServerConfig, running_server
from toadstool.server.store import SCHEMA_VERSION
from toadstool.server.tables.registry import LISTED_FINISHED_SECONDS
from toadstool.server.tables.seats import Status
from toadstool_clients.connection import Client

DAY = 24 * 3600


def _config(db: Path, wall: Clock) -> ServerConfig:
    return ServerConfig(
        host="127.0.0.1", port=0, bot_delay=0.0, grace=0.5, limits=TEST_LIMITS, db=str(db), wall_clock=wall
    )


async def _listed(client: Client) -> set[str]:
    return {t.table_id for t in await client.list_tables()}


async def test_a_finished_table_leaves_the_listing_a_day_after_it_finished_and_a_restart_keeps_that(
    tmp_path: Path,
) -> None:
    assert LISTED_FINISHED_SECONDS == DAY
    wall = Clock(now=1_800_000_000.0)
    config = _config(tmp_path / "t.db", wall)
    async with running_server(config) as server, Client(server.address) as client:
        # One finished by its game (bots only, one hand to 1 point), one ended by its host, one waiting.
        played = await client.create_table("uno", players=2, bots=2, options={"target": "1"}, seed=4)
        ended = await client.stub.CreateTable(
            service_pb2.CreateTableRequest(game="uno", players=3, bots=1, manual_start=True), timeout=30
        )
        waiting = await client.create_table("kart", players=3, bots=1)
        await until(lambda: server.registry.tables[played.table.table_id].status is Status.FINISHED, 60)
        finished_at = server.registry.tables[played.table.table_id].finished_at
        assert finished_at == wall.now, "the finish time is the wall clock's"
        wall.now += 3600
        await client.end_table(ended.table.table_id, ended.host_token)
        ids = {played.table.table_id, ended.table.table_id, waiting.table.table_id}
        assert await _listed(client) == ids

        wall.now = finished_at + DAY - 1
        assert await _listed(client) == ids, "a day less a second after: still listed"
        wall.now = finished_at + DAY + 1
        assert await _listed(client) == {ended.table.table_id, waiting.table.table_id}
        gone = await client.get_table(played.table.table_id)
        assert gone.status == table_pb2.TABLE_STATUS_FINISHED, "GetTable still finds it"

    # After a restart the stored finish times hold: nothing is listed again for another day.
    async with running_server(config) as server, Client(server.address) as client:
        assert await _listed(client) == {ended.table.table_id, waiting.table.table_id}
        wall.now = finished_at + 3600 + DAY + 1
        assert await _listed(client) == {waiting.table.table_id}
        assert (await client.get_table(ended.table.table_id)).table_id == ended.table.table_id


async def test_tables_finished_before_finish_times_were_kept_count_as_finished_at_the_upgrade(
    tmp_path: Path,
) -> None:
    db = tmp_path / "old.db"
    wall = Clock(now=time.time())
    async with running_server(_config(db, wall)) as server, Client(server.address) as client:
        made = await client.stub.CreateTable(
            service_pb2.CreateTableRequest(game="uno", players=3, bots=1, manual_start=True), timeout=30
        )
        await client.end_table(made.table.table_id, made.host_token)
    # The file as the schema before this one wrote it: no finish times.
    with sqlite3.connect(db) as old:
        old.execute("ALTER TABLE tables DROP COLUMN finished_at")
        old.execute(f"PRAGMA user_version = {SCHEMA_VERSION - 1}")
    upgraded = time.time()  # the upgrade happens at the next start, after this moment
    async with running_server(_config(db, wall)) as server, Client(server.address) as client:
        stamped = server.registry.tables[made.table.table_id].finished_at
        assert stamped is not None
        assert stamped >= int(upgraded) - 1, "counted as finished when the file was upgraded"
        wall.now = stamped + DAY - 60
        assert await _listed(client) == {made.table.table_id}
        wall.now = stamped + DAY + 60
        assert await _listed(client) == set()
