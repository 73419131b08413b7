"""Bad input over a real server: each gets the right gRPC status with a message a person can act on, and
the table is unchanged afterwards (same version, same views)."""

from __future__ import annotations

import uuid

import grpc
import pytest

from e2e_helpers import first_update, gather_players, play_randomly
from toadstool.api.v1 import service_pb2, table_pb2
from toadstool.games import GAMES
from toadstool.server import messages
from toadstool.server.app import RunningServer
from toadstool.server.messages import GENERIC, has_own_message
from toadstool_clients.connection import SEAT_TOKEN_KEY, Client

GAME_KEYS = sorted(GAMES)


async def _setup(client: Client, game: str) -> tuple[str, list[str], table_pb2.Update]:
    engine = GAMES[game].engine
    created = await client.create_table(game, engine.min_players, bots=0, seed=3)
    table_id = created.table.table_id
    tokens = [(await client.join(table_id, f"P{i}")).seat_token for i in range(engine.min_players)]
    probe = await first_update(client, table_id, tokens[0])
    return table_id, tokens, probe


async def _expect(code: grpc.StatusCode, call, *words: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    assert caught.value.code() == code, caught.value.details()
    details = caught.value.details() or ""
    for word in words:
        assert word in details, details


async def _snapshot(server: RunningServer, table_id: str) -> tuple[int, list[table_pb2.Update]]:
    """The table's version and every viewer's update, less connection flags (streams come and go)."""
    table = server.registry.tables[table_id]
    updates = [messages.update_for(table, s, table.version) for s in [*range(table.players), None]]
    for update in updates:
        for seat in update.seats:
            seat.connected = False
    return table.version, updates


@pytest.mark.parametrize("game", GAME_KEYS)
async def test_every_bad_request_is_refused_clearly_and_changes_nothing(
    server: RunningServer, client: Client, game: str
) -> None:
    table_id, tokens, probe = await _setup(client, game)
    before = await _snapshot(server, table_id)
    stub = client.stub
    actor = probe.to_act[0]
    actor_update = await first_update(client, table_id, tokens[actor])
    legal = actor_update.legal_actions[0]
    idle = next((s for s in range(len(tokens)) if s not in probe.to_act), None)

    def act(token: str | None, **fields: object):  # type: ignore[no-untyped-def]
        fields.setdefault("request_id", uuid.uuid4().hex)
        request = service_pb2.ActRequest(table_id=table_id, **fields)  # type: ignore[arg-type]
        metadata = ((SEAT_TOKEN_KEY, token),) if token else None
        return stub.Act(request, metadata=metadata, timeout=5)

    nowhere = service_pb2.ActRequest(table_id="nope", request_id="r-nowhere")
    await _expect(grpc.StatusCode.NOT_FOUND, stub.Act(nowhere), "no table")
    await _expect(grpc.StatusCode.UNAUTHENTICATED, act(None, action_id=legal.id, version=probe.version), "token")
    await _expect(grpc.StatusCode.UNAUTHENTICATED, act("forged", action_id=legal.id, version=probe.version), "token")
    if idle is not None:
        # Acting for another seat: a seat's token can only ever act as that seat.
        theirs = service_pb2.ActRequest(
            table_id=table_id, version=probe.version, action=legal.action, request_id=uuid.uuid4().hex
        )
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.Act(theirs, metadata=((SEAT_TOKEN_KEY, tokens[idle]),), timeout=5)
        assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "not legal" in (caught.value.details() or "")
    await _expect(grpc.StatusCode.ABORTED, act(tokens[actor], action_id=legal.id, version=probe.version + 5), "version")
    await _expect(grpc.StatusCode.FAILED_PRECONDITION, act(tokens[actor], action_id="no-such", version=probe.version))
    other_game = next(g for g in ("uno", "powerup", "levelup", "kart") if g != game)
    wrong = table_pb2.Action()
    getattr(wrong, other_game).SetInParent()
    await _expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        act(tokens[actor], action=wrong, version=probe.version),
        game,
        other_game,
    )
    empty = table_pb2.Action()
    getattr(empty, game if has_own_message(game) else GENERIC).SetInParent()
    await _expect(grpc.StatusCode.INVALID_ARGUMENT, act(tokens[actor], action=empty, version=probe.version), "action")
    await _expect(grpc.StatusCode.INVALID_ARGUMENT, act(tokens[actor], version=probe.version), "action")
    await _expect(
        grpc.StatusCode.RESOURCE_EXHAUSTED, act(tokens[actor], action_id="x" * 100_000, version=probe.version)
    )
    lobby = await client.create_table(game, GAMES[game].engine.min_players, seed=2)
    await _expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        stub.JoinTable(service_pb2.JoinTableRequest(table_id=lobby.table.table_id, name="\x1b\x07\u202e")),
        "name",
    )
    await _expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        stub.CreateTable(service_pb2.CreateTableRequest(game="chess", players=2)),
        "unknown game",
    )
    await _expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        stub.CreateTable(service_pb2.CreateTableRequest(game=game, players=99)),
        "players",
    )
    await _expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        stub.CreateTable(
            service_pb2.CreateTableRequest(game=game, players=GAMES[game].engine.min_players, options={"bogus": "1"})
        ),
        "bogus",
    )
    await _expect(
        grpc.StatusCode.UNAUTHENTICATED,
        stub.StartTable(service_pb2.StartTableRequest(table_id=table_id)),
        "host token",
    )
    await _expect(
        grpc.StatusCode.PERMISSION_DENIED,
        stub.StartTable(service_pb2.StartTableRequest(table_id=table_id), metadata=(("x-host-token", "forged"),)),
        "host",
    )
    # A token of another table is worthless here.
    other = await client.create_table(game, GAMES[game].engine.min_players, seed=1)
    foreign = (await client.join(other.table.table_id, "Zed")).seat_token
    await _expect(grpc.StatusCode.UNAUTHENTICATED, act(foreign, action_id=legal.id, version=probe.version), "token")
    assert await _snapshot(server, table_id) == before


@pytest.mark.parametrize("game", GAME_KEYS)
async def test_a_retried_request_id_is_applied_once(server: RunningServer, client: Client, game: str) -> None:
    table_id, tokens, probe = await _setup(client, game)
    actor = probe.to_act[0]
    update = await first_update(client, table_id, tokens[actor])
    first = await client.act(table_id, tokens[actor], update.version, update.legal_actions[0].id, request_id="r-1")
    again = await client.act(table_id, tokens[actor], update.version, update.legal_actions[0].id, request_id="r-1")
    assert first.version == again.version == update.version + 1
    assert not first.replayed
    assert again.replayed
    assert server.registry.tables[table_id].version == update.version + 1
    fresh = await first_update(client, table_id, tokens[actor])
    if fresh.legal_actions and fresh.legal_actions[0].id != update.legal_actions[0].id:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await client.act(table_id, tokens[actor], fresh.version, fresh.legal_actions[0].id, request_id="r-1")
        assert caught.value.code() == grpc.StatusCode.ALREADY_EXISTS


async def test_a_finished_game_refuses_actions(server: RunningServer, client: Client) -> None:
    game = GAME_KEYS[0]
    engine = GAMES[game].engine
    created = await client.create_table(game, engine.min_players, bots=engine.min_players - 1, seed=5, bot_delay_ms=0)
    table_id = created.table.table_id
    joined = await client.join(table_id, "Ann")
    transcript = await gather_players([play_randomly(server.address, table_id, joined.seat_token, joined.seat, 9)])
    last = transcript[0].last
    assert last.status == table_pb2.TABLE_STATUS_FINISHED
    table = server.registry.tables[table_id]
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await client.act(table_id, joined.seat_token, last.version, "anything")
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "over" in (caught.value.details() or "")
    assert table.version == last.version
