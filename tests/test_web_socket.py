"""A seat's Watch and Acts on one WebSocket (toadstool.server.web_socket, issue #24), on a real server.

The server on loopback, its HTTP side on a free port, its socket reached with the `websockets` client: each
viewer's socket must get exactly what that viewer's gRPC Watch gets, an Act must be answered on the socket
that sent it, a refused Act must carry the code and message Connect gives and change nothing, a frame that
breaks the protocol must be refused and close only its own socket, and a closed socket must give back its
stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import AsyncIterator

import grpc
import pytest
import websockets
from test_web_transport import STEPS, Follower, _grpc_stream, _state, _two_seat_uno, base, web_server
from web_helpers import CODES, ConnectError, WebClient
from websockets.asyncio.client import ClientConnection, connect

from toadstool.api.v1 import service_pb2, table_pb2
from toadstool.server import messages, web_socket
from toadstool.server.app import RunningServer
from toadstool.server.limits import Limits
from toadstool.server.web_socket import (
    ACT,
    ACT_REFUSED,
    ACTED,
    END,
    HELLO,
    POLICY_VIOLATION,
    REFUSED,
    SOCKET_PATH,
    VIEW,
    WATCH,
)
from toadstool_clients.connection import SEAT_TOKEN_KEY, Client

SECONDS = 10.0


@pytest.fixture
async def server() -> AsyncIterator[RunningServer]:
    async with web_server() as running:
        yield running


def _url(server: RunningServer, path: str = SOCKET_PATH) -> str:
    return f"ws://{server.web_address}{path}"


class Seat:
    """One socket: its VIEW frames read into a list in the background, its other frames queued."""

    def __init__(self, socket: ClientConnection) -> None:
        self.socket = socket
        self.views: list[table_pb2.Update] = []
        self.others: asyncio.Queue[tuple[int, bytes]] = asyncio.Queue()
        self.follower = Follower(self._views())

    async def _views(self) -> AsyncIterator[service_pb2.WatchResponse]:
        async for frame in self.socket:
            assert isinstance(frame, bytes), "the server sends binary frames only"
            if frame[0] == VIEW:
                yield service_pb2.WatchResponse.FromString(frame[1:])
            else:
                await self.others.put((frame[0], frame[1:]))

    async def act(self, request: service_pb2.ActRequest) -> tuple[int, bytes]:
        """Send an ACT frame; the frame that answers it (ACTED or ACT_REFUSED) and its payload."""
        await self.socket.send(bytes((ACT,)) + request.SerializeToString())
        return await asyncio.wait_for(self.others.get(), SECONDS)

    async def close(self) -> None:
        await self.socket.close()
        await self.follower.close()


@contextlib.asynccontextmanager
async def seat_socket(
    server: RunningServer, table_id: str, token: str | None, since: int | None = None, in_header: bool = False
) -> AsyncIterator[Seat]:
    """A socket watching `table_id` as the seat of `token`: told in a HELLO frame, as a browser must, or
    (`in_header`) in the handshake's header, as other clients may."""
    headers = {SEAT_TOKEN_KEY: token} if in_header and token else None
    async with connect(_url(server), open_timeout=SECONDS, additional_headers=headers) as socket:
        if token is not None and not in_header:
            await socket.send(bytes((HELLO,)) + token.encode())
        request = service_pb2.WatchRequest(table_id=table_id)
        if since is not None:
            request.since_version = since
        await socket.send(bytes((WATCH,)) + request.SerializeToString())
        seat = Seat(socket)
        try:
            yield seat
        finally:
            await seat.close()


def _act_request(table_id: str, version: int, action_id: str) -> service_pb2.ActRequest:
    return service_pb2.ActRequest(table_id=table_id, version=version, action_id=action_id, request_id=uuid.uuid4().hex)


async def test_each_viewers_socket_gets_what_its_grpc_watch_gets_and_its_acts_are_answered_on_it(
    server: RunningServer,
) -> None:
    async with Client(server.address) as client:
        table_id, tokens = await _two_seat_uno(client)
        viewers: list[str | None] = [tokens[0], tokens[1], None]
        async with (
            seat_socket(server, table_id, tokens[0]) as ann,
            seat_socket(server, table_id, tokens[1]) as bea,
            seat_socket(server, table_id, None) as onlooker,
        ):
            sockets = [ann, bea, onlooker]
            grpc_sides = [Follower(_grpc_stream(client, table_id, token)) for token in viewers]
            try:
                table = server.registry.tables[table_id]
                for step in range(STEPS + 1):
                    version = table.version
                    for over_grpc, over_socket in zip(grpc_sides, sockets, strict=True):
                        assert _state(await over_socket.follower.at(version)) == _state(await over_grpc.at(version)), (
                            f"step {step}"
                        )
                    seat = table.engine.to_act(table.state)[0]
                    mine = await sockets[seat].follower.at(version)
                    kind, payload = await sockets[seat].act(_act_request(table_id, version, mine.legal_actions[0].id))
                    assert kind == ACTED, payload
                    assert service_pb2.ActResponse.FromString(payload).version == version + 1
                for over_grpc, over_socket in zip(grpc_sides, sockets, strict=True):
                    await over_grpc.at(table.version)
                    await over_socket.follower.at(table.version)
                # Told exactly the events the gRPC viewer was told, and only ever its own viewer's messages.
                for over_grpc, over_socket, viewer in zip(grpc_sides, sockets, (0, 1, None), strict=True):
                    told = [event for update in over_socket.follower.updates for event in update.events]
                    assert told == [event for update in over_grpc.updates for event in update.events]
                    for update in over_socket.follower.updates:
                        assert (update.viewer_seat if update.HasField("viewer_seat") else None) == viewer
                        assert viewer is not None or not update.legal_actions
            finally:
                for follower in grpc_sides:
                    await follower.close()


async def test_a_refused_act_is_answered_with_connects_code_and_message_and_the_socket_plays_on(
    server: RunningServer,
) -> None:
    async with Client(server.address) as client, WebClient(base(server), "proto") as web:
        table_id, tokens = await _two_seat_uno(client)
        table = server.registry.tables[table_id]
        seat = table.engine.to_act(table.state)[0]
        async with (
            seat_socket(server, table_id, tokens[seat], in_header=True) as mine,
            seat_socket(server, table_id, None) as onlooker,
        ):
            view = await mine.follower.at(table.version)
            stale = _act_request(table_id, table.version - 1 if table.version else 99, view.legal_actions[0].id)
            wrong_seat = _act_request(table_id, table.version, view.legal_actions[0].id)
            for request, token_of_socket in ((stale, mine), (wrong_seat, onlooker)):
                before = table.version
                kind, payload = await token_of_socket.act(request)
                assert kind == ACT_REFUSED
                refusal = json.loads(payload)
                token = tokens[seat] if token_of_socket is mine else None
                with pytest.raises(ConnectError) as over_http:
                    await web.call("Act", request, service_pb2.ActResponse, token=token)
                assert (CODES[refusal["code"]], refusal["message"]) == (over_http.value.code, over_http.value.message)
                assert table.version == before, "a refused Act changes nothing"
            kind, payload = await mine.act(_act_request(table_id, table.version, view.legal_actions[0].id))
            assert kind == ACTED, payload


@pytest.mark.parametrize(
    ("frames", "said"),
    [
        ([b""], "frames are binary"),
        (["a text frame"], "frames are binary"),
        ([b"\x09hello"], "no such frame kind: 9"),
        ([b"\x01\xff\xff\xff"], "not a valid WatchRequest"),
        ([b"\x01", b"\x01"], "a socket carries one Watch"),
        ([b"\x01", b"\x00token"], "can only be the socket's first"),
        ([b"\x00\xff\xfe"], "not UTF-8"),
    ],
)
async def test_a_frame_that_breaks_the_protocol_is_refused_and_closes_only_its_own_socket(
    server: RunningServer, frames: list[bytes | str], said: str
) -> None:
    async with Client(server.address) as client:
        table_id, tokens = await _two_seat_uno(client)
        async with seat_socket(server, table_id, tokens[0]) as bystander:
            await bystander.follower.first()
            async with connect(_url(server), open_timeout=SECONDS) as socket:
                for frame in frames:
                    await socket.send(frame if frame != b"\x01" else b"\x01" + _watch(table_id))
                received, code = await _until_closed(socket)
            assert code == POLICY_VIOLATION
            refused = [f for f in received if isinstance(f, bytes) and f[0] == REFUSED]
            assert len(refused) == 1, received
            refusal = json.loads(refused[0][1:])
            assert refusal["code"] == "invalid_argument"
            assert said in refusal["message"]
            # The other socket plays on.
            table = server.registry.tables[table_id]
            seat = table.engine.to_act(table.state)[0]
            if seat == 0:
                view = await bystander.follower.at(table.version)
                kind, _ = await bystander.act(_act_request(table_id, table.version, view.legal_actions[0].id))
                assert kind == ACTED


async def _until_closed(socket: ClientConnection) -> tuple[list[bytes | str], int | None]:
    """Every frame the server sends until it closes the socket, and the close code it sent."""
    received: list[bytes | str] = []
    with contextlib.suppress(websockets.ConnectionClosed):  # a close other than 1000 raises here
        async with asyncio.timeout(SECONDS):
            async for frame in socket:
                received.append(frame)
    close = socket.protocol.close_rcvd
    return received, close.code if close is not None else None


def _watch(table_id: str) -> bytes:
    return service_pb2.WatchRequest(table_id=table_id).SerializeToString()


@pytest.mark.parametrize("first", [[], [b"\x00" + b"a-token"], [b"\x02" + b"\x0a\x01x"]])
async def test_a_socket_that_sends_no_watch_in_time_is_refused_and_closed(
    server: RunningServer, monkeypatch: pytest.MonkeyPatch, first: list[bytes]
) -> None:
    # An Act must be read and answered before the deadline: time enough for a loaded machine, which this
    # test's client shares a loop with (the other cases expect nothing before it).
    wait = 3.0 if any(frame[0] == ACT for frame in first) else 0.3
    monkeypatch.setattr(web_socket, "WATCH_WAIT_SECONDS", wait)
    async with connect(_url(server), open_timeout=SECONDS) as socket:
        for frame in first:  # nothing, a HELLO, or Acts: none of them is a WATCH
            await socket.send(frame)
        received, code = await _until_closed(socket)
    assert code == POLICY_VIOLATION
    (refused,) = [f for f in received if isinstance(f, bytes) and f[0] == REFUSED]
    assert f"no WATCH frame in the socket's first {wait:g} s" in json.loads(refused[1:])["message"]
    acts = [f for f in received if isinstance(f, bytes) and f[0] == ACT_REFUSED]
    assert len(acts) == sum(frame[0] == ACT for frame in first), "an Act before the WATCH is still answered"
    if acts:
        assert json.loads(acts[0][1:])["code"] == "invalid_argument"  # it has no request_id


async def test_a_frame_over_the_request_limit_closes_the_socket_with_1009() -> None:
    limits = Limits(max_request_bytes=2048, actions_per_second=1000, action_burst=1000)
    async with web_server(limits) as server:
        async with connect(_url(server), open_timeout=SECONDS, max_size=None) as socket:
            await socket.send(bytes((ACT,)) + b"x" * 2048)  # the kind byte and the limit: allowed in
            kind = (await asyncio.wait_for(socket.recv(), SECONDS))[0]
            assert kind == ACT_REFUSED, "a frame at the limit is read (and this one is not an ActRequest)"
            await socket.send(bytes((ACT,)) + b"x" * 2049)
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await asyncio.wait_for(socket.recv(), SECONDS)
        assert closed.value.rcvd is not None
        assert closed.value.rcvd.code == 1009


async def test_a_page_of_another_site_and_any_other_path_are_refused_at_the_handshake(server: RunningServer) -> None:
    for url, origin, headers in (
        (_url(server), "http://elsewhere.example", None),
        (_url(server), None, {"sec-fetch-site": "cross-site"}),  # the browser's own verdict
        (_url(server, "/somewhere"), None, None),
        (_url(server, "/toadstool.v1.ToadstoolService/Act"), None, None),
    ):
        with pytest.raises(websockets.InvalidStatus) as refused:
            async with connect(url, origin=origin, additional_headers=headers, open_timeout=SECONDS):  # type: ignore[arg-type]
                pass
        assert refused.value.response.status_code == 403, url
    # The server's own page is its origin: accepted.
    async with connect(_url(server), origin=f"http://{server.web_address}", open_timeout=SECONDS) as socket:  # type: ignore[arg-type]
        await socket.send(bytes((WATCH,)) + _watch("no-such-table"))
        frame = await asyncio.wait_for(socket.recv(), SECONDS)
        assert isinstance(frame, bytes)
        assert frame[0] == END
        assert json.loads(frame[1:])["error"]["code"] == "not_found"


async def test_a_closed_socket_gives_back_its_stream_and_its_seats_connection() -> None:
    limits = Limits(max_streams_per_client=1, actions_per_second=1000, action_burst=1000)
    async with web_server(limits) as server, Client(server.address) as client:
        table_id, tokens = await _two_seat_uno(client)
        table = server.registry.tables[table_id]
        async with seat_socket(server, table_id, tokens[0]) as ann:
            await ann.follower.first()
            assert table.seats[0].connections == 1
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await client.watch(table_id).read()
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        async with asyncio.timeout(SECONDS):
            while server.registry.backlog.open > 0 or table.seats[0].connections:
                await asyncio.sleep(0.02)
        first = await client.watch(table_id).read()
        assert first.update.table_id == table_id


async def test_an_open_socket_is_told_the_server_is_going_away_when_it_stops() -> None:
    """Told by an END frame (unavailable) if its Watch ends first, else by uvicorn's close 1012 (service
    restart): either way a client knows to reconnect, not that it was refused."""
    async with web_server() as server:
        async with Client(server.address) as client:
            table_id, _ = await _two_seat_uno(client)
        socket = await connect(_url(server), open_timeout=SECONDS)
        await socket.send(bytes((WATCH,)) + _watch(table_id))
        first = await asyncio.wait_for(socket.recv(), SECONDS)
        assert isinstance(first, bytes)
        assert first[0] == VIEW
        ending = asyncio.ensure_future(_until_closed(socket))
    frames, code = await ending
    ends = [json.loads(f[1:])["error"] for f in frames if isinstance(f, bytes) and f[0] == END]
    if code != 1012:  # the Watch's own goodbye came first
        assert code == 1000
        assert len(ends) == 1, frames
        assert ends[0]["code"] == "unavailable"
        assert "shutting down" in ends[0]["message"]
    await socket.close()


async def test_the_socket_is_never_compressed_even_when_the_client_offers_it(server: RunningServer) -> None:
    # The websockets client offers permessage-deflate by default; a browser does too.
    async with connect(_url(server), open_timeout=SECONDS) as socket:
        assert socket.request is not None
        assert socket.response is not None
        assert "permessage-deflate" in socket.request.headers.get("Sec-WebSocket-Extensions", "")
        assert socket.response.headers.get("Sec-WebSocket-Extensions") is None


async def test_an_act_sent_as_the_watch_ends_is_answered_before_the_end_or_not_applied(
    server: RunningServer, caplog: pytest.LogCaptureFixture
) -> None:
    """The WATCH (of a table that does not exist: it ends at once) and a legal ACT of another table in one
    write: either the Act is applied and answered before END, or it is not applied at all."""
    async with Client(server.address) as client:
        table_id, tokens = await _two_seat_uno(client)
        table = server.registry.tables[table_id]
        for _ in range(5):
            seat = table.engine.to_act(table.state)[0]
            view = messages.update_for(table, seat, table.version)
            before = table.version
            async with connect(_url(server), open_timeout=SECONDS, max_queue=None) as socket:
                await socket.send(bytes((HELLO,)) + tokens[seat].encode())
                await socket.send(bytes((WATCH,)) + _watch("no-such-table"))
                await socket.send(
                    bytes((ACT,)) + _act_request(table_id, before, view.legal_actions[0].id).SerializeToString()
                )
                received, code = await _until_closed(socket)
            kinds = [f[0] for f in received if isinstance(f, bytes)]
            assert code == 1000
            assert kinds[-1] == END, kinds
            if ACTED in kinds:
                assert kinds.index(ACTED) < kinds.index(END)
                assert table.version == before + 1
            else:
                assert table.version == before, "an Act not answered was not applied"
    assert not [r for r in caplog.records if "Exception in ASGI application" in r.getMessage()]


async def test_a_client_that_floods_pings_and_never_reads_is_no_longer_read_from(server: RunningServer) -> None:
    """uvicorn answers each ping at once; without flow control the server's buffer of pongs would grow as
    long as the client kept sending. With it the server stops reading, and the client's own buffer fills."""
    reader, writer = await asyncio.open_connection(*server.web_address.rsplit(":", 1))
    try:
        writer.write(
            (
                f"GET {SOCKET_PATH} HTTP/1.1\r\nhost: {server.web_address}\r\nupgrade: websocket\r\n"
                "connection: Upgrade\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                "sec-websocket-version: 13\r\n\r\n"
            ).encode()
        )
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), SECONDS)
        assert head.startswith(b"HTTP/1.1 101")
        ping = bytes((0x89, 0x80 | 125)) + b"\0\0\0\0" + b"p" * 125  # masked with a zero key
        burst = ping * 1000  # 131 KB of pings a write, never a byte read back
        async with asyncio.timeout(SECONDS * 3):
            while writer.transport.get_write_buffer_size() < 4 * 1024 * 1024:
                writer.write(burst)
                await asyncio.sleep(0)
        # The server stopped taking the client's bytes long before it had sent 4 MiB of them (the kernel's
        # buffers on both sides hold a few MiB at most): what it holds is bounded.
    finally:
        writer.close()


async def _first_view(server: RunningServer, path: str, token: str, table_id: str, language: str) -> table_pb2.Update:
    """The first update a seat's socket at `path` gets, its handshake asking for `language`."""
    url = _url(server, path)
    async with connect(url, open_timeout=SECONDS, additional_headers={"accept-language": language}) as socket:
        await socket.send(bytes((HELLO,)) + token.encode())
        await socket.send(bytes((WATCH,)) + _watch(table_id))
        seat = Seat(socket)
        try:
            return await seat.follower.first()
        finally:
            await seat.close()


async def test_the_sockets_lang_parameter_chooses_its_language_before_the_browsers_header(
    server: RunningServer,
) -> None:
    """A browser cannot set a WebSocket's headers: the page's language menu reaches the server as `?lang=`,
    which stands before the browser's accept-language; a language without a catalogue, or a query the page
    never sends, leaves the header to decide and breaks nothing."""
    async with Client(server.address) as client:
        table_id, tokens = await _two_seat_uno(client)
        english = await _first_view(server, SOCKET_PATH, tokens[0], table_id, "en-US")
        german = await _first_view(server, SOCKET_PATH, tokens[0], table_id, "de-DE")
        assert english.phase
        assert english.phase != german.phase, "the header alone must choose German"
        chosen = await _first_view(server, f"{SOCKET_PATH}?lang=de", tokens[0], table_id, "en-US")
        assert chosen == german
        assert await _first_view(server, f"{SOCKET_PATH}?lang=en", tokens[0], table_id, "de-DE") == english
        for query in ("lang=xx", "lang=%00%ff", "lang=", "x=1", "&".join(f"f{n}=1" for n in range(50))):
            assert await _first_view(server, f"{SOCKET_PATH}?{query}", tokens[0], table_id, "de-DE") == german, query
