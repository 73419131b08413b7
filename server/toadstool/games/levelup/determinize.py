"""Level Up!'s determinizer for the hard bot: a full state sampled from one seat's view and the card lists.

What the seat cannot see (the others' objective cards and power-up cards, the face-down ? blocks, the
order of the block pile and power deck, the discards, the votes already cast, the state's RNG) is dealt at
random from what it has not seen, in the counts the view shows. A few public facts the view leaves out are
rebuilt from it: the placements left (from the characters placed), the pre-vote and 1-Up windows (the seat
asked first, then the seats after it that may still answer), the character waiting on a ? block (one of
those on its level). It never reads a real state. Not for choosing moves (`toadstool.bots.HardBot`).
"""

from __future__ import annotations

import random

from . import data
from .data import BLOCKS, POWERS, BlockKind
from .engine import LevelUpState, LevelUpView, Stage, VoteChoice

_OBJECTIVE_ID = {cards: index for index, cards in enumerate(data.OBJECTIVE_CARDS)}


class LevelUpDeterminizer:
    """Samples Level Up! states consistent with one seat's view (see the module docstring)."""

    #: A lead in `standing` worth about 73% against a seat where a rollout is cut off (toadstool.bots).
    scale = 4.0
    #: Rollouts stop after this many actions (a round is about 100): where the seats' objective characters
    #: then stand says most of what a move did, and shorter rollouts buy many more samples.
    horizon = 40

    def sample(self, view: LevelUpView, rng: random.Random) -> LevelUpState:
        me = view.you
        assert me is not None, "the hard bot plays a seat"
        seats = view.seats
        n = len(seats)
        # Objectives: ours is known; the others' come from the cards not shown (this or the last round).
        mine = _OBJECTIVE_ID[tuple(sorted(view.favourites))]
        shown = tuple(_OBJECTIVE_ID[tuple(sorted(s.last_objective))] for s in seats) if seats[0].last_objective else ()
        hidden = [i for i in range(len(data.OBJECTIVE_CARDS)) if i != mine and i not in shown]
        rng.shuffle(hidden)
        objectives = tuple(mine if s == me else hidden.pop() for s in range(n))
        # Power-up cards: ours are known; the others', the deck and the discards come from the rest.
        own_powers = tuple(p.id for p in view.power_ups)
        unseen_powers = [p for p in range(len(POWERS)) if p not in own_powers]
        rng.shuffle(unseen_powers)
        power_hands: list[tuple[int, ...]] = []
        for seat in seats:
            if seat.seat == me:
                power_hands.append(own_powers)
            else:
                power_hands.append(tuple(unseen_powers[: seat.power_up_count]))
                del unseen_powers[: seat.power_up_count]
        power_deck = tuple(unseen_powers[: view.power_deck])
        power_discard = tuple(unseen_powers[view.power_deck :])
        # ? blocks: the held ones are shown; face-down ones, the pile and the discards come from the rest.
        held = tuple(tuple(b.id for b in seat.held_blocks) for seat in seats)
        held_ids = {b for blocks in held for b in blocks}
        unseen_blocks = [b for b in range(len(BLOCKS)) if b not in held_ids]
        rng.shuffle(unseen_blocks)
        face_down: list[tuple[int, ...]] = []
        for level in view.levels:
            face_down.append(tuple(unseen_blocks[: level.face_down_blocks]))
            del unseen_blocks[: level.face_down_blocks]
        block_pile = tuple(unseen_blocks[: view.block_pile])
        block_discard = tuple(unseen_blocks[view.block_pile :])
        fresh = tuple(b.id for seat in seats for b in seat.held_blocks if b.fresh)
        levels = tuple(tuple(level.characters) for level in view.levels)
        stage = view.stage
        reveal_level = -1
        reveal_character = -1
        if stage == Stage.REVEAL and view.reveal_level is not None:
            reveal_level = data.LEVELS.index(view.reveal_level)
            waiting = levels[reveal_level]
            reveal_character = waiting[rng.randrange(len(waiting))] if waiting else -1
        window: tuple[int, ...] = ()
        if stage in (Stage.PRE_VOTE, Stage.ONE_UP):
            first = me if me in _asked(view, stage, me, fresh, me) else view.current
            order = [(first + k) % n for k in range(n)]
            window = tuple(s for s in order if s == first or s in _asked(view, stage, s, fresh, me))
        votes = [VoteChoice.UNSPECIFIED] * n
        if stage == Stage.VOTE:
            for seat in seats:
                if seat.has_voted and seat.seat != me:
                    votes[seat.seat] = VoteChoice.YES
        per = data.PLACEMENTS_BY_PLAYERS.get(n, 0)
        placed_so_far = sum(len(seat.placed) for seat in seats)
        rounds = max((len(seat.round_scores) for seat in seats), default=0)
        return LevelUpState(
            players=n,
            rng_state=rng.getrandbits(64),
            round=view.round,
            first_player=view.first_player,
            stage=stage,
            current=view.current,
            levels=levels,
            face_down=tuple(face_down),
            block_pile=block_pile,
            block_discard=block_discard,
            held_blocks=held,
            fresh_blocks=fresh,
            power_deck=power_deck,
            power_discard=power_discard,
            power_hands=tuple(power_hands),
            objective_deck=tuple(hidden),
            objectives=objectives,
            no_cards=tuple(seat.no_cards for seat in seats),
            extra_turns=tuple(seat.extra_turns for seat in seats),
            skips=tuple(seat.skips for seat in seats),
            moved=view.moved,
            placements_left=per * n - placed_so_far if stage == Stage.PLACEMENT else 0,
            reveal_character=reveal_character,
            reveal_level=reveal_level,
            warp_character=-1,
            nominee=-1 if view.nominee is None else view.nominee,
            window=window,
            votes=tuple(votes),
            revealed_votes=tuple(seat.revealed_vote for seat in seats),
            cancelled=tuple(seat.vote_cancelled for seat in seats),
            placed=tuple(tuple(seat.placed) for seat in seats),
            pushed=tuple(tuple(seat.pushed) for seat in seats),
            round_scores=tuple(tuple(seat.round_scores[r] for seat in seats) for r in range(rounds)),
            shown_objectives=shown,
            outcome=None,
            events=(),
        )

    def standing(self, state: LevelUpState, seat: int) -> float:
        """Points so far plus what the seat's objective characters stand on now, and its coins."""
        where = {c: index for index, level in enumerate(state.levels) for c in level}
        now = sum(data.LEVELS[where[c]] for c in data.OBJECTIVE_CARDS[state.objectives[seat]] if c in where)
        past = sum(scores[seat] for scores in state.round_scores)
        coins = sum(data.COIN_VALUES.get(BLOCKS[b], 0) for b in state.held_blocks[seat])
        return float(past + now + coins)

    def stop(self, start: LevelUpState, state: LevelUpState) -> bool:
        return state.round != start.round


def _asked(view: LevelUpView, stage: Stage, seat: int, fresh: tuple[int, ...], me: int) -> set[int]:
    """{seat} if `seat` may answer the pre-vote (a power-up or an old Green Shell) or 1-Up window (a
    power-up), else the empty set."""
    info = view.seats[seat]
    may = info.power_up_count > 0
    if stage == Stage.PRE_VOTE:
        may = may or any(b.kind == BlockKind.GREEN_SHELL and b.id not in fresh for b in info.held_blocks)
    return {seat} if may else set()


DETERMINIZER = LevelUpDeterminizer()
