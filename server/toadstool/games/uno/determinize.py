"""UNO's determinizer for the hard bot: a full UNO state sampled from one seat's view and the deck list.

What the seat cannot see (the others' hands, the order of the draw pile, the cards under the top discard,
the state's RNG) is dealt at random from the 112 cards minus its own hand and the top card, in the counts
the view shows. It never reads a real state. Not for choosing moves (`toadstool.bots.HardBot` does that).

What the seat saw before narrows the deal (`UnoTracker`, kept by the seat's HardBot across its views): an
opponent who drew one card instead of playing holds nothing that was playable then, one who played a wild no
coloured card that fitted (the normal bot and most people play so; the rules allow otherwise, §4.1 and §4.2,
so this is a read of the player, not a rule), and the cards they draw afterwards are unknown again. The
sampler deals those opponents' constrained cards from the cards that fit, as far as the unseen cards allow.
"""

from __future__ import annotations

import random
from typing import NamedTuple

from .data import ALL_CARDS, CARD_COLOR, CARD_KIND, CARD_POINTS, CARD_RANK, IS_WILD, PLAYABLE, UnoKind
from .engine import (
    _COLOR_OF,
    _STAGE_OF,
    CARD_VIEWS,
    OVER,
    Attack,
    HandWon,
    UnoConfig,
    UnoDirection,
    UnoStage,
    UnoState,
    UnoView,
)


class RolloutView:
    """The fields of UnoView that the normal bot (bot.UnoBot) reads, built from a state in a fraction of the
    time of `UnoEngine.view`: the hard bot's rollouts ask for one at every move. tests/test_bot_levels.py
    checks that the normal bot chooses the same with it as with the full view."""

    __slots__ = ("attacker", "color", "current", "direction", "hand", "hand_counts", "stage", "you")

    def __init__(self, state: UnoState, seat: int) -> None:
        self.you = seat
        self.hand = tuple(CARD_VIEWS[c] for c in sorted(state.hands[seat]))
        self.hand_counts = tuple(len(h) for h in state.hands)
        self.color = _COLOR_OF[state.color]
        self.direction = UnoDirection.CLOCKWISE if state.direction == 1 else UnoDirection.COUNTER_CLOCKWISE
        self.current = state.current
        self.stage = _STAGE_OF[state.stage]
        self.attacker = state.attack.attacker if state.attack is not None else None


class UnoDeterminizer:
    """Samples UNO states consistent with one seat's view (see the module docstring)."""

    #: A lead in `standing` worth about 73% against a seat where a rollout is cut off (toadstool.bots): about
    #: a good hand's points. At 40 a lead of three hands' worth read as a sure win and a move's few points
    #: more or less were lost in the logistic's flat end.
    scale = 100.0
    #: The hard bot leaves the normal bot's choice only for an action better by 2 standard errors: with
    #: a looser test it chased noise among UNO's many near-equal plays (1 of 20 games won at 0.5).
    confidence = 2.0

    def tracker(self) -> UnoTracker:
        """A fresh memory of one seat's views (the hard bot keeps one per game it plays)."""
        return UnoTracker()

    def sample(self, view: UnoView, rng: random.Random, hints: Hints | None = None) -> UnoState:
        """A state `view` could be a view of; `hints` (an UnoTracker's) keeps the cards an opponent
        showed they lack out of their constrained cards."""
        me = view.you
        assert me is not None, "the hard bot plays a seat"
        players = len(view.hand_counts)
        own = tuple(card.id for card in view.hand)
        top = view.top_card.id if view.top_card is not None else -1
        known = set(own)
        known.add(top)
        unseen = [c for c in ALL_CARDS if c not in known]
        rng.shuffle(unseen)
        dealt: list[list[int]] = [[] for _ in range(players)]
        if hints:
            _deal_constrained(hints, view.hand_counts, me, unseen, dealt)
            rng.shuffle(unseen)  # the cards a group passed over are at the front: shuffle them back in
        hands: list[tuple[int, ...]] = []
        for seat in range(players):
            if seat == me:
                hands.append(own)
                continue
            count = view.hand_counts[seat] - len(dealt[seat])
            hands.append((*dealt[seat], *unseen[:count]))
            del unseen[:count]
        draw_pile = tuple(unseen[: view.draw_pile_count])
        under = tuple(unseen[view.draw_pile_count :])
        discard = (*under, top) if top >= 0 else under
        stage = int(view.stage)
        drawn = -1
        if view.stage == UnoStage.DRAWN:
            if view.drawn_card is not None:
                drawn = view.drawn_card.id
            elif hands[view.current]:
                drawn = hands[view.current][-1]
        attack = None
        if view.attacker is not None and view.stage in (UnoStage.ANSWER_DRAW_TWO, UnoStage.ANSWER_WILD_DRAW_FOUR):
            held = hands[view.attacker]
            prior = int(view.prior_color)
            attack = Attack(
                attacker=view.attacker,
                penalty=view.pending_penalty,
                prior_color=prior,
                held_prior_color=prior != 0 and any(CARD_COLOR[c] == prior for c in held),
                hand=held,
            )
        config = UnoConfig(players, view.target, view.lowest_wins, view.house_rule)
        last = ((view.last_hand_winner, view.last_hand_points),) if view.last_hand_winner is not None else ()
        return UnoState(
            config, rng.getrandbits(64), tuple(hands), draw_pile, discard, int(view.color),
            1 if view.direction == 1 else -1, view.current, stage if stage else OVER, attack, drawn,
            view.uno_catchable if view.uno_catchable is not None else -1, None, None, view.hand_number,
            view.dealer, view.scores, last, view.winners, (),
        )  # fmt: skip

    def rollout_view(self, state: UnoState, seat: int) -> RolloutView:
        return RolloutView(state, seat)

    def standing(self, state: UnoState, seat: int) -> float:
        """Score so far plus this hand's prospects: a seat whose hand is over scores it, else few and cheap
        cards left count for it (with lowest_wins, every point held counts against).

        A rollout stops at the apply that ended its hand (`stop`), which has already dealt the next one:
        that deal (the HandWon event says so) is the same luck for every move, so only the scores count."""
        if any(type(event) is HandWon for event in state.events):
            return float(-state.scores[seat] if state.config.lowest_wins else state.scores[seat])
        hand = state.hands[seat]
        held = sum(CARD_POINTS[c] for c in hand)
        if state.config.lowest_wins:
            return -float(state.scores[seat] + held)
        return float(state.scores[seat]) - 4.0 * len(hand) - 0.2 * held

    def stop(self, start: UnoState, state: UnoState) -> bool:
        return state.hand_number != start.hand_number


#: What an UnoTracker tells the sampler: per seat, groups (cards that cannot be there, how many cards), each a
#: number of that seat's cards none of which is among the excluded ids. Plain tuples and frozensets: it
#: travels to the thinking processes with the decision.
Hints = tuple[tuple[tuple[frozenset[int], int], ...], ...]

_NUMBER = int(UnoKind.NUMBER)
_WILDS = frozenset(c for c in ALL_CARDS if IS_WILD[c])


def _deal_constrained(
    hints: Hints, counts: tuple[int, ...], me: int, unseen: list[int], dealt: list[list[int]]
) -> None:
    """Deal each constrained group its cards from `unseen` (shuffled; taken cards are removed), the groups
    with the most excluded cards first; a group the unseen cards cannot fill keeps what fits."""
    groups = [
        (excluded, size, seat)
        for seat, seat_groups in enumerate(hints)
        if seat != me and seat < len(counts)
        for excluded, size in seat_groups
    ]
    groups.sort(key=lambda group: -len(group[0]))
    for excluded, size, seat in groups:
        room = counts[seat] - len(dealt[seat])
        want = min(size, room)
        if want <= 0:
            continue
        taken: list[int] = []
        index = 0
        while len(taken) < want and index < len(unseen):
            card = unseen[index]
            if card in excluded:
                index += 1
                continue
            taken.append(card)
            del unseen[index]
        dealt[seat].extend(taken)


class _Seen(NamedTuple):
    """What the tracker keeps of a view."""

    hand_number: int
    own: tuple[int, ...]
    counts: tuple[int, ...]
    top: int
    color: int
    discards: int
    pile: int
    direction: int
    stage: int
    current: int


class _Group:
    """`size` of a seat's cards, none of them among `excluded`."""

    __slots__ = ("excluded", "size")

    def __init__(self, excluded: frozenset[int], size: int) -> None:
        self.excluded = excluded
        self.size = size


class UnoTracker:
    """What one seat learns from its successive views of a hand (the hard bot shows it each view it is
    given): which opponents drew a single card instead of playing, or played a wild, and on what. The view
    carries no events, so it compares two views. When no other seat played a card between them (the discards
    grew only by the seat's own plays, no reshuffle), every opponent who holds one card more drew it on the
    top card and colour the later view shows. When others played, and the seat had played a number card or
    kept its turn's top, it walks the opponents in turn order while each acted once: one card more is a draw
    on the top it faced, one card fewer a play, and the last play is the top now (a number card or a wild;
    a play before the last is out of sight, so the walk stops there, as it does at any other count).

    One who drew held nothing playable on what it faced: all its cards but the one drawn avoid that card's
    playable set (a Wild Draw Four is always playable, so no wild either). One who played a wild held no
    coloured card that fitted. These are reads of the normal bot and of most people (the rules let anyone
    draw or play a wild anyway, §4.1 and §4.2). A later play may take from any group, so each loses one
    (the reading stays cautious); a later draw adds unknown cards. A new hand forgets everything.

    `hints()` is what the sampler needs, small and picklable (`Hints`)."""

    def __init__(self) -> None:
        self._last: _Seen | None = None
        #: Per seat, its constrained groups.
        self._groups: list[list[_Group]] = []

    def see(self, view: UnoView) -> None:
        me = view.you
        if me is None:
            return
        top = view.top_card.id if view.top_card is not None else -1
        now = _Seen(
            view.hand_number, tuple(sorted(card.id for card in view.hand)), tuple(view.hand_counts), top,
            int(view.color), view.discard_count, view.draw_pile_count, int(view.direction), int(view.stage),
            view.current,
        )  # fmt: skip
        last = self._last
        if now == last:
            return  # the same view asked again
        self._last = now
        players = len(now.counts)
        if last is None or now.hand_number != last.hand_number or len(self._groups) != players:
            self._groups = [[] for _ in range(players)]
            return
        mine = set(now.own)
        played = [c for c in last.own if c not in mine]
        for seat in range(players):
            if seat != me:
                self._counted(seat, now.counts[seat], last.counts[seat] - now.counts[seat])
        if now.pile > last.pile or now.discards < last.discards or now.stage != int(UnoStage.PLAY):
            return  # a reshuffle (the discards cannot be counted), or not a turn's start
        others_played = now.discards - last.discards - len(played)
        grew = [now.counts[s] - last.counts[s] for s in range(players)]
        if others_played == 0 and now.current == me:
            if top >= 0:
                for seat in range(players):
                    if seat != me and grew[seat] == 1:
                        self._lacks(seat, PLAYABLE[now.color][CARD_RANK[top]], now.counts[seat] - 1)
            return
        if others_played < 1 or last.current != me or last.stage not in (int(UnoStage.PLAY), int(UnoStage.DRAWN)):
            return  # the walk starts from the seat's own turn (not from a window in another's)
        if len(played) == 1 and len(now.own) == len(last.own) - 1 and CARD_KIND[played[0]] == _NUMBER:
            color, faced = CARD_COLOR[played[0]], played[0]
        elif not played and len(now.own) >= len(last.own) and last.top >= 0:
            color, faced = last.color, last.top
        else:
            return  # an action card changes who plays next, a wild's colour is not in the view
        # The opponents in turn order, each acting once while nobody skips or reverses: one who holds a card
        # more drew on what it faced; the last card played is the top now, and a wild among it was played
        # for want of a coloured card that fit.
        step = 1 if last.direction == int(UnoDirection.CLOCKWISE) else -1
        plays = 0
        seat = (me + step) % players
        while seat != me:
            if grew[seat] == 1:
                self._lacks(seat, PLAYABLE[color][CARD_RANK[faced]], now.counts[seat] - 1)
            elif grew[seat] == -1:
                plays += 1
                if plays != others_played:
                    return  # a card that is no longer in sight: it may have skipped or reversed
                if IS_WILD[top]:
                    self._lacks(seat, PLAYABLE[color][CARD_RANK[faced]] - _WILDS, now.counts[seat])
                elif CARD_KIND[top] != _NUMBER:
                    return
                color, faced = now.color, top
            else:
                return
            seat = (seat + step) % players

    def _counted(self, seat: int, count: int, played: int) -> None:
        """`seat` holds `count` cards, `played` fewer than before (each may have come from any group: every
        group loses as many, and none holds more than the seat)."""
        kept = []
        for group in self._groups[seat]:
            group.size = min(group.size - max(played, 0), count)
            if group.size > 0:
                kept.append(group)
        self._groups[seat] = kept

    def _lacks(self, seat: int, excluded: frozenset[int], held: int) -> None:
        """`held` of `seat`'s cards, all it had before the cards it drew since, hold none of `excluded`."""
        groups = self._groups[seat]
        for group in groups:
            group.excluded = group.excluded | excluded
        free = held - sum(group.size for group in groups)
        if free > 0:
            groups.append(_Group(excluded, free))

    def hints(self) -> Hints:
        return tuple(tuple((group.excluded, group.size) for group in groups) for groups in self._groups)


DETERMINIZER = UnoDeterminizer()
