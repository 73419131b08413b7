"""The client side of the v1 API, shared by the terminal client, the Tk client and the MQTT bridge.

It is for talking to a server: channels, request ids, tokens in metadata, and following a table's stream
with reconnects (jittered backoff, resuming from the last version seen). It knows no game rules and
renders nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

import grpc

from toadstool.api import DEFAULT_PORT, DEVICE_ACTION, DEVICE_TOKEN_KEY, HOST_TOKEN_KEY, KEEPALIVE, SEAT_TOKEN_KEY
from toadstool.api.v1 import service_pb2, service_pb2_grpc, table_pb2
from toadstool_clients.backoff import backoff
from toadstool_clients.language import accept_language, language_interceptors
from toadstool_clients.play_stream import PlayStream, StreamGone

#: Keepalive (notice a server that went away silently) and a short reconnect backoff: gRPC's own grows
#: to 120 s, so after an outage a client would take long to notice the server is back.
CHANNEL_OPTIONS = (
    *KEEPALIVE,
    ("grpc.initial_reconnect_backoff_ms", 250),
    ("grpc.max_reconnect_backoff_ms", 10_000),
)

#: How long a disconnected person's seat waits before a bot plays it, for tables the clients create: a
#: LAN evening's default (a closed laptop, a phone that locked), short enough that nobody waits long.
DEFAULT_TAKEOVER_SECONDS = 60

#: The pause before a call that could not reach the server is sent once more (join, act).
RETRY_PAUSE = 0.5


def server_address(given: str | None) -> str:
    """The server to use: the given HOST[:PORT], else $TOADSTOOL_SERVER, else localhost."""
    address = given or os.environ.get("TOADSTOOL_SERVER") or f"127.0.0.1:{DEFAULT_PORT}"
    if ":" not in address.rsplit("]", 1)[-1]:
        address = f"{address}:{DEFAULT_PORT}"
    return address


def describe_rpc_error(error: grpc.RpcError) -> str:
    """A one-line explanation of a failed call for a person."""
    code = error.code() if isinstance(error, grpc.aio.AioRpcError | grpc.Call) else None
    details = error.details() if isinstance(error, grpc.aio.AioRpcError | grpc.Call) else str(error)
    if code == grpc.StatusCode.UNAVAILABLE and details and "nothing was saved" in details:
        return details  # the server answered: its disk refused the write (full, read-only), and says so
    if code == grpc.StatusCode.UNAVAILABLE:
        return "the server cannot be reached (is it running, and is the address right?)"
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return "the server did not answer in time"
    return f"{details} [{code.name if code else 'error'}]"


@dataclass
class StreamState:
    """What a followed stream reports besides updates: connection lost/back, and why."""

    connected: bool
    message: str = ""


class Client:
    """An async connection to one Toadstool server."""

    def __init__(
        self, address: str, timeout: float = 10.0, tls_ca: str | None = None, language: str | None = None
    ) -> None:
        """`tls_ca` is the PEM file of the certificate (or its CA) that a TLS server presents; without it the
        channel is plaintext. Every call asks for the server's texts in `language` (an accept-language
        value), by default the person's (`toadstool_clients.language`); "" asks for nothing."""
        self.address = address
        self.timeout = timeout
        self.language = accept_language() if language is None else language or None
        interceptors = language_interceptors(self.language) if self.language else None
        tls_ca = tls_ca or os.environ.get("TOADSTOOL_TLS_CA") or None
        if tls_ca:
            with open(tls_ca, "rb") as pem:
                credentials = grpc.ssl_channel_credentials(root_certificates=pem.read())
            self.channel = grpc.aio.secure_channel(
                address, credentials, options=CHANNEL_OPTIONS, interceptors=interceptors
            )
        else:
            self.channel = grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS, interceptors=interceptors)
        self.stub = service_pb2_grpc.ToadstoolServiceStub(self.channel)
        #: Follow a seat through `Play` and send its acts there (off: `Watch` and unary `Act`, as a server
        #: without `Play` gets once it has answered UNIMPLEMENTED).
        self.use_play = True
        self._plays: dict[tuple[str, str], PlayStream] = {}

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self.channel.close()

    async def wait_ready(self, seconds: float = 10.0) -> None:
        """Wait until the channel connects; raises TimeoutError otherwise."""
        await asyncio.wait_for(self.channel.channel_ready(), seconds)

    async def list_games(self) -> list[table_pb2.GameInfo]:
        response = await self.stub.ListGames(service_pb2.ListGamesRequest(), timeout=self.timeout)
        return list(response.games)

    async def list_tables(self) -> list[table_pb2.TableInfo]:
        response = await self.stub.ListTables(service_pb2.ListTablesRequest(), timeout=self.timeout)
        return list(response.tables)

    async def get_table(self, table_id: str) -> table_pb2.TableInfo:
        request = service_pb2.GetTableRequest(table_id=table_id)
        response: service_pb2.GetTableResponse = await self.stub.GetTable(request, timeout=self.timeout)
        return response.table

    async def create_table(
        self,
        game: str,
        players: int,
        bots: int = 0,
        options: Mapping[str, str] | None = None,
        seed: int | None = None,
        name: str = "",
        manual_start: bool = False,
        bot_delay_ms: int | None = None,
        turn_seconds: int = 0,
        takeover_seconds: int = DEFAULT_TAKEOVER_SECONDS,
        bot_level: int = 0,
    ) -> service_pb2.CreateTableResponse:
        """Create a table. Unlike a bare CreateTable (no takeover), a person whose connection is gone for
        `DEFAULT_TAKEOVER_SECONDS` has a bot play their seat until they return, so one closed laptop never
        holds a LAN evening up; 0 turns it off."""
        request = service_pb2.CreateTableRequest(
            game=game,
            players=players,
            bots=bots,
            options=dict(options or {}),
            name=name,
            manual_start=manual_start,
            turn_seconds=turn_seconds,
            takeover_seconds=takeover_seconds,
            bot_level=service_pb2.BotLevel.ValueType(bot_level),
        )
        if seed is not None:
            request.seed = seed
        if bot_delay_ms is not None:
            request.bot_delay_ms = bot_delay_ms
        response: service_pb2.CreateTableResponse = await self.stub.CreateTable(request, timeout=self.timeout)
        return response

    async def join(
        self, table_id: str, name: str, seat: int | None = None, request_id: str | None = None
    ) -> service_pb2.JoinTableResponse:
        """Take a seat, with `request_id` (a fresh one unless given); retried once on UNAVAILABLE with the
        same request id, which gives back the same seat and token if the first answer was lost."""
        request = service_pb2.JoinTableRequest(table_id=table_id, name=name, request_id=request_id or uuid.uuid4().hex)
        if seat is not None:
            request.seat = seat
        response: service_pb2.JoinTableResponse = await self._once_more_when_unavailable(self.stub.JoinTable, request)
        return response

    async def add_bot(self, table_id: str, host_token: str, seat: int | None = None, bot_level: int = 0) -> int:
        """Seat a bot (host only) playing at `bot_level` (service.proto's BotLevel; 0: normal)."""
        request = service_pb2.AddBotRequest(table_id=table_id, bot_level=service_pb2.BotLevel.ValueType(bot_level))
        if seat is not None:
            request.seat = seat
        response = await self.stub.AddBot(request, metadata=((HOST_TOKEN_KEY, host_token),), timeout=self.timeout)
        return int(response.seat)

    async def set_bot_level(self, table_id: str, host_token: str, seat: int, bot_level: int) -> table_pb2.TableInfo:
        """Make the bot in `seat` play at `bot_level` (host only; service.proto's BotLevel)."""
        request = service_pb2.SetBotLevelRequest(
            table_id=table_id, seat=seat, bot_level=service_pb2.BotLevel.ValueType(bot_level)
        )
        response: service_pb2.SetBotLevelResponse = await self.stub.SetBotLevel(
            request, metadata=((HOST_TOKEN_KEY, host_token),), timeout=self.timeout
        )
        return response.table

    async def play_again(
        self, table_id: str, seat_token: str, host_token: str | None = None
    ) -> service_pb2.PlayAgainResponse:
        """Sit at the follow-up table of a finished one (PlayAgain): the same game, options and seats, each
        bot at its level, and everyone who asks moves to the same table; with the host token, the new
        table's host token comes back too. Retried once on UNAVAILABLE (a retry gets the same seat)."""
        metadata = [(SEAT_TOKEN_KEY, seat_token)]
        if host_token:
            metadata.append((HOST_TOKEN_KEY, host_token))
        response: service_pb2.PlayAgainResponse = await self.stub.PlayAgain(
            service_pb2.PlayAgainRequest(table_id=table_id), metadata=tuple(metadata), timeout=self.timeout
        )
        return response

    async def start(self, table_id: str, host_token: str) -> None:
        await self.stub.StartTable(
            service_pb2.StartTableRequest(table_id=table_id),
            metadata=((HOST_TOKEN_KEY, host_token),),
            timeout=self.timeout,
        )

    async def start_now(self, table_id: str, host_token: str) -> None:
        """What a host's "Start now" means (host only): bots take the open seats, then the game starts. The
        server's StartTable alone refuses a table with open seats; the last bot may start it by itself."""
        for seat in (await self.get_table(table_id)).seats:
            if seat.kind == table_pb2.SEAT_KIND_EMPTY:
                await self.add_bot(table_id, host_token, seat.index)
        if (await self.get_table(table_id)).status == table_pb2.TABLE_STATUS_LOBBY:
            await self.start(table_id, host_token)

    async def issue_device_token(self, table_id: str, host_token: str) -> str:
        response = await self.stub.IssueDeviceToken(
            service_pb2.IssueDeviceTokenRequest(table_id=table_id),
            metadata=((HOST_TOKEN_KEY, host_token),),
            timeout=self.timeout,
        )
        return str(response.device_token)

    async def device_roll(
        self, table_id: str, device_token: str, version: int, request_id: str | None = None
    ) -> service_pb2.ActResponse:
        """A hardware button's roll for whoever must roll now (the only thing a device token can do). Like
        every `Act`, it carries a request id (a fresh one unless given): a press sent again with the same id
        rolls once."""
        request = service_pb2.ActRequest(
            table_id=table_id, version=version, action_id=DEVICE_ACTION, request_id=request_id or uuid.uuid4().hex
        )
        response: service_pb2.ActResponse = await self.stub.Act(
            request, metadata=((DEVICE_TOKEN_KEY, device_token),), timeout=self.timeout
        )
        return response

    async def kick(self, table_id: str, host_token: str, seat: int) -> None:
        await self.stub.KickSeat(
            service_pb2.KickSeatRequest(table_id=table_id, seat=seat),
            metadata=((HOST_TOKEN_KEY, host_token),),
            timeout=self.timeout,
        )

    async def hand_to_bot(self, table_id: str, host_token: str, seat: int) -> None:
        """A bot plays the person's seat now, until they act or connect again (host only)."""
        await self.stub.HandSeatToBot(
            service_pb2.HandSeatToBotRequest(table_id=table_id, seat=seat),
            metadata=((HOST_TOKEN_KEY, host_token),),
            timeout=self.timeout,
        )

    async def end_table(self, table_id: str, host_token: str) -> None:
        """End the table now, in the lobby or in play (host only); its outcome says the host ended it."""
        await self.stub.EndTable(
            service_pb2.EndTableRequest(table_id=table_id),
            metadata=((HOST_TOKEN_KEY, host_token),),
            timeout=self.timeout,
        )

    async def leave(self, table_id: str, seat_token: str) -> None:
        await self.stub.LeaveTable(
            service_pb2.LeaveTableRequest(table_id=table_id),
            metadata=((SEAT_TOKEN_KEY, seat_token),),
            timeout=self.timeout,
        )

    async def act(
        self, table_id: str, seat_token: str, version: int, action_id: str, request_id: str | None = None
    ) -> service_pb2.ActResponse:
        """Send one legal action by its id, with `request_id` (a fresh one unless given: the server refuses an
        Act without one): on the seat's open `Play` stream (`follow`) when there is one, else as a unary Act,
        retried once on UNAVAILABLE with the same request id, which the server never applies twice."""
        request = service_pb2.ActRequest(
            table_id=table_id, version=version, action_id=action_id, request_id=request_id or uuid.uuid4().hex
        )
        play = self._plays.get((table_id, seat_token))
        if play is not None and play.open:  # the seat's Play stream is open: the act rides it
            with contextlib.suppress(StreamGone, TimeoutError):
                return await play.act(request, self.timeout)
            # Not answered there: sent again as a unary Act with the same request id (never applied twice).
        response: service_pb2.ActResponse = await self._once_more_when_unavailable(
            self.stub.Act, request, ((SEAT_TOKEN_KEY, seat_token),)
        )
        return response

    async def _once_more_when_unavailable(
        self, method: Any, request: Any, metadata: tuple[tuple[str, str], ...] | None = None
    ) -> Any:
        """Call `method`; if the server could not be reached, call it again with the same request (and so the
        same request id, which the server never applies twice), this time waiting up to the timeout for the
        channel to connect. A call that fails fast while the channel backs off (a restart, a port briefly
        re-opened) would otherwise fail again at once, and a person's move would be lost to a blip."""
        try:
            return await method(request, metadata=metadata, timeout=self.timeout)
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.UNAVAILABLE:
                raise
        await asyncio.sleep(RETRY_PAUSE)
        return await method(request, metadata=metadata, timeout=self.timeout, wait_for_ready=True)

    async def history(self, table_id: str, seat_token: str | None = None) -> list[table_pb2.HistoryStep]:
        """The table's history as this seat (or a spectator, without a token) may know it."""
        metadata = ((SEAT_TOKEN_KEY, seat_token),) if seat_token else None
        call = self.stub.GetHistory(
            service_pb2.GetHistoryRequest(table_id=table_id), metadata=metadata, timeout=self.timeout * 6
        )
        return [response.step async for response in call]

    def watch(
        self, table_id: str, seat_token: str | None = None, since_version: int | None = None
    ) -> grpc.aio.UnaryStreamCall:
        """One stream of updates (no reconnects): for tests and tools that want the raw stream."""
        request = service_pb2.WatchRequest(table_id=table_id)
        if since_version is not None:
            request.since_version = since_version
        metadata = ((SEAT_TOKEN_KEY, seat_token),) if seat_token else None
        return self.stub.Watch(request, metadata=metadata)

    async def follow(
        self,
        table_id: str,
        seat_token: str | None = None,
        max_backoff: float = 10.0,
        give_up_after: float | None = None,
    ) -> AsyncIterator[table_pb2.Update | StreamState]:
        """Follow a table for as long as the caller iterates: yields updates, and a StreamState whenever the
        connection is lost or back. Reconnects with jittered exponential backoff and resumes from the last
        version seen, so nothing is missed and nothing repeats. Errors that a retry cannot fix (unknown
        table, bad token) are raised.
        """
        since: int | None = None
        delays = backoff(cap=max_backoff)
        lost_at: float | None = None
        loop = asyncio.get_running_loop()
        while True:
            stream = self._open_stream(table_id, seat_token, since)
            try:
                async for update in stream:
                    if lost_at is not None:
                        lost_at = None
                        delays = backoff(cap=max_backoff)
                        yield StreamState(connected=True, message="reconnected")
                    since = update.version
                    yield update
                # The server ended the stream (shutdown): treat it as a lost connection.
                raise_message = "the server closed the stream"
            except grpc.aio.AioRpcError as error:
                if error.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED):
                    raise
                raise_message = describe_rpc_error(error)
            finally:
                await stream.aclose()
            now = loop.time()
            if lost_at is None:
                lost_at = now
                yield StreamState(connected=False, message=raise_message)
            if give_up_after is not None and now - lost_at > give_up_after:
                raise ConnectionError(f"gave up after {give_up_after:.0f} s: {raise_message}")
            await asyncio.sleep(next(delays))

    async def _open_stream(
        self, table_id: str, seat_token: str | None, since: int | None
    ) -> AsyncGenerator[table_pb2.Update, None]:
        """One stream of a table's updates: a seat's `Play` stream (whose acts `act` then sends on it), or
        `Watch` for a spectator, for a server without `Play`, or with `use_play` off."""
        if seat_token is None or not self.use_play:
            call = self.watch(table_id, seat_token, since)
            try:
                async for response in call:
                    yield response.update
            finally:
                call.cancel()
            return
        play = PlayStream(self.stub, table_id, seat_token, since)
        key = (table_id, seat_token)
        try:
            await play.start()
            self._plays[key] = play
            async for update in play.updates():
                yield update
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.UNIMPLEMENTED:
                raise
            self.use_play = False  # an older server: Watch and unary Act from now on
            raise grpc.aio.AioRpcError(
                grpc.StatusCode.UNAVAILABLE, error.initial_metadata(), error.trailing_metadata(), "watching instead"
            ) from None
        finally:
            if self._plays.get(key) is play:
                del self._plays[key]
            await play.close()
