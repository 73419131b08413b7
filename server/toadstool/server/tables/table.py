"""The table's shell: a `TableCore` on the server's event loop. It owns the only write path (each request
one transaction, `one_write`; every move, people's, bots' and the turn clock's, through the group commit,
`GroupCommit`), the waiters of everyone who follows the table, and a person's action from its check to its
answer (`Table.act`).

The core decides and says what must be written and told; this writes it through the store's Protocol
(`TableStore`) before anyone is told, and puts the core back as it was when the disk refuses. A move waits
for its group commit between check and apply, and is applied only if its table is still as it was checked
(the same version, still playing, the seat still its mover's), so actions are atomic. toadstool.messages
builds what each viewer is sent; `autoplay` runs the bots and clocks; the registry makes every table.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from toadstool.engine import action_id
from toadstool.i18n import tr
from toadstool.server.records import DiskUnavailable, StoredAction, TableStore
from toadstool.server.tables.core import TableCore
from toadstool.server.tables.errors import ErrorKind, TableError
from toadstool.server.tables.history import KEEP_ACTIONS, KEEP_EVENTS, Window
from toadstool.server.tables.pacing import Beat, Clock
from toadstool.server.tables.seats import AppliedRequest, Seat, Status
from toadstool.server.tables.thinking import ThinkingPool, think
from toadstool.server.tables.waiters import Waiters, kept_loop
from toadstool.server.tables.writes import (
    DeviceTokenWrite,
    EndWrite,
    FinishWrite,
    NoteWrite,
    SeatWrite,
    StartWrite,
    Write,
)

#: How many times `act` proposes one move whose group commit dropped it with the table unchanged (each
#: time another move of the table, written first, failed): a bound that a live table never reaches.
MAX_PROPOSALS = 8


@dataclass(kw_only=True)
class Table(TableCore):
    """One table of a running server: its core, its store, and whoever waits for it to change."""

    #: Where its log is written (SQLite's, or the memory's for `--no-db` and tests).
    store: TableStore
    #: The server's beat that bots' delays end on (held while the server is behind on delivering).
    beat: Beat = field(default_factory=Beat)
    #: Where this table's moves wait to be written with the other tables' (the server's one).
    moves: GroupCommit = field(default_factory=lambda: GroupCommit())
    #: Where its hard bots think (the server's worker processes: `thinking`); None: in the caller's thread.
    thinking: ThinkingPool | None = None
    #: The table's time and timers (`now`, the turn clock's and takeover's deadlines): the event loop's
    #: unless given (tests move a clock by hand).
    clock: Clock | None = None
    #: The parts of this table's messages, built and owned by toadstool.server.messages (`MessageCache`):
    #: the table only carries it, so that it lives and goes with the table.
    message_cache: Any = field(default=None, init=False, repr=False)
    _changed: Waiters = field(default_factory=Waiters, init=False, repr=False)
    _people: Waiters = field(default_factory=Waiters, init=False, repr=False)
    #: Whether a transaction (`one_write`) is open: its changes are written when it closes.
    _writing: bool = field(default=False, init=False, repr=False)

    def new_windows(self) -> None:
        """Windows that drop what the store can read back: a long game keeps only its recent past in memory."""
        self.events = Window(KEEP_EVENTS, lambda: list(self.whole_log().events))
        self.actions = Window(KEEP_ACTIONS, lambda: list(self.whole_log().actions))

    def whole_log(self) -> TableCore:
        """This table's whole history, replayed from its store on a core of its own (for GetHistory and
        the windows' past), dropped after use."""
        copy = self.setup_copy()
        copy.replay(*self.store.history(self.table_id))
        return copy

    def restored_finished(self, version: int) -> None:
        """Restore a finished table without replaying it: its status and version now, its state (and its
        recent events) only when someone looks (a restart with many finished tables replays none of them)."""
        self.status, self.version, self.unreplayed = Status.FINISHED, version, True
        for name in ("state", "events", "actions"):  # read next through `Replayed`, which replays first
            self.__dict__.pop(name, None)

    def replay_finished(self) -> None:
        self.unreplayed = False
        self.version = 0
        self.new_windows()
        self.replay(*self.store.history(self.table_id))
        self.status = Status.FINISHED  # also when it was ended before its game was (`ended`)

    # -- telling -----------------------------------------------------------------------------------------

    def touch(self) -> None:
        """Wake every watcher. Outside a transaction, what the change must write is written first: a note
        on its own (someone came back) is shown even when the disk refuses it (what happened did happen)."""
        super().touch()
        if not self._writing and self.unwritten:
            self._write_loose()
        self._changed.wake_all()

    def note(self, text: str, durable: bool = True) -> None:
        """A note on its own is written at once (inside a transaction, with it)."""
        super().note(text, durable)
        if not self._writing and self.unwritten:
            self._write_loose()

    async def wait_change(self, seen_revision: int) -> None:
        """Return once the table's revision differs from `seen_revision`."""
        while self.revision == seen_revision:
            await self._changed.wait()

    def next_change(self) -> asyncio.Future[None]:
        """A future done at the table's next change (its revision moves on): the Watch stream's wait,
        awaited without a coroutine around it (`Waiters.next`). `forget_change` it when no longer waiting."""
        return self._changed.next()

    def forget_change(self, future: asyncio.Future[None]) -> None:
        """Let go of a `next_change` future whose stream ended before the change came."""
        self._changed.forget(future)

    def people_changed(self) -> None:
        super().people_changed()
        self._people.wake_all()

    async def wait_people(self, seen: int) -> None:
        """Return once `people_revision` differs from `seen`."""
        while self.people_revision == seen:
            await self._people.wait()

    # -- writing -------------------------------------------------------------------------------------------

    @contextlib.contextmanager
    def one_write(self) -> Iterator[None]:
        """Everything changed inside is written in one transaction (`TableStore.batch`) when it ends; if
        that fails, the core is put back as it was (`TableCore.restore`), so memory never shows what the
        disk does not have. A transaction inside another is part of it."""
        if self._writing:
            yield
            return
        kept, self._writing = self.saved(), True
        try:
            with self.store.batch():
                yield
                for write in self.take_writes():
                    self._write(write)
        except BaseException:
            self.restore(kept)
            raise
        finally:
            self._writing = False

    def _write_loose(self) -> None:
        """Write what changes outside a transaction asked for (notes, a game's end), each on its own."""
        for write in self.take_writes():
            try:
                self._write(write)
            except DiskUnavailable as error:
                if not isinstance(write, FinishWrite):  # a finish not kept costs a replay after a restart
                    self.disk_refused(str(error))

    def _write(self, write: Write) -> None:
        store, table_id = self.store, self.table_id
        match write:
            case SeatWrite(seat):
                store.set_seat(table_id, seat)
            case NoteWrite(version, text):
                store.add_note(table_id, version, text)
            case StartWrite():
                store.set_started(table_id)
            case FinishWrite(version, at):
                store.set_finished(table_id, version, at)
            case EndWrite(version, reason, at):
                store.set_ended(table_id, version, reason, at)
            case DeviceTokenWrite(digest):
                store.set_device_token(table_id, digest)

    # -- the core's requests, each one transaction --------------------------------------------------------

    def join(self, name: str, seat: int | None, request_id: str = "") -> tuple[int, str]:
        with self.one_write():
            return super().join(name, seat, request_id)

    def add_bot(self, seat: int | None, bot_level: int = 0) -> int:
        with self.one_write():
            return super().add_bot(seat, bot_level)

    def set_bot_level(self, seat: int, bot_level: int) -> None:
        with self.one_write():
            super().set_bot_level(seat, bot_level)

    def leave(self, seat: int, quietly: bool = False) -> None:
        with self.one_write():
            super().leave(seat, quietly)

    def start(self) -> None:
        with self.one_write():
            super().start()

    def end(self, reason: str) -> None:
        with self.one_write():
            super().end(reason)

    def set_device_token(self, digest: bytes) -> None:
        with self.one_write():
            super().set_device_token(digest)

    # -- moves ---------------------------------------------------------------------------------------------

    async def act(self, seat: int, wanted: str, expected_version: int, request_id: str) -> tuple[int, bool]:
        """A person's action with id `wanted` for `seat`, if the ladder (`TableCore.check`) accepts it;
        returns (new version, replayed) once it is on disk. It is written with the other moves of its loop
        turn (`GroupCommit`); if it was dropped there (another move of this table came first, the host ended
        the table), the ladder answers again as the table now stands: replayed, refused, or (another's move
        failed to be written, and the table is unchanged) proposed once more. A person whose seat a bot
        plays takes it back by acting (unless the request is a retry of one already answered)."""
        holder = self.seats[seat]
        if holder.bot_controlled and self.status is Status.PLAYING and request_id not in self.requests:
            self.reclaim(holder)
        for _ in range(MAX_PROPOSALS):
            action = self.check(seat, wanted, expected_version, request_id)
            if isinstance(action, AppliedRequest):
                return action.version, True
            state = self.engine.apply(self.state, seat, action)
            try:
                version = await self.moves.propose(self, seat, action, state, request_id)
            except DiskUnavailable as error:
                self.disk_refused(str(error))
                raise
            if version is not None:
                return version, False
            if self.seats[seat] is not holder:  # removed by the host, or left, while the move waited
                raise TableError(
                    ErrorKind.NOT_YOUR_SEAT, tr("seat {seat} is no longer yours; nothing was played", seat=seat)
                )
        raise TableError(
            ErrorKind.STALE_VERSION, tr("the table kept changing while your action waited; look at the latest view")
        )

    def apply_now(self, seat: int, action: Any, note: str = "") -> int:
        """Write one legal move in a transaction of its own and apply it at once; return the new version.

        For tools and tests that drive a table by hand, without an event loop (bench/memory.py, the
        durability tests); the server's moves all go through `GroupCommit.propose`. Both write a move to
        the log first and land it the same way (`advance`), so memory never shows what the disk does not
        have."""
        state = self.engine.apply(self.state, seat, action)
        try:
            self.store.add_action(self.table_id, StoredAction(self.version + 1, seat, action_id(action), "", note))
        except DiskUnavailable as error:
            self.disk_refused(str(error))
            raise
        self.advance(seat, action, state, "", note)
        return self.version

    def bot_choice(self) -> tuple[int, Any] | None:
        """The next bot action at this version, if any bot wants to act: waited-for bots first (a hard bot
        thinks in the server's worker processes, `thinking`)."""
        if self.status is not Status.PLAYING:
            return None
        state = self.state  # one version throughout, even while the table moves on (a hard bot thinks in a thread)
        waiting = self.engine.to_act(state)
        order = list(waiting) + [s for s in range(self.players) if s not in waiting]
        for index in order:
            seat = self.seats[index]
            if not seat.played_by_bot or seat.bot is None:
                continue
            legal = self.engine.legal_actions(state, index)
            if not legal:
                continue
            view = self.engine.view(state, index) if seat.bot.needs_view else None
            action = think(self.thinking, self.spec.name, seat.bot, view, legal, index in waiting, self.rng)
            if action is not None:
                return index, action
        return None


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
        self.holder: Seat = table.seats[seat]

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
    proposed first. This is the server's one way a move reaches the log and the table (`Table.apply_now`
    is the same write for tools and tests that drive a table without an event loop).
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
        by_store: dict[TableStore, list[_Move]] = {}
        for move in live.values():
            by_store.setdefault(move.table.store, []).append(move)
        for store, proposed in by_store.items():
            for move in _write(store, proposed):
                try:
                    move.table.advance(move.seat, move.action, move.state, move.request_id, move.note)
                except Exception as error:  # a bug: its mover is told, and every other move still lands
                    _fail(move, error)
                else:
                    move.future.set_result(move.version + 1)


def _write(store: TableStore, moves: list[_Move]) -> list[_Move]:
    """Write `moves` to the log and return those now in it: all in one transaction, or, if that fails, each
    in its own, so that one move that cannot be written (or a write that fails once) costs only its own
    table's move. A move not written is failed (its mover is told why) and never applied."""
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
