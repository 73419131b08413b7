"""Play again (PlayAgain, issue #41): after a finished game, the same people, seats, options, clocks and bots
at a new table, which the finished table then names (TableInfo.next_table_id) so that every client follows.

A real server on loopback, over gRPC and over the Connect protocol (its web side): the first call creates the
follow-up and every later one returns it; each person takes the seat they had with their old seat token (a
retry gets the same seat and token back); bots keep their seats; only the host's call carries the new host
token; a call without a seat token, or before the game is over, is refused and creates nothing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import grpc
import pytest
from web_helpers import ConnectError, WebClient

from conftest import TEST_LIMITS
from toadstool.api.v1 import service_pb2, table_pb2
from toadstool.server.app import RunningServer, ServerConfig, running_server
from toadstool_clients.connection import HOST_TOKEN_KEY, SEAT_TOKEN_KEY, Client

#: How long the bots may take to finish the game (instant bots: well under a second).
GAME_SECONDS = 60.0


@pytest.fixture
async def web_server() -> AsyncIterator[RunningServer]:
    config = ServerConfig(host="127.0.0.1", port=0, bot_delay=0.0, grace=0.5, limits=TEST_LIMITS, web_port=0)
    async with running_server(config) as running:
        yield running


async def _finished_table(client: Client, name: str = "Friday") -> tuple[str, str, list[str]]:
    """A Power Up table of three (Ann, Bea, a bot in seat 2) played to its end by bots standing in for the
    two people (the host's HandSeatToBot); its id, host token and the two seat tokens."""
    created = await client.create_table("powerup", 3, bots=1, seed=11, name=name, turn_seconds=0)
    table_id, host = created.table.table_id, created.host_token
    tokens = [(await client.join(table_id, name)).seat_token for name in ("Ann", "Bea")]
    for seat in (0, 1):
        await client.stub.HandSeatToBot(
            service_pb2.HandSeatToBotRequest(table_id=table_id, seat=seat), metadata=((HOST_TOKEN_KEY, host),)
        )
    deadline = time.monotonic() + GAME_SECONDS
    while (await client.get_table(table_id)).status != table_pb2.TABLE_STATUS_FINISHED:
        assert time.monotonic() < deadline, "the bots did not finish the game"
        await asyncio.sleep(0.05)
    return table_id, host, tokens


async def _again(client: Client, table_id: str, *metadata: tuple[str, str]) -> service_pb2.PlayAgainResponse:
    response: service_pb2.PlayAgainResponse = await client.stub.PlayAgain(
        service_pb2.PlayAgainRequest(table_id=table_id), metadata=metadata
    )
    return response


async def test_play_again_seats_the_same_people_and_bots_at_one_new_table_over_grpc_and_connect(
    web_server: RunningServer,
) -> None:
    assert web_server.web is not None
    async with Client(web_server.address) as client:
        old, host, (ann, bea) = await _finished_table(client)
        before = {t.table_id for t in await client.list_tables()}
        assert (await client.get_table(old)).next_table_id == "", "nobody asked yet"

        first = await _again(client, old, (SEAT_TOKEN_KEY, ann), (HOST_TOKEN_KEY, host))
        new = first.table.table_id
        assert new != old
        assert first.seat == 0
        assert first.host_token, "the host's call carries the new table's host token"
        assert first.table.game == "powerup"
        assert first.table.name == "Friday"
        assert [s.kind for s in first.table.seats] == [
            table_pb2.SEAT_KIND_HUMAN,
            table_pb2.SEAT_KIND_EMPTY,
            table_pb2.SEAT_KIND_BOT,
        ], "Bea's seat waits for her; the bot keeps its seat"
        assert first.table.status == table_pb2.TABLE_STATUS_LOBBY
        assert (await client.get_table(old)).next_table_id == new, "the finished table names its follow-up"

        retry = await _again(client, old, (SEAT_TOKEN_KEY, ann))
        assert (retry.table.table_id, retry.seat, retry.seat_token) == (new, 0, first.seat_token)
        assert retry.host_token == "", "only a call with the old host token gets the new one"

        # Bea follows over the Connect protocol (the browser's way): her own seat, and the game starts.
        async with WebClient(f"http://127.0.0.1:{web_server.web.port}", codec="proto") as web:
            listed = await web.call("GetTable", service_pb2.GetTableRequest(table_id=old), service_pb2.GetTableResponse)
            assert listed.table.next_table_id == new
            joined = await web.call(
                "PlayAgain", service_pb2.PlayAgainRequest(table_id=old), service_pb2.PlayAgainResponse, token=bea
            )
        assert (joined.table.table_id, joined.seat) == (new, 1)
        assert joined.table.seats[1].name == "Bea"
        assert joined.table.status == table_pb2.TABLE_STATUS_PLAYING, "every seat taken: it starts by itself"
        after = {t.table_id for t in await client.list_tables()}
        assert after - before == {new}, "one follow-up, however many asked"
        # The new seat token plays at the new table, not the old one's.
        update = await asyncio.wait_for(client.watch(new, joined.seat_token).read(), 10)
        assert update.update.viewer_seat == 1

        # A table without a name of its own gets a new default one, not one naming the old table's id.
        unnamed, _, (cy, _) = await _finished_table(client, name="")
        assert (await client.get_table(unnamed)).name.endswith(unnamed)
        follow = await _again(client, unnamed, (SEAT_TOKEN_KEY, cy))
        assert follow.table.name.endswith(follow.table.table_id)


async def test_play_again_is_refused_without_a_seat_token_or_before_the_end(web_server: RunningServer) -> None:
    async with Client(web_server.address) as client:
        created = await client.create_table("powerup", 2, bots=0, seed=5)
        table_id = created.table.table_id
        token = (await client.join(table_id, "Ann")).seat_token
        before = len(await client.list_tables())
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await _again(client, table_id, (SEAT_TOKEN_KEY, token))
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "not over yet" in (refused.value.details() or "")
        old, _, _ = await _finished_table(client)
        with pytest.raises(grpc.aio.AioRpcError) as anonymous:
            await _again(client, old)
        assert anonymous.value.code() == grpc.StatusCode.UNAUTHENTICATED
        with pytest.raises(grpc.aio.AioRpcError) as stranger:
            await _again(client, old, (SEAT_TOKEN_KEY, token))  # a token of another table
        assert stranger.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert len(await client.list_tables()) == before + 1, "only the finished table was added: no follow-up"
        assert (await client.get_table(old)).next_table_id == ""
        assert web_server.web is not None
        async with WebClient(f"http://127.0.0.1:{web_server.web.port}") as web:
            with pytest.raises(ConnectError) as over_connect:
                await web.call("PlayAgain", service_pb2.PlayAgainRequest(table_id=old), service_pb2.PlayAgainResponse)
        assert over_connect.value.code == grpc.StatusCode.UNAUTHENTICATED
