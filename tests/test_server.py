"""The server's own surface over real sockets: reflection, health, the game list, and the table lifecycle
(lobby -> playing -> finished, host-only controls, seats and their connection status)."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from toadstool.api.v1 import table_pb2
from toadstool.bots import table_options
from toadstool.games import GAMES
from toadstool.server.app import RunningServer
from toadstool_clients.connection import Client


async def _next_update(call: grpc.aio.UnaryStreamCall) -> table_pb2.Update:
    response = await asyncio.wait_for(call.read(), 10)
    return response.update


async def test_reflection_and_health_let_any_client_discover_the_api(server: RunningServer) -> None:
    async with grpc.aio.insecure_channel(server.address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        reply = await health.Check(health_pb2.HealthCheckRequest(service="toadstool.v1.ToadstoolService"))
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        responses = stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]))
        services = []
        async for response in responses:
            services = [s.name for s in response.list_services_response.service]
            break
        assert "toadstool.v1.ToadstoolService" in services
        assert "grpc.health.v1.Health" in services


async def test_list_games_shows_every_registered_game_with_its_options(client: Client) -> None:
    games = {g.name: g for g in await client.list_games()}
    assert set(games) == set(GAMES)
    for name, spec in GAMES.items():
        assert games[name].min_players == spec.engine.min_players
        assert games[name].max_players == spec.engine.max_players
        assert [o.name for o in games[name].options] == [o.name for o in table_options(spec.engine)]


async def test_a_manual_table_waits_for_its_host(server: RunningServer, client: Client) -> None:
    game = sorted(GAMES)[0]
    players = GAMES[game].engine.min_players
    created = await client.create_table(game, players, manual_start=True, seed=1)
    table_id = created.table.table_id
    assert created.table.status == table_pb2.TABLE_STATUS_LOBBY
    joined = await client.join(table_id, "Ann")
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await client.add_bot(table_id, "not-the-host")
    assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await client.start(table_id, created.host_token)
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "open seats" in (caught.value.details() or "")
    for _ in range(players - 1):
        await client.add_bot(table_id, created.host_token)
    info = await client.get_table(table_id)
    assert info.status == table_pb2.TABLE_STATUS_LOBBY
    assert info.open_seats == 0
    call = client.watch(table_id, joined.seat_token)
    first = await _next_update(call)
    assert first.status == table_pb2.TABLE_STATUS_LOBBY
    await client.start(table_id, created.host_token)
    started = await _next_update(call)
    while started.status == table_pb2.TABLE_STATUS_LOBBY:
        started = await _next_update(call)
    assert started.status == table_pb2.TABLE_STATUS_PLAYING
    assert started.HasField("view")
    call.cancel()


async def test_a_full_table_starts_by_itself_and_seats_show_their_connection(
    server: RunningServer, client: Client
) -> None:
    game = sorted(GAMES)[0]
    created = await client.create_table(game, 2, seed=2)
    table_id = created.table.table_id
    ann = await client.join(table_id, "Ann")
    ann_call = client.watch(table_id, ann.seat_token)
    update = await _next_update(ann_call)
    assert update.status == table_pb2.TABLE_STATUS_LOBBY
    assert update.seats[0].connected
    bob = await client.join(table_id, "Bob")
    update = await _next_update(ann_call)
    while update.status != table_pb2.TABLE_STATUS_PLAYING:
        update = await _next_update(ann_call)
    assert not update.seats[1].connected
    bob_call = client.watch(table_id, bob.seat_token)
    await _next_update(bob_call)
    update = await _next_update(ann_call)
    assert update.seats[1].connected
    bob_call.cancel()
    update = await _next_update(ann_call)
    assert not update.seats[1].connected
    ann_call.cancel()


async def test_leaving_in_the_lobby_frees_the_seat_and_leaving_in_play_hands_it_to_a_bot(client: Client) -> None:
    game = sorted(GAMES)[0]
    created = await client.create_table(game, 2, seed=3)
    table_id = created.table.table_id
    ann = await client.join(table_id, "Ann")
    await client.leave(table_id, ann.seat_token)
    assert (await client.get_table(table_id)).open_seats == 2
    ann = await client.join(table_id, "Ann")
    await client.join(table_id, "Bob")
    await client.leave(table_id, ann.seat_token)
    info = await client.get_table(table_id)
    assert info.seats[ann.seat].kind == table_pb2.SEAT_KIND_BOT
    assert info.status in (table_pb2.TABLE_STATUS_PLAYING, table_pb2.TABLE_STATUS_FINISHED)
