"""The mutable working copy that a game's `apply` edits and then freezes into the next immutable state.

This module is for the one mechanism Power Up, Level Up! and Kart share: `apply` copies the frozen dataclass
state into a mutable object, resolves the action and everything automatic after it on that object, and
`freeze` builds the next state from it. A game subclasses `WorkingCopy[ItsState]` and annotates the state's
fields it works on; the annotation says how each is copied:

- `list[X]` (the state holds a tuple): a list, frozen back to a tuple;
- `list[list[X]]` (the state holds a tuple of tuples): a list of lists, frozen back to a tuple of tuples;
- anything else: the value as it is (rebinding the attribute is the way to change it).

`events` starts empty at every copy (a state holds what the last `apply` did) and `rng` is a `random.Random`
seeded from `rng_state` the first time it is used; `freeze` stores the next seed drawn from it (and keeps
`rng_state` when it was not used, unless the class sets NEW_SEED_EVERY_APPLY). A field the copy keeps in a
shape of its own (Kart's karts as one list per field) is named in `REBUILT`: the subclass's `__init__` sets
it up and its `freeze` hands it to `frozen`. Every field of the state must be accounted for, or defining
the subclass raises TypeError naming the ones left out.

It is not for the rules (a game's helper methods live on its subclass), not for NamedTuple states (UNO's
`apply` is one handler per action that builds its next state directly from the few fields the action
changes, which is cheaper than copying and freezing all twenty), and it keeps nothing between two applies.

Speed: `apply` is selfplay's and the bots' hot path, and copying and freezing are a quarter of it. So, as
`dataclasses` does for `__init__`, the copy (`_thaw`) and `frozen` of each subclass are written out as
plain Python source once, when the class is defined (its `SOURCE` shows them), and run as fast as the
hand-written ones they replaced; a loop over the fields cost Power Up's and Kart's selfplay 12-20% more
instructions with setattr, and more with `__dict__` filled directly, which also slows every later attribute
read (docs/benchmarks.md §4).
"""

from __future__ import annotations

import dataclasses
import random
import typing
from typing import Any, ClassVar, Generic, TypeVar

from toadstool.engine import Event

S = TypeVar("S")


def _state_type(cls: type) -> type:
    """The state class S of `class X(WorkingCopy[S])` (or of a subclass of such an X)."""
    for klass in cls.__mro__:
        for base in getattr(klass, "__orig_bases__", ()):
            if typing.get_origin(base) is WorkingCopy:
                (state_type,) = typing.get_args(base)
                if isinstance(state_type, type) and dataclasses.is_dataclass(state_type):
                    return state_type
    raise TypeError(f"{cls.__name__} must subclass WorkingCopy[S] with S a dataclass state")


def _source(cls: type[WorkingCopy[Any]], state_type: type) -> str:
    """The copy and freeze of `cls` as Python source (see the module docstring for the shapes)."""
    fields = [field.name for field in dataclasses.fields(state_type)]
    hints = typing.get_type_hints(cls)
    unknown = sorted(cls.REBUILT.difference(fields))
    if unknown:
        raise TypeError(f"{cls.__name__}.REBUILT names {', '.join(unknown)}, not fields of {state_type.__name__}")
    missing = [name for name in fields if name not in hints and name not in cls.REBUILT]
    if missing:
        raise TypeError(
            f"{cls.__name__} neither copies nor rebuilds {state_type.__name__}.{', '.join(missing)}: "
            "annotate them or name them in REBUILT"
        )
    state_hints = typing.get_type_hints(state_type)
    thaw = ["def _thaw(self, state):"]
    rebuilt = sorted(cls.REBUILT)
    keywords = f", *, {', '.join(rebuilt)}" if rebuilt else ""
    freeze = [f"def frozen(self{keywords}):", "    return State("]
    for name in fields:
        if name in cls.REBUILT:
            continue
        if name == "events":
            freeze.append("        events=tuple(self.events),")
            continue
        if name == "rng_state":
            thaw.append("    self.rng_state = state.rng_state")
            if cls.NEW_SEED_EVERY_APPLY:
                freeze.append("        rng_state=self.rng.getrandbits(64),")
            else:
                freeze.append("        rng_state=self.rng_state if self._rng is None else self._rng.getrandbits(64),")
            continue
        hint = hints[name]
        if typing.get_origin(hint) is not list:
            thaw.append(f"    self.{name} = state.{name}")
            freeze.append(f"        {name}=self.{name},")
            continue
        if typing.get_origin(state_hints[name]) is not tuple:
            raise TypeError(f"{cls.__name__}.{name} is a list but {state_type.__name__}.{name} is not a tuple")
        (item,) = typing.get_args(hint)
        if typing.get_origin(item) is list:
            thaw.append(f"    self.{name} = [list(row) for row in state.{name}]")
            freeze.append(f"        {name}=tuple(map(tuple, self.{name})),")
        else:
            thaw.append(f"    self.{name} = list(state.{name})")
            freeze.append(f"        {name}=tuple(self.{name}),")
    thaw += ["    self.events = []", "    self._rng = None"]
    freeze += [f"        {name}={name}," for name in rebuilt]
    freeze.append("    )")
    return "\n".join([*thaw, "", *freeze, ""])


class WorkingCopy(Generic[S]):
    """A mutable copy of a frozen dataclass state `S` for one `apply` (or a game's setup); see the module."""

    #: State fields the subclass copies in a shape of its own: its `__init__` sets them up from the state,
    #: its `freeze` passes them to `frozen`.
    REBUILT: ClassVar[frozenset[str]] = frozenset()
    #: Draw a next seed at every freeze, even when `rng` was not used (Level Up!'s games were recorded so).
    NEW_SEED_EVERY_APPLY: ClassVar[bool] = False
    #: The copy and freeze written for this class (read it to see what a working copy does, field by field).
    SOURCE: ClassVar[str] = ""

    events: list[Event]
    rng_state: int
    _rng: random.Random | None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        state_type = _state_type(cls)
        cls.SOURCE = _source(cls, state_type)
        namespace: dict[str, Any] = {"State": state_type}
        exec(compile(cls.SOURCE, f"<working copy of {state_type.__name__}>", "exec"), namespace)
        cls._thaw = namespace["_thaw"]  # type: ignore[method-assign]
        cls.frozen = namespace["frozen"]  # type: ignore[method-assign]

    def __init__(self, state: S) -> None:
        self._thaw(state)

    def _thaw(self, state: S) -> None:
        """Copy `state` in (written for each subclass when it is defined)."""
        raise NotImplementedError

    @property
    def rng(self) -> random.Random:
        """The game's random source, seeded from `rng_state` when first used."""
        rng = self._rng
        if rng is None:
            rng = self._rng = random.Random(self.rng_state)
        return rng

    def freeze(self) -> S:
        """The next state (a subclass with `REBUILT` fields overrides this to pass them to `frozen`)."""
        return self.frozen()

    def frozen(self, **rebuilt: Any) -> S:
        """The next state: every copied field frozen back, the new seed, the events, and the `REBUILT` fields
        given as keywords, each required (written for each subclass when it is defined)."""
        raise NotImplementedError
