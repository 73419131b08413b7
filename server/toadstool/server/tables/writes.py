"""What a change of a table must write to its log: one record per kind of write, made by the table's core
(toadstool.server.tables.core) and written by its shell (toadstool.server.tables.table) through the store's
Protocol. Moves are not here: the group commit writes those itself, before they are applied.
"""

from __future__ import annotations

from dataclasses import dataclass

from toadstool.server.records import StoredSeat


@dataclass(frozen=True)
class SeatWrite:
    seat: StoredSeat


@dataclass(frozen=True)
class NoteWrite:
    """A table-level event kept in the log (`version`: the table's version it was said at)."""

    version: int
    text: str


@dataclass(frozen=True)
class StartWrite:
    pass


@dataclass(frozen=True)
class FinishWrite:
    """The game is over at `version` (so a restart need not replay it): not a request's, so a disk that
    refuses it costs only a replay after the next restart."""

    version: int
    at: float


@dataclass(frozen=True)
class EndWrite:
    version: int
    reason: str
    at: float


@dataclass(frozen=True)
class DeviceTokenWrite:
    digest: bytes


#: Everything a change of the core can ask to be written (the `TableStore` call each stands for is the
#: shell's `_write`).
Write = SeatWrite | NoteWrite | StartWrite | FinishWrite | EndWrite | DeviceTokenWrite
