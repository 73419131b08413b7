"""UNO Super Mario card data: the 112-card deck, card names and points, as data (docs/rules/uno.md §1).

This module is for facts printed on the cards and precomputed lookup tables derived from them (per card id:
colour, rank, points, name; which ids may be played on which top card). A correction to the deck is a
one-line change to `COLOR_COMPOSITION`, `WILD_COMPOSITION` or `POINTS`. It is not for rules of play: those
live in `engine.py`.

Every physical card has a unique id 0..111, so views and tests can name a card exactly.
"""

from __future__ import annotations

import enum

from toadstool.i18n import Text, tr


class UnoColor(enum.IntEnum):
    """A card colour (proto enum UnoColor). UNSPECIFIED is the colour of a wild card in a hand."""

    UNSPECIFIED = 0
    RED = 1
    YELLOW = 2
    GREEN = 3
    BLUE = 4


class UnoKind(enum.IntEnum):
    """What is printed on a card (proto enum UnoKind)."""

    UNSPECIFIED = 0
    NUMBER = 1
    SKIP = 2
    REVERSE = 3
    DRAW_TWO = 4
    WILD = 5
    WILD_DRAW_FOUR = 6
    WILD_CUSTOMIZABLE = 7
    SUPER_STAR = 8


#: The four playing colours, in the order menus list them.
COLORS: tuple[UnoColor, ...] = (UnoColor.RED, UnoColor.YELLOW, UnoColor.GREEN, UnoColor.BLUE)

#: The colours' names, each a `Text` said in its reader's language (docs/glossary.md).
COLOR_NAMES: dict[int, Text] = {0: tr("wild"), 1: tr("red"), 2: tr("yellow"), 3: tr("green"), 4: tr("blue")}

#: Per colour: (kind, number or None, copies). 25 cards per colour (pub).
COLOR_COMPOSITION: tuple[tuple[UnoKind, int | None, int], ...] = (
    (UnoKind.NUMBER, 0, 1),
    *((UnoKind.NUMBER, n, 2) for n in range(1, 10)),
    (UnoKind.SKIP, None, 2),
    (UnoKind.REVERSE, None, 2),
    (UnoKind.DRAW_TWO, None, 2),
)

#: Colourless cards: (kind, copies) (pub).
WILD_COMPOSITION: tuple[tuple[UnoKind, int], ...] = (
    (UnoKind.WILD, 4),
    (UnoKind.WILD_DRAW_FOUR, 4),
    (UnoKind.WILD_CUSTOMIZABLE, 2),
    (UnoKind.SUPER_STAR, 2),
)

#: Points a card left in a hand is worth (numbers score their face value).
POINTS: dict[UnoKind, int] = {
    UnoKind.SKIP: 20,
    UnoKind.REVERSE: 20,
    UnoKind.DRAW_TWO: 20,
    UnoKind.WILD: 50,
    UnoKind.WILD_DRAW_FOUR: 50,
    UnoKind.WILD_CUSTOMIZABLE: 50,
    UnoKind.SUPER_STAR: 50,
}

KIND_NAMES: dict[UnoKind, Text] = {
    UnoKind.SKIP: tr("Skip"),
    UnoKind.REVERSE: tr("Reverse"),
    UnoKind.DRAW_TWO: tr("Draw Two"),
    UnoKind.WILD: tr("Wild"),
    UnoKind.WILD_DRAW_FOUR: tr("Wild Draw Four"),
    UnoKind.WILD_CUSTOMIZABLE: tr("Wild Customizable"),
    UnoKind.SUPER_STAR: tr("Super Star"),
}

HAND_SIZE = 7
DRAW_TWO_PENALTY = 2
WILD_DRAW_FOUR_PENALTY = 4
#: A failed challenge: the challenger draws this many (the printed rule sheet: "must draw 6 cards";
#: docs/rules/uno.md §5.3).
FAILED_CHALLENGE_PENALTY = 6
#: A successful challenge: the player of the Wild Draw Four draws this many.
CAUGHT_BLUFF_PENALTY = 4
#: A player caught not calling UNO draws this many.
UNO_PENALTY = 2


def _build() -> tuple[tuple[int, ...], tuple[int, ...], tuple[int | None, ...]]:
    colors: list[int] = []
    kinds: list[int] = []
    numbers: list[int | None] = []
    for color in COLORS:
        for kind, number, copies in COLOR_COMPOSITION:
            for _ in range(copies):
                colors.append(color)
                kinds.append(kind)
                numbers.append(number)
    for kind, copies in WILD_COMPOSITION:
        for _ in range(copies):
            colors.append(UnoColor.UNSPECIFIED)
            kinds.append(kind)
            numbers.append(None)
    return tuple(colors), tuple(kinds), tuple(numbers)


#: Per card id: colour (0 for wild cards), kind, and number (None for non-number cards).
CARD_COLOR, CARD_KIND, CARD_NUMBER = _build()
DECK_SIZE = len(CARD_COLOR)
ALL_CARDS: tuple[int, ...] = tuple(range(DECK_SIZE))

#: Per card id: what matches "the number or the symbol": 0-9 for numbers, 10 + kind for the rest.
CARD_RANK: tuple[int, ...] = tuple(n if n is not None else 10 + k for n, k in zip(CARD_NUMBER, CARD_KIND, strict=True))
CARD_POINTS: tuple[int, ...] = tuple(
    n if n is not None else POINTS[UnoKind(k)] for n, k in zip(CARD_NUMBER, CARD_KIND, strict=True)
)
#: Per card id: its value when drawn to choose the dealer (action cards count 0).
DEALER_DRAW_VALUE: tuple[int, ...] = tuple(n if n is not None else 0 for n in CARD_NUMBER)
IS_WILD: tuple[bool, ...] = tuple(c == UnoColor.UNSPECIFIED for c in CARD_COLOR)


def card_name(card: int) -> Text:
    """A card's name as people say it: "red 5", "blue Draw Two", "Super Star" (a `Text`: its words are
    said in the reader's language, each language ordering its colour and kind)."""
    kind = UnoKind(CARD_KIND[card])
    if kind is UnoKind.NUMBER:
        return tr("{colour} {number}", colour=COLOR_NAMES[CARD_COLOR[card]], number=CARD_NUMBER[card])
    if IS_WILD[card]:
        return KIND_NAMES[kind]
    return tr("{colour} {kind}", colour=COLOR_NAMES[CARD_COLOR[card]], kind=KIND_NAMES[kind])


CARD_NAMES: tuple[Text, ...] = tuple(card_name(c) for c in ALL_CARDS)

#: PLAYABLE[active colour][rank of the top card]: the card ids that may be played on it (wilds always).
PLAYABLE: tuple[tuple[frozenset[int], ...], ...] = tuple(
    tuple(
        frozenset(c for c in ALL_CARDS if IS_WILD[c] or CARD_COLOR[c] == color or CARD_RANK[c] == rank)
        for rank in range(10 + len(UnoKind))
    )
    for color in range(len(UnoColor))
)
