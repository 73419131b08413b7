"""Builders for Kart scenario tests: a race with chosen karts, turn, deck and dice (docs/rules/kart.md)."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from functools import cache
from typing import Any

from toadstool.games.kart.data import COINS, DECK, Item
from toadstool.games.kart.engine import Kart, KartEngine, KartState, Stage
from toadstool.games.kart.tracks import load_track

E = KartEngine()
MARIO, LUIGI, YOSHI, PEACH, TOAD, WARIO, DK = range(7)


@cache
def dice(*values: int) -> int:
    """An rng_state whose next die rolls are `values` (the engine rolls with Random(rng_state).randint)."""
    for seed in range(2_000_000):
        rng = random.Random(seed)
        if all(rng.randint(1, 6) == v for v in values):
            return seed
    raise AssertionError(f"no seed rolls {values}")


def full_deck(top: Sequence[Item] = ()) -> tuple[Item, ...]:
    """The 35 cards with `top` drawn first (the rest in deck-list order)."""
    rest = [item for item, copies in DECK for _ in range(copies)]
    for item in top:
        rest.remove(item)
    return (*top, *rest)


def race(
    players: int = 3,
    *,
    progress: Sequence[int] | None = None,
    coins: Sequence[int] | None = None,
    items: Sequence[Item | None] | None = None,
    skips: Sequence[int] | None = None,
    halving: Sequence[bool] | None = None,
    order: Sequence[int] | None = None,
    seat: int = 0,
    stage: Stage = Stage.PRE_ROLL,
    deck: Sequence[Item] | None = None,
    bananas: Sequence[int] = (),
    roll: Sequence[int] = (),
    track: str = "mushroom-loop",
    **flags: Any,
) -> KartState:
    """A race where it is `seat`'s turn; `roll` fixes the coming die values; unlisted coins are in the bank."""
    progress = list(progress or [0] * players)
    coins = list(coins or [0] * players)
    items = list(items or [None] * players)
    skips = list(skips or [0] * players)
    halving = list(halving or [False] * players)
    order = tuple(order or range(players))
    held = [i for i in items if i is not None]
    cards = full_deck() if deck is None else tuple(deck)
    if deck is None:
        remaining = list(cards)
        for item in held:
            remaining.remove(item)
        cards = tuple(remaining)
    return KartState(
        track=load_track(track),
        karts=tuple(Kart(p, c, i, s, h) for p, c, i, s, h in zip(progress, coins, items, skips, halving, strict=True)),
        start_order=order,
        turn=order.index(seat),
        stage=stage,
        bank=COINS - sum(coins),
        deck=cards,
        bananas=tuple(sorted(bananas)),
        rng_state=dice(*roll) if roll else 12345,
        **flags,
    )


def act(state: KartState, action: Any, seat: int | None = None) -> KartState:
    """Apply `action` for the seat to act, checking first that it is legal."""
    seat = state.seat if seat is None else seat
    legal = E.legal_actions(state, seat)
    assert action in legal, f"{action} is not legal for seat {seat}: {legal}"
    return E.apply(state, seat, action)


def texts(state: KartState) -> list[str]:
    return [event.text for event in E.last_events(state)]


def coins_conserved(state: KartState) -> bool:
    return state.bank + sum(k.coins for k in state.karts) == COINS


def with_dice(state: KartState, *values: int) -> KartState:
    """`state` with its coming die rolls fixed to `values`."""
    return dataclasses.replace(state, rng_state=dice(*values))
