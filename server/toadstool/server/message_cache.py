"""The message cache: every serialised message, or part of one, that the server remembers in order to send it
again, and the few places where protobuf's wire bytes are joined by hand. `messages` (which builds every
message) and `wire` (which converts a value to its message) go through this interface and keep no message
bytes of their own.

What is remembered, keyed by what, bounded how:
- `MessageCache`, one per table: the parts of its updates, by the table's (version, revision) and the part's
  key (dropped at the next version or revision); each viewer's last private view body, by viewer and
  language (one entry each); the seats' messages, by what they show (one list).
- `VALUES`, shared by every table: the serialised message of a value (a card, an action) by the value's
  fields and the message type, and each legal action's serialised `LegalAction` by the action's fields,
  its label and its game. At most `MAX_VALUES` entries in all; emptied whole when full.

Keyed by value, never by `id()`. `VALUES` keys a value by its class and the fields it holds, read afresh at
every lookup (`operator.attrgetter`, in C: `_key_of`), so two values with the same fields share an entry
and a value never takes another's bytes, whatever its class's `__eq__` and `__hash__` say. The private views
are compared with `==`. Either is done only for a class declared to compare by value (`by_value`): a frozen
dataclass compared on every field (its `__dataclass_params__` and fields) whose type hints name only whole
numbers, text, bytes, IntEnum members, tuples of those and other such classes; not a float (-0.0 == 0.0
makes other bytes), a plain Enum, or anything a hint does not name.

Joining by hand (principle 8, docs/design.md): wire bytes are joined only here, always as whole fields
(key, length, body) written once at every depth, never by relying on a parser to merge a message field met
twice; `tests/test_wire_runtimes.py` decodes every message of a whole game of each game in protobufjs,
protobuf-es, C++ and Python, and `tests/test_message_bytes.py` checks the bytes against plain protobuf.
"""

from __future__ import annotations

import dataclasses
import enum
import operator
import typing
from collections.abc import Callable, Iterable
from functools import cache
from typing import Any, Protocol, TypeVar

from google.protobuf import message_factory
from google.protobuf.message import Message

from toadstool.api.v1 import service_pb2, table_pb2
from toadstool.server.tables.action_ids import element_type

_Part = TypeVar("_Part")

# -- the wire format, by hand --------------------------------------------------------------------------------


def varint(value: int) -> bytes:
    """`value` as protobuf's base-128 varint (a field's key, the length before a length-delimited field)."""
    if value <= 0x7F:
        return _SMALL_VARINTS[value]
    if value <= 0x3FFF:  # most lengths of a view's parts: two bytes
        return bytes((value & 0x7F | 0x80, value >> 7))
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


_SMALL_VARINTS = tuple(bytes((value,)) for value in range(0x80))


def field_key(number: int) -> bytes:
    """The key of the length-delimited field `number` (a message, a string, bytes) on the wire."""
    return varint(number << 3 | 2)


def join_split(game: str, public_body: bytes, private_body: bytes, legal: bytes) -> bytes:
    """A viewer's `Update.view` and legal actions (a game with `view_split`) as Update fields: the view
    written once, holding `GameView.<game>` written once, whose body joins the public and the private fields
    of the view (disjoint sets: `view_split`), then `legal` (`legal_actions`)."""
    size = len(public_body) + len(private_body)
    # (varint inlined for one and two bytes: this runs for every viewer after every move)
    if size < 0x80:
        body_size = _SMALL_VARINTS[size]
    else:
        body_size = bytes((size & 0x7F | 0x80, size >> 7)) if size < 0x4000 else varint(size)
    member = _MEMBER_KEYS.get(game) or _member_key(game)
    total = len(member) + len(body_size) + size
    if total < 0x80:
        view_size = _SMALL_VARINTS[total]
    else:
        view_size = bytes((total & 0x7F | 0x80, total >> 7)) if total < 0x4000 else varint(total)
    return b"".join((_VIEW_KEY, view_size, member, body_size, public_body, private_body, legal))


#: The key of `GameView`'s member for each game on the wire (bounded by the games): `_member_key`.
_MEMBER_KEYS: dict[str, bytes] = {}


def _member_key(game: str) -> bytes:
    key = _MEMBER_KEYS[game] = field_key(table_pb2.GameView.DESCRIPTOR.fields_by_name[game].number)
    return key


def update(parts: Iterable[bytes]) -> bytes:
    """Serialised Updates of disjoint fields (each field in one part only, so nothing is written twice) as one
    serialised Update."""
    return b"".join(parts)


def watch_response(parts: Iterable[bytes]) -> bytes:
    """`update(parts)` as the serialised WatchResponse carrying it."""
    body = b"".join(parts)
    size = len(body)
    if size < 0x80:
        return _WATCH_UPDATE_KEY + _SMALL_VARINTS[size] + body
    return _WATCH_UPDATE_KEY + (bytes((size & 0x7F | 0x80, size >> 7)) if size < 0x4000 else varint(size)) + body


_VIEW_KEY = field_key(table_pb2.Update.VIEW_FIELD_NUMBER)
_LEGAL_ACTIONS_KEY = field_key(table_pb2.Update.LEGAL_ACTIONS_FIELD_NUMBER)
_WATCH_UPDATE_KEY = field_key(service_pb2.WatchResponse.UPDATE_FIELD_NUMBER)


# -- which values are keyed by their fields --------------------------------------------------------------

#: What a field of a `by_value` class may hold, besides tuples, None and other such classes.
_EXACT_TYPES = (int, str, bytes)  # (bool and IntEnum are ints)


@cache
def type_hints(cls: type) -> dict[str, Any]:
    """`typing.get_type_hints(cls)`, worked out once per class (here and by `wire`'s plans)."""
    return typing.get_type_hints(cls)


#: Whether each class seen is `by_value` (bounded by the classes the games define).
_BY_VALUE: dict[type, bool] = {}
#: The key of each class's values (`_key_of`), or `_NOT_KEPT` for a class whose values `ValueBytes` does not
#: keep.
_KEYS: dict[type, Callable[[Any], Any]] = {}


_CLASS = operator.attrgetter("__class__")  # the key of a class without fields: the same for all its values


def _NOT_KEPT(value: Any) -> Any:
    raise AssertionError("no key")  # (never called: compared by identity)


def by_value(cls: type) -> bool:
    """Whether two equal values of the dataclass `cls` always make the same message, so that the bytes built
    for one may be sent for the other. Decided once per class from what it declares: its
    `__dataclass_params__` (frozen, and compared and hashed by the fields: `eq`), every field compared
    (`field.compare`), and type hints naming only whole numbers, text, bytes, IntEnum members, tuples of
    those, None and values of other such classes (no float: -0.0 == 0.0 makes other bytes; no plain Enum).

    A class declaring `eq` must not write an `__eq__` of its own that calls values with other fields equal;
    `tests/test_message_bytes.py` checks that no game's class writes one. The bytes `ValueBytes` keeps do
    not rely even on that: they are keyed by the fields themselves (`_key_of`)."""
    known = _BY_VALUE.get(cls)
    if known is not None:
        return known
    _BY_VALUE[cls] = False  # while deciding: a class that holds itself is not by value
    able = dataclasses.is_dataclass(cls)
    if able:
        params = cls.__dataclass_params__  # type: ignore[attr-defined]
        fields = dataclasses.fields(cls)
        able = bool(params.frozen and params.eq) and all(f.compare for f in fields)
        if able:
            try:
                hints = type_hints(cls)
            except Exception:  # unresolvable annotations: not by value
                hints = {}
            able = all(_exact(hints.get(f.name, Any)) for f in fields)
    _BY_VALUE[cls] = able
    return able


def _exact(hint: Any) -> bool:
    """Whether a field typed `hint` makes the same bytes for equal values (see `by_value`)."""
    hint = element_type(hint)
    if not isinstance(hint, type):
        return False
    if dataclasses.is_dataclass(hint):
        return by_value(hint)
    return issubclass(hint, _EXACT_TYPES) and (not issubclass(hint, enum.Enum) or issubclass(hint, enum.IntEnum))


def _holds_values(hint: Any) -> bool:
    """Whether a field typed `hint` (of a `by_value` class) holds dataclass values, or tuples of them."""
    for part in (hint, *typing.get_args(hint), *(a for b in typing.get_args(hint) for a in typing.get_args(b))):
        if isinstance(part, type) and dataclasses.is_dataclass(part):
            return True
    return False


def _key_of(cls: type) -> Callable[[Any], Any]:
    """The key `ValueBytes` keeps `cls`'s values by, among its class's: `operator.attrgetter` of every field
    (one call into C making a tuple of whole numbers, text, bytes and IntEnum members, hashed in C: a frozen
    dataclass's own `__hash__` is Python, run for every card of every hand). `_NOT_KEPT` for a class not
    `by_value`, or whose values hold other values (a whole view: converted each time, its nested values
    from the cache)."""
    key: Callable[[Any], Any] = _NOT_KEPT
    if by_value(cls):
        hints = type_hints(cls)
        names = [f.name for f in dataclasses.fields(cls)]
        if not any(_holds_values(hints[name]) for name in names):
            key = operator.attrgetter(*names) if names else _CLASS
    _KEYS[cls] = key
    return key


def keeps_bytes(cls: type) -> bool:
    """Whether `ValueBytes` keeps the bytes of `cls`'s values (`_key_of`)."""
    return (_KEYS.get(cls) or _key_of(cls)) is not _NOT_KEPT


# -- the cache of values' bytes, shared by every table ----------------------------------------------------

#: How many values' bytes `VALUES` holds at most (a game of UNO shows ~100 cards and offers ~200 actions).
MAX_VALUES = 4096


class _Named(Protocol):
    @property
    def name(self) -> str: ...


class ValueBytes:
    """The serialised messages of values shown again and again, shared by every table.

    - `value_bytes`: a value's message (an UNO card in every hand, a top card), by the value's class, its
      fields (`_key_of`) and the message type. Serialised once, then parsed into place (upb, in
      C) instead of being converted field by field in Python again.
    - `legal_actions`: a legal action's `LegalAction` (its id, label and action message), by the
      action's class and fields, its label and its game: the seat to act is sent every legal action after
      every move, mostly the same actions with the same labels.

    Safe: an entry is found only by a value with the very same fields (compared as tuples of whole numbers,
    text, bytes and IntEnum members: equal means the same bytes), for the same message type (its
    descriptor) and the same label and game; a value of a class whose fields might not is not kept (it is
    converted every time). Bounded: at most `limit` entries in all, emptied whole when full. (A value of a
    wrong type, 7.0 in an int field, that equals one seen before takes its bytes instead of failing: the
    engines' types are checked by mypy, not here. Nor is an action holding an IntEnum member in a field
    typed `int`, which mypy allows: its bytes are those of the plain number, but its action id spells the
    member's name, so an action offered both ways would be sent with the id of the one seen first;
    `tests/test_message_bytes.py` checks every legal action's bytes, id included, in seeded games of the four
    games. Keying by the fields' types too would cost a lookup of every field's type.)
    """

    __slots__ = ("_actions", "_count", "_values", "limit")

    def __init__(self, limit: int = MAX_VALUES) -> None:
        self.limit = limit
        self._count = 0
        #: class -> {fields: (message descriptor, bytes)}
        self._values: dict[type, dict[Any, tuple[Any, bytes]]] = {}
        #: class -> {(fields, label): (game, bytes)}
        self._actions: dict[type, dict[tuple[Any, str], tuple[str, bytes]]] = {}

    def __len__(self) -> int:
        return self._count

    def forget(self) -> None:
        """Empty the cache (when full; tests start from nothing)."""
        self._values.clear()
        self._actions.clear()
        self._count = 0

    def known(self, value: Any) -> tuple[Any, bytes] | None:
        """The (message descriptor, bytes) kept for `value`, if any (for tests)."""
        key = _KEYS.get(type(value)) or _key_of(type(value))
        return None if key is _NOT_KEPT else self._values.get(type(value), {}).get(key(value))

    def remember(self, value: Any, descriptor: Any, data: bytes) -> None:
        """Keep `data` as the bytes of `value` in the message type `descriptor` (for tests)."""
        self._room()
        self._values.setdefault(type(value), {})[_key_of(type(value))(value)] = (descriptor, data)

    def _room(self) -> None:
        if self._count >= self.limit:
            self.forget()
        self._count += 1

    def value_bytes(self, value: Any, message_type: type[Message], serialise: Callable[[Any, Any], bytes]) -> bytes:
        """The serialised `message_type` message of `value`: remembered, or `serialise(value, message_type)`."""
        cls = type(value)
        key = _KEYS.get(cls) or _key_of(cls)
        if key is _NOT_KEPT:
            return serialise(value, message_type)
        fields = key(value)
        descriptor = message_type.DESCRIPTOR
        found: tuple[Any, bytes] | None = self._values.get(cls, _NONE).get(fields)
        if found is not None and found[0] is descriptor:
            return found[1]
        data = serialise(value, message_type)
        self._room()
        self._values.setdefault(cls, {})[fields] = (descriptor, data)
        return data

    def legal_actions(
        self, engine: _Named, offered: Iterable[tuple[Any, str]], build: Callable[[Any, Any, str], bytes]
    ) -> bytes:
        """The actions `offered` (each with its label) at a table of `engine`'s game as the Update field
        `legal_actions`: each LegalAction's bytes remembered by the action's fields, its label and the game, or
        `build(engine, action, label)`; keyed and length-prefixed as elements of that repeated field, joined."""
        game = engine.name
        kept = self._actions
        parts: list[bytes] = []
        last: type | None = None  # the class of the action before, whose key and entries are at hand
        key: Callable[[Any], Any] = _NOT_KEPT
        entries: dict[tuple[Any, str], tuple[str, bytes]] = _NONE
        for action, label in offered:
            cls = type(action)
            if cls is not last:
                last = cls
                key = _KEYS.get(cls) or _key_of(cls)
                entries = kept.get(cls, _NONE)
            if key is _NOT_KEPT:
                data = build(engine, action, label)
            else:
                fields = (key(action), label)
                found = entries.get(fields)
                if found is not None and found[0] == game:
                    data = found[1]
                else:
                    data = build(engine, action, label)
                    self._room()
                    entries = kept.setdefault(cls, {})
                    entries[fields] = (game, data)
            size = len(data)
            parts += (_LEGAL_ACTIONS_KEY, _SMALL_VARINTS[size] if size < 0x80 else varint(size), data)
        return b"".join(parts)

    def fill(self, message: Message, value: Any, serialise: Callable[[Any, Any], bytes]) -> None:
        """Fill the empty nested `message` from `value` (`value_bytes`)."""
        message.MergeFromString(self.value_bytes(value, type(message), serialise))

    def extend(
        self, message: Message, name: str, values: tuple[Any, ...], serialise: Callable[[Any, Any], bytes]
    ) -> None:
        """Append `values` to the repeated message field `name` of `message` in one parse: each element's bytes
        (as `value_bytes`) keyed and length-prefixed as protobuf writes an element of a repeated field, joined
        (a hand of cards is one call into upb rather than two per card). Parsing appends, in order."""
        field = _REPEATED_FIELDS.get((message.DESCRIPTOR, name))
        if field is None:
            field = _repeated_field(message, name)
        field_key_, element_type = field
        descriptor = element_type.DESCRIPTOR
        kept = self._values
        parts: list[bytes] = []
        last: type | None = None  # the class of the value before, whose key and entries are at hand
        key: Callable[[Any], Any] = _NOT_KEPT
        entries: dict[Any, tuple[Any, bytes]] = _NONE
        for value in values:
            cls = type(value)
            if cls is not last:
                last = cls
                key = _KEYS.get(cls) or _key_of(cls)
                entries = kept.get(cls, _NONE)
            if key is _NOT_KEPT:
                data = serialise(value, element_type)
            else:
                fields = key(value)
                found = entries.get(fields)
                if found is not None and found[0] is descriptor:
                    data = found[1]
                else:
                    data = serialise(value, element_type)
                    self._room()
                    entries = kept.setdefault(cls, {})
                    entries[fields] = (descriptor, data)
            size = len(data)
            parts += (field_key_, _SMALL_VARINTS[size] if size < 0x80 else varint(size), data)
        message.MergeFromString(b"".join(parts))


#: Each repeated message field `ValueBytes.extend` filled, by its message's descriptor and its name: its key
#: on the wire and its element's message class (bounded by the message types of the contract).
_REPEATED_FIELDS: dict[tuple[Any, str], tuple[bytes, type[Message]]] = {}


def _repeated_field(message: Message, name: str) -> tuple[bytes, type[Message]]:
    described = message.DESCRIPTOR.fields_by_name[name]
    element: Any = described.message_type  # (a message field: never None)
    field = _REPEATED_FIELDS[message.DESCRIPTOR, name] = (
        field_key(described.number),
        message_factory.GetMessageClass(element),
    )
    return field


#: An empty table of entries, never written (a class with none kept yet).
_NONE: dict[Any, Any] = {}

#: The one cache of values' bytes.
VALUES = ValueBytes()


# -- each table's parts ---------------------------------------------------------------------------------


class _Versioned(Protocol):
    version: int
    revision: int


class MessageCache:
    """The parts of one table's messages, built once and shared by every stream that asks (the table carries
    it as `Table.message_cache`; only `messages` reads or writes it). Its lifetime is the table's."""

    __slots__ = ("parts", "private_views", "seat_messages", "seats_shown")

    def __init__(self) -> None:
        #: Parts of updates at one (version, revision): see `part`.
        self.parts: dict[tuple[Any, ...], Any] = {}
        #: Each viewer's last private view and its serialised body, by viewer and language: sent again while
        #: the viewer's private view equals it (a `by_value` class's: equal values make the same bytes).
        #: One entry per viewer and language.
        self.private_views: dict[tuple[int | None, str], tuple[Any, bytes]] = {}
        #: What the seats' messages showed last, and those messages (built by `messages.seat_messages`).
        self.seats_shown: list[tuple[Any, ...]] = []
        self.seat_messages: list[Any] = []

    def part(self, table: _Versioned, key: tuple[Any, ...], build: Callable[[], _Part]) -> _Part:
        """A part of an update built once per version and revision, however many streams ask for it.

        Every watcher of a table is woken by the same change and asks for the same parts: the table's own
        part once, each viewer's part once per viewer (every spectator shares one), a live stream's whole
        message, serialised, once per viewer and event position. Only the current version and revision are
        ever asked for again, so older parts are dropped. Callers must not change what they get.
        """
        full = (table.version, table.revision, *key)
        parts = self.parts
        found = parts.get(full)
        if found is None:
            if parts and next(iter(parts))[:2] != full[:2]:
                parts.clear()
            found = parts[full] = build()
        return found  # type: ignore[no-any-return]
