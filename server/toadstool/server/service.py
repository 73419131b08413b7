"""The gRPC service: the only place that speaks gRPC (docs/design.md §2).

It authenticates the caller (seat token / host token from metadata), turns requests into calls on the
table layer, and maps the closed set of `TableError`s to gRPC status codes in one adapter
(principle 6). It holds no game logic and builds no view itself: updates come from `Table.watch_response`
and `Table.update_for`. It is also where a call's language is chosen (`ToadstoolService.language_of`, from
the caller's accept-language, which Connect and the WebSocket hand over as the same metadata): the error
adapter and `ListGames` say their texts in it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import inspect
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any, cast

import grpc

from toadstool.api import DEVICE_ACTION, DEVICE_TOKEN_KEY, HOST_TOKEN_KEY, SEAT_TOKEN_KEY
from toadstool.api.scopes import TaskScope
from toadstool.api.v1 import service_pb2, service_pb2_grpc, table_pb2
from toadstool.engine import action_id
from toadstool.games import GAMES
from toadstool.i18n import ACCEPT_LANGUAGE, ENGLISH, N_, Text, load_catalogues, negotiate, tr, translate
from toadstool.server import messages
from toadstool.server.limits import Guard, Limits, client_of
from toadstool.server.records import DiskUnavailable
from toadstool.server.tables import ErrorKind, Status, Table, TableError, TableRegistry, hosting
from toadstool.server.tables.seats import MIN_JOIN_REQUEST_ID, SeatKind

log = logging.getLogger(__name__)

MAX_ID_LENGTH = 256
#: Why `Act` refuses a request without a request id (an empty one could never tell a retry from a new action).
NO_REQUEST_ID = N_(
    "Act needs a request_id: a fresh id per action, reused only to retry the same action, so a retry is "
    "never applied twice"
)
#: What a person reads when the server failed on their request (the failure itself is logged, never sent).
SERVER_FAILED = N_("the server failed on this request; it has been logged")

STATUS_OF: dict[ErrorKind, grpc.StatusCode] = {
    ErrorKind.UNKNOWN_TABLE: grpc.StatusCode.NOT_FOUND,
    ErrorKind.UNAUTHENTICATED: grpc.StatusCode.UNAUTHENTICATED,
    ErrorKind.NOT_YOUR_SEAT: grpc.StatusCode.PERMISSION_DENIED,
    ErrorKind.NOT_LEGAL: grpc.StatusCode.FAILED_PRECONDITION,
    ErrorKind.STALE_VERSION: grpc.StatusCode.ABORTED,
    ErrorKind.GAME_OVER: grpc.StatusCode.FAILED_PRECONDITION,
    ErrorKind.BAD_REQUEST: grpc.StatusCode.INVALID_ARGUMENT,
    ErrorKind.DUPLICATE_REQUEST: grpc.StatusCode.ALREADY_EXISTS,
    ErrorKind.NOT_PLAYING: grpc.StatusCode.FAILED_PRECONDITION,
    ErrorKind.LIMIT: grpc.StatusCode.RESOURCE_EXHAUSTED,
}


_SERVICE_PATH = f"/{service_pb2.DESCRIPTOR.services_by_name['ToadstoolService'].full_name}/"
WATCH_METHOD = f"{_SERVICE_PATH}Watch"
PLAY_METHOD = f"{_SERVICE_PATH}Play"


def _serialised(message: Any) -> bytes:
    return message if isinstance(message, bytes) else message.SerializeToString()  # type: ignore[no-any-return]


class SerialisedWatch(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """`Watch` yields (and `Play` writes) its messages already serialised (`Table.watch_response`: once per
    change and viewer, shared by every stream at the same point, instead of once per stream); the generated
    handler would serialise them again, so it gets a serialiser that passes bytes through."""

    async def intercept_service(self, continuation: Any, details: grpc.HandlerCallDetails) -> Any:
        handler = await continuation(details)
        if handler is None:
            return handler
        if details.method == WATCH_METHOD:
            return grpc.unary_stream_rpc_method_handler(handler.unary_stream, handler.request_deserializer, _serialised)
        if details.method == PLAY_METHOD:
            return grpc.stream_stream_rpc_method_handler(
                handler.stream_stream, handler.request_deserializer, _serialised
            )
        return handler


def failure(error: Exception, language: str) -> tuple[grpc.StatusCode, str] | None:
    """The status and message, said in `language`, that a failed request is answered with: a TableError's
    (the one mapping of refusals onto gRPC), a refusing disk's; None for anything unexpected (a bug)."""
    if isinstance(error, TableError):
        return STATUS_OF[error.kind], error.said_in(language)
    if isinstance(error, DiskUnavailable):  # the store has logged it, once: the person is told what it is
        return grpc.StatusCode.UNAVAILABLE, translate(language, str(error))
    return None


async def _answer_failure(error: Exception, context: grpc.aio.ServicerContext, method: str, language: str) -> None:
    """End a call that failed (`failure`); anything unexpected with INTERNAL (logged, never leaked: the client
    reads only that the server failed)."""
    answer = failure(error, language)
    if answer is not None:
        await context.abort(*answer)
    log.error("unexpected failure in %s", method, exc_info=error)
    await context.abort(grpc.StatusCode.INTERNAL, translate(language, SERVER_FAILED))


def _maps_errors(method: Callable[..., Any]) -> Callable[..., Any]:
    """The one error adapter, for unary and streaming calls alike (`_answer_failure`). gRPC's own errors (an
    abort, a call that already ended at shutdown) pass through. `Watch` applies it inline instead (one
    generator fewer per message on the hottest path)."""
    if inspect.isasyncgenfunction(method):

        @functools.wraps(method)
        async def stream(self: Any, request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
            responses = method(self, request, context)
            try:
                async for response in responses:
                    yield response
            except grpc.aio.BaseError:
                raise
            except Exception as error:
                await _answer_failure(error, context, method.__name__, self.language_of(context))
            finally:
                await responses.aclose()

        return stream

    @functools.wraps(method)
    async def unary(self: Any, request: Any, context: grpc.aio.ServicerContext) -> Any:
        try:
            return await method(self, request, context)
        except grpc.aio.BaseError:
            raise
        except Exception as error:
            await _answer_failure(error, context, method.__name__, self.language_of(context))
        raise AssertionError("unreachable")

    return unary


def _metadata(context: grpc.aio.ServicerContext, key: str) -> str:
    for item in context.invocation_metadata() or ():
        if item.key == key:
            value = item.value
            return value if isinstance(value, str) else value.decode("utf-8", "replace")
    return ""


def _check_id(value: str, *, action: bool = False) -> str:
    """A table id (or, with `action`, an action id) as a request names it: present, and not too long."""
    if not value:
        raise TableError(
            ErrorKind.BAD_REQUEST, tr("the action id is missing") if action else tr("the table id is missing")
        )
    if len(value) > MAX_ID_LENGTH:
        raise TableError(
            ErrorKind.BAD_REQUEST,
            tr("the action id is longer than {n} characters", n=MAX_ID_LENGTH)
            if action
            else tr("the table id is longer than {n} characters", n=MAX_ID_LENGTH),
        )
    return value


def _no_seat_token() -> Text:
    return tr("no seat token: send the token from JoinTable in the {key} metadata", key=repr(SEAT_TOKEN_KEY))


def _check_request_id(request: service_pb2.ActRequest) -> None:
    """An act's request id, as `Act` and an act on a `Play` stream both require it."""
    if not request.request_id:
        raise TableError(ErrorKind.BAD_REQUEST, tr(NO_REQUEST_ID))
    if len(request.request_id) > MAX_ID_LENGTH:
        raise TableError(ErrorKind.BAD_REQUEST, tr("the request id is longer than {n} characters", n=MAX_ID_LENGTH))


class ToadstoolService(service_pb2_grpc.ToadstoolServiceServicer):
    """Implements toadstool.v1.ToadstoolService over a TableRegistry."""

    def __init__(self, registry: TableRegistry, limits: Limits | None = None, language: str = ENGLISH) -> None:
        self.registry = registry
        self.guard = Guard(limits or Limits())
        #: The language of a caller that names none this server has texts in (`toadstool serve --lang`).
        self.language = language
        load_catalogues()  # now, not in the middle of the first German caller's call

    def language_of(self, context: Any) -> str:
        """The language to answer this call in: the one place it is chosen, for every transport (gRPC's
        metadata; Connect's header and the WebSocket's handshake header, which `web_transport.WebContext`
        hands over as the same metadata). Read only where a text is said (a refusal, ListGames, once where
        a Watch, Play or GetHistory stream opens: all its updates are said in it), so the calls that say none
        pay nothing for it."""
        return negotiate(_metadata(context, ACCEPT_LANGUAGE), self.language)

    def _table(self, table_id: str) -> Table:
        return self.registry.get(_check_id(table_id))

    def _hosted_table(self, table_id: str, context: grpc.aio.ServicerContext) -> Table:
        """The table, once the caller proved with its host token that it may control it."""
        table = self._table(table_id)
        table.require_host(_metadata(context, HOST_TOKEN_KEY))
        return table

    def _info(self, table: Table, language: str) -> table_pb2.TableInfo:
        """The table as listed, in the caller's `language` (a default table name holds the game's title),
        naming its follow-up once its people chose to play again (PlayAgain)."""
        info = messages.table_info(table, language)
        found = self.registry.next_table(table.table_id)
        if found is not None:
            info.next_table_id = found[0].table_id
        return info

    def _seat(self, table: Table, context: grpc.aio.ServicerContext) -> int:
        token = _metadata(context, SEAT_TOKEN_KEY)
        if not token:
            raise TableError(ErrorKind.UNAUTHENTICATED, _no_seat_token())
        return table.seat_of_token(token)

    @_maps_errors
    async def ListGames(
        self, request: service_pb2.ListGamesRequest, context: grpc.aio.ServicerContext
    ) -> service_pb2.ListGamesResponse:
        language = self.language_of(context)
        response = service_pb2.ListGamesResponse()
        for spec in GAMES.values():
            response.games.add().CopyFrom(messages.game_info(spec.engine, language))
        return response

    @_maps_errors
    async def CreateTable(
        self, request: service_pb2.CreateTableRequest, context: grpc.aio.ServicerContext
    ) -> service_pb2.CreateTableResponse:
        client = client_of(context.peer())
        unfinished = {t.table_id for t in self.registry.tables.values() if t.status is not Status.FINISHED}
        self.guard.check_new_table(client, unfinished)
        table, host_token = self.registry.create(
            game=request.game,
            players=request.players,
            bots=request.bots,
            options=dict(request.options),
            seed=request.seed if request.HasField("seed") else None,
            name=request.name,
            manual_start=request.manual_start,
            bot_delay=(
                max(request.bot_delay_ms / 1000, self.guard.limits.min_bot_delay)
                if request.HasField("bot_delay_ms")
                else None
            ),
            turn_seconds=request.turn_seconds,
            takeover_seconds=request.takeover_seconds,
            bot_level=request.bot_level,
        )
        self.guard.table_created(client, table.table_id)
        return service_pb2.CreateTableResponse(
            table=self._info(table, self.language_of(context)), host_token=host_token
        )

    @_maps_errors
    async def ListTables(
        self, request: service_pb2.ListTablesRequest, context: grpc.aio.ServicerContext
    ) -> service_pb2.ListTablesResponse:
        # Finished a day ago or more: left out (docs/custom-clients.md); GetTable still finds it.
        language = self.language_of(context)
        return service_pb2.ListTablesResponse(tables=[self._info(t, language) for t in self.registry.listed()])

    @_maps_errors
    async def GetTable(
        self, request: service_pb2.GetTableRequest, context: grpc.aio.ServicerContext
    ) -> service_pb2.GetTableResponse:
        return service_pb2.GetTableResponse(table=self._info(self._table(request.table_id), self.language_of(context)))

    @_maps_errors
    async def JoinTable(
        self, request: service_pb2.JoinTableRequest, context: grpc.aio.ServicerContext
    ) -> service_pb2.JoinTableResponse:
        table = self._table(request.table_id)
        if request.request_id and not MIN_JOIN_REQUEST_ID <= len(request.request_id) <= MAX_ID_LENGTH:
            raise TableError(
                ErrorKind.BAD_REQUEST,
                tr(
                    "a join's request id must be {min} to {max} characters (a fresh random one)",
                    min=MIN_JOIN_REQUEST_ID,
                    max=MAX_ID_LENGTH,
                ),
            )
        seat, token = table.join(
            request.name, request.seat if request.HasField("seat") else None, request_id=request.request_id
        )
        return service_pb2.JoinTableResponse(
            seat=seat, seat_token=token, table=self._info(table, self.language_of(context))
        )

    @_maps_errors
    async def AddBot(
        self, request: service_pb2.AddBotRequest, context: grpc.aio.ServicerContext
    ) -> service_pb2.AddBotResponse:
        table = self._hosted_table(request.table_id, context)
        seat = table.add_bot(request.seat if request.HasField("seat") else None, request.bot_level)
        return service_pb2.AddBotResponse(seat=seat, table=self._info(table, self.language_of(context)))

    @_maps_errors
    async def SetBotLevel(
        self, request: service_pb2.SetBotLevelRequest, context: grpc.aio.ServicerContext
    ) -> service_pb2.SetBotLevelResponse:
        table = self._hosted_table(request.table_id, context)
        table.set_bot_level(request.seat, request.bot_level)
        return service_pb2.SetBotLevelResponse(table=self._info(table, self.language_of(context)))

    @_maps_errors
    async def StartTable(
        self, request: service_pb2.StartTableRequest, context: grpc.aio.ServicerContext
    ) -> service_pb2.StartTableResponse:
        table = self._hosted_table(request.table_id, context)
        table.start()
        return service_pb2.StartTableResponse(table=self._info(table, self.language_of(context)))

    @_maps_errors
    async def KickSeat(
        self, request: service_pb2.KickSeatRequest, context: grpc.aio.ServicerContext
    ) -> service_pb2.KickSeatResponse:
        table = self._hosted_table(request.table_id, context)
        hosting.kick(table, request.seat)
        return service_pb2.KickSeatResponse(table=self._info(table, self.language_of(context)))

    @_maps_errors
    async def HandSeatToBot(
        self, request: service_pb2.HandSeatToBotRequest, context: grpc.aio.ServicerContext
    ) -> service_pb2.HandSeatToBotResponse:
        table = self._hosted_table(request.table_id, context)
        hosting.hand_to_bot(table, request.seat)
        return service_pb2.HandSeatToBotResponse(table=self._info(table, self.language_of(context)))

    @_maps_errors
    async def EndTable(
        self, request: service_pb2.EndTableRequest, context: grpc.aio.ServicerContext
    ) -> service_pb2.EndTableResponse:
        table = self._hosted_table(request.table_id, context)
        hosting.end(table, hosting.ENDED_BY_HOST)
        return service_pb2.EndTableResponse(table=self._info(table, self.language_of(context)))

    @_maps_errors
    async def PlayAgain(
        self, request: service_pb2.PlayAgainRequest, context: grpc.aio.ServicerContext
    ) -> service_pb2.PlayAgainResponse:
        finished = self._table(request.table_id)
        seat = self._seat(finished, context)
        if self.registry.next_table(finished.table_id) is None:  # only a call that creates counts as one
            client = client_of(context.peer())
            unfinished = {t.table_id for t in self.registry.tables.values() if t.status is not Status.FINISHED}
            self.guard.check_new_table(client, unfinished)
            table, host_token = self.registry.play_again(finished)
            self.guard.table_created(client, table.table_id)
        else:
            table, host_token = self.registry.play_again(finished)
        # The join's request id comes from the caller's old seat token, so a retry (a lost answer, a second
        # tab of the same seat) gets the same seat and token back; it is as secret as the token it is made of.
        request_id = hashlib.sha256(b"play again:" + _metadata(context, SEAT_TOKEN_KEY).encode()).hexdigest()
        # Their own seat, unless someone took it meanwhile (from the lobby): then the first open one.
        wanted = seat if table.seats[seat].kind is SeatKind.EMPTY else None
        index, token = table.join(finished.seats[seat].name, wanted, request_id=request_id)
        response = service_pb2.PlayAgainResponse(
            table=self._info(table, self.language_of(context)), seat=index, seat_token=token
        )
        if finished.is_host(_metadata(context, HOST_TOKEN_KEY)):
            response.host_token = host_token
        return response

    @_maps_errors
    async def LeaveTable(
        self, request: service_pb2.LeaveTableRequest, context: grpc.aio.ServicerContext
    ) -> service_pb2.LeaveTableResponse:
        table = self._table(request.table_id)
        table.leave(self._seat(table, context))
        return service_pb2.LeaveTableResponse()

    @_maps_errors
    async def Act(self, request: service_pb2.ActRequest, context: grpc.aio.ServicerContext) -> service_pb2.ActResponse:
        _check_request_id(request)
        table = self._table(request.table_id)
        device_token = _metadata(context, DEVICE_TOKEN_KEY)
        if device_token and not _metadata(context, SEAT_TOKEN_KEY):
            seat, wanted = hosting.device_move(table, device_token)
            if request.action_id != DEVICE_ACTION and self._wanted_action_id(table, request) != wanted:
                raise TableError(
                    ErrorKind.NOT_YOUR_SEAT, tr("a device token may only {action}", action=repr(DEVICE_ACTION))
                )
        else:
            seat = self._seat(table, context)
            wanted = self._wanted_action_id(table, request)
        return await self._act(table, seat, wanted, request)

    async def _act(
        self, table: Table, seat: int, wanted: str, request: service_pb2.ActRequest
    ) -> service_pb2.ActResponse:
        """An authenticated seat's act (`Act`'s, or one on a `Play` stream): its rate, then the table's ladder."""
        self.guard.check_action_rate(table.table_id, seat)
        version, replayed = await table.act(seat, wanted, request.version, request.request_id)
        return service_pb2.ActResponse(version=version, replayed=replayed)

    async def _play_act(self, table: Table, seat: int | None, request: service_pb2.ActRequest, language: str) -> bytes:
        """One act of a `Play` stream, answered as the PlayResponse's bytes: an `acted` with the code and
        message a unary Act would have ended with (the one error map, `failure`), in the stream's `language`,
        never an exception."""
        result = service_pb2.ActResult(request_id=request.request_id[:MAX_ID_LENGTH])
        try:
            _check_request_id(request)
            if request.table_id and request.table_id != table.table_id:
                raise TableError(
                    ErrorKind.BAD_REQUEST,
                    tr("this stream plays table {table}; open another for another table", table=table.table_id),
                )
            if seat is None:
                raise TableError(ErrorKind.UNAUTHENTICATED, _no_seat_token())
            result.response.CopyFrom(await self._act(table, seat, self._wanted_action_id(table, request), request))
        except Exception as error:
            answer = failure(error, language)
            if answer is None:  # a bug: logged, and the person reads only that the server failed (as `Act`)
                log.exception("unexpected failure in a Play stream's act")
                answer = grpc.StatusCode.INTERNAL, translate(language, SERVER_FAILED)
            result.code, result.message = answer[0].value[0], answer[1]
        return service_pb2.PlayResponse(acted=result).SerializeToString()

    @_maps_errors
    async def IssueDeviceToken(
        self, request: service_pb2.IssueDeviceTokenRequest, context: grpc.aio.ServicerContext
    ) -> service_pb2.IssueDeviceTokenResponse:
        table = self._hosted_table(request.table_id, context)
        return service_pb2.IssueDeviceTokenResponse(device_token=hosting.issue_device_token(table))

    def _wanted_action_id(self, table: Table, request: service_pb2.ActRequest) -> str:
        """The stable id of the action a request names, given by id or in its typed form."""
        if request.action_id and request.HasField("action"):
            raise TableError(ErrorKind.BAD_REQUEST, tr("send either action_id or action, not both"))
        if request.action_id:
            return _check_id(request.action_id, action=True)
        if not request.HasField("action"):
            raise TableError(ErrorKind.BAD_REQUEST, tr("the request names no action: set action_id or action"))
        try:
            return action_id(messages.action_from_message(table.engine, request.action))
        except (ValueError, TypeError) as error:
            raise TableError(ErrorKind.BAD_REQUEST, tr("malformed action: {error}", error=error)) from None

    @_maps_errors
    async def GetHistory(
        self, request: service_pb2.GetHistoryRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[service_pb2.GetHistoryResponse]:
        client = client_of(context.peer())
        table = self._table(request.table_id)
        token = _metadata(context, SEAT_TOKEN_KEY)
        viewer = table.seat_of_token(token) if token else None
        self.guard.open_stream(client)  # a history replay costs like a stream: it counts as one
        try:
            for step in messages.history_for(table, viewer, self.language_of(context)):
                yield service_pb2.GetHistoryResponse(step=step)
                await asyncio.sleep(0)  # one step at a time: other tables keep playing meanwhile
        finally:
            self.guard.close_stream(client)

    async def Watch(  # type: ignore[override]  # it yields messages already serialised: see SerialisedWatch
        self, request: service_pb2.WatchRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[bytes]:
        # The error adapter of every call (`_answer_failure`) is here around the stream's own body, not
        # `_maps_errors`'s generator wrapped around it: each message then passes through one generator, not
        # two, on the hottest path of a move (docs/benchmarks.md, issue #24).
        try:
            table = self._table(request.table_id)
            token = _metadata(context, SEAT_TOKEN_KEY)
            seat = table.seat_of_token(token) if token else None
            since = request.since_version if request.HasField("since_version") else None
            if since is not None and since > table.version:
                raise TableError(
                    ErrorKind.BAD_REQUEST,
                    tr(
                        "since_version {since} is ahead of the table (version {version})",
                        since=since,
                        version=table.version,
                    ),
                )
            language = self.language_of(context)  # the stream's, chosen once: every update is said in it
            client = client_of(context.peer())
            self.guard.open_stream(client)
            holder = table.seats[seat] if seat is not None else None
            if holder is not None:
                table.set_connected(holder, +1)
            sent_events: int | None = None
            backlog = self.registry.backlog
            backlog.open += 1
            try:
                while not self.registry.closing:
                    if holder is not None and table.seats[holder.index] is not holder:
                        raise TableError(
                            ErrorKind.UNAUTHENTICATED,
                            tr(
                                "your seat at table {table} was given up or removed; join again to play",
                                table=table.table_id,
                            ),
                        )
                    revision = table.revision
                    response = messages.watch_response(table, seat, since, sent_events, language)
                    sent_events = len(table.events)
                    sending = backlog.start_sending()  # until gRPC asks for the next message: it took this one
                    try:
                        yield response  # already serialised: see `SerialisedWatch`
                    finally:
                        backlog.done_sending(sending)
                    if table.revision == revision:  # else it changed while this message was being sent
                        change = table.next_change()
                        try:
                            await change
                        except BaseException:  # the stream ended while waiting: the table forgets its future
                            table.forget_change(change)
                            raise
                await context.abort(
                    grpc.StatusCode.UNAVAILABLE,
                    translate(
                        self.language_of(context), N_("the server is shutting down; clients reconnect when it is back")
                    ),
                )
            finally:
                backlog.open -= 1
                self.guard.close_stream(client)
                if holder is not None:
                    table.set_connected(holder, -1)
        except grpc.aio.BaseError:
            raise
        except Exception as error:
            await _answer_failure(error, context, "Watch", self.language_of(context))

    async def Play(  # type: ignore[override]  # it writes messages already serialised: see SerialisedWatch
        self, requests: AsyncIterator[service_pb2.PlayRequest], context: grpc.aio.ServicerContext
    ) -> None:
        """A seat's Watch and its Acts on one stream (see service.proto): the updates written as `Watch`
        yields them, each act answered in-band, in order, by a reader of the stream's requests that runs
        beside the updates and is cancelled when they end. Writes are one at a time (one lock), so an act's
        answer and an update never interleave, and a client that stops reading holds the reader at its
        next answer: it stops being read from. The stream's scope holds the reader; the end of the updates
        leaves it, which cancels the reader. The reader's errors (the call gone, its writes refused) end
        only the reader: the updates tell the stream's end."""
        try:
            first = await anext(aiter(requests), None)
            if first is None or first.WhichOneof("kind") != "watch":
                raise TableError(ErrorKind.BAD_REQUEST, tr("a Play stream starts with a watch request (which table)"))
            table = self._table(first.watch.table_id)
            token = _metadata(context, SEAT_TOKEN_KEY)
            seat = table.seat_of_token(token) if token else None
            language = self.language_of(context)  # of the acts' answers: the stream's, chosen once
            writing = asyncio.Lock()

            async def write(data: bytes) -> None:
                async with writing:
                    await context.write(data)

            async def read_acts() -> None:
                with contextlib.suppress(Exception):
                    async for request in requests:
                        if request.WhichOneof("kind") != "act":
                            await write(_bad_play_request(request, language))
                            continue
                        await write(await self._play_act(table, seat, request.act, language))

            # Watch's own generator: its refusals (bad table, seat gone) and its end (shutdown) are this stream's.
            updates = cast(AsyncGenerator[bytes, None], self.Watch(first.watch, context))
            reading = False
            async with TaskScope() as tasks:
                try:
                    async for response in updates:
                        if not reading:  # after the first update: an act's answer never comes before it
                            reading = True
                            tasks.create_task(read_acts(), name=f"play {table.table_id} acts")
                        await write(response)
                finally:
                    await updates.aclose()
        except grpc.aio.BaseError:
            raise
        except Exception as error:
            await _answer_failure(error, context, "Play", self.language_of(context))


def _bad_play_request(request: service_pb2.PlayRequest, language: str) -> bytes:
    """The answer to a request after the first that is not an act: refused in-band, the stream goes on."""
    kind = request.WhichOneof("kind") or "empty"
    message = tr(
        "a Play stream takes one watch, first; after it only acts (this request was {kind})", kind=kind
    ).said_in(language)
    result = service_pb2.ActResult(code=grpc.StatusCode.INVALID_ARGUMENT.value[0], message=message)
    return service_pb2.PlayResponse(acted=result).SerializeToString()
