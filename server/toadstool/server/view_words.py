"""The words inside the games' view messages, said in each viewer's language (docs/design.md §11.4).

A view's conversion to its message (`wire.to_message`) is one and language-free; the few strings inside a
view that are words (a Power Up ? card's name and effect, a built-in Kart track's title) are said by the
catalogue afterwards, in the message itself, for a viewer of another language only. Every other string in a
view is a value (a track's registry name, a shortcut's label, a person's name) and is never looked up.
`messages` calls `say_view_words`; nothing else here is for other modules.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from google.protobuf.descriptor import Descriptor
from google.protobuf.message import Message

from toadstool.api.v1 import kart_pb2, powerup_pb2
from toadstool.games.kart import tracks as kart_tracks
from toadstool.i18n import translate


def _card_words(member: Message) -> tuple[str, ...]:
    """A ? card's name and effect: always the game's words."""
    return ("name", "effect")


def _track_words(member: Message) -> tuple[str, ...]:
    """A track's title, when the track is a built-in one (known by its registry name): a title a person wrote
    for a track of their own is a value, never looked up in the catalogue, whatever it says."""
    builtin = kart_tracks.is_builtin_title(getattr(member, "name", ""), getattr(member, "title", ""))
    return ("title",) if builtin else ()


#: The fields inside the games' views that hold words, by the message that holds them (which of its fields
#: do, for this message): a ? card's name and effect, a built-in track's title. Every other string in a view
#: is a value (a track's registry name, a shortcut's label, a person's name).
VIEW_WORDS: dict[str, Callable[[Message], tuple[str, ...]]] = {
    powerup_pb2.PowerUpCard.DESCRIPTOR.full_name: _card_words,
    kart_pb2.KartTrack.DESCRIPTOR.full_name: _track_words,
}


def _holds_words(descriptor: Descriptor, seen: frozenset[str] = frozenset()) -> bool:
    """Whether a message of this type holds, at any depth, a message of `VIEW_WORDS` (`seen`: the types on the
    way here, so a type that holds itself, directly or not, ends the search)."""
    if descriptor.full_name in VIEW_WORDS:
        return True
    if descriptor.full_name in seen:
        return False
    seen = seen | {descriptor.full_name}
    return any(field.message_type is not None and _holds_words(field.message_type, seen) for field in descriptor.fields)


@cache
def _paths_to_words(descriptor: Descriptor) -> tuple[tuple[str, bool], ...]:
    """The (name, repeated) of each field of this message type that can hold words, found once per type."""
    return tuple(
        (field.name, field.is_repeated)
        for field in descriptor.fields
        if field.message_type is not None and _holds_words(field.message_type)
    )


def say_view_words(member: Message, language: str) -> None:
    """Say the words inside a game's view message (`VIEW_WORDS`) in `language`, in place.

    Why after the conversion and not in it: the view's conversion (`wire.to_message`) stays one per view,
    the same for every language, and the few words a view holds are said by the catalogue on the way out,
    for the readers of another language only. Walks only into the fields whose type can hold such words (a UNO
    view: none)."""
    descriptor = member.DESCRIPTOR
    words = VIEW_WORDS.get(descriptor.full_name)
    if words is not None:
        for name in words(member):
            setattr(member, name, translate(language, getattr(member, name)))
    for name, repeated in _paths_to_words(descriptor):
        if repeated:
            for item in getattr(member, name):
                say_view_words(item, language)
        elif member.HasField(name):
            say_view_words(getattr(member, name), language)
