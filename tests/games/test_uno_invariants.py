"""Invariants of random UNO games: the 112 physical cards are never lost or duplicated, piles and windows
stay consistent, and scores only grow."""

from __future__ import annotations

import random

import pytest

from toadstool.engine import parse_options
from toadstool.games.uno import engine as uno
from toadstool.games.uno.data import ALL_CARDS, CARD_COLOR
from toadstool.games.uno.engine import ENGINE

DEFAULTS = parse_options(ENGINE.options, {})


@pytest.mark.parametrize("players", [2, 3, 5, 10])
def test_every_card_stays_exactly_once_in_a_hand_or_a_pile(players: int) -> None:
    rng = random.Random(players)
    for seed in range(3):
        state = ENGINE.new(players, DEFAULTS, seed)
        previous_scores = state.scores
        for _ in range(1500):
            everything = [c for h in state.hands for c in h] + list(state.draw_pile) + list(state.discard)
            assert sorted(everything) == list(ALL_CARDS)
            assert state.discard, "the discard pile always has a top card"
            assert all(a >= b for a, b in zip(state.scores, previous_scores, strict=True))
            previous_scores = state.scores
            if state.stage == uno.OVER:
                break
            assert state.stage == uno.FIRST_COLOR or CARD_COLOR[state.discard[-1]] in (0, state.color)
            assert (state.attack is not None) == (state.stage in (uno.ANSWER_D2, uno.ANSWER_WD4))
            assert (state.drawn >= 0) == (state.stage == uno.DRAWN)
            if state.catchable >= 0:
                assert len(state.hands[state.catchable]) == 1
            seat = ENGINE.to_act(state)[0]
            optional = [s for s in range(players) if s != seat and ENGINE.legal_actions(state, s)]
            if optional and rng.random() < 0.3:
                seat = rng.choice(optional)
            state = ENGINE.apply(state, seat, rng.choice(list(ENGINE.legal_actions(state, seat))))


def test_a_game_with_a_low_target_ends_after_a_few_hands() -> None:
    from toadstool.bots import RandomBot
    from toadstool.selfplay import play

    result = play(ENGINE, [RandomBot() for _ in range(3)], 9, parse_options(ENGINE.options, {"target": "1"}))
    assert len(result.outcome.winners) == 1
    assert result.outcome.scores[result.outcome.winners[0]] >= 1
