"""The sensible UNO bot: a few plain heuristics a careful player uses, from the seat's view only.

It calls UNO (sets the flag on the next-to-last card), catches others who forget, answers Draw Two and Wild
Draw Four with a Super Star, challenges a Wild Draw Four when its player probably held the old colour, keeps
wild cards for later, dumps high-value cards first and chooses the colour it holds most. It is not for rules:
it only ranks the legal actions it is given.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from .data import CARD_COLOR, CARD_KIND, CARD_POINTS, COLORS, UnoKind
from .engine import (
    AcceptPenalty,
    CallUno,
    Catch,
    Challenge,
    ChooseColor,
    Draw,
    Keep,
    PlayCard,
    UnoStage,
    UnoView,
)

_WILD_DRAW_FOUR = int(UnoKind.WILD_DRAW_FOUR)
_SUPER_STAR = int(UnoKind.SUPER_STAR)
_DRAW_TWO = int(UnoKind.DRAW_TWO)
_SKIP = int(UnoKind.SKIP)
_REVERSE = int(UnoKind.REVERSE)

#: Challenge a Wild Draw Four when its player still holds at least this many cards (each card is ~1/4
#: likely to be of the old colour, and a failed challenge costs only 2 cards more than accepting).
CHALLENGE_MIN_CARDS = 3


class UnoBot:
    """Plays UNO sensibly; beats RandomBot clearly (see tests/games/test_uno_bot.py)."""

    needs_view = True

    def choose(self, view: UnoView, legal: Sequence[Any], must_act: bool, rng: random.Random) -> Any | None:
        if not legal:
            return None
        for action in legal:
            if type(action) is CallUno or type(action) is Catch:
                return action
        if not must_act:
            return None
        hand = [card.id for card in view.hand]
        plays = [a for a in legal if type(a) is PlayCard]
        stage = view.stage
        if stage in (UnoStage.ANSWER_DRAW_TWO, UnoStage.ANSWER_WILD_DRAW_FOUR):
            if plays:  # a Super Star answer
                return self._best_colour_play(plays, hand)
            if (
                stage == UnoStage.ANSWER_WILD_DRAW_FOUR
                and view.attacker is not None
                and view.hand_counts[view.attacker] >= CHALLENGE_MIN_CARDS
            ):
                for action in legal:
                    if type(action) is Challenge:
                        return action
            return next(a for a in legal if type(a) is AcceptPenalty)
        if stage == UnoStage.CHOOSE_FIRST_COLOR:
            best = _favourite_colour(hand, exclude=-1)
            return next((a for a in legal if type(a) is ChooseColor and a.color == best), legal[0])
        if stage == UnoStage.DRAWN:
            keep = next(a for a in legal if type(a) is Keep)
            if not plays:
                return keep
            card = plays[0].card_id
            if CARD_COLOR[card] == 0 and len(hand) > 2:
                return keep  # keep a drawn wild for later
            return self._best_colour_play(plays, hand)
        if plays:
            return self._choose_play(view, plays, hand)
        for action in legal:
            if type(action) is Draw:
                return action
        return legal[0]

    def _choose_play(self, view: UnoView, plays: list[PlayCard], hand: list[int]) -> PlayCard:
        coloured = [a for a in plays if CARD_COLOR[a.card_id] != 0]
        counts = view.hand_counts
        n = len(counts)
        step = 1 if view.direction == 1 else -1
        nxt = counts[(view.current + step) % n] if n else 7
        if coloured:
            mine = _colour_counts(hand)

            def value(action: PlayCard) -> float:
                card = action.card_id
                kind = CARD_KIND[card]
                score = CARD_POINTS[card] + 0.5 * mine[CARD_COLOR[card]]
                if kind in (_DRAW_TWO, _SKIP) or (kind == _REVERSE and n == 2):
                    score += 15 if nxt <= 3 else 0
                return score + (0.01 if action.uno else 0.0)

            return max(coloured, key=value)
        # Only wilds are playable: a Wild Draw Four hurts most (and is safe when we hold no card of the
        # active colour); keep a Super Star for answering while the hand is large.
        holds_active = any(CARD_COLOR[c] == view.color for c in hand)
        order = {int(UnoKind.WILD): 1, int(UnoKind.WILD_CUSTOMIZABLE): 1, _WILD_DRAW_FOUR: 2, _SUPER_STAR: 0}
        if not holds_active:
            order[_WILD_DRAW_FOUR] = 3
        if len(hand) <= 2:
            order[_SUPER_STAR] = 2
        best_kind = max(order[CARD_KIND[a.card_id]] for a in plays)
        chosen = [a for a in plays if order[CARD_KIND[a.card_id]] == best_kind]
        return self._best_colour_play(chosen, hand)

    def _best_colour_play(self, plays: list[PlayCard], hand: list[int]) -> PlayCard:
        """Among plays, prefer the UNO flag and, for a wild, the colour held most in the rest of the hand."""
        card = plays[0].card_id
        same = [a for a in plays if a.card_id == card]
        if CARD_COLOR[card] != 0:
            return max(same, key=lambda a: a.uno)
        best = _favourite_colour(hand, exclude=card)
        return max(same, key=lambda a: (a.color == best, a.uno))


def _colour_counts(hand: list[int]) -> list[int]:
    counts = [0] * 5
    for c in hand:
        counts[CARD_COLOR[c]] += 1
    return counts


def _favourite_colour(hand: list[int], exclude: int) -> int:
    counts = _colour_counts([c for c in hand if c != exclude])
    return max(COLORS, key=lambda col: (counts[col], -int(col)))
