"""Seats and who holds them: the table's status and seat kinds, cleaning names from the network, and the
secret seat, host and device tokens (random, stored only as hashes, compared in constant time).
"""

from __future__ import annotations

import base64
import enum
import hashlib
import hmac
import secrets
import unicodedata
from dataclasses import dataclass

from toadstool.bots import as_level
from toadstool.engine import (
    Bot,
)
from toadstool.i18n import tr, trn
from toadstool.server.records import StoredSeat
from toadstool.server.tables.errors import ErrorKind, TableError, no_such_seat

MAX_NAME_LENGTH = 24
MAX_TABLE_NAME_LENGTH = 40


class Status(enum.IntEnum):
    """What a table is doing; the values are the TableStatus numbers of table.proto (tests check they agree)."""

    LOBBY = 1
    PLAYING = 2
    FINISHED = 3


class SeatKind(enum.IntEnum):
    """Who holds a seat; the values are the SeatKind numbers of table.proto (tests check they agree)."""

    EMPTY = 1
    HUMAN = 2
    BOT = 3


def printable(raw: str) -> str:
    """`raw` without control, format (bidi) and other invisible characters: safe on any screen."""
    return "".join(ch for ch in raw if unicodedata.category(ch)[0] != "C")


def sanitize_name(raw: str, limit: int = MAX_NAME_LENGTH, *, of_table: bool = False) -> str:
    """A display name safe to show in any terminal or window: printable characters only.

    Control characters, escape sequences, bidi overrides and other format characters are dropped, runs
    of white space become one space, and the result must be 1..limit characters (`of_table`: a refusal
    says "the table name", else "the name").
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
        raise TableError(
            ErrorKind.BAD_REQUEST,
            tr("the table name is empty once unprintable characters are removed")
            if of_table
            else tr("the name is empty once unprintable characters are removed"),
        )
    if len(name) > limit:
        raise TableError(
            ErrorKind.BAD_REQUEST,
            trn("the table name is longer than {n} character", "the table name is longer than {n} characters", limit)
            if of_table
            else trn("the name is longer than {n} character", "the name is longer than {n} characters", limit),
        )
    return name


def _hash_token(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


def new_token() -> tuple[str, bytes]:
    """A fresh secret (256 random bits, URL-safe) and the hash that is all the server keeps of it."""
    token = secrets.token_urlsafe(32)
    return token, _hash_token(token)


#: The shortest request id a join accepts: the id is the secret its seat's token is derived from.
MIN_JOIN_REQUEST_ID = 16


def join_token(request_id: str, table_id: str, seat: int, host_token_hash: bytes) -> tuple[str, bytes]:
    """The seat token of a join made with `request_id` (and its hash): the same for every retry of that join,
    so a person whose answer was lost gets their seat back by asking again with the same id.

    The id is the secret (a client sends a fresh random one per join, at least MIN_JOIN_REQUEST_ID
    characters); the table and seat are mixed in so that one id never opens two seats, and the table's host
    token hash (random, never sent) so that the token cannot be computed from the id alone by another server.
    """
    message = f"toadstool join {table_id} {seat}".encode() + host_token_hash
    raw = hmac.new(request_id.encode("utf-8", "surrogatepass"), message, hashlib.sha256).digest()
    token = base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
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
    #: Whether a stream for this seat has ever opened (since the server started): a return is a reconnection.
    ever_connected: bool = False
    #: How strong a bot seat's bot plays (toadstool.bots.BotLevel's value, 0 for normal), kept in the store.
    bot_level: int = 0

    def stored(self) -> StoredSeat:
        return StoredSeat(
            seat=self.index, name=self.name, kind=self.kind.value, token_hash=self.token_hash, bot_level=self.bot_level
        )

    @property
    def played_by_bot(self) -> bool:
        return self.bot is not None and (self.kind is SeatKind.BOT or self.bot_controlled)


@dataclass(frozen=True)
class AppliedRequest:
    seat: int
    action_id: str
    version: int


def open_seat(table_id: str, seats: list[Seat], seat: int | None) -> int:
    """`seat` if it is open, or the first open seat when None; else the refusal a person can act on."""
    open_seats = [s.index for s in seats if s.kind is SeatKind.EMPTY]
    if seat is None:
        if not open_seats:
            raise TableError(
                ErrorKind.NOT_PLAYING, tr("table {table} has no open seat; watch it instead", table=table_id)
            )
        return open_seats[0]
    if not 0 <= seat < len(seats):
        raise TableError(ErrorKind.BAD_REQUEST, no_such_seat(seat, len(seats)))
    if seats[seat].kind is not SeatKind.EMPTY:
        taken = tr("seat {seat} is taken; open seats: {open}", seat=seat, open=open_seats)
        raise TableError(ErrorKind.NOT_PLAYING, taken)
    return seat


def bot_seat(table_id: str, seats: list[Seat], seat: int, finished: bool) -> Seat:
    """The seat whose bot's level a host asks to change, or the refusal a person can act on: a seat that
    does not exist, a finished table, a seat no bot holds."""
    if not 0 <= seat < len(seats):
        raise TableError(ErrorKind.BAD_REQUEST, no_such_seat(seat, len(seats)))
    if finished:
        raise TableError(ErrorKind.NOT_PLAYING, tr("table {table} is finished", table=table_id))
    if seats[seat].kind is not SeatKind.BOT:
        refusal = tr("seat {seat} holds no bot; only a bot's level can be set", seat=seat)
        raise TableError(ErrorKind.NOT_PLAYING, refusal)
    return seats[seat]


def checked_level(bot_level: int) -> int:
    """A bot level a client sent (service.proto's BotLevel: 0 unspecified, 1 easy, 2 normal, 3 hard), or
    BAD_REQUEST saying which levels there are: the table stores it, so nothing else may reach the store."""
    try:
        as_level(bot_level)
    except ValueError:
        raise TableError(
            ErrorKind.BAD_REQUEST,
            tr(
                "bot_level must be easy (1), normal (2), hard (3) or unspecified (0, normal), not {level}",
                level=bot_level,
            ),
        ) from None
    return bot_level
