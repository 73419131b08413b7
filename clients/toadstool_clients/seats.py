"""Saved seats: the seat and host tokens this machine holds, so a person resumes their seat after a crash,
a reboot or a closed lid (`toadstool join`, `toadstool play`, the Tk lobby, `toadstool replay`).

A seat is saved under its server, its table and the name of the person who took it, because two people
may share one computer account: Cat's saved seat must never be handed to Dan. The file is
`{"SERVER/TABLE": [{"name": ..., "seat": ..., "token": ...}, ...]}`; a file written before names were kept
(`{"SERVER/TABLE": {"seat": ..., "token": ...}}`) is still read, its seat with no name (`SavedSeat.name`
is None) until `remember_seat` writes it again with one.

It is for reading and writing the two token files (`paths.seats_file`, `paths.hosted_file`), readable by
their owner only. It is not for deciding whether a token still holds its seat (the server says that) nor
for asking the person anything (the commands do).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

from toadstool_clients.files import changing, replace_private
from toadstool_clients.paths import hosted_file, seats_file

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SavedSeat:
    """A seat this machine holds at one table: who took it (None: saved before names were kept)."""

    name: str | None
    seat: int
    token: str

    def is_for(self, name: str) -> bool:
        """Whether this seat was taken under `name` (letter case aside: "cat" is Cat)."""
        return self.name is not None and self.name.casefold() == name.strip().casefold()


def _read(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write(path: Path, data: dict[str, object]) -> None:
    """Save `data` whole; a file that cannot be written (a full disk, a read-only home, on Windows another
    program holding it open) is said and otherwise ignored: the game in hand goes on with the token it has,
    only resuming it after a restart is lost."""
    try:
        replace_private(path, json.dumps(data, indent=1))
    except OSError as error:
        log.warning(
            "could not save %s (%s): the game goes on, but this machine will not remember it after a restart",
            path,
            error,
        )


def _key(address: str, table_id: str) -> str:
    return f"{address}/{table_id}"


def _entry(raw: object) -> SavedSeat | None:
    if not isinstance(raw, dict):
        return None
    try:
        seat, token = int(raw["seat"]), str(raw["token"])
    except (KeyError, TypeError, ValueError):
        return None
    name = raw.get("name")
    return SavedSeat(str(name) if isinstance(name, str) else None, seat, token)


def _put(data: dict[str, object], key: str, seats: list[SavedSeat]) -> None:
    """Set (or, with no seats left, drop) one table's entry of the file's `data`."""
    if not seats:
        data.pop(key, None)
        return
    data[key] = [{"seat": s.seat, "token": s.token, **({"name": s.name} if s.name is not None else {})} for s in seats]


def saved_seats(address: str, table_id: str) -> list[SavedSeat]:
    """Every seat this machine holds at this table on this server, oldest first (an unreadable entry is
    skipped: a damaged file must not stop anyone from joining)."""
    raw = _read(seats_file()).get(_key(address, table_id))
    entries = raw if isinstance(raw, list) else [raw]
    return [seat for seat in map(_entry, entries) if seat is not None]


def saved_tables(address: str) -> list[str]:
    """The tables on this server where this machine holds a seat, in the order they were first saved."""
    prefix = f"{address}/"
    return [key[len(prefix) :] for key in _read(seats_file()) if key.startswith(prefix)]


def remember_seat(address: str, table_id: str, seat: int, token: str, name: str | None = None) -> None:
    """Keep the seat token on this machine, under `name`, so `toadstool join` can resume after a crash or
    reboot. It replaces what was kept for the same seat or the same name at this table."""
    path = seats_file()
    with changing(path):
        data = _read(path)
        kept = [
            old
            for old in saved_seats(address, table_id)
            if old.seat != seat and not (name is not None and old.is_for(name))
        ]
        kept.append(SavedSeat(name.strip() if name is not None else None, seat, token))
        _put(data, _key(address, table_id), kept)
        _write(path, data)


def forget_seat(address: str, table_id: str, seat: int) -> None:
    """Drop the saved token of one seat (it was left, or is no longer this machine's)."""
    path = seats_file()
    with changing(path):
        data = _read(path)
        _put(data, _key(address, table_id), [old for old in saved_seats(address, table_id) if old.seat != seat])
        _write(path, data)


def remembered_seat(address: str, table_id: str, name: str | None = None) -> tuple[int, str] | None:
    """The seat and token kept for this table on this server under `name`, or None. Without a name: the
    first seat kept there whoever took it (for what may use any of them: a replay's point of view, the
    Tk lobby's "your seat" mark)."""
    for saved in saved_seats(address, table_id):
        if name is None or saved.is_for(name):
            return saved.seat, saved.token
    return None


def remember_host_token(address: str, table_id: str, token: str) -> None:
    """Keep the host token of a table created from this machine (it starts, kicks and deletes)."""
    path = hosted_file()
    with changing(path):
        data = _read(path)
        data[_key(address, table_id)] = token
        _write(path, data)


def remembered_host_token(address: str, table_id: str) -> str | None:
    """The host token of a table this machine created on this server (`remember_host_token`), or None."""
    token = _read(hosted_file()).get(_key(address, table_id))
    return token if isinstance(token, str) else None
