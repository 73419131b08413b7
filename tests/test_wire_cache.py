"""The view converter's shortcuts (`wire.to_message`) and the remembered seat names (`name_seats`). Nested
frozen values are parsed from the bytes of an equal value converted before (`wire._CONVERTED`), IntEnum
members are set as the numbers they are, and a named text is remembered by its text and names. They exist for
speed (issue #24); what must hold is that every view and action converts to exactly the message a plain
field-by-field conversion builds, in every game, for every viewer, however warm the cache is."""

from __future__ import annotations

import contextlib
import dataclasses
import enum
from dataclasses import dataclass
from typing import Any

import pytest
from google.protobuf.message import Message

from toadstool.api.v1 import table_pb2
from toadstool.bots import RandomBot
from toadstool.engine import name_seats, parse_options
from toadstool.games import discover, get_game
from toadstool.selfplay import PlayoutTooLong, play
from toadstool.server import messages, wire


def plain(value: Any, message: Message) -> Message:
    """The reference: every field converted afresh, enums by `.value`, no plan and no cache."""
    for field in dataclasses.fields(value):
        item = getattr(value, field.name)
        if item is None:
            continue
        if dataclasses.is_dataclass(item):
            sub = getattr(message, field.name)
            sub.SetInParent()
            plain(item, sub)
        elif isinstance(item, tuple):
            repeated = getattr(message, field.name)
            for element in item:
                if dataclasses.is_dataclass(element):
                    plain(element, repeated.add())
                else:
                    repeated.append(element.value if isinstance(element, enum.Enum) else element)
        elif isinstance(item, enum.Enum):
            setattr(message, field.name, item.value)
        else:
            setattr(message, field.name, item)
    return message


#: The games whose views and actions have messages of their own (the others travel as generic data).
OWN_MESSAGES = sorted(game for game in discover() if messages.has_own_message(game))


@pytest.mark.parametrize("game", OWN_MESSAGES)
def test_every_view_converts_as_a_plain_conversion_does_with_the_cache_warm(game: str) -> None:
    engine = get_game(game).engine
    member = game
    players = max(2, min(4, engine.max_players))
    checked = 0

    def observe(state: Any, seat: int | None, action: Any) -> None:
        nonlocal checked
        for viewer in (None, *range(players)):
            view = engine.view(state, viewer)
            fast = getattr(table_pb2.GameView(), member)
            wire.to_message(view, fast)
            reference = plain(view, getattr(table_pb2.GameView(), member))
            assert fast == reference, f"{game}, seed {seed}, viewer {viewer}: the cached conversion differs"
            assert fast.SerializeToString(deterministic=True) == reference.SerializeToString(deterministic=True)
            checked += 1
        if action is not None:
            fast_action = wire.action_to_message(action, getattr(table_pb2.Action(), member))
            reference_action = getattr(table_pb2.Action(), member)
            chosen = getattr(reference_action, wire._snake(type(action).__name__))
            chosen.SetInParent()
            plain(action, chosen)
            assert fast_action == reference_action

    for seed in range(3):
        with contextlib.suppress(PlayoutTooLong):  # 300 steps of a long game are checked as well as a whole one
            play(engine, [RandomBot() for _ in range(players)], seed, max_actions=300, observe=observe)
    assert checked > 100


def test_uno_cards_are_converted_once_and_then_parsed_from_their_bytes() -> None:
    engine = get_game("uno").engine
    state = engine.new(4, uno_options(), 3)
    view = engine.view(state, 0)
    wire._CONVERTED.clear()
    wire.to_message(view, table_pb2.GameView().uno)
    card_message = type(table_pb2.GameView().uno.top_card)
    assert view.hand
    for card in view.hand:
        descriptor, data = wire._CONVERTED[card]
        assert descriptor is card_message.DESCRIPTOR
        assert card_message.FromString(data) == plain(card, card_message())


@dataclass(frozen=True)
class UnhashableCard:
    """UNO's card fields, in a value whose hash fails as one with an unhashable field's would."""

    id: int
    color: int
    kind: int
    number: int | None
    points: int

    def __hash__(self) -> int:
        raise TypeError("unhashable")


def test_a_frozen_value_that_cannot_be_hashed_is_converted_field_by_field() -> None:
    card = UnhashableCard(id=7, color=2, kind=1, number=5, points=5)
    wire._CONVERTED.clear()
    message = table_pb2.GameView().uno.top_card
    wire._nested(card, message)
    assert message == plain(card, type(message)())
    assert message.number == 5
    assert not wire._CONVERTED


def test_the_cache_is_bounded() -> None:
    engine = get_game("uno").engine
    cards = {card for seed in range(40) for card in engine.view(engine.new(4, uno_options(), seed), 0).hand}
    assert len(cards) > 5
    wire._CONVERTED.clear()
    old_limit = wire.MAX_CONVERTED
    wire.MAX_CONVERTED = 5
    try:
        for card in cards:
            wire._nested(card, table_pb2.GameView().uno.top_card)
            assert 1 <= len(wire._CONVERTED) <= 5
    finally:
        wire.MAX_CONVERTED = old_limit
        wire._CONVERTED.clear()


def uno_options() -> dict[str, Any]:
    return parse_options(get_game("uno").engine.options, {})


def test_a_remembered_text_is_named_again_when_a_seat_changes_hands() -> None:
    """`name_seats` remembers its results by text and names: a new name at a seat gives a new text."""
    assert name_seats("{p0} to play, then {p1}", ["Ann", "Bea"]) == "Ann to play, then Bea"
    assert name_seats("{p0} to play, then {p1}", ["Cy", "Bea"]) == "Cy to play, then Bea"
    assert name_seats("{p0} to play, then {p1}", ["Cy", ""]) == "Cy to play, then Player 2"
    assert name_seats("{p0} to play, then {p1}", ("Cy", "Bea")) == "Cy to play, then Bea"
