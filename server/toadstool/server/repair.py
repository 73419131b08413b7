"""Damaged databases: whether a Toadstool file is healthy (`check`), copying every table that can still be
read into a new file (`salvage`), and what a server does when it finds its file damaged at start
(`set_aside_if_damaged`). Not for healthy files: those are the store's (toadstool.server.store).

A damaged file is only ever read (SQLite opened read-only), never written: what it still holds stays there
for any other tool. A server that finds one moves on to a new file with every readable table rather than
refusing to write while serving what it can read: a server that cannot write cannot play a single move,
and the readable tables are the same either way.

Rows are read by a full scan where that works, and row by row (by rowid) where a damaged page stops the
scan, so one bad page costs only the rows on it. A table comes back if its own row and every seat are
readable; its actions come back up to the first one missing (replay needs each one before the next), and
the report names every table that was cut short or lost.
"""

from __future__ import annotations

import contextlib
import datetime
import itertools
import json
import logging
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toadstool.server import pages
from toadstool.server.store import (
    APPLICATION_ID,
    TABLE_COLUMNS,
    Store,
    StoredAction,
    StoredSeat,
    stored_table,
)

log = logging.getLogger(__name__)

#: How many rowids in a row may be unreadable or absent before a row-by-row read stops looking further
#: (when the table's highest rowid cannot be read itself).
MAX_ROWID_GAP = 10_000

#: How many of SQLite's own complaints a check reports.
MAX_PROBLEMS = 20


@dataclass
class Health:
    """What `check` found: SQLite's complaints (none: the file is healthy) and the tables it could read."""

    path: Path
    problems: list[str] = field(default_factory=list)
    #: Table ids whose table row and seats can be read.
    readable: list[str] = field(default_factory=list)
    #: Table ids seen in some row whose table cannot be restored (its own row or a seat is lost).
    unreadable: list[str] = field(default_factory=list)
    #: Table id -> the version its actions can be read up to, for tables whose later actions are lost.
    cut_short: dict[str, int] = field(default_factory=dict)
    #: Rows that could not be read at all (their table is unknown).
    lost_rows: int = 0
    #: Each table's last action version as the file's index tells it, where it can be read.
    last_versions: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        """What a host reads: healthy, or what is damaged and what can be saved."""
        if self.ok:
            return f"{self.path}: healthy; {len(self.readable)} tables"
        lines = [f"{self.path}: damaged ({self.problems[0]})"]
        lines += [f"  {p}" for p in self.problems[1:]]
        lines.append(f"  {len(self.readable)} tables can be restored; {self.lost_rows} rows cannot be read")
        for table_id, version in sorted(self.cut_short.items()):
            known = self.last_versions.get(table_id)
            lines.append(
                f"  table {table_id} can be restored only up to version {version}"
                + (f" (of {known})" if known is not None else "")
            )
        if self.unreadable:
            lines.append(f"  tables that cannot be restored: {', '.join(sorted(self.unreadable))}")
        return "\n".join(lines)


def is_toadstool_file(path: Path) -> bool:
    """Whether `path` is an SQLite file that says it is Toadstool's (its header's application id): read from
    the raw header, which a damaged page elsewhere does not hide."""
    with path.open("rb") as handle:
        header = handle.read(100)
    return header[:16] == b"SQLite format 3\x00" and int.from_bytes(header[68:72], "big") == APPLICATION_ID


@contextlib.contextmanager
def _read_only(path: Path) -> Iterator[sqlite3.Connection]:
    """`path` opened read-only: with its write-ahead log if SQLite can read it so, else the main file alone."""
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?immutable=1", uri=True)
    try:
        yield db
    finally:
        db.close()


def _problems(db: sqlite3.Connection) -> list[str]:
    try:
        found = [row[0] for row in db.execute(f"PRAGMA quick_check({MAX_PROBLEMS})")]
    except sqlite3.DatabaseError as error:
        return [str(error)]
    if found == ["ok"]:
        return []
    # SQLite starts its first complaint with a heading on a line of its own: one line per complaint here.
    return [" ".join(line.replace("*** in database main ***", "").split()) for line in found]


def _table_rows(
    db: sqlite3.Connection, table: str, columns: str, raw: dict[int, tuple[Any, ...]]
) -> tuple[list[tuple[Any, ...]], int]:
    """Every readable row of `table` (rowid first, in rowid order) and how many could not be read: by a
    full scan, else row by row through SQL, and from its leaf pages (`raw`) where SQL cannot reach them."""
    try:
        return db.execute(f"SELECT rowid, {columns} FROM {table} NOT INDEXED ORDER BY rowid").fetchall(), 0
    except sqlite3.DatabaseError:
        pass
    try:
        top = db.execute(f"SELECT max(rowid) FROM {table}").fetchone()[0]
    except sqlite3.DatabaseError:
        top = None
    top = max(top or 0, max(raw, default=0)) or None
    rows: list[tuple[Any, ...]] = []
    lost = gap = 0
    rowid = 0
    while (top is not None and rowid < top) or (top is None and gap < MAX_ROWID_GAP):
        rowid += 1
        failed = False
        try:
            row = db.execute(f"SELECT rowid, {columns} FROM {table} WHERE rowid = ?", (rowid,)).fetchone()
        except sqlite3.DatabaseError:
            row, failed = None, True
        if row is None and rowid in raw:
            row = (rowid, *raw[rowid])
        if row is None:
            gap += 1
            lost += failed
        else:
            rows.append(row)
            gap = 0
    return rows, lost


def _shape(values: tuple[Any, ...]) -> tuple[str, tuple[Any, ...]] | None:
    """Which of Toadstool's tables a row read from a leaf page belongs to, by its columns' number and types
    (and the row with its columns as SQL would give them), or None for another table's (SQLite's own)."""
    kinds = tuple(type(v) for v in values)
    if len(values) in (13, 14, 15) and kinds[:3] == (str, str, int) and kinds[10] is bytes:
        # Rows written before `record` was a column have 13; `finished_version` (15th) is not salvaged.
        row = (*values, None) if len(values) == 13 else values[:14]
        return "tables", tuple(float(v) if i in (7, 8, 9) else v for i, v in enumerate(row))
    if len(values) == 5 and kinds[:4] == (str, int, str, int) and kinds[4] in (bytes, type(None)):
        return "seats", values
    if len(values) == 6 and kinds == (str, int, int, str, str, str):
        return "actions", values
    if len(values) == 3 and kinds == (str, int, str):
        return "notes", values
    if len(values) == 2 and kinds == (str, str) and values[1].startswith('{"table"'):
        return "table_copies", values
    return None


def _leaf_rows(path: Path) -> dict[str, dict[int, tuple[Any, ...]]]:
    """The rows on `path`'s leaf pages, by the table they belong to and rowid."""
    found: dict[str, dict[int, tuple[Any, ...]]] = {}
    for rowid, values in pages.leaf_rows(path):
        shaped = _shape(values)
        if shaped is not None:
            found.setdefault(shaped[0], {})[rowid] = shaped[1]
    return found


@dataclass
class _Readable:
    """Everything readable in a damaged file, by table."""

    tables: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    seats: dict[str, list[StoredSeat]] = field(default_factory=dict)
    actions: dict[str, list[StoredAction]] = field(default_factory=dict)
    notes: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    #: Each table's second copy of its row and seats (see store.table_copies).
    copies: dict[str, tuple[tuple[Any, ...], list[StoredSeat]]] = field(default_factory=dict)
    #: Each table's last action version, as far as it can be read (see `_last_versions`).
    last_versions: dict[str, int] = field(default_factory=dict)
    lost_rows: int = 0


def _read(db: sqlite3.Connection, path: Path) -> _Readable:
    found = _Readable()
    leaves = _leaf_rows(path)

    def _rows(table: str, columns: str) -> tuple[list[tuple[Any, ...]], int]:
        return _table_rows(db, table, columns, leaves.get(table, {}))

    rows, lost = _rows("tables", TABLE_COLUMNS)
    found.lost_rows += lost
    for row in rows:
        found.tables[row[1]] = row[1:]
    rows, lost = _rows("seats", "table_id, seat, name, kind, token_hash")
    found.lost_rows += lost
    for row in rows:
        found.seats.setdefault(row[1], []).append(StoredSeat(*row[2:]))
    rows, lost = _rows("actions", "table_id, version, seat, action_id, request_id, note")
    found.lost_rows += lost
    for row in rows:
        found.actions.setdefault(row[1], []).append(StoredAction(*row[2:]))
    rows, lost = _rows("notes", "table_id, version, text")
    found.lost_rows += lost
    for row in rows:
        found.notes.setdefault(row[1], []).append((row[2], row[3]))
    rows, lost = _rows("table_copies", "table_id, data")
    found.lost_rows += lost
    for row in rows:
        with contextlib.suppress(ValueError, TypeError, KeyError, IndexError):
            found.copies[row[1]] = _copy(row[2])
    found.last_versions = _last_versions(db, set(found.tables) | set(found.copies) | set(found.actions))
    return found


def _last_versions(db: sqlite3.Connection, table_ids: set[str]) -> dict[str, int]:
    """Each table's last action version as its index says (a b-tree apart from the actions' own pages): so
    a table whose last actions were on a damaged page is known to be cut short, even if none is left."""
    index = "INDEXED BY sqlite_autoindex_actions_1"
    try:
        return dict(db.execute(f"SELECT table_id, max(version) FROM actions {index} GROUP BY table_id").fetchall())
    except sqlite3.DatabaseError:
        pass
    versions = {}
    for table_id in table_ids:
        with contextlib.suppress(sqlite3.DatabaseError):
            (last,) = db.execute(f"SELECT max(version) FROM actions {index} WHERE table_id = ?", (table_id,)).fetchone()
            if last is not None:
                versions[table_id] = last
    return versions


def _copy(data: str) -> tuple[tuple[Any, ...], list[StoredSeat]]:
    """A `table_copies` row's data: the table's row (TABLE_COLUMNS) and its seats, blobs decoded."""
    copy = json.loads(data)
    row = list(copy["table"])
    row[10], row[11] = bytes.fromhex(row[10]), bytes.fromhex(row[11]) or None
    seats = [StoredSeat(seat, name, kind, bytes.fromhex(token) or None) for seat, name, kind, token in copy["seats"]]
    return tuple(row), seats


def _restorable(found: _Readable, health: Health) -> list[str]:
    """The ids of the tables that can be restored (noting in `health` those that cannot, or only in part)."""
    known = set(found.tables) | set(found.seats) | set(found.actions) | set(found.notes) | set(found.copies)
    kept = []
    for table_id in sorted(known, key=lambda t: (t not in found.tables, t)):
        chosen = _whole_rows(table_id, found)
        if chosen is None:
            health.unreadable.append(table_id)
            continue
        found.tables[table_id], found.seats[table_id] = chosen
        actions = sorted(found.actions.get(table_id, []), key=lambda a: a.version)
        contiguous = list(itertools.takewhile(lambda pair: pair[1].version == pair[0], enumerate(actions, start=1)))
        if len(contiguous) < max(len(actions), found.last_versions.get(table_id, 0)):
            health.cut_short[table_id] = len(contiguous)
        found.actions[table_id] = [a for _, a in contiguous]
        kept.append(table_id)
    return kept


def _whole_rows(table_id: str, found: _Readable) -> tuple[tuple[Any, ...], list[StoredSeat]] | None:
    """The table's own row and seats if they are whole, else its copy's if those are, else None."""
    copy_row, copy_seats = found.copies.get(table_id, (None, []))
    for row, seats in ((found.tables.get(table_id), found.seats.get(table_id, [])), (copy_row, copy_seats)):
        unique = sorted({s.seat: s for s in seats}.values(), key=lambda s: s.seat)
        if row is not None and _whole(row, unique):
            return row, unique
    return None


def _whole(row: tuple[Any, ...] | None, seats: list[StoredSeat]) -> bool:
    """Whether a table's row parses and every one of its seats is there."""
    try:
        return row is not None and [s.seat for s in seats] == list(range(stored_table(row).players))
    except (ValueError, TypeError, IndexError):  # a row that reads but does not parse
        return False


def check(path: Path) -> Health:
    """How healthy the database at `path` is, and which tables could be restored from it (read-only)."""
    health = Health(path)
    with _read_only(path) as db:
        health.problems = _problems(db)
        found = _read(db, path)
    health.lost_rows, health.last_versions = found.lost_rows, found.last_versions
    health.readable = _restorable(found, health)
    if health.lost_rows and health.ok:  # quick_check missed what reading found
        health.problems.append(f"{health.lost_rows} rows cannot be read")
    return health


def salvage(source: Path, target: Path) -> Health:
    """Copy every table that can be restored from `source` (only read) into a new database at `target`."""
    if target.exists():
        raise FileExistsError(f"{target} exists already; salvage writes only a new file")
    health = Health(source)
    with _read_only(source) as db:
        health.problems = _problems(db)
        found = _read(db, source)
    health.lost_rows, health.last_versions = found.lost_rows, found.last_versions
    health.readable = _restorable(found, health)
    store = Store(target)
    try:
        with store.batch():
            for table_id in health.readable:
                table = stored_table(found.tables[table_id])
                stopped_at = len(found.actions[table_id])
                store.add_table(table, found.seats[table_id])
                store.add_actions([(table_id, a) for a in found.actions[table_id]])
                for version, text in found.notes.get(table_id, []):
                    if version <= stopped_at:
                        store.add_note(table_id, version, text)
        store.checkpoint_now()  # all of it in the file itself before the file is renamed into place
    finally:
        store.close()
    return health


def open_store(path: str | Path, sync: str = "normal") -> tuple[Store, Health | None]:
    """The one way a server opens its database, in two explicit steps: a damaged file at `path` is set
    aside and its readable tables salvaged into a new one (`set_aside_if_damaged`), then the store opens
    the file. Returns the store and what was found about a damaged file (None when it was healthy, new or
    ":memory:"), so the caller can say so."""
    health = None
    if str(path) != ":memory:" and Path(path).exists() and Path(path).stat().st_size > 0:
        health = set_aside_if_damaged(Path(path))
    return Store(path, sync), health


def set_aside_if_damaged(path: Path) -> Health | None:
    """What a server does with a damaged database at `path` before it opens it: the file (with its
    write-ahead log) is renamed, untouched, to `<path>.damaged-<UTC time>`, every table that can be
    restored is copied into a new file at `path`, and the log says which tables could not be. Returns what
    was found, or None if the file is healthy (or not Toadstool's: the store refuses those itself)."""
    if not is_toadstool_file(path):
        return None
    with _read_only(path) as db:
        if not _problems(db):
            return None
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%SZ")
    kept = path.with_name(f"{path.name}.damaged-{stamp}")
    fresh = path.with_name(f"{path.name}.salvaging")
    for leftover in _with_logs(fresh):  # an earlier salvage that was stopped half-way
        leftover.unlink(missing_ok=True)
    health = salvage(path, fresh)
    for part, moved in zip(_with_logs(path), _with_logs(kept), strict=True):
        if part.exists():
            part.rename(moved)
    fresh.rename(path)
    lost = ", ".join(sorted(health.unreadable)) or "none that could be named"
    short = "; ".join(f"{t} only up to version {v}" for t, v in sorted(health.cut_short.items()))
    log.error(
        "%s is damaged (%s): it was kept untouched as %s and the server goes on with a new file holding the "
        "%d tables that could be read%s; tables that could not be restored: %s. `toadstool db check %s` "
        "says more.",
        path,
        health.problems[0],
        kept,
        len(health.readable),
        f" ({short})" if short else "",
        lost,
        kept,
    )
    return health


def _with_logs(path: Path) -> Sequence[Path]:
    """The database file and SQLite's files beside it (write-ahead log, shared memory)."""
    return [path, path.with_name(f"{path.name}-wal"), path.with_name(f"{path.name}-shm")]
