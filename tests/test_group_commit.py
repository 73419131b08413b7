"""Bots' moves made in the same turn of the event loop are written in one transaction and applied only
once it has committed (`tables.GroupCommit`, for bench/load.py: a transaction per move was about a tenth
of a busy server's time). What must hold: nothing is applied (so nothing is shown) before it is in the
log, a move whose table changed first is never written, a failed write changes nothing, and the log
always replays to exactly what the tables hold."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from timing import until

from toadstool.engine import action_id
from toadstool.server.store import Store, StoredAction
from toadstool.server.tables import Table, TableRegistry


def stored_actions(store: Store) -> dict[str, list[StoredAction]]:
    return {table.table_id: actions for table, _, actions, _ in store.tables()}


def assert_log_matches(store: Store, tables: list[Table]) -> None:
    """Every table's log has one action per version, 1 to the table's version: none missing, none extra."""
    logged = stored_actions(store)
    for table in tables:
        versions = [a.version for a in logged[table.table_id]]
        assert versions == list(range(1, table.version + 1)), f"table {table.table_id}: log and memory differ"
        assert [a.action_id for a in logged[table.table_id]] == [action_id(action) for _, action in table.actions]


async def written_together(registry: TableRegistry, tables: list[Table]) -> list[object]:
    """What became of each table's bot move, all proposed in the same turn: True, False or the error."""
    return await asyncio.wait_for(asyncio.gather(*propose_all(registry, tables), return_exceptions=True), 5)


def propose_all(registry: TableRegistry, tables: list[Table]) -> list[asyncio.Future[bool]]:
    """Each table's bot move, proposed in the same turn of the event loop (so written together)."""
    futures = []
    for table in tables:
        choice = table.bot_choice()
        assert choice is not None
        seat, action = choice
        futures.append(registry.moves.propose(table, seat, action, table.engine.apply(table.state, seat, action)))
    return futures


async def test_bots_of_many_tables_share_transactions_and_the_log_matches_every_table(tmp_path: Path) -> None:
    store = Store(tmp_path / "toadstool.db")
    statements: list[str] = []
    async with TableRegistry(bot_delay=0.01, store=store) as registry:
        tables = [registry.create("uno", 4, bots=4, seed=i)[0] for i in range(20)]
        store.db.set_trace_callback(statements.append)
        await until(lambda: sum(t.version for t in tables) >= 400)
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
        # The version the table had at the moment each statement reached SQLite.
        seen: list[tuple[str, int]] = []
        store.db.set_trace_callback(lambda statement: seen.append((statement, table.version)))
        proposed = registry.moves.propose(table, seat, action, table.engine.apply(table.state, seat, action))
        assert await asyncio.wait_for(proposed, 5) is True
        store.db.set_trace_callback(None)
        assert table.version == version + 1
        assert stored_actions(store)[table.table_id][-1].version == version + 1
        assert [v for statement, v in seen if statement in ("COMMIT",) or statement.startswith("INSERT")] == [
            version,
            version,
        ], f"the move was applied before its transaction committed: {seen}"

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
        await until(lambda: all(t.version >= 3 for t in tables))
        store.db.execute("PRAGMA query_only = ON")  # every write now fails, as on a full or read-only disk
        await asyncio.sleep(0.05)  # a move already written may still land
        held = [t.version for t in tables]
        await asyncio.sleep(0.3)
        assert [t.version for t in tables] == held, "a bot move was applied without being written"
        # The reason is logged once for whoever runs the server, however often the bots tried meanwhile.
        said = [r.getMessage() for r in caplog.records]
        assert len(said) == 1, said
        assert "read-only" in said[0]
        assert "readonly database" in said[0]
        for table in tables:  # and every table says why its game stopped
            assert any("The game is paused: the server's disk is read-only" in e.text for _, e in table.events)
        assert_log_matches(store, tables)
        store.db.execute("PRAGMA query_only = OFF")
        await until(lambda: all(t.version >= v + 2 for t, v in zip(tables, held, strict=True)))
        assert_log_matches(store, tables)
        said = [r.getMessage() for r in caplog.records]
        assert len(said) == 2, said
        assert "writing works again" in said[1]
        for table in tables:
            assert table.paused_by_disk is None
            assert any("can save again" in e.text for _, e in table.events)
    store.close()


async def test_one_move_that_cannot_be_written_costs_only_its_own_table(tmp_path: Path) -> None:
    store = Store(tmp_path / "toadstool.db")
    async with TableRegistry(bot_delay=3600.0, store=store) as registry:
        tables = [registry.create("uno", 2, bots=2, seed=i)[0] for i in range(4)]
        await asyncio.sleep(0)
        store.delete_table(tables[0].table_id)  # its move now breaks a foreign key: it can never be written
        versions = [t.version for t in tables]
        results = await written_together(registry, tables)
        assert isinstance(results[0], sqlite3.IntegrityError)
        assert results[1:] == [True, True, True], "one bad move failed the moves written with it"
        assert [t.version for t in tables] == [versions[0]] + [v + 1 for v in versions[1:]]
        assert_log_matches(store, tables[1:])
    store.close()


async def test_a_bug_while_applying_a_move_reaches_its_bot_and_every_other_move_lands(tmp_path: Path) -> None:
    store = Store(tmp_path / "toadstool.db")
    async with TableRegistry(bot_delay=3600.0, store=store) as registry:
        tables = [registry.create("uno", 2, bots=2, seed=i)[0] for i in range(3)]
        await asyncio.sleep(0)

        def buggy(events: object) -> None:
            raise StopIteration  # a bare next() in a game's code: asyncio will not put it in a future

        tables[0]._record_events = buggy  # type: ignore[method-assign]
        results = await written_together(registry, tables)
        assert isinstance(results[0], RuntimeError)
        assert results[1:] == [True, True]
        assert_log_matches(store, tables[1:])
    store.close()


async def test_moves_not_yet_written_when_the_server_stops_are_dropped_unseen(tmp_path: Path) -> None:
    store = Store(tmp_path / "toadstool.db")
    async with TableRegistry(bot_delay=3600.0, store=store) as registry:
        table, _ = registry.create("uno", 2, bots=2, seed=3)
        await asyncio.sleep(0)
        version = table.version
        (proposed,) = propose_all(registry, [table])
        registry.moves.close()  # as the registry does when it closes, before its turn to be written comes
        await asyncio.sleep(0.01)
        assert proposed.cancelled()
        assert table.version == version
        assert_log_matches(store, [table])
    store.close()
