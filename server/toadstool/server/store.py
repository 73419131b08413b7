"""The durable log: every table's setup, seats and accepted actions in SQLite, so a killed server comes
back with every table at the same version.

A table is its creation record plus its action list (state is a value derived from seed + actions,
docs/design.md, principle 2), so the store keeps exactly that and rebuilds state by replaying. It is not for
views or anything derived. Seat and host tokens are stored only as SHA-256 hashes.

Writes are synchronous and committed before the caller acknowledges anything: an action the client saw
accepted is on disk. WAL mode with synchronous=NORMAL survives a killed process; `sync="full"` also
survives a power cut, at the price of an fsync per action. What one request writes is one transaction
(`batch`): a kill between two of its writes can never leave half of it (a table without its start). The log
is checkpointed into the file by a thread of its own, inside a commit only as a backstop
(toadstool.server.checkpoints).

A disk that cannot take a write (full, read-only, failing) raises `DiskUnavailable`, whose message names
it for a person; the store logs that once when it starts and once when writing works again, never per
attempt. Each table's row and seats are kept twice (`table_copies`, another b-tree), and a damaged file
is never written: it is set aside and its readable tables copied into a new one (toadstool.server.repair).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import sqlite3
import weakref
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toadstool.i18n import N_, from_stored, stored
from toadstool.server.checkpoints import BACKSTOP_PAGES, EVERY, LOG_SIZE_LIMIT, Checkpointer
from toadstool.server.records import (
    DiskUnavailable,
    StoredAction,
    StoredGame,
    StoredSeat,
    StoredTable,
    StoreError,
    StoreUnreadable,
    TableStore,
)

__all__ = [  # the records are defined in toadstool.server.records; named here too for the store's readers
    "DiskUnavailable",
    "Store",
    "StoreError",
    "StoreUnreadable",
    "StoredAction",
    "StoredSeat",
    "StoredTable",
]

#: Marks a database file as Toadstool's (PRAGMA application_id), so a foreign file is never touched.
APPLICATION_ID = 0x54_4F_41_44  # "TOAD"
SCHEMA_VERSION = 6

#: A second copy of one table's row and seats (`table_copies`), written in the same transaction as every
#: change to them: it lives in another b-tree, so one damaged page never loses both (toadstool.server.repair
#: reads it). Blobs are hex ('' for NULL); the row's columns are TABLE_COLUMNS' order.
_COPY_SELECT = """
SELECT table_id, json_object(
    'table', json_array(table_id, game, players, options, seed, name, manual_start, bot_delay, turn_seconds,
        takeover_seconds, hex(host_token_hash), hex(device_token_hash), started, record),
    'seats', (SELECT json_group_array(json_array(seat, name, kind, hex(token_hash)))
        FROM seats WHERE seats.table_id = tables.table_id))
FROM tables"""

_COPY = f"INSERT OR REPLACE INTO table_copies (table_id, data) {_COPY_SELECT} WHERE table_id = ?"

_ADD_FINISHED = "ALTER TABLE tables ADD COLUMN finished_version INTEGER;"
_ADD_ENDED = "ALTER TABLE tables ADD COLUMN ended TEXT;"
_ADD_BOT_LEVEL = "ALTER TABLE seats ADD COLUMN bot_level INTEGER NOT NULL DEFAULT 0;"
_ADD_FINISHED_AT = "ALTER TABLE tables ADD COLUMN finished_at REAL;"

#: How a database of an older schema version becomes the next one (run in order, in one transaction).
#: 1 -> 2: tables keep their game's creation record (NULL for the tables stored before: they make theirs
#: when they are next restored). 2 -> 3: every table gets its second copy (`table_copies`), and a finished
#: table its last version (NULL for those finished before: they are replayed once more, and store it then).
#: 3 -> 4: a table ended before its game did (by its host, or abandoned) says why (`ended`; NULL otherwise).
#: 4 -> 5: a bot's seat keeps how strong the bot plays (`bot_level`, toadstool.bots.BotLevel; 0: normal).
#: 5 -> 6: a finished table keeps when it finished (`finished_at`, Unix seconds; those finished before: now).
MIGRATIONS: dict[int, str] = {
    1: "ALTER TABLE tables ADD COLUMN record TEXT;",
    2: f"""{_ADD_FINISHED} CREATE TABLE IF NOT EXISTS table_copies (
        table_id TEXT PRIMARY KEY REFERENCES tables(table_id) ON DELETE CASCADE,
        data TEXT NOT NULL
    ); INSERT OR REPLACE INTO table_copies (table_id, data) {_COPY_SELECT};""",
    3: _ADD_ENDED,
    4: _ADD_BOT_LEVEL,
    5: f"{_ADD_FINISHED_AT} UPDATE tables SET finished_at = CAST(strftime('%s', 'now') AS REAL)"
    " WHERE finished_version IS NOT NULL;",
}

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
    record TEXT,
    finished_version INTEGER,
    ended TEXT,
    finished_at REAL
);
CREATE TABLE seats (
    table_id TEXT NOT NULL REFERENCES tables(table_id) ON DELETE CASCADE,
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    kind INTEGER NOT NULL,
    token_hash BLOB,
    bot_level INTEGER NOT NULL DEFAULT 0,
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
CREATE TABLE table_copies (
    table_id TEXT PRIMARY KEY REFERENCES tables(table_id) ON DELETE CASCADE,
    data TEXT NOT NULL
);
"""


log = logging.getLogger(__name__)

_INSERT_ACTION = "INSERT INTO actions (table_id, version, seat, action_id, request_id, note) VALUES (?, ?, ?, ?, ?, ?)"


#: What a refused write tells the person who asked, by SQLite's primary result code (marked: the service says
#: it in their language).
DISK_MESSAGES = {
    sqlite3.SQLITE_FULL: N_("the server's disk is full; nothing was saved; try again when the host has freed space"),
    sqlite3.SQLITE_READONLY: N_(
        "the server's disk is read-only; nothing was saved; try again when the host has made it writable"
    ),
    sqlite3.SQLITE_IOERR: N_(
        "the server's disk failed to write; nothing was saved; try again when the host has checked the disk"
    ),
    sqlite3.SQLITE_CANTOPEN: N_(
        "the server cannot open its database file; nothing was saved; try again when the host has checked the disk"
    ),
}


class Store:
    """One SQLite file (or ":memory:") holding every table of one server: the `TableStore` on disk."""

    def __init__(self, path: str | Path, sync: str = "normal", checkpoint_every: int = EVERY) -> None:
        """Open (or create) the database at `path`; nothing else (a server opens its file through
        `toadstool.server.repair.open_store`, which first sets a damaged file aside: a constructor never
        renames a person's file). The write-ahead log is checkpointed by a thread every
        `checkpoint_every` rows written, and by a commit only as a backstop (`toadstool.server.checkpoints`)."""
        self.path = str(path)
        #: Checkpoints the file's write-ahead log off the caller's thread; None for ":memory:".
        self.checkpoints: Checkpointer | None = None
        self._rows_counted = 0  # the connection's total_changes when the checkpointer was last told
        #: Called with each write statement (and "COMMIT") before it runs: a test makes it raise or kill the
        #: process there, to see what a crash at that point leaves on disk. None in a real server.
        self.fault: Callable[[str], None] | None = None
        #: Why the disk refuses writes now (a `DISK_MESSAGES` text), or None while writes work.
        self.trouble: str | None = None
        self._depth = 0
        if self.path != ":memory:":
            _check_file(Path(self.path))
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA foreign_keys = ON")
            self._open(sync)
            if self.path != ":memory:":
                # The checkpointer's thread copies the log back; a commit only when the thread could not.
                self.db.execute(f"PRAGMA wal_autocheckpoint = {BACKSTOP_PAGES}")
                self.db.execute(f"PRAGMA journal_size_limit = {LOG_SIZE_LIMIT}")
                self.checkpoints = Checkpointer(self.path, sync, checkpoint_every)
                weakref.finalize(self, self.checkpoints.stop)  # a store dropped unclosed stops its thread too
                self._rows_counted = self.db.total_changes
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
            columns = {row[1] for row in self.db.execute("PRAGMA table_info(tables)")}
            added = (("finished_version", _ADD_FINISHED), ("ended", _ADD_ENDED), ("finished_at", _ADD_FINISHED_AT))
            for column, step in added:
                if column in columns:
                    steps = steps.replace(step, "")  # a file taken back to an older version by hand
            if "bot_level" in {row[1] for row in self.db.execute("PRAGMA table_info(seats)")}:
                steps = steps.replace(_ADD_BOT_LEVEL, "")
            self.db.executescript(f"BEGIN IMMEDIATE; {steps} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;")
        elif version != SCHEMA_VERSION:
            raise StoreError(f"{self.path} has schema version {version}; this Toadstool reads {SCHEMA_VERSION}")
        if self.path != ":memory:":
            self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute(f"PRAGMA synchronous = {'FULL' if sync == 'full' else 'NORMAL'}")

    def checkpoint_now(self) -> None:
        """Copy the whole log into the database file and empty it, here and now, or raise StoreError if that
        could not be done: for the end of a store's life that must leave one self-contained file (salvage's,
        before it is renamed into place). The checkpointer's thread is stopped first (two checkpoints cannot
        run at once); writes after this are checkpointed only by the backstop."""
        if self.checkpoints is None:
            return
        self.checkpoints.close()
        busy, frames, copied = self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if busy or copied != frames:
            raise StoreError(f"{self.path}: its write-ahead log could not be copied back ({copied} of {frames} pages)")

    def close(self) -> None:
        """Stop the checkpointer, then close: the last connection to close checkpoints what is left."""
        if self.checkpoints is not None:
            self.checkpoints.close()
        self.db.close()

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """One transaction for every write made inside it (nested batches join the outer one): all of them
        are committed together when the outermost ends, or none if it raises."""
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        with _Transaction(self):
            self._depth = 1
            try:
                yield
            finally:
                self._depth = 0

    @property
    def in_batch(self) -> bool:
        return self._depth > 0

    def _transaction(self) -> Any:
        return self.batch()

    def _write(self, sql: str, params: Sequence[Any] = ()) -> None:
        """Run one write statement: through the fault hook, and with a refusing disk named (`DiskUnavailable`)."""
        if self.fault is not None:
            self.fault(sql)
        try:
            self.db.execute(sql, params)
        except sqlite3.OperationalError as error:
            raise self.refusal(error) from error
        if not self._depth:
            self.wrote()

    def _write_many(self, sql: str, rows: list[Sequence[Any]]) -> None:
        if self.fault is not None:
            self.fault(sql)
        try:
            self.db.executemany(sql, rows)
        except sqlite3.OperationalError as error:
            raise self.refusal(error) from error

    def refusal(self, error: sqlite3.OperationalError) -> Exception:
        """`error` as a `DiskUnavailable` if the disk refused the write (logged once per change), else as it is."""
        code = getattr(error, "sqlite_errorcode", 0) & 0xFF
        message = DISK_MESSAGES.get(code)
        if message is None:
            return error
        if self.trouble != message:
            log.warning("%s: %s (%s); the games wait until it can be written again", self.path, message, error)
            self.trouble = message
        return DiskUnavailable(message)

    def wrote(self) -> None:
        """A write reached the disk (a commit): its rows counted for the checkpointer; if the disk had been
        refusing, say once that it works again."""
        if self.checkpoints is not None:
            rows = self.db.total_changes
            self.checkpoints.wrote(rows - self._rows_counted)
            self._rows_counted = rows
        if self.trouble is not None:
            log.warning("%s: writing works again; the games go on", self.path)
            self.trouble = None

    # -- writes -------------------------------------------------------------------------------------------

    def add_table(self, table: StoredTable, seats: list[StoredSeat]) -> None:
        with self._transaction():
            self._write(
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
            self._write(_COPY, (table.table_id,))

    def set_seat(self, table_id: str, seat: StoredSeat) -> None:
        with self._transaction():
            self._put_seat(table_id, seat)
            self._write(_COPY, (table_id,))

    def _put_seat(self, table_id: str, seat: StoredSeat) -> None:
        self._write(
            "INSERT OR REPLACE INTO seats (table_id, seat, name, kind, token_hash, bot_level)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (table_id, seat.seat, seat.name, seat.kind, seat.token_hash, seat.bot_level),
        )

    def set_started(self, table_id: str) -> None:
        with self._transaction():
            self._write("UPDATE tables SET started = 1 WHERE table_id = ?", (table_id,))
            self._write(_COPY, (table_id,))

    def set_finished(self, table_id: str, version: int, at: float) -> None:
        """The table's game ended at `version`, at `at` (Unix seconds): a restart restores it without replaying."""
        with self._transaction():
            self._write(
                "UPDATE tables SET finished_version = ?, finished_at = ? WHERE table_id = ?", (version, at, table_id)
            )

    def set_ended(self, table_id: str, version: int, reason: str, at: float) -> None:
        """The table was ended at `version` and `at` before its game was over (by its host, or abandoned)."""
        with self._transaction():
            self._write(
                "UPDATE tables SET finished_version = ?, ended = ?, finished_at = ? WHERE table_id = ?",
                (version, stored(reason), at, table_id),
            )

    def set_record(self, table_id: str, record: dict[str, Any]) -> None:
        """The creation record of a table stored before records were kept, made when it was restored."""
        with self._transaction():
            self._write(
                "UPDATE tables SET record = ? WHERE table_id = ?", (json.dumps(record, sort_keys=True), table_id)
            )
            self._write(_COPY, (table_id,))

    def set_device_token(self, table_id: str, token_hash: bytes) -> None:
        with self._transaction():
            self._write("UPDATE tables SET device_token_hash = ? WHERE table_id = ?", (token_hash, table_id))
            self._write(_COPY, (table_id,))

    def add_action(self, table_id: str, action: StoredAction) -> None:
        # One statement in autocommit mode is its own transaction (committed when execute returns): the
        # same durability as BEGIN/COMMIT around it, at a third of the calls on the hottest write path.
        self._outside_transaction()
        self._write(
            _INSERT_ACTION,
            (table_id, action.version, action.seat, action.action_id, action.request_id, action.note),
        )

    def add_actions(self, actions: Sequence[tuple[str, StoredAction]]) -> None:
        """Several tables' actions (table id, action) in one transaction: all are written, or none."""
        with self._transaction():
            self._write_many(
                _INSERT_ACTION,
                [(t, a.version, a.seat, a.action_id, a.request_id, a.note) for t, a in actions],
            )

    def add_note(self, table_id: str, version: int, text: str) -> None:
        """A table-level event (someone left, was taken over, came back) at a version: a `Text` kept as its
        message and values (`i18n.stored`), so it is said again in each reader's language."""
        self._outside_transaction()
        self._write("INSERT INTO notes (table_id, version, text) VALUES (?, ?, ?)", (table_id, version, stored(text)))

    def _outside_transaction(self) -> None:
        """A single statement commits itself only outside a transaction; inside one left open (a COMMIT
        that failed), it would be acknowledged and never written, so refuse instead. Inside a `batch` it
        is part of the batch's transaction, committed with it."""
        if self.db.in_transaction and not self._depth:
            raise StoreError(f"{self.path} has an unfinished transaction; the write was refused, nothing is lost")

    def delete_table(self, table_id: str) -> None:
        with self._transaction():
            self._write("DELETE FROM tables WHERE table_id = ?", (table_id,))

    # -- reads --------------------------------------------------------------------------------------------

    def history(self, table_id: str) -> tuple[list[StoredAction], dict[int, list[str]]]:
        """One table's actions and notes (by version): what its whole history is rebuilt from."""
        actions = [
            StoredAction(*r)
            for r in self.db.execute(
                "SELECT version, seat, action_id, request_id, note FROM actions WHERE table_id = ? ORDER BY version",
                (table_id,),
            )
        ]
        notes: dict[int, list[str]] = {}
        for version, text in self.db.execute(
            "SELECT version, text FROM notes WHERE table_id = ? ORDER BY rowid", (table_id,)
        ):
            notes.setdefault(version, []).append(from_stored(text))
        return actions, notes

    def tables(self) -> Iterator[StoredGame]:
        """Every stored table with its seats, actions and notes (by version), oldest table first. A finished
        table comes without its actions and notes (empty): it is restored without replaying them. Damage
        met on the way (that the check at opening did not see) ends it with `StoreUnreadable`."""
        try:
            yield from self._tables()
        except sqlite3.DatabaseError as error:
            raise StoreUnreadable(str(error)) from error

    def _tables(self) -> Iterator[StoredGame]:
        rows = self.db.execute(
            f"SELECT {TABLE_COLUMNS}, finished_version, ended, finished_at FROM tables ORDER BY rowid"
        )
        for *row, finished_version, ended, finished_at in rows.fetchall():
            table = dataclasses.replace(
                stored_table(row),
                finished_version=finished_version,
                ended=from_stored(ended) if ended is not None else None,
                finished_at=finished_at,
            )
            seats = [
                StoredSeat(*r)
                for r in self.db.execute(
                    "SELECT seat, name, kind, token_hash, bot_level FROM seats WHERE table_id = ? ORDER BY seat",
                    (table.table_id,),
                )
            ]
            if table.finished_version is not None:
                yield table, seats, [], {}
            else:
                yield table, seats, *self.history(table.table_id)


#: The columns of a `tables` row, in the order `stored_table` reads them.
TABLE_COLUMNS = (
    "table_id, game, players, options, seed, name, manual_start, bot_delay, turn_seconds, takeover_seconds,"
    " host_token_hash, device_token_hash, started, record"
)


def stored_table(row: Sequence[Any]) -> StoredTable:
    """A `tables` row (its TABLE_COLUMNS) as a StoredTable."""
    return StoredTable(
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


class _Transaction:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.db = store.db

    def __enter__(self) -> None:
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as error:
            raise self.store.refusal(error) from error

    def __exit__(self, kind: object, error: object, traceback: object) -> None:
        if kind is not None:
            self._end()
            return
        try:
            if self.store.fault is not None:
                self.store.fault("COMMIT")
            self.db.execute("COMMIT")
        except sqlite3.OperationalError as failure:
            self._end()
            raise self.store.refusal(failure) from failure
        except BaseException:
            self._end()
            raise
        self.store.wrote()

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


if TYPE_CHECKING:
    _STORE: TableStore = Store(":memory:")  # mypy checks that the SQLite store is a TableStore
