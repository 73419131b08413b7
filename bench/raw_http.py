"""A seat's HTTP/1.1 connections written by hand on asyncio streams: the cheapest client of the Connect API
(and of the seat's WebSocket, `SocketSeat`), so that bench/connect_load.py can tell the server's cost of the
browser's transports from a client library's.

Why: on a shared two-core machine the load processes take CPU from the server, and httpx (pure Python: h11,
httpcore, anyio) spends about twice gRPC's C core per message; a browser's network stack is native code.
This client does only what the benchmark needs of the protocol: keep-alive POSTs with a Content-Length, a
response read by its Content-Length or its chunked body. No TLS, no redirects, no proxies, no pooling: one
connection for the seat's Watch stream and one for its Acts, as a browser tab has. Not for anything else.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import struct
from collections.abc import AsyncIterator

from toadstool.api import SEAT_TOKEN_KEY
from toadstool.server.web_socket import ACT, ACTED, HELLO, SOCKET_PATH, VIEW, WATCH


class HttpError(Exception):
    """The connection or the response was not what HTTP/1.1 says."""


async def _close(writer: asyncio.StreamWriter | None) -> None:
    """Close a connection's writer, if open, and wait for it (a peer already gone is no error)."""
    if writer is not None:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()


class _Connection:
    """One keep-alive HTTP/1.1 connection, opened on first use."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        #: How the current response's body is framed: its Content-Length, or chunked.
        self.length: int | None = None
        self.chunked = False

    async def request(self, path: str, content_type: str, body: bytes, headers: dict[str, str]) -> int:
        """Send one POST and read the response's head: its status (the body is read next). A kept-alive
        connection the server closed meanwhile (uvicorn closes one idle for 5 s) is opened again and the
        request sent once more, as a browser does."""
        reused = self.writer is not None and not self.writer.is_closing()
        if reused and self.reader is not None and self.reader.at_eof():
            await self.close()
            reused = False
        if not reused:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        try:
            return await self._send(path, content_type, body, headers)
        except HttpError:
            if not reused:
                raise
        await self.close()
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        return await self._send(path, content_type, body, headers)

    async def _send(self, path: str, content_type: str, body: bytes, headers: dict[str, str]) -> int:
        assert self.writer is not None
        lines = [
            f"POST {path} HTTP/1.1",
            f"host: {self.host}:{self.port}",
            f"content-type: {content_type}",
            f"content-length: {len(body)}",
            *(f"{key}: {value}" for key, value in headers.items()),
        ]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
        assert self.reader is not None
        try:
            head = await self.reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError) as error:
            raise HttpError(f"no response head: {error!r}") from None
        status_line, *fields = head.decode("latin-1").split("\r\n")
        parts = status_line.split(" ", 2)
        if len(parts) < 2 or not parts[1].isdigit():
            raise HttpError(f"not an HTTP status line: {status_line!r}")
        self.length, self.chunked = None, False
        for field in fields:
            key, _, value = field.partition(":")
            key, value = key.strip().lower(), value.strip()
            if key == "content-length":
                self.length = int(value)
            elif key == "transfer-encoding" and "chunked" in value.lower():
                self.chunked = True
        return int(parts[1])

    async def body(self) -> bytes:
        """The whole body of the response whose head `request` read."""
        return b"".join([chunk async for chunk in self.chunks()])

    async def chunks(self) -> AsyncIterator[bytes]:
        """The body as it comes: one piece per chunk of a chunked body, else the Content-Length's bytes."""
        assert self.reader is not None
        try:
            if not self.chunked:
                if self.length:
                    yield await self.reader.readexactly(self.length)
                return
            while True:
                size_line = await self.reader.readuntil(b"\r\n")
                size = int(size_line.split(b";", 1)[0], 16)
                if size == 0:
                    await self.reader.readuntil(b"\r\n")  # no trailers: the empty line that ends the body
                    return
                data = await self.reader.readexactly(size + 2)
                yield data[:-2]
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as error:
            raise HttpError(f"the body broke off: {error!r}") from None

    async def close(self) -> None:
        writer, self.writer = self.writer, None
        await _close(writer)


class RawSeat:
    """A seat's two connections: `watch` holds one for its stream, `post` uses the other."""

    def __init__(self, host: str, port: int) -> None:
        self._stream = _Connection(host, port)
        self._unary = _Connection(host, port)

    async def post(self, path: str, content_type: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        """A unary call: its status and body."""
        status = await self._unary.request(path, content_type, body, headers)
        return status, await self._unary.body()

    async def watch(
        self, path: str, content_type: str, body: bytes, headers: dict[str, str]
    ) -> tuple[int, AsyncIterator[bytes]]:
        """A streaming call: its status and its body's pieces as they arrive."""
        status = await self._stream.request(path, content_type, body, headers)
        return status, self._stream.chunks()

    async def close(self) -> None:
        await asyncio.gather(self._stream.close(), self._unary.close())


class SocketSeat:
    """A seat's one WebSocket (toadstool.server.web_socket): `watch` opens it (HELLO with the seat token,
    then WATCH) and yields its views as Connect envelopes, so that ConnectWorker reads both transports
    alike; `post` sends an ACT frame and waits for the frame that answers it, which the same reader hands
    over. Client frames are masked with a zero key (RFC 6455 wants a random one against proxies' caches;
    there is no proxy on loopback, and a zero mask leaves the payload as it is)."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.answer: asyncio.Future[bytes] | None = None

    @staticmethod
    def _frame(payload: bytes) -> bytes:
        n = len(payload)
        if n < 126:
            head = bytes((0x82, 0x80 | n))
        elif n < 1 << 16:
            head = bytes((0x82, 0x80 | 126)) + n.to_bytes(2, "big")
        else:
            head = bytes((0x82, 0x80 | 127)) + n.to_bytes(8, "big")
        return head + b"\0\0\0\0" + payload

    async def post(self, path: str, content_type: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        """An Act (whatever `path` says: the socket carries only Acts): 200 and the ActResponse, or 400 and
        the refusal's JSON."""
        if self.writer is None:
            raise HttpError("the socket is not open: its Watch opens it")
        self.answer = asyncio.get_running_loop().create_future()
        self.writer.write(self._frame(bytes((ACT,)) + body))
        data = await self.answer
        return (200 if data[0] == ACTED else 400), data[1:]

    async def watch(
        self, path: str, content_type: str, body: bytes, headers: dict[str, str]
    ) -> tuple[int, AsyncIterator[bytes]]:
        """Open the socket and its Watch (`body`: the Connect envelope of a WatchRequest)."""
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [
            f"GET {SOCKET_PATH} HTTP/1.1",
            f"host: {self.host}:{self.port}",
            "upgrade: websocket",
            "connection: Upgrade",
            f"sec-websocket-key: {key}",
            "sec-websocket-version: 13",
        ]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        try:
            head = await self.reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError) as error:
            raise HttpError(f"no handshake answer: {error!r}") from None
        status = int(head.split(b" ", 2)[1])
        if status != 101:
            raise HttpError(f"the handshake was answered {status}")
        token = headers.get(SEAT_TOKEN_KEY)
        if token:
            self.writer.write(self._frame(bytes((HELLO,)) + token.encode()))
        self.writer.write(self._frame(bytes((WATCH,)) + body[5:]))
        return 200, self._views()

    async def _views(self) -> AsyncIterator[bytes]:
        """The VIEW frames as Connect envelopes; the others answer `post`; a close ends it."""
        assert self.reader is not None
        read = self.reader.readexactly
        envelope = struct.Struct(">BI").pack
        try:
            while True:
                first, second = await read(2)
                n = second & 0x7F
                if n == 126:
                    n = int.from_bytes(await read(2), "big")
                elif n == 127:
                    n = int.from_bytes(await read(8), "big")
                data = await read(n)
                opcode = first & 0x0F
                if opcode == 0x8:  # close
                    return
                if opcode == 0x9:  # uvicorn's ping (every 20 s): a pong, or it closes the socket
                    assert self.writer is not None
                    self.writer.write(bytes((0x8A, 0x80 | n)) + b"\0\0\0\0" + data)
                    continue
                if opcode == 0xA:
                    continue
                if data[0] == VIEW:
                    yield envelope(0, n - 1) + data[1:]
                elif self.answer is not None and not self.answer.done():
                    self.answer.set_result(data)
        except (asyncio.IncompleteReadError, ConnectionError) as error:
            raise HttpError(f"the socket broke off: {error!r}") from None
        finally:  # an Act still waiting for its answer gets none now
            if self.answer is not None and not self.answer.done():
                self.answer.set_exception(HttpError("the socket closed before the Act was answered"))

    async def close(self) -> None:
        writer, self.writer = self.writer, None
        await _close(writer)
