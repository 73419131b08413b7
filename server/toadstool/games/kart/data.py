"""The Super Mario Kart board game as data (docs/rules/kart.md §1): items and their counts, karts, coin
bundles, supplies, ranges and the Thwomp table.

This module is for the numbers and names a correction would change with a one-line edit. It is not for rules
(`engine.py`) nor for tracks, which are TOML data files read by `tracks.py`.
The Python enums' values equal the numbers of the matching enums in proto/toadstool/v1/kart.proto.
"""

from __future__ import annotations

import enum

from toadstool.i18n import tr


class FieldType(enum.IntEnum):
    """What a field of the track does when a kart lands on it."""

    PLAIN = 1
    ITEM = 2  # "?": draw an item
    BOOSTER = 3  # roll again
    MUSHROOM = 4  # the next move is halved
    THWOMP = 5  # "Wummp": roll at once, maybe skip turns


class Item(enum.IntEnum):
    """An item card of the deck."""

    BANANA = 1
    MUSHROOM = 2
    FEATHER = 3
    GREEN_SHELL = 4
    RED_SHELL = 5
    BLUE_SHELL = 6
    LIGHTNING = 7
    GHOST = 8
    DUD = 9


class KartColor(enum.IntEnum):
    """The colour of a kart (seat i drives the i-th kart)."""

    RED = 1
    BLUE = 2
    GREEN = 3
    PURPLE = 4
    WHITE = 5
    YELLOW = 6
    BLACK = 7


#: Seat i drives KARTS[i]: (colour, character), as the source lists them.
KARTS: tuple[tuple[KartColor, str], ...] = (
    (KartColor.RED, "Mario"),
    (KartColor.BLUE, "Luigi"),
    (KartColor.GREEN, "Yoshi"),
    (KartColor.PURPLE, "Peach"),
    (KartColor.WHITE, "Toad"),
    (KartColor.YELLOW, "Wario"),
    (KartColor.BLACK, "Donkey Kong"),
)

#: The item deck of 35: (item, copies).
DECK: tuple[tuple[Item, int], ...] = (
    (Item.BANANA, 10),
    (Item.MUSHROOM, 5),
    (Item.FEATHER, 5),
    (Item.GREEN_SHELL, 5),
    (Item.RED_SHELL, 3),
    (Item.BLUE_SHELL, 1),
    (Item.LIGHTNING, 1),
    (Item.GHOST, 2),
    (Item.DUD, 3),
)

#: The items' and fields' names, each a `Text` said in its reader's language (docs/glossary.md).
ITEM_NAMES: dict[Item, str] = {
    Item.BANANA: tr("Banana"),
    Item.MUSHROOM: tr("Mushroom"),
    Item.FEATHER: tr("Feather"),
    Item.GREEN_SHELL: tr("Green Shell"),
    Item.RED_SHELL: tr("Red Shell"),
    Item.BLUE_SHELL: tr("Blue Shell"),
    Item.LIGHTNING: tr("Lightning"),
    Item.GHOST: tr("Ghost"),
    Item.DUD: tr("Dud"),
}

FIELD_NAMES: dict[FieldType, str] = {
    FieldType.PLAIN: tr("plain"),
    FieldType.ITEM: "?",
    FieldType.BOOSTER: tr("booster"),
    FieldType.MUSHROOM: tr("mushroom field"),
    FieldType.THWOMP: tr("Thwomp"),
}

#: Shells: how many fields ahead (difference in progress, at least 1) the victim may be.
SHELL_RANGE: dict[Item, int] = {Item.GREEN_SHELL: 4, Item.RED_SHELL: 11, Item.BLUE_SHELL: 51}

#: Items that may be thrown away before rolling (the source: "Federn, Geister und alle Panzer-Versionen").
DISCARDABLE: frozenset[Item] = frozenset({Item.FEATHER, Item.GHOST, Item.GREEN_SHELL, Item.RED_SHELL, Item.BLUE_SHELL})

#: Coin bundles: (coins paid, extra fields). One bundle per roll, paid before rolling.
BUNDLES: tuple[tuple[int, int], ...] = ((1, 1), (3, 4), (5, 7), (10, 15))
BUNDLE_BONUS: dict[int, int] = dict(BUNDLES)

COINS = 20  # in the bank or with players, always
BANANA_CHIPS = 5
LAPS = 3
DIE_SIDES = 6
#: Start places (1-based) that begin with one coin.
START_PLACE_COINS: dict[int, int] = {5: 1, 6: 1, 7: 1}
#: Thwomp roll -> turns skipped.
THWOMP_SKIPS: dict[int, int] = {1: 2, 2: 2, 3: 1, 4: 1, 5: 0, 6: 0}
#: Cost of the arrow of a shortcut: it counts one pip and a kart may not stop on it, so a kart d fields
#: before the start field needs d + SHORTCUT_COST pips to land on the exit field.
SHORTCUT_COST = 2
#: How many of the latest die rolls every view carries.
LAST_ROLLS = 8
