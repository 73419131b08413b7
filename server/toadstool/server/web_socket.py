"""A seat's Watch and Acts on one WebSocket: the browser's lighter transport, beside Connect.

Why: over Connect on HTTP/1.1 every Act is a request of its own (its head parsed, an ASGI task, a response
cycle with a keep-alive timer, a head and a body written), and a move's Act answer goes out on a second
connection beside the seat's Watch stream. On one WebSocket an Act is a frame in and a frame out. Measured
against Connect under bench/load.py's people-acting load at 250 tables: server CPU per move 0.87 to 0.94,
and 0.77 to 0.85 while paced (docs/benchmarks.md, round 7).

The socket is at `SOCKET_PATH` on the browser's HTTP side, and speaks binary frames only, each one byte of
kind and then its payload (docs/custom-clients.md has the full protocol):

- client to server: `HELLO` (the seat token in UTF-8, optional, and only as the first frame: a browser
  cannot set a WebSocket's headers; other clients may send the token as the handshake's `x-seat-token`
  header instead), `WATCH` (a WatchRequest: at most one per socket, within `WATCH_WAIT_SECONDS` of the
  socket opening), `ACT` (an ActRequest; answered before the next frame is read);
- server to client: `VIEW` (a WatchResponse), `ACTED` (an ActResponse), `ACT_REFUSED` (a refused Act, as
  Connect's JSON error: the socket stays open), `END` (the Watch stream's end, as Connect's end-of-stream
  JSON, then the socket closes; an Act being handled is answered first), `REFUSED` (a frame that breaks the
  protocol, the same JSON, then the socket closes with code 1008).

The service, its limits and its refusals are the ones gRPC and Connect reach: the seat token and the
handshake's accept-language (the language of the socket's updates and refusals) reach it as the same
metadata. A page of another site is refused at the handshake (uvicorn answers 403), a frame over the request
limit closes the socket (1009, by uvicorn's `ws_max_size`), a client that stops reading is stopped being read
from (`socket_protocol`), and uvicorn's pings close the socket of a peer that went away, which ends its Watch
and gives back its stream.

The language: a browser cannot set a WebSocket's headers, and its person may have chosen another language in
the page than the browser's, so the URL's `lang` parameter (`?lang=de`) stands before the handshake's
accept-language when it names a language the server has texts in (`with_chosen_language`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any
from urllib.parse import parse_qs

import grpc
from google.protobuf.message import DecodeError, Message

from toadstool.api import SEAT_TOKEN_KEY
from toadstool.api.scopes import TaskScope
from toadstool.i18n import ACCEPT_LANGUAGE, Text, negotiate, tr
from toadstool.server.web_transport import (
    PREFIX,
    Procedure,
    Receive,
    Scope,
    Send,
    WebAbort,
    WebContext,
    cross_origin,
    error_body,
    headers_of,
    message_bytes,
    peer_of,
)

log = logging.getLogger(__name__)

SOCKET_PATH = f"{PREFIX}socket"
#: Frame kinds, client to server.
HELLO, WATCH, ACT = 0x00, 0x01, 0x02
#: Frame kinds, server to client.
VIEW, ACTED, ACT_REFUSED, END, REFUSED = 0x01, 0x02, 0x03, 0x04, 0x05
#: The close code after a frame that breaks the protocol (RFC 6455: policy violation).
POLICY_VIOLATION = 1008
#: How long a socket may stay open without its WATCH: as long as uvicorn keeps an idle HTTP connection, so
#: a socket is no better way to hold connections open for nothing.
WATCH_WAIT_SECONDS = 5.0


def error_json(abort: WebAbort) -> bytes:
    """A refusal as Connect's JSON error, encoded."""
    return json.dumps(error_body(abort)).encode()


class _Broken(Exception):
    """A frame that breaks the protocol: said in a REFUSED frame (in the socket's language), then the socket
    closes."""

    def __init__(self, text: Text) -> None:
        super().__init__(str(text))
        self.text = text

    def abort_in(self, language: str) -> WebAbort:
        return WebAbort(grpc.StatusCode.INVALID_ARGUMENT, self.text.said_in(language))


class SeatSocket:
    """One accepted WebSocket: its frames read in order, its Watch pumped by a task of its own in `tasks`,
    the socket's scope (`serve_socket`), which is left, the pump cancelled, when the socket ends."""

    def __init__(
        self,
        act: Procedure,
        watch: Procedure,
        headers: dict[str, str],
        peer: str,
        send: Send,
        language: str,
        tasks: TaskScope,
    ) -> None:
        self.act, self.watch, self._send, self.tasks = act, watch, send, tasks
        self.headers, self.peer = headers, peer
        self.context = WebContext(self.headers, self.peer)
        #: The language of the socket's own refusals (the service's say theirs by the same header).
        self.language = language
        self.frames = 0
        self.pump: asyncio.Task[None] | None = None
        #: Held while an Act is handled and answered: the Watch's end waits for it, so an applied Act is
        #: always answered before END, and no Act is applied once the socket is closing.
        self.acting = asyncio.Lock()
        self.closed = False

    async def send_frame(self, kind: int, payload: bytes) -> None:
        """One frame to the client, unless the socket is already closing (then it is dropped)."""
        if not self.closed:
            await self._send({"type": "websocket.send", "bytes": bytes((kind,)) + payload})

    async def close_with(self, kind: int, payload: bytes, code: int) -> None:
        """A last frame, then the close (once: whoever ends the socket first)."""
        if not self.closed:
            await self.send_frame(kind, payload)
            self.closed = True
            await self._send({"type": "websocket.close", "code": code})

    async def frame(self, data: bytes) -> None:
        """One frame from the client."""
        self.frames += 1
        kind, payload = data[0], data[1:]
        if kind == ACT:
            await self._act(payload)
        elif kind == WATCH:
            if self.pump is not None:
                raise _Broken(tr("a socket carries one Watch; open another socket for another table"))
            self.pump = self.tasks.create_task(self._pump(_decode(self.watch, payload)))
        elif kind == HELLO:
            if self.frames != 1:
                raise _Broken(tr("the HELLO frame (the seat token) can only be the socket's first"))
            try:
                token = payload.decode("utf-8")
            except UnicodeDecodeError:
                raise _Broken(tr("the HELLO frame's seat token is not UTF-8")) from None
            self.context = WebContext({**self.headers, SEAT_TOKEN_KEY: token}, self.peer)
        else:
            raise _Broken(tr("no such frame kind: {kind} (1 WATCH, 2 ACT, 0 HELLO)", kind=kind))

    async def _act(self, payload: bytes) -> None:
        async with self.acting:
            if self.closed:
                return  # the Watch ended first: nothing more is applied on this socket
            try:
                request = _decode(self.act, payload)
            except _Broken as broken:
                await self.send_frame(ACT_REFUSED, error_json(broken.abort_in(self.language)))
                return
            try:
                response = await self.act.handler(request, self.context)
            except WebAbort as abort:
                await self.send_frame(ACT_REFUSED, error_json(abort))
            else:
                await self.send_frame(ACTED, message_bytes(response))

    async def _pump(self, request: Message) -> None:
        """The Watch's messages as VIEW frames; its end as an END frame, then the socket closes. A failure
        ends only the pump, never the socket's reader (it reads on until the peer goes): the peer gone while
        a frame was sent (uvicorn's ClientDisconnected, an OSError) quietly, anything else logged."""
        try:
            ending: dict[str, Any] = {}
            responses: AsyncIterator[Any] = self.watch.handler(request, self.context)
            try:
                async for response in responses:
                    await self.send_frame(VIEW, message_bytes(response))
            except WebAbort as abort:
                ending["error"] = error_body(abort)
            finally:
                await responses.aclose()  # type: ignore[attr-defined]
            async with self.acting:
                await self.close_with(END, json.dumps(ending).encode(), 1000)
        except OSError:
            pass
        except Exception:
            log.exception("the Watch of a WebSocket from %s failed", self.peer)


def _decode(procedure: Procedure, payload: bytes) -> Message:
    request = procedure.request_type()
    try:
        request.ParseFromString(payload)
    except DecodeError as error:
        raise _Broken(
            tr(
                "the {frame} frame is not a valid {message}: {error}",
                frame=procedure.name,
                message=request.DESCRIPTOR.name,
                error=error,
            )
        ) from None
    return request


#: The query parameter naming the socket's language (the page's language menu), before accept-language.
LANGUAGE_PARAMETER = "lang"


def with_chosen_language(headers: dict[str, str], scope: Scope) -> dict[str, str]:
    """`headers`, with the language the socket's URL chose (`?lang=de`) as their accept-language: the page's
    language menu reaches the server this way. A language the server has no texts in, or a value that is no
    language tag, leaves the handshake's own accept-language to decide: never an error."""
    query = scope.get("query_string", b"")
    if not query:
        return headers
    try:
        chosen = parse_qs(query.decode("latin-1"), max_num_fields=8).get(LANGUAGE_PARAMETER)
    except ValueError:  # more fields than any page of ours sends: the header decides
        return headers
    if chosen:
        language = negotiate(chosen[-1], default="")
        if language:
            headers[ACCEPT_LANGUAGE] = language
    return headers


async def serve_socket(
    procedures: dict[str, Procedure],
    scope: Scope,
    receive: Receive,
    send: Send,
    language_of: Callable[[WebContext], str],
) -> None:
    """The ASGI application of one WebSocket at SOCKET_PATH; `language_of` chooses its language (the
    service's `language_of`) from the handshake's headers."""
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    headers = with_chosen_language(headers_of(scope), scope)
    if cross_origin(scope, headers) is not None:
        await send({"type": "websocket.close", "code": POLICY_VIOLATION})  # before accept: uvicorn answers 403
        return
    await send({"type": "websocket.accept"})
    peer = peer_of(scope)
    language = language_of(WebContext(headers, peer))
    watch_by = asyncio.get_running_loop().time() + WATCH_WAIT_SECONDS
    # The socket's scope: this reader and the Watch's pump. Leaving it (the peer gone, a broken frame, the
    # Watch's end) cancels the pump: its stream's count and its seat's connection are given back.
    async with TaskScope() as tasks:
        seat = SeatSocket(
            procedures[f"{PREFIX}Act"], procedures[f"{PREFIX}Watch"], headers, peer, send, language, tasks
        )
        await _read_frames(seat, receive, watch_by)


async def _read_frames(seat: SeatSocket, receive: Receive, watch_by: float) -> None:
    """The socket's frames in order, until the peer goes or a frame breaks the protocol."""
    try:
        while True:
            try:
                # Once watching, `receive` itself: no wrapper coroutine waits in every socket between frames.
                message = await (receive() if seat.pump is not None else _before_watch(receive, watch_by))
                if message["type"] == "websocket.disconnect":
                    return
                data = message.get("bytes")
                if not data:
                    raise _Broken(tr("frames are binary, one byte of kind and then the message"))
                await seat.frame(data)
            except _Broken as broken:
                await seat.close_with(REFUSED, error_json(broken.abort_in(seat.language)), POLICY_VIOLATION)
                return
    except OSError:  # uvicorn's ClientDisconnected: the peer went while an answer was being sent
        return


async def _before_watch(receive: Receive, deadline: float) -> Any:
    """The socket's next ASGI message before its WATCH: only until `deadline` (loop time)."""
    try:
        async with asyncio.timeout_at(deadline):
            return await receive()
    except TimeoutError:
        raise _Broken(
            tr("no WATCH frame in the socket's first {seconds} s", seconds=format(WATCH_WAIT_SECONDS, "g"))
        ) from None


def socket_protocol() -> type[asyncio.Protocol]:
    """uvicorn's sans-I/O WebSocket protocol, reading nothing more while its writes wait for the client.

    uvicorn pauses reading after each data frame until the app takes it, but answers a ping at once
    without waiting for the write buffer to drain: a client that sends pings and never reads would grow
    the server's buffer without limit. Here reading also pauses while the transport's buffer is over its
    high-water mark, as the HTTP side's flow control does, so what a client can make the server hold is
    bounded by that mark.
    """
    import websockets  # noqa: F401  (a dependency of ours: uvicorn's protocol below is built on it)
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

    class FlowControlledSocket(WebSocketsSansIOProtocol):
        def pause_writing(self) -> None:
            super().pause_writing()
            self.transport.pause_reading()

        def resume_writing(self) -> None:
            super().resume_writing()
            if not self.read_paused:  # else uvicorn resumes it when the app takes the queued frame
                self.transport.resume_reading()

    return FlowControlledSocket
