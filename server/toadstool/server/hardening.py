"""Defences against what grpcio itself does with hostile bytes, before any code of ours runs.

Found by the fuzz suite: a body that is not protobuf is answered UNKNOWN with an ERROR logged (here:
INVALID_ARGUMENT, quietly); a metadata value that is not UTF-8 logs an ERROR per request (here: DEBUG); and
a request path that is not UTF-8 stops grpcio's accept loop (`toadstool.listener` guards the loop and opens
the port again; the filters below keep grpcio's own log of it quiet where the guard cannot be installed).
Not for anything about games or tables.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from toadstool.i18n import ENGLISH, tr


class _Undecodable:
    """Stands in for a request body that is not valid protobuf, so the handler can refuse it cleanly."""

    def __init__(self, error: str) -> None:
        self.error = error


def _tolerant(parse: Any) -> Any:
    def deserialize(raw: bytes) -> Any:
        try:
            return parse(raw)
        except DecodeError as error:
            return _Undecodable(str(error))

    return deserialize


async def _refuse(request: Any, context: grpc.aio.ServicerContext, language_of: Callable[[Any], str]) -> None:
    if isinstance(request, _Undecodable):
        message = tr("the request is not valid protobuf: {error}", error=request.error)
        await context.abort(grpc.StatusCode.INVALID_ARGUMENT, message.said_in(language_of(context)))


class RefuseUndecodable(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """grpcio decodes each request before any handler runs; a body that is not protobuf would be answered
    UNKNOWN with an ERROR logged. This answers INVALID_ARGUMENT instead, for every service, in the caller's
    language (`language_of`: the service's `ToadstoolService.language_of`)."""

    def __init__(self, language_of: Callable[[Any], str] = lambda context: ENGLISH) -> None:
        self.language_of = language_of

    async def intercept_service(self, continuation: Any, details: grpc.HandlerCallDetails) -> Any:
        handler = await continuation(details)
        if handler is None or handler.request_deserializer is None:
            return handler
        parse = _tolerant(handler.request_deserializer)
        language_of = self.language_of
        serialize = handler.response_serializer
        if handler.request_streaming:

            async def checked(requests: Any, context: grpc.aio.ServicerContext) -> Any:
                async for request in requests:
                    await _refuse(request, context, language_of)
                    yield request

            if handler.stream_stream:
                inner_ss = handler.stream_stream
                if inspect.isasyncgenfunction(inner_ss):

                    async def stream_stream(requests: Any, context: grpc.aio.ServicerContext) -> Any:
                        async for response in inner_ss(checked(requests, context), context):
                            yield response

                else:  # a handler that writes with `context.write` (Play)

                    async def stream_stream(requests: Any, context: grpc.aio.ServicerContext) -> Any:  # type: ignore[misc]
                        return await inner_ss(checked(requests, context), context)

                return grpc.stream_stream_rpc_method_handler(stream_stream, parse, serialize)
            return handler
        if handler.response_streaming:
            inner_us = handler.unary_stream
            if inspect.isasyncgenfunction(inner_us):

                async def unary_stream(request: Any, context: grpc.aio.ServicerContext) -> Any:
                    await _refuse(request, context, language_of)
                    async for response in inner_us(request, context):
                        yield response

            else:

                async def unary_stream(request: Any, context: grpc.aio.ServicerContext) -> Any:  # type: ignore[misc]
                    await _refuse(request, context, language_of)
                    return await inner_us(request, context)

            return grpc.unary_stream_rpc_method_handler(unary_stream, parse, serialize)
        inner_uu = handler.unary_unary

        async def unary_unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
            await _refuse(request, context, language_of)
            return await inner_uu(request, context)

        return grpc.unary_unary_rpc_method_handler(unary_unary, parse, serialize)


#: What grpcio logs (as an ERROR, with a traceback) when a servicer's response cannot be sent because the call
#: has already ended, if its own notice of the end (`client_closed`) has not been handled yet: a client that
#: hung up or reset the connection just as it was answered. Seen in the fuzz suite on a loaded machine.
_SENT_TO_A_CALL_THAT_ENDED = "ExecuteBatchError raised in core by servicer method"


class _ClientGarbage(logging.Filter):
    """grpcio logs an ERROR with a traceback when a client sends a metadata value that is not UTF-8, or hangs
    up just as it is answered; that is the client's doing and nothing of the server's is wrong, so it is kept
    at DEBUG (any client could flood the log)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.ERROR and isinstance(record.msg, UnicodeDecodeError):
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.msg, record.args = f"a request's method name is not UTF-8: {record.msg}", ()
            record.exc_info, record.exc_text = None, None
            return True
        if record.levelno >= logging.ERROR and str(record.msg).startswith(
            ("Invalid encoding on", _SENT_TO_A_CALL_THAT_ENDED)
        ):
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            record.exc_info, record.exc_text = None, None
            return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)
        return True


class _GrpcCrashTask(logging.Filter):
    """grpcio's own shutdown task after that crash ends with the UnicodeDecodeError nobody retrieves."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if (
            record.levelno >= logging.ERROR
            and isinstance(error, UnicodeDecodeError)
            and "Task exception was never retrieved" in str(record.msg)
        ):
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.msg, record.args = "grpcio's listener stopped on a request name that is not UTF-8", ()
            record.exc_info, record.exc_text = None, None
        return True


_FILTERS: tuple[tuple[str, logging.Filter], ...] = (
    ("grpc._cython.cygrpc", _ClientGarbage()),
    ("asyncio", _GrpcCrashTask()),
)


def quiet_client_garbage() -> None:
    """Install the log filters once: a client's malformed bytes are the client's problem, not an ERROR."""
    for name, log_filter in _FILTERS:
        logger = logging.getLogger(name)
        if log_filter not in logger.filters:
            logger.addFilter(log_filter)
