"""Tables: lifecycle (lobby -> playing -> finished), seats and their secret tokens, the validation ladder
in front of every action, bots, and the per-viewer updates that leave the server.

This module is for everything about a table that is not a game rule and not gRPC: engines decide rules,
`toadstool.service` speaks gRPC and maps `TableError` to status codes. Everything here runs on one asyncio
loop; every mutation is synchronous (no await between check and apply), so actions are atomic.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import enum
import hashlib
import hmac
import logging
import math
import random
import secrets
import time
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from toadstool.engine import (
    BadOptions,
    Bot,
    Engine,
    Event,
    action_id,
    current_action_id,
    event_text,
    listing,
    name_seats,
    parse_options,
    preview,
)
from toadstool.games import GAMES, GameSpec
from toadstool.messages import action_message, game_view_message
from toadstool.store import Store, StoredAction, StoredSeat, StoredTable
from toadstool.v1 import service_pb2, table_pb2

log = logging.getLogger(__name__)
_Part = TypeVar("_Part")

MAX_NAME_LENGTH = 24
MAX_TABLE_NAME_LENGTH = 40
#: How many events a first update carries when the client gives no version to resume from.
HISTORY_ON_JOIN = 30
#: How many missed events a resumed stream carries at most (its view is always complete).
MAX_RESUME_EVENTS = 2000
#: The only action a device token may take (a physical roll button).
DEVICE_ACTION = "roll"
#: Finished tables kept (listed, replayable) before the oldest are forgotten.
KEEP_FINISHED = 200
#: Longest turn clock or takeover grace a table may ask for (a day).
MAX_CLOCK_SECONDS = 86_400
#: The store's note on an action made for a person whose turn clock ran out.
TIMEOUT_NOTE = "timeout"
#: The longest message a refusal carries (`TableError`): well under gRPC's metadata limit (8 KiB), so the
#: client always reads the server's answer. Values a client sent are quoted shorter still (`preview`).
MAX_ERROR_LENGTH = 500
#: How many request ids a table remembers for idempotent retries.
REMEMBERED_REQUESTS = 512
#: When a bot's delay ends this many seconds late, the event loop is behind (more tables than the machine can
#: play): the bot then waits as long again, so people's calls and every stream catch up first.
BUSY_LAG = 0.02
#: The server is behind on delivering when more of its streams than this (and more than half of them) wait
#: for gRPC to take their last update: then the bots' beat is held (see `Backlog`, `Beat`).
BACKLOG_FLOOR = 16
#: The longest a bot's beat is held while the server catches up, per move (so a bot game never stops for
#: good); the release comes at the next look after it (`BACKLOG_RECHECK`).
MAX_BOT_WAIT = 2.0
#: How often the server's beat looks again, while it holds bots, whether the server is still behind.
BACKLOG_RECHECK = 0.25
#: An update gRPC has not taken after this many seconds is a slow or stalled viewer's (a full flow-control
#: window), not a sign of a busy server: it stops counting as "sending" (1-2 s after it started).
STUCK_AFTER = 1.0
#: Bot delays end on multiples of this many seconds (see `Beat`).
BEAT_SECONDS = 0.005


def _kept_loop(kept: asyncio.AbstractEventLoop | None) -> asyncio.AbstractEventLoop:
    """`kept` while it is open, else the running loop.

    On Python 3.11 each lookup of the running loop is a `getpid` system call (a few per cent of a busy
    server's time in bench/load.py, where streams and bots wait thousands of times a second), so the
    hottest waits keep the loop they first ran in. A server's tables live in its one loop; tests and
    programs embedding the server may run several loops one after the other, hence the check.
    """
    if kept is None or kept.is_closed():
        return asyncio.get_running_loop()
    return kept


class Waiters:
    """Tasks waiting for the same thing, all woken together by `wake_all`: what `asyncio.Event` does, for
    the server's hottest waits (every stream between messages, bots between moves), without asking for
    the running loop at every wait (see `_kept_loop`)."""

    def __init__(self) -> None:
        self._futures: list[asyncio.Future[None]] = []
        self._loop: asyncio.AbstractEventLoop | None = None

    def __len__(self) -> int:
        return len(self._futures)

    async def wait(self) -> None:
        """Return at the next `wake_all`."""
        loop = _kept_loop(self._loop)
        if loop is not self._loop:
            self._loop, self._futures = loop, []  # any futures left belonged to a closed loop
        future = loop.create_future()
        self._futures.append(future)
        try:
            await future
        except BaseException:  # the waiter went away: do not keep its future until the next wake-up
            with contextlib.suppress(ValueError):
                self._futures.remove(future)
            raise

    def wake_all(self) -> None:
        futures, self._futures = self._futures, []
        for future in futures:
            if not future.done():
                future.set_result(None)


@dataclass
class Backlog:
    """How many update streams the server has open, and how many of them gRPC is still sending.

    Shared by every table of a server (the service counts, the bots read). When most streams are still
    sending, the server is behind: bots that moved anyway would spend the machine on moves nobody sees
    (each stream skips to the newest view), so their beat is held (`Beat`). Slow viewers never count: a
    send counts only while it is recent (`STUCK_AFTER`), so a stalled client, even one with hundreds of
    streams (a bridge whose broker hangs), cannot hold up other tables' bots; and the floor and the half
    make it a server-wide condition.
    """

    open: int = 0
    clock: Callable[[], float] = time.monotonic
    #: Sends in progress by the period they started in (periods of STUCK_AFTER seconds).
    _sending: dict[int, int] = field(default_factory=dict)
    _on_caught_up: Callable[[], None] | None = None

    def _period(self) -> int:
        return int(self.clock() / STUCK_AFTER)

    def sending(self) -> int:
        """Sends started in this period or the one before (older ones are stuck, not busy)."""
        now = self._period()
        return self._sending.get(now, 0) + self._sending.get(now - 1, 0)

    def behind(self) -> bool:
        return self.sending() > max(BACKLOG_FLOOR, self.open // 2)

    def start_sending(self) -> int:
        """Count a send; pass what this returns to `done_sending` when gRPC has taken the update."""
        period = self._period()
        self._sending[period] = self._sending.get(period, 0) + 1
        return period

    def done_sending(self, period: int) -> None:
        left = self._sending[period] - 1
        if left:
            self._sending[period] = left
        else:
            del self._sending[period]
        if self._on_caught_up is not None and not self.behind():
            callback, self._on_caught_up = self._on_caught_up, None
            callback()

    def when_caught_up(self, callback: Callable[[], None]) -> None:
        """Call `callback` once, at the first finished send that leaves the server no longer behind.

        One listener (the server's `Beat`), replaced by the next call. The backlog can also clear without a
        send finishing (stuck sends stop counting), so the listener looks again on its own too."""
        self._on_caught_up = callback


class _Sounding:
    """One beat's sleepers, and when they were woken (the beat's time, or later if it was held); `free`
    sleepers are never held."""

    __slots__ = ("due", "free", "sleepers", "woken")

    def __init__(self, due: float) -> None:
        self.due = due
        self.woken = due
        self.sleepers = Waiters()
        self.free = Waiters()


class Beat:
    """The server's pace for bots: sleeping bots wake together, on multiples of `BEAT_SECONDS`, and not
    while the server is behind on delivering (`Backlog`).

    Shared by every table of a server. Bots whose delays end within the same few milliseconds move in
    the same turn of the event loop, so their tables' views go out together: one timer instead of one
    per move, and gRPC sends (and clients receive) those views in bursts, which costs both sides less
    per message than the same views one by one (bench/load.py: about 5 % more views per second with
    250 tables of bots). A delay is stretched by less than a beat, which nobody sees in a bot's move.

    A beat that comes while most streams are still sending is held until they catch up (at most
    `MAX_BOT_WAIT`): bots that moved anyway would spend the machine on moves nobody sees. Holding the
    beat, rather than each bot waiting on the backlog after it wakes, wakes a bot once per move.
    """

    def __init__(self, backlog: Backlog | None = None) -> None:
        self.backlog = backlog
        #: The beats to come, by the loop time each falls at.
        self._due: dict[float, _Sounding] = {}
        #: Beats that came while the server was behind, oldest first.
        self._held: list[_Sounding] = []
        self._look_again: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def sleep(self, delay: float, hold: bool = True) -> float:
        """Sleep at least `delay` seconds, until the next beat after it (and, unless `hold` is False, until
        the server is no longer behind); return how many seconds after being woken this sleeper ran (more
        than a few milliseconds: the event loop is behind)."""
        loop = _kept_loop(self._loop)
        if loop is not self._loop:  # any beats still due or held belonged to a closed loop
            self._loop, self._due, self._held, self._look_again = loop, {}, [], None
        if delay <= 0 and not (hold and self._behind()):  # no delay asked (tests play whole games at full
            asked = loop.time()  # speed): one turn of the loop, and how long that took is how late it is
            await asyncio.sleep(0)
            return loop.time() - asked
        if delay <= 0:  # and the server is behind: held like a beat that came now
            sounding = _Sounding(loop.time())
            self._hold(sounding, loop)
        else:
            when = math.ceil((loop.time() + delay) / BEAT_SECONDS) * BEAT_SECONDS
            due = self._due.get(when)
            if due is None:
                due = self._due[when] = _Sounding(when)
                loop.call_at(when, self._sound, when)
            sounding = due
        if hold:
            await sounding.sleepers.wait()
            return loop.time() - sounding.woken
        await sounding.free.wait()
        return loop.time() - sounding.due

    def _behind(self) -> bool:
        return self.backlog is not None and self.backlog.behind()

    def _sound(self, when: float) -> None:
        sounding = self._due.pop(when)
        sounding.free.wake_all()
        if self._behind():
            self._hold(sounding, _kept_loop(self._loop))
        else:
            sounding.sleepers.wake_all()

    def _hold(self, sounding: _Sounding, loop: asyncio.AbstractEventLoop) -> None:
        """Keep a beat until the backlog's next send leaves the server caught up, looking again in slices
        meanwhile (the backlog also clears without a send finishing: stuck sends stop counting)."""
        self._held.append(sounding)
        if self._look_again is None and self.backlog is not None:
            self._look_again = loop.call_later(BACKLOG_RECHECK, self._look)
            self.backlog.when_caught_up(self._release_all)

    def _release_all(self) -> None:
        if self._look_again is not None:
            self._look_again.cancel()
            self._look_again = None
        held, self._held = self._held, []
        self._release(held)

    def _look(self) -> None:
        self._look_again = None
        if not self._behind():
            self._release_all()
            return
        loop = _kept_loop(self._loop)
        overdue = loop.time() - MAX_BOT_WAIT  # a bot game never waits more than that per move
        self._release([s for s in self._held if s.due <= overdue])
        self._held = [s for s in self._held if s.due > overdue]
        if self._held:
            self._look_again = loop.call_later(BACKLOG_RECHECK, self._look)

    def _release(self, held: list[_Sounding]) -> None:
        now = _kept_loop(self._loop).time()
        for sounding in held:
            sounding.woken = now
            sounding.sleepers.wake_all()


class _Move:
    """A bot's move waiting for its transaction: the table, the version it was chosen at, the move and
    the state it leads to, and the bot's future (True once applied, False if the table moved on)."""

    __slots__ = ("action", "future", "seat", "state", "table", "version")

    def __init__(self, table: Table, seat: int, action: Any, state: Any, future: asyncio.Future[bool]) -> None:
        self.table, self.version, self.seat, self.action, self.state = table, table.version, seat, action, state
        self.future = future

    def stored(self) -> StoredAction:
        return StoredAction(self.version + 1, self.seat, action_id(self.action), "", "")


class GroupCommit:
    """Bots' moves made in the same turn of the event loop, written to the durable log in one transaction
    and applied only once it has committed.

    Shared by every table of a server. The beat wakes bots together, so a busy server's bots move many
    at a time; a transaction per move was about a tenth of the server's time (bench/load.py,
    `--server-store none`). A move stays a proposal until its transaction commits, so nothing is shown
    before it is durable and a failed write changes nothing; a move whose table changed meanwhile (a
    person acted, or took their seat back from the bot) is dropped, never written, and its bot chooses
    again.
    People's actions do not wait for this: `Table.act` writes and applies at once, as before.
    """

    def __init__(self) -> None:
        self._moves: list[_Move] = []
        self._flush_handle: asyncio.Handle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def propose(self, table: Table, seat: int, action: Any, state: Any) -> asyncio.Future[bool]:
        """Queue `table`'s bot move (leading to `state`) for this turn's transaction; the future says
        whether it was applied, or raises what stopped the write."""
        loop = _kept_loop(self._loop)
        if loop is not self._loop:  # any moves still queued belonged to a closed loop
            self._loop, self._moves, self._flush_handle = loop, [], None
        future: asyncio.Future[bool] = loop.create_future()
        self._moves.append(_Move(table, seat, action, state, future))
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
            table = move.table
            current = (
                table.version == move.version
                and table.seats[move.seat].played_by_bot
                and table.table_id not in live
                and not move.future.done()  # its bot went away (the table was forgotten, the server stops)
            )
            if current:
                live[table.table_id] = move
            elif not move.future.done():
                move.future.set_result(False)
        by_store: dict[Store | None, list[_Move]] = {}
        for move in live.values():
            by_store.setdefault(move.table.store, []).append(move)
        for store, proposed in by_store.items():
            for move in _write(store, proposed):
                try:
                    move.table._advance(move.seat, move.action, move.state, "", "")
                    move.table._touch()
                except Exception as error:  # a bug: its bot logs it, and every other move still lands
                    _fail(move, error)
                else:
                    move.future.set_result(True)


def _write(store: Store | None, moves: list[_Move]) -> list[_Move]:
    """Write `moves` to the log and return those now in it: all in one transaction, or, if that fails, each
    in its own, so that one move that cannot be written (or a write that fails once) costs only its own
    table's move. A move not written is failed (its bot logs why) and never applied."""
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


class ErrorKind(enum.Enum):
    """The closed set of table errors (DESIGN.md principle 6); the service maps each to one gRPC status."""

    UNKNOWN_TABLE = "unknown table"
    UNAUTHENTICATED = "unauthenticated"
    NOT_YOUR_SEAT = "not your seat"
    NOT_LEGAL = "not legal now"
    STALE_VERSION = "stale version"
    GAME_OVER = "game over"
    BAD_REQUEST = "bad request"
    DUPLICATE_REQUEST = "duplicate request"
    NOT_PLAYING = "not playing"
    LIMIT = "limit reached"


class TableError(Exception):
    """A refused request: nothing was changed. The message says what to do about it, quoting what the
    client sent only through `preview` (and cut to MAX_ERROR_LENGTH in any case)."""

    def __init__(self, kind: ErrorKind, message: str) -> None:
        if len(message) > MAX_ERROR_LENGTH:
            message = message[: MAX_ERROR_LENGTH - 1] + "…"
        super().__init__(message)
        self.kind = kind
        self.message = message


class Status(enum.IntEnum):
    LOBBY = table_pb2.TABLE_STATUS_LOBBY
    PLAYING = table_pb2.TABLE_STATUS_PLAYING
    FINISHED = table_pb2.TABLE_STATUS_FINISHED


class SeatKind(enum.IntEnum):
    EMPTY = table_pb2.SEAT_KIND_EMPTY
    HUMAN = table_pb2.SEAT_KIND_HUMAN
    BOT = table_pb2.SEAT_KIND_BOT


def printable(raw: str) -> str:
    """`raw` without control, format (bidi) and other invisible characters: safe on any screen."""
    return "".join(ch for ch in raw if unicodedata.category(ch)[0] != "C")


def sanitize_name(raw: str, limit: int = MAX_NAME_LENGTH, what: str = "name") -> str:
    """A display name safe to show in any terminal or window: printable characters only.

    Control characters, escape sequences, bidi overrides and other format characters are dropped, runs
    of white space become one space, and the result must be 1..limit characters.
    """
    kept = []
    for ch in raw:
        category = unicodedata.category(ch)
        if category[0] in ("C", "Z"):  # controls, format (bidi), unassigned, private; separators
            kept.append(" " if category[0] == "Z" or ch in "\t\n\r" else "")
        else:
            kept.append(ch)
    name = " ".join("".join(kept).split())
    if not name:
        raise TableError(ErrorKind.BAD_REQUEST, f"the {what} is empty once unprintable characters are removed")
    if len(name) > limit:
        raise TableError(ErrorKind.BAD_REQUEST, f"the {what} is longer than {limit} characters")
    return name


def _hash_token(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


def new_token() -> tuple[str, bytes]:
    """A fresh secret (256 random bits, URL-safe) and the hash that is all the server keeps of it."""
    token = secrets.token_urlsafe(32)
    return token, _hash_token(token)


def token_matches(token: str, digest: bytes | None) -> bool:
    """Constant-time check of a presented token against a stored hash."""
    if digest is None or not token:
        return False
    return hmac.compare_digest(_hash_token(token), digest)


@dataclass
class Seat:
    index: int
    name: str = ""
    kind: SeatKind = SeatKind.EMPTY
    token_hash: bytes | None = None
    connections: int = 0
    bot: Bot | None = None
    #: A person's seat played by a bot while they are away (takeover); cleared when they return.
    bot_controlled: bool = False
    #: Monotonic time the last stream for this seat closed (None while connected or never connected).
    away_since: float | None = None

    def stored(self) -> StoredSeat:
        return StoredSeat(seat=self.index, name=self.name, kind=self.kind.value, token_hash=self.token_hash)

    @property
    def played_by_bot(self) -> bool:
        return self.bot is not None and (self.kind is SeatKind.BOT or self.bot_controlled)


@dataclass(frozen=True)
class AppliedRequest:
    seat: int
    action_id: str
    version: int


@dataclass
class Table:
    """One game being played: its seats, its state and everything a watcher needs to follow it."""

    table_id: str
    spec: GameSpec
    players: int
    raw_options: dict[str, str]
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
    store: Store | None = None
    #: The server's beat that bots' delays end on (held while the server is behind on delivering); each
    #: table has its own in tests.
    beat: Beat = field(default_factory=Beat)
    #: Where this table's bots' moves wait to be written with the other tables' (the server's one).
    moves: GroupCommit = field(default_factory=GroupCommit)
    #: Monotonic time of the last accepted action (or the start): the turn clock runs from here.
    decision_started: float = 0.0
    status: Status = Status.LOBBY
    state: Any = None
    version: int = 0
    #: Raised by every change a watcher should see (actions, seats, connections).
    revision: int = 0
    events: list[tuple[int, Event]] = field(default_factory=list)
    actions: list[tuple[int, Any]] = field(default_factory=list)
    requests: OrderedDict[str, AppliedRequest] = field(default_factory=OrderedDict)
    #: Whoever waits for the table's next change (its streams, its bots and clocks): see `wait_change`.
    _changed: Waiters = field(default_factory=Waiters, init=False, repr=False)
    #: Parts of updates at one (version, revision): see `_cached`.
    _cache: dict[tuple[Any, ...], Any] = field(default_factory=dict, init=False, repr=False)
    _seats_shown: list[tuple[Any, ...]] = field(default_factory=list, init=False, repr=False)
    _seat_messages: list[table_pb2.Seat] = field(default_factory=list, init=False, repr=False)
    _rng: random.Random = field(default_factory=random.Random)

    @property
    def engine(self) -> Engine[Any, Any]:
        return self.spec.engine

    # -- change notification ---------------------------------------------------------------------------

    def _touch(self) -> None:
        self.revision += 1
        self._changed.wake_all()

    async def wait_change(self, seen_revision: int) -> None:
        """Return once the table's revision differs from `seen_revision`."""
        while self.revision == seen_revision:
            await self._changed.wait()

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
                f"that seat token is not valid at table {self.table_id}; join the table to get one",
            )
        return found

    def is_host(self, token: str) -> bool:
        return token_matches(token, self.host_token_hash)

    def require_host(self, token: str) -> None:
        if not token:
            raise TableError(
                ErrorKind.UNAUTHENTICATED, "no host token: send the token from CreateTable in the x-host-token metadata"
            )
        if not self.is_host(token):
            raise TableError(
                ErrorKind.NOT_YOUR_SEAT,
                f"only the host of table {self.table_id} may do that (send its host token)",
            )

    def issue_device_token(self) -> str:
        """A new device token for this table (replacing any earlier one): it may only roll dice."""
        token, digest = new_token()
        if self.store is not None:
            self.store.set_device_token(self.table_id, digest)
        self.device_token_hash = digest
        self._touch()
        return token

    def device_seat(self, token: str) -> int:
        """The seat a hardware button acts for: the one seat the game waits for, if it may roll now.

        Devices get exactly one power, rolling for whoever must roll; anything else is refused.
        """
        if not token_matches(token, self.device_token_hash):
            raise TableError(
                ErrorKind.UNAUTHENTICATED, f"that device token is not valid at table {self.table_id}; ask its host"
            )
        if self.status is not Status.PLAYING:
            raise TableError(ErrorKind.NOT_PLAYING, f"table {self.table_id} is not being played")
        for seat in self.engine.to_act(self.state):
            if any(action_id(a) == DEVICE_ACTION for a in self.engine.legal_actions(self.state, seat)):
                return seat
        raise TableError(ErrorKind.NOT_LEGAL, "nobody can roll right now; press the button when it is a roll")

    def open_seats(self) -> list[int]:
        return [s.index for s in self.seats if s.kind is SeatKind.EMPTY]

    def join(self, name: str, seat: int | None) -> tuple[int, str]:
        """Seat a person; returns (seat, secret token)."""
        clean = sanitize_name(name)
        if self.status is not Status.LOBBY:
            raise TableError(ErrorKind.NOT_PLAYING, f"table {self.table_id} has already started; watch it instead")
        index = self._pick_open_seat(seat)
        token, digest = new_token()
        self._set_seat(Seat(index=index, name=clean, kind=SeatKind.HUMAN, token_hash=digest))
        self._touch()
        self._maybe_autostart()
        return index, token

    def add_bot(self, seat: int | None) -> int:
        if self.status is not Status.LOBBY:
            raise TableError(ErrorKind.NOT_PLAYING, f"table {self.table_id} has already started")
        index = self._pick_open_seat(seat)
        self._seat_bot(index)
        self._touch()
        self._maybe_autostart()
        return index

    def _seat_bot(self, index: int) -> None:
        taken = {s.name for s in self.seats}
        name = next(n for n in (f"Bot {i}" for i in range(1, 100)) if n not in taken)
        self._set_seat(Seat(index=index, name=name, kind=SeatKind.BOT, bot=self.spec.smart_bot()))

    def _set_seat(self, seat: Seat) -> None:
        """Replace a seat, durably first."""
        if self.store is not None:
            self.store.set_seat(self.table_id, seat.stored())
        self.seats[seat.index] = seat

    def _pick_open_seat(self, seat: int | None) -> int:
        if seat is None:
            open_seats = self.open_seats()
            if not open_seats:
                raise TableError(ErrorKind.NOT_PLAYING, f"table {self.table_id} has no open seat; watch it instead")
            return open_seats[0]
        if not 0 <= seat < self.players:
            raise TableError(ErrorKind.BAD_REQUEST, f"seat {seat} does not exist; seats are 0..{self.players - 1}")
        if self.seats[seat].kind is not SeatKind.EMPTY:
            raise TableError(ErrorKind.NOT_PLAYING, f"seat {seat} is taken; open seats: {self.open_seats()}")
        return seat

    def leave(self, seat: int) -> None:
        """A person gives up their seat: empty in the lobby, played by a bot once the game runs."""
        if self.status is Status.LOBBY:
            self._set_seat(Seat(index=seat))
        elif self.status is Status.PLAYING:
            old = self.seats[seat]
            self._set_seat(Seat(index=seat, name=old.name, kind=SeatKind.BOT, bot=self.spec.smart_bot()))
            self._note(f"{{p{seat}}} left the table; a bot plays their seat")
        self._touch()

    def kick(self, seat: int) -> None:
        """The host removes a seat's holder: their token stops working; a bot plays on in a running game."""
        if not 0 <= seat < self.players:
            raise TableError(ErrorKind.BAD_REQUEST, f"seat {seat} does not exist; seats are 0..{self.players - 1}")
        if self.seats[seat].kind is not SeatKind.HUMAN:
            raise TableError(ErrorKind.BAD_REQUEST, f"seat {seat} holds no person")
        if self.status is Status.FINISHED:
            raise TableError(ErrorKind.GAME_OVER, f"the game at table {self.table_id} is over")
        name = self.seats[seat].name
        self.leave(seat)
        if self.seats[seat].name == name:  # a running game: the seat keeps its name, a bot plays it
            self._note(f"The host removed {{p{seat}}} from the table")
        else:  # the lobby: the seat is empty now, so the note names them itself (braces cannot name a seat)
            self._note(f"The host removed {name.replace('{', '(')} from the table")

    def set_connected(self, state: Seat, delta: int) -> None:
        """A stream for the seat `state` opened (+1) or closed (-1); a returning person takes their seat back.

        Takes the Seat object, not its index: a stream opened by someone who has since left or been kicked
        must not change the connection of whoever holds the seat now.
        """
        if self.seats[state.index] is not state:
            return
        seat = state.index
        state.connections = max(0, state.connections + delta)
        if state.connections > 0:
            state.away_since = None
            if state.bot_controlled:
                state.bot_controlled = False
                state.bot = None
                self._note(f"{{p{seat}}} is back and plays again")
        elif state.kind is SeatKind.HUMAN:
            state.away_since = time.monotonic()
        self._touch()

    def _note(self, text: str, durable: bool = True) -> None:
        """A table-level event (not from the engine): public, at the current version, and kept in the store
        so history is the same after a restart (notes derived from the action log are not stored twice)."""
        if durable and self.store is not None:
            self.store.add_note(self.table_id, self.version, text)
        self.events.append((self.version, Event(text=text)))

    def _maybe_autostart(self) -> None:
        if not self.manual_start and not self.open_seats():
            self.start()

    def start(self) -> None:
        if self.status is not Status.LOBBY:
            raise TableError(ErrorKind.NOT_PLAYING, f"table {self.table_id} has already started")
        if self.open_seats():
            raise TableError(
                ErrorKind.NOT_PLAYING,
                f"table {self.table_id} still has open seats {self.open_seats()}: fill them or add bots",
            )
        try:
            self._begin()
        except BadOptions as error:  # e.g. a Kart track file removed since the table was created
            self.state, self.status = None, Status.LOBBY
            raise TableError(ErrorKind.BAD_REQUEST, f"the table cannot start: {error}") from None
        if self.store is not None:
            self.store.set_started(self.table_id)
        self._touch()

    def _begin(self) -> None:
        self.state = self.engine.new(self.players, self.options, self.seed)
        self.status = Status.PLAYING
        self._rng = random.Random(self.seed ^ 0xB07)
        self.decision_started = time.monotonic()
        for seat in self.seats:  # a person who joined but never connected is away from the start
            if seat.kind is SeatKind.HUMAN and seat.connections == 0 and seat.away_since is None:
                seat.away_since = self.decision_started
        self._record_events(self.engine.last_events(self.state))
        self._check_finished()

    # -- actions ------------------------------------------------------------------------------------------

    def act(self, seat: int, wanted: str, expected_version: int, request_id: str) -> tuple[int, bool]:
        """Apply the action with id `wanted` for `seat` after the validation ladder.

        Returns (new version, replayed). The ladder (table and token were checked by the caller): a request
        id seen before (same action: answered again, never applied twice), the game running, the action
        legal now, the version current. A refused action changes nothing.
        """
        if request_id and request_id in self.requests:
            prior = self.requests[request_id]
            if prior.seat == seat and prior.action_id == wanted:
                return prior.version, True
            raise TableError(
                ErrorKind.DUPLICATE_REQUEST,
                f"request id {preview(request_id)} was already used for another action; use a fresh id per action",
            )
        if self.status is Status.LOBBY:
            raise TableError(ErrorKind.NOT_PLAYING, f"table {self.table_id} has not started yet")
        if self.status is Status.FINISHED:
            raise TableError(ErrorKind.GAME_OVER, f"the game at table {self.table_id} is over")
        legal = self.engine.legal_actions(self.state, seat)
        action = next((a for a in legal if action_id(a) == wanted), None)
        if action is None:
            if not legal:
                hint = "you have nothing to do right now; wait for your turn"
            else:
                names = self.names()
                hint = "your legal actions now: " + listing(
                    (name_seats(self.engine.describe(self.state, seat, a), names) for a in legal), "; "
                )
            raise TableError(ErrorKind.NOT_LEGAL, f"that action is not legal now ({hint})")
        if expected_version != self.version:
            raise TableError(
                ErrorKind.STALE_VERSION,
                f"you acted on version {expected_version} but the table is at version {self.version}; "
                "look at the latest view and act again",
            )
        self._apply(seat, action, request_id)
        return self.version, False

    def _apply(self, seat: int, action: Any, request_id: str = "", note: str = "") -> None:
        """Apply a legal action: the next state is computed, made durable, and only then becomes current."""
        state = self.engine.apply(self.state, seat, action)
        if self.store is not None:
            self.store.add_action(
                self.table_id, StoredAction(self.version + 1, seat, action_id(action), request_id, note)
            )
        self._advance(seat, action, state, request_id, note)
        self._touch()

    def _advance(self, seat: int, action: Any, state: Any, request_id: str, note: str) -> None:
        self.state = state
        self.version += 1
        if note == TIMEOUT_NOTE:
            self._note(f"{{p{seat}}} ran out of time; a default move was made for them", durable=False)
        self.decision_started = time.monotonic()
        self.actions.append((seat, action))
        if request_id:
            self.requests[request_id] = AppliedRequest(seat, action_id(action), self.version)
            while len(self.requests) > REMEMBERED_REQUESTS:
                self.requests.popitem(last=False)
        self._record_events(self.engine.last_events(self.state))
        self._check_finished()

    def replay(self, stored: list[StoredAction], notes: Mapping[int, list[str]]) -> None:
        """Rebuild state, events and request ids from the durable log (after a restart)."""
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
            self._advance(entry.seat, action, state, entry.request_id, entry.note)
            self.events.extend((self.version, Event(text=text)) for text in notes.get(self.version, ()))

    def _record_events(self, events: Sequence[Event]) -> None:
        self.events.extend((self.version, e) for e in events)

    def _check_finished(self) -> None:
        if self.engine.outcome(self.state) is not None:
            self.status = Status.FINISHED

    # -- bots ---------------------------------------------------------------------------------------------

    def bot_choice(self) -> tuple[int, Any] | None:
        """The next bot action at this version, if any bot wants to act: waited-for bots first."""
        if self.status is not Status.PLAYING:
            return None
        waiting = self.engine.to_act(self.state)
        order = list(waiting) + [s for s in range(self.players) if s not in waiting]
        for index in order:
            seat = self.seats[index]
            if not seat.played_by_bot or seat.bot is None:
                continue
            legal = self.engine.legal_actions(self.state, index)
            if not legal:
                continue
            view = self.engine.view(self.state, index) if seat.bot.needs_view else None
            action = seat.bot.choose(view, legal, index in waiting, self._rng)
            if action is not None:
                return index, action
        return None

    async def run_bots(self) -> None:
        """Let bots act, one action per bot delay, until the game ends (a task per playing table)."""
        while self.status is not Status.FINISHED:
            revision = self.revision
            choice = self.bot_choice()
            if choice is None:
                await self.wait_change(revision)
                continue
            version = self.version
            await self._bot_pause()
            seat, action = choice
            if self.version != version or not self.seats[seat].played_by_bot:
                continue  # the table moved on while the bot was thinking: choose again
            try:
                # Applied when this turn's bot moves have been written together (or dropped, if the table
                # moves on first: then the bot chooses again).
                await self.moves.propose(self, seat, action, self.engine.apply(self.state, seat, action))
            except Exception:  # e.g. the disk is full: keep the table alive and try again later
                log.exception("table %s: a bot action could not be applied", self.table_id)
                await asyncio.sleep(1.0)

    async def _bot_pause(self) -> None:
        """The bot's delay, stretched while the server is overloaded.

        Without this, a server hosting more bot tables than it can play spends its time on moves nobody
        sees: streams skip versions, views per move fall, and new calls wait for the event loop (seen in
        bench/load.py with 500 tables of bots: under a view per move, and StartTable calls cancelled by
        gRPC after waiting 30 s to be taken). Two signs: the delay itself ends late (the event loop is
        behind: the bot waits as long again), or most streams are still sending (gRPC is behind: the
        beat is held, see `Beat`).
        """
        late = await self.beat.sleep(self.bot_delay)
        if late > BUSY_LAG:  # not held again: one move waits for the backlog at most once
            await self.beat.sleep(late, hold=False)

    # -- clocks: the turn clock and takeover of seats whose person is away ---------------------------------

    def _waiting_people(self) -> list[int]:
        waiting = self.engine.to_act(self.state)
        return [s for s in waiting if self.seats[s].kind is SeatKind.HUMAN and not self.seats[s].bot_controlled]

    def turn_deadline(self) -> float | None:
        """Monotonic time the current decision times out, if a turn clock runs and a person must decide."""
        if not self.turn_seconds or self.status is not Status.PLAYING or not self._waiting_people():
            return None
        return self.decision_started + self.turn_seconds

    def _takeover_deadlines(self) -> list[tuple[float, int]]:
        if not self.takeover_seconds or self.status is not Status.PLAYING:
            return []
        return [
            (seat.away_since + self.takeover_seconds, seat.index)
            for seat in self.seats
            if seat.kind is SeatKind.HUMAN and not seat.bot_controlled and seat.away_since is not None
        ]

    def check_clocks(self, now: float) -> None:
        """Make the default move for a timed-out decision, and hand away seats to bots."""
        for deadline, index in self._takeover_deadlines():
            if now >= deadline:
                away = self.seats[index]
                away.bot_controlled = True
                away.bot = self.spec.smart_bot()
                self._note(f"{{p{index}}} is away; a bot plays for them until they return")
                self._touch()
        turn = self.turn_deadline()
        if turn is not None and now >= turn:
            seat = self._waiting_people()[0]
            legal = self.engine.legal_actions(self.state, seat)
            bot = self.spec.smart_bot()
            view = self.engine.view(self.state, seat) if bot.needs_view else None
            action = bot.choose(view, legal, True, self._rng) or legal[0]
            self._apply(seat, action, note=TIMEOUT_NOTE)

    async def run_clocks(self) -> None:
        """Sleep until the next clock deadline or change, then check the clocks (a task per timed table)."""
        while self.status is not Status.FINISHED:
            revision = self.revision
            deadlines = [d for d, _ in self._takeover_deadlines()]
            turn = self.turn_deadline()
            if turn is not None:
                deadlines.append(turn)
            if not deadlines:
                await self.wait_change(revision)
                continue
            delay = max(0.0, min(deadlines) - time.monotonic())
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):
                    await self.wait_change(revision)
            try:
                self.check_clocks(time.monotonic())
            except Exception:  # keep the clock alive; the next deadline tries again
                log.exception("table %s: a clock could not act", self.table_id)
                await asyncio.sleep(1.0)

    # -- what leaves the server ---------------------------------------------------------------------------

    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    def info(self) -> table_pb2.TableInfo:
        return table_pb2.TableInfo(
            table_id=self.table_id,
            game=self.spec.name,
            name=self.name,
            status=self.status.value,
            seats=self.seat_messages(),
            version=self.version,
            options=self.raw_options,
            open_seats=len(self.open_seats()),
            turn_seconds=int(self.turn_seconds),
            takeover_seconds=int(self.takeover_seconds),
        )

    def seat_messages(self) -> list[table_pb2.Seat]:
        """The seats as the API shows them; rebuilt only when what it shows changed (every update has them,
        and seats change far less often than moves are made). Callers copy them into their message."""
        shown = [
            (s.index, s.name, s.kind, s.kind is SeatKind.BOT or s.connections > 0, s.bot_controlled) for s in self.seats
        ]
        if shown != self._seats_shown:
            self._seats_shown = shown
            self._seat_messages = [
                table_pb2.Seat(index=index, name=name, kind=kind.value, connected=connected, bot_controlled=bot)
                for index, name, kind, connected, bot in shown
            ]
        return self._seat_messages

    @staticmethod
    def _event_message(version: int, event: Event, viewer: int | None, names: Sequence[str]) -> table_pb2.Event:
        message = table_pb2.Event(version=version, text=name_seats(event_text(event, viewer), names))
        if event.seat is not None:
            message.seat = event.seat
        if event.roll is not None:
            message.roll.CopyFrom(
                table_pb2.DieRoll(roller=event.roll.roller, purpose=event.roll.purpose, value=event.roll.value)
            )
        return message

    def history_for(self, viewer: int | None) -> Iterator[table_pb2.HistoryStep]:
        """The table's history as `viewer` may know it: each version's events and view, by replaying the log.

        Every step goes through `Engine.view` and `event_text` for this viewer, like a live update. A lazy
        generator over a snapshot, so a long game never holds the event loop for its whole replay.
        """
        if self.status is Status.LOBBY:
            return
        engine = self.engine
        names = self.names()
        actions = list(self.actions)
        by_version: dict[int, list[Event]] = {}
        for version, event in list(self.events):
            by_version.setdefault(version, []).append(event)
        state = engine.new(self.players, self.options, self.seed)
        for version in range(len(actions) + 1):
            step = table_pb2.HistoryStep(version=version)
            if version > 0:
                seat, action = actions[version - 1]
                if seat == viewer:
                    step.label = name_seats(engine.describe(state, seat, action), names)
                state = engine.apply(state, seat, action)
                step.seat = seat
            step.events.extend(self._event_message(version, e, viewer, names) for e in by_version.get(version, ()))
            step.view.CopyFrom(game_view_message(engine, engine.view(state, viewer), names))
            yield step

    def stored(self) -> StoredTable:
        return StoredTable(
            table_id=self.table_id,
            game=self.spec.name,
            players=self.players,
            options=self.raw_options,
            seed=self.seed,
            name=self.name,
            manual_start=self.manual_start,
            bot_delay=self.bot_delay,
            turn_seconds=self.turn_seconds,
            takeover_seconds=self.takeover_seconds,
            host_token_hash=self.host_token_hash,
            device_token_hash=self.device_token_hash,
            started=self.status is not Status.LOBBY,
        )

    def _cached(self, key: tuple[Any, ...], build: Callable[[], _Part]) -> _Part:
        """A part of an update built once per version and revision, however many streams ask for it.

        Every watcher of a table is woken by the same change and asks for the same parts: the table's own
        part once, each viewer's part once per viewer (every spectator shares one), a live stream's whole
        message, serialised, once per viewer and event position. Only the current version and revision are
        ever asked for again, so older parts are dropped. Callers must not change what they get.
        """
        full = (self.version, self.revision, *key)
        part = self._cache.get(full)
        if part is None:
            if self._cache and next(iter(self._cache))[:2] != full[:2]:
                self._cache.clear()
            part = self._cache[full] = build()
        return part

    def _table_part(self) -> table_pb2.Update:
        """What every viewer is told alike: the table, its seats, the clock and the outcome."""
        part = table_pb2.Update(
            table_id=self.table_id,
            version=self.version,
            status=self.status.value,
            seats=self.seat_messages(),
            game=self.spec.name,
            table_name=self.name,
            score_label=self.engine.score_label,
            turn_seconds=int(self.turn_seconds),
            takeover_seconds=int(self.takeover_seconds),
        )
        deadline = self.turn_deadline()
        if deadline is not None:
            part.turn_deadline_unix_ms = int((time.time() + deadline - time.monotonic()) * 1000)
        outcome = self.engine.outcome(self.state) if self.state is not None else None
        if outcome is not None:
            part.outcome.CopyFrom(
                table_pb2.Outcome(
                    winners=outcome.winners, scores=outcome.scores, summary=name_seats(outcome.summary, self.names())
                )
            )
        return part

    def _viewer_part(self, viewer: int | None) -> table_pb2.Update:
        """What depends on the viewer: view, phase, scores, whose turn and the viewer's legal actions."""
        engine = self.engine
        names = self.names()
        view = engine.view(self.state, viewer)
        part = table_pb2.Update(phase=name_seats(view.phase, names), scores=view.scores)
        game_view_message(engine, view, names, into=part.view)
        part.to_act.extend(engine.to_act(self.state))
        if viewer is not None:
            for action in engine.legal_actions(self.state, viewer):
                legal = part.legal_actions.add(
                    id=action_id(action), label=name_seats(engine.describe(self.state, viewer, action), names)
                )
                action_message(engine, action, into=legal.action)
        return part

    def update_for(self, viewer: int | None, since_version: int | None) -> table_pb2.Update:
        """Everything `viewer` (a seat, or None for a spectator) may know now, as one update message.

        Every byte comes from `Engine.view`, `event_text` and the viewer's own legal actions: this is
        the one door out of the server (DESIGN.md principle 4).
        """
        return self._build_update(viewer, since_version, None)

    def watch_response(self, viewer: int | None, since_version: int | None, since_event: int | None) -> bytes:
        """The serialised `WatchResponse` a stream of `viewer` sends next: `update_for`'s update, or on a
        live stream (`since_event`: the events it was already sent) the change since its last message.

        A live stream's message is built and serialised once per viewer and event position, and every
        stream at that point (every spectator of a table, every device of a seat) sends the same bytes:
        per stream, gRPC only copies them out.
        """

        def build() -> bytes:
            response = service_pb2.WatchResponse()
            self._build_update(viewer, since_version, since_event, response.update)
            return response.SerializeToString()

        if since_event is None:
            return build()
        return self._cached(("live", viewer, since_event, len(self.events)), build)

    def _build_update(
        self,
        viewer: int | None,
        since_version: int | None,
        since_event: int | None,
        update: table_pb2.Update | None = None,
    ) -> table_pb2.Update:
        """The update for `viewer`, built into `update` (a fresh message when None) and returned."""
        if update is None:
            update = table_pb2.Update()
        update.CopyFrom(self._cached(("table",), self._table_part))
        if viewer is not None:
            update.viewer_seat = viewer
        if since_event is not None:  # a live stream: every event after the last one it was sent
            recent = self.events[since_event:]
        elif since_version is None:
            recent = self.events[-HISTORY_ON_JOIN:]
        else:  # a resume: what happened after the version the client saw (the view itself is always whole)
            first = bisect.bisect_right(self.events, since_version, key=lambda entry: entry[0])
            recent = self.events[max(first, len(self.events) - MAX_RESUME_EVENTS) :]
        names = self.names()
        # In the lobby too: its notes (someone left, the host removed a seat) are events like any other.
        update.events.extend(self._event_message(v, e, viewer, names) for v, e in recent)
        if self.state is None:
            update.phase = f"Waiting for players ({len(self.open_seats())} open seats)"
            return update
        update.MergeFrom(self._cached(("viewer", viewer), lambda: self._viewer_part(viewer)))
        return update


class TableRegistry:
    """All tables of one server, the tasks that run their bots and clocks, and their durable store.

    Use it as an async context manager so those tasks end with it (structured concurrency).
    """

    def __init__(self, bot_delay: float = 0.6, max_tables: int = 1000, store: Store | None = None) -> None:
        self.tables: dict[str, Table] = {}
        self.bot_delay = bot_delay
        self.max_tables = max_tables
        self.store = store
        self.backlog = Backlog()
        self.beat = Beat(self.backlog)
        self.moves = GroupCommit()
        #: Set when the server shuts down, so open streams can say so and end.
        self.closing = False
        self._tasks: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> TableRegistry:
        self.load()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Cancel every bot and clock task and wait until each has really ended."""
        while self._tasks:
            pending = list(self._tasks)
            for task in pending:
                task.cancel()
            await asyncio.wait(pending, timeout=1.0)
            self._tasks.difference_update(t for t in pending if t.done())
        self.moves.close()

    def shutting_down(self) -> None:
        """Tell every open stream that the server is going away."""
        self.closing = True
        for table in self.tables.values():
            table._touch()

    def load(self) -> int:
        """Bring back every table from the store (after a restart); returns how many."""
        if self.store is None:
            return 0
        for stored, seats, actions, notes in self.store.tables():
            try:
                table = self._restore(stored, seats, actions, notes)
            except Exception as error:  # one broken table must not keep every other table away
                log.warning(
                    "table %s cannot be restored (%s); it stays in the file but is not served", stored.table_id, error
                )
                continue
            self.tables[table.table_id] = table
            self._spawn_tasks(table)
        return len(self.tables)

    def _restore(
        self, stored: StoredTable, seats: list[StoredSeat], actions: list[StoredAction], notes: dict[int, list[str]]
    ) -> Table:
        spec = GAMES.get(stored.game)
        if spec is None:
            raise RuntimeError(f"this server does not know the game {stored.game!r}")
        table = Table(
            table_id=stored.table_id,
            spec=spec,
            players=stored.players,
            raw_options=stored.options,
            options=parse_options(spec.engine.options, stored.options),
            seed=stored.seed,
            name=stored.name,
            manual_start=stored.manual_start,
            bot_delay=stored.bot_delay,
            host_token_hash=stored.host_token_hash,
            device_token_hash=stored.device_token_hash,
            turn_seconds=stored.turn_seconds,
            takeover_seconds=stored.takeover_seconds,
            seats=[Seat(index=i) for i in range(stored.players)],
            beat=self.beat,
            moves=self.moves,
        )
        now = time.monotonic()
        for seat in seats:
            kind = SeatKind(seat.kind)
            table.seats[seat.seat] = Seat(
                index=seat.seat,
                name=seat.name,
                kind=kind,
                token_hash=seat.token_hash,
                bot=spec.smart_bot() if kind is SeatKind.BOT else None,
                away_since=now if kind is SeatKind.HUMAN else None,
            )
        if stored.started:
            table.replay(actions, notes)
        else:
            table.events.extend((0, Event(text=text)) for text in notes.get(0, ()))
        table.store = self.store
        return table

    def get(self, table_id: str) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            raise TableError(
                ErrorKind.UNKNOWN_TABLE,
                f"there is no table {preview(table_id)} on this server; list tables to see them",
            )
        return table

    def create(
        self,
        game: str,
        players: int,
        bots: int = 0,
        options: Mapping[str, str] | None = None,
        seed: int | None = None,
        name: str = "",
        manual_start: bool = False,
        bot_delay: float | None = None,
        turn_seconds: float = 0.0,
        takeover_seconds: float = 0.0,
    ) -> tuple[Table, str]:
        """Create a table (validated in full before anything is stored); returns it and its host token."""
        spec = GAMES.get(game)
        if spec is None:
            raise TableError(
                ErrorKind.BAD_REQUEST, f"unknown game {preview(game)}; this server hosts: {listing(GAMES)}"
            )
        engine = spec.engine
        if not engine.min_players <= players <= engine.max_players:
            raise TableError(
                ErrorKind.BAD_REQUEST,
                f"{engine.title} takes {engine.min_players} to {engine.max_players} players, not {players}",
            )
        if not 0 <= bots <= players:
            raise TableError(ErrorKind.BAD_REQUEST, f"bots must be between 0 and {players}, not {bots}")
        for what, value in (("turn_seconds", turn_seconds), ("takeover_seconds", takeover_seconds)):
            if not 0 <= value <= MAX_CLOCK_SECONDS:
                raise TableError(ErrorKind.BAD_REQUEST, f"{what} must be 0 (off) to {MAX_CLOCK_SECONDS}, not {value}")
        raw = {name: printable(value) for name, value in (options or {}).items()}
        try:
            parsed = parse_options(engine.options, raw)
        except BadOptions as error:
            raise TableError(ErrorKind.BAD_REQUEST, str(error)) from None
        if seed is not None and not 0 <= seed < 2**63:
            raise TableError(ErrorKind.BAD_REQUEST, f"the seed must be 0 to {2**63 - 1}, not {seed}")
        self._forget_finished()
        if sum(1 for t in self.tables.values() if t.status is not Status.FINISHED) >= self.max_tables:
            raise TableError(ErrorKind.LIMIT, f"this server holds its maximum of {self.max_tables} tables")
        clean_name = sanitize_name(name, MAX_TABLE_NAME_LENGTH, "table name") if name.strip() else ""
        table_id = self._new_id()
        host_token, host_hash = new_token()
        table = Table(
            table_id=table_id,
            spec=spec,
            players=players,
            raw_options=raw,
            options=parsed,
            seed=seed if seed is not None else secrets.randbits(63),
            name=clean_name or f"{engine.title} {table_id}",
            manual_start=manual_start,
            bot_delay=self.bot_delay if bot_delay is None else bot_delay,
            host_token_hash=host_hash,
            turn_seconds=turn_seconds,
            takeover_seconds=takeover_seconds,
            seats=[Seat(index=i) for i in range(players)],
            beat=self.beat,
            moves=self.moves,
        )
        for index in range(players - bots, players):
            table._seat_bot(index)
        if self.store is not None:
            self.store.add_table(table.stored(), [seat.stored() for seat in table.seats])
            table.store = self.store
        self.tables[table_id] = table
        if not manual_start and not table.open_seats():
            table.start()
        self._spawn_tasks(table)
        return table, host_token

    def _forget_finished(self) -> None:
        """Keep only the most recent finished tables (their history stays replayable until then)."""
        finished = [t for t in self.tables.values() if t.status is Status.FINISHED]
        for table in finished[: max(0, len(finished) - KEEP_FINISHED)]:
            del self.tables[table.table_id]
            if self.store is not None:
                self.store.delete_table(table.table_id)

    def _new_id(self) -> str:
        alphabet = "abcdefghjkmnpqrstuvwxyz23456789"
        while True:
            table_id = "".join(secrets.choice(alphabet) for _ in range(6))
            if table_id not in self.tables:
                return table_id

    def _spawn_tasks(self, table: Table) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop: used synchronously (tests of validation); bots run only on a live server
        if table.status is Status.FINISHED:
            return
        runners = [("bots", table.run_bots())]
        if table.turn_seconds or table.takeover_seconds:
            runners.append(("clocks", table.run_clocks()))
        for name, runner in runners:
            task = loop.create_task(runner, name=f"{name}-{table.table_id}")
            self._tasks.add(task)
            task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("task %s failed", task.get_name(), exc_info=task.exception())
