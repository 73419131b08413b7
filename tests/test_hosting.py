"""Hosting an evening (issue #25), server side: the host's lines about who comes and goes, the host's
powers beyond the lobby (hand a seat to a bot now, end the table) and their refusals, and the end of a
table nobody is at any more, on a clock the test moves by hand; the host's terminal over real connections
to a real `toadstool serve`."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from timing import Clock, turns, until

from conftest import start_serve, stop_process
from toadstool.api.v1 import table_pb2
from toadstool.server import messages
from toadstool.server.store import Store
from toadstool.server.tables import Status, TableError, TableRegistry, hosting
from toadstool.server.tables.host_log import HOST_LOG
from toadstool_clients.connection import DEFAULT_TAKEOVER_SECONDS, Client

OUTPUT = Path(__file__).resolve().parent.parent / "test-output" / "hosting"


@pytest.fixture
def host_lines() -> Iterator[list[str]]:
    """The host's lines (`toadstool.host`) the tables say while the test runs."""
    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    handler, level = Keep(), HOST_LOG.level
    HOST_LOG.addHandler(handler)
    HOST_LOG.setLevel(logging.INFO)
    yield lines
    HOST_LOG.removeHandler(handler)
    HOST_LOG.setLevel(level)


async def test_a_table_whose_people_have_all_gone_ends_as_abandoned_after_the_wait_and_not_before(
    host_lines: list[str],
) -> None:
    clock = Clock()
    async with TableRegistry(bot_delay=0.0, clock=clock, abandon_seconds=3600) as registry:
        table, _ = registry.create("uno", 2, bots=1, seed=3, manual_start=True)
        seat, _ = table.join("Ann", None)
        ann = table.seats[seat]
        table.set_connected(ann, +1)
        await turns()
        clock.advance(3 * 3600)  # someone connected: never abandoned, however long
        await turns()
        assert table.status is Status.LOBBY
        table.set_connected(ann, -1)
        await until(lambda: clock.pending() == [clock.now + 3600])
        clock.advance(3599.9)
        await turns()
        assert table.status is Status.LOBBY, "ended before the wait was over"
        clock.advance(0.1)
        await until(lambda: table.status is Status.FINISHED)
        assert table.ended == "Abandoned: nobody was at the table for 1 hour"
        update = messages.update_for(table, seat, None)
        assert update.outcome.ended == table.ended
        assert not update.outcome.winners
        assert update.phase == table.ended
        assert not update.legal_actions
        assert any(line.endswith(f"ended: {table.ended}") for line in host_lines)


async def test_a_game_of_bots_alone_is_never_abandoned_and_a_game_in_play_is_once_its_people_left() -> None:
    clock = Clock()
    async with TableRegistry(bot_delay=3600.0, clock=clock, abandon_seconds=600) as registry:
        bots, _ = registry.create("uno", 2, bots=2, seed=1)
        played, _ = registry.create("uno", 2, bots=1, seed=2)
        seat, _ = played.join("Ann", None)
        assert played.status is Status.PLAYING  # Ann never connected: gone since she joined
        await until(lambda: played.people_seen + 600 in clock.pending())
        clock.advance(600)
        await until(lambda: played.status is Status.FINISHED)
        assert played.ended is not None
        assert played.ended.startswith("Abandoned")
        assert bots.status is Status.PLAYING, "a table of bots was ended as abandoned"
        update = messages.update_for(played, seat, None)
        assert not update.to_act, "an ended game still waits for someone"
        assert not update.legal_actions, "an ended game still offers actions"


async def test_a_seat_handed_to_a_bot_is_played_by_it_until_the_person_acts_or_connects_again(
    host_lines: list[str],
) -> None:
    async with TableRegistry(bot_delay=0.05) as registry:
        table, _ = registry.create("uno", 2, bots=1, seed=11)
        ann_seat, _ = table.join("Ann", None)
        ann = table.seats[ann_seat]
        table.set_connected(ann, +1)
        hosting.hand_to_bot(table, ann_seat)
        assert ann.bot_controlled
        assert any("let a bot play for" in e.text for _, e in table.events)
        with pytest.raises(TableError, match="already plays"):
            hosting.hand_to_bot(table, ann_seat)
        version = table.version
        await until(lambda: table.version > version + 1)  # the bots play, Ann's too
        assert table.status is Status.PLAYING
        with pytest.raises(TableError):  # any action of hers, even a refused one, says she is back
            await table.act(ann_seat, "no-such-action", table.version, "a-request-id-of-ann")
        assert not ann.bot_controlled
        assert any(line.endswith("Ann is back and plays again") for line in host_lines)
        hosting.hand_to_bot(table, ann_seat)
        table.set_connected(ann, +1)  # another device of hers connects: back too
        assert not ann.bot_controlled


async def test_the_hosts_powers_are_refused_where_they_make_no_sense_and_change_nothing() -> None:
    async with TableRegistry(bot_delay=3600.0) as registry:
        table, _ = registry.create("uno", 3, bots=1, seed=5)
        table.join("Ann", 0)
        with pytest.raises(TableError, match="has not started"):
            hosting.hand_to_bot(table, 0)
        with pytest.raises(TableError, match="holds no person"):
            hosting.hand_to_bot(table, 2)
        with pytest.raises(TableError, match="does not exist"):
            hosting.hand_to_bot(table, 7)
        hosting.end(table, hosting.ENDED_BY_HOST)
        assert table.status is Status.FINISHED
        assert table.ended == hosting.ENDED_BY_HOST
        events = len(table.events)
        for power in (lambda: hosting.end(table, "again"), lambda: hosting.kick(table, 0)):
            with pytest.raises(TableError, match="over"):
                power()
        assert len(table.events) == events
        assert table.ended == hosting.ENDED_BY_HOST


def test_a_restarted_server_keeps_ended_and_abandoned_tables_finished_with_their_reason(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    store = Store(path)
    registry = TableRegistry(bot_delay=0.0, store=store)
    lobby, _ = registry.create("uno", 3, seed=1)
    lobby.join("Ann", None)
    hosting.end(lobby, hosting.ENDED_BY_HOST)
    played, _ = registry.create("uno", 2, bots=1, seed=2)
    played.join("Bob", None)
    before_move = played.version
    assert asyncio.run(played.act(*_first_move(played))) == (before_move + 1, False)
    version = played.version
    hosting.end(played, hosting.abandoned_reason(4 * 3600))
    store.close()

    again = TableRegistry(bot_delay=0.0, store=Store(path))
    assert again.load() == 2
    for before, reason in ((lobby, hosting.ENDED_BY_HOST), (played, "Abandoned: nobody was at the table for 4 hours")):
        table = again.tables[before.table_id]
        assert table.status is Status.FINISHED
        assert table.ended == reason
        update = messages.update_for(table, None, None)
        assert update.outcome.ended == reason
        assert update.status == table_pb2.TABLE_STATUS_FINISHED
    assert again.tables[played.table_id].version == version
    assert again.tables[played.table_id].status is Status.FINISHED, "replaying an ended game made it live again"


def _first_move(table: object) -> tuple[int, str, int, str]:
    from toadstool.engine import action_id
    from toadstool.server.tables import Table

    assert isinstance(table, Table)
    for seat in table.engine.to_act(table.state):
        if table.seats[seat].kind.name == "HUMAN":
            return seat, action_id(table.engine.legal_actions(table.state, seat)[0]), table.version, "first-move-0001"
    raise AssertionError("no person to act")


# -- over real connections -------------------------------------------------------------------------------

WATCHER = """
import asyncio, sys
from toadstool_clients.connection import Client

async def main(address, table_id, token):
    async with Client(address) as client:
        async for response in client.watch(table_id, token):
            print("update", response.update.version, flush=True)

asyncio.run(main(*sys.argv[1:]))
"""


def _watcher(address: str, table_id: str, token: str) -> subprocess.Popen[bytes]:
    """Another person's client, in a process of its own (killed, it just vanishes, as a closed laptop)."""
    return subprocess.Popen(
        [sys.executable, "-c", WATCHER, address, table_id, token],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def _lines(output: Path) -> list[str]:
    return output.read_text(errors="replace").splitlines()


def _wait_for_line(output: Path, text: str, after: int = 0, seconds: float = 30.0) -> str:
    """The first line printed after the first `after` lines that says `text` (waited for)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for line in _lines(output)[after:]:
            if text in line:
                return line
        time.sleep(0.05)
    raise AssertionError(f"the host's terminal never said {text!r}:\n{output.read_text(errors='replace')[-3000:]}")


async def _seat(client: Client, table_id: str, seat: int) -> table_pb2.Seat:
    return (await client.get_table(table_id)).seats[seat]


async def test_the_hosts_terminal_tells_each_join_drop_takeover_return_and_end_and_a_dropped_seat_comes_back(
    tmp_path: Path,
) -> None:
    output = OUTPUT / "serve.txt"
    output.unlink(missing_ok=True)
    process, address = start_serve("--no-db", "--no-web", "--no-announce", "--bot-delay", "0.2", output=output)
    watchers: list[subprocess.Popen[bytes]] = []
    try:
        _wait_for_line(output, f"Friends join with: toadstool tables --server {address}")
        async with Client(address) as host:
            created = await host.create_table("uno", 3, bots=1, name="Evening", takeover_seconds=1)
            table_id = created.table.table_id
            assert created.table.takeover_seconds == 1
            cat = await host.join(table_id, "Cat")
            watchers.append(_watcher(address, table_id, cat.seat_token))
            _wait_for_line(output, f"Evening ({table_id}): Cat connected")
            dan = await host.join(table_id, "Dan")
            watchers.append(_watcher(address, table_id, dan.seat_token))
            for text in ("Cat joined (seat 0)", "Dan joined (seat 1)", "the game started", "Dan connected"):
                _wait_for_line(output, f"Evening ({table_id}): {text}")

            seen = len(_lines(output))
            os.killpg(watchers[1].pid, signal.SIGKILL)  # Dan's laptop closes: no goodbye
            watchers[1].wait(10)
            _wait_for_line(output, f"Evening ({table_id}): Dan lost their connection", seen)
            _wait_for_line(output, f"Evening ({table_id}): Dan is away: a bot plays for them until they return", seen)
            assert (await _seat(host, table_id, dan.seat)).bot_controlled

            seen = len(_lines(output))
            watchers.append(_watcher(address, table_id, dan.seat_token))  # Dan opens the lid again
            _wait_for_line(output, f"Evening ({table_id}): Dan reconnected", seen)
            _wait_for_line(output, f"Evening ({table_id}): Dan is back and plays again", seen)
            assert not (await _seat(host, table_id, dan.seat)).bot_controlled

            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await host.end_table(table_id, cat.seat_token)  # a seat token is no host token
            assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
            assert "only the host" in (refused.value.details() or "")
            await host.hand_to_bot(table_id, created.host_token, cat.seat)
            _wait_for_line(output, f"Evening ({table_id}): a bot plays for Cat (seat 0) until they are back")
            await host.end_table(table_id, created.host_token)
            _wait_for_line(output, f"Evening ({table_id}): ended: The host ended the game")
            info = await host.get_table(table_id)
            assert info.status == table_pb2.TABLE_STATUS_FINISHED
    finally:
        for watcher in watchers:
            if watcher.poll() is None:
                os.killpg(watcher.pid, signal.SIGKILL)
            watcher.wait(10)
        stop_process(process)
    lines = output.read_text().splitlines()
    assert all(line[:8].count(":") == 2 for line in lines if "Evening (" in line), "a host line has no time of day"


async def test_serve_quiet_prints_no_host_lines(tmp_path: Path) -> None:
    output = OUTPUT / "serve-quiet.txt"
    output.unlink(missing_ok=True)
    process, address = start_serve("--no-db", "--no-web", "--no-announce", "--quiet", output=output)
    try:
        async with Client(address) as host:
            created = await host.create_table("uno", 2, bots=1, name="Hush")
            await host.join(created.table.table_id, "Cat")
            await host.end_table(created.table.table_id, created.host_token)
            assert (await host.get_table(created.table.table_id)).status == table_pb2.TABLE_STATUS_FINISHED
        await asyncio.sleep(0.3)  # any line would have been flushed by now; the check below must not race it
    finally:
        stop_process(process)
    assert "Hush" not in output.read_text()


async def test_tables_the_clients_create_have_a_bot_take_over_after_a_minute_unless_told_otherwise(
    client: Client,
) -> None:
    made = await client.create_table("uno", 2, bots=1)
    assert made.table.takeover_seconds == DEFAULT_TAKEOVER_SECONDS == 60
    off = await client.create_table("uno", 2, bots=1, takeover_seconds=0)
    assert off.table.takeover_seconds == 0


async def test_without_a_turn_clock_moves_do_not_wake_the_clocks_and_they_stop_when_the_game_ends() -> None:
    """The takeover and abandonment clocks depend only on who is at the table: bots' moves leave them
    asleep (they wait on `people_revision`), and a game that ends by itself ends its clock task too."""
    async with TableRegistry(bot_delay=0.0, abandon_seconds=3600) as registry:
        table, _ = registry.create("uno", 3, bots=2, options={"target": "1"}, seed=4, takeover_seconds=60)
        seat, _ = table.join("Ann", None)
        table.set_connected(table.seats[seat], +1)
        hosting.hand_to_bot(table, seat)  # a bot plays Ann's seat: the game runs to its end by itself
        people = table.people_revision
        await until(lambda: table.status is Status.FINISHED, seconds=60)
        assert table.version > 10
        assert table.people_revision == people + 1, "only the end changed who is at the table"
        await until(lambda: not any(task.get_name() == f"clocks-{table.table_id}" for task in asyncio.all_tasks()))


async def test_start_now_has_bots_take_the_open_seats_and_starts_and_is_refused_to_anyone_but_the_host(
    client: Client,
) -> None:
    made = await client.create_table("uno", 4, bots=0, manual_start=True)
    table_id = made.table.table_id
    ann = await client.join(table_id, "Ann")
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await client.start_now(table_id, ann.seat_token)
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert [seat.kind for seat in (await client.get_table(table_id)).seats].count(table_pb2.SEAT_KIND_EMPTY) == 3
    await client.start_now(table_id, made.host_token)
    info = await client.get_table(table_id)
    assert info.status == table_pb2.TABLE_STATUS_PLAYING
    assert [seat.kind for seat in info.seats] == [table_pb2.SEAT_KIND_HUMAN] + [table_pb2.SEAT_KIND_BOT] * 3
