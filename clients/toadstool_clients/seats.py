"""Saved seats: the seat and host tokens this machine holds, so a person resumes their seat after a crash,
a reboot or a closed lid (`toadstool join`, the Tk lobby, `toadstool replay`).

It is for reading and writing the two token files (`paths.seats_file`, `paths.hosted_file`), readable by
their owner only. It is not for deciding whether a token still holds its seat: the server says that.
"""

from __future__ import annotations

import json
from pathlib import Path

from toadstool_clients.paths import hosted_file, seats_file


def _read(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write(path: Path, data: dict[str, object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1))
    path.chmod(0o600)


def remember_seat(address: str, table_id: str, seat: int, token: str) -> None:
    """Keep the seat token on this machine so `toadstool join` can resume after a crash or reboot."""
    path = seats_file()
    data = _read(path)
    data[f"{address}/{table_id}"] = {"seat": seat, "token": token}
    _write(path, data)


def remembered_seat(address: str, table_id: str) -> tuple[int, str] | None:
    """The seat and token kept for this table on this server, or None."""
    entry = _read(seats_file()).get(f"{address}/{table_id}")
    if not isinstance(entry, dict) or not entry:
        return None
    return int(entry["seat"]), str(entry["token"])


def remember_host_token(address: str, table_id: str, token: str) -> None:
    """Keep the host token of a table created from this machine (it starts, kicks and deletes)."""
    path = hosted_file()
    data = _read(path)
    data[f"{address}/{table_id}"] = token
    _write(path, data)
