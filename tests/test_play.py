"""The `Play` stream (issue #47): a seat's Watch and Acts on one bidirectional gRPC stream, on a real server.

Every `Watch`/`Act` behaviour holds on it: the same updates, acts answered in-band with the code and message
a unary Act gets (stale version, replayed request id, a refused action), a kicked seat and a server shutdown
ending the stream as they end a Watch, resuming with `since_version`, a half-closed stream still receiving
updates, a client that floods acts and never reads stopping being read from; and the shared `Client` plays
a whole game through it, sending no unary Act.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from conftest import TEST_LIMITS
from toadstool.api.v1 import service_pb2, service_pb2_grpc, table_pb2
from toadstool.server.app import RunningServer, ServerConfig, running_server
from toadstool_clients.connection import SEAT_TOKEN_KEY, Client, StreamState

SECONDS = 10.0
ACT = "/toadstool.v1.ToadstoolService/Act"


def _act(version: int, action_id: str, request_id: str | None = None, table_id: str = "") -> service_pb2.PlayRequest:
    return service_pb2.PlayRequest(
        act=service_pb2.ActRequest(
            table_id=table_id, version=version, action_id=action_id, request_id=request_id or uuid.uuid4().hex
        )
    )


class Stream:
    """One raw Play call: its requests written by the test, its responses read into two queues."""

    def __init__(self, client: Client, table_id: str, token: str | None, since: int | None = None) -> None:
        self.call = client.stub.Play(metadata=((SEAT_TOKEN_KEY, token),) if token else None)
        watch = service_pb2.WatchRequest(table_id=table_id)
        if since is not None:
            watch.since_version = since
        self.first = service_pb2.PlayRequest(watch=watch)
        self.updates: asyncio.Queue[table_pb2.Update] = asyncio.Queue()
        self.acted: asyncio.Queue[service_pb2.ActResult] = asyncio.Queue()
        self.reader: asyncio.Task[None] | None = None

    async def start(self) -> Stream:
        await self.call.write(self.first)
        self.reader = asyncio.create_task(self._read())
        return self

    async def _read(self) -> None:
        async for response in self.call:
            if response.HasField("update"):
                self.updates.put_nowait(response.update)
            else:
                self.acted.put_nowait(response.acted)

    async def update(self, until: Any = None) -> table_pb2.Update:
        """The next update (that satisfies `until`, when given)."""
        while True:
            update = await asyncio.wait_for(self.updates.get(), SECONDS)
            if until is None or until(update):
                return update

    async def answer(self, request: service_pb2.PlayRequest) -> service_pb2.ActResult:
        await self.call.write(request)
        return await asyncio.wait_for(self.acted.get(), SECONDS)

    async def ending(self) -> grpc.aio.AioRpcError:
        """The error the stream ended with."""
        assert self.reader is not None
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await asyncio.wait_for(self.reader, SECONDS)
        return caught.value


@pytest.fixture
async def streams() -> AsyncIterator[list[Stream]]:
    opened: list[Stream] = []
    yield opened
    for stream in opened:
        stream.call.cancel()
        if stream.reader is not None:
            stream.reader.cancel()


async def _two_people(client: Client) -> tuple[str, str, list[str]]:
    created = await client.create_table("uno", 2, bots=0, seed=7, takeover_seconds=0)
    table_id = created.table.table_id
    tokens = [(await client.join(table_id, name)).seat_token for name in ("Ann", "Bea")]
    return table_id, created.host_token, tokens


async def _unary_refusal(client: Client, token: str, request: service_pb2.ActRequest) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await client.stub.Act(request, metadata=((SEAT_TOKEN_KEY, token),), timeout=SECONDS)
    return caught.value


async def test_a_seat_plays_on_its_stream_and_each_act_is_answered_in_band_as_act_would_answer_it(
    server: RunningServer, client: Client, streams: list[Stream]
) -> None:
    table_id, _, tokens = await _two_people(client)
    seats = [await Stream(client, table_id, token).start() for token in tokens]
    streams += seats
    first = await seats[0].update()
    actor = first.to_act[0]
    mine = await seats[actor].update()
    assert mine.viewer_seat == actor
    assert mine.legal_actions
    request = _act(mine.version, mine.legal_actions[0].id)
    answer = await seats[actor].answer(request)
    assert (answer.request_id, answer.code, answer.response.version) == (request.act.request_id, 0, mine.version + 1)
    assert (await seats[actor].update(lambda u: u.version > mine.version)).version == mine.version + 1
    # The same request id again: answered as already applied, nothing applied twice.
    again = await seats[actor].answer(request)
    assert again.code == 0
    assert again.response.replayed
    assert again.response.version == mine.version + 1
    # A stale version, then an action that is not legal: each refused in-band with Act's code and message,
    # and the stream plays on.
    for refused in (_act(mine.version, mine.legal_actions[0].id), _act(mine.version + 1, "no-such-action")):
        answer = await seats[actor].answer(refused)
        again_unary = service_pb2.ActRequest(
            table_id=table_id, version=refused.act.version, action_id=refused.act.action_id, request_id="u" * 32
        )
        unary = await _unary_refusal(client, tokens[actor], again_unary)
        assert answer.code == unary.code().value[0]
        assert answer.message == unary.details()
        assert answer.request_id == refused.act.request_id
    assert answer.code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    table = await client.get_table(table_id)
    assert table.version == mine.version + 1, "the refusals changed nothing"


async def test_a_stream_that_does_not_start_with_a_watch_or_sends_a_second_one_is_refused_clearly(
    server: RunningServer, client: Client, streams: list[Stream]
) -> None:
    table_id, _, tokens = await _two_people(client)
    call = client.stub.Play(metadata=((SEAT_TOKEN_KEY, tokens[0]),))
    await call.write(_act(0, "draw"))
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await asyncio.wait_for(call.read(), SECONDS)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "starts with a watch" in (caught.value.details() or "")
    stream = await Stream(client, table_id, tokens[0]).start()
    streams.append(stream)
    await stream.update()
    answer = await stream.answer(stream.first)
    assert answer.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert "only acts" in answer.message
    other = await client.create_table("uno", 2, bots=1, seed=1)
    answer = await stream.answer(_act(0, "draw", table_id=other.table.table_id))
    assert answer.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert "open another" in answer.message


async def test_a_spectators_stream_watches_and_its_acts_are_refused_for_want_of_a_token(
    server: RunningServer, client: Client, streams: list[Stream]
) -> None:
    table_id, _, _ = await _two_people(client)
    stream = await Stream(client, table_id, None).start()
    streams.append(stream)
    update = await stream.update()
    assert not update.HasField("viewer_seat")
    assert not update.legal_actions
    answer = await stream.answer(_act(update.version, "draw"))
    assert answer.code == grpc.StatusCode.UNAUTHENTICATED.value[0]


async def test_a_kicked_seats_stream_ends_as_its_watch_would(
    server: RunningServer, client: Client, streams: list[Stream]
) -> None:
    table_id, host, tokens = await _two_people(client)
    stream = await Stream(client, table_id, tokens[1]).start()
    streams.append(stream)
    await stream.update()
    await client.kick(table_id, host, 1)
    error = await stream.ending()
    assert error.code() == grpc.StatusCode.UNAUTHENTICATED
    assert "given up or removed" in (error.details() or "")


async def test_a_stream_resumed_with_since_version_carries_the_events_after_it(
    server: RunningServer, client: Client, streams: list[Stream]
) -> None:
    created = await client.create_table("uno", 2, bots=1, seed=3)
    table_id = created.table.table_id
    token = (await client.join(table_id, "Ann")).seat_token
    first = await Stream(client, table_id, token).start()
    streams.append(first)
    seen = await first.update(lambda u: u.status == table_pb2.TABLE_STATUS_PLAYING)
    resumed = await Stream(client, table_id, token, since=seen.version).start()
    streams.append(resumed)
    update = await resumed.update()
    assert update.version >= seen.version
    assert all(event.version > seen.version for event in update.events)


async def test_a_half_closed_stream_still_receives_updates(
    server: RunningServer, client: Client, streams: list[Stream]
) -> None:
    created = await client.create_table("uno", 2, bots=2, seed=5)
    stream = await Stream(client, created.table.table_id, None).start()
    streams.append(stream)
    await stream.call.done_writing()
    first = await stream.update()
    later = await stream.update(lambda u: u.version > first.version)
    assert later.version > first.version


async def test_a_client_that_floods_acts_and_never_reads_stops_being_read_from(
    server: RunningServer, client: Client
) -> None:
    table_id, _, tokens = await _two_people(client)
    # A channel whose receive window stays at HTTP/2's 64 KiB (no BDP probing growing it), as a client that
    # reads nothing keeps it: the server's answers fill it, and then the server must stop reading acts.
    channel = grpc.aio.insecure_channel(server.address, options=(("grpc.http2.bdp_probe", 0),))
    call = service_pb2_grpc.ToadstoolServiceStub(channel).Play(metadata=((SEAT_TOKEN_KEY, tokens[0]),))
    await call.write(service_pb2.PlayRequest(watch=service_pb2.WatchRequest(table_id=table_id)))
    padding = "x" * 200  # a long action id: each answer is large, so the client's window fills sooner
    total, written = 20_000, 0

    async def flood() -> None:
        nonlocal written
        for _ in range(total):
            await call.write(_act(0, padding))
            written += 1

    flooding = asyncio.create_task(flood())
    try:
        last = -1
        while written != last:  # until the writes stop making progress: the server stopped reading
            last = written
            await asyncio.sleep(0.5)
            assert not flooding.done(), "every act was taken although the client read none of the answers"
        assert written < total
        # The server is still there for everyone else.
        assert (await client.get_table(table_id)).table_id == table_id
    finally:
        call.cancel()
        flooding.cancel()
        with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError, asyncio.InvalidStateError):
            await flooding
        await channel.close()


async def test_the_stream_ends_with_unavailable_when_the_server_shuts_down() -> None:
    config = ServerConfig(host="127.0.0.1", port=0, bot_delay=0.0, grace=0.5, limits=TEST_LIMITS)
    async with running_server(config) as server:
        client = Client(server.address)
        table_id, _, tokens = await _two_people(client)
        stream = await Stream(client, table_id, tokens[0]).start()
        await stream.update()
    try:
        error = await stream.ending()
    finally:
        await client.close()
    assert error.code() == grpc.StatusCode.UNAVAILABLE
    assert "shutting down" in (error.details() or "")


class _CountsActs(grpc.aio.UnaryUnaryClientInterceptor):  # type: ignore[misc]
    """Counts the unary Acts a channel sends (a real channel; the calls go through unchanged)."""

    def __init__(self) -> None:
        self.acts = 0

    async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        method = details.method.decode() if isinstance(details.method, bytes) else details.method
        self.acts += method == ACT
        return await continuation(details, request)


async def test_the_shared_client_plays_a_whole_game_on_play_streams_with_no_unary_act(server: RunningServer) -> None:
    counter = _CountsActs()
    async with Client(server.address) as client:
        client.channel = grpc.aio.insecure_channel(server.address, interceptors=[counter])
        client.stub = service_pb2_grpc.ToadstoolServiceStub(client.channel)
        created = await client.create_table("uno", 2, bots=1, seed=9, options={"target": "50"})
        table_id = created.table.table_id
        token = (await client.join(table_id, "Ann")).seat_token
        acted = 0
        async for item in client.follow(table_id, token):
            if isinstance(item, StreamState):
                continue
            if item.status == table_pb2.TABLE_STATUS_FINISHED:
                break
            if item.legal_actions and item.viewer_seat in item.to_act:
                await client.act(table_id, token, item.version, item.legal_actions[0].id)
                acted += 1
        assert acted > 5
        assert counter.acts == 0, "an act was sent as a unary Act although the seat's Play stream was open"
