"""The Power Up bot plays sensibly: it beats RandomBots clearly and makes the obvious good moves."""

from __future__ import annotations

import dataclasses
import random

from powerup_helpers import ENGINE, L, act, game, q, set_hands, view

from toadstool.games.powerup.bot import PowerUpBot
from toadstool.games.powerup.data import CardKind
from toadstool.games.powerup.views import Keep, Pass, PlayCard, Stage, Trade
from toadstool.selfplay import selfplay_summary

K = CardKind


def test_the_bot_wins_far_more_than_its_fair_share_against_random_bots() -> None:
    for players, games in ((2, 100), (4, 200)):
        summary = selfplay_summary("powerup", games=games, seed=1000, players=players, smart_seats=(0,))
        share = summary["wins_by_seat"][0] / games
        assert share > 1.8 / players if players > 2 else share > 0.65, summary


def _choose(state: object, seat: int) -> object:
    legal = ENGINE.legal_actions(state, seat)  # type: ignore[arg-type]
    must = seat in ENGINE.to_act(state)  # type: ignore[arg-type]
    return PowerUpBot().choose(view(state, seat), legal, must, random.Random(0))  # type: ignore[arg-type]


def test_the_bot_trades_a_low_card_and_keeps_a_high_one() -> None:
    state = game(4, [L(2), L(11), L(5), L(9)])
    assert _choose(set_hands(state, {1: ()}), 1) == Trade(2)
    state = act(state, 1, Keep())
    if state.stage is Stage.KEEP_OR_TRADE:
        assert _choose(set_hands(state, {2: ()}), 2) == Keep()


def test_the_bot_plays_a_minus_card_on_the_player_just_above_it_when_it_is_lowest() -> None:
    state = game(3, [L(9), L(4), L(3)], setup=[q(K.KOOPA_TROOPA), q(K.GOOMBA), q(K.GOOMBA, 1)])
    state = set_hands(state, {0: (q(K.KOOPA_TROOPA),), 1: (), 2: ()})
    while state.stage is Stage.KEEP_OR_TRADE:
        state = act(state, state.turn, Keep())
    state = act(act(state, 1, Pass()), 2, Pass())
    # Seat 0 holds the 3, seat 2 the 4: Koopa Troopa on seat 2 makes it 2.
    assert _choose(state, 0) == PlayCard(K.KOOPA_TROOPA, 2)


def test_the_bot_holds_its_modifiers_when_it_is_not_lowest() -> None:
    state = game(3, [L(9), L(4), L(3)], setup=[q(K.GOOMBA), q(K.SUPER_STAR), q(K.GOOMBA, 1)])
    state = set_hands(state, {1: (q(K.SUPER_STAR),)})
    while state.stage is Stage.KEEP_OR_TRADE:
        state = act(state, state.turn, Keep())
    assert ENGINE.to_act(state) == (1,)
    assert _choose(state, 1) == Pass()


def test_the_bot_on_its_last_extra_life_trades_away_a_middling_card() -> None:
    state = game(4, [L(6), L(11), L(5), L(9)])
    state = set_hands(state, {1: (), 2: ()})
    assert _choose(state, 1) == Keep()
    state = dataclasses.replace(state, tokens=(4, 1, 4, 4))
    assert _choose(state, 1) == Trade(2)


def test_bots_play_whole_games_against_each_other() -> None:
    summary = selfplay_summary("powerup", games=20, seed=7, players=5, smart_seats=range(5))
    assert sum(summary["wins_by_seat"]) >= 20
