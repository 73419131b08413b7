"""Bots' moves made in the same turn of the event loop are written in one transaction and applied only
once it has committed (`tables.GroupCommit`, for bench/load.py: a transaction per move was about a tenth
of a busy server's time). What must hold: nothing is applied (so nothing is shown) before it is in the
log, a move whose table changed first is never written, a failed write changes nothing, and the log
always replays to exactly what the tables hold."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from toadstool.store import Store, StoredAction
from toadstool.tables import Table, TableRegistry


def stored_actions(store: Store) -> dict[str, list[StoredAction]]:
    return {table.table_id: actions for table, _, actions, _ in store.tables()}


def assert_log_matches(store: Store, tables: list[Table]) -> None:
    """Every table's log has one action per version, 1 to the table's version: none missing, none extra."""
    logged = stored_actions(store)
    for table in tables:
        versions = [a.version for a in logged[table.table_id]]
        assert versions == list(range(1, table.version + 1)), f"table {table.table_id}: log and memory differ"
        assert [a.action_id for a in logged[table.table_id]] == [_id(table, i) for i in range(table.version)]


def _id(table: Table, index: int) -> str:
    from toadstool.engine import action_id

    return action_id(table.actions[index][1])


async def _until(condition: object, seconds: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while not condition():  # type: ignore[operator]
        assert loop.time() < end, "the condition did not hold in time"
        await asyncio.sleep(0.01)


async def test_bots_of_many_tables_share_transactions_and_the_log_matches_every_table(tmp_path: Path) -> None:
    store = Store(tmp_path / "toadstool.db")
    statements: list[str] = []
    async with TableRegistry(bot_delay=0.01, store=store) as registry:
        tables = [registry.create("uno", 4, bots=4, seed=i)[0] for i in range(20)]
        store.db.set_trace_callback(statements.append)
        await _until(lambda: sum(t.version for t in tables) >= 400)
        store.db.set_trace_callback(None)
    moves = sum(1 for s in statements if s.startswith("INSERT INTO actions"))
    commits = sum(1 for s in statements if s == "COMMIT")
    assert moves >= 300
    assert commits * 3 <= moves, f"{moves} bot moves took {commits} transactions: they were not grouped"
    assert_log_matches(store, tables)
    store.close()


async def test_a_bot_move_is_applied_only_once_written_and_dropped_if_its_table_moved_on(tmp_path: Path) -> None:
    store = Store(tmp_path / "toadstool.db")
    async with TableRegistry(bot_delay=3600.0, store=store) as registry:  # the bots' own moves never come
        table, _ = registry.create("uno", 2, bots=2, seed=7)
        await asyncio.sleep(0)
        version = table.version
        choice = table.bot_choice()
        assert choice is not None
        seat, action = choice
        proposed = registry.moves.propose(table, seat, action, table.engine.apply(table.state, seat, action))
        assert table.version == version, "a bot move was applied before it was written"
        assert await asyncio.wait_for(proposed, 5) is True
        assert table.version == version + 1
        assert stored_actions(store)[table.table_id][-1].version == version + 1

        # A move proposed, then the table moves on in the same turn (a person acts, a clock runs out).
        choice = table.bot_choice()
        assert choice is not None
        seat, action = choice
        proposed = registry.moves.propose(table, seat, action, table.engine.apply(table.state, seat, action))
        table._apply(seat, action)  # what `act` and the turn clock do: written and applied at once
        assert await asyncio.wait_for(proposed, 5) is False, "a move chosen for an old version was applied"
        assert table.version == version + 2
        assert_log_matches(store, [table])
    store.close()


async def test_a_failed_write_changes_nothing_and_the_bots_play_on_once_the_log_can_be_written(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = Store(tmp_path / "toadstool.db")
    async with TableRegistry(bot_delay=0.01, store=store) as registry:
        tables = [registry.create("uno", 2, bots=2, seed=i)[0] for i in range(3)]
        await _until(lambda: all(t.version >= 3 for t in tables))
        store.db.execute("PRAGMA query_only = ON")  # every write now fails, as on a full or read-only disk
        await asyncio.sleep(0.05)  # a move already written may still land
        held = [t.version for t in tables]
        await asyncio.sleep(0.3)
        assert [t.version for t in tables] == held, "a bot move was applied without being written"
        assert "a bot action could not be applied" in caplog.text
        assert "readonly database" in caplog.text  # the reason is logged, for whoever runs the server
        caplog.clear()  # those errors were the point of this test
        assert_log_matches(store, tables)
        store.db.execute("PRAGMA query_only = OFF")
        await _until(lambda: all(t.version >= v + 2 for t, v in zip(tables, held, strict=True)))
        assert_log_matches(store, tables)
    store.close()


async def test_a_move_queued_as_the_server_stops_is_written_and_applied_or_neither(tmp_path: Path) -> None:
    store = Store(tmp_path / "toadstool.db")
    async with TableRegistry(bot_delay=3600.0, store=store) as registry:
        table, _ = registry.create("uno", 2, bots=2, seed=3)
        await asyncio.sleep(0)
        choice = table.bot_choice()
        assert choice is not None
        seat, action = choice
        registry.moves.propose(table, seat, action, table.engine.apply(table.state, seat, action))
    # The registry has closed (the store closes next): nothing is left to run against it.
    assert registry.moves._flush_handle is None
    assert not registry.moves._moves
    assert_log_matches(store, [table])
    store.close()
