"""The view converter's shortcuts (`wire.to_message`) and the remembered seat names (`name_seats`). Nested
frozen values are parsed from the bytes of an equal value converted before (`wire._CONVERTED`), IntEnum
members are set as the numbers they are, and a named text is remembered by its text and names. They exist for
speed (issue #24); what must hold is that every view and action converts to exactly the message a plain
field-by-field conversion builds, in every game, for every viewer, however warm the cache is."""

from __future__ import annotations

import contextlib
import dataclasses
import enum
from dataclasses import dataclass, field
from typing import Any

import pytest
from google.protobuf.message import Message

from toadstool.api.v1 import service_pb2, table_pb2
from toadstool.bots import RandomBot
from toadstool.engine import name_seats, parse_options
from toadstool.games import discover, get_game
from toadstool.games.uno.engine import CARD_VIEWS
from toadstool.selfplay import PlayoutTooLong, play
from toadstool.server import messages, wire


def plain(value: Any, message: Message) -> Message:
    """The reference: every field converted afresh, enums by `.value`, no plan and no cache."""
    for member in dataclasses.fields(value):
        item = getattr(value, member.name)
        if item is None:
            continue
        if dataclasses.is_dataclass(item):
            sub = getattr(message, member.name)
            sub.SetInParent()
            plain(item, sub)
        elif isinstance(item, tuple):
            repeated = getattr(message, member.name)
            for element in item:
                if dataclasses.is_dataclass(element):
                    plain(element, repeated.add())
                else:
                    repeated.append(element.value if isinstance(element, enum.Enum) else element)
        elif isinstance(item, enum.Enum):
            setattr(message, member.name, item.value)
        else:
            setattr(message, member.name, item)
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
    wire.forget_converted()
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


def test_a_value_whose_class_hashes_its_own_way_is_converted_field_by_field_and_never_hashed() -> None:
    card = UnhashableCard(id=7, color=2, kind=1, number=5, points=5)
    wire.forget_converted()
    message = table_pb2.GameView().uno.top_card
    wire._nested(card, message)
    assert message == plain(card, type(message)())
    assert message.number == 5
    assert not wire._CONVERTED


def test_the_cache_is_bounded() -> None:
    engine = get_game("uno").engine
    cards = {card for seed in range(40) for card in engine.view(engine.new(4, uno_options(), seed), 0).hand}
    assert len(cards) > 5
    wire.forget_converted()
    old_limit = wire.MAX_CONVERTED
    wire.MAX_CONVERTED = 5
    try:
        for card in cards:
            wire._nested(card, table_pb2.GameView().uno.top_card)
            assert 1 <= len(wire._CONVERTED) <= 5
            assert 1 <= len(wire._CONVERTED_OBJECTS) <= 5
    finally:
        wire.MAX_CONVERTED = old_limit
        wire.forget_converted()


def test_an_object_converted_before_is_found_again_and_its_id_never_names_another_object() -> None:
    # The cache by identity holds each object it names: ids are reused as soon as an object is freed, and a
    # new card at the old one's address must not take its bytes.
    engine = get_game("uno").engine
    card_type = type(engine.view(engine.new(4, uno_options(), 1), 0).top_card)
    card_message = type(table_pb2.GameView().uno.top_card)
    wire.forget_converted()
    for number in range(200):
        card = dataclasses.replace(engine.view(engine.new(4, uno_options(), 1), 0).top_card, id=1000 + number)
        assert type(card) is card_type
        for _ in range(2):  # converted, then found by its identity
            message = card_message()
            wire._nested(card, message)
            assert message == plain(card, card_message()), number
        assert wire._CONVERTED_OBJECTS[id(card)][0] is card
        del card
    wire.forget_converted()


def uno_options() -> dict[str, Any]:
    return parse_options(get_game("uno").engine.options, {})


def test_a_remembered_text_is_named_again_when_a_seat_changes_hands() -> None:
    """`name_seats` remembers its results by text and names: a new name at a seat gives a new text."""
    assert name_seats("{p0} to play, then {p1}", ["Ann", "Bea"]) == "Ann to play, then Bea"
    assert name_seats("{p0} to play, then {p1}", ["Cy", "Bea"]) == "Cy to play, then Bea"
    assert name_seats("{p0} to play, then {p1}", ["Cy", ""]) == "Cy to play, then Player 2"
    assert name_seats("{p0} to play, then {p1}", ("Cy", "Bea")) == "Cy to play, then Bea"


@dataclass(frozen=True)
class SeatShown:  # the fields of table_pb2.Seat it sets
    index: int
    name: str = field(compare=False)


@dataclass(frozen=True)
class SeatsShown:  # the fields of table_pb2.Update it sets
    seats: tuple[SeatShown, ...]


@dataclass(frozen=True)
class Measured:
    value: float


@dataclass(frozen=True)
class OwnEquality:
    index: int

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OwnEquality)

    def __hash__(self) -> int:
        return 0


@dataclass(frozen=True, eq=False)
class ByIdentity:
    index: int


@dataclass
class Mutable:
    index: int


@dataclass(frozen=True)
class Nested:
    card: UnhashableCard


def test_only_classes_whose_equal_values_make_equal_messages_are_cached() -> None:
    engine_card = type(get_game("uno").engine.view(get_game("uno").engine.new(2, uno_options(), 1), 0).top_card)
    assert wire._cacheable(engine_card)
    assert not wire._cacheable(SeatShown), "a field left out of the comparison"
    assert not wire._cacheable(Measured), "a float: -0.0 == 0.0"
    assert not wire._cacheable(OwnEquality), "an __eq__ and __hash__ of its own"
    assert not wire._cacheable(ByIdentity), "compared by identity"
    assert not wire._cacheable(Mutable), "not frozen"
    assert not wire._cacheable(Nested), "holds a class that may not be"
    assert not wire._cacheable(SeatsShown)


def test_values_equal_but_for_a_field_left_out_of_the_comparison_convert_each_as_it_is() -> None:
    first = wire.to_message(SeatsShown(seats=(SeatShown(1, "Ann"),)), table_pb2.Update())
    second = wire.to_message(SeatsShown(seats=(SeatShown(1, "Bea"),)), table_pb2.Update())
    assert [s.name for s in first.seats] == ["Ann"]
    assert [s.name for s in second.seats] == ["Bea"]


def test_a_nested_message_already_filled_is_converted_field_by_field_as_before() -> None:
    engine = get_game("uno").engine
    zero = next(card for card in CARD_VIEWS if card.points == 0)  # merged bytes would leave a 0 unset
    view = dataclasses.replace(engine.view(engine.new(4, uno_options(), 3), 0), top_card=zero)
    wire.to_message(view, table_pb2.GameView().uno)  # every card of it cached
    filled, reference = table_pb2.GameView().uno, table_pb2.GameView().uno
    for message in (filled, reference):
        message.top_card.points = 99
        message.top_card.number = 77
    wire.to_message(view, filled)
    plain(view, reference)
    assert filled == reference


def test_the_same_value_in_two_message_types_is_converted_for_each() -> None:
    @dataclass(frozen=True)
    class SeatNumber:
        seat: int

    wire.forget_converted()
    answer = service_pb2.AddBotResponse()  # seat is field 1
    wire._nested(SeatNumber(3), answer)
    request = service_pb2.AddBotRequest()  # seat is field 2, field 1 the table's id
    wire._nested(SeatNumber(3), request)
    assert answer.seat == 3
    assert request.seat == 3
    assert request.table_id == ""


def test_a_cached_value_is_parsed_from_its_bytes_not_converted_again() -> None:
    engine = get_game("uno").engine
    view = engine.view(engine.new(4, uno_options(), 3), 0)
    wire.forget_converted()
    wire.to_message(view, table_pb2.GameView().uno)
    card = view.hand[0]
    descriptor, _ = wire._CONVERTED[card]
    marked = type(table_pb2.GameView().uno.top_card)(id=card.id, points=12345)
    wire._CONVERTED[card] = (descriptor, marked.SerializeToString())
    try:
        # An equal card that is another object: found by its value.
        equal = dataclasses.replace(view, hand=(dataclasses.replace(card), *view.hand[1:]))
        assert equal.hand[0] is not card
        again = wire.to_message(equal, table_pb2.GameView().uno)
        assert again.hand[0].points == 12345, "the second conversion read the cache"
        # The card itself: found by its identity, before its value is looked up.
        wire._CONVERTED_OBJECTS[id(card)] = (card, descriptor, marked.SerializeToString() + b"\x28\x02")
        assert wire.to_message(view, table_pb2.GameView().uno).hand[0].points == 2
    finally:
        wire.forget_converted()
