"""A sensible Kart bot: it plays from its view only (never the state), with simple expected-value rules.

It fires shells at the nearest kart ahead (the Blue Shell at the leader), uses Mushrooms and the Lightning
at once, steals the best item with the Ghost, puts banana chips where rivals are likely to land and it is
not, takes a Feather shortcut when that gains, always takes the booster roll, and pays coin bundles when
they make a shortcut or the finish reachable (and spends big hoards before bananas and shells halve them).
It is not a rules engine: legality comes from the `legal` list it is given.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from toadstool.games.kart.data import BUNDLE_BONUS, DIE_SIDES, SHORTCUT_COST, FieldType, Item
from toadstool.games.kart.engine import (
    Discard,
    DropBanana,
    EndTurn,
    KartView,
    MoveBanana,
    PayCoins,
    PlaceBanana,
    Roll,
    StayOnTrack,
    TakeShortcut,
    UseItem,
)

#: What stealing each item with the Ghost is worth to the bot (higher is better).
GHOST_PRIORITY: dict[Item, int] = {
    Item.LIGHTNING: 7,
    Item.RED_SHELL: 6,
    Item.BLUE_SHELL: 5,
    Item.MUSHROOM: 4,
    Item.FEATHER: 3,
    Item.GREEN_SHELL: 2,
    Item.GHOST: 1,
}
#: Rough worth in fields of ending a move on each kind of field.
FIELD_WORTH: dict[FieldType, float] = {
    FieldType.PLAIN: 0.0,
    FieldType.ITEM: 1.0,
    FieldType.BOOSTER: 3.5,
    FieldType.MUSHROOM: -1.75,
    FieldType.THWOMP: -2.9,  # expected skips (2/3 x 1.5 turns... about 0.8 turns) times ~3.5 fields
}
SKIP_WORTH = 3.5  # a skipped turn costs about one average roll
HOARD = 10  # coins above which the bot spends the biggest bundle it can


class KartBot:
    """Plays Kart sensibly from its view."""

    needs_view = True

    def choose(self, view: KartView, legal: Sequence[Any], must_act: bool, rng: random.Random) -> Any | None:
        if not legal:
            return None
        first = legal[0]
        if isinstance(first, TakeShortcut | StayOnTrack):
            return self._route(view, legal)
        if isinstance(first, PlaceBanana | MoveBanana | DropBanana):
            return self._banana(view, legal)
        return self._before_roll(view, legal)

    # -- before a roll
    def _before_roll(self, view: KartView, legal: Sequence[Any]) -> Any:
        me = view.karts[view.you or 0]
        uses = [a for a in legal if isinstance(a, UseItem)]
        use = self._item(view, uses) if uses else None
        if use is not None:
            return use
        pays = [a for a in legal if isinstance(a, PayCoins)]
        pay = self._bundle(view, pays) if pays else None
        if pay is not None:
            return pay
        if me.item is Item.GHOST and Discard() in legal and not any(k.item for k in view.karts if k.seat != me.seat):
            return Discard()  # nothing to steal: make room for a ? draw
        for action in legal:
            if isinstance(action, Roll):
                return action
        return next(a for a in legal if not isinstance(a, EndTurn))

    def _item(self, view: KartView, uses: list[UseItem]) -> UseItem | None:
        me = view.karts[view.you or 0]
        item = me.item
        if item in (Item.MUSHROOM, Item.LIGHTNING):
            return uses[0]
        if item is Item.GHOST:
            best = max(uses, key=lambda a: GHOST_PRIORITY.get(view.karts[a.target or 0].item or Item.DUD, 0))
            return best
        # shells: the nearest kart ahead (the Blue Shell only ever offers leaders)
        return min(uses, key=lambda a: (view.karts[a.target or 0].progress, a.target or 0))

    def _bundle(self, view: KartView, pays: list[PayCoins]) -> PayCoins | None:
        me = view.karts[view.you or 0]
        n = view.track.length
        moves = []
        for pips in range(1, DIE_SIDES + 1):
            move = pips * (2 if view.mushroom else 1)
            moves.append(move // 2 if me.halving else move)

        def chance(target: int, pay: PayCoins | None) -> float:
            bonus = BUNDLE_BONUS[pay.coins] if pay is not None else 0
            return sum(1 for m in moves if m + bonus >= target) / DIE_SIDES

        options = sorted(pays, key=lambda a: a.coins)
        # win the race: the cheapest bundle with the best chance to finish on this roll
        remaining = view.laps * n - me.progress
        best = max(options, key=lambda a: (chance(remaining, a), -a.coins))
        if chance(remaining, best) > chance(remaining, None):
            return best
        # win a shortcut: the cheapest bundle that makes it more likely than not
        if me.item is Item.FEATHER:
            for cut in view.track.shortcuts:
                need = (cut.start - me.field) % n + SHORTCUT_COST
                if chance(need, None) >= 0.5:
                    continue
                for pay in options:
                    if chance(need, pay) >= 0.5:
                        return pay
        # spend a hoard before a banana or a shell halves it
        if me.coins >= HOARD:
            return options[-1]
        return None

    # -- after a roll with a Feather
    def _route(self, view: KartView, legal: Sequence[Any]) -> Any:
        me = view.karts[view.you or 0]
        n = view.track.length
        move = view.pending_move

        def worth(action: Any) -> float:
            if isinstance(action, TakeShortcut):
                cut = view.track.shortcuts[action.shortcut]
                d = (cut.start - me.field) % n
                progress = me.progress + d + (cut.exit - cut.start) % n + move - d - SHORTCUT_COST
                spent = 2.0  # the Feather is worth a little kept for later
            else:
                progress = me.progress + move
                spent = 0.0
            return progress + self._landing(view, progress) - spent

        return max(legal, key=worth)

    def _landing(self, view: KartView, progress: int) -> float:
        n = view.track.length
        if progress >= view.laps * n:
            return 1000.0
        me = view.karts[view.you or 0]
        field = progress % n
        worth = FIELD_WORTH[view.track.fields[field]]
        if view.track.fields[field] is FieldType.ITEM and me.item is not None:
            worth = 0.0
        if field in view.banana_fields:
            worth -= SKIP_WORTH + me.coins / 2
        if any(k.seat != me.seat and k.progress > 0 and k.field == field for k in view.karts):
            worth -= 1.0 if me.coins else SKIP_WORTH
        return worth

    # -- a drawn Banana
    def _banana(self, view: KartView, legal: Sequence[Any]) -> Any:
        me = view.karts[view.you or 0]
        n = view.track.length

        def threat(field: int) -> float:
            """How much a chip on `field` hurts the rivals minus how much it hurts me (next moves)."""
            score = 0.0
            for kart in view.karts:
                distance = (field - kart.field) % n
                if kart.seat == me.seat:
                    if 1 <= distance <= 2 * DIE_SIDES:
                        score -= 2.0 / DIE_SIDES
                elif 1 <= distance <= DIE_SIDES:
                    weight = 1.5 if kart.progress >= me.progress else 1.0
                    score += weight / DIE_SIDES
            return score

        best: Any = DropBanana()
        best_score = 0.0
        for action in legal:
            if isinstance(action, PlaceBanana):
                score = threat(action.field)
            elif isinstance(action, MoveBanana):
                score = threat(action.field) - threat(action.from_field)
            else:
                continue
            if score > best_score:
                best, best_score = action, score
        return best
