"""Hidden information in UNO: a viewer's view and legal actions depend only on what that viewer may know, and
no view or event text for a viewer carries another seat's private cards (docs/rules/uno.md §10: "A
player sees their own hand; of the others, only how many cards they hold." "Nobody sees the draw pile, and
cards another player draws are never shown." A challenge's reveal is in the challenger's view only.)."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toadstool.engine import event_text, parse_options
from toadstool.games.uno import engine as uno
from toadstool.games.uno.data import CARD_NAMES
from toadstool.games.uno.engine import ENGINE, UnoState
from toadstool.server.messages import game_view_message

DEFAULTS = parse_options(ENGINE.options, {})


def _random_walk(seed: int, players: int, steps: int) -> Iterator[UnoState]:
    """States of a random game, where optional actions (calls, catches) are taken now and then."""
    rng = random.Random(seed)
    state = ENGINE.new(players, DEFAULTS, seed)
    yield state
    for _ in range(steps):
        if ENGINE.outcome(state) is not None:
            return
        seat = ENGINE.to_act(state)[0]
        optional = [s for s in range(players) if s != seat and ENGINE.legal_actions(state, s)]
        if optional and rng.random() < 0.3:
            seat = rng.choice(optional)
        state = ENGINE.apply(state, seat, rng.choice(list(ENGINE.legal_actions(state, seat))))
        yield state


def _hidden_from(state: UnoState, viewer: int | None) -> list[int]:
    """The cards `viewer` cannot see: other seats' hands and the draw pile (less a hand shown to them)."""
    hidden = [c for s, hand in enumerate(state.hands) if s != viewer for c in hand] + list(state.draw_pile)
    if state.reveal is not None and state.reveal[0] == viewer and state.revealed is not None:
        shown = set(state.revealed.hand)
        hidden = [c for c in hidden if c not in shown]
    return hidden


def _reshuffled(state: UnoState, viewer: int | None, rng: random.Random) -> UnoState:
    """The same state with every card the viewer cannot see exchanged by a random permutation."""
    hidden = _hidden_from(state, viewer)
    image = list(hidden)
    rng.shuffle(image)
    swap = dict(zip(hidden, image, strict=True))

    def move(cards: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(swap.get(c, c) for c in cards)

    attack = state.attack
    if attack is not None:
        attack = uno.Attack(attack.attacker, attack.penalty, attack.prior_color, attack.held_prior_color,
                            move(attack.hand))  # fmt: skip
    revealed = state.revealed
    if revealed is not None and not (state.reveal is not None and state.reveal[0] == viewer):
        revealed = uno.Attack(revealed.attacker, revealed.penalty, revealed.prior_color,
                              not revealed.held_prior_color, move(revealed.hand))  # fmt: skip
    return state._replace(
        hands=tuple(move(h) for h in state.hands),
        draw_pile=move(state.draw_pile),
        drawn=swap.get(state.drawn, state.drawn),
        attack=attack,
        revealed=revealed,
        rng=rng.getrandbits(64),
    )


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    players=st.integers(2, 5),
    steps=st.integers(0, 250),
    shuffle_seed=st.integers(0, 2**32),
)
def test_reshuffling_what_a_viewer_cannot_see_changes_nothing_in_their_view(
    seed: int, players: int, steps: int, shuffle_seed: int
) -> None:
    rng = random.Random(shuffle_seed)
    for step, state in enumerate(_random_walk(seed, players, steps)):
        if step % 7 != steps % 7:
            continue
        for viewer in [*range(players), None]:
            other = _reshuffled(state, viewer, rng)
            assert ENGINE.view(other, viewer) == ENGINE.view(state, viewer)
            if viewer is not None:
                assert list(ENGINE.legal_actions(other, viewer)) == list(ENGINE.legal_actions(state, viewer))


def _card_ids(message: Any) -> Iterator[int]:
    """Every UnoCard id anywhere inside a protobuf message."""
    if message.DESCRIPTOR.name == "UnoCard":
        yield message.id
        return
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        if hasattr(value, "DESCRIPTOR"):
            yield from _card_ids(value)
        else:
            for item in value:
                yield from _card_ids(item)


_CARD_NAME = re.compile("|".join(sorted({re.escape(n) for n in CARD_NAMES}, key=len, reverse=True)))
#: Events that name only public cards (played, flipped, drawn to choose the dealer).
_PUBLIC_CARD_EVENTS = (uno.Played, uno.Flipped, uno.FlipReturned, uno.DealerDraw)


def test_no_view_or_event_shows_a_viewer_another_seats_cards_or_the_draw_pile() -> None:
    checked = 0
    for players, seed in [(2, 1), (3, 2), (4, 3), (6, 4), (10, 5)]:
        for state in _random_walk(seed, players, 4000 // players):
            hidden_from_all = set(state.draw_pile)
            events = ENGINE.last_events(state)
            for viewer in [*range(players), None]:
                message = game_view_message(ENGINE, ENGINE.view(state, viewer)).uno
                allowed = {state.discard[-1]}
                if viewer is not None:
                    allowed |= set(state.hands[viewer])
                    if state.reveal is not None and state.reveal[0] == viewer and state.revealed is not None:
                        allowed |= set(state.revealed.hand)
                seen = set(_card_ids(message))
                assert seen <= allowed, f"seat {viewer} sees {seen - allowed}"
                assert not seen & hidden_from_all
                if viewer is not None:
                    assert sorted(c.id for c in message.hand) == sorted(state.hands[viewer])
                for record, event in zip(state.events, events, strict=True):
                    text = event_text(event, viewer)
                    if isinstance(record, _PUBLIC_CARD_EVENTS) or text != event.text:
                        continue  # public cards, or the viewer's own private text
                    if isinstance(record, uno.Drew) and record.why:
                        text = text.replace(f"({record.why})", "")  # the public reason of a penalty
                    if isinstance(record, uno.Challenged):
                        text = text.replace("Wild Draw Four", "")  # the challenged card is public
                    assert not _CARD_NAME.search(text), f"seat {viewer} reads {text!r}"
                checked += 1
    assert checked > 4_000


def test_a_challenge_reveal_is_private_to_the_challenger_in_random_games() -> None:
    reveals = 0
    for seed in range(40):
        for state in _random_walk(seed, 3, 600):
            if state.reveal is None:
                continue
            challenger = state.reveal[0]
            reveals += 1
            for viewer in (0, 1, 2, None):
                has = ENGINE.view(state, viewer).reveal is not None
                assert has == (viewer == challenger)
    assert reveals > 0
