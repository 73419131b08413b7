"""End to end: real servers on loopback, real gRPC channels, several clients playing whole games.

For every registered game, people (scripted random players on their own channels), bots and a spectator
play a full game; then every message each of them received is checked against the engine: it must be
exactly that viewer's view, legal actions and events at that version, so nothing else can leave the
server (docs/design.md, principle 4).
"""

from __future__ import annotations

import pytest
from google.protobuf.message import Message

from e2e_helpers import Transcript, gather_players, play_randomly
from fuzz_helpers import replay_states
from toadstool.api.v1 import table_pb2
from toadstool.engine import action_id, event_text, name_seats
from toadstool.games import GAMES
from toadstool.server.app import RunningServer
from toadstool.server.messages import game_view_message
from toadstool_clients.connection import Client


def _check_transcript(table, transcript: Transcript, states) -> None:  # type: ignore[no-untyped-def]
    engine = table.engine
    names = table.names()
    for update in transcript.updates:
        if update.status == table_pb2.TABLE_STATUS_LOBBY:
            assert not update.HasField("view")
            continue
        state = states[update.version]
        assert update.view == game_view_message(engine, engine.view(state, transcript.seat), names)
        if transcript.seat is None:
            assert list(update.legal_actions) == []
        else:
            legal = engine.legal_actions(state, transcript.seat)
            assert [a.id for a in update.legal_actions] == [action_id(a) for a in legal]
        for event in update.events:
            own_texts = {
                name_seats(event_text(e, transcript.seat), names) for e in engine.last_events(states[event.version])
            }
            assert event.text in own_texts


@pytest.mark.parametrize("game", sorted(GAMES))
async def test_people_bots_and_a_spectator_play_a_whole_game(server: RunningServer, game: str) -> None:
    engine = GAMES[game].engine
    players = max(engine.min_players, 3) if engine.max_players >= 3 else engine.min_players
    async with Client(server.address) as host:
        created = await host.create_table(
            game, players, bots=players - 2, seed=11, bot_delay_ms=0, options=engine.quick_options
        )
        table_id = created.table.table_id
        first = await host.join(table_id, "Ann")
        spectator = play_randomly(server.address, table_id, None, None, seed=0)
        ann = play_randomly(server.address, table_id, first.seat_token, first.seat, seed=1)
        second = await host.join(table_id, "Bob")
        bob = play_randomly(server.address, table_id, second.seat_token, second.seat, seed=2)
        transcripts = await gather_players([ann, bob, spectator])
    table = server.registry.tables[table_id]
    assert table.status.name == "FINISHED"
    states = replay_states(table)
    for transcript in transcripts:
        assert transcript.last.status == table_pb2.TABLE_STATUS_FINISHED
        assert transcript.last.version == table.version
        assert transcript.last.HasField("outcome")
        assert transcript.last.outcome.winners
        _check_transcript(table, transcript, states)


def _card_ids(message: Message) -> set[int]:
    """Every UnoCard id anywhere inside a message."""
    found: set[int] = set()
    if message.DESCRIPTOR.name == "UnoCard":
        found.add(message.id)  # type: ignore[attr-defined]
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        items = [value] if isinstance(value, Message) else list(value)
        for item in items:
            if isinstance(item, Message):
                found |= _card_ids(item)
    return found


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_no_uno_message_carries_another_seats_cards_or_the_draw_pile(server: RunningServer, seed: int) -> None:
    """Scan every message of whole UNO games: the first snapshot, the second player to join, spectators."""
    async with Client(server.address) as host:
        created = await host.create_table("uno", 4, bots=2, seed=seed, bot_delay_ms=0, options={"target": "1"})
        table_id = created.table.table_id
        first = await host.join(table_id, "Ann")
        players = [play_randomly(server.address, table_id, first.seat_token, first.seat, seed=seed)]
        players.append(play_randomly(server.address, table_id, None, None, seed=seed + 10))
        second = await host.join(table_id, "Bob")
        players.append(play_randomly(server.address, table_id, second.seat_token, second.seat, seed=seed + 20))
        transcripts = await gather_players(players)
    table = server.registry.tables[table_id]
    states = replay_states(table)
    checked = seen_cards = 0
    for transcript in transcripts:
        viewer = transcript.seat
        for update in transcript.updates:
            if not update.HasField("view"):
                continue
            state = states[update.version]
            secret = set(state.draw_pile)
            for seat, hand in enumerate(state.hands):
                if seat != viewer:
                    secret |= set(hand)
            if state.reveal is not None and state.reveal[0] == viewer and state.revealed is not None:
                secret -= set(state.revealed.hand)  # the challenger's private reveal
            shown = _card_ids(update)
            seen_cards += len(shown)
            leaked = shown & secret
            assert not leaked, f"seat {viewer} was sent hidden cards {sorted(leaked)} at version {update.version}"
            checked += 1
    assert checked > 30
    assert seen_cards > checked  # the scan does find cards: own hands and the discard pile
