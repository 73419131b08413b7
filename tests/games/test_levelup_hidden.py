"""Hidden information in Level Up!: objective cards, face-down ? blocks, Power Up hands and votes.

docs/rules/levelup.md §5: your own objective card (everyone's is shown at scoring) and Power Up cards (of the
others, how many); face-down ? blocks known to nobody and in no view; each vote secret until all are shown.
"""

from __future__ import annotations

import dataclasses
import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from toadstool.engine import event_text
from toadstool.games.levelup import data
from toadstool.games.levelup.engine import ENGINE as E
from toadstool.games.levelup.engine import LevelUpState, Stage, VoteChoice
from toadstool.server.messages import game_view_message


def _random_state(players: int, seed: int, steps: int) -> LevelUpState:
    rng = random.Random(seed)
    state = E.new(players, {}, seed)
    for _ in range(steps):
        if E.outcome(state) is not None:
            break
        seat = rng.choice(E.to_act(state))
        state = E.apply(state, seat, rng.choice(E.legal_actions(state, seat)))
    return state


def _scramble(state: LevelUpState, viewer: int, rng: random.Random) -> LevelUpState:
    """Change everything `viewer` cannot see, consistently: other objectives, other hands, face-down blocks,
    other seats' secret votes and the RNG."""
    n = state.players
    others = [s for s in range(n) if s != viewer]
    # Objective cards of the others, swapped with undealt cards.
    pool = [state.objectives[s] for s in others] + list(state.objective_deck)
    rng.shuffle(pool)
    objectives = list(state.objectives)
    for s in others:
        objectives[s] = pool.pop()
    # Power Up hands of the others, redealt from their cards and the draw pile (counts kept).
    cards = [p for s in others for p in state.power_hands[s]] + list(state.power_deck)
    rng.shuffle(cards)
    hands = [list(h) for h in state.power_hands]
    for s in others:
        hands[s] = [cards.pop() for _ in state.power_hands[s]]
    # Face-down blocks and the pile, permuted together (counts per level kept).
    hidden = [b for level in state.face_down for b in level] + list(state.block_pile)
    rng.shuffle(hidden)
    face_down = []
    for level in state.face_down:
        face_down.append(tuple(hidden.pop() for _ in level))
    # Secret votes of the others.
    votes = list(state.votes)
    for s in others:
        if votes[s] != VoteChoice.UNSPECIFIED:
            votes[s] = rng.choice([VoteChoice.YES, VoteChoice.NO, VoteChoice.THWOMP_VOTE])
    return dataclasses.replace(
        state,
        objectives=tuple(objectives),
        objective_deck=tuple(pool),
        power_hands=tuple(tuple(h) for h in hands),
        power_deck=tuple(cards),
        face_down=tuple(face_down),
        block_pile=tuple(hidden),
        votes=tuple(votes),
        rng_state=rng.getrandbits(64),
    )


@settings(max_examples=80, deadline=None)
@given(
    players=st.integers(3, 6),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 300),
    viewer=st.integers(0, 5),
    salt=st.integers(0, 2**32),
)
def test_states_that_differ_only_in_what_a_viewer_cannot_see_look_the_same_to_it(
    players: int, seed: int, steps: int, viewer: int, salt: int
) -> None:
    viewer %= players
    state = _random_state(players, seed, steps)
    other = _scramble(state, viewer, random.Random(salt))
    assert E.view(state, viewer) == E.view(other, viewer)
    assert E.legal_actions(state, viewer) == E.legal_actions(other, viewer)
    assert E.view(state, None) == E.view(_scramble(state, -1, random.Random(salt)), None)


_POWER_REF = re.compile(r"power #(\d+)")
_BLOCK_REF = re.compile(r"block #(\d+)")


def test_random_playouts_never_show_a_viewer_another_seats_secrets() -> None:
    checked = 0
    for players in (3, 4, 6):
        for seed in range(3):
            rng = random.Random(seed)
            state = E.new(players, {}, seed)
            while E.outcome(state) is None:
                face_down = {b for level in state.face_down for b in level}
                for viewer in [*range(players), None]:
                    view = E.view(state, viewer)
                    message = game_view_message(E, view).levelup
                    own = set(state.power_hands[viewer]) if viewer is not None else set()
                    assert {p.id for p in message.power_ups} == own
                    for seat in message.seats:
                        assert not {b.id for b in seat.held_blocks} & face_down
                        if state.stage == Stage.VOTE:
                            assert seat.revealed_vote == 0
                    expected = data.OBJECTIVE_CARDS[state.objectives[viewer]] if viewer is not None else ()
                    assert tuple(message.favourites) == tuple(expected)
                    for event in E.last_events(state):
                        text = event_text(event, viewer)
                        for ref in _POWER_REF.findall(text):
                            assert int(ref) in own or int(ref) in state.power_discard, text
                        for ref in _BLOCK_REF.findall(text):
                            assert int(ref) not in face_down, text
                        if "objective:" in text:
                            assert viewer is not None
                            assert text.startswith("your objective")
                        if state.stage == Stage.VOTE:
                            assert not any(word in text for word in ("Yes!", "No!", "Thwomp Vote")), text
                    checked += 1
                seat = rng.choice(E.to_act(state))
                state = E.apply(state, seat, rng.choice(E.legal_actions(state, seat)))
    assert checked > 1000


def test_secret_votes_and_hands_do_not_change_what_others_see_during_a_vote() -> None:
    """'votes until the reveal': every vote state met in random games, scrambled for each viewer."""
    seen = 0
    for seed in range(40):
        rng = random.Random(seed)
        state = E.new(4, {}, seed)
        while E.outcome(state) is None and seen < 200:
            if state.stage == Stage.VOTE and any(v != VoteChoice.UNSPECIFIED for v in state.votes):
                for viewer in range(4):
                    other = _scramble(state, viewer, random.Random(seed * 31 + viewer))
                    assert E.view(state, viewer) == E.view(other, viewer)
                    assert E.legal_actions(state, viewer) == E.legal_actions(other, viewer)
                seen += 1
            seat = rng.choice(E.to_act(state))
            state = E.apply(state, seat, rng.choice(E.legal_actions(state, seat)))
    assert seen >= 50
