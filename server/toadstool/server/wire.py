"""Converts engine values (frozen dataclasses, enums, tuples) to and from their protobuf messages.

Engines stay pure Python and know nothing of protobuf; each game's .proto mirrors its view and action
dataclasses field by field (same names), and this one converter maps between them. It is for that mapping
only: it makes no decisions about what a viewer may see (that is `Engine.view`).

Conventions a game follows so that the converter needs no per-game code:
- a dataclass field maps to the proto field of the same name;
- an `enum.Enum` member maps to the proto enum number `member.value` (so Python enums are IntEnums whose
  values equal the proto numbers, zero being UNSPECIFIED);
- `tuple[X, ...]` maps to a repeated field; `X | None` maps to an optional/message field left unset;
- an action dataclass `FooBar` is the oneof member `foo_bar` of the game's action message.

A game with no message of its own (the `generic` members of GameView and Action) travels as plain data
instead: `to_plain` and `from_plain` map the same values to and from what a google.protobuf.Struct holds.

It keeps no message bytes: a nested value shown again and again (an UNO card) is parsed from the bytes the
message cache keeps (`toadstool.server.message_cache`); what it remembers itself is per class (the field
plans below), bounded by the classes the games define.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Mapping
from typing import Any

from google.protobuf.message import Message

from toadstool.engine import _snake, preview
from toadstool.server import message_cache
from toadstool.server.message_cache import VALUES

_hints = message_cache.type_hints


_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


# How each dataclass field maps to its proto field, worked out once per class from its type hints. A nested
# value of a class keyed by its fields (`message_cache.by_value`, with no nested field of its own) is
# converted through the message cache (`_CACHED`, `_REPEATED_CACHED`).
_SCALAR, _ENUM, _MESSAGE, _REPEATED_SCALAR, _REPEATED_ENUM, _REPEATED_MESSAGE, _DYNAMIC = range(7)
_CACHED, _REPEATED_CACHED = 7, 8
_SCALAR_TYPES = (int, float, str, bool, bytes)


def converts_by_value(cls: type) -> bool:
    """Whether two values of the dataclass `cls` with the same fields always make the same message
    (`message_cache.by_value`), so that the bytes of one may be sent for the other."""
    return message_cache.by_value(cls)


def _keyed(cls: type) -> bool:
    """Whether the message cache keeps the bytes of `cls`'s values (`ValueBytes.value_bytes`)."""
    return message_cache.keeps_bytes(cls)


def _optional_of(hint: Any) -> Any:
    """`X` for `X | None` (and `hint` itself if it is no union); None for a union of several types."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        return args[0] if len(args) == 1 else None
    return hint


def _kind(hint: Any) -> int:
    hint = _optional_of(hint)
    if hint is None:
        return _DYNAMIC
    if typing.get_origin(hint) is tuple:
        element = typing.get_args(hint)[0]
        if isinstance(element, type):
            if dataclasses.is_dataclass(element):
                return _REPEATED_CACHED if _keyed(element) else _REPEATED_MESSAGE
            if issubclass(element, enum.IntEnum):
                return _REPEATED_SCALAR  # an IntEnum member is its proto number already (no `.value` to look up)
            if issubclass(element, enum.Enum):
                return _REPEATED_ENUM
            if issubclass(element, _SCALAR_TYPES):
                return _REPEATED_SCALAR
        return _DYNAMIC
    if isinstance(hint, type):
        if dataclasses.is_dataclass(hint):
            return _CACHED if _keyed(hint) else _MESSAGE
        if issubclass(hint, enum.IntEnum):
            return _SCALAR
        if issubclass(hint, enum.Enum):
            return _ENUM
        if issubclass(hint, _SCALAR_TYPES):
            return _SCALAR
    return _DYNAMIC


#: A class's plan: the names of its scalar fields (set as they are), then every other field with its kind.
_Plan = tuple[tuple[str, ...], tuple[tuple[str, int], ...]]
_PLANS: dict[type, _Plan] = {}
#: The plans of some of a class's fields (`to_message`'s `fields`), by class and field names.
_PART_PLANS: dict[tuple[type, frozenset[str]], _Plan] = {}


def _plan(cls: type, fields: frozenset[str] | None = None) -> _Plan:
    if fields is not None:
        part = _PART_PLANS.get((cls, fields))
        if part is None:
            scalars, others = _plan(cls)
            part = _PART_PLANS[cls, fields] = (
                tuple(name for name in scalars if name in fields),
                tuple((name, kind) for name, kind in others if name in fields),
            )
        return part
    plan = _PLANS.get(cls)
    if plan is None:
        try:
            hints = _hints(cls)
        except Exception:  # unresolvable annotations: convert every field by looking at its value
            hints = {}
        kinds = [(name, _kind(hints.get(name, Any))) for name in _fields(cls)]
        scalars = tuple(name for name, kind in kinds if kind == _SCALAR)
        plan = _PLANS[cls] = scalars, tuple((name, kind) for name, kind in kinds if kind != _SCALAR)
    return plan


def to_message(value: Any, message: Message, fields: frozenset[str] | None = None) -> Message:
    """Fill `message` from the dataclass `value` (only its `fields` when given) and return it.

    Views are converted for every viewer after every action, so the per-field mapping is planned once per
    class (from type hints) rather than rediscovered from each value; most fields are scalars, set in a
    loop of their own. `fields` serves a view split into the part every viewer is told alike and the part
    of one viewer (`toadstool.engine.view_split`).
    """
    scalars, others = _plan(type(value), fields)
    for name in scalars:
        item = getattr(value, name)
        if item is not None:
            setattr(message, name, item)
    for name, kind in others:
        item = getattr(value, name)
        if item is None:
            continue
        if kind == _CACHED:
            sub = getattr(message, name)
            sub.SetInParent()
            if sub.ListFields():  # filled already (a message given to fill that had it): merged field by field
                to_message(item, sub)
            else:
                sub.MergeFromString(VALUES.value_bytes(item, type(sub), _serialised))
        elif kind == _REPEATED_CACHED:
            if item:
                VALUES.extend(message, name, item, _serialised)
        elif kind == _REPEATED_SCALAR:
            if item:
                getattr(message, name).extend(item)
        elif kind == _MESSAGE:
            sub = getattr(message, name)
            sub.SetInParent()
            to_message(item, sub)
        elif kind == _REPEATED_MESSAGE:
            repeated = getattr(message, name)
            for element in item:
                to_message(element, repeated.add())
        elif kind == _ENUM:
            setattr(message, name, item.value)
        elif kind == _REPEATED_ENUM:
            getattr(message, name).extend(element.value for element in item)
        else:
            _set_dynamic(message, name, item)
    return message


def _serialised(value: Any, message_type: type[Message]) -> bytes:
    """`value` converted to a new `message_type` message, serialised (what the message cache keeps)."""
    return to_message(value, message_type()).SerializeToString()


def _set_dynamic(message: Message, name: str, item: Any) -> None:
    """The slow path, for fields whose type hint does not say what they hold."""
    if dataclasses.is_dataclass(item):
        sub = getattr(message, name)
        sub.SetInParent()
        to_message(item, sub)
    elif isinstance(item, tuple):
        repeated = getattr(message, name)
        for element in item:
            if dataclasses.is_dataclass(element):
                to_message(element, repeated.add())
            elif isinstance(element, enum.Enum):
                repeated.append(element.value)
            else:
                repeated.append(element)
    elif isinstance(item, enum.Enum):
        setattr(message, name, item.value)
    else:
        setattr(message, name, item)


def from_message(message: Message, cls: type) -> Any:
    """Build a dataclass of type `cls` from `message` (the inverse of `to_message`)."""
    hints = _hints(cls)
    kwargs: dict[str, Any] = {}
    for name in _fields(cls):
        kwargs[name] = _from_field(message, name, hints[name])
    return cls(**kwargs)


def _from_field(message: Message, name: str, hint: Any) -> Any:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        inner = args[0]
        has_presence = message.DESCRIPTOR.fields_by_name[name].has_presence
        if has_presence and not message.HasField(name):
            return None
        return _from_field(message, name, inner)
    if origin is tuple:
        element = typing.get_args(hint)[0]
        return tuple(_convert(v, element) for v in getattr(message, name))
    return _convert(getattr(message, name), hint)


def _convert(raw: Any, hint: Any) -> Any:
    if isinstance(hint, type):
        if dataclasses.is_dataclass(hint):
            return from_message(raw, hint)
        if issubclass(hint, enum.Enum):
            return hint(raw)
    return raw


def action_to_message(action: Any, message: Message) -> Message:
    """Set the oneof member of a game's action message that corresponds to `action`'s type."""
    member = getattr(message, _snake(type(action).__name__))
    member.SetInParent()
    to_message(action, member)
    return message


def action_from_message(message: Message, action_types: tuple[type, ...]) -> Any:
    """Read a game's action message back into the action dataclass named by its set oneof member.

    Raises ValueError when no member is set or the member names no known action (a malformed request).
    """
    oneofs = message.DESCRIPTOR.oneofs
    if not oneofs:
        raise ValueError(f"{message.DESCRIPTOR.name} has no action oneof")
    member = message.WhichOneof(oneofs[0].name)
    if member is None:
        raise ValueError(f"{message.DESCRIPTOR.name} names no action (its oneof is empty)")
    for cls in action_types:
        if _snake(cls.__name__) == member:
            return from_message(getattr(message, member), cls)
    raise ValueError(f"{message.DESCRIPTOR.name}.{member} is not an action this server knows")


def to_plain(value: Any) -> Any:
    """`value` as plain data for a google.protobuf.Struct: a dataclass as an object of its fields, an enum by
    its name, a tuple as a list; numbers, text, booleans and None as they are."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {name: to_plain(getattr(value, name)) for name in _fields(type(value))}
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, tuple | list):
        return [to_plain(element) for element in value]
    if isinstance(value, Mapping):
        return {str(key): to_plain(element) for key, element in value.items()}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def from_plain(raw: Any, hint: Any) -> Any:
    """The value of type `hint` that `to_plain` made `raw` from (numbers come back from a Struct as floats;
    the type hints say which were whole). Raises ValueError for data that does not fit the type."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        if raw is None:
            return None
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        return from_plain(raw, args[0]) if len(args) == 1 else raw
    if origin is tuple:
        if not isinstance(raw, list):
            raise ValueError(f"expected a list, not {type(raw).__name__}")
        element = typing.get_args(hint)[0]
        return tuple(from_plain(item, element) for item in raw)
    if isinstance(hint, type):
        if dataclasses.is_dataclass(hint):
            if not isinstance(raw, Mapping):
                raise ValueError(f"expected an object for {hint.__name__}")
            hints = _hints(hint)
            return hint(**{name: from_plain(raw.get(name), hints[name]) for name in _fields(hint)})
        if issubclass(hint, enum.Enum):
            try:
                return hint[str(raw)]
            except KeyError:
                raise ValueError(f"{preview(str(raw))} is not a {hint.__name__}") from None
        if hint is bool:
            return bool(raw)
        if hint is int:
            if not isinstance(raw, int | float) or raw != int(raw):
                raise ValueError(f"expected a whole number, not {preview(str(raw))}")
            return int(raw)
        if hint is float:
            return float(raw)
        if hint is str:
            return str(raw)
    return raw
