"""Action ids remembered by value: `action_id` built once for each action a game offers again and again, for
the hot path of a move (issue #24). Keyed by the action's class and fields, never by `id()` (issue #42).
"""

from __future__ import annotations

import dataclasses
import enum
import operator
import types
import typing
from collections.abc import Callable
from typing import Any

from toadstool.engine import action_id

#: The ids of the actions seen last, by value: (the action's class, its fields...) -> its id (a class without
#: fields is its own key).
_IDS: dict[Any, str] = {}
#: How many `_IDS` holds at most before it starts again (a few hundred actions cover a game of UNO).
MAX_KNOWN_IDS = 4096


def _build_id(action: Any) -> Any:
    raise AssertionError("never called: compared by identity")  # the key of a class whose ids are not kept


#: Each action class's key (`_key_of`), or `_build_id` for a class whose ids are built every time.
_KEYS: dict[type, Callable[[Any], Any]] = {}


def id_of(action: Any) -> str:
    """`action_id(action)`, remembered for an action with the same class and fields.

    An id is built from the action's fields each time it is asked for, and a move asks for it many times:
    for each legal action while its request is matched (`Table.act`), again to store it and to remember
    its request id, and for every legal action of the seat to act in every update. Most games offer the
    same few actions again and again, so those ids are built once. The key is read afresh at every call
    (`operator.attrgetter`, one call into C making a tuple hashed in C: a frozen dataclass's own `__hash__`
    is Python), so an action that equals one seen before by its fields gets that one's id, which its fields
    alone decide (`_key_of` says which classes qualify).
    """
    cls = type(action)
    key = _KEYS.get(cls) or _key_of(cls)
    if key is _build_id:
        return action_id(action)
    try:
        fields = key(action)
        known = _IDS.get(fields)
    except TypeError:  # a field holding something unhashable: built every time
        return action_id(action)
    if known is not None:
        return known
    if len(_IDS) >= MAX_KNOWN_IDS:
        _IDS.clear()
    known = _IDS[fields] = action_id(action)
    return known


def _key_of(cls: type) -> Callable[[Any], Any]:
    """The key `_IDS` keeps `cls`'s ids by: its class and every field (`operator.attrgetter`), for a class
    whose fields' type hints name only whole numbers, text, bytes, enum members, tuples of those and None,
    where equal fields always spell the same id; `_build_id` (built every time) for any other (a float:
    -0.0 == 0.0 and 1.0 == 1 spell other ids). Decided once per class. (An IntEnum member in a field typed
    `int`, which mypy allows, equals its number but spells its name: an action offered both ways would get
    the id of the one seen first. No game does: `tests/test_known_actions.py` checks every legal action's id
    in seeded games of the four games.)"""
    key: Callable[[Any], Any] = _build_id
    if not dataclasses.is_dataclass(cls):
        key = operator.attrgetter("__class__")  # `action_id` is the class's name alone
    else:
        try:
            hints = typing.get_type_hints(cls)
        except Exception:  # unresolvable annotations: built every time
            hints = {}
        names = [f.name for f in dataclasses.fields(cls)]
        if all(_exact(hints.get(name, Any)) for name in names):
            key = operator.attrgetter("__class__", *names)
    _KEYS[cls] = key
    return key


_EXACT_TYPES = (int, str, bytes, enum.Enum)  # (bool is an int)


def element_type(hint: Any) -> Any:
    """The one type a field typed `hint` holds values of, looking through `X | None` and `tuple[X, ...]`;
    None when it may hold values of several (a union of two, a tuple of fixed length). Whether equal values
    of a field give the same id here, and the same bytes in toadstool.server.message_cache, is decided
    from it."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        arguments = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(arguments) != 1:
            return None
        hint = arguments[0]
    if typing.get_origin(hint) is tuple:
        elements = typing.get_args(hint)
        if len(elements) != 2 or elements[1] is not Ellipsis:
            return None
        hint = elements[0]
    return hint


def _exact(hint: Any) -> bool:
    """Whether a field typed `hint` spells the same id for equal values (see `_key_of`)."""
    hint = element_type(hint)
    return isinstance(hint, type) and issubclass(hint, _EXACT_TYPES)
