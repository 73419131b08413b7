"""The view and action values of the Power Up Card Game, mirrored field by field in powerup.proto.

This module is for the shapes that cross the wire (what a viewer is shown and what a seat may send). It
decides nothing: which facts a viewer may know is `engine.PowerUpEngine.view`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from toadstool.games.powerup.data import CardKind, Timing

__all__ = [
    "AcceptSwap",
    "CardKind",
    "Decision",
    "DrawNewLevel",
    "Keep",
    "Pass",
    "PlayCard",
    "PowerUpCard",
    "PowerUpLevelCard",
    "PowerUpPeek",
    "PowerUpPendingSwap",
    "PowerUpPrivateView",
    "PowerUpSeat",
    "PowerUpView",
    "Stage",
    "SwapKind",
    "Timing",
    "Trade",
]


class Stage(enum.IntEnum):
    """Where the round is; values equal the proto enum PowerUpStage."""

    UNSPECIFIED = 0
    KEEP_OR_TRADE = 1
    ANSWER = 2  # a trade or Warp Pipe waits for its target's answer (Hammer Bros. or accept)
    MODIFY = 3
    GAME_OVER = 4


class Decision(enum.IntEnum):
    """How a seat made its keep-or-trade decision this round; values equal the proto enum PowerUpDecision.
    Public (the log says it too): what a seat's decision says about its card is for everyone to read."""

    UNDECIDED = 0
    KEPT = 1
    TRADED = 2
    DREW_NEW = 3
    VINE = 4
    WARP_PIPE = 5
    BLOCKED = 6  # traded or played a Warp Pipe, answered with Hammer Bros.: the cards stayed


class SwapKind(enum.IntEnum):
    """What a pending swap is; values equal the proto enum PowerUpSwapKind."""

    UNSPECIFIED = 0
    TRADE = 1
    WARP_PIPE = 2


@dataclass(frozen=True, slots=True)
class PowerUpLevelCard:
    id: int
    value: int
    suit: int
    castle: bool


@dataclass(frozen=True, slots=True)
class PowerUpCard:
    id: int
    kind: CardKind
    name: str
    effect: str
    timing: Timing


@dataclass(frozen=True, slots=True)
class PowerUpSeat:
    seat: int
    active: bool
    in_round: bool
    tokens: int
    has_level: bool
    face_up: bool
    level: PowerUpLevelCard | None
    castle: bool
    modifier: PowerUpCard | None
    value: int | None
    hand_count: int
    decided: bool
    decision: Decision


@dataclass(frozen=True, slots=True)
class PowerUpPendingSwap:
    from_seat: int
    to_seat: int
    kind: SwapKind


@dataclass(frozen=True, slots=True)
class PowerUpPeek:
    seat: int
    card: PowerUpLevelCard


@dataclass(frozen=True, slots=True)
class PowerUpPrivateView:
    """The fields of a `PowerUpView` that differ from one viewer to another (`PowerUpEngine.private_view`):
    which face-down Level cards the viewer knows is in `seats`."""

    you: int | None
    seats: tuple[PowerUpSeat, ...]
    hand: tuple[PowerUpCard, ...]
    peeks: tuple[PowerUpPeek, ...]


@dataclass(frozen=True, slots=True)
class PowerUpView:
    you: int | None
    phase: str
    scores: tuple[int, ...]
    stage: Stage
    round: int
    dealer: int
    turn: int | None
    pending: PowerUpPendingSwap | None
    seats: tuple[PowerUpSeat, ...]
    hand: tuple[PowerUpCard, ...]
    supply: int
    level_deck_count: int
    level_discard_count: int
    question_deck_count: int
    question_discard_count: int
    peeks: tuple[PowerUpPeek, ...]
    passes_in_a_row: int
    played: tuple[PowerUpCard, ...]
    winners: tuple[int, ...]


# Actions -----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Keep:
    """Keep your Level card (your keep-or-trade decision)."""


@dataclass(frozen=True, slots=True)
class Trade:
    """Trade Level cards with the next active player to your left (`target`)."""

    target: int


@dataclass(frozen=True, slots=True)
class DrawNewLevel:
    """The dealer's alternative to keeping: discard the revealed card, draw and reveal the top Level card."""


@dataclass(frozen=True, slots=True)
class PlayCard:
    """Play a ? card of this kind from your hand, on `target` when the card has one."""

    card: CardKind
    target: int | None = None


@dataclass(frozen=True, slots=True)
class AcceptSwap:
    """Let a trade or Warp Pipe aimed at you happen (the answer other than Hammer Bros.)."""


@dataclass(frozen=True, slots=True)
class Pass:
    """Play no ? card this modify turn."""
