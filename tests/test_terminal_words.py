"""The terminal's event lines in the viewer's own words: the viewer's name as the subject reads "You" with
the verb in the second person ("You place Mario", never "You places"), elsewhere "you"/"your"; a name that
could mean something else (another seat's, a character's) is only rewritten where the event's seat says
it is the viewer; a spectator reads the server's text as it is.
"""

from __future__ import annotations

import pytest

from toadstool.api.v1 import levelup_pb2, table_pb2
from toadstool_clients.terminal.events import in_your_words


def _update(names: list[str], viewer: int | None = 0, characters: list[str] | None = None) -> table_pb2.Update:
    update = table_pb2.Update()
    if viewer is not None:
        update.viewer_seat = viewer
    for index, name in enumerate(names):
        update.seats.add(index=index, name=name, kind=table_pb2.SEAT_KIND_HUMAN)
    if characters is not None:
        update.view.levelup.CopyFrom(levelup_pb2.LevelUpView(character_names=characters))
    return update


def _event(text: str, seat: int | None = None) -> table_pb2.Event:
    event = table_pb2.Event(text=text)
    if seat is not None:
        event.seat = seat
    return event


@pytest.mark.parametrize(
    ("text", "seat", "reads"),
    [
        ("Ann places Mario on level 3", None, "You place Mario on level 3"),
        ("Ann rolls 5", 0, "You roll 5"),
        ("Ann is broke and skips a turn for the shared field", 0, "You are broke and skip a turn for the shared field"),
        ("Ann crosses the finish line: lap 3 of 3", 0, "You cross the finish line: lap 3 of 3"),
        (
            "Ann slips on a banana: skips a turn and loses 0 coins",
            0,
            "You slip on a banana: skip a turn and lose 0 coins",
        ),
        ("Ann rolled a 6 and takes a coin from the bank", 0, "You rolled a 6 and take a coin from the bank"),
        ("Ann has no Extra Lives left and is out.", 0, "You have no Extra Lives left and are out."),
        ("Ann keeps their Level card.", 0, "You keep your Level card."),
        ("Ann will skip their next turn", None, "You will skip your next turn"),
        ("Ann (the dealer) reveals an 11.", 0, "You (the dealer) reveal an 11."),
        ("Ann passes.", 0, "You pass."),
        ("Ann kept the drawn card", 0, "You kept the drawn card"),
        (
            "Ann plays Super Mushroom on Ann's Level: it is now 12.",
            0,
            "You play Super Mushroom on your Level: it is now 12.",
        ),
        ("Ann's Level matches another player's.", None, "Your Level matches another player's."),
        (
            "Bob hits Ann with the Red Shell: back to field 15 behind Bob",
            1,
            "Bob hits you with the Red Shell: back to field 15 behind Bob",
        ),
        (
            "Bob challenged Ann's Wild Draw Four: the challenge failed",
            1,
            "Bob challenged your Wild Draw Four: the challenge failed",
        ),
        ("The Thwomp: Ann rolls 5", 0, "The Thwomp: you roll 5"),
        ("Game over: Ann wins.", None, "Game over: you win."),
        ("Start order: 1. Bob, 2. Ann", None, "Start order: 1. Bob, 2. you"),
        ("Annabel passes.", 2, "Annabel passes."),
        ("Bob rolls 4", 1, "Bob rolls 4"),
    ],
)
def test_the_viewers_name_reads_you_with_the_verb_in_the_second_person(text: str, seat: int | None, reads: str) -> None:
    assert in_your_words(_update(["Ann", "Bob", "Annabel"]), _event(text, seat)) == reads


def test_a_name_that_is_also_a_character_is_rewritten_only_where_the_events_seat_is_the_viewer() -> None:
    update = _update(["Mario", "Bob"], characters=["Mario", "Luigi"])
    assert in_your_words(update, _event("Mario moves down to level 1")) == "Mario moves down to level 1"
    assert in_your_words(update, _event("Bob places Mario on level 2", 1)) == "Bob places Mario on level 2"
    assert in_your_words(update, _event("Mario places Luigi on level 2", 0)) == "You place Luigi on level 2"


def test_two_seats_of_one_name_keep_the_name_unless_the_event_is_the_viewers() -> None:
    update = _update(["Ann", "Ann"])
    assert in_your_words(update, _event("Ann rolls 3", 1)) == "Ann rolls 3"
    assert in_your_words(update, _event("Ann rolls 3", 0)) == "You roll 3"


def test_a_spectator_reads_the_servers_text_unchanged() -> None:
    assert in_your_words(_update(["Ann", "Bob"], viewer=None), _event("Ann rolls 5", 0)) == "Ann rolls 5"
