"""Kart's determinizer for the hard bot: a full race state sampled from one seat's view and the item list.

A race hides only the item deck's order and the dice: the deck is the item list minus the items the
karts hold, shuffled, in the count the view shows; the state's RNG (the coming rolls) is drawn fresh. It
never reads a real state. Not for choosing moves (`toadstool.bots.HardBot` does that).
"""

from __future__ import annotations

import random

from toadstool.engine import DieRoll

from .data import DECK, LAPS, Item
from .engine import Kart, KartState, KartView

#: Kart's rollouts stop after this many actions (about two turns of every kart): a race is long, and
#: how far each kart got by then says most of what a move did.
HORIZON = 48
#: What a coin held is worth in fields where a rollout is cut off (see `KartDeterminizer.standing`).
COIN_WORTH = 1.25


class RolloutRacer:
    """The fields of a Racer that the normal bot (bot.KartBot) reads."""

    __slots__ = ("coins", "field", "halving", "item", "progress", "seat")

    def __init__(self, seat: int, kart: Kart, length: int) -> None:
        self.seat = seat
        self.progress = kart.progress
        self.field = kart.progress % length
        self.coins = kart.coins
        self.item = kart.item
        self.halving = kart.halving


class RolloutView:
    """The fields of KartView that the normal bot reads, built from a state without `KartEngine.view`'s
    names, colours, phase text and scores: the hard bot's rollouts ask for one at every move, and the full
    view was a quarter of a rollout's time. tests/test_bot_levels.py checks that the normal bot chooses the
    same with it as with the full view."""

    __slots__ = ("banana_fields", "karts", "laps", "mushroom", "pending_move", "track", "you")

    def __init__(self, state: KartState, seat: int) -> None:
        length = state.track.length
        self.you = seat
        self.track = state.track
        self.laps = LAPS
        self.karts = tuple(RolloutRacer(i, kart, length) for i, kart in enumerate(state.karts))
        self.banana_fields = state.bananas
        self.mushroom = state.mushroom
        self.pending_move = state.pending_move


class KartDeterminizer:
    """Samples Kart states consistent with one seat's view (see the module docstring)."""

    #: A lead in `standing` worth about 73% against a seat where a rollout is cut off (toadstool.bots).
    scale = 4.0

    horizon = HORIZON

    #: The hard bot leaves the normal bot's choice only for an action better by one standard error: its
    #: rollouts are long and dice-driven (some 20 to 40 a decision), and at 0.5 it left the normal
    #: choice in a third of its decisions, mostly on noise.
    confidence = 1.0

    def sample(self, view: KartView, rng: random.Random) -> KartState:
        left: list[Item] = [item for item, copies in DECK for _ in range(copies)]
        for racer in view.karts:
            if racer.item is not None and racer.item in left:
                left.remove(racer.item)
        rng.shuffle(left)
        turn = view.start_order.index(view.turn) if view.turn is not None else 0
        return KartState(
            track=view.track,
            karts=tuple(Kart(r.progress, r.coins, r.item, r.skips, r.halving) for r in view.karts),
            start_order=view.start_order,
            turn=turn,
            stage=view.stage,
            bank=view.bank,
            deck=tuple(left[: view.deck_count]),
            bananas=view.banana_fields,
            item_used=view.item_used,
            bundle=view.bundle_paid,
            mushroom=view.mushroom,
            lightning=view.lightning,
            pending_move=view.pending_move,
            last_rolls=tuple(DieRoll(r.roller, r.purpose, r.value) for r in view.last_rolls),
            winner=view.winner,
            rng_state=rng.getrandbits(64),
        )

    def rollout_view(self, state: KartState, seat: int) -> RolloutView:
        return RolloutView(state, seat)

    def standing(self, state: KartState, seat: int) -> float:
        """How far the kart has got, a turn to skip a cost, an item a little, and a coin what it buys: up to
        1.5 fields in a bundle (10 coins for +15). At 0.25 a field, the value of a coin before, paying 3
        coins for +4 looked like a gain of 3.25 fields at the cut-off, and the hard bot frittered its coins
        away on small bundles that the normal bot saves for the big one."""
        kart = state.karts[seat]
        return kart.progress + COIN_WORTH * kart.coins - 3.0 * kart.skips + (1.0 if kart.item is not None else 0.0)

    def stop(self, start: KartState, state: KartState) -> bool:
        return False


DETERMINIZER = KartDeterminizer()
