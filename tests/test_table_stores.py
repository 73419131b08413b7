"""Both stores keep the same log: a table's tables code writes through `TableStore`, and the SQLite store and
the memory store (`serve --no-db`) answer alike: restored tables at the same version with the same history,
notes said again in each language, a failed batch leaving nothing, and the memory store's refusals."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from toadstool.i18n import tr
from toadstool.server import messages
from toadstool.server.memory_store import MemoryStore
from toadstool.server.records import StoredAction, StoredSeat, StoredTable, StoreError, TableStore
from toadstool.server.store import Store
from toadstool.server.tables import Status, TableRegistry, hosting


@pytest.fixture(params=["sqlite", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TableStore]:
    made: TableStore = Store(tmp_path / "t.db") if request.param == "sqlite" else MemoryStore()
    yield made
    made.close()


def _row(table_id: str = "abc") -> StoredTable:
    return StoredTable(
        table_id=table_id,
        game="uno",
        players=2,
        options={},
        seed=1,
        name="Ann's table",
        manual_start=False,
        bot_delay=0.0,
        turn_seconds=0.0,
        takeover_seconds=0.0,
        host_token_hash=b"h" * 32,
        device_token_hash=None,
        started=False,
    )


def _play(registry: TableRegistry, moves: int, seed: int) -> str:
    """A UNO table of bots played `moves` moves by hand (no event loop needed); its id."""
    table, _ = registry.create("uno", 3, bots=3, seed=seed)
    for _ in range(moves):
        choice = table.bot_choice()
        if choice is None:
            break
        table.apply_now(*choice)
    return table.table_id


def test_a_restart_from_either_store_brings_back_every_table_as_it_was(store: TableStore) -> None:
    before = TableRegistry(store=store)
    playing = _play(before, 25, seed=3)
    ended = _play(before, 5, seed=4)
    hosting.end(before.get(ended), hosting.ENDED_BY_HOST)
    finished = _play(before, 10_000, seed=5)
    assert before.get(finished).status is Status.FINISHED
    lobby, _ = before.create("uno", 3, bots=1, seed=6)
    before.get(playing).note(tr("{name} is away: a bot plays for them until they return", name="Ann"))

    after = TableRegistry(store=store)
    assert after.load() == 4
    for table_id in (playing, ended, finished, lobby.table_id):
        old, new = before.get(table_id), after.get(table_id)
        assert (new.version, new.status, new.names()) == (old.version, old.status, old.names())
        assert new.ended == old.ended
        for language in ("en", "de"):
            assert list(messages.history_for(new, None, language=language)) == list(
                messages.history_for(old, None, language=language)
            ), f"table {table_id}'s history differs after the restart ({language})"
    steps = messages.history_for(after.get(playing), None, language="de")
    said = [event.text for step in steps for event in step.events]
    assert any(text.startswith("Ann ") and "Bot" in text and "is away" not in text for text in said), said[-3:]


def _write_then_fail(store: TableStore) -> None:
    with store.batch():
        store.add_table(_row("gone"), [])
        with store.batch():
            assert store.in_batch
            store.set_seat("kept", StoredSeat(1, "Bob", 1, None))
            store.set_started("kept")
            store.add_action("kept", StoredAction(1, 0, "draw", "r1", ""))
            store.add_note("kept", 1, "Bob joined")
        raise RuntimeError("boom")


def test_a_batch_that_raises_leaves_nothing_of_itself_and_nested_batches_join_it(store: TableStore) -> None:
    store.add_table(_row("kept"), [StoredSeat(0, "Ann", 1, None)])
    with pytest.raises(RuntimeError, match="boom"):
        _write_then_fail(store)
    assert not store.in_batch
    [(table, seats, actions, notes)] = list(store.tables())
    assert (table.table_id, table.started, [s.name for s in seats], actions, notes) == ("kept", False, ["Ann"], [], {})


def test_both_stores_refuse_a_version_twice_and_keep_none_of_that_write(store: TableStore) -> None:
    store.add_table(_row("abc"), [])
    store.add_table(_row("xyz"), [])
    store.add_actions([("abc", StoredAction(1, 0, "draw", "", "")), ("xyz", StoredAction(1, 1, "pass", "", ""))])
    with pytest.raises((sqlite3.IntegrityError, StoreError), match=r"UNIQUE constraint|version 1 stored already"):
        store.add_actions([("xyz", StoredAction(2, 1, "draw", "", "")), ("abc", StoredAction(1, 0, "draw", "", ""))])
    assert store.history("xyz")[0] == [StoredAction(1, 1, "pass", "", "")], "half of a refused write was kept"


def test_the_memory_store_names_a_table_it_does_not_have() -> None:
    store = MemoryStore()
    with pytest.raises(StoreError, match="no table nope is stored"):
        store.set_started("nope")
    store.add_table(_row("abc"), [])
    with pytest.raises(StoreError, match="stored already"):
        store.add_table(_row("abc"), [])
