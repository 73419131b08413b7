"""The contract a client is written against (issue #17): every refusal's message stays short whatever the
request sent, quoting its values only as a short preview and never a token; an `Act` without a request id
is refused, so retry safety cannot be lost by forgetting a field; and action ids never spell out an unset
field. A real server on loopback, real gRPC calls."""

from __future__ import annotations

import asyncio
import random
import sqlite3
import uuid
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest

from conftest import TEST_LIMITS
from e2e_helpers import first_update
from toadstool.api.v1 import service_pb2, table_pb2
from toadstool.games import GAMES
from toadstool.server.app import RunningServer, ServerConfig, running_server
from toadstool_clients.connection import DEVICE_TOKEN_KEY, SEAT_TOKEN_KEY, Client

#: Well under 1 KiB: the whole message of any refusal, however long the input it quotes.
SHORT = 1024
#: How many characters of an echoed value a message shows before its ellipsis.
PREVIEW = 40
LONG = (5_000, 10_000)


def _long(length: int, alphabet: str = "abcdefghij") -> str:
    """`length` characters whose first PREVIEW identify where a message cut them."""
    return (alphabet * (length // len(alphabet) + 1))[:length]


def _preview(value: str) -> str:
    return value[:PREVIEW] + "…"


async def _refusal(call: object) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    return caught.value


def _short_and_quoting(error: grpc.aio.AioRpcError, code: grpc.StatusCode, value: str | None) -> str:
    """The refusal has `code` and a short message that quotes `value` (when given) only as its preview."""
    details = error.details() or ""
    assert error.code() == code, (error.code(), details[:300])
    assert len(details.encode()) < SHORT, len(details)
    if value is not None:
        assert _preview(value) in details, details
        assert value[: PREVIEW + 1] not in details, details
    return details


async def _seated_table(client: Client, game: str) -> tuple[str, list[str]]:
    """A table of `game` at its fewest players, every seat held by this test; returns its id and tokens."""
    engine = GAMES[game].engine
    created = await client.create_table(game, engine.min_players, seed=7, options=engine.quick_options)
    table_id = created.table.table_id
    tokens = [(await client.join(table_id, f"P{i}")).seat_token for i in range(engine.min_players)]
    return table_id, tokens


async def _actor_update(client: Client, table_id: str, tokens: list[str]) -> tuple[str, table_pb2.Update]:
    """The token of a seat the game waits for, and that seat's update."""
    probe = await first_update(client, table_id, None)
    token = tokens[probe.to_act[0]]
    return token, await first_update(client, table_id, token)


# -- part 2: errors that echo input are bounded ------------------------------------------------------------


@pytest.mark.parametrize("length", LONG)
async def test_a_huge_game_name_is_refused_with_a_short_message_that_quotes_only_its_start(
    client: Client, length: int
) -> None:
    game = _long(length)
    error = await _refusal(client.stub.CreateTable(service_pb2.CreateTableRequest(game=game, players=2), timeout=10))
    details = _short_and_quoting(error, grpc.StatusCode.INVALID_ARGUMENT, game)
    assert "unknown game" in details
    assert "uno" in details  # and it still names the games this server hosts


@pytest.mark.parametrize("length", LONG)
def test_a_generic_actions_huge_field_value_is_quoted_only_by_its_start(length: int) -> None:
    """A plug-in game's typed action (`Action.generic`) with a number or enum field given a huge value:
    the refusal (Act's "malformed action: ...") quotes only its start."""
    import enum

    from toadstool.server import wire

    class Colour(enum.Enum):
        RED = 1

    for hint in (int, Colour):
        with pytest.raises(ValueError, match="…") as refused:
            wire.from_plain(_long(length), hint)
        assert len(str(refused.value)) < 120


@pytest.mark.parametrize("length", LONG)
async def test_huge_option_names_and_values_are_refused_with_short_messages_quoting_their_start(
    client: Client, length: int
) -> None:
    value = _long(length, "9876543210")
    cases = [
        ("uno", {_long(length): "1"}, _long(length), "unknown option"),
        ("uno", {"target": value}, value, "whole number"),  # too many digits for a number at all
        ("uno", {"target": value[:4_000]}, value[:4_000], "at most"),  # a number, far out of range
        ("uno", {"lowest_wins": _long(length)}, _long(length), "true or false"),
        ("kart", {"track": _long(length)}, _long(length), "must be one of"),
    ]
    for game, options, echoed, words in cases:
        request = service_pb2.CreateTableRequest(game=game, players=2, options=options)
        error = await _refusal(client.stub.CreateTable(request, timeout=10))
        details = _short_and_quoting(error, grpc.StatusCode.INVALID_ARGUMENT, echoed)
        assert words in details, details


async def test_an_unknown_table_id_is_quoted_as_a_preview_and_a_huge_one_not_at_all(client: Client) -> None:
    table_id = _long(250)
    stub = client.stub
    calls: list[Callable[[str], object]] = [
        lambda t: stub.GetTable(service_pb2.GetTableRequest(table_id=t), timeout=10),
        lambda t: stub.JoinTable(service_pb2.JoinTableRequest(table_id=t, name="Ann"), timeout=10),
        lambda t: stub.Act(service_pb2.ActRequest(table_id=t, action_id="roll", request_id="r-1"), timeout=10),
        lambda t: stub.Watch(service_pb2.WatchRequest(table_id=t), timeout=10).read(),
    ]
    for call in calls:
        error = await _refusal(call(table_id))
        assert "no table" in _short_and_quoting(error, grpc.StatusCode.NOT_FOUND, table_id)
        for length in LONG:
            error = await _refusal(call(_long(length)))
            assert "table id" in _short_and_quoting(error, grpc.StatusCode.INVALID_ARGUMENT, None)


@pytest.mark.parametrize("length", LONG)
async def test_huge_action_ids_names_and_request_ids_get_short_refusals(
    server: RunningServer, client: Client, length: int
) -> None:
    table_id, tokens = await _seated_table(client, "uno")
    token, update = await _actor_update(client, table_id, tokens)
    before = server.registry.tables[table_id].version
    seat = ((SEAT_TOKEN_KEY, token),)
    huge = _long(length)

    def act(**fields: object) -> object:
        fields.setdefault("request_id", uuid.uuid4().hex)
        request = service_pb2.ActRequest(table_id=table_id, version=update.version, **fields)  # type: ignore[arg-type]
        return client.stub.Act(request, metadata=seat, timeout=10)

    error = await _refusal(act(action_id=huge))
    _short_and_quoting(error, grpc.StatusCode.INVALID_ARGUMENT, None)
    error = await _refusal(act(action_id=huge[:200]))  # short enough to look up: not legal, and not quoted
    _short_and_quoting(error, grpc.StatusCode.FAILED_PRECONDITION, None)
    error = await _refusal(act(action_id=update.legal_actions[0].id, request_id=huge))
    _short_and_quoting(error, grpc.StatusCode.INVALID_ARGUMENT, None)
    lobby = await client.create_table("uno", 2)
    error = await _refusal(client.join(lobby.table.table_id, huge))
    _short_and_quoting(error, grpc.StatusCode.INVALID_ARGUMENT, None)
    error = await _refusal(client.create_table("uno", 2, name=huge))
    _short_and_quoting(error, grpc.StatusCode.INVALID_ARGUMENT, None)
    assert server.registry.tables[table_id].version == before


async def test_a_reused_request_id_is_quoted_as_a_preview(client: Client) -> None:
    table_id, tokens = await _seated_table(client, "uno")
    token, update = await _actor_update(client, table_id, tokens)
    request_id = _long(256)
    await client.act(table_id, token, update.version, update.legal_actions[0].id, request_id=request_id)
    error = await _refusal(client.act(table_id, token, update.version + 1, "another", request_id=request_id))
    _short_and_quoting(error, grpc.StatusCode.ALREADY_EXISTS, request_id)


async def test_a_refused_token_is_never_quoted(client: Client) -> None:
    table_id, _ = await _seated_table(client, "uno")
    forged = "forged-" + _long(4_000)
    stub = client.stub
    for key, call in [
        (SEAT_TOKEN_KEY, lambda m: stub.LeaveTable(service_pb2.LeaveTableRequest(table_id=table_id), metadata=m)),
        (SEAT_TOKEN_KEY, lambda m: stub.Watch(service_pb2.WatchRequest(table_id=table_id), metadata=m).read()),
        ("x-host-token", lambda m: stub.StartTable(service_pb2.StartTableRequest(table_id=table_id), metadata=m)),
        ("x-host-token", lambda m: stub.KickSeat(service_pb2.KickSeatRequest(table_id=table_id), metadata=m)),
        (
            DEVICE_TOKEN_KEY,
            lambda m: stub.Act(service_pb2.ActRequest(table_id=table_id, action_id="roll", request_id="r"), metadata=m),
        ),
    ]:
        error = await _refusal(call(((key, forged),)))
        details = error.details() or ""
        assert error.code() in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED), details
        assert len(details) < SHORT
        assert "forged" not in details, details
        assert forged[7:27] not in details, details


# -- part 3: retry safety cannot be lost by accident -------------------------------------------------------


async def test_an_act_without_a_request_id_is_refused_and_changes_nothing(
    server: RunningServer, client: Client
) -> None:
    table_id, tokens = await _seated_table(client, "uno")
    token, update = await _actor_update(client, table_id, tokens)
    table = server.registry.tables[table_id]
    before = table.version
    legal = update.legal_actions[0]
    seat = ((SEAT_TOKEN_KEY, token),)
    for request in [
        service_pb2.ActRequest(table_id=table_id, version=update.version, action_id=legal.id),
        service_pb2.ActRequest(table_id=table_id, version=update.version, action=legal.action),
    ]:
        error = await _refusal(client.stub.Act(request, metadata=seat, timeout=10))
        details = _short_and_quoting(error, grpc.StatusCode.INVALID_ARGUMENT, None)
        assert "request_id" in details, details
        assert "retry" in details, details
        assert table.version == before
        assert (await client.get_table(table_id)).version == before
    # The same action with a request id is accepted: the refusal was about the missing id alone.
    request = service_pb2.ActRequest(table_id=table_id, version=update.version, action_id=legal.id, request_id="r1")
    reply = await client.stub.Act(request, metadata=seat, timeout=10)
    assert reply.version == before + 1


async def test_a_device_roll_without_a_request_id_is_refused_and_the_client_always_sends_one(
    server: RunningServer, client: Client
) -> None:
    engine = GAMES["kart"].engine
    created = await client.create_table("kart", 2, bots=1, seed=3, options=engine.quick_options, bot_delay_ms=0)
    table_id = created.table.table_id
    ann = await client.join(table_id, "Ann")
    device = await client.issue_device_token(table_id, created.host_token)
    table = server.registry.tables[table_id]
    roller = await _wait_for_a_roll(client, table_id, ann.seat_token)
    before = table.version
    request = service_pb2.ActRequest(table_id=table_id, version=roller.version, action_id="roll")
    error = await _refusal(client.stub.Act(request, metadata=((DEVICE_TOKEN_KEY, device),), timeout=10))
    assert "request_id" in _short_and_quoting(error, grpc.StatusCode.INVALID_ARGUMENT, None)
    assert table.version == before
    reply = await client.device_roll(table_id, device, roller.version)  # no id given: the client makes one
    assert reply.version == before + 1
    assert not reply.replayed


async def _wait_for_a_roll(client: Client, table_id: str, token: str) -> table_pb2.Update:
    """The seat's update at which the game waits for it to roll (the bot plays until the person must)."""
    call = client.watch(table_id, token)
    try:
        while True:
            update = (await asyncio.wait_for(call.read(), 10)).update
            if update.viewer_seat in update.to_act and any(a.id == "roll" for a in update.legal_actions):
                return update
    finally:
        call.cancel()


# -- part 3: action ids never spell out an unset field -----------------------------------------------------


def _targetless_item(update: table_pb2.Update) -> table_pb2.LegalAction | None:
    for legal in update.legal_actions:
        member = legal.action.kart
        if member.WhichOneof("kind") == "use_item" and not member.use_item.HasField("target"):
            return legal
    return None


async def _play_kart_until_a_targetless_item(
    client: Client, table_id: str, tokens: list[str], seen: list[str]
) -> tuple[str, table_pb2.Update, table_pb2.LegalAction]:
    """Play every seat at random until one may use an item that takes no target; every id seen is kept."""
    rng = random.Random(11)
    for _ in range(600):
        token, update = await _actor_update(client, table_id, tokens)
        seen.extend(legal.id for legal in update.legal_actions)
        found = _targetless_item(update)
        if found is not None:
            return token, update, found
        assert update.status == table_pb2.TABLE_STATUS_PLAYING, "the race ended before any item without target"
        choice = rng.choice([a for a in update.legal_actions if a.action.kart.WhichOneof("kind") != "discard"])
        await client.act(table_id, token, update.version, choice.id)
    raise AssertionError("no item without a target came up")


async def test_an_item_used_without_a_target_has_an_id_without_none(client: Client) -> None:
    table_id, tokens = await _seated_table(client, "kart")
    seen: list[str] = []
    token, update, legal = await _play_kart_until_a_targetless_item(client, table_id, tokens, seen)
    assert legal.id == "use_item"
    assert not [i for i in seen if "None" in i], seen
    # Fields that are set still spell out their values, as they always did.
    assert any(i.startswith("place_banana:field=") for i in seen), sorted(set(seen))
    reply = await client.act(table_id, token, update.version, legal.id)
    assert reply.version == update.version + 1


async def test_a_table_stored_with_none_in_its_action_ids_is_restored(tmp_path: Path) -> None:
    """Databases written before unset fields were left out of ids hold ``use_item:target=None``."""
    db = tmp_path / "toadstool.db"
    config = ServerConfig(host="127.0.0.1", port=0, bot_delay=0.0, grace=0.5, limits=TEST_LIMITS, db=str(db))
    async with running_server(config) as running, Client(running.address) as client:
        table_id, tokens = await _seated_table(client, "kart")
        token, update, legal = await _play_kart_until_a_targetless_item(client, table_id, tokens, [])
        await client.act(table_id, token, update.version, legal.id)
        version = running.registry.tables[table_id].version
    with sqlite3.connect(db) as connection:
        changed = connection.execute(
            "UPDATE actions SET action_id = 'use_item:target=None' WHERE table_id = ? AND action_id = 'use_item'",
            (table_id,),
        ).rowcount
    connection.close()
    assert changed == 1
    async with running_server(config) as running, Client(running.address) as client:
        assert table_id in running.registry.tables
        restored = await first_update(client, table_id, None)
        assert restored.version == version
