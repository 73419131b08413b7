"""The browser's transport (issue #20): the Connect protocol over real HTTP onto the same service as gRPC.

A real server on loopback, its HTTP side on a free port, called with httpx (and `curl` once): what a browser
receives must equal what a gRPC client of the same viewer receives, and a refusal must carry the same code
and message as over gRPC and change nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import ssl
import subprocess
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import grpc
import httpx
import pytest
from web_helpers import ConnectError, WebClient

from conftest import TEST_LIMITS, start_serve, stop_process
from toadstool.api.v1 import service_pb2, table_pb2
from toadstool.server import messages, web
from toadstool.server.app import RunningServer, ServerConfig, running_server
from toadstool.server.limits import Limits
from toadstool_clients.connection import SEAT_TOKEN_KEY, Client

STEPS = 10
SECONDS = 10.0


@contextlib.asynccontextmanager
async def web_server(limits: Limits = TEST_LIMITS) -> AsyncIterator[RunningServer]:
    config = ServerConfig(host="127.0.0.1", port=0, web_port=0, bot_delay=0.0, grace=0.5, limits=limits)
    async with running_server(config) as running:
        yield running


@pytest.fixture
async def server() -> AsyncIterator[RunningServer]:
    async with web_server() as running:
        yield running


def base(server: RunningServer) -> str:
    return f"http://{server.web_address}"


def _plain(update: table_pb2.Update) -> table_pb2.Update:
    """The update less the seats' connection flags, which depend on which stream opened first."""
    copy = table_pb2.Update()
    copy.CopyFrom(update)
    for seat in copy.seats:
        seat.connected = False
    return copy


def _state(update: table_pb2.Update) -> table_pb2.Update:
    """`_plain`, less the events: a stream sends them once, in whichever message comes first (a seat's
    connecting may send a message of its own), so they are compared as the whole sequence a stream told."""
    copy = _plain(update)
    del copy.events[:]
    return copy


class Follower:
    """Reads one stream (gRPC or HTTP) into a list in the background."""

    def __init__(self, stream: AsyncIterator[service_pb2.WatchResponse]) -> None:
        self.updates: list[table_pb2.Update] = []
        self.changed = asyncio.Event()
        self.task = asyncio.ensure_future(self._read(stream))

    async def _read(self, stream: AsyncIterator[service_pb2.WatchResponse]) -> None:
        async for response in stream:
            self.updates.append(response.update)
            self.changed.set()

    async def at(self, version: int) -> table_pb2.Update:
        """The latest update once the stream has reached `version`."""
        return await self.until(lambda update: update.version >= version)

    async def until(self, reached: Callable[[table_pb2.Update], bool]) -> table_pb2.Update:
        """The latest update once one has `reached` what the test waits for."""
        async with asyncio.timeout(SECONDS):
            while not self.updates or not reached(self.updates[-1]):
                self.changed.clear()
                await self.changed.wait()
        return self.updates[-1]

    async def first(self) -> table_pb2.Update:
        await self.until(lambda update: True)
        return self.updates[0]

    async def close(self) -> None:
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError, httpx.HTTPError):
            await self.task


async def _grpc_stream(client: Client, table_id: str, token: str | None, since: int | None = None):  # type: ignore[no-untyped-def]
    async for response in client.watch(table_id, token, since):
        yield response


async def _two_seat_uno(client: Client) -> tuple[str, list[str]]:
    created = await client.create_table("uno", 2, bots=0, seed=7)
    table_id = created.table.table_id
    tokens = [(await client.join(table_id, name)).seat_token for name in ("Ann", "Bea")]
    return table_id, tokens


async def test_unary_calls_answer_the_same_in_json_in_binary_and_over_grpc(server: RunningServer) -> None:
    async with (
        Client(server.address) as client,
        WebClient(base(server)) as web,
        WebClient(base(server), "proto") as binary,
    ):
        over_grpc = await client.stub.ListGames(service_pb2.ListGamesRequest(), timeout=SECONDS)
        as_json = await web.call("ListGames", service_pb2.ListGamesRequest(), service_pb2.ListGamesResponse)
        as_proto = await binary.call("ListGames", service_pb2.ListGamesRequest(), service_pb2.ListGamesResponse)
        assert as_json == over_grpc
        assert as_proto == over_grpc
        created = await web.call(
            "CreateTable",
            service_pb2.CreateTableRequest(game="uno", players=2, bots=1, seed=3),
            service_pb2.CreateTableResponse,
        )
        table_id = created.table.table_id
        assert (await client.get_table(table_id)) == created.table
        joined = await binary.call(
            "JoinTable", service_pb2.JoinTableRequest(table_id=table_id, name="Ann"), service_pb2.JoinTableResponse
        )
        assert joined.seat == 0
        assert server.registry.tables[table_id].seat_of_token(joined.seat_token) == 0


async def test_every_message_a_browser_watch_receives_equals_the_grpc_watch_of_the_same_viewer(
    server: RunningServer,
) -> None:
    async with (
        Client(server.address) as client,
        WebClient(base(server)) as web,
        WebClient(base(server), "proto") as binary,
    ):
        table_id, tokens = await _two_seat_uno(client)
        viewers: list[str | None] = [tokens[0], tokens[1], None]
        pairs = [
            (
                Follower(_grpc_stream(client, table_id, token)),
                Follower((web if i != 1 else binary).watch(table_id, token)),
            )
            for i, token in enumerate(viewers)
        ]
        try:
            table = server.registry.tables[table_id]
            for step in range(STEPS + 1):
                version = table.version
                for grpc_side, web_side in pairs:
                    over_grpc, over_http = await grpc_side.at(version), await web_side.at(version)
                    assert _state(over_http) == _state(over_grpc), f"step {step}"
                seat = table.engine.to_act(table.state)[0]
                mine = await pairs[seat][1].at(version)
                assert mine.legal_actions, "the seat to act is offered its actions"
                assert all(not u.legal_actions for u in pairs[1 - seat][1].updates[-1:]), "the other seat waits"
                await web.call(
                    "Act",
                    service_pb2.ActRequest(
                        table_id=table_id,
                        version=version,
                        action_id=mine.legal_actions[0].id,
                        request_id=uuid.uuid4().hex,
                    ),
                    service_pb2.ActResponse,
                    token=tokens[seat],
                )
            for grpc_side, web_side in pairs:  # both sides of each pair have had the last move's message
                await grpc_side.at(table.version)
                await web_side.at(table.version)
            # A stream never skips events: the browser was told exactly what the gRPC viewer was told, in order,
            # and every message it got was for its own viewer (a spectator's never names a seat or offers moves).
            for (grpc_side, web_side), viewer in zip(pairs, (0, 1, None), strict=True):
                told = [event for update in web_side.updates for event in update.events]
                assert told == [event for update in grpc_side.updates for event in update.events]
                for update in web_side.updates:
                    assert (update.viewer_seat if update.HasField("viewer_seat") else None) == viewer
                    assert viewer is not None or not update.legal_actions
        finally:
            for grpc_side, web_side in pairs:
                await grpc_side.close()
                await web_side.close()


async def test_a_browser_resuming_from_a_version_and_a_second_joiner_get_what_grpc_gives(server: RunningServer) -> None:
    async with Client(server.address) as client, WebClient(base(server)) as web:
        created = await client.create_table("uno", 2, bots=0, seed=11)
        table_id = created.table.table_id
        first = (await client.join(table_id, "Ann")).seat_token
        early = Follower(web.watch(table_id, first))
        early_grpc = Follower(_grpc_stream(client, table_id, first))
        try:
            assert _plain(await early.first()) == _plain(await early_grpc.first())
            second = (await client.join(table_id, "Bea")).seat_token  # the second joiner starts the game
            table = server.registry.tables[table_id]

            def playing(update: table_pb2.Update) -> bool:
                return update.status == table_pb2.TABLE_STATUS_PLAYING

            assert _state(await early.until(playing)) == _state(await early_grpc.until(playing))
            late = Follower(web.watch(table_id, second))
            late_grpc = Follower(_grpc_stream(client, table_id, second))
            try:
                assert _plain(await late.first()) == _plain(await late_grpc.first())
                seat = table.engine.to_act(table.state)[0]
                actor = (await (late if seat == 1 else early).until(playing)).legal_actions[0].id
                since = table.version
                await client.act(table_id, (first, second)[seat], since, actor)
                assert table.version > since
            finally:
                await late.close()
                await late_grpc.close()
            for token in (first, second, None):
                resumed = Follower(web.watch(table_id, token, since=since))
                resumed_grpc = Follower(_grpc_stream(client, table_id, token, since))
                try:
                    assert _plain(await resumed.first()) == _plain(await resumed_grpc.first())
                    assert resumed.updates[0].events, "a resume carries the events since that version"
                finally:
                    await resumed.close()
                    await resumed_grpc.close()
        finally:
            await early.close()
            await early_grpc.close()


async def _grpc_refusal(call) -> tuple[grpc.StatusCode, str]:  # type: ignore[no-untyped-def]
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    return caught.value.code(), caught.value.details() or ""


async def _web_refusal(call) -> tuple[grpc.StatusCode, str]:  # type: ignore[no-untyped-def]
    with pytest.raises(ConnectError) as caught:
        await call
    return caught.value.code, caught.value.message


def _views(server: RunningServer, table_id: str) -> tuple[int, list[table_pb2.Update]]:
    table = server.registry.tables[table_id]
    return table.version, [_plain(messages.update_for(table, s, table.version)) for s in (0, 1, None)]


async def test_bad_input_over_http_gets_the_codes_and_messages_of_grpc_and_changes_nothing(
    server: RunningServer,
) -> None:
    async with (
        Client(server.address) as client,
        WebClient(base(server)) as web,
        WebClient(base(server), "proto") as binary,
    ):
        table_id, tokens = await _two_seat_uno(client)
        table = server.registry.tables[table_id]
        before = _views(server, table_id)
        seat = table.engine.to_act(table.state)[0]
        legal = messages.update_for(table, seat, table.version).legal_actions[0].id
        stub = client.stub

        def act(token: str | None, version: int, target: str = table_id) -> service_pb2.ActRequest:
            return service_pb2.ActRequest(
                table_id=target, version=version, action_id=legal, request_id=uuid.uuid4().hex
            )

        cases = [
            ("unknown table", act(tokens[seat], table.version, "nope"), tokens[seat]),
            ("no token", act(None, table.version), None),
            ("bad token", act("forged", table.version), "forged"),
            ("stale version", act(tokens[seat], table.version + 5), tokens[seat]),
            ("not your turn", act(tokens[1 - seat], table.version), tokens[1 - seat]),
        ]
        for what, request, token in cases:
            metadata = ((SEAT_TOKEN_KEY, token),) if token else None
            expected = await _grpc_refusal(stub.Act(request, metadata=metadata, timeout=SECONDS))
            for codec_client in (web, binary):
                got = await _web_refusal(codec_client.call("Act", request, service_pb2.ActResponse, token=token))
                assert got == expected, what
        # A body that is not protobuf: the same refusal as gRPC's (hardening.RefuseUndecodable).
        garbage = b"\xff\xff\xff\xff"
        raw_get_table = client.channel.unary_unary(
            "/toadstool.v1.ToadstoolService/GetTable",
            request_serializer=lambda raw: raw,
            response_deserializer=service_pb2.GetTableResponse.FromString,
        )
        expected = await _grpc_refusal(raw_get_table(garbage, timeout=SECONDS))
        response = await binary.raw("GetTable", garbage, {"content-type": "application/proto"})
        assert (response.status_code, response.json()["code"], response.json()["message"]) == (
            400,
            "invalid_argument",
            expected[1],
        )
        assert expected[0] == grpc.StatusCode.INVALID_ARGUMENT
        # Malformed JSON: the same code, saying what is wrong.
        response = await web.raw(
            "Act", b'{"tableId": ', {"content-type": "application/json", SEAT_TOKEN_KEY: tokens[seat]}
        )
        assert response.status_code == 400
        assert response.json()["code"] == "invalid_argument"
        assert "not valid JSON" in response.json()["message"]
        # Oversize: RESOURCE_EXHAUSTED in grpc-core's words, before the body is read to its end.
        big = service_pb2.JoinTableRequest(table_id=table_id, name="x" * (TEST_LIMITS.max_request_bytes + 10))
        code, message = await _grpc_refusal(stub.JoinTable(big, timeout=SECONDS))
        got_code, got_message = await _web_refusal(binary.call("JoinTable", big, service_pb2.JoinTableResponse))
        assert (got_code, code) == (grpc.StatusCode.RESOURCE_EXHAUSTED,) * 2
        assert re.sub(r"\d+", "N", got_message) == re.sub(r"\d+", "N", message)
        # Cross-origin: a page of another site may not call the API, even a harmless call.
        response = await web.raw(
            "ListGames", b"{}", {"content-type": "application/json", "origin": "http://evil.example"}
        )
        assert response.status_code == 403
        assert response.json()["code"] == "permission_denied"
        assert "cross-origin" in response.json()["message"]
        same_site = await web.raw("ListGames", b"{}", {"content-type": "application/json", "origin": base(server)})
        assert same_site.status_code == 200
        # A Watch refused (unknown table) ends its stream with the same error as gRPC's.
        expected = await _grpc_refusal(stub.Watch(service_pb2.WatchRequest(table_id="nope")).read())
        got = await _web_refusal(anext(web.watch("nope")))
        assert got == expected
        assert _views(server, table_id) == before


async def test_a_browsers_streams_count_against_the_same_per_client_limit_as_grpc() -> None:
    limits = Limits(max_streams_per_client=2, actions_per_second=1000, action_burst=1000)
    async with web_server(limits) as server, Client(server.address) as client, WebClient(base(server)) as web:
        table_id, _ = await _two_seat_uno(client)
        held = [Follower(_grpc_stream(client, table_id, None)), Follower(web.watch(table_id))]
        try:
            for follower in held:
                await follower.first()
            code, message = await _web_refusal(anext(web.watch(table_id)))
            assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "at most 2 open streams per client" in message
            assert await _grpc_refusal(client.watch(table_id).read()) == (code, message)
        finally:
            for follower in held:
                await follower.close()
        # Once the browser's stream is closed, its count is given back: a new one opens.
        async with asyncio.timeout(SECONDS):
            while server.registry.backlog.open > 0:
                await asyncio.sleep(0.02)
        first = await anext(web.watch(table_id))
        assert first.update.table_id == table_id


async def test_an_open_browser_watch_ends_with_unavailable_when_the_server_stops() -> None:
    async with web_server() as server:
        web = WebClient(base(server))
        client = Client(server.address)
        await client.__aenter__()
        table_id, _ = await _two_seat_uno(client)
        await client.__aexit__(None, None, None)
        stream = web.watch(table_id)
        first = await anext(stream)
        assert first.update.table_id == table_id
        ending = asyncio.ensure_future(anext(stream))
    with pytest.raises(ConnectError) as caught:
        await asyncio.wait_for(ending, SECONDS)
    assert caught.value.code == grpc.StatusCode.UNAVAILABLE
    assert "shutting down" in caught.value.message
    await web.__aexit__()


async def test_the_page_is_served_with_a_strict_content_security_policy_and_nothing_outside_it(
    server: RunningServer,
) -> None:
    async with httpx.AsyncClient(base_url=base(server), timeout=SECONDS) as http:
        page = await http.get("/")
        assert page.status_code in (200, 503)  # 503 only in a checkout whose web client is not built
        policy = page.headers["content-security-policy"]
        assert "script-src 'self'" in policy
        assert "frame-ancestors 'none'" in policy
        assert "unsafe-inline" not in policy
        assert page.headers["x-content-type-options"] == "nosniff"
        for path in ("/../pyproject.toml", "/%2e%2e/pyproject.toml", "/etc/passwd", "/index.html/../x"):
            assert (await http.get(path)).status_code == 404, path
        assert (await http.post("/", content=b"x")).status_code == 405
        assert (await http.get("/toadstool.v1.ToadstoolService/ListGames")).status_code == 405


def test_serve_prints_the_web_url_with_a_qr_code_and_answers_curl_there(tmp_path: Path) -> None:
    output = tmp_path / "serve.log"
    process, _ = start_serve("--no-db", "--no-announce", "--web-port", "0", output=output)
    try:
        printed = output.read_text()
        for _ in range(100):
            if "Play from a browser" in printed and "On the TV" in printed:
                break
            subprocess.run(["sleep", "0.05"], check=True, timeout=5)
            printed = output.read_text()
        web = re.search(r"Web client listening on (\S+:\d+)", printed)
        assert web, printed
        assert re.search(r"Play from a browser: http://127\.0\.0\.1:\d+/", printed), printed
        assert re.search(r"On the TV \(open in its browser\): http://127\.0\.0\.1:\d+/#/tv", printed), printed
        assert "▀" in printed or "█" in printed, "a QR code drawn with block characters"
        answer = subprocess.run(
            [
                "curl", "-sS", "-m", "5", "-H", "content-type: application/json", "-d", "{}",
                f"http://{web.group(1)}/toadstool.v1.ToadstoolService/ListGames",
            ],
            capture_output=True, text=True, timeout=10, check=True,
        )  # fmt: skip
        assert '"name": "uno"' in answer.stdout
    finally:
        stop_process(process)


def test_serve_with_no_web_opens_no_http_side(tmp_path: Path) -> None:
    output = tmp_path / "serve.log"
    process, _ = start_serve("--no-db", "--no-announce", "--no-web", output=output)
    try:
        assert "Web client" not in output.read_text()
        assert "Play from a browser" not in output.read_text()
    finally:
        stop_process(process)


async def test_with_a_tls_certificate_the_browser_side_speaks_https_only(tmp_path: Path) -> None:
    from test_tls import make_pair

    cert, key = await asyncio.to_thread(make_pair, tmp_path)
    config = ServerConfig(
        host="127.0.0.1", port=0, web_port=0, bot_delay=0.0, grace=0.5, tls_cert=str(cert), tls_key=str(key)
    )
    async with running_server(config) as running:
        assert running.web is not None
        assert running.web.tls
        async with httpx.AsyncClient(verify=ssl.create_default_context(cafile=str(cert)), timeout=SECONDS) as https:
            answer = await https.post(
                f"https://localhost:{running.web.port}/toadstool.v1.ToadstoolService/ListGames",
                content=b"{}",
                headers={"content-type": "application/json"},
            )
            assert answer.status_code == 200
            assert "uno" in answer.text
        async with httpx.AsyncClient(timeout=SECONDS) as plain:
            with pytest.raises(httpx.HTTPError):
                await plain.post(f"http://127.0.0.1:{running.web.port}/toadstool.v1.ToadstoolService/ListGames")


async def _head_answer(server: RunningServer, header_bytes: int) -> bytes:
    """What the server answers a ListGames whose one extra header is `header_bytes` long, sent whole."""
    host, port = server.web_address.rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(
            b"POST /toadstool.v1.ToadstoolService/ListGames HTTP/1.1\r\nHost: x\r\n"
            + b"X-Big: "
            + b"a" * header_bytes
            + b"\r\n"
            + b"content-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}"
        )
        await asyncio.wait_for(writer.drain(), SECONDS)
        return await asyncio.wait_for(reader.read(), SECONDS)
    finally:
        writer.close()


async def test_a_head_over_the_limit_is_answered_431_and_one_under_it_is_served(server: RunningServer) -> None:
    # httptools parses the browser's requests (uvicorn sets it no limit of its own); the guard's limit holds.
    assert web.web_http.protocol(web.MAX_HEADER_BYTES) != "h11"
    over = await _head_answer(server, web.MAX_HEADER_BYTES + 1024)
    assert over.startswith(b"HTTP/1.1 431 "), over[:80]
    assert b"too long" in over
    under = await _head_answer(server, web.MAX_HEADER_BYTES - 2048)
    assert under.startswith(b"HTTP/1.1 200 "), under[:80]
    assert b'"uno"' in under


LIST_GAMES = b"POST /toadstool.v1.ToadstoolService/ListGames HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n"


async def _flood(server: RunningServer, start: bytes, end: bytes = b"") -> bytes:
    """Send `start`, then 4 MiB of one header's (or trailer's) value, 256 times the limit, then `end`: what
    the server answered, or b"" when it closed the connection while the value was still being sent."""
    host, port = server.web_address.rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(start)
        for _ in range(64):
            writer.write(b"a" * web.MAX_HEADER_BYTES)
            await asyncio.wait_for(writer.drain(), SECONDS)
        writer.write(end)
        await asyncio.wait_for(writer.drain(), SECONDS)
        return await asyncio.wait_for(reader.read(100), SECONDS)
    except (ConnectionError, BrokenPipeError):
        return b""  # refused while still sending: the server closed the connection
    finally:
        writer.close()


async def test_a_request_with_headers_over_the_limit_is_refused_and_the_server_keeps_serving(
    server: RunningServer,
) -> None:
    # Whatever HTTP parser is installed beside uvicorn: a header block past the limit is answered 431 (400 by
    # h11), or the connection closed while it is still being sent, instead of read whole; the next request
    # is served.
    answer = await _flood(
        server,
        b"POST /toadstool.v1.ToadstoolService/ListGames HTTP/1.1\r\nHost: x\r\nX-Big: ",
        b"\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}",
    )
    assert not answer.startswith(b"HTTP/1.1 200"), answer
    async with WebClient(base(server)) as client:
        games = await client.call("ListGames", service_pb2.ListGamesRequest(), service_pb2.ListGamesResponse)
    assert games.games


async def test_an_endless_trailer_after_a_chunked_body_is_cut_off_and_the_server_keeps_serving(
    server: RunningServer,
) -> None:
    # Trailers are parsed as headers after the body's last chunk: one that never ends must not be kept whole.
    answer = await _flood(server, LIST_GAMES + b"transfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\nX-Trailer: ")
    assert answer == b"" or answer.startswith(b"HTTP/1.1 431 "), answer
    host, port = server.web_address.rsplit(":", 1)
    # A chunked request with a trailer of a sensible size is answered.
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(
            LIST_GAMES + b"transfer-encoding: chunked\r\nconnection: close\r\n\r\n2\r\n{}\r\n0\r\nX-T: 1\r\n\r\n"
        )
        answer = await asyncio.wait_for(reader.read(), SECONDS)
    finally:
        writer.close()
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:80]


async def test_pipelined_requests_in_one_write_are_all_answered_whatever_their_total_size(
    server: RunningServer,
) -> None:
    # Requests sent back to back count one by one against the head limit: neither a large body before a
    # request nor many small requests in one read make the next one look too large.
    one = LIST_GAMES + b"content-length: 2\r\n\r\n{}"
    padded = b"{" + b" " * (web.MAX_HEADER_BYTES + 4096) + b"}"
    large = LIST_GAMES + f"content-length: {len(padded)}\r\n\r\n".encode() + padded
    host, port = server.web_address.rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        batch = large + one * 300
        last = one.replace(b"\r\n\r\n", b"\r\nconnection: close\r\n\r\n")
        writer.write(batch + last[:20])  # the last request's head split across two writes
        await asyncio.wait_for(writer.drain(), SECONDS)
        await asyncio.sleep(0.05)
        writer.write(last[20:])
        answer = await asyncio.wait_for(reader.read(), SECONDS * 3)
    finally:
        writer.close()
    assert b" 431 " not in answer
    assert answer.count(b"HTTP/1.1 200 ") == 302


async def test_a_client_that_expects_100_continue_is_told_to_go_on_then_answered(server: RunningServer) -> None:
    # Under httptools (web_http) as under h11: the interim answer comes before the body it invites is sent.
    host, port = server.web_address.rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(
            b"POST /toadstool.v1.ToadstoolService/ListGames HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
            b"content-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n"
        )
        await asyncio.wait_for(writer.drain(), SECONDS)
        interim = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), SECONDS)
        assert interim == b"HTTP/1.1 100 Continue\r\n\r\n"
        writer.write(b"{}")
        answer = await asyncio.wait_for(reader.read(), SECONDS)
    finally:
        writer.close()
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:80]
    assert b'"uno"' in answer
