"""The durable log: every table's setup, seats and accepted actions in SQLite, so a killed server comes
back with every table at the same version.

A table is its creation record plus its action list (state is a value derived from seed + actions,
DESIGN.md principle 2), so the store keeps exactly that and rebuilds state by replaying. It is not for
views or anything derived. Seat and host tokens are stored only as SHA-256 hashes.

Writes are synchronous and committed before the caller acknowledges anything: an action the client saw
accepted is on disk. WAL mode with synchronous=NORMAL survives a killed process; `sync="full"` also
survives a power cut, at the price of an fsync per action.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Marks a database file as Toadstool's (PRAGMA application_id), so a foreign file is never touched.
APPLICATION_ID = 0x54_4F_41_44  # "TOAD"
SCHEMA_VERSION = 2

#: How a database of an older schema version becomes the next one (run in order, in one transaction).
#: 1 -> 2: tables keep their game's creation record (NULL for the tables stored before: they make theirs
#: when they are next restored).
MIGRATIONS: dict[int, str] = {1: "ALTER TABLE tables ADD COLUMN record TEXT;"}

SCHEMA = """
CREATE TABLE tables (
    table_id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    players INTEGER NOT NULL,
    options TEXT NOT NULL,
    seed INTEGER NOT NULL,
    name TEXT NOT NULL,
    manual_start INTEGER NOT NULL,
    bot_delay REAL NOT NULL,
    turn_seconds REAL NOT NULL,
    takeover_seconds REAL NOT NULL,
    host_token_hash BLOB NOT NULL,
    device_token_hash BLOB,
    started INTEGER NOT NULL DEFAULT 0,
    record TEXT
);
CREATE TABLE seats (
    table_id TEXT NOT NULL REFERENCES tables(table_id) ON DELETE CASCADE,
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    kind INTEGER NOT NULL,
    token_hash BLOB,
    PRIMARY KEY (table_id, seat)
);
CREATE TABLE notes (
    table_id TEXT NOT NULL REFERENCES tables(table_id) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    text TEXT NOT NULL
);
CREATE TABLE actions (
    table_id TEXT NOT NULL REFERENCES tables(table_id) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    action_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    note TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (table_id, version)
);
"""


_INSERT_ACTION = "INSERT INTO actions (table_id, version, seat, action_id, request_id, note) VALUES (?, ?, ?, ?, ?, ?)"


class StoreError(Exception):
    """The database cannot be used; the message says which file and why. Nothing was written to it."""


@dataclass(frozen=True)
class StoredTable:
    table_id: str
    game: str
    players: int
    options: dict[str, str]
    seed: int
    name: str
    manual_start: bool
    bot_delay: float
    turn_seconds: float
    takeover_seconds: float
    host_token_hash: bytes
    device_token_hash: bytes | None
    started: bool
    #: The game's creation record (`toadstool.engine.creation_record`), JSON data; None for a table stored
    #: before records were kept.
    record: dict[str, Any] | None = None


@dataclass(frozen=True)
class StoredSeat:
    seat: int
    name: str
    kind: int
    token_hash: bytes | None


@dataclass(frozen=True)
class StoredAction:
    version: int
    seat: int
    action_id: str
    request_id: str
    note: str


class Store:
    """One SQLite file (or ":memory:") holding every table of one server."""

    def __init__(self, path: str | Path, sync: str = "normal") -> None:
        self.path = str(path)
        if self.path != ":memory:":
            _check_file(Path(self.path))
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA foreign_keys = ON")
            self._open(sync)
        except sqlite3.DatabaseError as error:
            raise StoreError(
                f"{self.path} is not a usable Toadstool database ({error}); it was left as it is"
            ) from None

    def _open(self, sync: str) -> None:
        application_id = self.db.execute("PRAGMA application_id").fetchone()[0]
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        objects = self.db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if application_id == 0 and objects == 0:
            self.db.executescript(
                f"BEGIN IMMEDIATE; PRAGMA application_id = {APPLICATION_ID}; "
                f"PRAGMA user_version = {SCHEMA_VERSION}; {SCHEMA} COMMIT;"
            )
        elif application_id != APPLICATION_ID:
            raise StoreError(
                f"{self.path} is an SQLite database of another program; choose another file with --db "
                "(it was left as it is)"
            )
        elif version in MIGRATIONS:
            steps = " ".join(MIGRATIONS[v] for v in range(version, SCHEMA_VERSION))
            self.db.executescript(f"BEGIN IMMEDIATE; {steps} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;")
        elif version != SCHEMA_VERSION:
            raise StoreError(f"{self.path} has schema version {version}; this Toadstool reads {SCHEMA_VERSION}")
        if self.path != ":memory:":
            self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute(f"PRAGMA synchronous = {'FULL' if sync == 'full' else 'NORMAL'}")

    def close(self) -> None:
        self.db.close()

    def _transaction(self) -> Any:
        return _Transaction(self.db)

    # -- writes -------------------------------------------------------------------------------------------

    def add_table(self, table: StoredTable, seats: list[StoredSeat]) -> None:
        with self._transaction():
            self.db.execute(
                "INSERT INTO tables (table_id, game, players, options, seed, name, manual_start, bot_delay,"
                " turn_seconds, takeover_seconds, host_token_hash, device_token_hash, started, record)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    table.table_id,
                    table.game,
                    table.players,
                    json.dumps(table.options, sort_keys=True),
                    table.seed,
                    table.name,
                    int(table.manual_start),
                    table.bot_delay,
                    table.turn_seconds,
                    table.takeover_seconds,
                    table.host_token_hash,
                    table.device_token_hash,
                    int(table.started),
                    None if table.record is None else json.dumps(table.record, sort_keys=True),
                ),
            )
            for seat in seats:
                self._put_seat(table.table_id, seat)

    def set_seat(self, table_id: str, seat: StoredSeat) -> None:
        with self._transaction():
            self._put_seat(table_id, seat)

    def _put_seat(self, table_id: str, seat: StoredSeat) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO seats (table_id, seat, name, kind, token_hash) VALUES (?, ?, ?, ?, ?)",
            (table_id, seat.seat, seat.name, seat.kind, seat.token_hash),
        )

    def set_started(self, table_id: str) -> None:
        with self._transaction():
            self.db.execute("UPDATE tables SET started = 1 WHERE table_id = ?", (table_id,))

    def set_record(self, table_id: str, record: dict[str, Any]) -> None:
        """The creation record of a table stored before records were kept, made when it was restored."""
        with self._transaction():
            self.db.execute(
                "UPDATE tables SET record = ? WHERE table_id = ?", (json.dumps(record, sort_keys=True), table_id)
            )

    def set_device_token(self, table_id: str, token_hash: bytes) -> None:
        with self._transaction():
            self.db.execute("UPDATE tables SET device_token_hash = ? WHERE table_id = ?", (token_hash, table_id))

    def add_action(self, table_id: str, action: StoredAction) -> None:
        # One statement in autocommit mode is its own transaction (committed when execute returns): the
        # same durability as BEGIN/COMMIT around it, at a third of the calls on the hottest write path.
        self._outside_transaction()
        self.db.execute(
            _INSERT_ACTION,
            (table_id, action.version, action.seat, action.action_id, action.request_id, action.note),
        )

    def add_actions(self, actions: Sequence[tuple[str, StoredAction]]) -> None:
        """Several tables' actions (table id, action) in one transaction: all are written, or none."""
        with self._transaction():
            self.db.executemany(
                _INSERT_ACTION,
                [(t, a.version, a.seat, a.action_id, a.request_id, a.note) for t, a in actions],
            )

    def add_note(self, table_id: str, version: int, text: str) -> None:
        """A table-level event (someone left, was taken over, came back) at a version."""
        self._outside_transaction()
        self.db.execute("INSERT INTO notes (table_id, version, text) VALUES (?, ?, ?)", (table_id, version, text))

    def _outside_transaction(self) -> None:
        """A single statement commits itself only outside a transaction; inside one left open (a COMMIT
        that failed), it would be acknowledged and never written, so refuse instead."""
        if self.db.in_transaction:
            raise StoreError(f"{self.path} has an unfinished transaction; the write was refused, nothing is lost")

    def delete_table(self, table_id: str) -> None:
        with self._transaction():
            self.db.execute("DELETE FROM tables WHERE table_id = ?", (table_id,))

    # -- reads --------------------------------------------------------------------------------------------

    def tables(
        self,
    ) -> Iterator[tuple[StoredTable, list[StoredSeat], list[StoredAction], dict[int, list[str]]]]:
        """Every stored table with its seats, actions and notes (by version), oldest table first."""
        rows = self.db.execute(
            "SELECT table_id, game, players, options, seed, name, manual_start, bot_delay, turn_seconds,"
            " takeover_seconds, host_token_hash, device_token_hash, started, record FROM tables ORDER BY rowid"
        ).fetchall()
        for row in rows:
            table = StoredTable(
                table_id=row[0],
                game=row[1],
                players=row[2],
                options=json.loads(row[3]),
                seed=row[4],
                name=row[5],
                manual_start=bool(row[6]),
                bot_delay=row[7],
                turn_seconds=row[8],
                takeover_seconds=row[9],
                host_token_hash=row[10],
                device_token_hash=row[11],
                started=bool(row[12]),
                record=None if row[13] is None else json.loads(row[13]),
            )
            seats = [
                StoredSeat(*r)
                for r in self.db.execute(
                    "SELECT seat, name, kind, token_hash FROM seats WHERE table_id = ? ORDER BY seat", (table.table_id,)
                )
            ]
            actions = [
                StoredAction(*r)
                for r in self.db.execute(
                    "SELECT version, seat, action_id, request_id, note FROM actions"
                    " WHERE table_id = ? ORDER BY version",
                    (table.table_id,),
                )
            ]
            notes: dict[int, list[str]] = {}
            for version, text in self.db.execute(
                "SELECT version, text FROM notes WHERE table_id = ? ORDER BY rowid", (table.table_id,)
            ):
                notes.setdefault(version, []).append(text)
            yield table, seats, actions, notes


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, error: object, traceback: object) -> None:
        if kind is not None:
            self._end()
            return
        try:
            self.db.execute("COMMIT")
        except sqlite3.Error:
            self._end()
            raise

    def _end(self) -> None:
        """Roll back what is left of a failed transaction, so no later write lands in it unseen. SQLite may
        have rolled it back already (a full disk does): then there is nothing to do, and the failure that
        got us here is the one to report."""
        if self.db.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")


def _check_file(path: Path) -> None:
    """Refuse, before SQLite opens it, a path that is not a file or a file that is not SQLite at all."""
    if path.exists() and not path.is_file():
        raise StoreError(f"{path} is not a file; choose a database file with --db")
    if path.exists() and path.stat().st_size > 0:
        with path.open("rb") as handle:
            header = handle.read(16)
        if header != b"SQLite format 3\x00":
            raise StoreError(f"{path} is not an SQLite database; choose another file with --db (it was left as it is)")


def default_db_path() -> Path:
    """$XDG_STATE_HOME/toadstool/toadstool.db, i.e. ~/.local/state/toadstool/toadstool.db by default."""
    from toadstool.paths import state_dir

    return state_dir() / "toadstool.db"
