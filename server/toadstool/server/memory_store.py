"""The durable log kept in memory: a `TableStore` for `serve --no-db` and for tests of the tables without a
file. It keeps what the SQLite store keeps, in the same shapes, and forgets it all when the process ends.

Its batches are real transactions: what a block inside `batch()` wrote is undone if the block raises, so
a table's request that fails part way leaves the log as it was, as SQLite's rollback does. It never refuses
a write (no disk), so it never raises `DiskUnavailable`. Not for anything kept across a restart (that is
toadstool.server.store's).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from toadstool.i18n import from_stored, stored
from toadstool.server.records import StoredAction, StoredGame, StoredSeat, StoredTable, StoreError, TableStore


@dataclasses.dataclass
class _Kept:
    """One table as kept: its row, seats, actions (in version order) and notes (version, stored text)."""

    table: StoredTable
    seats: dict[int, StoredSeat]
    actions: list[StoredAction] = dataclasses.field(default_factory=list)
    notes: list[tuple[int, str]] = dataclasses.field(default_factory=list)


class MemoryStore:
    """Every table of one server, in memory (see the module docstring)."""

    path = ":memory:"

    def __init__(self) -> None:
        self._tables: dict[str, _Kept] = {}
        #: While a batch is open: how to undo each of its writes, newest last.
        self._undo: list[Callable[[], object]] | None = None

    # -- transactions ----------------------------------------------------------------------------------

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """One transaction for every write inside (nested batches join the outer one): kept together when
        the outermost ends, undone if it raises."""
        if self._undo is not None:
            yield
            return
        self._undo = []
        try:
            yield
        except BaseException:
            for undo in reversed(self._undo):
                undo()
            raise
        finally:
            self._undo = None

    @property
    def in_batch(self) -> bool:
        return self._undo is not None

    def _did(self, undo: Callable[[], object]) -> None:
        if self._undo is not None:
            self._undo.append(undo)

    def _kept(self, table_id: str) -> _Kept:
        kept = self._tables.get(table_id)
        if kept is None:
            raise StoreError(f"no table {table_id} is stored")
        return kept

    def _change(self, table_id: str, **changes: Any) -> None:
        kept = self._kept(table_id)
        before = kept.table
        kept.table = dataclasses.replace(before, **changes)
        self._did(lambda: setattr(kept, "table", before))

    # -- writes ----------------------------------------------------------------------------------------

    def add_table(self, table: StoredTable, seats: list[StoredSeat]) -> None:
        if table.table_id in self._tables:
            raise StoreError(f"table {table.table_id} is stored already")
        self._tables[table.table_id] = _Kept(table, {seat.seat: seat for seat in seats})
        self._did(lambda: self._tables.pop(table.table_id, None))

    def set_seat(self, table_id: str, seat: StoredSeat) -> None:
        seats = self._kept(table_id).seats
        before = seats.get(seat.seat)
        seats[seat.seat] = seat
        self._did(lambda: seats.__setitem__(seat.seat, before) if before is not None else seats.pop(seat.seat))

    def set_started(self, table_id: str) -> None:
        self._change(table_id, started=True)

    def set_finished(self, table_id: str, version: int, at: float) -> None:
        self._change(table_id, finished_version=version, finished_at=at)

    def set_ended(self, table_id: str, version: int, reason: str, at: float) -> None:
        self._change(table_id, finished_version=version, ended=stored(reason), finished_at=at)

    def set_record(self, table_id: str, record: dict[str, Any]) -> None:
        self._change(table_id, record=record)

    def set_device_token(self, table_id: str, token_hash: bytes) -> None:
        self._change(table_id, device_token_hash=token_hash)

    def add_action(self, table_id: str, action: StoredAction) -> None:
        self.add_actions([(table_id, action)])

    def add_actions(self, actions: Sequence[tuple[str, StoredAction]]) -> None:
        """Several tables' actions in one transaction: all are kept, or none (a version a table has
        already is refused, as the SQLite store's primary key refuses it)."""
        lists = [self._kept(table_id).actions for table_id, _ in actions]
        for log, (table_id, action) in zip(lists, actions, strict=True):
            if log and log[-1].version >= action.version:
                raise StoreError(f"table {table_id} has version {log[-1].version} stored already")
        for log, (_, action) in zip(lists, actions, strict=True):
            log.append(action)
            self._did(log.pop)

    def add_note(self, table_id: str, version: int, text: str) -> None:
        notes = self._kept(table_id).notes
        notes.append((version, stored(text)))
        self._did(notes.pop)

    def delete_table(self, table_id: str) -> None:
        kept = self._tables.pop(table_id, None)
        if kept is not None:
            self._did(lambda: self._tables.__setitem__(table_id, kept))

    # -- reads -----------------------------------------------------------------------------------------

    def history(self, table_id: str) -> tuple[list[StoredAction], dict[int, list[str]]]:
        kept = self._tables.get(table_id)
        if kept is None:
            return [], {}
        notes: dict[int, list[str]] = {}
        for version, text in kept.notes:
            notes.setdefault(version, []).append(from_stored(text))
        return list(kept.actions), notes

    def tables(self) -> Iterator[StoredGame]:
        for kept in list(self._tables.values()):
            table = kept.table
            if table.ended is not None:
                table = dataclasses.replace(table, ended=from_stored(table.ended))
            seats = [kept.seats[index] for index in sorted(kept.seats)]
            if table.finished_version is not None:
                yield table, seats, [], {}
            else:
                yield table, seats, *self.history(table.table_id)

    def close(self) -> None:
        """Nothing to let go of: what it keeps goes with the process."""


if TYPE_CHECKING:
    _STORE: TableStore = MemoryStore()  # mypy checks that the memory store is a TableStore
