"""A table's recent past in memory: the last events and actions of its log, indexed by their position in
the whole log, with the rest read back from the store when a whole history is asked for (GetHistory,
replay). So a table's memory is its current state plus a window, however long its game runs.

It is not the log itself (that is the store's) and it builds no message (that is toadstool.messages').
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar, overload


class Replaying(Protocol):
    """What `Replayed` needs of the object it is an attribute of (a `Table`): to replay its game."""

    def replay_finished(self) -> None: ...


T = TypeVar("T")
V = TypeVar("V")

#: Events a table keeps in memory at least: more than a resumed stream is ever sent (MAX_RESUME_EVENTS)
#: and than a first update carries, so every live message is built from memory.
KEEP_EVENTS = 2500

#: Actions a table keeps in memory at least (a whole short game; a long one's start is read back).
KEEP_ACTIONS = 1000


class Window(Generic[T]):
    """The most recent items of an append-only log, addressed by their position in the whole log.

    `len()` is the whole log's length, so a position taken from it (a stream's "events sent so far")
    stays meaningful after older items are dropped. Slices and indices are positions in the whole log;
    those before the window read as its first item (a bisect over versions still lands in the window),
    and a slice starting before it starts at the window. Iterating gives the whole log: from memory if
    nothing was dropped, else from `whole()` (read back from the store). Nothing is dropped unless
    `droppable()` (a server without a store has no other copy).

    Items are dropped in batches (once the window holds twice `keep`), so appending stays O(1).
    """

    def __init__(
        self, keep: int, whole: Callable[[], list[T]] | None = None, droppable: Callable[[], bool] | None = None
    ) -> None:
        """`whole` reads the whole log back; `droppable` says whether it can now (a table has a store)."""
        self.keep = keep
        self.whole = whole
        self.droppable = droppable or (lambda: whole is not None)
        self.start = 0
        self._items: list[T] = []

    def __len__(self) -> int:
        return self.start + len(self._items)

    def append(self, item: T) -> None:
        self._items.append(item)
        self._trim()

    def extend(self, items: Iterable[T]) -> None:
        self._items.extend(items)
        self._trim()

    def _trim(self) -> None:
        if len(self._items) > 2 * self.keep and self.droppable():
            dropped = len(self._items) - self.keep
            del self._items[:dropped]
            self.start += dropped

    def __iter__(self) -> Iterator[T]:
        if self.start == 0 or self.whole is None:  # nothing dropped (or nowhere to read it back from)
            return iter(list(self._items))
        return iter(self.whole())

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            if index.step not in (None, 1):
                raise ValueError("a window is sliced with step 1 only")
            begin, end, _ = index.indices(len(self))
            return self._items[max(begin, self.start) - self.start : max(end, self.start) - self.start]
        position = index + len(self) if index < 0 else index
        if not 0 <= position < len(self):
            raise IndexError(index)
        return self._items[max(position - self.start, 0)]

    def __delitem__(self, index: slice) -> None:
        """Drop the items from a position on (what a failed request added): `del window[n:]`."""
        if not isinstance(index, slice) or index.stop is not None or index.step is not None:
            raise TypeError("only `del window[n:]` is supported")
        begin = index.start or 0
        del self._items[max(begin - self.start, 0) :]

    def __eq__(self, other: object) -> bool:
        return list(self) == list(other) if isinstance(other, (Window, list)) else NotImplemented

    __hash__ = None  # type: ignore[assignment]


class Replayed(Generic[V]):
    """A table's attribute that comes from replaying its game (state, events, actions): read from a finished
    table restored unreplayed (`Table.restored_finished`), it replays the game first. A descriptor, so the
    attribute stays an ordinary dataclass field (constructed, copied with `dataclasses.replace`).

    A non-data descriptor (no `__set__` at run time): a value set is kept in the table's own `__dict__` under
    the attribute's name, where Python finds it before the descriptor, so reading it is a plain attribute
    read (these are read tens of times for every update a stream sends). Only a table restored unreplayed,
    whose entries `Table.restored_finished` took out, reaches `__get__`."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, table: None, owner: type | None = None) -> None: ...

    @overload
    def __get__(self, table: Replaying, owner: type | None = None) -> V: ...

    def __get__(self, table: Replaying | None, owner: type | None = None) -> V | None:
        if table is None:
            return None  # the field's default
        if table.__dict__.get("unreplayed"):
            table.replay_finished()
        return table.__dict__.get(self.name)  # type: ignore[no-any-return]

    if TYPE_CHECKING:  # for the type checker only: assigning a value of the attribute's type is allowed

        def __set__(self, table: Replaying, value: V | None) -> None: ...
