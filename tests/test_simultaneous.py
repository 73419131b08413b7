"""A decision several seats owe at once (Level Up!'s vote) is never refused because someone else decided first,
while a seat whose own decision the table moved past is still refused with ABORTED (`TableCore._still_deciding`;
the rule is said at `ActRequest.version` in service.proto). On a real server over gRPC.
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Callable

import grpc
import pytest

from toadstool.api.v1 import levelup_pb2, service_pb2, table_pb2
from toadstool.server.app import RunningServer
from toadstool_clients.connection import SEAT_TOKEN_KEY, Client

SECONDS = 10.0


async def _latest(client: Client, table_id: str, token: str) -> table_pb2.Update:
    call = client.watch(table_id, token)
    try:
        return (await asyncio.wait_for(call.read(), SECONDS)).update
    finally:
        call.cancel()


async def _act(client: Client, table_id: str, token: str, version: int, action_id: str) -> service_pb2.ActResponse:
    request = service_pb2.ActRequest(
        table_id=table_id, version=version, action_id=action_id, request_id=uuid.uuid4().hex
    )
    response: service_pb2.ActResponse = await client.stub.Act(
        request, metadata=((SEAT_TOKEN_KEY, token),), timeout=SECONDS
    )
    return response


async def _people_at_a_table(client: Client, game: str, players: int, seed: int) -> tuple[str, list[str]]:
    created = await client.create_table(game, players, bots=0, seed=seed, takeover_seconds=0)
    table_id = created.table.table_id
    tokens = [(await client.join(table_id, f"Pat {seat}")).seat_token for seat in range(players)]
    return table_id, tokens


async def _play_until(
    client: Client, table_id: str, tokens: list[str], done: Callable[[table_pb2.Update], bool], seed: int
) -> table_pb2.Update:
    """Act at random for whoever must act until `done(update)` holds; that update (as seat 0 sees it)."""
    rng = random.Random(seed)
    for _ in range(2000):
        update = await _latest(client, table_id, tokens[0])
        if done(update):
            return update
        assert update.status == table_pb2.TABLE_STATUS_PLAYING, "the game ended before the moment the test needs"
        seat = update.to_act[0]
        mine = await _latest(client, table_id, tokens[seat])
        await _act(client, table_id, tokens[seat], mine.version, rng.choice(mine.legal_actions).id)
    raise AssertionError("the moment never came")


def _voting(update: table_pb2.Update) -> bool:
    return update.view.levelup.stage == levelup_pb2.LEVEL_UP_STAGE_VOTE and len(update.to_act) == len(update.seats)


async def test_four_people_voting_in_the_same_instant_on_the_version_they_saw_are_all_accepted(
    server: RunningServer, client: Client
) -> None:
    table_id, tokens = await _people_at_a_table(client, "levelup", 4, seed=5)
    opened = await _play_until(client, table_id, tokens, _voting, seed=5)
    seen = [await _latest(client, table_id, token) for token in tokens]
    assert {update.version for update in seen} == {opened.version}, "everyone decides on the same version"
    answers = await asyncio.gather(
        *(
            _act(client, table_id, token, update.version, update.legal_actions[0].id)
            for token, update in zip(tokens, seen, strict=True)
        )
    )
    assert sorted(answer.version for answer in answers) == [opened.version + n for n in (1, 2, 3, 4)]
    after = await _latest(client, table_id, tokens[0])
    assert after.version == opened.version + 4
    assert not _voting(after), "all four votes counted: the vote is over"


async def test_a_vote_sent_on_the_version_before_anothers_vote_is_accepted_and_a_second_vote_is_not(
    server: RunningServer, client: Client
) -> None:
    table_id, tokens = await _people_at_a_table(client, "levelup", 3, seed=8)
    opened = await _play_until(client, table_id, tokens, _voting, seed=8)
    first = await _latest(client, table_id, tokens[0])
    second = await _latest(client, table_id, tokens[1])
    await _act(client, table_id, tokens[0], first.version, first.legal_actions[0].id)
    late = await _act(client, table_id, tokens[1], second.version, second.legal_actions[0].id)
    assert late.version == opened.version + 2
    with pytest.raises(grpc.aio.AioRpcError) as caught:  # seat 0 already voted: its vote is no longer legal
        await _act(client, table_id, tokens[0], first.version, first.legal_actions[-1].id)
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert (await _latest(client, table_id, tokens[2])).version == opened.version + 2, "the refusal changed nothing"


async def test_an_action_on_a_version_from_before_the_seats_own_last_move_is_still_refused_as_stale(
    server: RunningServer, client: Client
) -> None:
    table_id, tokens = await _people_at_a_table(client, "uno", 2, seed=3)
    start = await _latest(client, table_id, tokens[0])
    actor = start.to_act[0]
    old = await _latest(client, table_id, tokens[actor])

    def back_to(update: table_pb2.Update) -> bool:
        return update.version > old.version and list(update.to_act) == [actor]

    now = await _play_until(client, table_id, tokens, back_to, seed=3)
    mine = await _latest(client, table_id, tokens[actor])
    still_legal = {legal.id for legal in mine.legal_actions} & {legal.id for legal in old.legal_actions}
    action_id = sorted(still_legal)[0] if still_legal else mine.legal_actions[0].id
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await _act(client, table_id, tokens[actor], old.version, action_id)
    assert caught.value.code() == grpc.StatusCode.ABORTED
    assert (await _latest(client, table_id, tokens[actor])).version == now.version
