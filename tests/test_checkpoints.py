"""The store's write-ahead log is checkpointed by a thread of its own, and inside a commit only as a backstop:
commits only count the rows they write, every Nth row asks the thread, the thread copies the whole log back
into the file, the log stays bounded under steady writing, a checkpoint that fails (or a connection that
cannot be opened) is said once and tried again, and closing the store stops the thread and leaves no log.
Every store is a real SQLite file."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from timing import wait_until

from toadstool.server.checkpoints import BACKSTOP_PAGES, Checkpointer
from toadstool.server.store import Store, StoredAction


def wait_for_checkpoints(checkpoints: Checkpointer, count: int) -> None:
    wait_until(lambda: checkpoints.done >= count, f"{count} checkpoints run")


def write_moves(store: Store, count: int, start: int = 1, size: int = 2000) -> None:
    """`count` commits of one move (one row) each; at 2,000 bytes a move, the log grows by a page a commit."""
    for version in range(start, start + count):
        store.add_actions([("t", StoredAction(version, 0, "x" * size, f"r{version}", ""))])


@pytest.fixture
def new_store(tmp_path: Path) -> Iterator[Callable[..., Store]]:
    """Stores on files in tmp_path (foreign keys off: the moves' table row is not the point), closed after
    the test whatever it asserted, so no checkpointer thread outlives it."""
    stores: list[Store] = []

    def make(every: int, name: str = "t.db") -> Store:
        store = Store(tmp_path / name, checkpoint_every=every)
        store.db.execute("PRAGMA foreign_keys = OFF")
        stores.append(store)
        return store

    yield make
    for store in stores:
        store.close()


def file_alone(path: Path) -> sqlite3.Connection:
    """The database file as it is on disk, without its log (what a checkpoint has copied back, only)."""
    return sqlite3.connect(f"file:{path}?immutable=1", uri=True)


def log_frames(store: Store) -> int:
    """Frames in the store's log now: the second figure of a passive checkpoint (which copies them back too)."""
    return int(store.db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1])


def test_commits_below_the_backstop_never_checkpoint_the_log_themselves(
    tmp_path: Path, new_store: Callable[..., Store]
) -> None:
    store = new_store(every=10**9)  # the thread is never asked
    page = store.db.execute("PRAGMA page_size").fetchone()[0]
    assert store.db.execute("PRAGMA wal_autocheckpoint").fetchone() == (BACKSTOP_PAGES,)
    write_moves(store, 1500)
    # SQLite's own checkpoint would have rewound the log at 1,000 pages and written it again from the start.
    assert (tmp_path / "t.db-wal").stat().st_size > 1200 * page
    assert store.checkpoints is not None
    assert store.checkpoints.done == 0


def test_every_nth_row_asks_the_thread_which_copies_the_whole_log_back(
    tmp_path: Path, new_store: Callable[..., Store]
) -> None:
    store = new_store(every=50)
    checkpoints = store.checkpoints
    assert checkpoints is not None
    write_moves(store, 49)
    assert checkpoints._thread is None  # not asked yet
    with file_alone(tmp_path / "t.db") as disk:
        assert disk.execute("SELECT count(*) FROM actions").fetchone() == (0,)  # all of it still in the log
    write_moves(store, 1, start=50)
    wait_for_checkpoints(checkpoints, 1)
    assert checkpoints.last is not None
    busy, frames, copied = checkpoints.last
    assert busy == 0
    assert frames > 0
    assert copied == frames  # nobody was reading: all of the log went back
    with file_alone(tmp_path / "t.db") as disk:  # the store is still open: the thread did this, not a close
        assert disk.execute("SELECT count(*), max(version) FROM actions").fetchone() == (50, 50)
    # The next write rewinds the log: the thread's connection, kept open for the next checkpoint, holds no
    # snapshot that would keep it (or the log would grow for as long as the server runs).
    write_moves(store, 1, start=51)
    assert log_frames(store) < 10
    write_moves(store, 49, start=52)
    wait_for_checkpoints(checkpoints, 2)


def test_a_commit_of_many_rows_counts_each_of_them(new_store: Callable[..., Store]) -> None:
    store = new_store(every=50)
    assert store.checkpoints is not None
    store.add_actions([("t", StoredAction(version, 0, "draw", f"r{version}", "")) for version in range(1, 51)])
    wait_for_checkpoints(store.checkpoints, 1)  # one commit, 50 rows: a group commit of 50 tables' moves


def test_the_backstop_alone_bounds_the_log_under_steady_writing(
    tmp_path: Path, new_store: Callable[..., Store]
) -> None:
    store = new_store(every=10**9)  # the thread is never asked: a load it does not keep up with, at its worst
    page = store.db.execute("PRAGMA page_size").fetchone()[0]
    largest = 0
    for start in range(1, 16001, 100):  # four times the backstop's pages, written back to back
        write_moves(store, 100, start=start)
        largest = max(largest, (tmp_path / "t.db-wal").stat().st_size)
    # The commit that takes the log to the backstop checkpoints all of it (nobody else holds the checkpoint
    # lock), and the next write rewinds it: the file never holds much more than the backstop's pages.
    assert largest <= (BACKSTOP_PAGES + 8) * (page + 24) + 32
    assert largest > (BACKSTOP_PAGES - 8) * (page + 24)  # ... and it did get there: the backstop, not the thread
    assert store.checkpoints is not None
    assert store.checkpoints.done == 0


class AReaderUntilTheFirstPassEnds:
    """The checkpointer's connection, with a reader holding an older snapshot until its first pass is over: so
    that pass ends with part of the log not copied back, the state that a commit landing during a pass leaves
    (as steady writing does at almost every checkpoint), here made certain."""

    def __init__(self, connection: sqlite3.Connection, reader: sqlite3.Connection) -> None:
        self.connection, self.reader = connection, reader
        self.results: list[tuple[int, int, int]] = []

    def execute(self, sql: str) -> _Result:
        result = _Result(self.connection.execute(sql).fetchone())
        self.results.append(result.row)
        if self.reader.in_transaction:
            self.reader.rollback()
        return result


class _Result:
    def __init__(self, row: tuple[int, int, int]) -> None:
        self.row = row

    def fetchone(self) -> tuple[int, int, int]:
        return self.row


def test_a_pass_that_leaves_part_of_the_log_is_followed_by_another_so_the_next_write_rewinds_it(
    tmp_path: Path, new_store: Callable[..., Store]
) -> None:
    store = new_store(every=10**9)
    checkpoints = store.checkpoints
    assert checkpoints is not None
    write_moves(store, 100)
    reader = sqlite3.connect(tmp_path / "t.db")
    connection = sqlite3.connect(checkpoints.uri, uri=True, isolation_level=None)
    try:
        reader.execute("BEGIN")
        assert reader.execute("SELECT count(*) FROM actions").fetchone() == (100,)  # its snapshot: 100 moves
        write_moves(store, 100, start=101)
        passes = AReaderUntilTheFirstPassEnds(connection, reader)
        busy, frames, copied = checkpoints._passes(passes)  # type: ignore[arg-type]
    finally:
        reader.close()
        connection.close()
    first = passes.results[0]
    assert first[0] == 0
    assert 0 < first[2] < first[1]  # the first pass could copy only the first 100 moves
    assert (busy, copied) == (0, frames)  # a later one copied the rest
    assert frames == first[1]
    with file_alone(tmp_path / "t.db") as disk:
        assert disk.execute("SELECT count(*) FROM actions").fetchone() == (200,)
    write_moves(store, 1, start=201)
    # Rewound: the log holds only the last commit's frames (after the first pass alone, it would hold all of
    # the 200 moves' and these).
    assert log_frames(store) < 10


def test_closing_the_store_stops_the_thread_and_leaves_no_log(tmp_path: Path, new_store: Callable[..., Store]) -> None:
    store = new_store(every=5)
    write_moves(store, 5)
    assert store.checkpoints is not None
    wait_for_checkpoints(store.checkpoints, 1)
    thread = store.checkpoints._thread
    assert thread is not None
    assert thread.is_alive()
    store.close()
    assert not thread.is_alive()
    assert not (tmp_path / "t.db-wal").exists()
    store.checkpoints.request()  # after close: nothing is started again
    assert store.checkpoints._thread is thread
    assert not thread.is_alive()
    with file_alone(tmp_path / "t.db") as disk:
        assert disk.execute("SELECT count(*) FROM actions").fetchone() == (5,)


def test_checkpoint_now_leaves_everything_in_the_file_itself(tmp_path: Path, new_store: Callable[..., Store]) -> None:
    store = new_store(every=10**9)
    write_moves(store, 30)
    store.checkpoint_now()
    assert (tmp_path / "t.db-wal").stat().st_size == 0  # emptied (TRUNCATE), while the store is still open
    with file_alone(tmp_path / "t.db") as disk:
        assert disk.execute("SELECT count(*) FROM actions").fetchone() == (30,)


def test_a_store_kept_in_memory_has_no_checkpointer() -> None:
    store = Store(":memory:")
    assert store.checkpoints is None
    store.checkpoint_now()  # nothing to do, and no error
    store.close()


def test_a_failing_checkpoint_is_said_once_and_tried_again(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "not-a-database.db"
    path.write_text("these are not the pages of an SQLite file\n" * 200)
    checkpoints = Checkpointer(str(path), every=1)
    caplog.set_level(logging.WARNING, logger="toadstool.server.checkpoints")
    try:
        for attempt in range(1, 4):
            checkpoints.request()
            wait_until(lambda: checkpoints.failed >= attempt, f"{attempt} failed checkpoints")  # noqa: B023
        assert checkpoints._thread is not None
        assert checkpoints._thread.is_alive()  # it keeps trying
        assert checkpoints.done == 0
        assert checkpoints.failed == 3
        warnings = [r for r in caplog.records if "checkpoint of the write-ahead log failed" in r.getMessage()]
        assert len(warnings) == 1
        assert str(path) in warnings[0].getMessage()
    finally:
        checkpoints.close()


def test_a_missing_file_is_never_created_and_is_checkpointed_once_it_is_back(tmp_path: Path) -> None:
    path = tmp_path / "moved-away.db"
    checkpoints = Checkpointer(str(path), every=1)
    try:
        checkpoints.request()
        wait_until(lambda: checkpoints.failed >= 1, "a failed checkpoint")
        assert not path.exists()  # opened read-write only: an empty database was not made in its place
        store = Store(path)  # the file is back
        try:
            store.db.execute("PRAGMA foreign_keys = OFF")
            write_moves(store, 3)
            checkpoints.request()
            wait_for_checkpoints(checkpoints, 1)  # a new connection, the same thread
            assert checkpoints.failed == 0
            assert checkpoints.last is not None
            assert checkpoints.last[2] == checkpoints.last[1]
        finally:
            store.close()
    finally:
        checkpoints.close()
