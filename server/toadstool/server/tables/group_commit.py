"""Group commit: the moves (people's and bots') proposed in the same loop turn are written to the store in one
transaction and applied only once it has committed; a move whose table moved on meanwhile is dropped unwritten.
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from toadstool.engine import Engine, action_id
from toadstool.server.records import DiskUnavailable, StoredAction, TableStore
from toadstool.server.tables.seats import Seat, Status
from toadstool.server.tables.waiters import kept_loop


class Table(Protocol):
    """What the group commit needs of a table (toadstool.server.tables.table.Table is one): to tell whether
    a move is still current, write it to the table's store, and land it."""

    table_id: str
    version: int
    status: Status
    seats: list[Seat]
    store: TableStore | None

    @property
    def engine(self) -> Engine[Any, Any]: ...

    @property
    def state(self) -> Any: ...

    def advance(self, seat: int, action: Any, state: Any, request_id: str, note: str) -> None: ...

    def touch(self) -> None: ...

    def disk_refused(self, error: DiskUnavailable) -> None: ...


class _Move:
    """A move waiting for its transaction: the table, the version it was chosen at, the move and the state
    it leads to, whose it is (a person's, with their request id and the seat they held, or a bot's), and the
    mover's future (the new version once applied, None if it was dropped)."""

    __slots__ = ("action", "by_person", "future", "holder", "note", "request_id", "seat", "state", "table", "version")

    def __init__(
        self,
        table: Table,
        seat: int,
        action: Any,
        state: Any,
        request_id: str | None,
        note: str,
        future: asyncio.Future[int | None],
    ) -> None:
        self.table, self.version, self.seat, self.action, self.state = table, table.version, seat, action, state
        self.by_person, self.request_id, self.note, self.future = request_id is not None, request_id or "", note, future
        self.holder = table.seats[seat]

    def stored(self) -> StoredAction:
        return StoredAction(self.version + 1, self.seat, action_id(self.action), self.request_id, self.note)

    def still_current(self) -> bool:
        """The table is where the move was chosen: still playing (its host may have ended it) at the same
        version, and the seat still its mover's: the same person (not removed, nor gone), or a bot that still
        plays it. Ending, removing and leaving change no version, so each is checked for itself."""
        table = self.table
        if table.version != self.version or table.status is not Status.PLAYING:
            return False
        held = table.seats[self.seat]
        return held is self.holder if self.by_person else held.played_by_bot


class GroupCommit:
    """Moves made in the same turn of the event loop, written to the durable log in one transaction and
    applied only once it has committed.

    Shared by every table of a server. The beat wakes bots together, and a busy server's people's Act
    calls arrive many to a loop turn (each from its own table), so moves come in batches; a transaction
    per move was about a tenth of the server's time (bench/load.py, `--server-store none`), and for
    people acting, 8 % of a move (issue #24). A move stays a proposal until its transaction commits, so
    nothing is shown or acknowledged before it is durable and a failed write changes nothing; a move
    whose table changed meanwhile (another move came first; the host ended the table; the seat changed
    hands) is dropped, never written: its bot chooses again, and `Table.act` answers its person as the
    table now stands. Within a turn the first proposal wins: a bot's move proposed before a person's (for
    another seat of a simultaneous game) makes the person's stale, as does a turn clock's default move
    proposed first. This is the server's one way a move reaches the log and the table (`apply_now` is the
    same write for tools and tests that drive a table without an event loop).
    """

    def __init__(self) -> None:
        self._moves: list[_Move] = []
        self._flush_handle: asyncio.Handle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def propose(
        self, table: Table, seat: int, action: Any, state: Any, request_id: str | None = None, note: str = ""
    ) -> asyncio.Future[int | None]:
        """Queue `table`'s move (leading to `state`) for this turn's transaction: a person's with their
        request id ("" for one made for them by the turn clock, with its `note`), a bot's with None. The
        future is the new version once applied, None if the table moved on first (or the seat changed
        hands), or raises what stopped the write."""
        loop = kept_loop(self._loop)
        if loop is not self._loop:  # any moves still queued belonged to a closed loop
            self._loop, self._moves, self._flush_handle = loop, [], None
        future: asyncio.Future[int | None] = loop.create_future()
        self._moves.append(_Move(table, seat, action, state, request_id, note, future))
        if self._flush_handle is None:
            self._flush_handle = loop.call_soon(self._flush)
        return future

    def close(self) -> None:
        """Drop the moves not yet written (nobody has seen them): the server is stopping."""
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        for move in self._moves:
            move.future.cancel()
        self._moves = []

    def _flush(self) -> None:
        self._flush_handle = None
        moves, self._moves = self._moves, []
        live: dict[str, _Move] = {}  # by table: one move per table and version
        for move in moves:
            current = (
                move.still_current()
                and move.table.table_id not in live
                and not move.future.done()  # its mover went away (a call cancelled, a table forgotten, a stop)
            )
            if current:
                live[move.table.table_id] = move
            elif not move.future.done():
                move.future.set_result(None)
        by_store: dict[TableStore | None, list[_Move]] = {}
        for move in live.values():
            by_store.setdefault(move.table.store, []).append(move)
        for store, proposed in by_store.items():
            for move in _write(store, proposed):
                try:
                    _land(move.table, move.seat, move.action, move.state, move.request_id, move.note)
                except Exception as error:  # a bug: its mover is told, and every other move still lands
                    _fail(move, error)
                else:
                    move.future.set_result(move.version + 1)


def apply_now(table: Table, seat: int, action: Any, note: str = "") -> int:
    """Write one legal move in a transaction of its own and apply it at once; return the new version.

    For tools and tests that drive a table by hand, without an event loop (bench/memory.py, the durability
    tests); the server's moves all go through `GroupCommit.propose`. Both write a move to the log first and
    land it the same way (`_land`), so memory never shows what the disk does not have."""
    state = table.engine.apply(table.state, seat, action)
    if table.store is not None:
        stored = StoredAction(table.version + 1, seat, action_id(action), "", note)
        try:
            table.store.add_action(table.table_id, stored)
        except DiskUnavailable as error:
            table.disk_refused(error)
            raise
    _land(table, seat, action, state, "", note)
    return table.version


def _land(table: Table, seat: int, action: Any, state: Any, request_id: str, note: str) -> None:
    """A written move becomes the table's: its state and version move on and its watchers are woken."""
    table.advance(seat, action, state, request_id, note)
    table.touch()


def _write(store: TableStore | None, moves: list[_Move]) -> list[_Move]:
    """Write `moves` to the log and return those now in it: all in one transaction, or, if that fails, each
    in its own, so that one move that cannot be written (or a write that fails once) costs only its own
    table's move. A move not written is failed (its mover is told why) and never applied."""
    if store is None:
        return moves
    try:
        store.add_actions([(m.table.table_id, m.stored()) for m in moves])
        return moves
    except Exception:  # e.g. the disk is full: nothing of it was written; find out move by move
        pass
    written = []
    for move in moves:
        try:
            store.add_actions([(move.table.table_id, move.stored())])
        except Exception as error:
            _fail(move, error)
        else:
            written.append(move)
    return written


def _fail(move: _Move, error: Exception) -> None:
    # A future cannot hold a StopIteration (asyncio refuses it with a TypeError): a game bug raising one
    # must still reach its bot, and never escape the callback that writes every table's moves.
    move.future.set_exception(RuntimeError(repr(error)) if isinstance(error, StopIteration) else error)
