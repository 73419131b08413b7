"""Power Up's determinizer for the hard bot: a full state sampled from one seat's view and the card lists.

What the seat cannot see (face-down Level cards it does not know, the others' ? cards, both decks' order
and discard piles, the state's RNG, what the others know) is dealt at random from the cards it has not
seen, in the counts the view shows. It never reads a real state. Not for choosing moves
(`toadstool.bots.HardBot` does that).
"""

from __future__ import annotations

import random

from .data import IS_CASTLE, LEVEL_DECK_SIZE, QUESTION_DECK_SIZE
from .engine import Pending, PowerUpState
from .views import PowerUpView, Stage


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
        level: list[int] = []
        for seat in seats:
            if not seat.has_level:
                level.append(-1)
            elif seat.level is not None:
                level.append(seat.level.id)
            else:  # a Castle is always shown: a face-down card is none
                card = next(i for i in range(len(unseen_levels) - 1, -1, -1) if not IS_CASTLE[unseen_levels[i]])
                level.append(unseen_levels.pop(card))
        level_deck = tuple(unseen_levels[: view.level_deck_count])
        level_discard = tuple(unseen_levels[view.level_deck_count :][: view.level_discard_count])
        seen_questions = {card.id for card in view.hand}
        seen_questions.update(card.id for card in view.played)
        seen_questions.update(seat.modifier.id for seat in seats if seat.modifier is not None)
        unseen_questions = [c for c in range(QUESTION_DECK_SIZE) if c not in seen_questions]
        rng.shuffle(unseen_questions)
        hands: list[tuple[int, ...]] = []
        for seat in seats:
            if seat.seat == me:
                hands.append(tuple(card.id for card in view.hand))
            else:
                hands.append(tuple(unseen_questions[: seat.hand_count]))
                del unseen_questions[: seat.hand_count]
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
            decided=tuple(seat.decided for seat in seats),
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


DETERMINIZER = PowerUpDeterminizer()
