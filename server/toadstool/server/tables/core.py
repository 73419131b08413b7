"""The table's core: one table's rules of play as plain synchronous state (seats and tokens, lobby ->
playing -> finished, the validation ladder in front of a person's action, landing a written move, who
takes over a seat), with no store, no event loop, no protobuf and no cache.

A change says what must be written by adding `Write` records to `unwritten` (taken by `take_writes`) and
what must be told by raising `revision` (every viewer) or `people_revision` (the clocks). The shell,
toadstool.server.tables.table.Table, writes them in one transaction before anyone is told, and puts the
core back as it was (`saved`, `restore`) if the disk refuses. So this module is tested without a server,
and read without knowing asyncio: docs/design.md §3 draws where it sits on the path of a move.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from toadstool.bots import level_bot, table_budget
from toadstool.engine import (
    BadOptions,
    Engine,
    Event,
    action_id,
    current_action_id,
    listing,
    name_seats,
    preview,
    seat_ref,
)
from toadstool.games import GameSpec
from toadstool.i18n import Text, tr
from toadstool.server.records import StoredAction
from toadstool.server.tables.action_ids import id_of
from toadstool.server.tables.errors import ErrorKind, TableError
from toadstool.server.tables.history import KEEP_ACTIONS, KEEP_EVENTS, Replayed, Window
from toadstool.server.tables.host_log import tell_connection, tell_host
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
from toadstool.server.tables.writes import (
    DeviceTokenWrite,
    EndWrite,
    FinishWrite,
    NoteWrite,
    SeatWrite,
    StartWrite,
    Write,
)

#: How many request ids a table remembers for idempotent retries.
REMEMBERED_REQUESTS = 512

#: The store's note on an action made for a person whose turn clock ran out.
TIMEOUT_NOTE = "timeout"


class TellsTime(Protocol):
    """What the core asks a clock (the event loop's, or one a test moves by hand): the time."""

    def time(self) -> float: ...


@dataclass
class TableCore:
    """One game being played: its seats, its state and what it remembers of its recent past."""

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
    #: Why the table was ended before its game was over (`end`); None otherwise.
    ended: str | None = None
    #: What the turn clock and takeover tell the time by (`now`): the event loop's unless given (tests move
    #: a clock by hand).
    clock: TellsTime | None = None
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
    #: The game's state (None in the lobby). A finished table the shell restored without replaying its
    #: game rebuilds it (and its recent events and actions) the first time it is read.
    state: Replayed[Any] = Replayed()
    unreplayed: bool = field(default=False, init=False, repr=False)
    version: int = 0
    #: Raised by every change a watcher should see (actions, seats, connections).
    revision: int = 0
    #: Raised when who is at the table changes (`people_changed`): all the takeover and abandonment clocks
    #: depend on, so they need not wake at every move.
    people_revision: int = 0
    #: (version, event) and (seat, action) of the recent past (`Window`). The core's keep everything; the
    #: shell's drop what its store can read back.
    events: Replayed[Window[tuple[int, Event]]] = Replayed()
    actions: Replayed[Window[tuple[int, Any]]] = Replayed()
    requests: OrderedDict[str, AppliedRequest] = field(default_factory=OrderedDict)
    #: Why the disk refused this table's last write (a person-readable message), until one works again.
    paused_by_disk: str | None = None
    #: Each seat that owes a decision now, and the version since which it has owed it without acting: a
    #: simultaneous decision (Level Up!'s vote) stays open while others decide (see `check`).
    owing_since: dict[int, int] = field(default_factory=dict, init=False, repr=False)
    rng: random.Random = field(default_factory=random.Random)
    #: What the changes since the last `take_writes` must write, in order.
    unwritten: list[Write] = field(default_factory=list, init=False, repr=False)
    replaying: bool = field(default=False, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.__dict__.get("events") is None or self.__dict__.get("actions") is None:
            self.new_windows()
        if self.people_seen < 0:
            self.people_seen = self.now()

    def new_windows(self) -> None:
        """Empty windows of the recent past (the core's keep everything it is given)."""
        self.events, self.actions = Window(KEEP_EVENTS), Window(KEEP_ACTIONS)

    @property
    def engine(self) -> Engine[Any, Any]:
        return self.spec.engine

    def now(self) -> float:
        """The table's time: its clock's, else the event loop's (asyncio's is `time.monotonic()`, read here
        directly, as when no loop runs yet)."""
        return self.clock.time() if self.clock is not None else time.monotonic()

    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    # -- what a change must write and tell ---------------------------------------------------------------

    def take_writes(self) -> list[Write]:
        """What the changes since the last call must write, in order; the core forgets them."""
        writes, self.unwritten = self.unwritten, []
        return writes

    def touch(self) -> None:
        """Something every viewer should see changed."""
        self.revision += 1

    def people_changed(self) -> None:
        """Who is at the table changed (a join, a leave, a connection, a seat a bot gave back, the start,
        the end): its clocks look again."""
        self.people_revision += 1

    def saved(self) -> dict[str, Any]:
        """All the core holds, to `restore` if a change cannot be written: every field (a finished table's
        unreplayed state stays unreplayed), with its seats, requests and owed decisions copied and the length
        of its windows, which only grow."""
        kept = {f.name: self.__dict__.get(f.name, _UNSET) for f in dataclasses.fields(TableCore)}
        kept.update(seats=list(self.seats), requests=OrderedDict(self.requests), owing_since=dict(self.owing_since))
        kept.update(events=len(self.events), actions=len(self.actions), unwritten=list(self.unwritten))
        return kept

    def restore(self, kept: dict[str, Any]) -> None:
        """Put the core back as `saved` found it."""
        del self.events[kept.pop("events") :]
        del self.actions[kept.pop("actions") :]
        for name, value in kept.items():
            if value is _UNSET:
                self.__dict__.pop(name, None)
            else:
                self.__dict__[name] = value

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
        held by a token nobody has. The seat and the start it triggers are written together.
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
        self.set_seat(Seat(index=index, name=clean, kind=SeatKind.HUMAN, token_hash=digest))
        tell_host(self, tr("{name} joined (seat {seat})", name=clean, seat=index))  # before any start
        self.maybe_autostart()
        self.people_seen = self.now()
        self.people_changed()
        self.touch()
        return index, token

    def add_bot(self, seat: int | None, bot_level: int = 0) -> int:
        """Seat a bot playing at `bot_level` (BotLevel's value; 0: normal) in `seat` or the first open one."""
        bot_level = checked_level(bot_level)
        if self.status is not Status.LOBBY:
            raise TableError(ErrorKind.NOT_PLAYING, tr("table {table} has already started", table=self.table_id))
        index = open_seat(self.table_id, self.seats, seat)
        self.seat_bot(index, bot_level)
        self.maybe_autostart()
        self.touch()
        return index

    def set_bot_level(self, seat: int, bot_level: int) -> None:
        """Make the bot in `seat` play at `bot_level` from its next decision on, in the lobby or in play
        (the host's change of mind needs no new table)."""
        old = bot_seat(self.table_id, self.seats, seat, self.status is Status.FINISHED)
        bot_level = checked_level(bot_level)
        if old.bot_level != bot_level:
            self.set_seat(Seat(index=seat, name=old.name, kind=SeatKind.BOT, bot_level=bot_level))
            self.touch()

    def seat_bot(self, index: int, bot_level: int = 0) -> None:
        taken = {s.name for s in self.seats}
        name = next(n for n in (f"Bot {i}" for i in range(1, 100)) if n not in taken)
        self.set_seat(Seat(index=index, name=name, kind=SeatKind.BOT, bot_level=bot_level))

    def set_seat(self, seat: Seat) -> None:
        """Replace a seat (written with the change it is part of). A bot's seat gets its bot here, at its
        level and the table's thinking budget."""
        if seat.kind is SeatKind.BOT and seat.bot is None:
            seat.bot = level_bot(self.spec, seat.bot_level, table_budget(self.raw_options))
        self.unwritten.append(SeatWrite(seat.stored()))
        self.seats[seat.index] = seat

    def leave(self, seat: int, quietly: bool = False) -> None:
        """A person gives up their seat: empty in the lobby, played by a bot once the game runs (`quietly`:
        the caller, `hosting.kick`, says why itself)."""
        name = self.seats[seat].name
        if self.status is Status.LOBBY:
            self.set_seat(Seat(index=seat))
        elif self.status is Status.PLAYING:
            old = self.seats[seat]
            self.set_seat(Seat(index=seat, name=old.name, kind=SeatKind.BOT, bot=self.spec.smart_bot()))
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
            self.touch()

    def note(self, text: str, durable: bool = True) -> None:
        """A table-level event (not from the engine): public, at the current version, and (`durable`) kept
        in the log, so history is the same after a restart (notes derived from the action log are not
        kept twice)."""
        if durable:
            self.unwritten.append(NoteWrite(self.version, text))
        self.events.append((self.version, Event(text=text)))

    # -- the lifecycle --------------------------------------------------------------------------------

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
        try:
            self.begin()
        except BadOptions as error:  # a creation record the game no longer accepts
            self.state, self.status = None, Status.LOBBY
            raise TableError(ErrorKind.BAD_REQUEST, tr("the table cannot start: {why}", why=error.text)) from None
        self.unwritten.append(StartWrite())
        tell_host(self, tr("the game started"))
        self.people_changed()
        self.touch()

    def begin(self) -> None:
        """The game's first state (the start, and the first step of every replay)."""
        self.state = self.engine.new(self.players, self.options, self.seed)
        self.status = Status.PLAYING
        self.rng = random.Random(self.seed ^ 0xB07)
        self.decision_started = self.now()
        for seat in self.seats:  # a person who joined but never connected is away from the start
            if seat.kind is SeatKind.HUMAN and seat.connections == 0 and seat.away_since is None:
                seat.away_since = self.decision_started
        self.owing_since = dict.fromkeys(self.engine.to_act(self.state), self.version)
        self.events.extend((self.version, e) for e in self.engine.last_events(self.state))
        self._check_finished()

    def end(self, reason: str) -> None:
        """End the table now, in the lobby or in play, for `reason` (its outcome says it; nobody wins)."""
        if self.status is Status.FINISHED:
            raise TableError(ErrorKind.GAME_OVER, tr("the game at table {table} is over already", table=self.table_id))
        at = self.wall_clock()
        self.unwritten.append(EndWrite(self.version, reason, at))
        self.status, self.finished_at, self.ended = Status.FINISHED, at, reason
        self.note(reason)
        tell_host(self, tr("ended: {reason}", reason=reason))
        self.people_changed()
        self.touch()

    def set_device_token(self, digest: bytes) -> None:
        """The hash of the token a hardware die rolls with from now on (replacing any earlier one)."""
        self.unwritten.append(DeviceTokenWrite(digest))
        self.device_token_hash = digest
        self.touch()

    # -- actions ------------------------------------------------------------------------------------------

    def check(self, seat: int, wanted: str, expected_version: int, request_id: str) -> Any:
        """The validation ladder (table and token were checked by the caller): a request id seen before
        (same action: the `AppliedRequest` it was, answered again, never applied twice), the game running,
        the action legal now, the version current or, in a decision the seat still owes, one it saw while
        owing it (`_still_deciding`). Returns the action to apply; a refusal raises `TableError`. Changes
        nothing either way."""
        if request_id and request_id in self.requests:
            prior = self.requests[request_id]
            if prior.seat == seat and prior.action_id == wanted:
                return prior
            raise TableError(
                ErrorKind.DUPLICATE_REQUEST,
                tr(
                    "request id {request} was already used for another action; use a fresh id per action",
                    request=preview(request_id),
                ),
            )
        if self.status is Status.LOBBY:
            raise TableError(ErrorKind.NOT_PLAYING, tr("table {table} has not started yet", table=self.table_id))
        if self.status is Status.FINISHED:
            raise TableError(ErrorKind.GAME_OVER, tr("the game at table {table} is over", table=self.table_id))
        legal = self.engine.legal_actions(self.state, seat)
        action = next((a for a in legal if id_of(a) == wanted), None)
        if action is None:
            if not legal:
                refusal = tr("that action is not legal now (you have nothing to do right now; wait for your turn)")
            else:
                names = self.names()
                offered = (name_seats(self.engine.describe(self.state, seat, a), names) for a in legal)
                refusal = tr(
                    "that action is not legal now (your legal actions now: {actions})", actions=listing(offered, "; ")
                )
            raise TableError(ErrorKind.NOT_LEGAL, refusal)
        if expected_version != self.version and not self._still_deciding(seat, expected_version):
            raise TableError(
                ErrorKind.STALE_VERSION,
                tr(
                    "you acted on version {acted} but the table is at version {version}; "
                    "look at the latest view and act again",
                    acted=expected_version,
                    version=self.version,
                ),
            )
        return action

    def _still_deciding(self, seat: int, expected_version: int) -> bool:
        """Whether `seat` acted on a version within the decision it still owes: it has owed a decision since
        that version or earlier, and every move since was another seat's (a simultaneous decision such as
        Level Up!'s vote, where everyone else's vote raises the version but changes nothing this seat
        decides on). Its action is legal now (checked before), so it is accepted: a vote sent a moment after
        another's is never refused for being a moment late. A seat whose own decision the table moved past
        (it acted, or its turn ended and came back) owes it since a later version, and is refused as stale.
        """
        since = self.owing_since.get(seat)
        return since is not None and since <= expected_version < self.version

    def advance(self, seat: int, action: Any, state: Any, request_id: str, note: str) -> None:
        """A move now in the log becomes the table's (the group commit's landing, and each move of a
        replay): its state, version, recent actions, owed decisions, request id and events."""
        self.disk_works()
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
        self.events.extend((self.version, e) for e in self.engine.last_events(self.state))
        self._check_finished()
        self.touch()

    def replay(self, stored: Sequence[StoredAction], notes: Mapping[int, list[str]]) -> None:
        """Rebuild state, events and request ids from the durable log (after a restart, or for a history)."""
        self.replaying = True
        try:
            self.begin()
            self.events.extend((0, Event(text=text)) for text in notes.get(0, ()))
            for entry in stored:
                legal = self.engine.legal_actions(self.state, entry.seat)
                wanted = current_action_id(entry.action_id)
                action = next((a for a in legal if action_id(a) == wanted), None)
                if action is None:
                    raise RuntimeError(
                        f"table {self.table_id}: stored action {entry.action_id!r} at version {entry.version} is "
                        "not legal on replay (the rules changed since it was played?)"
                    )
                state = self.engine.apply(self.state, entry.seat, action)
                self.advance(entry.seat, action, state, entry.request_id, entry.note)
                self.events.extend((self.version, Event(text=text)) for text in notes.get(self.version, ()))
        finally:
            self.replaying = False

    def replay_finished(self) -> None:
        """Replay a finished table restored without its game (`Table.restored_finished`, read through
        `Replayed`): only a table whose log is in a store is ever restored so."""
        raise RuntimeError(f"table {self.table_id} has no log to replay")

    def setup_copy(self) -> TableCore:
        """A core of this table as it was made, its seats' names and kinds only (whose history is replayed
        on it, `Table.whole_log`): nothing it does reaches this table."""
        setup = {f.name: getattr(self, f.name) for f in dataclasses.fields(TableCore) if f.name in _SETUP}
        seats = [Seat(index=s.index, name=s.name, kind=s.kind) for s in self.seats]
        return TableCore(**setup, seats=seats)

    def _check_finished(self) -> None:
        outcome = self.engine.outcome(self.state) if self.status is not Status.FINISHED else None
        if outcome is not None:
            self.status = Status.FINISHED
            if self.finished_at is None:  # a replay of a finished table keeps when it really finished
                self.finished_at = self.wall_clock()
            self.people_changed()  # the clocks stop
            if not self.replaying:
                tell_host(self, tr("game over: {outcome}", outcome=name_seats(outcome.summary, self.names())))
            self.unwritten.append(FinishWrite(self.version, self.finished_at))

    # -- a disk that refuses writes ---------------------------------------------------------------------

    def disk_refused(self, why: str) -> None:
        """The store refused this table's write: the table says so, once, until a write of its works again."""
        if self.paused_by_disk is None:
            self.paused_by_disk = why
            self.note(tr("The game is paused: {error}", error=why), durable=False)
            self.touch()

    def disk_works(self) -> None:
        if self.paused_by_disk is not None:
            self.paused_by_disk = None
            self.note(tr("The server can save again; the game goes on"), durable=False)

    # -- whose decisions the server makes -------------------------------------------------------------------

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


#: A field a finished table restored unreplayed has not set yet (see `TableCore.saved`).
_UNSET = object()

#: The fields a table is made with, which its history is replayed from (`TableCore.setup_copy`).
_SETUP = frozenset(
    "table_id spec players raw_options options seed name manual_start bot_delay host_token_hash device_token_hash "  # noqa: SIM905
    "turn_seconds takeover_seconds abandon_seconds ended clock wall_clock finished_at".split()
)
