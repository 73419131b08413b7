"""One table: its lifecycle (lobby -> playing -> finished), seats and tokens, applying actions (after the
validation ladder, `ladder`; written with the other moves of their loop turn, `GroupCommit`), one transaction
for each other request (join, leave, start...), what it shows while the disk refuses its writes, and the
cache of update parts its watchers share.

Everything here runs on one asyncio loop and every mutation is synchronous. A move waits for its group
commit between check and apply, and is applied only if its table is still as it was checked (the same
version, still playing, the seat still its mover's: `GroupCommit`), so actions are atomic. Engines decide
rules; toadstool.messages builds what each viewer is sent from a table; toadstool.service speaks gRPC;
`autoplay` runs its bots and clocks; `history` keeps its recent past.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import random
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toadstool.bots import level_bot, table_budget
from toadstool.engine import (
    BadOptions,
    Engine,
    Event,
    action_id,
    current_action_id,
    name_seats,
    seat_ref,
)
from toadstool.games import GameSpec
from toadstool.i18n import Text, tr
from toadstool.server.records import DiskUnavailable, StoredAction, TableStore
from toadstool.server.tables.action_ids import id_of
from toadstool.server.tables.errors import ErrorKind, TableError
from toadstool.server.tables.group_commit import GroupCommit
from toadstool.server.tables.history import KEEP_ACTIONS, KEEP_EVENTS, Replayed, Window
from toadstool.server.tables.host_log import tell_connection, tell_host
from toadstool.server.tables.pacing import Beat, Clock
from toadstool.server.tables.seats import (
    AppliedRequest,
    Seat,
    SeatKind,
    Status,
    bot_seat,
    checked_level,
    join_token,
    new_token,
    open_seat,
    sanitize_name,
    token_matches,
)
from toadstool.server.tables.thinking import ThinkingPool, think
from toadstool.server.tables.waiters import Waiters

log = logging.getLogger(__name__)


#: How many events a first update carries when the client gives no version to resume from.
HISTORY_ON_JOIN = 30


#: How many missed events a resumed stream carries at most (its view is always complete).
MAX_RESUME_EVENTS = 2000


#: Longest turn clock or takeover grace a table may ask for (a day).
MAX_CLOCK_SECONDS = 86_400


#: How many request ids a table remembers for idempotent retries.
REMEMBERED_REQUESTS = 512

#: The store's note on an action made for a person whose turn clock ran out.
TIMEOUT_NOTE = "timeout"


@dataclass
class Table:
    """One game being played: its seats, its state and everything a watcher needs to follow it."""

    table_id: str
    spec: GameSpec
    players: int
    #: The options as the person gave them: what clients are shown.
    raw_options: dict[str, str]
    #: The game's creation record (`engine.creation_record`), made once at creation and stored: what
    #: `engine.new` is given, for the start, the history and every replay.
    options: dict[str, Any]
    seed: int
    name: str
    manual_start: bool
    bot_delay: float
    host_token_hash: bytes
    seats: list[Seat] = field(default_factory=list)
    #: Hash of the token a host issued for hardware input (a roll button); None until issued.
    device_token_hash: bytes | None = None
    #: Seconds per decision before a default move is made for a person (0: no clock).
    turn_seconds: float = 0.0
    #: Seconds a disconnected person's seat waits before a bot plays it (0: never).
    takeover_seconds: float = 0.0
    #: Seconds a table waits once every person has gone before it ends as abandoned (0: never; the server's).
    abandon_seconds: float = 0.0
    #: Why the table was ended before its game was over (`hosting.end`); None otherwise.
    ended: str | None = None
    store: TableStore | None = None
    #: The server's beat that bots' delays end on (held while the server is behind on delivering); each
    #: table has its own in tests.
    beat: Beat = field(default_factory=Beat)
    #: Where this table's moves wait to be written with the other tables' (the server's one).
    moves: GroupCommit = field(default_factory=GroupCommit)
    #: Where its hard bots think (the server's worker processes: `thinking`); None: in the caller's thread.
    thinking: ThinkingPool | None = None
    #: What the turn clock and takeover tell the time and set their timers by (`now`): the event loop's
    #: unless given (tests move a clock by hand).
    clock: Clock | None = None
    #: The server's wall clock (Unix seconds; tests give one they move): `finished_at` is told by it.
    wall_clock: Callable[[], float] = time.time
    #: When the table finished (by `wall_clock`; None while it has not): the listing leaves it out a day later.
    finished_at: float | None = None
    #: The table's time (`now`) of the last accepted action (or the start): the turn clock runs from here.
    decision_started: float = 0.0
    #: The table's time a person last joined, left, connected or disconnected (or it was made): abandonment
    #: runs from here.
    people_seen: float = field(default=-1.0)
    status: Status = Status.LOBBY
    #: The game's state (None in the lobby). A finished table restored without replaying its game
    #: (`restored_finished`) rebuilds it (and its recent events and actions) the first time it is read.
    state: Replayed[Any] = Replayed()
    unreplayed: bool = field(default=False, init=False, repr=False)
    version: int = 0
    #: Raised by every change a watcher should see (actions, seats, connections).
    revision: int = 0
    #: Raised when who is at the table changes (`people_changed`): all the takeover and abandonment clocks
    #: depend on, so they need not wake at every move.
    people_revision: int = 0
    #: (version, event) and (seat, action) of the recent past (`Window`: iterated, the whole game, read back
    #: from the store). None when constructed: a window of the table's own.
    events: Replayed[Window[tuple[int, Event]]] = Replayed()
    actions: Replayed[Window[tuple[int, Any]]] = Replayed()
    requests: OrderedDict[str, AppliedRequest] = field(default_factory=OrderedDict)
    #: Why the disk refused this table's last write (a person-readable message), until one works again.
    paused_by_disk: str | None = None
    #: Whoever waits for the table's next change (its streams, its bots and clocks): see `wait_change`.
    _changed: Waiters = field(default_factory=Waiters, init=False, repr=False)
    _people: Waiters = field(default_factory=Waiters, init=False, repr=False)
    #: The parts of this table's messages, built and owned by toadstool.server.messages (`MessageCache`):
    #: the table only carries it, so that it lives and goes with the table.
    message_cache: Any = field(default=None, init=False, repr=False)
    #: Each seat that owes a decision now, and the version since which it has owed it without acting: a
    #: simultaneous decision (Level Up!'s vote) stays open while others decide (see `ladder.checked`).
    owing_since: dict[int, int] = field(default_factory=dict, init=False, repr=False)
    rng: random.Random = field(default_factory=random.Random)
    _replaying: bool = field(default=False, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.__dict__.get("events") is None or self.__dict__.get("actions") is None:
            self._new_windows()
        if self.people_seen < 0:
            self.people_seen = self.now()

    def _new_windows(self) -> None:
        def stored() -> bool:
            return self.store is not None

        self.events = Window(KEEP_EVENTS, lambda: list(self.whole_log().events), stored)
        self.actions = Window(KEEP_ACTIONS, lambda: list(self.whole_log().actions), stored)

    def whole_log(self) -> Table:
        """This table's whole history, rebuilt from its store on a copy of it: what its windows dropped (for
        GetHistory and replays). The copy has no store, so it keeps everything, and is dropped after use."""
        assert self.store is not None, "a table without a store drops nothing"
        actions, notes = self.store.history(self.table_id)
        copy = dataclasses.replace(
            self,
            store=None,
            state=None,
            events=None,  # windows of its own (the copy's replay must not add to the table's)
            actions=None,
            status=Status.LOBBY,
            version=0,
            revision=0,
            requests=OrderedDict(),
            paused_by_disk=None,
            seats=[Seat(index=s.index, name=s.name, kind=s.kind) for s in self.seats],
        )
        copy.replay(actions, notes)
        return copy

    def restored_finished(self, version: int) -> None:
        """Restore a finished table without replaying it: its status and version now, its state (and its
        recent events) only when someone looks (a restart with many finished tables replays none of them)."""
        self.status, self.version, self.unreplayed = Status.FINISHED, version, True
        for name in ("state", "events", "actions"):  # read next through `Replayed`, which replays first
            self.__dict__.pop(name, None)

    def replay_finished(self) -> None:
        assert self.store is not None
        self.unreplayed = False
        actions, notes = self.store.history(self.table_id)
        self.version = 0
        self._new_windows()
        self.replay(actions, notes)
        self.status = Status.FINISHED  # also when it was ended before its game was (`ended`)

    @property
    def engine(self) -> Engine[Any, Any]:
        return self.spec.engine

    def now(self) -> float:
        """The table's time: its clock's, else the event loop's (asyncio's is `time.monotonic()`, read here
        directly, as when no loop runs yet)."""
        return self.clock.time() if self.clock is not None else time.monotonic()

    # -- change notification ---------------------------------------------------------------------------

    def touch(self) -> None:
        self.revision += 1
        self._changed.wake_all()

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
        """Who is at the table changed (a join, a leave, a connection, a seat a bot gave back, the start,
        the end): its clocks look again."""
        self.people_revision += 1
        self._people.wake_all()

    async def wait_people(self, seen: int) -> None:
        """Return once `people_revision` differs from `seen`."""
        while self.people_revision == seen:
            await self._people.wait()

    # -- seats --------------------------------------------------------------------------------------------

    def seat_of_token(self, token: str) -> int:
        """The seat whose token this is; UNAUTHENTICATED otherwise (tokens never cross tables)."""
        found = -1
        for seat in self.seats:
            if token_matches(token, seat.token_hash):
                found = seat.index
        if found < 0:
            raise TableError(
                ErrorKind.UNAUTHENTICATED,
                tr("that seat token is not valid at table {table}; join the table to get one", table=self.table_id),
            )
        return found

    def is_host(self, token: str) -> bool:
        return token_matches(token, self.host_token_hash)

    def require_host(self, token: str) -> None:
        if not token:
            raise TableError(
                ErrorKind.UNAUTHENTICATED,
                tr("no host token: send the token from CreateTable in the {key} metadata", key="x-host-token"),
            )
        if not self.is_host(token):
            raise TableError(
                ErrorKind.NOT_YOUR_SEAT,
                tr("only the host of table {table} may do that (send its host token)", table=self.table_id),
            )

    def open_seats(self) -> list[int]:
        return [s.index for s in self.seats if s.kind is SeatKind.EMPTY]

    def join(self, name: str, seat: int | None, request_id: str = "") -> tuple[int, str]:
        """Seat a person; returns (seat, secret token).

        With a `request_id` the join is idempotent: the token is derived from it (`join_token`), so a retry
        with the same id after a lost answer (a dropped connection, a server killed after its commit) gets
        the same seat and token back, even after a restart or once the table has started; no seat is ever
        held by a token nobody has. Everything the join writes (the seat and the start it triggers) is one
        transaction.
        """
        if request_id:
            for held in self.seats:
                if held.kind is SeatKind.HUMAN and held.token_hash is not None:
                    token, digest = join_token(request_id, self.table_id, held.index, self.host_token_hash)
                    if token_matches(token, held.token_hash):
                        return held.index, token
        clean = sanitize_name(name)
        if self.status is not Status.LOBBY:
            raise TableError(
                ErrorKind.NOT_PLAYING, tr("table {table} has already started; watch it instead", table=self.table_id)
            )
        index = open_seat(self.table_id, self.seats, seat)
        if request_id:
            token, digest = join_token(request_id, self.table_id, index, self.host_token_hash)
        else:
            token, digest = new_token()
        with self.one_write():
            self._set_seat(Seat(index=index, name=clean, kind=SeatKind.HUMAN, token_hash=digest))
            tell_host(self, tr("{name} joined (seat {seat})", name=clean, seat=index))  # before any start
            self.maybe_autostart()
        self.people_seen = self.now()
        self.people_changed()
        self.touch()
        return index, token

    @contextlib.contextmanager
    def one_write(self) -> Iterator[None]:
        """Everything written inside is one transaction (`TableStore.batch`); if it fails, the table is put back
        as it was before (its seats, status and state), so memory never shows what the disk does not have."""
        saved = (list(self.seats), self.status, self.state, len(self.events), self.decision_started, self.rng)
        try:
            with self.store.batch() if self.store is not None else contextlib.nullcontext():
                yield
        except BaseException:
            self.seats[:] = saved[0]
            self.status, self.state, self.decision_started, self.rng = saved[1], saved[2], saved[4], saved[5]
            del self.events[saved[3] :]
            raise

    def add_bot(self, seat: int | None, bot_level: int = 0) -> int:
        """Seat a bot playing at `bot_level` (BotLevel's value; 0: normal) in `seat` or the first open one."""
        bot_level = checked_level(bot_level)
        if self.status is not Status.LOBBY:
            raise TableError(ErrorKind.NOT_PLAYING, tr("table {table} has already started", table=self.table_id))
        index = open_seat(self.table_id, self.seats, seat)
        with self.one_write():
            self.seat_bot(index, bot_level)
            self.maybe_autostart()
        self.touch()
        return index

    def set_bot_level(self, seat: int, bot_level: int) -> None:
        """Make the bot in `seat` play at `bot_level` from its next decision on, in the lobby or in play
        (the host's change of mind needs no new table). Stored first, as every seat change is."""
        old = bot_seat(self.table_id, self.seats, seat, self.status is Status.FINISHED)
        bot_level = checked_level(bot_level)
        if old.bot_level != bot_level:
            bot = level_bot(self.spec, bot_level, table_budget(self.raw_options))
            with self.one_write():
                self._set_seat(Seat(index=seat, name=old.name, kind=SeatKind.BOT, bot=bot, bot_level=bot_level))
            self.touch()

    def seat_bot(self, index: int, bot_level: int = 0) -> None:
        taken = {s.name for s in self.seats}
        name = next(n for n in (f"Bot {i}" for i in range(1, 100)) if n not in taken)
        bot = level_bot(self.spec, bot_level, table_budget(self.raw_options))
        self._set_seat(Seat(index=index, name=name, kind=SeatKind.BOT, bot=bot, bot_level=bot_level))

    def _set_seat(self, seat: Seat) -> None:
        """Replace a seat, durably first."""
        if self.store is not None:
            self.store.set_seat(self.table_id, seat.stored())
        self.seats[seat.index] = seat

    def leave(self, seat: int, quietly: bool = False) -> None:
        """A person gives up their seat: empty in the lobby, played by a bot once the game runs (`quietly`:
        the caller, `hosting.kick`, says why itself)."""
        name = self.seats[seat].name
        with self.one_write():
            if self.status is Status.LOBBY:
                self._set_seat(Seat(index=seat))
            elif self.status is Status.PLAYING:
                old = self.seats[seat]
                self._set_seat(Seat(index=seat, name=old.name, kind=SeatKind.BOT, bot=self.spec.smart_bot()))
                if not quietly:
                    self.note(tr("{seat} left the table; a bot plays their seat", seat=seat_ref(seat)))
        self.people_seen = self.now()
        if not quietly:
            tell_host(self, tr("{name} left (seat {seat})", name=name, seat=seat))
        self.people_changed()
        self.touch()

    def set_connected(self, state: Seat, delta: int) -> None:
        """A stream for the seat `state` opened (+1) or closed (-1); a returning person takes their seat back.

        Takes the Seat object, not its index: a stream opened by someone who has since left or been kicked
        must not change the connection of whoever holds the seat now.
        """
        if self.seats[state.index] is not state:
            return
        before = state.connections
        state.connections = max(0, state.connections + delta)
        if state.kind is SeatKind.HUMAN and (before == 0) != (state.connections == 0):
            self.people_seen = self.now()
            tell_connection(self, state.name, lost=before != 0, again=state.ever_connected)
            state.ever_connected = True
        if state.connections > 0:
            state.away_since = None
            self.reclaim(state)
        elif state.kind is SeatKind.HUMAN:
            state.away_since = self.now()
        self.people_changed()
        self.touch()

    def bot_plays_for(self, index: int, note: Text, host_line: Text) -> None:
        """A bot plays the person's seat `index` until they are back (`reclaim`): the takeover of a seat
        whose person is away (`autoplay.check_clocks`) and the host's hand-over (`hosting.hand_to_bot`).
        Their token stays theirs; `note` tells the table, `host_line` the host's log."""
        held = self.seats[index]
        held.bot_controlled, held.bot = True, self.spec.smart_bot()
        self.note(note)
        tell_host(self, host_line)
        self.people_changed()  # the bots' task, waiting for a bot to play, plays it
        self.touch()

    def reclaim(self, state: Seat) -> None:
        """A person whose seat a bot plays (taken over, or handed to it by the host) is back: they play it."""
        if state.bot_controlled:
            state.bot_controlled, state.bot = False, None
            self.people_changed()
            self.note(tr("{seat} is back and plays again", seat=seat_ref(state.index)))
            tell_host(self, tr("{name} is back and plays again", name=state.name))

    def note(self, text: str, durable: bool = True) -> None:
        """A table-level event (not from the engine): public, at the current version, and kept in the store
        so history is the same after a restart (notes derived from the action log are not stored twice).

        A note on its own (someone came back, a seat was taken over) is still shown when the disk refuses
        it: what happened did happen. Inside a request's transaction the refusal fails the request."""
        if durable and self.store is not None:
            try:
                self.store.add_note(self.table_id, self.version, text)
            except DiskUnavailable as error:
                if self.store.in_batch:
                    raise
                self.disk_refused(error)
        self.events.append((self.version, Event(text=text)))

    def maybe_autostart(self) -> None:
        if not self.manual_start and not self.open_seats():
            self.start()

    def start(self) -> None:
        if self.status is not Status.LOBBY:
            raise TableError(ErrorKind.NOT_PLAYING, tr("table {table} has already started", table=self.table_id))
        if self.open_seats():
            raise TableError(
                ErrorKind.NOT_PLAYING,
                tr(
                    "table {table} still has open seats {open}: fill them or add bots",
                    table=self.table_id,
                    open=self.open_seats(),
                ),
            )
        with self.one_write():
            try:
                self._begin()
            except BadOptions as error:  # a creation record the game no longer accepts
                self.state, self.status = None, Status.LOBBY
                raise TableError(ErrorKind.BAD_REQUEST, tr("the table cannot start: {why}", why=error.text)) from None
            if self.store is not None:
                self.store.set_started(self.table_id)
        tell_host(self, tr("the game started"))
        self.people_changed()
        self.touch()

    def _begin(self) -> None:
        self.state = self.engine.new(self.players, self.options, self.seed)
        self.status = Status.PLAYING
        self.rng = random.Random(self.seed ^ 0xB07)
        self.decision_started = self.now()
        for seat in self.seats:  # a person who joined but never connected is away from the start
            if seat.kind is SeatKind.HUMAN and seat.connections == 0 and seat.away_since is None:
                seat.away_since = self.decision_started
        self.owing_since = dict.fromkeys(self.engine.to_act(self.state), self.version)
        self._record_events(self.engine.last_events(self.state))
        self._check_finished()

    # -- actions ------------------------------------------------------------------------------------------

    def advance(self, seat: int, action: Any, state: Any, request_id: str, note: str) -> None:
        """A move now in the log becomes the table's (the group commit's `_land`, and each move of a replay):
        its state, version, recent actions, owed decisions, request id and events."""
        self._disk_works()
        self.state = state
        self.version += 1
        if note == TIMEOUT_NOTE:
            self.note(
                tr("{seat} ran out of time; a default move was made for them", seat=seat_ref(seat)), durable=False
            )
        self.decision_started = self.now()
        self.actions.append((seat, action))
        owing = self.owing_since
        self.owing_since = {
            s: owing.get(s, self.version) if s != seat else self.version for s in self.engine.to_act(state)
        }
        if request_id:
            self.requests[request_id] = AppliedRequest(seat, id_of(action), self.version)
            while len(self.requests) > REMEMBERED_REQUESTS:
                self.requests.popitem(last=False)
        self._record_events(self.engine.last_events(self.state))
        self._check_finished()

    def replay(self, stored: list[StoredAction], notes: Mapping[int, list[str]]) -> None:
        """Rebuild state, events and request ids from the durable log (after a restart)."""
        self._replaying = True
        try:
            self._replay(stored, notes)
        finally:
            self._replaying = False

    def _replay(self, stored: list[StoredAction], notes: Mapping[int, list[str]]) -> None:
        self._begin()
        self.events.extend((0, Event(text=text)) for text in notes.get(0, ()))
        for entry in stored:
            legal = self.engine.legal_actions(self.state, entry.seat)
            wanted = current_action_id(entry.action_id)
            action = next((a for a in legal if action_id(a) == wanted), None)
            if action is None:
                raise RuntimeError(
                    f"table {self.table_id}: stored action {entry.action_id!r} at version {entry.version} is not "
                    "legal on replay (the rules changed since it was played?)"
                )
            state = self.engine.apply(self.state, entry.seat, action)
            self.advance(entry.seat, action, state, entry.request_id, entry.note)
            self.events.extend((self.version, Event(text=text)) for text in notes.get(self.version, ()))

    def _record_events(self, events: Sequence[Event]) -> None:
        self.events.extend((self.version, e) for e in events)

    def _check_finished(self) -> None:
        outcome = self.engine.outcome(self.state) if self.status is not Status.FINISHED else None
        if outcome is not None:
            self.status = Status.FINISHED
            if self.finished_at is None:  # a replay of a finished table keeps when it really finished
                self.finished_at = self.wall_clock()
            self.people_changed()  # the clocks stop
            if not self._replaying:
                tell_host(self, tr("game over: {outcome}", outcome=name_seats(outcome.summary, self.names())))
            if self.store is not None:  # so a restart need not replay it; without it, it is replayed
                with contextlib.suppress(DiskUnavailable) if not self.store.in_batch else contextlib.nullcontext():
                    self.store.set_finished(self.table_id, self.version, self.finished_at)

    # -- a disk that refuses writes ---------------------------------------------------------------------

    def disk_refused(self, error: DiskUnavailable) -> None:
        """The store refused this table's write: the table says so, once, until a write of its works again."""
        if self.paused_by_disk is None:
            self.paused_by_disk = str(error)
            self.note(tr("The game is paused: {error}", error=str(error)), durable=False)
            self.touch()

    def _disk_works(self) -> None:
        if self.paused_by_disk is not None:
            self.paused_by_disk = None
            self.note(tr("The server can save again; the game goes on"), durable=False)

    # -- the decisions of what the server plays by itself (run by toadstool.server.tables.autoplay) -------

    def bot_choice(self) -> tuple[int, Any] | None:
        """The next bot action at this version, if any bot wants to act: waited-for bots first."""
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

    def waiting_people(self) -> list[int]:
        """The seats of people (not played by a bot) the game waits for now."""
        return [
            s
            for s in self.engine.to_act(self.state)
            if self.seats[s].kind is SeatKind.HUMAN and not self.seats[s].bot_controlled
        ]

    def turn_deadline(self) -> float | None:
        """The table's time (`now`) the current decision times out, if a turn clock runs and a person must decide."""
        if not self.turn_seconds or self.status is not Status.PLAYING or not self.waiting_people():
            return None
        return self.decision_started + self.turn_seconds

    # -- what a table keeps ----------------------------------------------------------------------------

    def names(self) -> list[str]:
        return [s.name for s in self.seats]
