"""The view converter's shortcuts (`wire.to_message`) and the remembered seat names (`name_seats`). Nested
frozen values are parsed from the bytes of a value with the same fields converted before
(`message_cache.VALUES`, keyed by value, never by identity), IntEnum
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
from toadstool.games.uno.engine import CARD_VIEWS, PlayCard, UnoColor
from toadstool.selfplay import PlayoutTooLong, play
from toadstool.server import message_cache, messages, wire
from toadstool.server.message_cache import VALUES


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
    VALUES.forget()
    wire.to_message(view, table_pb2.GameView().uno)
    card_message = type(table_pb2.GameView().uno.top_card)
    assert view.hand
    for card in view.hand:
        known = VALUES.known(card)
        assert known is not None
        descriptor, data = known
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


def test_a_value_whose_class_hashes_its_own_way_is_kept_by_its_fields_and_never_hashed() -> None:
    card = UnhashableCard(id=7, color=2, kind=1, number=5, points=5)
    VALUES.forget()
    for _ in range(2):  # converted, then found by its fields
        message = table_pb2.GameView().uno.top_card
        VALUES.fill(message, card, wire._serialised)
        assert message == plain(card, type(message)())
        assert message.number == 5
    assert VALUES.known(card) is not None


def test_the_cache_is_bounded() -> None:
    engine = get_game("uno").engine
    cards = {card for seed in range(40) for card in engine.view(engine.new(4, uno_options(), seed), 0).hand}
    assert len(cards) > 5
    VALUES.forget()
    old_limit = VALUES.limit
    VALUES.limit = 5
    try:
        for card in cards:
            VALUES.fill(table_pb2.GameView().uno.top_card, card, wire._serialised)
            assert 1 <= len(VALUES) <= 5
            assert 1 <= len(VALUES._values) <= 5
    finally:
        VALUES.limit = old_limit
        VALUES.forget()


def test_a_value_is_found_by_its_fields_whatever_object_holds_them_and_never_by_identity() -> None:
    # Freed objects' addresses are reused at once: a new card at an old one's address must not take its bytes,
    # and a card made anew with the same fields finds the bytes of the first.
    engine = get_game("uno").engine
    card_type = type(engine.view(engine.new(4, uno_options(), 1), 0).top_card)
    card_message = type(table_pb2.GameView().uno.top_card)
    VALUES.forget()
    for number in range(200):
        card = dataclasses.replace(engine.view(engine.new(4, uno_options(), 1), 0).top_card, id=1000 + number)
        assert type(card) is card_type
        for again in (card, dataclasses.replace(card)):  # converted, then found by its fields
            message = card_message()
            VALUES.fill(message, again, wire._serialised)
            assert message == plain(card, card_message()), number
        del card
    assert len(VALUES) == 200
    VALUES.forget()


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


def test_only_classes_whose_fields_make_their_bytes_are_kept_by_value() -> None:
    engine_card = type(get_game("uno").engine.view(get_game("uno").engine.new(2, uno_options(), 1), 0).top_card)
    assert message_cache.by_value(engine_card)
    assert message_cache.keeps_bytes(engine_card)
    assert not message_cache.by_value(Measured), "a float: -0.0 == 0.0"
    assert not message_cache.by_value(Mutable), "not frozen"
    assert not message_cache.by_value(SeatShown), "a field left out of the comparison"
    assert not message_cache.by_value(ByIdentity), "compared by identity"
    assert not message_cache.by_value(SeatsShown)
    # The bytes of values are kept by their fields, never by their class's equality: an __eq__ of its own
    # changes nothing there.
    assert message_cache.keeps_bytes(OwnEquality)
    assert not message_cache.keeps_bytes(Nested), "holds other values: converted each time"


def test_values_equal_by_their_own_eq_but_with_other_fields_convert_each_as_it_is() -> None:
    VALUES.forget()
    for index in (1, 2, 1):
        message = table_pb2.Seat()
        VALUES.fill(message, OwnEquality(index), wire._serialised)
        assert message.index == index
    VALUES.forget()


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

    VALUES.forget()
    answer = service_pb2.AddBotResponse()  # seat is field 1
    VALUES.fill(answer, SeatNumber(3), wire._serialised)
    request = service_pb2.AddBotRequest()  # seat is field 2, field 1 the table's id
    VALUES.fill(request, SeatNumber(3), wire._serialised)
    assert answer.seat == 3
    assert request.seat == 3
    assert request.table_id == ""


def test_a_cached_value_is_parsed_from_its_bytes_not_converted_again() -> None:
    engine = get_game("uno").engine
    view = engine.view(engine.new(4, uno_options(), 3), 0)
    VALUES.forget()
    wire.to_message(view, table_pb2.GameView().uno)
    card = view.hand[0]
    known = VALUES.known(card)
    assert known is not None
    marked = type(table_pb2.GameView().uno.top_card)(id=card.id, points=12345)
    VALUES.remember(card, known[0], marked.SerializeToString())
    try:
        # An equal card that is another object: found by its fields.
        equal = dataclasses.replace(view, hand=(dataclasses.replace(card), *view.hand[1:]))
        assert equal.hand[0] is not card
        assert wire.to_message(equal, table_pb2.GameView().uno).hand[0].points == 12345, "read from the cache"
        assert wire.to_message(view, table_pb2.GameView().uno).hand[0].points == 12345
    finally:
        VALUES.forget()


def test_a_hand_and_legal_actions_are_right_when_the_cache_fills_up_midway() -> None:
    engine = get_game("uno").engine
    state = engine.new(4, uno_options(), 3)
    view = engine.view(state, 0)
    assert len(view.hand) > 3
    VALUES.forget()
    old_limit = VALUES.limit
    VALUES.limit = 3
    try:
        for _ in range(2):  # cold, then with the cache emptied while a hand is joined
            assert wire.to_message(view, table_pb2.GameView().uno) == plain(view, table_pb2.GameView().uno)
            assert 1 <= len(VALUES) <= 3
        offered = [(PlayCard(card_id=number, color=UnoColor.RED), f"label {number}") for number in range(8)]

        def build(engine: Any, action: Any, label: str) -> bytes:
            return table_pb2.LegalAction(id=label, label=label).SerializeToString()

        for _ in range(2):
            joined = table_pb2.Update.FromString(VALUES.legal_actions(engine, offered, build))
            assert [legal.label for legal in joined.legal_actions] == [label for _, label in offered]
    finally:
        VALUES.limit = old_limit
        VALUES.forget()
