"""The conformance suite: every registered game obeys the engine contract (docs/design.md, principle 9).

Random playouts end; a finished game offers nobody an action; every seat the game waits for has a legal
action; every seat and a spectator get a view at every step, and the views convert to the wire format;
`apply` never mutates the state it was given; the same seed and actions give the same game.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from toadstool.bots import RandomBot
from toadstool.engine import Engine, action_id, parse_options
from toadstool.games import GAMES
from toadstool.selfplay import play
from toadstool.server.messages import action_from_message, action_message, game_view_message

GAME_KEYS = sorted(GAMES)


def _player_counts(engine: Engine[Any, Any]) -> list[int]:
    return sorted({engine.min_players, min(engine.min_players + 1, engine.max_players), engine.max_players})


@pytest.mark.parametrize("game", GAME_KEYS)
def test_random_playouts_end_with_a_winner(game: str) -> None:
    engine = GAMES[game].engine
    for players in _player_counts(engine):
        for seed in range(4):
            result = play(engine, [RandomBot() for _ in range(players)], seed)
            assert result.outcome.winners, f"{game} {players}p seed {seed} ended without a winner"
            assert all(0 <= w < players for w in result.outcome.winners)


@pytest.mark.parametrize("game", GAME_KEYS)
def test_every_step_obeys_the_engine_contract(game: str) -> None:
    engine = GAMES[game].engine
    for players in _player_counts(engine):
        seed = 100 + players
        checked = 0

        def observe(state: Any, seat: int | None, action: Any, players: int = players) -> None:
            nonlocal checked
            checked += 1
            over = engine.outcome(state) is not None
            waiting = engine.to_act(state)
            if over:
                assert waiting == ()
            for s in range(players):
                legal = engine.legal_actions(state, s)
                if over:
                    assert list(legal) == [], f"seat {s} may act after the game ended"
                if s in waiting:
                    assert legal, f"the game waits for seat {s}, which has no legal action"
                ids = [action_id(a) for a in legal]
                assert len(ids) == len(set(ids)), f"duplicate action ids for seat {s}: {ids}"
                for a in legal:
                    assert isinstance(engine.describe(state, s, a), str)
                    assert action_from_message(engine, action_message(engine, a)) == a
            for viewer in [*range(players), None]:
                game_view_message(engine, engine.view(state, viewer))

        play(engine, [RandomBot() for _ in range(players)], seed, observe=observe)
        assert checked > 1


@pytest.mark.parametrize("game", GAME_KEYS)
def test_apply_never_mutates_the_old_state(game: str) -> None:
    engine = GAMES[game].engine
    players = engine.min_players
    rng = random.Random(5)
    state = engine.new(players, parse_options(engine.options, {}), 5)
    for _ in range(300):
        if engine.outcome(state) is not None:
            break
        seat = engine.to_act(state)[0]
        action = rng.choice(list(engine.legal_actions(state, seat)))
        before = copy.deepcopy(state)
        views_before = [engine.view(state, v) for v in [*range(players), None]]
        engine.apply(state, seat, action)
        assert state == before
        assert [engine.view(state, v) for v in [*range(players), None]] == views_before


@pytest.mark.parametrize("game", GAME_KEYS)
def test_same_seed_and_actions_give_the_same_game(game: str) -> None:
    engine = GAMES[game].engine
    players = engine.max_players
    first = play(engine, [RandomBot() for _ in range(players)], 42)
    second = play(engine, [RandomBot() for _ in range(players)], 42)
    assert first.log == second.log
    assert first.outcome == second.outcome
    # Replaying the logged actions from the seed reproduces every state.
    state = engine.new(players, parse_options(engine.options, {}), 42)
    for seat, action in first.log:
        assert action in engine.legal_actions(state, seat)
        state = engine.apply(state, seat, action)
    assert engine.outcome(state) == first.outcome


@pytest.mark.parametrize("game", GAME_KEYS)
def test_player_counts_outside_the_range_are_refused(game: str) -> None:
    from toadstool.server.tables import TableError, TableRegistry

    registry = TableRegistry()
    for players in (GAMES[game].engine.min_players - 1, GAMES[game].engine.max_players + 1):
        with pytest.raises(TableError, match="players"):
            registry.create(game=game, players=players)
