"""Kart hidden information and invariants: 'Nothing is secret but the order of the item deck'
(docs/rules/kart.md §9), and 'The 20 coins are always either in the bank or with the players' (§1.4)."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from kart_helpers import E

from toadstool.api.v1 import kart_pb2
from toadstool.bots import RandomBot
from toadstool.engine import parse_options
from toadstool.games.kart.data import BANANA_CHIPS, COINS, DECK
from toadstool.games.kart.engine import KartState, Stage
from toadstool.selfplay import play
from toadstool.server.messages import game_view_message

DECK_SIZE = sum(copies for _, copies in DECK)


def playout_state(players: int, seed: int, steps: int) -> KartState:
    rng = random.Random(seed)
    state = E.new(players, parse_options(E.options, {}), seed)
    for _ in range(steps):
        if E.outcome(state) is not None:
            break
        seat = E.to_act(state)[0]
        state = E.apply(state, seat, rng.choice(list(E.legal_actions(state, seat))))
    return state


@settings(max_examples=60, deadline=None)
@given(
    players=st.integers(2, 7),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 150),
    shuffle=st.randoms(use_true_random=False),
)
def test_the_deck_order_and_future_dice_never_change_a_view(
    players: int, seed: int, steps: int, shuffle: random.Random
) -> None:
    """Two states that differ only in the deck order (and the RNG behind future dice) look the same."""
    state = playout_state(players, seed, steps)
    deck = list(state.deck)
    shuffle.shuffle(deck)
    other = dataclasses.replace(state, deck=tuple(deck), rng_state=shuffle.getrandbits(64))
    for viewer in [*range(players), None]:
        assert E.view(state, viewer) == E.view(other, viewer)
    for seat in range(players):
        assert E.legal_actions(state, seat) == E.legal_actions(other, seat)


def test_the_view_carries_the_deck_size_and_never_its_order() -> None:
    fields = set(kart_pb2.KartView.DESCRIPTOR.fields_by_name)
    assert "deck_count" in fields
    assert not {name for name in fields if "deck" in name} - {"deck_count"}


def test_every_viewer_sees_the_same_race_and_events_have_no_secrets() -> None:
    """Nothing but the deck order is secret: every seat and a spectator get the same view (but `you`)."""
    for players, seed in ((2, 1), (4, 2), (7, 3)):

        def observe(state: Any, seat: int | None, action: Any, players: int = players) -> None:
            spectator = game_view_message(E, E.view(state, None)).kart
            assert spectator.deck_count == len(state.deck)
            for viewer in range(players):
                mine = game_view_message(E, E.view(state, viewer)).kart
                assert mine.you == viewer
                mine.ClearField("you")
                assert mine == spectator
            for event in E.last_events(state):
                assert event.private == ()

        play(E, [RandomBot() for _ in range(players)], seed, observe=observe)


def test_coins_cards_and_chips_are_conserved_in_random_races() -> None:
    """'the 20 coins are always either in the bank or with players'; 35 cards; 5 banana chips."""
    for players in range(2, 8):
        for seed in range(3):

            def observe(state: Any, seat: int | None, action: Any) -> None:
                assert state.bank >= 0
                assert all(k.coins >= 0 for k in state.karts)
                assert state.bank + sum(k.coins for k in state.karts) == COINS
                held = sum(1 for k in state.karts if k.item is not None)
                drawn_banana = 1 if state.stage is Stage.BANANA else 0
                assert len(state.deck) + held + drawn_banana == DECK_SIZE
                assert len(state.bananas) <= BANANA_CHIPS
                assert len(set(state.bananas)) == len(state.bananas)
                assert all(k.skips >= 0 for k in state.karts)

            play(E, [RandomBot() for _ in range(players)], 50 + seed, observe=observe)
