"""UNO's determinizer for the hard bot: a full UNO state sampled from one seat's view and the deck list.

What the seat cannot see (the others' hands, the order of the draw pile, the cards under the top discard,
the state's RNG) is dealt at random from the 112 cards minus its own hand and the top card, in the counts
the view shows. It never reads a real state. Not for choosing moves (`toadstool.bots.HardBot` does that).
"""

from __future__ import annotations

import random

from .data import ALL_CARDS, CARD_COLOR, CARD_POINTS
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

    def sample(self, view: UnoView, rng: random.Random) -> UnoState:
        me = view.you
        assert me is not None, "the hard bot plays a seat"
        players = len(view.hand_counts)
        own = tuple(card.id for card in view.hand)
        top = view.top_card.id if view.top_card is not None else -1
        known = set(own)
        known.add(top)
        unseen = [c for c in ALL_CARDS if c not in known]
        rng.shuffle(unseen)
        hands: list[tuple[int, ...]] = []
        for seat in range(players):
            if seat == me:
                hands.append(own)
                continue
            count = view.hand_counts[seat]
            hands.append(tuple(unseen[:count]))
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


DETERMINIZER = UnoDeterminizer()
