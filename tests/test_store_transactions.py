"""The store never acknowledges a write it did not commit: a single-statement write refuses to run inside a
transaction left open (SQLite may leave one open when a COMMIT fails), and a failed COMMIT is rolled back."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from toadstool.store import Store, StoredAction, StoreError


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
