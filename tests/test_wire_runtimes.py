"""The wire is a contract: every message the server sends decodes the same in every protobuf runtime, and no
message relies on a parser's leniency (docs/custom-clients.md, "Runtimes").

A real server on loopback plays a whole game of each of the four games with a person in every seat (bots
play the seats, the people keep watching) and a spectator. The test captures, as bytes on the wire: every
live Watch update of every viewer over gRPC and over the browser's WebSocket, the lobby's update, updates
resumed with `since_version`, every GetHistory step, a seat's Play stream (updates and an act's answer), the
unary answers, and Watch over Connect in binary and in JSON. Each captured message is then:
- walked byte by byte (tests/wire_walker.py): no singular field or oneof written twice at any depth;
- decoded by Python (upb), by protobufjs through `@grpc/proto-loader` (Node's standard gRPC stack), by
  protobuf-es (the browser client's runtime) and by `protoc --decode` (C++), which must all read the same.

Before views were joined inside one occurrence of `Update.view`, protobufjs read every update without its
public half (issue #40); both checks fail on that code.
"""

from __future__ import annotations

import asyncio
import struct
import uuid
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from google.protobuf import json_format
from runtime_decoders import (
    Captured,
    canonical,
    decode_cpp,
    decode_protobuf_es,
    decode_protobufjs,
    decode_python,
    first_difference,
    message_class,
)
from websockets.asyncio.client import connect
from wire_walker import repeated_singular_fields

from toadstool.api.v1 import service_pb2, table_pb2
from toadstool.games import get_game
from toadstool.server.app import RunningServer, ServerConfig, running_server
from toadstool.server.web_socket import HELLO, SOCKET_PATH, VIEW, WATCH
from toadstool_clients.connection import HOST_TOKEN_KEY, SEAT_TOKEN_KEY

GAMES = ("uno", "powerup", "levelup", "kart")
SERVICE = "/toadstool.v1.ToadstoolService/"
SECONDS = 60.0
#: At most this many live updates kept per stream (a whole game is a few hundred).
MAX_LIVE = 400

#: One capture for the module, on one worker (scripts/test runs pytest with --dist loadgroup).
#: The decoders read ~4,600 distinct messages each: a minute or more on a loaded machine.
pytestmark = [pytest.mark.xdist_group("wire_runtimes"), pytest.mark.timeout(480)]


class Capture:
    """Raw calls to one server, each answer kept as the bytes it arrived as."""

    def __init__(self, server: RunningServer) -> None:
        self.server = server
        self.channel = grpc.aio.insecure_channel(server.address)
        self.items: list[Captured] = []

    def keep(self, type_name: str, where: str, data: bytes) -> bytes:
        self.items.append(Captured(type=type_name, where=where, data=data))
        return data

    async def unary(self, method: str, request: Any, where: str, metadata: Any = None) -> Any:
        call = self.channel.unary_unary(SERVICE + method, request_serializer=lambda m: m.SerializeToString())
        data: bytes = await call(request, metadata=metadata, timeout=SECONDS)
        response_type = f"{method}Response"
        self.keep(response_type, where, data)
        return message_class(response_type).FromString(data)

    def stream(self, method: str, request: Any, token: str | None) -> Any:
        call = self.channel.unary_stream(SERVICE + method, request_serializer=lambda m: m.SerializeToString())
        return call(request, metadata=((SEAT_TOKEN_KEY, token),) if token else None, timeout=SECONDS)

    async def live(self, table_id: str, token: str | None, where: str) -> None:
        """Every update of one gRPC Watch until the game is over (the first: the lobby's)."""
        count = 0
        async for data in self.stream("Watch", service_pb2.WatchRequest(table_id=table_id), token):
            self.keep("WatchResponse", f"{where} grpc live #{count}", data)
            count += 1
            update = service_pb2.WatchResponse.FromString(data).update
            if update.status == table_pb2.TABLE_STATUS_FINISHED or count >= MAX_LIVE:
                return

    async def socket(self, table_id: str, token: str | None, where: str) -> None:
        """Every VIEW frame of one WebSocket until the game is over: the frame's message, after its kind byte."""
        async with connect(f"ws://{self.server.web_address}{SOCKET_PATH}", open_timeout=SECONDS) as ws:
            if token is not None:
                await ws.send(bytes((HELLO,)) + token.encode())
            await ws.send(bytes((WATCH,)) + service_pb2.WatchRequest(table_id=table_id).SerializeToString())
            count = 0
            async for frame in ws:
                assert isinstance(frame, bytes)
                if frame[0] != VIEW:
                    continue
                self.keep("WatchResponse", f"{where} socket #{count}", frame[1:])
                count += 1
                update = service_pb2.WatchResponse.FromString(frame[1:]).update
                if update.status == table_pb2.TABLE_STATUS_FINISHED or count >= MAX_LIVE:
                    return

    async def play(self, table_id: str, token: str, where: str) -> None:
        """Every message of one seat's Play stream until the game is over, with the answer of one act it sends
        (refused: an id no action has), so both kinds of PlayResponse are captured."""
        call = self.channel.stream_stream(SERVICE + "Play", request_serializer=lambda m: m.SerializeToString())(
            metadata=((SEAT_TOKEN_KEY, token),), timeout=SECONDS
        )
        await call.write(service_pb2.PlayRequest(watch=service_pb2.WatchRequest(table_id=table_id)))
        act = service_pb2.ActRequest(table_id=table_id, request_id="capture-act", action_id="no-such-action")
        count = 0
        try:
            async for data in call:
                self.keep("PlayResponse", f"{where} play #{count}", data)
                if count == 0:
                    await call.write(service_pb2.PlayRequest(act=act))
                count += 1
                response = service_pb2.PlayResponse.FromString(data)
                if response.update.status == table_pb2.TABLE_STATUS_FINISHED or count >= MAX_LIVE:
                    return
        finally:
            call.cancel()

    async def first(self, table_id: str, token: str | None, since: int | None, where: str) -> None:
        request = service_pb2.WatchRequest(table_id=table_id)
        if since is not None:
            request.since_version = since
        call = self.stream("Watch", request, token)
        try:
            self.keep("WatchResponse", where, await call.read())
        finally:
            call.cancel()

    async def history(self, table_id: str, token: str | None, where: str) -> None:
        count = 0
        async for data in self.stream("GetHistory", service_pb2.GetHistoryRequest(table_id=table_id), token):
            self.keep("GetHistoryResponse", f"{where} history #{count}", data)
            count += 1

    async def connect_watch(self, table_id: str, token: str | None, codec: str, where: str) -> None:
        """The first message of a Watch over Connect's streaming protocol, in `codec` (proto or json)."""
        request = service_pb2.WatchRequest(table_id=table_id)
        body = json_format.MessageToJson(request).encode() if codec == "json" else request.SerializeToString()
        headers = {"content-type": f"application/connect+{codec}"}
        if token:
            headers[SEAT_TOKEN_KEY] = token
        async with (
            httpx.AsyncClient(base_url=f"http://{self.server.web_address}", timeout=SECONDS) as http,
            http.stream(
                "POST", SERVICE + "Watch", content=struct.pack(">BI", 0, len(body)) + body, headers=headers
            ) as response,
        ):
            assert response.status_code == 200
            buffer = b""
            async for chunk in response.aiter_raw():
                buffer += chunk
                if len(buffer) >= 5:
                    flags, length = struct.unpack(">BI", buffer[:5])
                    if len(buffer) >= 5 + length:
                        assert not flags & 0x02, f"the stream ended at once: {buffer[5 : 5 + length]!r}"
                        payload = buffer[5 : 5 + length]
                        if codec == "json":
                            self.items.append(Captured("WatchResponse", f"{where} connect json", json=payload.decode()))
                        else:
                            self.keep("WatchResponse", f"{where} connect proto", payload)
                        return


async def capture_game(capture: Capture, game: str) -> None:
    engine = get_game(game).engine
    players = max(engine.min_players, min(4, engine.max_players))
    create = service_pb2.CreateTableRequest(
        game=game, players=players, seed=11, manual_start=True, bot_delay_ms=0, options=dict(engine.quick_options)
    )
    created = await capture.unary("CreateTable", create, f"{game} create")
    table_id, host = created.table.table_id, created.host_token
    tokens: list[str] = []
    for seat in range(players):
        join = service_pb2.JoinTableRequest(table_id=table_id, name=f"Pat {seat}", request_id=uuid.uuid4().hex * 2)
        tokens.append((await capture.unary("JoinTable", join, f"{game} join {seat}")).seat_token)
    viewers: list[tuple[str, str | None]] = [(f"{game} seat {s}", t) for s, t in enumerate(tokens)]
    viewers.append((f"{game} spectator", None))
    followers = [asyncio.create_task(capture.live(table_id, token, where)) for where, token in viewers]
    followers += [asyncio.create_task(capture.socket(table_id, token, where)) for where, token in viewers]
    followers.append(asyncio.create_task(capture.play(table_id, tokens[0], f"{game} seat 0")))
    await asyncio.sleep(0.2)  # every stream has had its lobby update before the game starts
    host_metadata = ((HOST_TOKEN_KEY, host),)
    await capture.unary("StartTable", service_pb2.StartTableRequest(table_id=table_id), f"{game} start", host_metadata)
    for seat in range(players):
        request = service_pb2.HandSeatToBotRequest(table_id=table_id, seat=seat)
        await capture.unary("HandSeatToBot", request, f"{game} hand {seat} to a bot", host_metadata)
    await asyncio.wait_for(asyncio.gather(*followers), SECONDS)
    final = (await capture.unary("GetTable", service_pb2.GetTableRequest(table_id=table_id), f"{game} get")).table
    again = service_pb2.PlayAgainRequest(table_id=table_id)
    seat_0 = ((SEAT_TOKEN_KEY, tokens[0]), (HOST_TOKEN_KEY, host))
    await capture.unary("PlayAgain", again, f"{game} play again", seat_0)
    await capture.unary("GetTable", service_pb2.GetTableRequest(table_id=table_id), f"{game} get, followed")
    for where, token in viewers:
        for since in (0, final.version // 2, max(final.version - 3, 0)):
            await capture.first(table_id, token, since, f"{where} resumed since {since}")
        await capture.history(table_id, token, where)
        for codec in ("proto", "json"):
            await capture.connect_watch(table_id, token, codec, where)


async def capture_bot_levels(capture: Capture) -> None:
    """A host seating a hard bot and making another easy: AddBot's and SetBotLevel's answers, whose seats
    carry each bot's level."""
    create = service_pb2.CreateTableRequest(game="uno", players=3, bots=1, manual_start=True, bot_delay_ms=0)
    created = await capture.unary("CreateTable", create, "bots create")
    table_id, host = created.table.table_id, ((HOST_TOKEN_KEY, created.host_token),)
    add = service_pb2.AddBotRequest(table_id=table_id, bot_level=service_pb2.BOT_LEVEL_HARD)
    added = await capture.unary("AddBot", add, "bots add a hard bot", host)
    level = service_pb2.SetBotLevelRequest(table_id=table_id, seat=added.seat, bot_level=service_pb2.BOT_LEVEL_EASY)
    changed = await capture.unary("SetBotLevel", level, "bots set a level", host)
    assert sorted(seat.bot_level for seat in changed.table.seats) == [0, 1, 2]


@pytest.fixture(scope="module")
def captured(tmp_path_factory: pytest.TempPathFactory) -> list[Captured]:
    """Everything the server sent through one evening of the four games (captured once for the module)."""

    async def run() -> list[Captured]:
        config = ServerConfig(host="127.0.0.1", port=0, web_port=0, bot_delay=0.0, grace=0.5)
        async with running_server(config) as server:
            capture = Capture(server)
            try:
                for game in GAMES:
                    await capture_game(capture, game)
                await capture.unary("ListTables", service_pb2.ListTablesRequest(), "list tables")
                await capture.unary("ListGames", service_pb2.ListGamesRequest(), "list games")
                await capture_bot_levels(capture)
            finally:
                await capture.channel.close()
            return capture.items

    items = asyncio.run(run())
    kinds = {item.where.split(" ")[0] for item in items}
    assert kinds >= set(GAMES)
    return items


@pytest.fixture(scope="module")
def distinct(captured: list[Captured]) -> list[Captured]:
    """The captured messages less repeats of the same bytes (a seat's socket sends its gRPC stream's bytes),
    each kept where it was first captured."""
    seen: set[tuple[str, bytes, str | None]] = set()
    out = []
    for item in captured:
        key = (item.type, item.data, item.json)
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


def test_the_capture_holds_every_kind_of_message_of_every_game(captured: list[Captured]) -> None:
    wheres = [c.where for c in captured]
    for game in GAMES:
        for part in ("grpc live", "socket", "play", "resumed since", "history", "connect proto", "connect json"):
            assert any(w.startswith(game) and part in w for w in wheres), f"nothing captured of {game} {part}"
        finished = [c for c in captured if c.where.startswith(f"{game} seat 0 grpc live") and c.type == "WatchResponse"]
        last = service_pb2.WatchResponse.FromString(finished[-1].data).update
        assert last.status == table_pb2.TABLE_STATUS_FINISHED, f"{game}'s game did not reach its end"
        assert len(finished) > 10
        played = [service_pb2.PlayResponse.FromString(c.data) for c in captured if c.type == "PlayResponse"]
        assert any(p.acted.code == grpc.StatusCode.FAILED_PRECONDITION.value[0] for p in played)
        if game != "kart":  # hands' and rounds' results travel marked (Event.round_result); Kart is one race
            events = [e for c in finished for e in service_pb2.WatchResponse.FromString(c.data).update.events]
            assert any(e.round_result for e in events), f"no round result of {game} was captured"


def test_no_sent_message_writes_a_singular_field_twice_at_any_depth(captured: list[Captured]) -> None:
    problems = []
    for item in captured:
        if item.json is not None:
            continue
        found = repeated_singular_fields(message_class(item.type).DESCRIPTOR, item.data)
        if found:
            problems.append(f"{item.where}: {found[:3]}")
    assert not problems, f"{len(problems)} messages rely on merging repeated fields, e.g. {problems[:5]}"


@pytest.mark.parametrize("runtime", ["protobufjs", "protobuf-es", "cpp"])
def test_every_runtime_reads_every_message_as_python_does(
    distinct: list[Captured], runtime: str, tmp_path: Path
) -> None:
    captured = distinct
    expected = decode_python(captured)
    if runtime == "protobufjs":
        binary = [c for c in captured if c.json is None]  # proto-loader has no JSON codec
        got: list[Any] = decode_protobufjs(binary, tmp_path)
        expected = decode_python(binary)
        items = binary
    elif runtime == "protobuf-es":
        got = decode_protobuf_es(captured, tmp_path)
        items = captured
    else:
        got = decode_cpp(captured, tmp_path)
        items = captured
    compared = 0
    for item, want, have in zip(items, expected, got, strict=True):
        if have is None:  # C++ is not given Connect's JSON
            continue
        descriptor = message_class(item.type).DESCRIPTOR
        difference = first_difference(canonical(descriptor, want), canonical(descriptor, have))
        assert difference is None, f"{runtime} reads {item.where} ({item.type}) differently: {difference}"
        compared += 1
    assert compared > 1000
    print(f"{runtime}: {compared} distinct messages read as Python reads them")


def test_connects_json_reads_as_its_binary_does(captured: list[Captured]) -> None:
    """The same viewer's first Connect message in JSON and in binary, both read by Python, are the same update
    but for the seats' connection flags (which depend on which stream opened first)."""
    by_where: dict[str, dict[str, Any]] = {}
    for item, tree in zip(captured, decode_python(captured), strict=True):
        if "connect" in item.where:
            viewer, codec = item.where.rsplit(" connect ", 1)
            for seat in tree.get("update", {}).get("seats", []):
                seat.pop("connected", None)
            by_where.setdefault(viewer, {})[codec] = tree
    assert len(by_where) >= 4 * 3
    for viewer, pair in by_where.items():
        assert pair["json"] == pair["proto"], viewer
