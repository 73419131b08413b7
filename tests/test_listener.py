"""The port stays open (issue #17): a request that stops grpcio's accept loop leaves every open stream flowing
and new calls getting through; reflection answers in both versions tools ask for.

In-process servers over real loopback sockets; the same hostile request from a separate process under fuzzing
is test_fuzz_wire.py's.
"""

from __future__ import annotations

import asyncio
import uuid

import grpc
import pytest
from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import reflection_pb2

from fuzz_helpers import (
    DATA,
    END_HEADERS,
    END_STREAM,
    HEADERS,
    PREFACE,
    SETTINGS,
    grpc_frame,
    grpc_request_headers,
    h2_frame,
    hpack,
    send_raw,
)
from toadstool.api.v1 import service_pb2, table_pb2
from toadstool.server.app import RunningServer
from toadstool.server.listener import bind
from toadstool_clients.connection import Client, StreamState

NOT_UTF8 = b"/toadstool.v1.ToadstoolService/\xff\xfe"


def _hostile_conversation(path: bytes = NOT_UTF8) -> bytes:
    return (
        PREFACE
        + h2_frame(SETTINGS, 0, 0, b"")
        + h2_frame(HEADERS, END_HEADERS, 1, hpack(grpc_request_headers(path)))
        + h2_frame(DATA, END_STREAM, 1, grpc_frame(b""))
    )


async def _until(condition: object, what: str, seconds: float = 20.0, state: object = None) -> None:
    """Poll a callable until it is true; the bound is for a loaded machine, not a speed requirement. On
    timeout, the failure says `what` was awaited and, if given, what `state()` shows."""
    try:
        async with asyncio.timeout(seconds):
            while not condition():  # type: ignore[operator]
                await asyncio.sleep(0.01)
    except TimeoutError:
        raise AssertionError(f"timed out: {what}" + (f"; {state()}" if state else "")) from None  # type: ignore[operator]


async def test_a_path_that_is_not_utf8_leaves_seat_and_spectator_streams_open_and_new_calls_working(
    server: RunningServer, client: Client
) -> None:
    created = await client.create_table("uno", players=4, bots=3, bot_delay_ms=20)
    table_id = created.table.table_id
    joined = await client.join(table_id, "Ann")
    seen: dict[str, list[int]] = {"seat": [], "spectator": []}
    lost: list[str] = []
    refused: list[grpc.StatusCode] = []

    async def follow(who: str, token: str | None) -> None:
        """The client library's own follower, which would reconnect (and say so) if its stream broke."""
        async for item in client.follow(table_id, token):
            if isinstance(item, StreamState):
                lost.append(f"{who}: {item.message}")
                continue
            seen[who].append(item.version)
            if who == "seat" and joined.seat in item.to_act and item.legal_actions:
                with_id = uuid.uuid4().hex
                try:
                    await client.act(table_id, joined.seat_token, item.version, item.legal_actions[0].id, with_id)
                except grpc.aio.AioRpcError as error:
                    if error.code() not in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION):
                        refused.append(error.code())  # anything but "the table moved on meanwhile"
            if item.status == table_pb2.TABLE_STATUS_FINISHED:
                return

    followers = [
        asyncio.create_task(follow("seat", joined.seat_token)),
        asyncio.create_task(follow("spectator", None)),
    ]
    try:
        await _until(lambda: all(len(v) >= 3 for v in seen.values()), "both streams receive updates")
        for round_ in range(3):
            before = {who: len(versions) for who, versions in seen.items()}
            await asyncio.to_thread(send_raw, server.address, _hostile_conversation(), 0.2)
            await _until(lambda r=round_: server.listener.restarts == r + 1, "the listener re-opens the port")
            # A brand-new channel, and a call on the client's existing one, both answered at once.
            async with Client(server.address) as newcomer:
                assert [g.name for g in await newcomer.list_games()]
            assert await client.get_table(table_id)
            await _until(
                lambda b=before: all(len(seen[w]) > b[w] + 2 for w in seen) or followers[0].done() or refused,
                "both streams go on receiving updates after the hostile request",
                state=lambda: f"updates seen {[(w, v[-3:]) for w, v in seen.items()]}, lost {lost}, refused {refused}",
            )
            assert not refused, f"the person's actions were refused: {refused}"  # the seat would wait for ever
        assert not lost, f"a stream broke and had to reconnect: {lost}"
        assert not refused, f"the person's actions were refused: {refused}"
        for versions in seen.values():
            assert versions == sorted(versions), "versions on a stream only go up"
    finally:
        for follower in followers:
            follower.cancel()
        await asyncio.gather(*followers, return_exceptions=True)


async def test_many_hostile_paths_under_steady_traffic_never_crash_the_process(
    server: RunningServer, client: Client
) -> None:
    """Unguarded, grpcio freed each pending request's memory while its core still wrote new calls into it:
    the process segfaulted within one hostile request under steady traffic."""
    stop = asyncio.Event()
    answered = 0
    failed: list[grpc.StatusCode] = []

    async def steady() -> None:
        nonlocal answered
        while not stop.is_set():
            try:
                await client.stub.ListGames(service_pb2.ListGamesRequest(), timeout=10, wait_for_ready=True)
                answered += 1
            except grpc.aio.AioRpcError as error:  # a call racing the crash itself is never applied: retried
                if error.code() not in (grpc.StatusCode.CANCELLED, grpc.StatusCode.UNAVAILABLE):
                    failed.append(error.code())

    callers = [asyncio.create_task(steady()) for _ in range(4)]
    try:
        for count in range(1, 6):
            await asyncio.to_thread(send_raw, server.address, _hostile_conversation(b"\xc3("), 0.1)
            await _until(lambda c=count: server.listener.restarts == c, "the listener re-opens the port")
            before = answered
            await _until(lambda b=before: answered > b + 10, "calls keep being answered")
    finally:
        stop.set()
        await asyncio.gather(*callers, return_exceptions=True)
    assert not failed, f"calls failed with more than a race with the crash: {failed}"


def _reflect(channel: grpc.aio.Channel, version: str) -> grpc.aio.StreamStreamMultiCallable:
    return channel.stream_stream(
        f"/grpc.reflection.{version}.ServerReflection/ServerReflectionInfo",
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
    )


async def test_reflection_answers_v1_and_v1alpha_alike(server: RunningServer) -> None:
    """Newer tools (grpcurl, Postman) ask grpc.reflection.v1 first; the messages are the same under both."""
    requests = [
        reflection_pb2.ServerReflectionRequest(list_services=""),
        reflection_pb2.ServerReflectionRequest(file_containing_symbol="toadstool.v1.ToadstoolService"),
        reflection_pb2.ServerReflectionRequest(file_containing_symbol="grpc.reflection.v1.ServerReflection"),
    ]
    async with grpc.aio.insecure_channel(server.address) as channel:
        answers = {}
        for version in ("v1", "v1alpha"):
            answers[version] = [response async for response in _reflect(channel, version)(iter(requests))]
    for version, (listed, toadstool, reflection_v1) in answers.items():
        services = {s.name for s in listed.list_services_response.service}
        assert {"toadstool.v1.ToadstoolService", "grpc.health.v1.Health"} <= services, version
        assert {"grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"} <= services
        files = [
            descriptor_pb2.FileDescriptorProto.FromString(raw)
            for raw in toadstool.file_descriptor_response.file_descriptor_proto
        ]
        assert any(s.name == "ToadstoolService" for f in files for s in f.service), version
        described = [
            descriptor_pb2.FileDescriptorProto.FromString(raw)
            for raw in reflection_v1.file_descriptor_response.file_descriptor_proto
        ]
        assert [f.package for f in described] == ["grpc.reflection.v1"], version
        method = described[0].service[0].method[0]
        assert method.input_type == ".grpc.reflection.v1.ServerReflectionRequest"


async def test_binding_a_taken_port_is_an_oserror_naming_the_address_so_the_listener_retries_it() -> None:
    """grpc.aio raises RuntimeError where older grpcio returned 0; the listener's rebind loop (which waits
    for the retired server's socket to close) retries OSError only, so `bind` must turn one into the other."""
    holder = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
    port = bind(holder, "127.0.0.1", 0, None)
    await holder.start()
    try:
        second = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
        with pytest.raises(OSError, match=f"cannot listen on 127.0.0.1:{port}"):
            bind(second, "127.0.0.1", port, None)
    finally:
        await holder.stop(None)
