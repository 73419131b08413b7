"""What a table's durable log keeps, and the Protocol the tables write it through: the records (a table's
setup, its seats, its accepted actions), the errors a store raises, and `TableStore`.

The tables (toadstool.server.tables) depend on this module only, never on a concrete store:
`toadstool.server.store.Store` keeps the log in SQLite on disk, `toadstool.server.memory_store.MemoryStore`
in memory (`serve --no-db`, and tests of the table core without a file). No SQL and no I/O here.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol


class StoreError(Exception):
    """The database cannot be used; the message says which file and why. Nothing was written to it."""


class DiskUnavailable(StoreError):
    """The disk refused a write (full, read-only, failing): nothing of it was saved, and a later write may
    work again once the host has seen to the disk. The message is meant for the person who was refused."""


class StoreUnreadable(StoreError):
    """Reading the stored tables back failed part way (damage the check at opening did not see): the
    tables read so far are usable, the rest are not; the message says why."""


@dataclass(frozen=True)
class StoredTable:
    table_id: str
    game: str
    players: int
    options: dict[str, str]
    seed: int
    name: str
    manual_start: bool
    bot_delay: float
    turn_seconds: float
    takeover_seconds: float
    host_token_hash: bytes
    device_token_hash: bytes | None
    started: bool
    #: The game's creation record (`toadstool.engine.creation_record`), JSON data; None for a table stored
    #: before records were kept.
    record: dict[str, Any] | None = None
    #: The version its game ended at, once it has (a restart need not replay it to know); None before.
    finished_version: int | None = None
    #: Why the table ended before its game did (its host ended it, nobody was there); None otherwise.
    ended: str | None = None
    #: When it finished (Unix seconds, the server's wall clock): the listing leaves it out a day later.
    finished_at: float | None = None


@dataclass(frozen=True)
class StoredSeat:
    seat: int
    name: str
    kind: int
    token_hash: bytes | None
    #: How strong a bot seat's bot plays (toadstool.bots.BotLevel's value; 0: normal). The table's second
    #: copy does not keep it: a table restored by repair plays its bots at normal.
    bot_level: int = 0


@dataclass(frozen=True)
class StoredAction:
    version: int
    seat: int
    action_id: str
    request_id: str
    note: str


#: One stored table as it is read back: its setup, seats, actions and notes (by version).
StoredGame = tuple[StoredTable, list[StoredSeat], list[StoredAction], dict[int, list[str]]]


class TableStore(Protocol):
    """Every table of one server, kept so that a restart brings each back at the same version.

    A write returns once it is kept (or raises `DiskUnavailable`, having kept nothing of it). What is
    written inside `batch()` is kept together when the outermost batch ends, or none of it if the block
    raises. Notes are `Text`s or strings and read back in the same form (`toadstool.i18n.stored`)."""

    @property
    def path(self) -> str:
        """What the log messages call this store (a file's path, or ":memory:")."""
        ...

    @property
    def in_batch(self) -> bool:
        """Whether a `batch` is open: a write that fails inside one fails the whole request."""
        ...

    def batch(self) -> AbstractContextManager[None]: ...

    def add_table(self, table: StoredTable, seats: list[StoredSeat]) -> None: ...

    def set_seat(self, table_id: str, seat: StoredSeat) -> None: ...

    def set_started(self, table_id: str) -> None: ...

    def set_finished(self, table_id: str, version: int, at: float) -> None: ...

    def set_ended(self, table_id: str, version: int, reason: str, at: float) -> None: ...

    def set_record(self, table_id: str, record: dict[str, Any]) -> None: ...

    def set_device_token(self, table_id: str, token_hash: bytes) -> None: ...

    def add_action(self, table_id: str, action: StoredAction) -> None: ...

    def add_actions(self, actions: Sequence[tuple[str, StoredAction]]) -> None:
        """Several tables' actions (table id, action), all kept or none."""
        ...

    def add_note(self, table_id: str, version: int, text: str) -> None: ...

    def delete_table(self, table_id: str) -> None: ...

    def history(self, table_id: str) -> tuple[list[StoredAction], dict[int, list[str]]]:
        """One table's actions and notes (by version): what its whole history is rebuilt from."""
        ...

    def tables(self) -> Iterator[StoredGame]:
        """Every stored table, oldest first; a finished one without its actions and notes (it is restored
        without replaying them). Raises `StoreUnreadable` where reading can go no further."""
        ...

    def close(self) -> None: ...
