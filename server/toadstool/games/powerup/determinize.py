"""Power Up's determinizer for the hard bot: a full state sampled from one seat's view and the card lists.

What the seat cannot see (face-down Level cards it does not know, the others' ? cards, both decks' order
and discard piles, the state's RNG, what the others know) is dealt at random from the cards it has not
seen, in the counts the view shows. It never reads a real state. Not for choosing moves
(`toadstool.bots.HardBot` does that).

What the seats did narrows the deal (a read of how the normal bot and most people play, not a rule, so the
sampler keeps to it only as far as the unseen cards allow):
- A face-down Level card its holder kept, when a trade was open to them and no Boo was played this round,
  is high (above LOW, the normal bot's line; one more on a last Extra Life). One whose trade or Warp Pipe
  was blocked with Hammer Bros. is low, and so is the card a seat still to decide was given by a trade from
  its right (the trader found it low). Each seat's decision is public (`PowerUpSeat.decision`, as in the log).
- An opponent in the round holds no 1-Up Mushroom and no Red Shell: both are any-time cards that pay at
  once (an Extra Life, a card taken), and a player who held one would have played it already.
"""

from __future__ import annotations

import random

from .bot import LOW
from .data import IS_CASTLE, LEVEL_DECK_SIZE, LEVEL_VALUE, QUESTION_CARD_KIND, QUESTION_DECK_SIZE, CardKind
from .engine import Pending, PowerUpState
from .views import Decision, PowerUpView, Stage

#: The ? cards an opponent in the round is dealt last: any-time cards that pay at once when played.
_PLAYED_AT_ONCE = frozenset({CardKind.ONE_UP_MUSHROOM, CardKind.RED_SHELL})


class PowerUpDeterminizer:
    """Samples Power Up states consistent with one seat's view (see the module docstring)."""

    #: A lead in `standing` worth about 73% against a seat where a rollout is cut off (toadstool.bots).
    scale = 1.0

    def sample(self, view: PowerUpView, rng: random.Random) -> PowerUpState:
        me = view.you
        assert me is not None, "the hard bot plays a seat"
        seats = view.seats
        n = len(seats)
        seen_levels = {seat.level.id for seat in seats if seat.level is not None}
        unseen_levels = [c for c in range(LEVEL_DECK_SIZE) if c not in seen_levels]
        rng.shuffle(unseen_levels)
        reads = level_reads(view)
        level: list[int] = []
        for seat in seats:
            if not seat.has_level:
                level.append(-1)
            elif seat.level is not None:
                level.append(seat.level.id)
            else:  # a Castle is always shown: a face-down card is none
                # The read where the unseen cards allow it, else any card that may lie face down.
                card = _last_fitting(unseen_levels, reads.get(seat.seat, ANY_LEVEL))
                if card is None:
                    card = _last_fitting(unseen_levels, ANY_LEVEL)
                assert card is not None, "every deal leaves a face-down card to deal"
                level.append(unseen_levels.pop(card))
        level_deck = tuple(unseen_levels[: view.level_deck_count])
        level_discard = tuple(unseen_levels[view.level_deck_count :][: view.level_discard_count])
        seen_questions = {card.id for card in view.hand}
        seen_questions.update(card.id for card in view.played)
        seen_questions.update(seat.modifier.id for seat in seats if seat.modifier is not None)
        unseen_questions = [c for c in range(QUESTION_DECK_SIZE) if c not in seen_questions]
        rng.shuffle(unseen_questions)
        # The cards played at once go to the back: opponents are dealt them only if nothing else is left
        # (the sort is stable, so the rest stays shuffled; a seat out of the game holds no ? card).
        playing = view.stage in (Stage.KEEP_OR_TRADE, Stage.ANSWER, Stage.MODIFY)
        if playing:
            unseen_questions.sort(key=lambda c: QUESTION_CARD_KIND[c] in _PLAYED_AT_ONCE)
        hands: list[tuple[int, ...]] = []
        for seat in seats:
            if seat.seat == me:
                hands.append(tuple(card.id for card in view.hand))
            else:
                hands.append(tuple(unseen_questions[: seat.hand_count]))
                del unseen_questions[: seat.hand_count]
        rng.shuffle(unseen_questions)
        q_deck = tuple(unseen_questions[: view.question_deck_count])
        q_discard = tuple(unseen_questions[view.question_deck_count :][: view.question_discard_count])
        knows = [[-1] * n for _ in range(n)]
        for s in range(n):
            knows[s][s] = level[s]
        for seat in seats:
            if seat.level is not None:
                knows[me][seat.seat] = seat.level.id
        pending = view.pending
        return PowerUpState(
            players=n,
            rng_state=rng.getrandbits(64),
            round_no=view.round,
            dealer=view.dealer,
            tokens=tuple(seat.tokens for seat in seats),
            supply=view.supply,
            alive=tuple(seat.active for seat in seats),
            in_round=tuple(seat.in_round for seat in seats),
            level=tuple(level),
            face_up=tuple(seat.face_up for seat in seats),
            knows=tuple(tuple(row) for row in knows),
            modifier=tuple(seat.modifier.id if seat.modifier is not None else -1 for seat in seats),
            hands=tuple(hands),
            level_deck=level_deck,
            level_discard=level_discard,
            q_deck=q_deck,
            q_discard=q_discard,
            q_table=tuple(card.id for card in view.played),
            stage=view.stage,
            turn=-1 if view.turn is None else view.turn,
            decided=tuple(seat.decision for seat in seats),
            pending=None if pending is None else Pending(pending.from_seat, pending.to_seat, pending.kind),
            passes=view.passes_in_a_row,
            peeks=tuple((me, peek.seat, peek.card.id) for peek in view.peeks),
            started=tuple(seat.seat for seat in seats if seat.in_round),
            winners=view.winners,
            events=(),
        )

    def standing(self, state: PowerUpState, seat: int) -> float:
        """Extra Lives held (a seat out of the game has none), a ? card in hand worth a little."""
        if not state.alive[seat]:
            return -1.0
        return state.tokens[seat] + 0.2 * len(state.hands[seat])

    def stop(self, start: PowerUpState, state: PowerUpState) -> bool:
        return state.round_no != start.round_no or state.stage is Stage.GAME_OVER


def level_reads(view: PowerUpView) -> dict[int, tuple[int, int]]:
    """Per seat whose Level card is face down to the viewer, the printed values it is read to hold (lowest,
    highest) from the round's public decisions (see the module docstring); seats without a read are absent."""
    seats = view.seats
    n = len(seats)
    in_round = [seat.seat for seat in seats if seat.in_round]
    reads: dict[int, tuple[int, int]] = {}
    if view.stage not in (Stage.KEEP_OR_TRADE, Stage.ANSWER):
        return reads  # after the reveal every card is face up
    # A Boo this round may have shown someone that the card they would trade for is lower still: then they
    # keep a low card, and nobody can tell who looked.
    peeked = any(card.kind == CardKind.BOO for card in view.played)
    for seat in seats:
        if seat.level is not None or not seat.has_level or seat.seat == view.you or not seat.in_round:
            continue
        low = LOW + 1 if seat.tokens <= 1 else LOW
        right = next((seats[(seat.seat - k) % n] for k in range(1, n) if (seat.seat - k) % n in in_round), None)
        left = next((seats[(seat.seat + k) % n] for k in range(1, n) if (seat.seat + k) % n in in_round), None)
        if seat.decision is Decision.KEPT and not peeked and seat.seat != view.dealer and left and not left.castle:
            reads[seat.seat] = (low + 1, 99)
        elif seat.decision is Decision.BLOCKED:
            reads[seat.seat] = (0, low)
        elif seat.decision is Decision.UNDECIDED and right is not None and right.decision is Decision.TRADED:
            given = LOW + 1 if right.tokens <= 1 else LOW
            reads[seat.seat] = (0, given)
    return reads


#: The values a face-down card without a read may have: any (a Castle is always shown, so never one).
ANY_LEVEL = (0, 99)


def _last_fitting(cards: list[int], bounds: tuple[int, int]) -> int | None:
    """The index of the last of `cards` that is no Castle and whose printed value is within `bounds`."""
    low, high = bounds
    for index in range(len(cards) - 1, -1, -1):
        if not IS_CASTLE[cards[index]] and low <= LEVEL_VALUE[cards[index]] <= high:
            return index
    return None


DETERMINIZER = PowerUpDeterminizer()
