"""The cards and counts of the Super Mario Bros. Power Up Card Game, as data (docs/rules/powerup.md §1).

This module is for what is printed on the components: the 52 Level cards, the 30 ? cards (kind, name,
effect text, when they are played, what they target, how they change a Level), and the token counts. A
correction to a count or an effect is a one-line change here. It is not for rules of play (engine.py) and
holds no state.

Ids: Level cards are 0-51 (values 1-12 in four suits, ids suit * 12 + value - 1, then the four Castles
48-51); ? cards are 0-29 in the order of `QUESTION_CARD_TYPES`. Every physical card has its own id so
that tests can check that hidden cards never leave the server.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from toadstool.i18n import N_

#: Extra Life tokens in the box, and how many each player takes at setup.
TOTAL_TOKENS = 50
STARTING_TOKENS = 4
#: ? cards each player gets at setup.
STARTING_QUESTION_CARDS = 1


class CardKind(enum.IntEnum):
    """The kinds of ? card; values equal the proto enum PowerUpCardKind."""

    UNSPECIFIED = 0
    SUPER_STAR = 1
    KOOPA_TROOPA = 2
    BOWSER = 3
    FIRE_FLOWER = 4
    SUPER_MUSHROOM = 5
    GOOMBA = 6
    GREEN_SHELL = 7
    RED_SHELL = 8
    HAMMER_BROS = 9
    BOO = 10
    WARP_PIPE = 11
    VINE = 12
    ONE_UP_MUSHROOM = 13
    BULLET_BILL = 14


class Timing(enum.IntEnum):
    """When a ? card may be played; values equal the proto enum PowerUpTiming."""

    UNSPECIFIED = 0
    MODIFY = 1  # on your turn in the modify phase
    ANY_TIME = 2  # any time in the keep-or-trade and modify phases, also out of turn
    TRADE_ANSWER = 3  # when someone trades with you (or aims a Warp Pipe at you)
    BEFORE_DECISION = 4  # keep-or-trade phase, before your decision (does not use it up)
    AS_DECISION = 5  # keep-or-trade phase, as your decision


class Target(enum.Enum):
    """Whom a ? card may be played on (Castle holders are never targets)."""

    NONE = "none"  # no target (Vine, 1-Up Mushroom, Hammer Bros.)
    ANY_LEVEL = "any level"  # any non-Castle Level in the round, your own included
    OWN_LEVEL = "own level"
    OTHER_LEVEL = "other level"  # another non-Castle player's Level
    OTHER_WITH_CARDS = "other with cards"  # another non-Castle player holding a ? card
    OTHER_WITH_TOKENS = "other with tokens"  # another non-Castle player holding a token
    OTHER_FACE_DOWN = "other face down"  # another player's face-down Level card
    OTHER_NON_CASTLE = "other non-castle"  # another non-Castle player


@dataclass(frozen=True, slots=True)
class QuestionCardType:
    """One line of the ? card table: how many there are and what they do."""

    kind: CardKind
    name: str
    count: int
    effect: str
    timing: Timing
    target: Target
    #: Added to the printed Level value while this is the most recent modifier on it (None: no modifier).
    delta: int | None = None
    #: Replaces the Level value while this is the most recent modifier (Bowser: 0).
    set_value: int | None = None
    #: The action label; "{target}" is the target seat's reference, "{whose}" "your" or "{pN}'s".
    label: str = ""

    @property
    def is_modifier(self) -> bool:
        return self.delta is not None or self.set_value is not None


QUESTION_CARD_TYPES: tuple[QuestionCardType, ...] = (
    QuestionCardType(
        CardKind.SUPER_STAR,
        "Super Star",
        2,
        N_("+4 to any Level"),
        Timing.MODIFY,
        Target.ANY_LEVEL,
        delta=4,
        label="Play Super Star (+4) on {whose} Level",
    ),
    QuestionCardType(
        CardKind.KOOPA_TROOPA,
        "Koopa Troopa",
        4,
        N_("-2 to any Level"),
        Timing.MODIFY,
        Target.ANY_LEVEL,
        delta=-2,
        label="Play Koopa Troopa (-2) on {whose} Level",
    ),
    QuestionCardType(
        CardKind.BOWSER,
        "Bowser",
        1,
        N_("set any other player's Level to 0"),
        Timing.MODIFY,
        Target.OTHER_LEVEL,
        set_value=0,
        label="Play Bowser: set {whose} Level to 0",
    ),
    QuestionCardType(
        CardKind.FIRE_FLOWER,
        "Fire Flower",
        3,
        N_("+3 to any Level"),
        Timing.MODIFY,
        Target.ANY_LEVEL,
        delta=3,
        label="Play Fire Flower (+3) on {whose} Level",
    ),
    QuestionCardType(
        CardKind.SUPER_MUSHROOM,
        "Super Mushroom",
        4,
        N_("+1 to your own Level"),
        Timing.MODIFY,
        Target.OWN_LEVEL,
        delta=1,
        label="Play Super Mushroom (+1) on {whose} Level",
    ),
    QuestionCardType(
        CardKind.GOOMBA,
        "Goomba",
        3,
        N_("-1 to any Level"),
        Timing.MODIFY,
        Target.ANY_LEVEL,
        delta=-1,
        label="Play Goomba (-1) on {whose} Level",
    ),
    QuestionCardType(
        CardKind.GREEN_SHELL,
        "Green Shell",
        2,
        N_("another player discards one ? card at random"),
        Timing.ANY_TIME,
        Target.OTHER_WITH_CARDS,
        label="Play Green Shell: {target} discards a ? card at random",
    ),
    QuestionCardType(
        CardKind.RED_SHELL,
        "Red Shell",
        1,
        N_("take one ? card at random from another player"),
        Timing.ANY_TIME,
        Target.OTHER_WITH_CARDS,
        label="Play Red Shell: take a ? card at random from {target}",
    ),
    QuestionCardType(
        CardKind.HAMMER_BROS,
        "Hammer Bros.",
        2,
        N_("cancel a trade or a Warp Pipe aimed at you (the other player keeps their card)"),
        Timing.TRADE_ANSWER,
        Target.NONE,
        label="Play Hammer Bros.: cancel the swap aimed at you",
    ),
    QuestionCardType(
        CardKind.BOO,
        "Boo",
        2,
        N_("look at any player's face-down Level card (only you see it)"),
        Timing.BEFORE_DECISION,
        Target.OTHER_FACE_DOWN,
        label="Play Boo: look at {whose} Level card",
    ),
    QuestionCardType(
        CardKind.WARP_PIPE,
        "Warp Pipe",
        2,
        N_("swap your Level card with any non-Castle player's"),
        Timing.AS_DECISION,
        Target.OTHER_NON_CASTLE,
        label="Play Warp Pipe: swap Level cards with {target}",
    ),
    QuestionCardType(
        CardKind.VINE,
        "Vine",
        1,
        N_("discard your Level card and take the top of the Level deck"),
        Timing.AS_DECISION,
        Target.NONE,
        label="Play Vine: discard your Level card and take the top of the Level deck",
    ),
    QuestionCardType(
        CardKind.ONE_UP_MUSHROOM,
        "1-Up Mushroom",
        2,
        N_("take 1 Extra Life token from the supply"),
        Timing.ANY_TIME,
        Target.NONE,
        label="Play 1-Up Mushroom: take an Extra Life from the supply",
    ),
    QuestionCardType(
        CardKind.BULLET_BILL,
        "Bullet Bill",
        1,
        N_("another non-Castle player loses 1 Extra Life token"),
        Timing.MODIFY,
        Target.OTHER_WITH_TOKENS,
        label="Play Bullet Bill: {target} loses an Extra Life",
    ),
)

CARD_TYPE: dict[CardKind, QuestionCardType] = {t.kind: t for t in QUESTION_CARD_TYPES}

#: The kind of each ? card, indexed by its id (0-29).
QUESTION_CARD_KIND: tuple[CardKind, ...] = tuple(t.kind for t in QUESTION_CARD_TYPES for _ in range(t.count))
QUESTION_DECK_SIZE = len(QUESTION_CARD_KIND)

#: Level cards: four suits of 1-12, then the Castles. Suits have no effect; their names are display only.
SUIT_NAMES: tuple[str, ...] = ("suit 1", "suit 2", "suit 3", "suit 4")
LEVEL_VALUES: tuple[int, ...] = tuple(range(1, 13))
CASTLE_COUNT = 4


@dataclass(frozen=True, slots=True)
class LevelCardData:
    id: int
    value: int  # printed Level value; 0 for a Castle (it has no value)
    suit: int  # 0-3; -1 for a Castle
    castle: bool


LEVEL_CARDS: tuple[LevelCardData, ...] = (
    *(
        LevelCardData(suit * len(LEVEL_VALUES) + i, value, suit, False)
        for suit in range(len(SUIT_NAMES))
        for i, value in enumerate(LEVEL_VALUES)
    ),
    *(LevelCardData(len(SUIT_NAMES) * len(LEVEL_VALUES) + c, 0, -1, True) for c in range(CASTLE_COUNT)),
)
LEVEL_DECK_SIZE = len(LEVEL_CARDS)
LEVEL_VALUE: tuple[int, ...] = tuple(c.value for c in LEVEL_CARDS)
IS_CASTLE: tuple[bool, ...] = tuple(c.castle for c in LEVEL_CARDS)


def level_card_id(value: int, suit: int = 0) -> int:
    """The id of the Level card with this printed value and suit (for tests and scenarios)."""
    return suit * len(LEVEL_VALUES) + LEVEL_VALUES.index(value)


def castle_id(index: int = 0) -> int:
    """The id of the index-th Castle card."""
    return len(SUIT_NAMES) * len(LEVEL_VALUES) + index


def question_card_ids(kind: CardKind) -> tuple[int, ...]:
    """The ids of every ? card of this kind."""
    return tuple(i for i, k in enumerate(QUESTION_CARD_KIND) if k == kind)
