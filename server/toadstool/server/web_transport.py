"""The browser's transport: the Connect protocol over HTTP/1.1 onto the same `ToadstoolService` as gRPC.

Connect (connectrpc.com/docs/protocol) is plain HTTP: a unary call is a POST of one message (JSON or
binary protobuf) answered with one message or a JSON error; a server stream (Watch, GetHistory) is a POST of
one enveloped message answered with enveloped messages and an end-of-stream envelope that carries the error,
if any. So `curl` works, and the browser's generated client (@connectrpc/connect-web) speaks it.

This module adapts requests; it decides nothing. Each call goes to the very method gRPC calls, with a
`WebContext` standing in for grpc.aio's context (the token and accept-language headers as metadata, the
peer as the limits know it, `abort` as an exception), so the validation ladder, the error adapter
(`service._maps_errors`), the limits and the one way out for views (toadstool.server.messages) are the gRPC
path's own. It is not for static files (toadstool.server.web_assets) nor for starting the HTTP server
(toadstool.server.web).

Written here rather than taken from a library: connect-python 0.9 (beta) re-encoded every message through
its codec, which would undo Watch's shared pre-serialised views; its successor connectrpc 0.13 can pass them
through, but served the same calls with 1.1 to 1.5 times the server CPU per move (bench/connectrpc_compare.py,
docs/design.md §8.1). This adapter is the two call shapes the service uses.
"""

from __future__ import annotations

import asyncio
import json
import struct
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

import grpc
from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message
from google.protobuf.message_factory import GetMessageClass

from toadstool.api import DEVICE_TOKEN_KEY, HOST_TOKEN_KEY, SEAT_TOKEN_KEY
from toadstool.api.scopes import TaskScope
from toadstool.api.v1 import service_pb2
from toadstool.i18n import ACCEPT_LANGUAGE, Text, said, tr
from toadstool.server.service import ToadstoolService

Scope = Mapping[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

SERVICE = service_pb2.DESCRIPTOR.services_by_name["ToadstoolService"]
#: Every RPC is a POST under this path: /toadstool.v1.ToadstoolService/Method.
PREFIX = f"/{SERVICE.full_name}/"
#: The headers that carry tokens: the same keys as gRPC metadata, never a URL's query.
TOKEN_KEYS = (SEAT_TOKEN_KEY, HOST_TOKEN_KEY, DEVICE_TOKEN_KEY)
#: The headers the service reads as metadata: the tokens, and the languages the caller reads.
METADATA_KEYS = (*TOKEN_KEYS, ACCEPT_LANGUAGE)

UNARY_TYPES = {"application/json": "json", "application/proto": "proto"}
STREAM_TYPES = {"application/connect+json": "json", "application/connect+proto": "proto"}
END_STREAM = 0x02
COMPRESSED = 0x01

#: gRPC's codes as Connect names them, with the HTTP status a unary error answers with (the protocol's table).
CONNECT_CODES: dict[grpc.StatusCode, tuple[str, int]] = {
    grpc.StatusCode.CANCELLED: ("canceled", 499),
    grpc.StatusCode.UNKNOWN: ("unknown", 500),
    grpc.StatusCode.INVALID_ARGUMENT: ("invalid_argument", 400),
    grpc.StatusCode.DEADLINE_EXCEEDED: ("deadline_exceeded", 504),
    grpc.StatusCode.NOT_FOUND: ("not_found", 404),
    grpc.StatusCode.ALREADY_EXISTS: ("already_exists", 409),
    grpc.StatusCode.PERMISSION_DENIED: ("permission_denied", 403),
    grpc.StatusCode.RESOURCE_EXHAUSTED: ("resource_exhausted", 429),
    grpc.StatusCode.FAILED_PRECONDITION: ("failed_precondition", 400),
    grpc.StatusCode.ABORTED: ("aborted", 409),
    grpc.StatusCode.OUT_OF_RANGE: ("out_of_range", 400),
    grpc.StatusCode.UNIMPLEMENTED: ("unimplemented", 501),
    grpc.StatusCode.INTERNAL: ("internal", 500),
    grpc.StatusCode.UNAVAILABLE: ("unavailable", 503),
    grpc.StatusCode.DATA_LOSS: ("data_loss", 500),
    grpc.StatusCode.UNAUTHENTICATED: ("unauthenticated", 401),
}

#: Sent with every answer of the API: nothing is cached, nothing sniffed, no page may frame it.
API_HEADERS = (
    (b"cache-control", b"no-store"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)


class WebAbort(grpc.aio.AbortError):  # type: ignore[misc]
    """How `WebContext.abort` ends a call: a grpc.aio abort, so the service's error adapter lets it pass
    exactly as it lets a real gRPC abort pass, carrying the code and message to answer with."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(details)
        self.code = code
        self.details = details


@dataclass(frozen=True)
class _Metadatum:
    key: str
    value: str


class WebContext:
    """The part of grpc.aio.ServicerContext the service reads: metadata (the token headers and
    accept-language), the peer (`ipv4:ADDRESS:PORT`, so `limits.client_of` counts a browser and a gRPC client
    on one machine as one client), and `abort`."""

    def __init__(self, headers: Mapping[str, str], peer: str) -> None:
        self._metadata = tuple(_Metadatum(key, headers[key]) for key in METADATA_KEYS if headers.get(key))
        self._peer = peer

    def invocation_metadata(self) -> tuple[_Metadatum, ...]:
        return self._metadata

    def peer(self) -> str:
        return self._peer

    async def abort(self, code: grpc.StatusCode, details: str = "") -> NoReturn:
        raise WebAbort(code, details)


@dataclass(frozen=True)
class Procedure:
    """One RPC of the service: its request and response types, whether it streams, and its handler."""

    name: str
    request_type: type[Message]
    response_type: type[Message]
    streams: bool
    handler: Callable[..., Any]


def procedures(service: ToadstoolService) -> dict[str, Procedure]:
    """The service's RPCs by URL path, read from the contract's descriptor (so a new RPC needs no change here)."""
    found = {}
    for method in SERVICE.methods:
        if method.client_streaming:
            continue  # Connect over HTTP/1.1 cannot stream requests: Play is gRPC's (the browser has the socket)
        found[PREFIX + method.name] = Procedure(
            name=method.name,
            request_type=GetMessageClass(method.input_type),
            response_type=GetMessageClass(method.output_type),
            streams=method.server_streaming,
            handler=getattr(service, method.name),
        )
    return found


def peer_of(scope: Scope) -> str:
    """The caller as gRPC would name it ("ipv4:10.0.0.5:51234"), so both transports share per-client limits."""
    client = scope.get("client")
    if not client:
        return "unknown"
    host, port = client[0], client[1]
    return f"ipv6:[{host}]:{port}" if ":" in host else f"ipv4:{host}:{port}"


def headers_of(scope: Scope) -> dict[str, str]:
    return {key.decode("latin-1").lower(): value.decode("latin-1") for key, value in scope.get("headers", ())}


#: The scheme of the page a WebSocket's scheme belongs to.
WEB_SCHEMES = {"ws": "http", "wss": "https"}


def cross_origin(scope: Scope, headers: Mapping[str, str]) -> Text | None:
    """The refusal of a request from another site's page, or None: a browser names the page's origin, which
    must be this server's own (programs such as curl send none). The browser's own verdict (Sec-Fetch-Site)
    counts too."""
    if headers.get("sec-fetch-site") == "cross-site":
        return tr("cross-origin requests are refused (a page of another site): open the page this server serves")
    origin = headers.get("origin")
    if origin is None:
        return None
    scheme = scope.get("scheme", "http")
    # A WebSocket's scope says ws or wss; the page that opened it is http's or https's.
    own = f"{WEB_SCHEMES.get(scheme, scheme)}://{headers.get('host', '')}"
    if origin == own:
        return None
    return tr(
        "cross-origin requests are refused (the page at {origin}): open the page this server serves",
        origin=repr(origin),
    )


def envelope(flags: int, data: bytes) -> bytes:
    return struct.pack(">BI", flags, len(data)) + data


def error_body(abort: WebAbort) -> dict[str, str]:
    """A refusal as Connect's JSON error: {"code": "not_found", "message": "..."}."""
    return {"code": CONNECT_CODES[abort.code][0], "message": abort.details}


def message_bytes(response: Message | bytes) -> bytes:
    """A response's protobuf bytes (Watch's views come already serialised)."""
    return response if isinstance(response, bytes) else response.SerializeToString()


def end_of_stream(error: WebAbort | None) -> bytes:
    body: dict[str, Any] = {}
    if error is not None:
        body["error"] = error_body(error)
    return envelope(END_STREAM, json.dumps(body).encode())


class Refused(Exception):
    """A request refused before it reaches the service (its framing, size or origin): status and message,
    the message said in the caller's language by `abort_in`."""

    def __init__(self, code: grpc.StatusCode, text: Text | str, http_status: int | None = None) -> None:
        super().__init__(str(text))
        self.code, self.text = code, text
        self.http_status = http_status

    def abort_in(self, language: str) -> WebAbort:
        return WebAbort(self.code, said(self.text, language))


class ConnectApp:
    """The ASGI application of the API: Connect unary and server-streaming calls onto `ToadstoolService`."""

    def __init__(self, service: ToadstoolService) -> None:
        self.service = service
        self.procedures = procedures(service)
        self.max_bytes = service.guard.limits.max_request_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = headers_of(scope)
        context = WebContext(headers, peer_of(scope))
        procedure = self.procedures.get(scope["path"])
        try:
            if procedure is None:
                raise Refused(grpc.StatusCode.UNIMPLEMENTED, tr("no such procedure: {path}", path=scope["path"]), 404)
            if scope["method"] != "POST":
                raise Refused(grpc.StatusCode.UNIMPLEMENTED, tr("Connect calls are POST requests"), 405)
            refusal = cross_origin(scope, headers)
            if refusal is not None:
                raise Refused(grpc.StatusCode.PERMISSION_DENIED, refusal)
            codec = self._codec(procedure, headers)
            body = await self._body(receive, headers)
        except Refused as refused:
            abort = refused.abort_in(self.service.language_of(context))
            await _send_unary_error(send, abort, refused.http_status)
            return
        if procedure.streams:
            await self._stream(procedure, codec, body, context, receive, send)
        else:
            await self._unary(procedure, codec, body, context, send)

    def _codec(self, procedure: Procedure, headers: Mapping[str, str]) -> str:
        content_type = headers.get("content-type", "").split(";")[0].strip().lower()
        kinds = STREAM_TYPES if procedure.streams else UNARY_TYPES
        if content_type not in kinds:
            first, second = kinds
            raise Refused(
                grpc.StatusCode.INVALID_ARGUMENT,
                tr(
                    "{procedure} takes {first} or {second}, not {given}",
                    procedure=procedure.name,
                    first=first,
                    second=second,
                    given=repr(content_type),
                ),
                415,
            )
        encoding = headers.get("connect-content-encoding" if procedure.streams else "content-encoding", "identity")
        if encoding != "identity":
            raise Refused(
                grpc.StatusCode.UNIMPLEMENTED,
                tr("compressed requests ({encoding}) are not accepted", encoding=encoding),
            )
        return kinds[content_type]

    async def _body(self, receive: Receive, headers: Mapping[str, str]) -> bytes:
        """The request body, refused as gRPC refuses it once it is larger than the limit (a few bytes of
        framing allowed for a stream's envelope)."""
        limit = self.max_bytes + 5
        declared = headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise _too_large(int(declared), self.max_bytes)
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise Refused(grpc.StatusCode.CANCELLED, tr("the client went away"))
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                raise _too_large(size, self.max_bytes)
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    def _decode(self, procedure: Procedure, codec: str, data: bytes) -> Message:
        request = procedure.request_type()
        try:
            if codec == "json":
                json_format.Parse(data.decode("utf-8") if data else "{}", request)
            else:
                request.ParseFromString(data)
        except (json_format.ParseError, UnicodeDecodeError) as error:
            raise Refused(
                grpc.StatusCode.INVALID_ARGUMENT, tr("the request is not valid JSON: {error}", error=error)
            ) from None
        except DecodeError as error:
            raise Refused(
                grpc.StatusCode.INVALID_ARGUMENT, tr("the request is not valid protobuf: {error}", error=error)
            ) from None
        return request

    def _encode(self, procedure: Procedure, codec: str, response: Message | bytes) -> bytes:
        if codec == "proto":
            return message_bytes(response)
        if isinstance(response, bytes):  # Watch's shared pre-serialised view
            response = procedure.response_type.FromString(response)
        return json_format.MessageToJson(response, indent=None).encode()

    async def _unary(self, procedure: Procedure, codec: str, body: bytes, context: WebContext, send: Send) -> None:
        try:
            request = self._decode(procedure, codec, body)
            response = await procedure.handler(request, context)
        except Refused as refused:
            await _send_unary_error(send, refused.abort_in(self.service.language_of(context)))
            return
        except WebAbort as abort:
            await _send_unary_error(send, abort)
            return
        data = self._encode(procedure, codec, response)
        content_type = b"application/json" if codec == "json" else b"application/proto"
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", content_type),
                    (b"content-length", str(len(data)).encode()),
                    *API_HEADERS,
                ],
            }
        )
        await send({"type": "http.response.body", "body": data})

    async def _stream(
        self, procedure: Procedure, codec: str, body: bytes, context: WebContext, receive: Receive, send: Send
    ) -> None:
        """A server stream: 200 at once, then one envelope per message, then the end-of-stream envelope.
        The call ends when the client goes away (its disconnect cancels the handler, which lets go of its
        stream's count and its seat's connection, as a cancelled gRPC stream does). The call's scope holds
        the pump and the wait for the disconnect: whichever ends first ends the scope, which cancels the
        other. A pump that fails ends the call with its error (uvicorn logs it), as before the scope."""
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", f"application/connect+{codec}".encode()), *API_HEADERS],
            }
        )
        try:
            async with TaskScope() as tasks:
                pump = tasks.create_task(self._pump(procedure, codec, body, context, send))
                gone = tasks.create_task(_disconnected(receive))
                await asyncio.wait({pump, gone}, return_when=asyncio.FIRST_COMPLETED)
        except* Exception as group:
            raise group.exceptions[0] from None  # the pump's own error, as it was raised
        if pump.cancelled():
            return
        await send({"type": "http.response.body", "body": end_of_stream(pump.result()), "more_body": False})

    async def _pump(
        self, procedure: Procedure, codec: str, body: bytes, context: WebContext, send: Send
    ) -> WebAbort | None:
        """Send the handler's messages as they come; the error that ended the stream, or None."""
        try:
            request = self._decode(procedure, codec, _unwrap(body))
        except Refused as refused:
            return refused.abort_in(self.service.language_of(context))
        responses: AsyncIterator[Any] = procedure.handler(request, context)
        try:
            async for response in responses:
                data = self._encode(procedure, codec, response)
                await send({"type": "http.response.body", "body": envelope(0, data), "more_body": True})
        except WebAbort as abort:
            return abort
        finally:
            await responses.aclose()  # type: ignore[attr-defined]
        return None


def _unwrap(body: bytes) -> bytes:
    """The one message of a stream's request envelope."""
    if len(body) < 5:
        raise Refused(grpc.StatusCode.INVALID_ARGUMENT, tr("the stream's request is not a Connect envelope"))
    flags, length = struct.unpack(">BI", body[:5])
    if flags & COMPRESSED:
        raise Refused(grpc.StatusCode.UNIMPLEMENTED, tr("compressed requests are not accepted"))
    if length != len(body) - 5:
        raise Refused(grpc.StatusCode.INVALID_ARGUMENT, tr("the stream's request envelope has the wrong length"))
    return body[5:]


def _too_large(size: int, limit: int) -> Refused:
    # grpc-core's very words when a gRPC request is over grpc.max_receive_message_length, so a client of either
    # transport reads the same refusal (grpc-core's, so English in every language).
    return Refused(grpc.StatusCode.RESOURCE_EXHAUSTED, f"SERVER: Received message larger than max ({size} vs. {limit})")


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def _send_unary_error(send: Send, abort: WebAbort, http_status: int | None = None) -> None:
    status = CONNECT_CODES[abort.code][1]
    data = json.dumps(error_body(abort)).encode()
    await send(
        {
            "type": "http.response.start",
            "status": http_status or status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(data)).encode()),
                *API_HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": data})
