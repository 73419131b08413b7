"""Hostile clients against a live server, at the API level (issue #11, "Hostile network").

Hypothesis drives every request type of toadstool.v1.ToadstoolService, built from the .proto descriptors
(typed actions of every game, unknown enum numbers, extreme integers, hostile text, huge repeated fields,
requests near and over the 64 KiB limit), with absent, random, foreign and other seats' tokens in the
metadata, mixed with legal, out-of-turn and stale actions of the real seats. People's streams and a
spectator's stream stay open throughout. After each example the oracle holds: every refusal is a
documented code with a message; the table's version counts the actions the test saw accepted and its
views equal a replay of them through the engine; every update and history step a viewer received is
exactly that viewer's view; no reply carries a token it did not just issue. After each test the server
still answers health checks and plays a new game.

The server runs in this process on its own event loop in a thread (a real socket, a real gRPC server), so
Hypothesis drives it from a plain test function. Not here: raw bytes and HTTP/2 garbage (test_fuzz_wire.py).
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import uuid
from collections.abc import AsyncIterator, Coroutine, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc
import pytest
from hypothesis import given
from hypothesis import strategies as st

from e2e_helpers import Transcript
from fuzz_helpers import (
    METHODS,
    STREAMING,
    check_history,
    check_no_secret,
    check_refusal,
    check_seat_stream,
    check_server_healthy_and_playing,
    check_table_is_its_replay,
    check_update,
    fuzz_settings,
    message_strategy,
    padded,
    repeated_huge,
)
from toadstool.engine import action_id
from toadstool.games import GAMES
from toadstool.limits import Limits
from toadstool.messages import action_message
from toadstool.server import RunningServer, ServerConfig, running_server
from toadstool.tables import TableError
from toadstool.v1 import service_pb2, table_pb2
from toadstool_clients.connection import DEVICE_TOKEN_KEY, HOST_TOKEN_KEY, SEAT_TOKEN_KEY, Client

T = TypeVar("T")
GAME_KEYS = sorted(GAMES)
#: The per-client table limit is lifted (every example opens fresh tables from one loopback address);
#: the other limits (request size, streams, action rate) stay at their defaults and are part of the fuzz.
LIMITS = dataclasses.replace(Limits(), max_tables_per_client=100_000, max_tables=100_000)
TOKEN_KEYS = (SEAT_TOKEN_KEY, HOST_TOKEN_KEY, DEVICE_TOKEN_KEY)
STEP_SECONDS = 5.0


class LoopServer:
    """A real server on a free loopback port, running on its own event loop in a thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.running: RunningServer | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self.loop.run_forever, name="fuzz-server", daemon=True)

    def start(self) -> None:
        self._thread.start()
        self.run(self._open(), 20)

    async def _open(self) -> None:
        self._stop = asyncio.Event()
        started: asyncio.Future[RunningServer] = self.loop.create_future()

        async def serve() -> None:
            config = ServerConfig(host="127.0.0.1", port=0, bot_delay=0.0, grace=0.5, limits=LIMITS)
            async with running_server(config) as running:
                started.set_result(running)
                assert self._stop is not None
                await self._stop.wait()

        self._task = self.loop.create_task(serve(), name="fuzz-serve")
        self.running = await asyncio.wait_for(started, 15)

    def run(self, coroutine: Coroutine[Any, Any, T], seconds: float = 60.0) -> T:
        """Run `coroutine` on the server's loop (where the tables live) and wait for it, bounded in time."""
        return asyncio.run_coroutine_threadsafe(asyncio.wait_for(coroutine, seconds), self.loop).result(seconds + 5)

    def close(self) -> None:
        async def stop() -> None:
            assert self._stop is not None
            self._stop.set()
            await asyncio.wait_for(self._task, 15)

        try:
            self.run(stop(), 20)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(10)
            self.loop.close()


@pytest.fixture
def loop_server() -> Iterator[LoopServer]:
    server = LoopServer()
    server.start()
    try:
        yield server
    finally:
        server.close()


# -- one example's world ----------------------------------------------------------------------------------


@dataclass
class Stream:
    """An open Watch for one viewer, collecting every update it receives."""

    transcript: Transcript
    holder: str
    token: str | None
    task: asyncio.Task[None] | None = None


@dataclass
class World:
    """The tables one example plays on, the tokens it holds and what it saw accepted."""

    server: RunningServer
    client: Client
    table_id: str
    host_token: str
    seat_tokens: list[str]
    names: list[str]
    foreign_table: str
    foreign_token: str
    device_token: str = ""
    accepted: int = 0
    #: True once a bot may act at the table (a seat left or was kicked): only then may the version exceed
    #: what the test saw accepted.
    bots_joined: bool = False
    revoked: set[str] = field(default_factory=set)
    created: list[str] = field(default_factory=list)
    secrets: set[str] = field(default_factory=set)
    streams: list[Stream] = field(default_factory=list)
    request_ids: list[str] = field(default_factory=list)

    @property
    def table(self) -> Any:
        return self.server.registry.tables[self.table_id]

    def tokens(self) -> list[str]:
        return [*self.seat_tokens, self.host_token, self.foreign_token, self.device_token]


async def _collect(call: grpc.aio.UnaryStreamCall, stream: Stream) -> None:
    try:
        async for response in call:
            stream.transcript.updates.append(response.update)
    except grpc.aio.AioRpcError as error:
        if error.code() != grpc.StatusCode.CANCELLED:
            check_refusal(error, "a watch stream")


async def _open_world(server: RunningServer, client: Client, game: str, players: int, seed: int) -> World:
    nonce = uuid.uuid4().hex[:6]
    created = await client.create_table(game, players, seed=seed)
    table_id = created.table.table_id
    names = [f"Seat{i}-{nonce}" for i in range(players)]
    tokens = [(await client.join(table_id, name, index)).seat_token for index, name in enumerate(names)]
    foreign = await client.create_table(game, GAMES[game].engine.min_players, seed=seed + 1)
    foreign_token = (await client.join(foreign.table.table_id, f"Stranger-{nonce}")).seat_token
    world = World(
        server=server,
        client=client,
        table_id=table_id,
        host_token=created.host_token,
        seat_tokens=tokens,
        names=names,
        foreign_table=foreign.table.table_id,
        foreign_token=foreign_token,
    )
    world.secrets |= {created.host_token, foreign.host_token, foreign_token, *tokens}
    for seat, token in [*enumerate(tokens), (None, None)]:
        stream = Stream(Transcript(seat=seat), names[seat] if seat is not None else "", token)
        stream.task = asyncio.get_running_loop().create_task(_collect(client.watch(table_id, token), stream))
        world.streams.append(stream)
    return world


def _metadata_strategy(world: World) -> st.SearchStrategy[tuple[tuple[str, str], ...]]:
    token = st.one_of(
        st.sampled_from(world.tokens()),
        st.just(""),
        st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), max_size=60),
        st.sampled_from(world.tokens()).map(lambda t: t[:-1] + ("A" if t[-1:] != "A" else "B")),
    )
    pair = st.tuples(st.sampled_from(TOKEN_KEYS), token)
    return st.lists(pair, max_size=3).map(tuple)


def _overrides(world: World) -> dict[str, st.SearchStrategy[Any]]:
    table = world.table
    engine = table.engine
    legal_ids = [action_id(a) for s in range(table.players) for a in engine.legal_actions(table.state, s)] or ["x"]
    return {
        "table_id": st.one_of(
            st.just(world.table_id),
            st.sampled_from([world.table_id, world.foreign_table, "", "nope", world.table_id.upper()]),
            st.text(max_size=300).filter(lambda s: "\ud800" > s or True),
        ),
        "seat": st.one_of(st.integers(-2, table.players + 1), st.integers(-(2**31), 2**31 - 1)),
        "version": st.one_of(
            st.sampled_from([table.version, table.version + 1, max(0, table.version - 1), 0]),
            st.integers(0, 2**64 - 1),
        ),
        "since_version": st.one_of(st.integers(0, table.version + 2), st.integers(0, 2**64 - 1)),
        "action_id": st.one_of(st.sampled_from(legal_ids), st.text(max_size=20)),
        "request_id": st.one_of(st.just(""), st.sampled_from(world.request_ids or [""]), st.text(max_size=20)),
        "game": st.one_of(st.sampled_from([*GAME_KEYS, "chess", ""]), st.text(max_size=10)),
        "players": st.integers(-1, 12),
        "bots": st.integers(-1, 12),
        "turn_seconds": st.sampled_from([0, 0, 0, 1, 86_401, 2**32 - 1]),
        "takeover_seconds": st.sampled_from([0, 0, 0, 86_401, 2**32 - 1]),
        "bot_delay_ms": st.sampled_from([0, 1]),
    }


def _expected_viewer(world: World, table_id: str, metadata: tuple[tuple[str, str], ...]) -> tuple[bool, int | None]:
    """(allowed, seat) for a Watch or GetHistory call: the first seat token decides, as in the service."""
    token = next((value for key, value in metadata if key == SEAT_TOKEN_KEY), "")
    if not token:
        return True, None
    table = world.server.registry.tables.get(table_id)
    if table is None:
        return False, None
    try:
        return True, table.seat_of_token(token)
    except TableError:
        return False, None


async def _call(world: World, method: str, request: Any, metadata: tuple[tuple[str, str], ...]) -> list[Any] | None:
    """Send one request; returns the responses (None when refused, after checking the refusal)."""
    stub = world.client.stub
    rpc = getattr(stub, method)
    table_id = getattr(request, "table_id", "")
    try:
        if method in STREAMING:
            call = rpc(request, metadata=metadata, timeout=STEP_SECONDS)
            responses = []
            async for response in call:
                responses.append(response)
                if method == "Watch":
                    call.cancel()
                    break
        else:
            responses = [await rpc(request, metadata=metadata, timeout=STEP_SECONDS)]
    except grpc.aio.AioRpcError as error:
        if error.code() == grpc.StatusCode.CANCELLED and method == "Watch":
            return []
        check_refusal(error, f"{method} {str(request)[:200]!r} with {metadata!r}")
        return None
    for response in responses:
        check_no_secret(response.SerializeToString(), world.secrets, method)
    if method in ("Watch", "GetHistory") and table_id in world.server.registry.tables:
        allowed, viewer = _expected_viewer(world, table_id, metadata)
        assert allowed, f"{method} answered for a token that is not valid at table {table_id}: {metadata!r}"
        table = world.server.registry.tables[table_id]
        states = check_table_is_its_replay(table, None)
        if method == "Watch":
            for response in responses:
                check_update(table, viewer, response.update, states)
        else:
            check_history(table, viewer, [r.step for r in responses], states)
    _note_success(world, method, request, metadata, responses)
    return responses


def _note_success(
    world: World, method: str, request: Any, metadata: tuple[tuple[str, str], ...], responses: list[Any]
) -> None:
    """Keep the test's model in step with what the server accepted."""
    [response] = responses if len(responses) == 1 else [None]
    table_id = getattr(request, "table_id", "")
    token = next((value for key, value in metadata if key == SEAT_TOKEN_KEY), "")
    if method == "CreateTable":
        world.created.append(response.table.table_id)
        world.secrets.add(response.host_token)
    elif method == "JoinTable":
        world.secrets.add(response.seat_token)
    elif method == "IssueDeviceToken":
        world.secrets.add(response.device_token)
        if table_id == world.table_id:
            world.device_token = response.device_token
    elif method == "Act" and table_id == world.table_id and not response.replayed:
        world.accepted += 1
        assert response.version == world.table.version or world.bots_joined
    elif method in ("LeaveTable", "KickSeat") and table_id == world.table_id:
        world.bots_joined = True
        world.revoked.add(token)


async def _legal_step(world: World, data: st.DataObject) -> None:
    """A real seat's legal (or out-of-turn, stale, replayed, misdirected) action, by id or typed."""
    table = world.table
    if table.state is None:
        return
    engine = table.engine
    seat = data.draw(st.sampled_from(list(engine.to_act(table.state)) or list(range(table.players))), label="seat")
    legal = engine.legal_actions(table.state, seat)
    if not legal:
        return
    action = data.draw(st.sampled_from(list(legal)), label="action")
    version = data.draw(st.sampled_from([table.version] * 3 + [table.version + 1, max(0, table.version - 1)]))
    request_id = data.draw(st.one_of(st.just(uuid.uuid4().hex), st.sampled_from(world.request_ids or [""])))
    token = data.draw(
        st.sampled_from([world.seat_tokens[seat]] * 4 + world.seat_tokens + [world.foreign_token]), label="token"
    )
    request = service_pb2.ActRequest(table_id=world.table_id, version=version, request_id=request_id)
    if data.draw(st.booleans(), label="typed"):
        request.action.CopyFrom(action_message(engine, action))
    else:
        request.action_id = action_id(action)
    world.request_ids.append(request_id)
    await _call(world, "Act", request, ((SEAT_TOKEN_KEY, token),))


async def _random_step(world: World, data: st.DataObject) -> None:
    """Any request type, built from its descriptor, with any tokens."""
    method = data.draw(st.sampled_from(sorted(METHODS)), label="method")
    descriptor = METHODS[method].input_type
    request = data.draw(message_strategy(descriptor, _overrides(world)), label="request")
    metadata = data.draw(_metadata_strategy(world), label="metadata")
    await _call(world, method, request, metadata)


async def _size_step(world: World, data: st.DataObject) -> None:
    """A request near or over the 64 KiB limit, or with huge repeated fields."""
    method = data.draw(st.sampled_from(sorted(METHODS)), label="method")
    request = data.draw(message_strategy(METHODS[method].input_type, _overrides(world)), label="request")
    if data.draw(st.booleans(), label="repeated"):
        request = repeated_huge(request, data.draw(st.integers(100, 20_000)))
    else:
        request = padded(request, data.draw(st.integers(LIMITS.max_request_bytes - 2_000, 200_000)))
    size = request.ByteSize()
    metadata = data.draw(_metadata_strategy(world), label="metadata")
    try:
        await _call(world, method, request, metadata)
    except AssertionError:
        raise
    if size > LIMITS.max_request_bytes:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await getattr(world.client.stub, method)(request, metadata=metadata, timeout=STEP_SECONDS)
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, (method, size, caught.value.details())


async def _close_and_check(world: World) -> None:
    """Let the streams catch up, close them, and hold the oracle over everything received."""
    table = world.table
    live = [s for s in world.streams if s.token not in world.revoked]

    async def caught_up() -> None:
        while any(not s.transcript.updates or s.transcript.last.version != table.version for s in live):
            await asyncio.sleep(0.01)

    await asyncio.wait_for(caught_up(), 10)
    for stream in world.streams:
        assert stream.task is not None
        stream.task.cancel()
    await asyncio.gather(*(s.task for s in world.streams if s.task), return_exceptions=True)
    states = check_table_is_its_replay(table, None if world.bots_joined else world.accepted)
    for stream in world.streams:
        for update in stream.transcript.updates:
            check_update(table, stream.transcript.seat, update, states)
            check_no_secret(update.SerializeToString(), world.secrets, "a stream update")
        check_seat_stream(stream.transcript, stream.holder)
    for viewer, token in [*enumerate(world.seat_tokens), (None, None)]:
        if token in world.revoked:
            continue
        steps = await world.client.history(world.table_id, token)
        check_history(table, viewer, steps, states)
    for table_id in world.created:
        check_table_is_its_replay(world.server.registry.tables[table_id], None)


@asynccontextmanager_helper := None  # placeholder removed below
