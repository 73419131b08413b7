"""Every card list, count, name and table of Super Mario: Level Up!, as data (docs/rules/levelup.md §1).

This module is for facts only (a correction is a one-line change here); it holds no rules logic: the
engine in `engine.py` reads these tables.
"""

from __future__ import annotations

import enum

#: Display names of the 13 characters; engines use the ids 0-12 (the index here).
CHARACTER_NAMES: tuple[str, ...] = (
    "Mario",
    "Luigi",
    "Peach",
    "Daisy",
    "Yoshi",
    "Toad",
    "Toadette",
    "Rosalina",
    "Bowser",
    "Bowser Jr.",
    "Wario",
    "Waluigi",
    "Donkey Kong",
)
CHARACTERS: tuple[int, ...] = tuple(range(len(CHARACTER_NAMES)))

#: The board's levels, bottom to top. Index 6 (level 10) holds the nominee only.
LEVELS: tuple[int, ...] = (0, 1, 2, 3, 4, 5, 10)
TOP = len(LEVELS) - 1  # the index of level 10
LEVEL_CAPACITY = 4  # levels 1-5; level 0 has no limit, level 10 holds one
PLACEMENT_LEVELS: tuple[int, ...] = (1, 2, 3, 4)  # level indexes a character may be placed on
BLOCK_LEVELS: tuple[int, ...] = (5, 4, 3, 2, 1)  # fill order when the ? block pile is short
ROUNDS = 3
MAX_ROUND_SCORE = 33  # 10 + 5 + 5 + 5 + 4 + 4; round 3 turns a 0 into this

#: Quadratic residues and non-residues mod 13: the two base cards of the objective design.
QUADRATIC_RESIDUES: tuple[int, ...] = (1, 3, 4, 9, 10, 12)
NON_RESIDUES: tuple[int, ...] = (2, 5, 6, 7, 8, 11)
#: The 26 objective cards (card id = index), six characters each.
OBJECTIVE_CARDS: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted((q + i) % 13 for q in base)) for base in (QUADRATIC_RESIDUES, NON_RESIDUES) for i in range(13)
)

#: No! cards per player and characters placed per player, by player count.
NO_CARDS_BY_PLAYERS: dict[int, int] = {3: 4, 4: 3, 5: 2, 6: 2}
PLACEMENTS_BY_PLAYERS: dict[int, int] = {3: 4, 4: 3, 5: 2, 6: 2}


class BlockKind(enum.IntEnum):
    """The ten ? block faces (values are the LevelUpBlockKind proto numbers)."""

    UNSPECIFIED = 0
    COIN = 1
    COIN_X2 = 2
    SUPER_MUSHROOM = 3
    FEATHER = 4
    GOOMBA = 5
    GREEN_SHELL = 6
    DOUBLE_CHERRY = 7
    THWOMP = 8
    POW_BLOCK = 9
    SUPER_STAR = 10


class PowerKind(enum.IntEnum):
    """The seven Power Up cards (values are the LevelUpPowerKind proto numbers)."""

    UNSPECIFIED = 0
    THWOMP_VOTE = 1
    ONE_UP_MUSHROOM = 2
    WARP_PIPE = 3
    GOOMBA_STOMP = 4
    BOO = 5
    MEGA_POW = 6
    GOLDEN_MUSHROOM = 7


#: (count, kind, data name, display name, effect) of the 28 ? blocks.
BLOCK_TABLE: tuple[tuple[int, BlockKind, str, str, str], ...] = (
    (4, BlockKind.COIN, "block.coin", "Coin", "worth 1 point at game end"),
    (2, BlockKind.COIN_X2, "block.coin_x2", "Coin x2", "worth 2 points at game end"),
    (3, BlockKind.SUPER_MUSHROOM, "block.super_mushroom", "Super Mushroom", "the same character moves up 1 now"),
    (3, BlockKind.FEATHER, "block.feather", "Feather", "keep; on your turn move any character up 1"),
    (3, BlockKind.GOOMBA, "block.goomba", "Goomba", "the same character moves down 1 now"),
    (3, BlockKind.GREEN_SHELL, "block.green_shell", "Green Shell", "keep; move any character down 1"),
    (3, BlockKind.DOUBLE_CHERRY, "block.double_cherry", "Double Cherry", "take one extra turn"),
    (2, BlockKind.THWOMP, "block.thwomp", "Thwomp", "skip your next turn"),
    (2, BlockKind.POW_BLOCK, "block.pow_block", "POW Block", "everyone on this level moves down"),
    (3, BlockKind.SUPER_STAR, "block.super_star", "Super Star", "draw a Power Up card now"),
)

#: (count, kind, data name, display name, effect) of the 15 Power Up cards.
POWER_TABLE: tuple[tuple[int, PowerKind, str, str, str], ...] = (
    (3, PowerKind.THWOMP_VOTE, "power.thwomp_vote", "Thwomp Vote", "a No! vote; a failed nominee goes to level 0"),
    (2, PowerKind.ONE_UP_MUSHROOM, "power.one_up_mushroom", "1-Up Mushroom", "cancel one No! after a reveal"),
    (2, PowerKind.WARP_PIPE, "power.warp_pipe", "Warp Pipe", "move a character up 1 level twice"),
    (2, PowerKind.GOOMBA_STOMP, "power.goomba_stomp", "Goomba Stomp", "move a character down 2 levels"),
    (2, PowerKind.BOO, "power.boo", "Boo", "swap two characters on levels 0-5"),
    (2, PowerKind.MEGA_POW, "power.mega_pow", "Mega POW", "everyone on one level 1-5 moves down 1"),
    (2, PowerKind.GOLDEN_MUSHROOM, "power.golden_mushroom", "Golden Mushroom", "take another turn"),
)

#: Every physical ? block by id (0-27): its kind. Ids are unique among blocks only.
BLOCKS: tuple[BlockKind, ...] = tuple(kind for count, kind, *_ in BLOCK_TABLE for _ in range(count))
#: Every physical Power Up card by id (0-14): its kind. A separate id space from the blocks.
POWERS: tuple[PowerKind, ...] = tuple(kind for count, kind, *_ in POWER_TABLE for _ in range(count))
BLOCK_DATA_NAMES: dict[BlockKind, str] = {kind: key for _, kind, key, _, _ in BLOCK_TABLE}
BLOCK_NAMES: dict[BlockKind, str] = {kind: name for _, kind, _, name, _ in BLOCK_TABLE}
POWER_DATA_NAMES: dict[PowerKind, str] = {kind: key for _, kind, key, _, _ in POWER_TABLE}
POWER_NAMES: dict[PowerKind, str] = {kind: name for _, kind, _, name, _ in POWER_TABLE}
#: Points a kept block is worth at game end.
COIN_VALUES: dict[BlockKind, int] = {BlockKind.COIN: 1, BlockKind.COIN_X2: 2}
#: Blocks that stay face up in front of their finder instead of being discarded.
KEPT_BLOCKS: frozenset[BlockKind] = frozenset(
    {BlockKind.COIN, BlockKind.COIN_X2, BlockKind.FEATHER, BlockKind.GREEN_SHELL, BlockKind.THWOMP}
)
