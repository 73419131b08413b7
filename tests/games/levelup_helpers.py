"""Builders for Level Up! scenario tests: a state with a chosen board, hands and turn, from a real new game."""

from __future__ import annotations

import dataclasses
from typing import Any

from toadstool.games.levelup import data
from toadstool.games.levelup.data import BLOCKS, POWERS, BlockKind, PowerKind
from toadstool.games.levelup.engine import ENGINE, LevelUpState, Stage

E = ENGINE


def blk(kind: BlockKind, k: int = 0) -> int:
    """The id of the k-th ? block of `kind`."""
    return [i for i, b in enumerate(BLOCKS) if b == kind][k]


def pw(kind: PowerKind, k: int = 0) -> int:
    """The id of the k-th Power Up card of `kind`."""
    return [i for i, p in enumerate(POWERS) if p == kind][k]


def idx(level: int) -> int:
    return data.LEVELS.index(level)


def build(
    players: int = 3,
    *,
    levels: dict[int, list[int]] | None = None,
    face_down: dict[int, list[int]] | None = None,
    held: dict[int, list[int]] | None = None,
    hands: dict[int, list[int]] | None = None,
    objectives: list[int] | None = None,
    current: int = 0,
    stage: Stage = Stage.TURN,
    seed: int = 0,
    **changes: Any,
) -> LevelUpState:
    """A movement-phase state: `levels` maps level numbers (0-5, 10) to characters left to right."""
    state = E.new(players, {}, seed)
    board = [[] for _ in data.LEVELS]
    for level, chars in (levels or {}).items():
        board[idx(level)] = list(chars)
    downs = [[] for _ in data.LEVELS]
    for level, blocks in (face_down or {}).items():
        downs[idx(level)] = list(blocks)
    held_t = [list((held or {}).get(s, [])) for s in range(players)]
    hands_t = [list((hands or {}).get(s, [])) for s in range(players)]
    used_blocks = {b for x in downs for b in x} | {b for x in held_t for b in x}
    used_powers = {p for x in hands_t for p in x}
    fields: dict[str, Any] = {
        "levels": tuple(tuple(x) for x in board),
        "face_down": tuple(tuple(x) for x in downs),
        "held_blocks": tuple(tuple(x) for x in held_t),
        "power_hands": tuple(tuple(x) for x in hands_t),
        "block_pile": tuple(b for b in range(len(BLOCKS)) if b not in used_blocks),
        "power_deck": tuple(p for p in range(len(POWERS)) if p not in used_powers),
        "current": current,
        "stage": stage,
        "placements_left": 0,
    }
    if objectives is not None:
        fields["objectives"] = tuple(objectives)
    fields.update(changes)
    return dataclasses.replace(state, **fields)


def where(state: LevelUpState, c: int) -> int | None:
    """The level number of character c, or None when it is off the board."""
    for i, chars in enumerate(state.levels):
        if c in chars:
            return data.LEVELS[i]
    return None


def texts(state: LevelUpState, viewer: int | None = None) -> list[str]:
    from toadstool.engine import event_text

    return [event_text(e, viewer) for e in E.last_events(state)]


def card_with(chars: set[int]) -> int:
    """The id of an objective card holding all of `chars`."""
    return next(i for i, card in enumerate(data.OBJECTIVE_CARDS) if chars <= set(card))
