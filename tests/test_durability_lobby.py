"""Nothing half-written in the lobby: a crash at any write of CreateTable or JoinTable leaves no full table
unstarted and no seat held by a token nobody has; a retried join gets its seat back; a full table stored
unstarted (by an older server) starts when restored. The store's fault hook stops the writes at every
point in turn (as a kill would: nothing after it is written); one test kills a real server process with
strace at its disk writes."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import signal
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest

from conftest import LISTENING, TEST_LIMIT_FLAGS, serve_command, start_serve, stop_process
from toadstool.api.v1 import service_pb2
from toadstool.server.store import Store, StoredSeat, StoredTable
from toadstool.server.tables import SeatKind, Status, TableError, TableRegistry
from toadstool_clients.connection import Client


class Crash(BaseException):
    """The process stopping at a write (a BaseException: no `except Exception` in the server catches it)."""


def _stop_at(write: int) -> Callable[[str], None]:
    count = 0

    def fault(statement: str) -> None:
        nonlocal count
        count += 1
        if count == write:
            raise Crash(statement)

    return fault


class Person:
    """A client that keeps what it was answered: tokens it holds, requests whose answers it never got."""

    def __init__(self) -> None:
        self.tokens: set[bytes] = set()  # hashes of every seat token received
        self.unanswered: list[tuple[str, str, str]] = []  # (table id, name, request id) of lost join answers

    def join(self, registry: TableRegistry, table_id: str, name: str, request_id: str) -> None:
        try:
            _, token = registry.get(table_id).join(name, None, request_id=request_id)
        except Crash:
            self.unanswered.append((table_id, name, request_id))
            raise
        self.tokens.add(hashlib.sha256(token.encode()).digest())


def _lobby_requests(registry: TableRegistry, person: Person, created: list[str]) -> None:
    """CreateTable(uno, 4 seats, 2 bots), two joins, then CreateTable(uno, 4 bots): the paths of issue #21."""
    table, _ = registry.create("uno", 4, bots=2, seed=1)
    created.append(table.table_id)
    person.join(registry, table.table_id, "Ann", "ann-join-request-0001")
    person.join(registry, table.table_id, "Bob", "bob-join-request-0002")
    bots, _ = registry.create("uno", 4, bots=4, seed=2)
    created.append(bots.table_id)


def _check_restored(registry: TableRegistry, person: Person) -> None:
    for table in registry.tables.values():
        if table.status is Status.LOBBY and not table.manual_start:
            assert table.open_seats(), f"table {table.table_id} sits in the lobby with every seat taken"
        for seat in table.seats:
            if seat.kind is SeatKind.HUMAN:
                assert seat.token_hash in person.tokens, f"seat {seat.index} is held by a token nobody has"


def test_a_crash_at_any_write_of_create_or_join_leaves_every_table_startable_and_every_seat_owned(
    tmp_path: Path,
) -> None:
    counted = Store(tmp_path / "count.db")
    writes = 0

    def count(statement: str) -> None:
        nonlocal writes
        writes += 1

    counted.fault = count
    _lobby_requests(TableRegistry(store=counted), Person(), [])
    counted.close()
    assert writes >= 6  # two tables with their seats and starts, two joins: each at least a write and a commit
    for write in range(1, writes + 1):
        db = tmp_path / f"crash-{write}.db"
        store = Store(db)
        store.fault = _stop_at(write)
        person, created = Person(), []
        with pytest.raises(Crash):
            _lobby_requests(TableRegistry(store=store), person, created)
        store.close()  # the process is gone: what it had not committed is not in the file
        restored = TableRegistry(store=Store(db))
        restored.load()
        _check_restored(restored, person)
        # The person whose answer was lost asks again with the same request id: they get a seat (the one
        # stored, if it was), and then every seat a person holds is one whose token somebody has.
        for table_id, name, request_id in person.unanswered:
            if table_id in restored.tables:
                person.join(restored, table_id, name, request_id)
        _check_restored(restored, person)
        restored.store.close()  # type: ignore[union-attr]


def test_a_retried_join_gets_the_same_seat_and_token_even_after_the_table_started(tmp_path: Path) -> None:
    registry = TableRegistry(store=Store(tmp_path / "t.db"))
    table, _ = registry.create("uno", 2, bots=1, seed=3)
    seat, token = table.join("Ann", None, request_id="a-fresh-random-id-1")
    assert table.status is Status.PLAYING  # her join filled the table: it started
    again = table.join("Ann", None, request_id="a-fresh-random-id-1")
    assert again == (seat, token)
    restored = TableRegistry(store=Store(tmp_path / "t.db"))
    restored.load()
    assert restored.get(table.table_id).join("Ann", None, request_id="a-fresh-random-id-1") == (seat, token)
    with pytest.raises(TableError, match="already started"):  # a new id is a new join: there is no seat left
        restored.get(table.table_id).join("Ann", None, request_id="another-random-id-2")


def test_a_full_table_stored_unstarted_starts_by_itself_when_restored(tmp_path: Path) -> None:
    """What an older server left behind when killed between a join and the start it triggered."""
    db = tmp_path / "t.db"
    store = Store(db)
    store.add_table(
        StoredTable(
            table_id="full22",
            game="uno",
            players=2,
            options={},
            seed=1,
            name="full",
            manual_start=False,
            bot_delay=0.1,
            turn_seconds=0.0,
            takeover_seconds=0.0,
            host_token_hash=b"\0" * 32,
            device_token_hash=None,
            started=False,
        ),
        [StoredSeat(0, "Ann", 2, b"\1" * 32), StoredSeat(1, "Bot 1", 3, None)],
    )
    store.close()
    registry = TableRegistry(store=Store(db))
    registry.load()
    assert registry.get("full22").status is Status.PLAYING
    again = TableRegistry(store=Store(db))  # and the start was stored: the next restart replays it
    again.load()
    assert again.get("full22").status is Status.PLAYING


def test_a_join_whose_write_fails_changes_nothing(tmp_path: Path) -> None:
    store = Store(tmp_path / "t.db")
    registry = TableRegistry(store=store)
    table, _ = registry.create("uno", 2, bots=1, seed=3)
    store.fault = _stop_at(2)  # the seat is written, the start that follows it is not
    with pytest.raises(Crash):
        table.join("Ann", None)
    assert table.status is Status.LOBBY
    assert table.open_seats() == [0]
    assert table.state is None


async def test_join_with_a_request_id_too_short_to_be_secret_is_refused(tmp_path: Path) -> None:
    process, address = start_serve(
        "--db", str(tmp_path / "t.db"), "--no-announce", *TEST_LIMIT_FLAGS, output=tmp_path / "serve.log",
        env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")},
    )  # fmt: skip
    try:
        async with Client(address) as client:
            table_id = (await client.create_table("uno", 2, seed=1)).table.table_id
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await client.join(table_id, "Ann", request_id="1")
            assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "16 to 256 characters" in (caught.value.details() or "")
            assert len((await client.get_table(table_id)).seats) == 2
            assert all(not s.name for s in (await client.get_table(table_id)).seats)
    finally:
        stop_process(process)


#: The strace test kills the server at every STRACE_STEP-th disk write (a server start each): 1 tries every
#: write (about 40, a minute and a half here); CI tries every seventh. The fault-hook test above stops at
#: every write statement in any case.
STRACE_STEP = int(os.environ.get("TOADSTOOL_STRACE_STEP", "7"))


async def _lobby_over_grpc(address: str, tokens: set[bytes], lost: list[tuple[str, str, str]]) -> bool:
    """The issue's requests over gRPC; False once the server died under them."""
    try:
        # Generous deadlines: under strace every syscall of the server's stops it twice, and a call that timed
        # out would count as a kill; a killed server fails the call at once (the connection drops).
        async with Client(address, timeout=30) as client:
            created = await client.create_table("uno", 4, bots=2, seed=1)
            table_id = created.table.table_id
            for name in ("Ann", "Bob"):
                request_id = uuid.uuid4().hex
                lost.append((table_id, name, request_id))
                request = service_pb2.JoinTableRequest(table_id=table_id, name=name, request_id=request_id)
                joined = await client.stub.JoinTable(request, timeout=30)  # once: a retry comes after the restart
                lost.pop()
                tokens.add(hashlib.sha256(joined.seat_token.encode()).digest())
            await client.create_table("uno", 4, bots=4, seed=2)
    except grpc.aio.AioRpcError:
        return False
    return True


@pytest.mark.timeout(420)  # a server start and a restart per kill: slow on a loaded machine
async def test_a_server_killed_at_any_disk_write_of_the_lobby_restarts_with_every_table_startable(
    tmp_path: Path,
) -> None:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    template = tmp_path / "template.db"
    process, _ = start_serve("--db", str(template), "--no-announce", output=tmp_path / "first.log", env=env)
    stop_process(process)  # an existing database: the writes counted are the requests', as in the issue
    write, killed = 1 - STRACE_STEP, 0
    while True:
        write += STRACE_STEP
        assert write < 400, "the server was still killed after 400 writes"
        db = tmp_path / "run" / "toadstool.db"
        shutil.rmtree(db.parent, ignore_errors=True)
        db.parent.mkdir()
        shutil.copy(template, db)
        log = tmp_path / "run" / "serve.log"
        flags = ("--db", str(db), "--no-announce", "--bot-delay", "60", *TEST_LIMIT_FLAGS)
        traced, address = _serve_killed_at_write(write, flags, env, log)
        try:
            if address is None:  # killed while starting up: no request was made, nothing to check
                continue
            tokens: set[bytes] = set()
            lost: list[tuple[str, str, str]] = []
            survived = await _lobby_over_grpc(address, tokens, lost)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(traced.pid, signal.SIGKILL)
            traced.wait(10)
        restarted, address = start_serve(*flags, output=log, env=env)
        try:
            async with Client(address, timeout=5) as client:
                for table_id, name, request_id in lost:  # the lost answer, asked for again
                    if any(t.table_id == table_id for t in await client.list_tables()):
                        again = await client.join(table_id, name, request_id=request_id)
                        tokens.add(hashlib.sha256(again.seat_token.encode()).digest())
                for info in await client.list_tables():
                    full = all(s.kind != 1 for s in info.seats)  # SEAT_KIND_EMPTY
                    assert not (info.status == 1 and full), f"write {write}: {info.table_id} is full in the lobby"
        finally:
            stop_process(restarted)
        store = Store(db)
        try:
            held = [r[0] for r in store.db.execute("SELECT token_hash FROM seats WHERE kind = 2")]
        finally:
            store.close()
        assert set(held) <= tokens, f"write {write}: a seat is held by a token nobody has"
        if survived:
            break
        killed += 1
    assert killed >= 3, "the server was killed at too few of its writes for this to say anything"


def _serve_killed_at_write(
    write: int, flags: tuple[str, ...], env: dict[str, str], log: Path
) -> tuple[subprocess.Popen[bytes], str | None]:
    """`toadstool serve` under strace, killed (SIGKILL) at its `write`-th pwrite64; returns the process and
    the address it listens on, or None if it was killed before it listened."""
    strace = [
        "strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=pwrite64",
        "-e", f"inject=pwrite64:signal=SIGKILL:when={write}",
    ]  # fmt: skip
    with log.open("ab") as out:  # its own process group: strace and the server it traces end together
        traced = subprocess.Popen(
            [*strace, *serve_command(0, *flags)], env=env, stdout=out, stderr=out, start_new_session=True
        )
    deadline = time.monotonic() + 120  # a loaded machine, every syscall traced: not a speed requirement
    while time.monotonic() < deadline:
        found = LISTENING.search(log.read_text(errors="replace"))
        if found:
            return traced, found.group(1)
        if traced.poll() is not None:
            return traced, None
        time.sleep(0.02)
    os.killpg(traced.pid, signal.SIGKILL)
    raise TimeoutError(f"the server did not listen:\n{log.read_text(errors='replace')[-3000:]}")
