"""Helpers for the Power Up scenario tests: build states with a chosen deal and act with legality checks."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence

from toadstool.engine import event_text
from toadstool.games.powerup.data import CardKind, castle_id, level_card_id, question_card_ids
from toadstool.games.powerup.engine import ENGINE, PowerUpState, new_game
from toadstool.games.powerup.views import PowerUpView

__all__ = ["ENGINE", "L", "act", "castle", "game", "q", "set_hands", "set_tokens", "texts", "view"]


def L(value: int, suit: int = 0) -> int:
    """The id of the Level card `value` of `suit`."""
    return level_card_id(value, suit)


def castle(index: int = 0) -> int:
    return castle_id(index)


def q(kind: CardKind, index: int = 0) -> int:
    """The id of the index-th ? card of this kind."""
    return question_card_ids(kind)[index]


def game(
    players: int,
    deal: Sequence[int],
    setup: Sequence[int] = (),
    more_levels: Sequence[int] = (),
    more_questions: Sequence[int] = (),
    seed: int = 0,
) -> PowerUpState:
    """A new game whose first deal gives `deal[i]` to the i-th seat from the dealer's (seat 0's) left.

    `setup` lists the setup ? cards of seats 0, 1, ... (one each); `more_levels`/`more_questions` are the
    next cards on the decks after the deal.
    """
    assert len(deal) == players
    levels = [*deal, *more_levels]
    questions = [*setup, *more_questions]
    return new_game(players, seed, level_deck=levels, question_deck=questions or None)


def set_hands(state: PowerUpState, hands: Mapping[int, Iterable[int]]) -> PowerUpState:
    """Give seats exactly these ? cards (taken out of wherever they were)."""
    wanted = {seat: tuple(cards) for seat, cards in hands.items()}
    taken = {c for cards in wanted.values() for c in cards}
    new_hands = tuple(
        wanted.get(seat, tuple(c for c in hand if c not in taken)) for seat, hand in enumerate(state.hands)
    )
    return dataclasses.replace(
        state,
        hands=new_hands,
        q_deck=tuple(c for c in state.q_deck if c not in taken),
        q_discard=tuple(c for c in state.q_discard if c not in taken),
    )


def set_tokens(state: PowerUpState, tokens: Sequence[int]) -> PowerUpState:
    return dataclasses.replace(state, tokens=tuple(tokens), supply=50 - sum(tokens))


def act(state: PowerUpState, seat: int, action: object) -> PowerUpState:
    legal = ENGINE.legal_actions(state, seat)
    assert action in legal, f"{action} is not legal for seat {seat}; legal: {legal}"
    return ENGINE.apply(state, seat, action)  # type: ignore[arg-type]


def texts(state: PowerUpState, viewer: int | None) -> list[str]:
    return [event_text(e, viewer) for e in ENGINE.last_events(state)]


def view(state: PowerUpState, viewer: int | None) -> PowerUpView:
    return ENGINE.view(state, viewer)
