"""The store never acknowledges a write it did not commit: a single-statement write refuses to run inside a
transaction left open (SQLite may leave one open when a COMMIT fails), a failed COMMIT is rolled back, and
a failed transaction reports why it failed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from toadstool.server.store import DiskUnavailable, Store, StoredAction, StoreError


def test_a_write_inside_a_dangling_transaction_is_refused_not_silently_lost(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    store = Store(path)
    store.db.execute("BEGIN IMMEDIATE")  # what a COMMIT that failed can leave behind
    with pytest.raises(StoreError, match="unfinished transaction"):
        store.add_action("abc", StoredAction(1, 0, "draw", "", ""))
    with pytest.raises(StoreError, match="unfinished transaction"):
        store.add_note("abc", 1, "Ann left")
    store.db.execute("ROLLBACK")
    store.close()


def test_single_statement_writes_are_committed_when_they_return(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    store = Store(path)
    store.db.execute("PRAGMA foreign_keys = OFF")  # the row's table is not the point here
    store.add_action("abc", StoredAction(1, 0, "draw", "r1", ""))
    store.add_note("abc", 1, "Ann left")
    other = sqlite3.connect(path)  # another connection sees both rows at once: they were committed
    try:
        assert other.execute("SELECT action_id FROM actions WHERE table_id = 'abc'").fetchall() == [("draw",)]
        assert other.execute("SELECT text FROM notes WHERE table_id = 'abc'").fetchall() == [("Ann left",)]
    finally:
        other.close()
        store.close()


def test_a_full_disk_is_reported_as_such_and_leaves_nothing_behind(tmp_path: Path) -> None:
    store = Store(tmp_path / "t.db")
    store.db.execute("PRAGMA foreign_keys = OFF")  # the rows' table is not the point here
    pages = store.db.execute("PRAGMA page_count").fetchone()[0]
    store.db.execute(f"PRAGMA max_page_count = {pages}")  # the file may not grow: as a full disk
    with pytest.raises(DiskUnavailable, match="disk is full; nothing was saved"):  # not a failed ROLLBACK's
        store.add_actions([("abc", StoredAction(v, 0, "x" * 3000, "", "")) for v in range(1, 50)])
    assert store.trouble is not None
    assert not store.db.in_transaction
    assert store.db.execute("SELECT count(*) FROM actions").fetchone() == (0,)
    store.close()
