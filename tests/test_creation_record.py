"""A table stores what its game was created from (docs/design.md §4.5): a Kart table keeps its track's
content, so editing or deleting the track file later changes nothing of an existing table (its views, its
history, its restore after a restart), while a new table races on the file as it is now. Real server
processes on loopback, a real SQLite file, real user track files."""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest

from conftest import TEST_LIMIT_FLAGS, start_serve, stop_process
from e2e_helpers import first_update
from toadstool.api.v1 import table_pb2
from toadstool.engine import creation_record, parse_options
from toadstool.games import GAMES
from toadstool.games.kart.tracks import BUILTIN_DIR, load_track, parse_track, track_content
from toadstool.server.store import SCHEMA_VERSION
from toadstool_clients.connection import Client

TRACK = "ring-road"

RING_ROAD = """\
# A short user track: 24 fields, with one shortcut.
title = "Ring Road"
length = 24

[fields]
item = [3, 7, 11, 15, 19]
booster = [5, 13]
mushroom = [9]
thwomp = [17, 21]

[shortcuts]
A = { from = 1, to = 6 }
"""

#: The same file after its author rebuilt it: another title and length, other fields, no shortcut.
RING_ROAD_REBUILT = """\
title = "Ring Road (rebuilt)"
length = 30

[fields]
thwomp = [2, 4, 6, 8]
booster = [10]
item = [1, 3]
"""


class TrackServer:
    """`toadstool serve` with a --db file and a user tracks folder, which can be stopped and started again
    (each start binds a free port of its own: the tests reach it through `address`)."""

    def __init__(self, tmp_path: Path) -> None:
        self.db = tmp_path / "state" / "toadstool.db"
        self.tracks = tmp_path / "config" / "toadstool" / "tracks"
        self.tracks.mkdir(parents=True)
        self.env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "TOADSTOOL_TRACKS": str(self.tracks)}
        self.log = tmp_path / "serve.log"
        self._printed = 0  # where the current start's output begins in the log
        self.address = ""
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def track_file(self) -> Path:
        return self.tracks / f"{TRACK}.toml"

    def start(self) -> None:
        flags = ("--db", str(self.db), "--no-announce", *TEST_LIMIT_FLAGS)
        self._printed = self.log.stat().st_size if self.log.exists() else 0
        self.process, self.address = start_serve(*flags, output=self.log, env=self.env)

    def stop(self) -> str:
        """Stop the server (SIGTERM, as a person would); returns what it printed."""
        if self.process is None or self.process.poll() is not None:
            return ""
        stop_process(self.process)
        return self.log.read_bytes()[self._printed :].decode(errors="replace")

    def restart(self) -> str:
        output = self.stop()
        self.start()
        return output


@pytest.fixture
def served(tmp_path: Path) -> Iterator[TrackServer]:
    server = TrackServer(tmp_path)
    server.track_file.write_text(RING_ROAD)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@dataclass
class Race:
    table_id: str
    tokens: list[str]


@dataclass
class Seen:
    """Everything each viewer (both seats and a spectator) is shown of a table."""

    version: int
    options: dict[str, str]
    views: list[table_pb2.Update]
    histories: list[list[table_pb2.HistoryStep]]


async def _race(address: str, moves: int, seed: int = 5) -> Race:
    """A two-person Kart race on the user track, `moves` actions into it (chosen by a seeded draw)."""
    rng = random.Random(seed)
    async with Client(address) as client:
        created = await client.create_table("kart", 2, options={"track": TRACK}, seed=seed)
        assert dict(created.table.options) == {"track": TRACK}
        table_id = created.table.table_id
        tokens = [(await client.join(table_id, name)).seat_token for name in ("Ann", "Bob")]
        for _ in range(moves):
            update = await first_update(client, table_id, None)
            assert update.status == table_pb2.TABLE_STATUS_PLAYING, "the race ended before the moves were made"
            seat = update.to_act[0]
            mine = await first_update(client, table_id, tokens[seat])
            choice = rng.choice(mine.legal_actions)
            await client.act(table_id, tokens[seat], mine.version, choice.id)
    return Race(table_id, tokens)


async def _seen(address: str, race: Race) -> Seen:
    async with Client(address) as client:
        await client.wait_ready()
        info = await client.get_table(race.table_id)
        viewers: list[str | None] = [*race.tokens, None]
        views = [await first_update(client, race.table_id, token) for token in viewers]
        histories = [await client.history(race.table_id, token) for token in viewers]
    for view in views:  # who is connected right now, recent events and clocks are not the game
        for seat in view.seats:
            seat.connected = False
        del view.events[:]
        view.ClearField("turn_deadline_unix_ms")
    return Seen(info.version, dict(info.options), views, histories)


async def _is_served(address: str, table_id: str) -> bool:
    async with Client(address) as client:
        await client.wait_ready()
        try:
            await client.get_table(table_id)
        except grpc.aio.AioRpcError as error:
            if error.code() == grpc.StatusCode.NOT_FOUND:
                return False
            raise
    return True


async def test_editing_a_track_file_changes_no_existing_table_and_the_next_table_races_on_the_edit(
    served: TrackServer,
) -> None:
    race = await _race(served.address, moves=12)
    before = await _seen(served.address, race)
    assert before.version == 12
    assert before.views[-1].view.kart.track.title == "Ring Road"

    served.track_file.write_text(RING_ROAD_REBUILT)
    assert await _seen(served.address, race) == before, "editing the track file changed a table in play"

    async with Client(served.address) as client:
        created = await client.create_table("kart", 2, bots=2, options={"track": TRACK}, seed=9, manual_start=True)
        after_edit = created.table.table_id
        await client.start(after_edit, created.host_token)
        track = (await first_update(client, after_edit, None)).view.kart.track
    assert (track.title, track.length, len(track.shortcuts)) == ("Ring Road (rebuilt)", 30, 0)

    output = served.restart()
    assert await _is_served(served.address, race.table_id), f"the table was not restored:\n{output}"
    restored = await _seen(served.address, race)
    assert restored.version == before.version
    assert restored == before, "the table restored after editing its track file is not the table that was played"
    async with Client(served.address) as client:
        track = (await first_update(client, after_edit, None)).view.kart.track
    assert (track.title, track.length) == ("Ring Road (rebuilt)", 30)


async def test_deleting_a_track_file_changes_no_existing_table(served: TrackServer) -> None:
    race = await _race(served.address, moves=10)
    before = await _seen(served.address, race)

    served.track_file.unlink()
    assert await _seen(served.address, race) == before, "deleting the track file changed a table in play"

    output = served.restart()
    assert await _is_served(served.address, race.table_id), f"the table was not restored:\n{output}"
    assert await _seen(served.address, race) == before
    # Once more, with the track file neither there nor ever read again.
    output = served.restart()
    assert await _is_served(served.address, race.table_id), f"the table was not restored:\n{output}"
    assert await _seen(served.address, race) == before
    async with Client(served.address) as client:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await client.create_table("kart", 2, options={"track": TRACK})
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_what_clients_are_shown_of_a_table_are_the_options_a_person_gave(served: TrackServer) -> None:
    race = await _race(served.address, moves=2)
    async with Client(served.address) as client:
        shown = [await client.get_table(race.table_id), *await client.list_tables()]
    for info in shown:
        assert dict(info.options) == {"track": TRACK}
        assert b"track_content" not in info.SerializeToString()
    # ... while the database holds the track itself, beside those options.
    with sqlite3.connect(served.db) as db:
        row = db.execute("SELECT options, record FROM tables WHERE table_id = ?", (race.table_id,)).fetchone()
    options, record = row
    assert json.loads(options) == {"track": TRACK}
    assert parse_track(TRACK, json.loads(record)["track_content"]) == load_track(served.track_file)


def _as_stored_before_records(db_path: Path) -> None:
    """Turn the database into one written before creation records were kept (schema version 1)."""
    with sqlite3.connect(db_path) as db:
        columns = [row[1] for row in db.execute("PRAGMA table_info(tables)")]
        if "record" in columns:
            db.execute("ALTER TABLE tables DROP COLUMN record")
        db.execute("PRAGMA user_version = 1")


async def test_a_table_stored_before_creation_records_resolves_its_track_once_at_restore(
    served: TrackServer,
) -> None:
    race = await _race(served.address, moves=8)
    before = await _seen(served.address, race)
    served.stop()
    _as_stored_before_records(served.db)

    served.start()  # the database is migrated; the table resolves its track by name, this once
    assert await _is_served(served.address, race.table_id), "a table stored before records were kept is lost"
    assert await _seen(served.address, race) == before

    served.track_file.write_text(RING_ROAD_REBUILT)
    output = served.restart()
    assert await _is_served(served.address, race.table_id), f"the table was not restored:\n{output}"
    assert await _seen(served.address, race) == before, "the old table read its track file again"
    served.stop()
    with sqlite3.connect(served.db) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        (record,) = db.execute("SELECT record FROM tables WHERE table_id = ?", (race.table_id,)).fetchone()
    assert json.loads(record)["track_content"]["title"] == "Ring Road", "the record was made from the edit"


@pytest.mark.parametrize("path", [*sorted(BUILTIN_DIR.glob("*.toml")), None], ids=lambda p: p.stem if p else TRACK)
def test_a_tracks_stored_content_is_the_same_track_as_its_file(path: Path | None, tmp_path: Path) -> None:
    if path is None:
        path = tmp_path / f"{TRACK}.toml"
        path.write_text(RING_ROAD)
    track = load_track(path)
    assert parse_track(track.name, json.loads(json.dumps(track_content(track)))) == track


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_games_creation_record_starts_the_same_game_as_its_options(game: str) -> None:
    engine = GAMES[game].engine
    options = parse_options(engine.options, engine.quick_options)
    record = creation_record(engine, options)
    assert json.loads(json.dumps(record)) == record, "a creation record is stored as JSON"
    players = engine.min_players
    for seed in (1, 2):
        fresh, stored = engine.new(players, options, seed), engine.new(players, record, seed)
        assert [engine.view(stored, v) for v in (*range(players), None)] == [
            engine.view(fresh, v) for v in (*range(players), None)
        ]
