"""A sensible bot for the Power Up Card Game, deciding from its seat's view only.

It trades low Level cards away and keeps high ones (peeking with Boo first when it can), blocks trades
with Hammer Bros. when it holds a good card, holds its modifiers until they decide the round (a minus card
on the player just above it when it is lowest, a plus card on itself), takes Extra Lives with 1-Up at once
and steals with Red Shell. It is not for rules: legality comes from the engine's legal actions.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from toadstool.games.powerup.data import CARD_TYPE, CardKind
from toadstool.games.powerup.views import (
    AcceptSwap,
    DrawNewLevel,
    Keep,
    Pass,
    PlayCard,
    PowerUpView,
    Stage,
    Trade,
)

#: A Level value at or below this is worth getting rid of.
LOW = 5
#: How much the bot minds spending each modifier (cheap cards first).
_COST = {
    CardKind.GOOMBA: 1,
    CardKind.SUPER_MUSHROOM: 1,
    CardKind.KOOPA_TROOPA: 2,
    CardKind.FIRE_FLOWER: 3,
    CardKind.SUPER_STAR: 4,
    CardKind.BOWSER: 5,
}


def _known_value(view: PowerUpView, seat: int) -> int | None:
    level = view.seats[seat].level
    if level is None or level.castle:
        return None
    return view.seats[seat].value if view.seats[seat].value is not None else level.value


class PowerUpBot:
    """Plays to not be lowest: trades low, keeps high, saves modifiers for the moment they matter."""

    needs_view = True

    def choose(self, view: Any, legal: Sequence[Any], must_act: bool, rng: random.Random) -> Any | None:
        if not legal:
            return None
        assert isinstance(view, PowerUpView)
        assert view.you is not None
        me = view.you
        plays = [a for a in legal if isinstance(a, PlayCard)]
        # Any-time cards worth playing at once.
        for action in plays:
            if action.card == CardKind.ONE_UP_MUSHROOM and view.supply > 0:
                return action
        steals = [a for a in plays if a.card == CardKind.RED_SHELL and a.target is not None]
        if steals:
            return max(steals, key=lambda a: view.seats[a.target].hand_count if a.target is not None else 0)
        if not must_act:
            if view.stage is Stage.MODIFY and self._in_danger(view, me):
                shells = [a for a in plays if a.card == CardKind.GREEN_SHELL and a.target is not None]
                if shells:
                    return max(shells, key=lambda a: view.seats[a.target].hand_count if a.target is not None else 0)
            return None
        if any(isinstance(a, Keep) for a in legal):
            return self._decide(view, legal, me)
        if any(isinstance(a, AcceptSwap) for a in legal):
            return self._answer(view, legal, me)
        if any(isinstance(a, Pass) for a in legal):
            return self._modify(view, legal, me)
        return legal[0]

    # Keep or trade -------------------------------------------------------------------------------------

    def _decide(self, view: PowerUpView, legal: Sequence[Any], me: int) -> Any:
        mine = view.seats[me].level
        keep = next(a for a in legal if isinstance(a, Keep))
        if mine is None or mine.castle:
            return keep
        value = mine.value
        # On its last Extra Life the bot gets rid of middling cards too.
        low = LOW + 1 if view.seats[me].tokens <= 1 else LOW
        draw = next((a for a in legal if isinstance(a, DrawNewLevel)), None)
        if draw is not None:
            return draw if value <= low else keep
        if value > low:
            return keep
        trade = next((a for a in legal if isinstance(a, Trade)), None)
        plays = [a for a in legal if isinstance(a, PlayCard)]
        if trade is not None and _known_value(view, trade.target) is None:
            boo = next((a for a in plays if a.card == CardKind.BOO and a.target == trade.target), None)
            if boo is not None:
                return boo
        pipes = [a for a in plays if a.card == CardKind.WARP_PIPE and a.target is not None]
        known_better = [a for a in pipes if (_known_value(view, a.target or 0) or 0) > value]
        if known_better:
            return max(known_better, key=lambda a: _known_value(view, a.target or 0) or 0)
        if trade is not None:
            theirs = _known_value(view, trade.target)
            if theirs is None or theirs > value:
                return trade
        vine = next((a for a in plays if a.card == CardKind.VINE), None)
        if vine is not None and value <= low - 1:
            return vine
        if pipes and value <= 3:
            unknown = [a for a in pipes if _known_value(view, a.target or 0) is None]
            if unknown:
                return unknown[0]
        return keep

    def _answer(self, view: PowerUpView, legal: Sequence[Any], me: int) -> Any:
        hammer = next((a for a in legal if isinstance(a, PlayCard) and a.card == CardKind.HAMMER_BROS), None)
        accept = next(a for a in legal if isinstance(a, AcceptSwap))
        mine = view.seats[me].level
        if hammer is None or mine is None:
            return accept
        pending = view.pending
        theirs = _known_value(view, pending.from_seat) if pending is not None else None
        if theirs is not None:
            return accept if theirs > mine.value else hammer
        threshold = LOW if view.seats[me].tokens <= 1 else LOW + 1
        return hammer if mine.value > threshold else accept

    # Modify --------------------------------------------------------------------------------------------

    def _values(self, view: PowerUpView) -> dict[int, int]:
        out: dict[int, int] = {}
        for seat in view.seats:
            if seat.in_round and not seat.castle and seat.value is not None:
                out[seat.seat] = seat.value
        return out

    def _in_danger(self, view: PowerUpView, me: int) -> bool:
        values = self._values(view)
        return me in values and values[me] <= min(values.values())

    def _modify(self, view: PowerUpView, legal: Sequence[Any], me: int) -> Any:
        pass_ = next(a for a in legal if isinstance(a, Pass))
        values = self._values(view)
        plays = [a for a in legal if isinstance(a, PlayCard)]
        if me in values and values[me] <= min(values.values()):
            best: tuple[int, int, int] | None = None
            choice: Any = None
            for action in plays:
                card = CARD_TYPE[action.card]
                if not card.is_modifier or action.target is None:
                    continue
                after = dict(values)
                target = action.target
                printed = next(s.level.value for s in view.seats if s.seat == target and s.level is not None)
                after[target] = card.set_value if card.set_value is not None else printed + (card.delta or 0)
                lowest = min(after.values())
                if after[me] <= lowest:
                    continue
                # Prefer cheap cards, then hurting players with few lives, then a bigger margin.
                key = (_COST.get(action.card, 9), view.seats[target].tokens if target != me else 0, lowest - after[me])
                if best is None or key < best:
                    best, choice = key, action
            if choice is not None:
                return choice
            shells = [a for a in plays if a.card == CardKind.GREEN_SHELL and a.target is not None]
            if shells:
                return max(shells, key=lambda a: view.seats[a.target].hand_count if a.target is not None else 0)
            return pass_
        bills = [a for a in plays if a.card == CardKind.BULLET_BILL and a.target is not None]
        if bills:
            return min(bills, key=lambda a: view.seats[a.target].tokens if a.target is not None else 0)
        return pass_
