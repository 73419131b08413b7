"""A sensible Level Up! bot: it climbs its own favourites, holds back the characters others seem to push,
vetoes nominees it does not hold while it has No! cards and backs its own.

It reads only its seat's view (never the state). It is for bot seats and the selfplay baseline, not for
rules: legality comes from the legal actions it is given.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from toadstool.games.levelup.data import LEVELS, OBJECTIVE_CARDS, PowerKind
from toadstool.games.levelup.engine import (
    CastVote,
    EndTurn,
    LevelUpView,
    Move,
    Pass,
    Place,
    PlayBoo,
    PlayFeather,
    PlayGoldenMushroom,
    PlayGoombaStomp,
    PlayGreenShell,
    PlayMegaPow,
    PlayOneUp,
    PlayWarpPipe,
    RevealBlock,
    VoteChoice,
)

#: How much a character another player seems to favour counts against moving it up.
RIVAL_WEIGHT = 0.4
#: A score an optional play must beat to be worth spending the card.
PLAY_THRESHOLD = 0.6
#: How far ahead of an average objective card we must be to let a round end on somebody else's nominee.
LEAD_TO_END_ROUND = 4.0
#: Below this chance that the others let a nominee through, our No! is saved for a later vote.
SAVE_NO_BELOW = 0.1


class LevelUpBot:
    """Greedy one-step bot over the public board and its own objective card."""

    needs_view = True

    def choose(self, view: Any, legal: Sequence[Any], must_act: bool, rng: random.Random) -> Any | None:
        if not legal:
            return None
        assert isinstance(view, LevelUpView)
        me = view.you if view.you is not None else 0
        favs = set(view.favourites)
        where = {c: lv.level for lv in view.levels for c in lv.characters}
        weight = self._weights(view, me, favs)
        nominee = view.nominee
        has_no = view.seats[me].no_cards > 0
        hand = {p.kind for p in view.power_ups}
        can_veto = has_no or PowerKind.THWOMP_VOTE in hand

        if isinstance(legal[0], CastVote):
            if nominee is not None and nominee in favs:
                return CastVote(VoteChoice.YES)
            if self._lead(view, where) > LEAD_TO_END_ROUND:
                return CastVote(VoteChoice.YES)
            if self._pass_chance(view, me) < SAVE_NO_BELOW:
                return CastVote(VoteChoice.YES)  # others will veto it anyway: keep our No! for later
            choices = {a.choice for a in legal}
            if VoteChoice.NO in choices:
                return CastVote(VoteChoice.NO)
            if VoteChoice.THWOMP_VOTE in choices:
                return CastVote(VoteChoice.THWOMP_VOTE)
            return CastVote(VoteChoice.YES)
        if isinstance(legal[0], RevealBlock):
            return legal[0]

        best: Any = None
        best_score = float("-inf")
        for action in legal:
            score = self._score(action, view, me, favs, where, weight, can_veto)
            if score > best_score:
                best, best_score = action, score
        if best is None or (not must_act and best_score <= 0):
            return None if not must_act else legal[0]
        return best

    @staticmethod
    def _lead(view: LevelUpView, where: dict[int, int]) -> float:
        """How far our objective scores above an average objective card if the round ended now."""

        def score(card: Sequence[int]) -> int:
            return sum(where.get(c, 0) for c in card)

        mine = score(view.favourites)
        average = sum(score(card) for card in OBJECTIVE_CARDS) / len(OBJECTIVE_CARDS)
        return mine - average

    @staticmethod
    def _pass_chance(view: LevelUpView, me: int) -> float:
        """Chance that a nominee gets through the others, guessing each able vetoer vetoes half the time."""
        vetoers = sum(1 for s in view.seats if s.seat != me and (s.no_cards > 0 or s.power_up_count > 0))
        return float(0.5**vetoers)

    def _weights(self, view: LevelUpView, me: int, favs: set[int]) -> dict[int, float]:
        weight: dict[int, float] = {}
        for c in range(len(view.character_names)):
            rivals = 0.0
            for seat in view.seats:
                if seat.seat == me:
                    continue
                count = seat.placed.count(c) * 2 + seat.pushed.count(c)
                rivals += min(1.0, count / 3)
            weight[c] = (1.0 if c in favs else 0.0) - RIVAL_WEIGHT * rivals - (0.0 if c in favs else 0.15)
        return weight

    def _score(
        self,
        action: Any,
        view: LevelUpView,
        me: int,
        favs: set[int],
        where: dict[int, int],
        weight: dict[int, float],
        can_veto: bool,
    ) -> float:
        def climb(c: int, steps: int = 1) -> float:
            level = where.get(c, -1)
            if level == 5:
                # A nomination: our own favourite may be elected; anybody else's we veto (it leaves the board).
                if c in favs:
                    chance = self._pass_chance(view, me)
                    return chance * 6.0 - (1 - chance) * 5.0
                return 0.5 + max(0.0, -weight[c]) if can_veto else -5.0
            return weight[c] * steps

        def drop(c: int, steps: int) -> float:
            level = where.get(c, 0)
            return -weight[c] * min(level, steps)

        if isinstance(action, Place):
            return weight[action.character] * action.level + (0.01 * (5 - action.level))
        if isinstance(action, Move):
            return climb(action.character)
        if isinstance(action, EndTurn):
            return 0.0
        if isinstance(action, Pass):
            return 0.0
        if isinstance(action, PlayFeather):
            return climb(action.character) - PLAY_THRESHOLD
        if isinstance(action, PlayWarpPipe):
            return climb(action.character, 2) - PLAY_THRESHOLD
        if isinstance(action, PlayGreenShell):
            if view.nominee is not None and action.character == view.nominee:
                return -1.0 if action.character in favs or can_veto else 1.0
            return drop(action.character, 1) - PLAY_THRESHOLD
        if isinstance(action, PlayGoombaStomp):
            if view.nominee is not None and action.character == view.nominee:
                return -1.0 if action.character in favs or can_veto else 1.0
            return drop(action.character, 2) - PLAY_THRESHOLD
        if isinstance(action, PlayBoo):
            a, b = action.first, action.second
            la, lb = where.get(a, 0), where.get(b, 0)
            return (weight[a] - weight[b]) * (lb - la) - 2 * PLAY_THRESHOLD
        if isinstance(action, PlayMegaPow):
            index = LEVELS.index(action.level)
            return sum(-weight[c] for c in view.levels[index].characters) - 2 * PLAY_THRESHOLD
        if isinstance(action, PlayGoldenMushroom):
            return 1.0
        if isinstance(action, PlayOneUp):
            if view.nominee is not None and view.nominee in favs:
                return 2.0
            return -1.0
        return 0.0
