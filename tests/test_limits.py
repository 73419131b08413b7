"""Limits with clear errors, safe names, secret tokens and host-only controls (issue: hostile network).

Each limit answers RESOURCE_EXHAUSTED with a message that names it; names are cleaned at the server;
tokens are long random secrets that never appear in a view or a log; only the host controls a table.
"""

from __future__ import annotations

import asyncio
import logging
import types
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from timing import Clock

from toadstool.api.v1 import service_pb2, table_pb2
from toadstool.server import limits as limits_module
from toadstool.server.app import RunningServer, ServerConfig, running_server
from toadstool.server.limits import Limits, client_of
from toadstool.server.tables import TableError, sanitize_name
from toadstool_clients.connection import Client


async def _server(limits: Limits) -> AsyncIterator[RunningServer]:
    async with running_server(ServerConfig(host="127.0.0.1", port=0, bot_delay=0.0, limits=limits, grace=0.5)) as s:
        yield s


@pytest.fixture
async def tight() -> AsyncIterator[RunningServer]:
    limits = Limits(
        max_tables=4, max_tables_per_client=2, max_streams_per_client=3, actions_per_second=2, action_burst=2
    )
    async for running in _server(limits):
        yield running


async def _refused(call, *words: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    for word in words:
        assert word in (caught.value.details() or "")


async def test_each_seat_may_act_only_so_fast(tight: RunningServer, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()  # the buckets refill by a clock the test moves, not by how fast the calls go
    monkeypatch.setattr(limits_module, "time", types.SimpleNamespace(monotonic=clock))
    async with Client(tight.address) as client:
        created = await client.create_table("uno", 2, seed=1)
        tokens = [(await client.join(created.table.table_id, n)).seat_token for n in ("Ann", "Bob")]
        codes = []
        for _ in range(4):
            try:
                await client.act(created.table.table_id, tokens[0], 0, "not-an-action")
            except grpc.aio.AioRpcError as error:
                codes.append(error.code())
        assert codes[:2] == [grpc.StatusCode.FAILED_PRECONDITION] * 2
        assert codes[2:] == [grpc.StatusCode.RESOURCE_EXHAUSTED] * 2  # the clock stood still: no refill
        await _refused(client.act(created.table.table_id, tokens[0], 0, "x"), "actions per second")
        # The other seat has its own allowance, and the first one's refills with time.
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await client.act(created.table.table_id, tokens[1], 0, "x")
        assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        clock.now += 0.6  # 2 actions a second: one more is allowed
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await client.act(created.table.table_id, tokens[0], 0, "x")
        assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION


async def _watch_once_a_stream_is_free(client: Client, table_id: str) -> tuple[Any, service_pb2.WatchResponse]:
    """A new stream and its first response, once the server has seen a closed one go (refused till then)."""
    for _ in range(1000):  # ten seconds at most
        call = client.watch(table_id)
        try:
            return call, await asyncio.wait_for(call.read(), 10)
        except grpc.aio.AioRpcError as error:
            if error.code() is not grpc.StatusCode.RESOURCE_EXHAUSTED:
                raise
        await asyncio.sleep(0.01)
    raise AssertionError("a closed stream never gave its place to a new one")


async def test_a_client_may_hold_only_so_many_open_streams(tight: RunningServer) -> None:
    async with Client(tight.address) as client:
        created = await client.create_table("uno", 2, seed=1)
        table_id = created.table.table_id
        calls = [client.watch(table_id) for _ in range(3)]
        for call in calls:
            await asyncio.wait_for(call.read(), 10)
        extra = client.watch(table_id)
        await _refused(extra.read(), "open streams")
        calls[0].cancel()
        again, first = await _watch_once_a_stream_is_free(client, table_id)
        assert first.update.table_id == table_id
        for call in [*calls, again]:
            call.cancel()


async def test_tables_are_limited_per_client_and_in_total(tight: RunningServer) -> None:
    async with Client(tight.address) as client:
        for _ in range(2):
            await client.create_table("uno", 2)
        await _refused(client.create_table("uno", 2), "tables per client")
    tight.registry.tables.clear()  # another machine's view: the per-client count forgets vanished tables
    async with Client(tight.address) as client:
        await client.create_table("uno", 2)
    for index in range(3):
        tight.registry.create("uno", 2, name=f"T{index}")
    async with Client(tight.address) as client:
        await _refused(client.create_table("uno", 2), "maximum of 4 tables")


def test_clients_are_told_apart_by_address_not_port() -> None:
    assert client_of("ipv4:192.0.2.7:51234") == client_of("ipv4:192.0.2.7:40000") == "ipv4:192.0.2.7"
    assert client_of("ipv6:[::1]:5000") == "ipv6:[::1]"


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("Ann", "Ann"),
        ("  Luigi   Mario ", "Luigi Mario"),
        ("\x1b[2J\x1b[31mEvil", "[2J[31mEvil"),
        ("evil\u202egnp.exe", "evilgnp.exe"),
        ("tab\there\nnewline", "tab here newline"),
        ("ピーチ姫", "ピーチ姫"),
        ("Yoshi 🦖", "Yoshi 🦖"),
        ("zero\u200bwidth", "zerowidth"),
    ],
)
def test_names_are_cleaned_of_anything_that_could_rewrite_a_screen(raw: str, clean: str) -> None:
    assert sanitize_name(raw) == clean


@pytest.mark.parametrize("raw", ["", "   ", "\x1b\x07", "\u202e\u202d", "x" * 25])
def test_empty_or_absurd_names_are_refused(raw: str) -> None:
    with pytest.raises(TableError):
        sanitize_name(raw)


async def test_tokens_are_long_secrets_never_shown_or_logged(
    server: RunningServer, client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    created = await client.create_table("uno", 2, seed=2)
    table_id = created.table.table_id
    joined = [await client.join(table_id, n) for n in ("Ann", "Bob")]
    tokens = [created.host_token, *(j.seat_token for j in joined)]
    assert len(set(tokens)) == 3
    assert all(len(t) >= 40 for t in tokens)
    call = client.watch(table_id, joined[0].seat_token)
    update = (await asyncio.wait_for(call.read(), 10)).update
    call.cancel()
    device = await client.issue_device_token(table_id, created.host_token)
    wire = update.SerializeToString() + (await client.get_table(table_id)).SerializeToString()
    for token in [*tokens, device]:
        assert token.encode() not in wire
        assert all(token not in record.getMessage() for record in caplog.records)


async def test_only_the_host_can_kick_and_a_kicked_token_is_worthless(server: RunningServer, client: Client) -> None:
    created = await client.create_table("uno", 3, seed=3)
    table_id = created.table.table_id
    ann = await client.join(table_id, "Ann")
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await client.kick(table_id, ann.seat_token, ann.seat)
    assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
    await client.kick(table_id, created.host_token, ann.seat)
    info = await client.get_table(table_id)
    assert info.seats[ann.seat].kind == table_pb2.SEAT_KIND_EMPTY
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await client.leave(table_id, ann.seat_token)
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
    # In play, a kicked seat is played on by a bot.
    players = [await client.join(table_id, n) for n in ("Bob", "Cat", "Dan")]
    await client.kick(table_id, created.host_token, players[0].seat)
    info = await client.get_table(table_id)
    assert info.seats[players[0].seat].kind == table_pb2.SEAT_KIND_BOT
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await client.kick(table_id, created.host_token, players[0].seat)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_a_client_cannot_ask_for_bots_faster_than_the_servers_minimum() -> None:
    async for running in _server(Limits(min_bot_delay=0.5)):
        async with Client(running.address) as client:
            fast = await client.create_table("uno", 2, bots=2, bot_delay_ms=0, manual_start=True)
            slow = await client.create_table("uno", 2, bots=2, bot_delay_ms=2000, manual_start=True)
        assert running.registry.tables[fast.table.table_id].bot_delay == 0.5
        assert running.registry.tables[slow.table.table_id].bot_delay == 2.0
