"""Saved seats are safe: two people on one computer account never take each other's seats.

A seat is saved under its server, its table and the name it was taken under; `toadstool join` with another
name asks before it sits anyone in a seat saved for someone else, and a seat file written before names were
kept is still read. Driven as a person would: the real `toadstool join` in a real terminal (tmux) against a
`toadstool serve` process on loopback.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from terminal_helpers import Terminal

from conftest import toadstool_command
from toadstool.api.v1 import table_pb2
from toadstool_clients.connection import Client


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_STATE_HOME": str(tmp_path / "state")}


def _seats_file(tmp_path: Path) -> Path:
    return tmp_path / "config" / "toadstool" / "seats.json"


def _table(address: str, table_id: str) -> table_pb2.TableInfo:
    async def get() -> table_pb2.TableInfo:
        async with Client(address) as client:
            return await client.get_table(table_id)

    return asyncio.run(get())


def _seated(address: str, table_id: str, name: str, seconds: float = 30.0) -> int:
    """The seat `name` holds once the table shows it there (fails after `seconds`)."""
    deadline = time.monotonic() + seconds
    while True:
        seats = {seat.name: seat.index for seat in _table(address, table_id).seats if seat.name}
        if name in seats:
            return seats[name]
        if time.monotonic() > deadline:
            raise AssertionError(f"{name} never sat at table {table_id}; the seats are {seats}")
        time.sleep(0.1)


def _connected(address: str, table_id: str, seat: int, wanted: bool = True, seconds: float = 30.0) -> None:
    """Wait until the seat's holder is (or, `wanted` False, is no longer) watching the table."""
    deadline = time.monotonic() + seconds
    while _table(address, table_id).seats[seat].connected is not wanted:
        if time.monotonic() > deadline:
            raise AssertionError(f"seat {seat} at table {table_id} never became connected={wanted}")
        time.sleep(0.1)


def _new_table(tmp_path: Path, address: str, players: int = 3) -> str:
    created = subprocess.run(
        toadstool_command("new", "uno", "--players", str(players), "--manual-start", "--server", address),
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return created.stdout.strip()


@pytest.fixture
def terminals() -> Iterator[list[Terminal]]:
    opened: list[Terminal] = []
    yield opened
    for terminal in opened:
        terminal.close()


def _join(tmp_path: Path, terminals: list[Terminal], address: str, table_id: str, *flags: str) -> Terminal:
    terminal = Terminal(toadstool_command("join", table_id, "--server", address, *flags), _env(tmp_path))
    terminals.append(terminal)
    return terminal


def test_two_people_on_one_account_never_take_each_others_seats(
    tmp_path: Path, server_process: tuple[object, str], terminals: list[Terminal]
) -> None:
    _, address = server_process
    table_id = _new_table(tmp_path, address)
    _join(tmp_path, terminals, address, table_id, "--name", "Cat")
    cat = _seated(address, table_id, "Cat")
    dan = _join(tmp_path, terminals, address, table_id, "--name", "Dan")
    shown = dan.wait_for("Take a new seat as Dan (n)")
    assert f"already holds Cat's seat at table {table_id}" in shown
    dan.save("seat-question")
    dan.keys("Enter")
    assert _seated(address, table_id, "Dan") != cat
    assert _seated(address, table_id, "Cat") == cat
    assert _saved_names(tmp_path, f"{address}/{table_id}", until=["Cat", "Dan"]) == ["Cat", "Dan"]


def _saved_names(tmp_path: Path, key: str, until: list[str], seconds: float = 10.0) -> list[str]:
    """The names saved under `key`, once they are `until` or `seconds` have passed (the client saves its
    seat just after the server seated it, so a test that saw the seat may read the file a moment early)."""
    deadline = time.monotonic() + seconds
    while True:
        path = _seats_file(tmp_path)
        saved = json.loads(path.read_text()) if path.exists() else {}
        names = sorted(entry["name"] for entry in saved.get(key, []))
        if names == until or time.monotonic() > deadline:
            return names
        time.sleep(0.1)


def test_the_same_name_goes_back_to_its_own_seat_without_being_asked(
    tmp_path: Path, server_process: tuple[object, str], terminals: list[Terminal]
) -> None:
    _, address = server_process
    table_id = _new_table(tmp_path, address)
    first = _join(tmp_path, terminals, address, table_id, "--name", "Cat")
    cat = _seated(address, table_id, "Cat")
    # Closed only once the client has saved the seat, just after the server seated it (a busy machine
    # widens that moment: closed before, Cat's seat would be no one's to go back to).
    assert _saved_names(tmp_path, f"{address}/{table_id}", until=["Cat"]) == ["Cat"]
    first.close()
    _connected(address, table_id, cat, wanted=False)
    again = _join(tmp_path, terminals, address, table_id, "--name", "cat")
    _connected(address, table_id, cat)
    assert "Take a new seat" not in again.wait_for("Cat")
    assert [seat.name for seat in _table(address, table_id).seats if seat.name] == ["Cat"]


def test_sitting_in_someone_elses_seat_happens_only_when_asked_for(
    tmp_path: Path, server_process: tuple[object, str], terminals: list[Terminal]
) -> None:
    _, address = server_process
    table_id = _new_table(tmp_path, address)
    cat_terminal = _join(tmp_path, terminals, address, table_id, "--name", "Cat")
    cat = _seated(address, table_id, "Cat")
    assert _saved_names(tmp_path, f"{address}/{table_id}", until=["Cat"]) == ["Cat"]  # as above
    cat_terminal.close()
    _connected(address, table_id, cat, wanted=False)
    dan = _join(tmp_path, terminals, address, table_id, "--name", "Dan")
    dan.wait_for("sit in Cat's (1)")
    dan.keys("1")
    dan.keys("Enter")
    _connected(address, table_id, cat)
    assert [seat.name for seat in _table(address, table_id).seats if seat.name] == ["Cat"]


def test_not_at_a_terminal_another_names_seat_is_left_alone_and_said_so(
    tmp_path: Path, server_process: tuple[object, str], terminals: list[Terminal]
) -> None:
    _, address = server_process
    table_id = _new_table(tmp_path, address)
    _join(tmp_path, terminals, address, table_id, "--name", "Cat")
    cat = _seated(address, table_id, "Cat")
    process = subprocess.Popen(
        toadstool_command("join", table_id, "--server", address, "--name", "Dan"),
        env={**_env(tmp_path), "TERM": "dumb"},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert _seated(address, table_id, "Dan") != cat
    finally:
        process.kill()
        _, errors = process.communicate(timeout=15)
    assert f"This computer also holds Cat's seat at table {table_id}; taking a new seat as Dan" in errors


def test_ctrl_c_at_the_seat_question_exits_0_without_a_traceback(
    tmp_path: Path, server_process: tuple[object, str], terminals: list[Terminal]
) -> None:
    _, address = server_process
    table_id = _new_table(tmp_path, address)
    _join(tmp_path, terminals, address, table_id, "--name", "Cat")
    _seated(address, table_id, "Cat")
    dan = _join(tmp_path, terminals, address, table_id, "--name", "Dan")
    dan.wait_for("Take a new seat as Dan")
    dan.keys("C-c")
    assert dan.exit_status() == 0
    assert "Traceback" not in dan.screen()
    assert [seat.name for seat in _table(address, table_id).seats if seat.name] == ["Cat"]


def test_a_seat_saved_before_names_were_kept_is_found_by_the_name_the_table_shows(
    tmp_path: Path, server_process: tuple[object, str], terminals: list[Terminal]
) -> None:
    _, address = server_process
    table_id = _new_table(tmp_path, address)

    async def take_seat() -> str:
        async with Client(address) as client:
            return (await client.join(table_id, "Zed", 1)).seat_token

    token = asyncio.run(take_seat())
    _seats_file(tmp_path).parent.mkdir(parents=True, exist_ok=True)
    _seats_file(tmp_path).write_text(json.dumps({f"{address}/{table_id}": {"seat": 1, "token": token}}))
    zed = _join(tmp_path, terminals, address, table_id, "--name", "Zed")
    _connected(address, table_id, 1)
    assert "Take a new seat" not in zed.wait_for("Zed")
    assert [seat.name for seat in _table(address, table_id).seats if seat.name] == ["Zed"]
    saved = json.loads(_seats_file(tmp_path).read_text())[f"{address}/{table_id}"]
    assert saved == [{"seat": 1, "token": token, "name": "Zed"}]


def test_saved_seats_are_kept_per_name_and_a_seat_file_without_names_is_still_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toadstool_clients.seats import forget_seat, remember_seat, remembered_seat, saved_seats

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    _seats_file(tmp_path).parent.mkdir(parents=True, exist_ok=True)
    _seats_file(tmp_path).write_text(json.dumps({"h:1/abcdef": {"seat": 2, "token": "old"}}))
    assert remembered_seat("h:1", "abcdef") == (2, "old")
    assert remembered_seat("h:1", "abcdef", "Cat") is None
    remember_seat("h:1", "abcdef", 0, "cat-token", "Cat")
    remember_seat("h:1", "abcdef", 1, "dan-token", "Dan")
    assert remembered_seat("h:1", "abcdef", "cat") == (0, "cat-token")
    assert remembered_seat("h:1", "abcdef", "Dan") == (1, "dan-token")
    assert remembered_seat("h:1", "other", "Dan") is None
    assert remembered_seat("h:2", "abcdef", "Dan") is None
    assert [(s.name, s.seat) for s in saved_seats("h:1", "abcdef")] == [(None, 2), ("Cat", 0), ("Dan", 1)]
    remember_seat("h:1", "abcdef", 3, "cat-again", "Cat")  # Cat's new seat replaces her old one
    forget_seat("h:1", "abcdef", 2)
    assert [(s.name, s.seat) for s in saved_seats("h:1", "abcdef")] == [("Dan", 1), ("Cat", 3)]
    assert _seats_file(tmp_path).stat().st_mode & 0o077 == 0
