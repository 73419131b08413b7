"""The store's write-ahead log is checkpointed by a thread of its own, never inside a commit: commits only
count, every Nth asks the thread, the thread copies the whole log back while nothing reads it, a failing
checkpoint is said once and tried again, and closing the store stops the thread and leaves no log behind.
Every store is a real SQLite file."""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from toadstool.server.checkpoints import Checkpointer
from toadstool.server.store import Store, StoredAction

#: How long a test waits for the thread to finish a checkpoint before failing (not a timing assertion: a
#: checkpoint of a few MiB takes milliseconds).
PATIENCE = 20.0


def wait_until(condition: Callable[[], bool], what: str) -> None:
    """Until `condition` holds (or PATIENCE runs out, which fails the test with `what`)."""
    pause = threading.Event()
    for _ in range(int(PATIENCE / 0.01)):
        if condition():
            return
        pause.wait(0.01)
    raise AssertionError(f"still not {what}")


def wait_for_checkpoints(checkpoints: Checkpointer, count: int) -> None:
    wait_until(lambda: checkpoints.done >= count, f"{count} checkpoints run")


def write_moves(store: Store, count: int, start: int = 1) -> None:
    """`count` commits of one move each (about 2 KiB a move, so the log grows by a page or more a commit)."""
    for version in range(start, start + count):
        store.add_actions([("t", StoredAction(version, 0, "x" * 2000, f"r{version}", ""))])


def new_store(path: Path, every: int) -> Store:
    store = Store(path, checkpoint_every=every)
    store.db.execute("PRAGMA foreign_keys = OFF")  # the moves' table row is not the point here
    return store


def test_commits_never_checkpoint_the_log_themselves(tmp_path: Path) -> None:
    store = new_store(tmp_path / "t.db", every=10**9)  # the thread is never asked
    page = store.db.execute("PRAGMA page_size").fetchone()[0]
    assert store.db.execute("PRAGMA wal_autocheckpoint").fetchone() == (0,)
    write_moves(store, 1500)
    # SQLite's own checkpoint would have reset the log at 1,000 pages and written it again from the start.
    assert (tmp_path / "t.db-wal").stat().st_size > 1200 * page
    assert store.checkpoints is not None
    assert store.checkpoints.done == 0
    store.close()


def test_every_nth_commit_asks_the_thread_which_copies_the_whole_log_back(tmp_path: Path) -> None:
    store = new_store(tmp_path / "t.db", every=50)
    checkpoints = store.checkpoints
    assert checkpoints is not None
    write_moves(store, 49)
    assert checkpoints.done == 0
    assert checkpoints.last is None
    write_moves(store, 1, start=50)
    wait_for_checkpoints(checkpoints, 1)
    assert checkpoints.last is not None
    busy, frames, copied = checkpoints.last
    assert busy == 0
    assert frames > 0
    assert copied == frames
    write_moves(store, 50, start=51)
    wait_for_checkpoints(checkpoints, 2)
    store.close()


def test_a_checkpoint_copies_back_what_another_connection_then_reads_from_the_file_alone(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    store = new_store(path, every=40)
    assert store.checkpoints is not None
    write_moves(store, 40)
    wait_for_checkpoints(store.checkpoints, 1)
    store.close()  # stops the thread, and the last connection to close removes the log
    assert not (tmp_path / "t.db-wal").exists()
    reader = sqlite3.connect(path)
    try:
        assert reader.execute("SELECT count(*), max(version) FROM actions").fetchone() == (40, 40)
    finally:
        reader.close()


def test_closing_the_store_stops_the_thread(tmp_path: Path) -> None:
    store = new_store(tmp_path / "t.db", every=5)
    write_moves(store, 5)
    assert store.checkpoints is not None
    wait_for_checkpoints(store.checkpoints, 1)
    thread = store.checkpoints._thread
    assert thread is not None
    assert thread.is_alive()
    store.close()
    assert not thread.is_alive()
    store.checkpoints.request()  # after close: nothing is started again
    assert store.checkpoints._thread is thread
    assert not thread.is_alive()


def test_a_store_kept_in_memory_has_no_checkpointer(tmp_path: Path) -> None:
    store = Store(":memory:")
    assert store.checkpoints is None
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
        assert checkpoints._thread.is_alive()
        assert checkpoints.done == 0
        assert checkpoints.failed == 3
        warnings = [r for r in caplog.records if "checkpoint of the write-ahead log failed" in r.getMessage()]
        assert len(warnings) == 1
        assert str(path) in warnings[0].getMessage()
    finally:
        checkpoints.close()
