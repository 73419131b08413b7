"""One seat's `Play` stream, the client side: its updates, and its acts answered in-band on the same stream.

Why: an act on a stream the client already has open costs the server a fraction of a unary `Act` (issue
#47), so the shared `Client` follows a seat through `Play` and sends that seat's acts on it. This module
only keeps one call: it reads the stream in a task of its own (so an act's answer arrives even while the
caller is busy awaiting that act, not iterating the updates), queues the updates in order (their events
never skip), and resolves each act by its request id. Reconnecting is `Client.follow`'s, as for `Watch`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc

from toadstool.api import SEAT_TOKEN_KEY
from toadstool.api.scopes import TaskScope
from toadstool.api.v1 import service_pb2, service_pb2_grpc, table_pb2


class StreamGone(ConnectionError):
    """The stream ended before an act sent on it was answered: it may or may not have been applied (send it
    again with the same request id, which the server never applies twice)."""


class PlayStream:
    """One open `Play` call for one seat at one table."""

    def __init__(
        self,
        stub: service_pb2_grpc.ToadstoolServiceStub,
        table_id: str,
        seat_token: str,
        since_version: int | None,
    ) -> None:
        self.table_id = table_id
        self.seat_token = seat_token
        self.call = stub.Play(metadata=((SEAT_TOKEN_KEY, seat_token),))
        watch = service_pb2.WatchRequest(table_id=table_id)
        if since_version is not None:
            watch.since_version = since_version
        self._first = service_pb2.PlayRequest(watch=watch)
        self._updates: asyncio.Queue[table_pb2.Update | BaseException | None] = asyncio.Queue()
        self._answers: dict[str, asyncio.Future[service_pb2.ActResult]] = {}
        #: The stream's scope, from `start` to `close`: its reader.
        self._scope: TaskScope | None = None
        self._writing = asyncio.Lock()
        self.open = False

    async def start(self) -> None:
        """Send the watch request and start reading."""
        await self.call.write(self._first)
        self.open = True
        self._scope = TaskScope()
        await self._scope.__aenter__()
        self._scope.create_task(self._read(), name=f"play {self.table_id}")

    async def _read(self) -> None:
        ending: BaseException | None = None
        try:
            async for response in self.call:
                if response.HasField("update"):
                    self._updates.put_nowait(response.update)
                else:
                    answer = self._answers.pop(response.acted.request_id, None)
                    if answer is not None and not answer.done():
                        answer.set_result(response.acted)
        except grpc.aio.AioRpcError as error:
            ending = error
        except Exception:  # the call ended some other way: the stream ends, and only the stream
            pass
        finally:
            self.open = False
            for answer in self._answers.values():
                if not answer.done():
                    answer.set_exception(StreamGone("the Play stream ended before the act was answered"))
            self._answers.clear()
            self._updates.put_nowait(ending)

    async def updates(self) -> AsyncIterator[table_pb2.Update]:
        """The stream's updates in order; raises the call's error when it fails, ends when it ends."""
        while True:
            item = await self._updates.get()
            if item is None:
                return
            if isinstance(item, BaseException):
                raise item
            yield item

    async def act(self, request: service_pb2.ActRequest, answer_within: float) -> service_pb2.ActResponse:
        """Send one act and wait for its answer; a refusal raises the AioRpcError a unary Act would have
        raised (same code and message), so callers handle both alike. StreamGone if the stream ends first."""
        if not self.open:
            raise StreamGone("the Play stream is not open")
        answer: asyncio.Future[service_pb2.ActResult] = asyncio.get_running_loop().create_future()
        self._answers[request.request_id] = answer
        try:
            async with self._writing:
                await self.call.write(service_pb2.PlayRequest(act=request))
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError) as error:
            self._answers.pop(request.request_id, None)
            raise StreamGone(f"the act could not be sent on the Play stream: {error}") from None
        result = await asyncio.wait_for(answer, answer_within)
        if result.code != grpc.StatusCode.OK.value[0]:
            code = next((c for c in grpc.StatusCode if c.value[0] == result.code), grpc.StatusCode.UNKNOWN)
            raise grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), details=result.message)
        return result.response

    async def close(self) -> None:
        """End the call and its reader (leaving the stream's scope cancels the reader)."""
        self.open = False
        self.call.cancel()
        scope, self._scope = self._scope, None
        if scope is not None:
            await scope.__aexit__(None, None, None)
