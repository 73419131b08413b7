"""Hidden information in the Power Up Card Game: views and events tell a viewer only what it may know.

docs/rules/powerup.md §6: your own Level card until the reveal, and any card Boo showed you; your own ? cards
(of the others, how many); the order of neither deck; in a trade or Warp Pipe both learn the card they receive.
"""

from __future__ import annotations

import dataclasses
import random
import re
from typing import Any

from google.protobuf.message import Message
from hypothesis import given, settings
from hypothesis import strategies as st

from toadstool.engine import event_text
from toadstool.games.powerup.data import IS_CASTLE, CardKind
from toadstool.games.powerup.engine import ENGINE, PowerUpState, new_game
from toadstool.games.powerup.views import AcceptSwap, DrawNewLevel, PlayCard, PowerUpView, Stage, Trade
from toadstool.server.messages import game_view_message


def random_state(players: int, seed: int, steps: int) -> PowerUpState:
    """A state reached by random play (any-time cards now and then out of turn)."""
    rng = random.Random(seed)
    state = new_game(players, seed)
    for _ in range(steps):
        waiting = ENGINE.to_act(state)
        if not waiting:
            break
        seat = waiting[0]
        if rng.random() < 0.15:
            optional = [s for s in range(players) if s not in waiting and ENGINE.legal_actions(state, s)]
            if optional:
                seat = rng.choice(optional)
        state = ENGINE.apply(state, seat, rng.choice(list(ENGINE.legal_actions(state, seat))))
    return state


def hidden_level_cards(state: PowerUpState, viewer: int | None) -> set[int]:
    """Level cards whose place `viewer` does not know: others' unknown face-down cards and the deck."""
    hidden = set(state.level_deck)
    for seat in range(state.players):
        card = state.level[seat]
        if card < 0 or state.face_up[seat] or seat == viewer:
            continue
        if viewer is None or state.knows[viewer][seat] != card:
            hidden.add(card)
    hidden -= {c for v, _, c in state.peeks if v == viewer}
    return hidden


def hidden_question_cards(state: PowerUpState, viewer: int | None) -> set[int]:
    hidden = set(state.q_deck)
    for seat in range(state.players):
        if seat != viewer:
            hidden.update(state.hands[seat])
    return hidden


def reshuffle_hidden(state: PowerUpState, viewer: int | None, rng: random.Random) -> PowerUpState:
    """The same state for `viewer`: hidden Level cards and hidden ? cards redistributed.

    The RNG state (never shown) is kept, so that later shuffles place Castles alike in both states.
    """
    level_hidden = sorted(c for c in hidden_level_cards(state, viewer) if not IS_CASTLE[c])
    castles = sorted(c for c in hidden_level_cards(state, viewer) if IS_CASTLE[c])
    level_map = dict(zip(level_hidden, rng.sample(level_hidden, len(level_hidden)), strict=True))
    level_map.update(zip(castles, rng.sample(castles, len(castles)), strict=True))
    q_hidden = sorted(hidden_question_cards(state, viewer))
    q_map = dict(zip(q_hidden, rng.sample(q_hidden, len(q_hidden)), strict=True))

    def lv(card: int) -> int:
        return level_map.get(card, card)

    def qv(card: int) -> int:
        return q_map.get(card, card)

    return dataclasses.replace(
        state,
        level=tuple(lv(c) for c in state.level),
        knows=tuple(tuple(lv(c) for c in row) for row in state.knows),
        level_deck=tuple(lv(c) for c in state.level_deck),
        peeks=tuple((v, t, lv(c)) for v, t, c in state.peeks),
        hands=tuple(h if s == viewer else tuple(qv(c) for c in h) for s, h in enumerate(state.hands)),
        q_deck=tuple(qv(c) for c in state.q_deck),
    )


def reveals_to_all(action: Any) -> bool:
    """Whether `action` discards a card face up (Green Shell, Vine, the dealer's discard): all learn it."""
    if isinstance(action, DrawNewLevel):
        return True
    return isinstance(action, PlayCard) and action.card in (CardKind.GREEN_SHELL, CardKind.VINE)


def involves(state: PowerUpState, action: Any, viewer: int) -> bool:
    """Whether `action` hands `viewer` a card or takes one from it (it then learns something new)."""
    if isinstance(action, Trade | PlayCard) and getattr(action, "target", None) == viewer:
        return True
    if reveals_to_all(action):
        return True
    pending = state.pending
    return (
        isinstance(action, AcceptSwap | PlayCard) and pending is not None and viewer in (pending.actor, pending.target)
    )


def _same_kinds(view: PowerUpView) -> PowerUpView:
    """The view with the ids of played ? cards blanked: the twin may play another card of the same kind."""
    return dataclasses.replace(
        view,
        played=tuple(dataclasses.replace(c, id=-1) for c in view.played),
        seats=tuple(
            dataclasses.replace(s, modifier=dataclasses.replace(s.modifier, id=-1) if s.modifier else None)
            for s in view.seats
        ),
    )


@settings(max_examples=120, deadline=None)
@given(
    players=st.integers(2, 8),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 120),
    viewer_index=st.integers(0, 8),
    shuffle_seed=st.integers(0, 1000),
)
def test_states_differing_only_in_what_a_viewer_cannot_see_look_the_same_to_it(
    players: int, seed: int, steps: int, viewer_index: int, shuffle_seed: int
) -> None:
    state = random_state(players, seed, steps)
    viewer = None if viewer_index >= players else viewer_index
    rng = random.Random(shuffle_seed)
    twin = reshuffle_hidden(state, viewer, rng)
    assert ENGINE.view(state, viewer) == ENGINE.view(twin, viewer)
    assert ENGINE.to_act(state) == ENGINE.to_act(twin)
    if viewer is not None:
        assert ENGINE.legal_actions(state, viewer) == ENGINE.legal_actions(twin, viewer)
    # Another seat's action that does not hand the viewer anything tells it the same in both states.
    if ENGINE.outcome(state) is not None:
        return
    for seat in range(players):
        if seat == viewer:
            continue
        common = [a for a in ENGINE.legal_actions(state, seat) if a in ENGINE.legal_actions(twin, seat)]
        for action in common:
            if viewer is not None and involves(state, action, viewer):
                continue
            if viewer is None and reveals_to_all(action):
                continue
            after, twin_after = ENGINE.apply(state, seat, action), ENGINE.apply(twin, seat, action)
            if after.round_no != state.round_no or (after.stage is Stage.MODIFY and state.stage is not Stage.MODIFY):
                continue  # a reveal or a new deal shows the viewer new cards
            if after.face_up[after.dealer] != state.face_up[state.dealer]:
                continue  # the dealer's card was revealed
            texts = [event_text(e, viewer) for e in ENGINE.last_events(after)]
            twin_texts = [event_text(e, viewer) for e in ENGINE.last_events(twin_after)]
            assert texts == twin_texts, action
            assert _same_kinds(ENGINE.view(after, viewer)) == _same_kinds(ENGINE.view(twin_after, viewer)), action


_SECOND_PERSON = re.compile(r"\b(you|your)\b", re.IGNORECASE)


def _card_ids(message: Message, found: dict[str, set[int]]) -> None:
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        items = value if field.is_repeated else [value]
        for item in items:
            name = item.DESCRIPTOR.name
            if name in ("PowerUpLevelCard", "PowerUpCard"):
                found.setdefault(name, set()).add(item.id)
            _card_ids(item, found)


def test_no_view_in_random_playouts_carries_a_hidden_card() -> None:
    """Over many random playouts, no view of any viewer holds the id of another seat's hidden Level card, of a
    deck card, or of another seat's ? card; no event text names a ? card drawn by someone else."""
    for players, seeds in ((2, 6), (3, 4), (5, 3), (8, 2)):
        for seed in range(seeds):
            state = new_game(players, seed)
            rng = random.Random(seed)
            while ENGINE.outcome(state) is None:
                for viewer in [*range(players), None]:
                    found: dict[str, set[int]] = {}
                    _card_ids(game_view_message(ENGINE, ENGINE.view(state, viewer)), found)
                    assert not found.get("PowerUpLevelCard", set()) & hidden_level_cards(state, viewer)
                    assert not found.get("PowerUpCard", set()) & hidden_question_cards(state, viewer)
                    for event in ENGINE.last_events(state):
                        text = event_text(event, viewer)
                        if "draws a ? card" in event.text:
                            assert text == event.text or dict(event.private).get(viewer) == text
                        if viewer is None or viewer not in dict(event.private):
                            assert not _SECOND_PERSON.search(text), text
                seat = ENGINE.to_act(state)[0]
                state = ENGINE.apply(state, seat, rng.choice(list(ENGINE.legal_actions(state, seat))))


def test_trades_and_warp_pipes_show_the_received_card_to_its_receiver_only() -> None:
    """ "Warp Pipe and trades: both parties learn the card they receive." """
    for seed in range(40):
        state = new_game(4, seed)
        if state.stage is not Stage.KEEP_OR_TRADE or Trade(2) not in ENGINE.legal_actions(state, 1):
            continue
        after = ENGINE.apply(state, 1, Trade(2))
        if after.stage is Stage.ANSWER:
            after = ENGINE.apply(after, 2, AcceptSwap())
        for viewer in (0, 3, None):
            seats = ENGINE.view(after, viewer).seats
            assert seats[1].level is None
            assert seats[2].level is None
        assert ENGINE.view(after, 1).seats[1].level is not None
        assert ENGINE.view(after, 2).seats[2].level is not None
        return
    raise AssertionError("no seed gave a plain trade")
