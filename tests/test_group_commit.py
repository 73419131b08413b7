"""Moves made in the same turn of the event loop, bots' and people's, are written in one transaction and
applied only once it has committed (`tables.GroupCommit`, for bench/load.py: a transaction per move was about
a tenth of a busy server's time). What must hold: nothing is applied (so nothing is shown) and no person's
move is answered before it is in the log, a move whose table changed first is never written, a failed write
changes nothing, and the log always replays to exactly what the tables hold."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from timing import until

from toadstool.engine import action_id
from toadstool.server.store import DiskUnavailable, Store, StoredAction
from toadstool.server.tables import Table, TableRegistry, hosting
from toadstool.server.tables.errors import ErrorKind, TableError


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
    """What became of each table's bot move, all proposed in the same turn: its new version, None (dropped)
    or the error."""
    return await asyncio.wait_for(asyncio.gather(*propose_all(registry, tables), return_exceptions=True), 5)


def propose_all(registry: TableRegistry, tables: list[Table]) -> list[asyncio.Future[int | None]]:
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
        assert await asyncio.wait_for(proposed, 5) == version + 1
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
        table.apply_now(seat, action)  # what `act` and the turn clock do: written and applied at once
        assert await asyncio.wait_for(proposed, 5) is None, "a move chosen for an old version was applied"
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
        # Each table's next move fails to be written (a move's write waits for the one before to be applied,
        # so what a table shows now stays): however late a loaded machine lets each of them try.
        await until(lambda: all(t.paused_by_disk for t in tables), 20)
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
        assert results[1:] == [v + 1 for v in versions[1:]], "one bad move failed the moves written with it"
        assert [t.version for t in tables] == [versions[0]] + [v + 1 for v in versions[1:]]
        assert_log_matches(store, tables[1:])
    store.close()


async def test_a_bug_while_applying_a_move_reaches_its_bot_and_every_other_move_lands(tmp_path: Path) -> None:
    store = Store(tmp_path / "toadstool.db")
    async with TableRegistry(bot_delay=3600.0, store=store) as registry:
        tables = [registry.create("uno", 2, bots=2, seed=i)[0] for i in range(3)]
        await asyncio.sleep(0)

        def buggy() -> None:
            raise StopIteration  # a bare next() in a game's code: asyncio will not put it in a future

        tables[0]._check_finished = buggy  # type: ignore[method-assign]
        versions = [t.version for t in tables]
        results = await written_together(registry, tables)
        assert isinstance(results[0], RuntimeError)
        assert results[1:] == [v + 1 for v in versions[1:]]
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


# -- people's moves: Table.act goes through the same group commit -----------------------------------------


def _people_table(registry: TableRegistry, seed: int) -> tuple[Table, int, str]:
    """A started 2-seat UNO table of two people; the seat to act and the id of its first legal action."""
    table, _ = registry.create("uno", 2, seed=seed)
    table.join("Ann", None)
    table.join("Bob", None)
    seat = table.engine.to_act(table.state)[0]
    return table, seat, action_id(table.engine.legal_actions(table.state, seat)[0])


async def test_peoples_moves_of_many_tables_share_one_transaction_and_are_answered_only_once_it_committed(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path / "toadstool.db")
    async with TableRegistry(bot_delay=3600.0, store=store) as registry:
        tables = [_people_table(registry, seed) for seed in range(10)]
        versions = [table.version for table, _, _ in tables]
        moves: list[asyncio.Task[tuple[int, bool]]] = []
        # At each statement: how many moves were answered, and how many tables had moved.
        seen: list[tuple[str, int, int]] = []

        def trace(statement: str) -> None:
            moved = sum(t.version != v for (t, _, _), v in zip(tables, versions, strict=True))
            seen.append((statement, sum(m.done() for m in moves), moved))

        store.db.set_trace_callback(trace)
        moves.extend(
            asyncio.create_task(table.act(seat, wanted, table.version, f"move-{i}"))
            for i, (table, seat, wanted) in enumerate(tables)
        )
        answers = await asyncio.wait_for(asyncio.gather(*moves), 5)
        store.db.set_trace_callback(None)
        assert answers == [(v + 1, False) for v in versions]
        inserts = [s for s in seen if s[0].startswith("INSERT INTO actions")]
        commits = [s for s in seen if s[0] == "COMMIT"]
        assert len(inserts) == 10
        assert len(commits) == 1, f"10 people's moves of one loop turn took {len(commits)} transactions"
        assert commits[0][1:] == (0, 0), "a move was answered or applied before its transaction committed"
        assert_log_matches(store, [table for table, _, _ in tables])
        assert [a.request_id for a in stored_actions(store)[tables[3][0].table_id]] == ["move-3"]
    store.close()


async def test_the_same_request_twice_in_one_turn_is_applied_once_and_answered_twice(tmp_path: Path) -> None:
    store = Store(tmp_path / "toadstool.db")
    async with TableRegistry(bot_delay=3600.0, store=store) as registry:
        table, seat, wanted = _people_table(registry, 4)
        version = table.version
        first, again = await asyncio.wait_for(
            asyncio.gather(
                table.act(seat, wanted, version, "the-same-request"),
                table.act(seat, wanted, version, "the-same-request"),
            ),
            5,
        )
        assert (first, again) == ((version + 1, False), (version + 1, True))
        assert table.version == version + 1
        assert_log_matches(store, [table])
    store.close()


async def test_two_moves_of_one_seat_at_one_version_in_one_turn_apply_the_first_and_refuse_the_second(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path / "toadstool.db")
    async with TableRegistry(bot_delay=3600.0, store=store) as registry:
        table, seat, wanted = _people_table(registry, 6)
        version = table.version
        first, second = await asyncio.wait_for(
            asyncio.gather(
                table.act(seat, wanted, version, "click-1"),
                table.act(seat, wanted, version, "click-2"),  # a double click: a fresh id each time
                return_exceptions=True,
            ),
            5,
        )
        assert first == (version + 1, False)
        assert isinstance(second, TableError), second
        assert second.kind is ErrorKind.NOT_LEGAL, second  # the ladder's answer now: it is the other seat's turn
        assert table.version == version + 1
        assert_log_matches(store, [table])
    store.close()


async def test_a_person_taking_their_seat_back_in_the_turn_their_bot_moved_wins_over_the_bot(tmp_path: Path) -> None:
    store = Store(tmp_path / "toadstool.db")
    async with TableRegistry(bot_delay=3600.0, store=store) as registry:
        table, seat, wanted = _people_table(registry, 8)
        hosting.hand_to_bot(table, seat)
        version = table.version
        choice = table.bot_choice()
        assert choice is not None
        assert choice[0] == seat
        # The person's call starts in this loop turn after the bot has proposed its move, before it is written.
        person = asyncio.ensure_future(table.act(seat, wanted, version, "i-am-back"))
        bots = registry.moves.propose(table, seat, choice[1], table.engine.apply(table.state, *choice))
        assert await asyncio.wait_for(bots, 5) is None, "the bot moved for a person who had just acted"
        assert await asyncio.wait_for(person, 5) == (version + 1, False)
        assert not table.seats[seat].bot_controlled
        assert table.requests["i-am-back"].version == version + 1
        assert_log_matches(store, [table])
    store.close()


async def test_a_persons_move_the_disk_refuses_changes_nothing_and_says_so(tmp_path: Path) -> None:
    store = Store(tmp_path / "toadstool.db")
    async with TableRegistry(bot_delay=3600.0, store=store) as registry:
        table, seat, wanted = _people_table(registry, 9)
        version = table.version
        store.db.execute("PRAGMA query_only = ON")  # every write now fails, as on a full or read-only disk
        with pytest.raises(DiskUnavailable, match="read-only"):
            await asyncio.wait_for(table.act(seat, wanted, version, "refused-by-disk"), 5)
        assert table.version == version
        assert "refused-by-disk" not in table.requests
        assert table.paused_by_disk is not None
        assert any("The game is paused" in e.text for _, e in table.events)
        store.db.execute("PRAGMA query_only = OFF")
        assert await asyncio.wait_for(table.act(seat, wanted, version, "refused-by-disk"), 5) == (
            version + 1,
            False,
        )
        assert table.paused_by_disk is None
        assert_log_matches(store, [table])
    store.close()


async def test_a_double_click_while_the_disk_refuses_is_refused_by_the_disk_twice(tmp_path: Path) -> None:
    """The kept move's write fails, so the table is unchanged: the dropped one is proposed again and gets its
    own answer from the disk (before, the ladder passed again and the person got an internal error)."""
    store = Store(tmp_path / "toadstool.db")
    async with TableRegistry(bot_delay=3600.0, store=store) as registry:
        table, seat, wanted = _people_table(registry, 6)
        version = table.version
        store.db.execute("PRAGMA query_only = ON")
        answers = await asyncio.wait_for(
            asyncio.gather(
                table.act(seat, wanted, version, "click-1"),
                table.act(seat, wanted, version, "click-2"),
                return_exceptions=True,
            ),
            5,
        )
        store.db.execute("PRAGMA query_only = OFF")
        assert [type(a) for a in answers] == [DiskUnavailable, DiskUnavailable], answers
        assert table.version == version
        assert_log_matches(store, [table])
    store.close()


async def test_a_bug_applying_the_kept_move_leaves_the_dropped_one_to_be_tried_again(tmp_path: Path) -> None:
    store = Store(tmp_path / "toadstool.db")
    async with TableRegistry(bot_delay=3600.0, store=store) as registry:
        table, seat, wanted = _people_table(registry, 6)
        version = table.version
        check_finished = table._check_finished
        calls: list[object] = []

        def buggy_once() -> None:
            calls.append(table.version)
            if len(calls) == 1:
                raise ValueError("a game bug")
            check_finished()

        table._check_finished = buggy_once  # type: ignore[method-assign]
        first, second = await asyncio.wait_for(
            asyncio.gather(
                table.act(seat, wanted, version, "a-1"),
                table.act(seat, wanted, version, "a-2"),
                return_exceptions=True,
            ),
            5,
        )
        assert isinstance(first, ValueError), first
        # The first move was written, then failed to apply: what it left is the bug's, and the second move
        # is answered by the ladder as the table now stands, never by an internal error of the commit's.
        assert isinstance(second, TableError), second
    store.close()


@pytest.mark.parametrize(
    ("interruption", "refusal"),
    [
        (lambda table, seat: hosting.end(table, hosting.ENDED_BY_HOST), ErrorKind.GAME_OVER),  # EndTable
        (hosting.kick, ErrorKind.NOT_YOUR_SEAT),  # the host removes the person: a bot plays their seat now
        (lambda table, seat: table.leave(seat), ErrorKind.NOT_YOUR_SEAT),  # they leave from another device
    ],
    ids=["the host ends the table", "the host removes the person", "the person leaves"],
)
async def test_a_move_waiting_when_its_table_or_seat_changes_without_a_new_version_is_never_applied(
    tmp_path: Path, interruption: Callable[[Table, int], None], refusal: ErrorKind
) -> None:
    """Ending a table, removing a person and leaving change no version: each is checked for itself."""
    store = Store(tmp_path / "toadstool.db")
    async with TableRegistry(bot_delay=3600.0, store=store) as registry:
        table, seat, wanted = _people_table(registry, 3)
        version = table.version
        move = asyncio.ensure_future(table.act(seat, wanted, version, "a-waiting-move"))
        await asyncio.sleep(0)  # the move is checked and proposed; its transaction comes after this turn
        assert not move.done()
        interruption(table, seat)  # handled in the same turn
        last_shown = table.events[-1]
        with pytest.raises(TableError) as refused:
            await asyncio.wait_for(move, 5)
        assert refused.value.kind is refusal
        assert table.version == version
        assert table.events[-1] is last_shown, "the move was shown after what interrupted it"
        assert_log_matches(store, [table])
    store.close()


async def test_a_cancelled_move_writes_nothing_and_its_retry_is_applied_once(tmp_path: Path) -> None:
    store = Store(tmp_path / "toadstool.db")
    async with TableRegistry(bot_delay=3600.0, store=store) as registry:
        table, seat, wanted = _people_table(registry, 3)
        version = table.version
        move = asyncio.ensure_future(table.act(seat, wanted, version, "cancelled"))
        await asyncio.sleep(0)
        move.cancel()  # the client went away, or its deadline passed, before the transaction
        await asyncio.gather(move, return_exceptions=True)
        await asyncio.sleep(0)
        assert table.version == version
        assert stored_actions(store)[table.table_id] == []
        assert await asyncio.wait_for(table.act(seat, wanted, version, "cancelled"), 5) == (version + 1, False)
        assert await asyncio.wait_for(table.act(seat, wanted, version, "cancelled"), 5) == (version + 1, True)
        assert_log_matches(store, [table])
    store.close()
