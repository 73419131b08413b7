"""Nothing lost: durable tables across SIGKILL, resume after a cut connection, idempotent retries, turn
clocks, takeover by bots, history and replay, a reconnect storm, graceful shutdown, and a database file
that is not ours. Real server processes, real signals, real SQLite files."""

from __future__ import annotations

import asyncio
import hashlib
import os
import random
import signal
import sqlite3
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from timing import Clock, until

from conftest import TEST_LIMIT_FLAGS, serve_command, start_serve, stop_process, toadstool_command
from e2e_helpers import first_update
from toadstool.api.v1 import service_pb2, table_pb2
from toadstool.server.app import RunningServer
from toadstool_clients import connection
from toadstool_clients.connection import Client, StreamState

#: SIGKILL rounds: a quick setting for CI, more with TOADSTOOL_KILL_ROUNDS for a longer local run.
KILL_ROUNDS = int(os.environ.get("TOADSTOOL_KILL_ROUNDS", "4"))
#: Streams re-opened at once in the reconnect storm (TOADSTOOL_STORM_STREAMS for a bigger local run).
STORM_STREAMS = int(os.environ.get("TOADSTOOL_STORM_STREAMS", "2000"))


class ServerProcess:
    """`toadstool serve` with a database file, which can be killed and restarted: the first start binds a
    free port (port 0), every restart comes back at the same address, as a restarted server does for its
    clients."""

    def __init__(self, tmp_path: Path, db: Path) -> None:
        self.port = 0
        self.db = db
        self.env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
        self.log = tmp_path / "serve.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        assert self.port, "not started yet"
        return f"127.0.0.1:{self.port}"

    def start(self, *extra: str) -> None:
        flags = ("--db", str(self.db), "--bot-delay", "0.002", "--no-announce", *TEST_LIMIT_FLAGS, *extra)
        self.process, address = start_serve(*flags, output=self.log, env=self.env, port=self.port)
        self.port = int(address.rsplit(":", 1)[1])

    def output(self) -> str:
        """What the process printed (every start of it), for failure messages."""
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            stop_process(self.process)


@pytest.fixture
def durable(tmp_path: Path) -> Iterator[ServerProcess]:
    server = ServerProcess(tmp_path, tmp_path / "state" / "toadstool.db")
    server.start()
    try:
        yield server
    finally:
        server.stop()


async def _act_until_killed(
    address: str, table_id: str, token: str, rng: random.Random, acked: list[tuple[int, str, str]], budget: int
) -> None:
    """Play one seat at random, recording every acknowledged (version, request id, action id)."""
    async with Client(address, timeout=5) as client:
        for _ in range(budget):
            try:
                update = await first_update(client, table_id, token)
            except (grpc.aio.AioRpcError, TimeoutError):
                return
            if update.status == table_pb2.TABLE_STATUS_FINISHED:
                return
            if not update.legal_actions or update.viewer_seat not in update.to_act:
                await asyncio.sleep(0.005)
                continue
            choice = rng.choice(update.legal_actions)
            request_id = uuid.uuid4().hex
            try:
                reply = await client.stub.Act(
                    service_pb2.ActRequest(
                        table_id=table_id, version=update.version, action_id=choice.id, request_id=request_id
                    ),
                    metadata=(("x-seat-token", token),),
                    timeout=5,
                )
            except grpc.aio.AioRpcError as error:
                if error.code() in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION):
                    continue
                return  # the server died under us: this action was not acknowledged
            acked.append((reply.version, request_id, choice.id))


async def test_every_acknowledged_action_survives_sigkill_at_random_points(durable: ServerProcess) -> None:
    rng = random.Random(2026)
    async with Client(durable.address) as client:
        created = await client.create_table("uno", 3, bots=2, seed=8, bot_delay_ms=2)
        table_id = created.table.table_id
        joined = await client.join(table_id, "Ann")
    acked: list[tuple[int, str, str]] = []
    for _ in range(KILL_ROUNDS):
        player = asyncio.create_task(
            _act_until_killed(durable.address, table_id, joined.seat_token, rng, acked, 10_000)
        )
        await asyncio.sleep(rng.uniform(0.2, 0.8))
        durable.kill()
        await asyncio.wait_for(player, 30)
        durable.start()
        async with Client(durable.address) as client:
            await client.wait_ready()  # the process-wide subchannel may still be backing off from the kill
            # The bots play on after the restart, so the table is read first and its history after.
            info = await client.get_table(table_id)
            history = await client.history(table_id, joined.seat_token)
        own = {step.version: step for step in history if step.HasField("seat") and step.seat == joined.seat}
        for version, _, _ in acked:
            assert version in own, f"acknowledged action at version {version} was lost"
        assert [step.version for step in history] == list(range(len(history))), "the history has a gap"
        assert info.version <= len(history) - 1, "the restored version is ahead of its own history"
        # A retry of the last acknowledged request after the restart is answered, never applied again.
        if acked:
            version, request_id, action_id = acked[-1]
            async with Client(durable.address) as client:
                await client.wait_ready()
                again = await client.act(table_id, joined.seat_token, version - 1, action_id, request_id=request_id)
            assert again.replayed
            assert again.version == version
    assert acked, "the scripted player never got an action acknowledged"


async def test_a_restarted_server_has_the_same_tables_views_seats_and_tokens(durable: ServerProcess) -> None:
    async with Client(durable.address) as client:
        created = await client.create_table("uno", 2, seed=4, name="Friday")
        table_id = created.table.table_id
        tokens = [(await client.join(table_id, n)).seat_token for n in ("Ann", "Bob")]
        first = await first_update(client, table_id, tokens[0])
        actor = first.to_act[0]
        mover = await first_update(client, table_id, tokens[actor])
        await client.act(table_id, tokens[actor], mover.version, mover.legal_actions[0].id)
        before = [await first_update(client, table_id, t) for t in [*tokens, None]]
    durable.kill()
    durable.start()
    async with Client(durable.address) as client:
        await client.wait_ready()
        after = [await first_update(client, table_id, t) for t in [*tokens, None]]
        info = await client.get_table(table_id)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await client.start(table_id, created.host_token)
    # The host token still works: the refusal is that the table already started, not who asked.
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    for old, new in zip(before, after, strict=True):
        for update in (old, new):
            for seat in update.seats:
                seat.connected = False
            del update.events[:]
            update.ClearField("turn_deadline_unix_ms")
        assert new == old
    assert info.name == "Friday"
    assert [s.name for s in info.seats] == ["Ann", "Bob"]


async def test_a_move_sent_while_the_server_restarts_lands_once_it_is_back_and_only_once(
    durable: ServerProcess,
) -> None:
    """The client library's Act, made while the server is down: its first try fails at once, and its retry
    (after the library's pause) waits for the channel rather than failing again at once during gRPC's
    reconnect backoff; the same request id means the move is applied once."""
    async with Client(durable.address) as client:
        created = await client.create_table("uno", 2, seed=4)
        table_id = created.table.table_id
        tokens = [(await client.join(table_id, n)).seat_token for n in ("Ann", "Bob")]
        actor = (await first_update(client, table_id, tokens[0])).to_act[0]
        mover = await first_update(client, table_id, tokens[actor])
    async with Client(durable.address, timeout=60) as client:
        await client.wait_ready()
        durable.kill()
        move = asyncio.create_task(client.act(table_id, tokens[actor], mover.version, mover.legal_actions[0].id))
        # The restart begins only after the retry has been sent: it is the retry that must wait.
        await asyncio.sleep(connection.RETRY_PAUSE * 3)
        assert not move.done(), "the move failed while the server was away"
        durable.start()
        reply = await move
        after = await first_update(client, table_id, None)
    assert reply.version == mover.version + 1
    assert after.version >= reply.version
    history = await _history_versions(durable.address, table_id)
    assert [v for v in history if v > mover.version] == [reply.version], "the move was not applied exactly once"


async def _history_versions(address: str, table_id: str) -> list[int]:
    async with Client(address) as client:
        return [step.version for step in await client.history(table_id)]


async def test_tokens_are_stored_hashed_never_in_the_clear(durable: ServerProcess) -> None:
    async with Client(durable.address) as client:
        created = await client.create_table("uno", 2, seed=4)
        joined = await client.join(created.table.table_id, "Ann")
    data = b"".join(p.read_bytes() for p in durable.db.parent.glob("toadstool.db*"))
    assert joined.seat_token.encode() not in data
    assert created.host_token.encode() not in data
    assert hashlib.sha256(joined.seat_token.encode()).digest() in data


async def test_a_stream_resumes_after_a_restart_with_no_gap_and_no_duplicate(durable: ServerProcess) -> None:
    async with Client(durable.address) as client:
        created = await client.create_table("uno", 3, bots=3, seed=21, bot_delay_ms=20)
        table_id = created.table.table_id
    seen_versions: list[int] = []
    events: list[tuple[int, str]] = []
    states: list[bool] = []
    restarted = False
    async with Client(durable.address) as watcher:
        async for item in watcher.follow(table_id, max_backoff=0.5, give_up_after=30):
            if isinstance(item, StreamState):
                states.append(item.connected)
                continue
            seen_versions.append(item.version)
            events.extend((e.version, e.text) for e in item.events)
            if not restarted and item.version > 20:
                restarted = True
                durable.kill()
                durable.start()
            if item.status == table_pb2.TABLE_STATUS_FINISHED or (restarted and len(seen_versions) > 400):
                break
    assert states[:2] == [False, True]
    assert seen_versions == sorted(seen_versions)
    assert len(events) == len(set(events)), "an event arrived twice"
    versions_with_events = sorted({v for v, _ in events})
    assert versions_with_events == list(range(versions_with_events[0], versions_with_events[-1] + 1)), "a gap"


async def test_a_closed_channel_resumes_from_its_last_version(server: RunningServer) -> None:
    async with Client(server.address) as client:
        created = await client.create_table("uno", 2, bots=2, seed=5, bot_delay_ms=5)
        table_id = created.table.table_id
        first = await first_update(client, table_id, None)
    table = server.registry.tables[table_id]
    await until(lambda: table.version > first.version + 2)  # the bots play on while nobody watches
    async with Client(server.address) as client:
        call = client.watch(table_id, None, since_version=first.version)
        resumed = (await asyncio.wait_for(call.read(), 10)).update
        call.cancel()
    assert resumed.version > first.version
    assert resumed.events
    assert min(e.version for e in resumed.events) == first.version + 1
    assert resumed.version <= table.version


def hand_moved_clock(server: RunningServer) -> Clock:
    """The server's tables created from now on keep their turn clocks and takeover by a clock the test moves
    (it starts at the real monotonic time, so the deadlines sent to clients stay meaningful)."""
    clock = Clock(time.monotonic())
    server.registry.clock = clock
    return clock


async def test_a_turn_clock_makes_a_default_move_that_everyone_sees(server: RunningServer) -> None:
    clock = hand_moved_clock(server)
    async with Client(server.address) as client:
        created = await client.create_table("uno", 2, seed=6, turn_seconds=1)
        table_id = created.table.table_id
        tokens = [(await client.join(table_id, n)).seat_token for n in ("Ann", "Bob")]
        call = client.watch(table_id, tokens[1])
        update = (await asyncio.wait_for(call.read(), 10)).update
        assert update.turn_seconds == 1
        assert update.HasField("turn_deadline_unix_ms")
        start = update.version
        clock.advance(1)  # the second the decision had is over
        while update.version == start:
            update = (await asyncio.wait_for(call.read(), 10)).update
        call.cancel()
    assert any("ran out of time" in e.text for e in update.events)


async def test_a_bot_takes_over_an_absent_seat_until_its_owner_returns(server: RunningServer) -> None:
    clock = hand_moved_clock(server)
    async with Client(server.address) as client:
        created = await client.create_table("uno", 2, bots=1, seed=7, takeover_seconds=1, bot_delay_ms=5)
        table_id = created.table.table_id
        ann = await client.join(table_id, "Ann")
        call = client.watch(table_id, ann.seat_token)
        await asyncio.wait_for(call.read(), 10)
        call.cancel()
        table = server.registry.tables[table_id]
        seat = table.seats[ann.seat]
        await until(lambda: seat.connections == 0)  # the server has seen her stream end: she is away from now
        clock.advance(1)  # for the whole grace
        await until(lambda: seat.bot_controlled)
        info = await client.get_table(table_id)
        assert info.seats[ann.seat].bot_controlled
        version = table.version
        await until(lambda: table.version > version or table.status.name == "FINISHED")  # the bot plays the seat
        call = client.watch(table_id, ann.seat_token)
        back = (await asyncio.wait_for(call.read(), 10)).update
        call.cancel()
    assert not back.seats[ann.seat].bot_controlled
    texts = [event.text for _, event in table.events]
    assert any("is away" in t for t in texts)
    assert any("is back" in t for t in texts)


async def test_history_is_redacted_per_viewer_and_replay_shows_a_finished_game(
    server: RunningServer, tmp_path: Path
) -> None:
    async with Client(server.address) as client:
        created = await client.create_table("uno", 2, bots=2, seed=9, bot_delay_ms=0, options={"target": "1"})
        table_id = created.table.table_id
        table = server.registry.tables[table_id]
        for _ in range(600):
            if table.status.name == "FINISHED":
                break
            await asyncio.sleep(0.05)
        spectator = await client.history(table_id)
    assert len(spectator) == table.version + 1
    engine = table.engine
    from toadstool.server.messages import game_view_message

    state = engine.new(table.players, table.options, table.seed)
    for step in spectator:
        if step.version:
            seat, action = table.actions[step.version - 1]
            state = engine.apply(state, seat, action)
        assert step.view == game_view_message(engine, engine.view(state, None), table.names())
        assert step.label == ""
    # The server runs in this event loop, so the replay process is awaited, never waited for.
    process = await asyncio.create_subprocess_exec(
        *toadstool_command("replay", table_id, "--server", server.address, "--all"),
        env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path)},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, stderr.decode()
    printed = stdout.decode()
    assert f"Step 1 of {len(spectator)}" in printed
    assert f"Step {len(spectator)} of {len(spectator)}" in printed


async def test_a_reconnect_storm_after_a_restart_is_accepted_in_full(durable: ServerProcess) -> None:
    async with Client(durable.address) as client:
        created = await client.create_table("uno", 4, bots=4, seed=3, manual_start=True)
        table_id = created.table.table_id
    durable.kill()
    durable.start("--max-streams-per-client", str(STORM_STREAMS * 2))
    channels = [Client(durable.address, timeout=60) for _ in range(16)]
    try:

        async def reopen(index: int) -> int:
            call = channels[index % len(channels)].watch(table_id)
            try:
                response = await asyncio.wait_for(call.read(), 60)
                return response.update.version
            finally:
                call.cancel()

        results = await asyncio.gather(*(reopen(i) for i in range(STORM_STREAMS)), return_exceptions=True)
    finally:
        for channel in channels:
            await channel.close()
    failures = [r for r in results if isinstance(r, BaseException)]
    assert not failures, f"{len(failures)} of {STORM_STREAMS} streams refused, e.g. {failures[0]!r}"


async def test_sigterm_shuts_down_gracefully_and_tells_watchers(durable: ServerProcess) -> None:
    async with Client(durable.address) as client:
        created = await client.create_table("uno", 2, seed=3)
        table_id = created.table.table_id
        call = client.watch(table_id)
        await asyncio.wait_for(call.read(), 10)
        assert durable.process is not None
        durable.process.send_signal(signal.SIGTERM)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await asyncio.wait_for(call.read(), 10)
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
        assert "shutting down" in (caught.value.details() or "")
    assert durable.process.wait(10) == 0
    durable.start()
    async with Client(durable.address) as client:
        await client.wait_ready()
        assert (await client.get_table(table_id)).table_id == table_id


@pytest.mark.parametrize("content", [b"this is not a database at all\n" * 10, "foreign-sqlite"])
def test_a_corrupt_or_foreign_database_is_refused_and_never_overwritten(tmp_path: Path, content: object) -> None:
    path = tmp_path / "other.db"
    if content == "foreign-sqlite":
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE recipes (name TEXT)")
            db.execute("INSERT INTO recipes VALUES ('mushroom soup')")
    else:
        assert isinstance(content, bytes)
        path.write_bytes(content)
    before = path.read_bytes()
    result = subprocess.run(
        serve_command(0, "--db", str(path)),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 2
    assert str(path) in result.stderr
    assert "left as it is" in result.stderr
    assert path.read_bytes() == before
