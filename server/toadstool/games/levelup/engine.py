"""The rules of Super Mario: Level Up! (docs/rules/levelup.md) as a pure engine over an immutable state.

This module is for the rules only: setup, placement, movement with ? blocks and Power Ups, nomination,
the pre-vote window, the secret vote, the 1-Up circle, scoring and the three rounds. Card lists and counts
live in `data.py`; the sensible bot lives in `bot.py`; nothing here speaks gRPC.

Termination: every round ends. While any character is on the board some upward move is legal (the
topmost character can always climb), each mandatory move raises the sum of levels, and everything that
lowers it (Goomba, POW, Green Shell, Goomba Stomp, Mega POW, failed votes) is used up within the round.
Every nomination either elects a champion, is stopped by a spent Green Shell / Goomba Stomp, or fails
and spends at least one No! or Thwomp Vote; No! cards (at most 12) are fewer than the 13 characters, so a
character stays on the board until the No! and Thwomp Votes run out and a nominee is elected.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from toadstool.engine import N_, Engine, Event, OptionSpec, Outcome, PrivateViews
from toadstool.engine import seat_ref as _p
from toadstool.games.working_copy import WorkingCopy
from toadstool.i18n import Text, both, joined, tr, trn

from . import data
from .data import BLOCKS, POWERS, TOP, BlockKind, PowerKind

N_LEVELS = len(data.LEVELS)


class Stage(enum.IntEnum):
    """What the game is waiting for (values are the LevelUpStage proto numbers)."""

    UNSPECIFIED = 0
    PLACEMENT = 1
    TURN = 2
    REVEAL = 3
    PRE_VOTE = 4
    VOTE = 5
    ONE_UP = 6
    GAME_OVER = 7


class VoteChoice(enum.IntEnum):
    """A vote card (values are the LevelUpVote proto numbers); UNSPECIFIED means no vote (yet)."""

    UNSPECIFIED = 0
    YES = 1
    NO = 2
    THWOMP_VOTE = 3


VOTE_NAMES = {VoteChoice.YES: tr("Yes!"), VoteChoice.NO: tr("No!"), VoteChoice.THWOMP_VOTE: tr("Thwomp Vote")}


# ---------------------------------------------------------------------------------------------- actions
@dataclass(frozen=True, slots=True)
class Place:
    """Placement: put an unplaced character on level 1-4."""

    character: int
    level: int


@dataclass(frozen=True, slots=True)
class Move:
    """The turn's mandatory move: one character up one level."""

    character: int


@dataclass(frozen=True, slots=True)
class RevealBlock:
    """Choose which face-down ? block (0-based among those on the level) to reveal."""

    slot: int


@dataclass(frozen=True, slots=True)
class PlayFeather:
    """Held Feather block: move any character up 1 level."""

    character: int


@dataclass(frozen=True, slots=True)
class PlayGreenShell:
    """Held Green Shell block: move any character down 1 level (on the nominee in the pre-vote window)."""

    character: int


@dataclass(frozen=True, slots=True)
class PlayWarpPipe:
    """Power Up: move any character up 1 level twice."""

    character: int


@dataclass(frozen=True, slots=True)
class PlayGoombaStomp:
    """Power Up: move a character on levels 1-5 down 2 (the nominee to level 5 in the pre-vote window)."""

    character: int


@dataclass(frozen=True, slots=True)
class PlayBoo:
    """Power Up: swap two characters on levels 0-5."""

    first: int
    second: int


@dataclass(frozen=True, slots=True)
class PlayMegaPow:
    """Power Up: every character on one level 1-5 moves down 1."""

    level: int


@dataclass(frozen=True, slots=True)
class PlayGoldenMushroom:
    """Power Up: take another turn after this one."""


@dataclass(frozen=True, slots=True)
class EndTurn:
    """End your turn (after your move, or when no move is possible)."""


@dataclass(frozen=True, slots=True)
class Pass:
    """Let the pre-vote window or the 1-Up circle pass you by."""


@dataclass(frozen=True, slots=True)
class CastVote:
    """Put a vote card face down: Yes!, No! or a Thwomp Vote."""

    choice: VoteChoice


@dataclass(frozen=True, slots=True)
class PlayOneUp:
    """Power Up after a reveal: cancel the No! or Thwomp Vote of seat `target`."""

    target: int


Action = (
    Place
    | Move
    | RevealBlock
    | PlayFeather
    | PlayGreenShell
    | PlayWarpPipe
    | PlayGoombaStomp
    | PlayBoo
    | PlayMegaPow
    | PlayGoldenMushroom
    | EndTurn
    | Pass
    | CastVote
    | PlayOneUp
)
ACTION_TYPES: tuple[type, ...] = (
    Place,
    Move,
    RevealBlock,
    PlayFeather,
    PlayGreenShell,
    PlayWarpPipe,
    PlayGoombaStomp,
    PlayBoo,
    PlayMegaPow,
    PlayGoldenMushroom,
    EndTurn,
    Pass,
    CastVote,
    PlayOneUp,
)


# ------------------------------------------------------------------------------------------------ views
@dataclass(frozen=True, slots=True)
class LevelUpLevel:
    """One level of the board: its characters left to right and how many ? blocks lie face down on it."""

    level: int
    characters: tuple[int, ...]
    face_down_blocks: int


@dataclass(frozen=True, slots=True)
class LevelUpBlock:
    """A face-up ? block held by a player; `fresh` blocks were found this turn and are not playable yet."""

    id: int
    kind: BlockKind
    fresh: bool


@dataclass(frozen=True, slots=True)
class LevelUpPowerUp:
    """A Power Up card in the viewer's own hand."""

    id: int
    kind: PowerKind


@dataclass(frozen=True, slots=True)
class LevelUpSeat:
    """What everybody knows about one seat."""

    seat: int
    held_blocks: tuple[LevelUpBlock, ...]
    power_up_count: int
    no_cards: int
    has_voted: bool
    revealed_vote: VoteChoice
    vote_cancelled: bool
    extra_turns: int
    skips: int
    coins: int
    round_scores: tuple[int, ...]
    last_objective: tuple[int, ...]
    placed: tuple[int, ...]
    pushed: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class LevelUpPrivateView:
    """The fields of a `LevelUpView` that differ from one viewer to another (`LevelUpEngine.private_view`)."""

    you: int | None
    favourites: tuple[int, ...]
    power_ups: tuple[LevelUpPowerUp, ...]


@dataclass(frozen=True, slots=True)
class LevelUpView:
    """Everything one viewer may know about a game of Level Up!."""

    phase: str
    scores: tuple[int, ...]
    you: int | None
    stage: Stage
    round: int
    current: int
    first_player: int
    levels: tuple[LevelUpLevel, ...]
    off_board: tuple[int, ...]
    unplaced: tuple[int, ...]
    nominee: int | None
    favourites: tuple[int, ...]
    power_ups: tuple[LevelUpPowerUp, ...]
    seats: tuple[LevelUpSeat, ...]
    moved: bool
    reveal_level: int | None
    block_pile: int
    power_deck: int
    character_names: tuple[str, ...]
    winners: tuple[int, ...]


# ------------------------------------------------------------------------------------------------ state
@dataclass(frozen=True, slots=True)
class LevelUpState:
    """The whole game, hidden parts included. Level index i is level data.LEVELS[i] (index 6 = level 10)."""

    players: int
    rng_state: int
    round: int
    first_player: int
    stage: Stage
    current: int
    levels: tuple[tuple[int, ...], ...]
    face_down: tuple[tuple[int, ...], ...]
    block_pile: tuple[int, ...]
    block_discard: tuple[int, ...]
    held_blocks: tuple[tuple[int, ...], ...]
    fresh_blocks: tuple[int, ...]
    power_deck: tuple[int, ...]
    power_discard: tuple[int, ...]
    power_hands: tuple[tuple[int, ...], ...]
    objective_deck: tuple[int, ...]
    objectives: tuple[int, ...]
    no_cards: tuple[int, ...]
    extra_turns: tuple[int, ...]
    skips: tuple[int, ...]
    moved: bool
    placements_left: int
    reveal_character: int
    reveal_level: int
    warp_character: int
    nominee: int
    window: tuple[int, ...]
    votes: tuple[VoteChoice, ...]
    revealed_votes: tuple[VoteChoice, ...]
    cancelled: tuple[bool, ...]
    placed: tuple[tuple[int, ...], ...]
    pushed: tuple[tuple[int, ...], ...]
    round_scores: tuple[tuple[int, ...], ...]
    shown_objectives: tuple[int, ...]
    outcome: Outcome | None
    events: tuple[Event, ...]


#: The characters' names as each language says them (Nintendo's German names: docs/glossary.md).
_CHARACTER_TEXTS: tuple[str, ...] = tuple(
    {"Peach": tr("Peach"), "Daisy": tr("Daisy")}.get(name, name) for name in data.CHARACTER_NAMES
)
#: The ? blocks' and Power Up cards' names, each a `Text` said in its reader's language.
_BLOCK_TEXTS: dict[BlockKind, Text] = {
    BlockKind.COIN: tr("Coin"),
    BlockKind.COIN_X2: tr("Coin x2"),
    BlockKind.SUPER_MUSHROOM: tr("Super Mushroom"),
    BlockKind.FEATHER: tr("Feather"),
    BlockKind.GOOMBA: tr("Goomba"),
    BlockKind.GREEN_SHELL: tr("Green Shell"),
    BlockKind.DOUBLE_CHERRY: tr("Double Cherry"),
    BlockKind.THWOMP: tr("Thwomp"),
    BlockKind.POW_BLOCK: tr("POW Block"),
    BlockKind.SUPER_STAR: tr("Super Star"),
}
_POWER_TEXTS: dict[PowerKind, Text] = {
    PowerKind.THWOMP_VOTE: tr("Thwomp Vote"),
    PowerKind.ONE_UP_MUSHROOM: tr("1-Up Mushroom"),
    PowerKind.WARP_PIPE: tr("Warp Pipe"),
    PowerKind.GOOMBA_STOMP: tr("Goomba Stomp"),
    PowerKind.BOO: tr("Boo"),
    PowerKind.MEGA_POW: tr("Mega POW"),
    PowerKind.GOLDEN_MUSHROOM: tr("Golden Mushroom"),
}


def char_name(c: int) -> str:
    return _CHARACTER_TEXTS[c]


def level_name(index: int) -> Text:
    return tr("level {level}", level=data.LEVELS[index])


def block_label(block: int) -> Text:
    return tr("{name} (block #{number})", name=_BLOCK_TEXTS[BLOCKS[block]], number=block)


def power_label(power: int) -> Text:
    return tr("{name} (power #{number})", name=_POWER_TEXTS[POWERS[power]], number=power)


class _Work(WorkingCopy[LevelUpState]):
    """A mutable copy of the state used while one `apply` resolves; frozen again at the end (the fields,
    typed as it holds them: toadstool.games.working_copy copies and freezes them)."""

    NEW_SEED_EVERY_APPLY = True

    players: int
    round: int
    first_player: int
    stage: Stage
    current: int
    levels: list[list[int]]
    face_down: list[list[int]]
    block_pile: list[int]
    block_discard: list[int]
    held_blocks: list[list[int]]
    fresh_blocks: list[int]
    power_deck: list[int]
    power_discard: list[int]
    power_hands: list[list[int]]
    objective_deck: list[int]
    objectives: list[int]
    no_cards: list[int]
    extra_turns: list[int]
    skips: list[int]
    moved: bool
    placements_left: int
    reveal_character: int
    reveal_level: int
    warp_character: int
    nominee: int
    window: list[int]
    votes: list[VoteChoice]
    revealed_votes: list[VoteChoice]
    cancelled: list[bool]
    placed: list[list[int]]
    pushed: list[list[int]]
    round_scores: list[tuple[int, ...]]
    shown_objectives: tuple[int, ...]
    outcome: Outcome | None

    # -------------------------------------------------------------------------------- small helpers
    def say(
        self, text: Text, private: tuple[tuple[int, Text], ...] = (), seat: int | None = None, result: bool = False
    ) -> None:
        """An event; `seat` is whose line it is, `result` marks a line of the round's scoring
        (Event.round_result)."""
        self.events.append(Event(text=text, seat=seat, private=private, round_result=result))

    def level_of(self, c: int) -> int:
        for i, chars in enumerate(self.levels):
            if c in chars:
                return i
        return -1

    def has_room(self, index: int) -> bool:
        if index == 0:
            return True
        if index == TOP:
            return not self.levels[TOP]
        return len(self.levels[index]) < data.LEVEL_CAPACITY

    def first_open_at_or_below(self, index: int) -> int:
        while index > 0 and not self.has_room(index):
            index -= 1
        return index

    def put(self, c: int, index: int) -> None:
        old = self.level_of(c)
        if old >= 0:
            self.levels[old].remove(c)
        self.levels[index].append(c)

    def draw_power(self, seat: int) -> None:
        if not self.power_deck and self.power_discard:
            self.power_deck = self.power_discard
            self.power_discard = []
            self.rng.shuffle(self.power_deck)
            self.say(tr("the Power Up discard pile is shuffled into a new draw pile"))
        if not self.power_deck:
            self.say(tr("{p} would draw a Power Up card, but none is left", p=_p(seat)))
            return
        card = self.power_deck.pop()
        self.power_hands[seat].append(card)
        self.say(tr("{p} draws a Power Up card", p=_p(seat)), ((seat, tr("you draw {card}", card=power_label(card))),))

    def take_power(self, seat: int, kind: PowerKind) -> int:
        card = min(p for p in self.power_hands[seat] if POWERS[p] == kind)
        self.power_hands[seat].remove(card)
        self.power_discard.append(card)
        return card

    def take_block(self, seat: int, kind: BlockKind) -> int:
        block = min(b for b in self.held_blocks[seat] if BLOCKS[b] == kind and b not in self.fresh_blocks)
        self.held_blocks[seat].remove(block)
        self.block_discard.append(block)
        return block

    # ------------------------------------------------------------------------------------ movement
    def move_down(self, c: int, steps: int) -> None:
        index = self.level_of(c)
        if index <= 0:
            return
        target = self.first_open_at_or_below(max(0, index - steps))
        self.put(c, target)
        self.say(tr("{character} moves down to {level}", character=char_name(c), level=level_name(target)))

    def move_up(self, c: int, actor: int | None = None) -> str:
        """Move `c` up one level: 'blocked', 'moved', 'reveal' (a ? block awaits) or 'nominated'."""
        index = self.level_of(c)
        if index < 0 or index == TOP or not self.has_room(index + 1):
            self.say(tr("{character} cannot move up", character=char_name(c)))
            return "blocked"
        self.put(c, index + 1)
        if actor is not None:
            self.say(
                tr(
                    "{p} moves {character} up to {level}",
                    p=_p(actor),
                    character=char_name(c),
                    level=level_name(index + 1),
                )
            )
        else:
            self.say(tr("{character} moves up to {level}", character=char_name(c), level=level_name(index + 1)))
        if index + 1 == TOP:
            self.nominate(c)
            return "nominated"
        if self.face_down[index + 1]:
            self.stage = Stage.REVEAL
            self.reveal_character = c
            self.reveal_level = index + 1
            return "reveal"
        return "moved"

    def reveal(self, slot: int) -> None:
        seat, c, index = self.current, self.reveal_character, self.reveal_level
        block = self.face_down[index].pop(slot)
        kind = BLOCKS[block]
        self.stage = Stage.TURN
        self.reveal_character = self.reveal_level = -1
        self.say(tr("{p} reveals {block} on {level}", p=_p(seat), block=block_label(block), level=level_name(index)))
        if kind in data.KEPT_BLOCKS:
            self.held_blocks[seat].append(block)
            self.fresh_blocks.append(block)
            if kind == BlockKind.THWOMP:
                self.skips[seat] += 1
                self.say(tr("{p} will skip their next turn", p=_p(seat)))
            return
        self.block_discard.append(block)
        if kind == BlockKind.SUPER_MUSHROOM:
            self.move_up(c)
        elif kind == BlockKind.GOOMBA:
            self.move_down(c, 1)
        elif kind == BlockKind.DOUBLE_CHERRY:
            self.extra_turns[seat] += 1
            self.say(tr("{p} will take an extra turn", p=_p(seat)))
        elif kind == BlockKind.POW_BLOCK:
            for other in list(self.levels[index]):
                self.move_down(other, 1)
        elif kind == BlockKind.SUPER_STAR:
            self.draw_power(seat)

    # ---------------------------------------------------------------------------- nomination and vote
    def nominate(self, c: int) -> None:
        self.nominee = c
        self.warp_character = -1
        self.revealed_votes = [VoteChoice.UNSPECIFIED] * self.players
        self.cancelled = [False] * self.players
        self.say(tr("{character} is nominated for champion", character=char_name(c)))
        order = [(self.current + k) % self.players for k in range(self.players)]
        self.window = [s for s in order if self.may_stop_nominee(s)]
        self.stage = Stage.PRE_VOTE
        if not self.window:
            self.start_vote()

    def may_stop_nominee(self, seat: int) -> bool:
        """Public test for being asked in the pre-vote window (a held Green Shell or any Power Up card)."""
        return bool(self.power_hands[seat]) or any(
            BLOCKS[b] == BlockKind.GREEN_SHELL and b not in self.fresh_blocks for b in self.held_blocks[seat]
        )

    def stop_nominee(self) -> None:
        c = self.nominee
        target = self.first_open_at_or_below(5)
        self.put(c, target)
        self.say(
            tr("{character} is knocked down to {level}; no vote", character=char_name(c), level=level_name(target))
        )
        self.nominee = -1
        self.window = []
        self.stage = Stage.TURN

    def start_vote(self) -> None:
        self.window = []
        self.stage = Stage.VOTE
        self.votes = [VoteChoice.UNSPECIFIED] * self.players
        self.say(tr("everybody votes on {character}", character=char_name(self.nominee)))

    def reveal_votes(self) -> None:
        self.revealed_votes = list(self.votes)
        self.votes = [VoteChoice.UNSPECIFIED] * self.players
        self.cancelled = [False] * self.players
        for seat, vote in enumerate(self.revealed_votes):
            if vote == VoteChoice.NO:
                self.no_cards[seat] -= 1
            elif vote == VoteChoice.THWOMP_VOTE:
                self.take_power(seat, PowerKind.THWOMP_VOTE)
        shown = joined([tr("{p} {vote}", p=_p(s), vote=VOTE_NAMES[v]) for s, v in enumerate(self.revealed_votes)])
        self.say(tr("the votes on {character}: {votes}", character=char_name(self.nominee), votes=shown))
        self.stage = Stage.ONE_UP
        if self.open_objections():
            order = [(self.current + k) % self.players for k in range(self.players)]
            self.window = [s for s in order if self.power_hands[s]]
        else:
            self.window = []
        if not self.window:
            self.resolve_vote()

    def open_objections(self) -> list[int]:
        return [
            s
            for s, v in enumerate(self.revealed_votes)
            if v in (VoteChoice.NO, VoteChoice.THWOMP_VOTE) and not self.cancelled[s]
        ]

    def resolve_vote(self) -> None:
        c = self.nominee
        self.window = []
        objections = self.open_objections()
        if not objections:
            self.say(tr("{character} is elected champion", character=char_name(c)), result=True)
            self.score_round()
            return
        if any(self.revealed_votes[s] == VoteChoice.THWOMP_VOTE for s in objections):
            self.put(c, 0)
            self.say(tr("{character} is not elected and goes to level 0 (Thwomp Vote)", character=char_name(c)))
        else:
            self.levels[TOP].remove(c)
            self.say(tr("{character} is not elected and leaves the board for this round", character=char_name(c)))
        self.nominee = -1
        self.stage = Stage.TURN

    # ------------------------------------------------------------------------------------ turn order
    def has_optional_play(self, seat: int) -> bool:
        """Public test for waiting on an explicit EndTurn: a playable held block or any Power Up card."""
        return bool(self.power_hands[seat]) or any(
            BLOCKS[b] in (BlockKind.FEATHER, BlockKind.GREEN_SHELL) and b not in self.fresh_blocks
            for b in self.held_blocks[seat]
        )

    def can_move_up(self, c: int) -> bool:
        index = self.level_of(c)
        return 0 <= index < TOP and self.has_room(index + 1)

    def any_move(self) -> bool:
        return any(self.can_move_up(c) for c in data.CHARACTERS)

    def end_turn(self) -> None:
        seat = self.current
        self.fresh_blocks = []
        if self.extra_turns[seat] > 0:
            self.extra_turns[seat] -= 1
            self.say(tr("{p} takes an extra turn", p=_p(seat)))
            nxt = seat
        else:
            nxt = (seat + 1) % self.players
        self.begin_turn(nxt)

    def begin_turn(self, seat: int) -> None:
        for _ in range(1000):
            self.current = seat
            self.moved = False
            self.fresh_blocks = []
            self.stage = Stage.TURN
            if self.skips[seat] > 0:
                self.skips[seat] -= 1
                thwomp = min(b for b in self.held_blocks[seat] if BLOCKS[b] == BlockKind.THWOMP)
                self.held_blocks[seat].remove(thwomp)
                self.block_discard.append(thwomp)
                self.say(tr("{p} skips this turn (Thwomp)", p=_p(seat)))
            elif not self.any_move() and not self.has_optional_play(seat):
                self.say(tr("{p} has no move", p=_p(seat)))
            else:
                return
            if self.extra_turns[seat] > 0:
                self.extra_turns[seat] -= 1
            else:
                seat = (seat + 1) % self.players
        raise RuntimeError("level-up: no seat can take a turn")

    def settle(self) -> None:
        """After an action's effects: continue a Warp Pipe, or end a finished turn automatically."""
        while self.stage == Stage.TURN:
            if self.warp_character >= 0:
                c, self.warp_character = self.warp_character, -1
                self.move_up(c)
                continue
            if self.moved and not self.has_optional_play(self.current):
                self.end_turn()
                continue
            return

    # ------------------------------------------------------------------------------------ rounds
    def start_round(self) -> None:
        per = data.PLACEMENTS_BY_PLAYERS[self.players]
        self.levels = [[] for _ in range(N_LEVELS)]
        pile = self.block_pile + self.block_discard + [b for level in self.face_down for b in level]
        for seat in range(self.players):
            thwomps = [b for b in self.held_blocks[seat] if BLOCKS[b] == BlockKind.THWOMP]
            for b in thwomps:
                self.held_blocks[seat].remove(b)
            pile += thwomps
        self.rng.shuffle(pile)
        self.block_pile, self.block_discard = pile, []
        self.face_down = [[] for _ in range(N_LEVELS)]
        self.fresh_blocks = []
        self.objectives = [self.objective_deck.pop() for _ in range(self.players)]
        self.no_cards = [data.NO_CARDS_BY_PLAYERS[self.players]] * self.players
        self.extra_turns = [0] * self.players
        self.skips = [0] * self.players
        self.votes = [VoteChoice.UNSPECIFIED] * self.players
        self.revealed_votes = [VoteChoice.UNSPECIFIED] * self.players
        self.cancelled = [False] * self.players
        self.placed = [[] for _ in range(self.players)]
        self.pushed = [[] for _ in range(self.players)]
        self.nominee = self.warp_character = self.reveal_character = self.reveal_level = -1
        self.window = []
        self.moved = False
        self.placements_left = per * self.players
        self.stage = Stage.PLACEMENT
        self.current = self.first_player
        self.say(
            tr("round {round} begins with {p}; objective cards are dealt", round=self.round, p=_p(self.first_player)),
            tuple(
                (s, tr("your objective: {characters}", characters=_names(data.OBJECTIVE_CARDS[self.objectives[s]])))
                for s in range(self.players)
            ),
        )

    def finish_placement(self) -> None:
        leftovers = [c for c in data.CHARACTERS if self.level_of(c) < 0]
        self.levels[0].extend(leftovers)
        if leftovers:
            self.say(
                trn(
                    "{characters} starts on level 0",
                    "{characters} start on level 0",
                    len(leftovers),
                    characters=_names(leftovers),
                )
            )
        for index in data.BLOCK_LEVELS:
            need = data.LEVEL_CAPACITY - len(self.levels[index])
            for _ in range(need):
                if not self.block_pile:
                    break
                self.face_down[index].append(self.block_pile.pop())
        self.say(tr("? blocks are placed face down on levels 1-5"))
        self.begin_turn(self.first_player)

    def score_round(self) -> None:
        scores = []
        for seat in range(self.players):
            total = 0
            for c in data.OBJECTIVE_CARDS[self.objectives[seat]]:
                index = self.level_of(c)
                total += data.LEVELS[index] if index >= 0 else 0
            if self.round == data.ROUNDS and total == 0:
                total = data.MAX_ROUND_SCORE
            scores.append(total)
        self.round_scores.append(tuple(scores))
        self.shown_objectives = tuple(self.objectives)
        for seat in range(self.players):
            favs = _names(data.OBJECTIVE_CARDS[self.objectives[seat]])
            self.say(
                tr(
                    "{p}'s objective was {characters}: {points} points in round {round}",
                    p=_p(seat),
                    characters=favs,
                    points=scores[seat],
                    round=self.round,
                ),
                seat=seat,
                result=True,
            )
        if self.round < data.ROUNDS:
            self.round += 1
            self.first_player = (self.current + 1) % self.players
            self.start_round()
            return
        totals = []
        coin_points = []
        for seat in range(self.players):
            coins = sum(data.COIN_VALUES.get(BLOCKS[b], 0) for b in self.held_blocks[seat])
            coin_points.append(coins)
            totals.append(sum(r[seat] for r in self.round_scores) + coins)
            if coins:
                added = trn("{p} adds {n} coin point", "{p} adds {n} coin points", coins, p=_p(seat))
                self.say(added, seat=seat, result=True)
        best = max(totals)
        tied = [s for s in range(self.players) if totals[s] == best]
        if len(tied) > 1:
            on_board = {
                s: sum(1 for c in data.OBJECTIVE_CARDS[self.objectives[s]] if self.level_of(c) >= 0) for s in tied
            }
            most = max(on_board.values())
            tied = [s for s in tied if on_board[s] == most]
        who = _p(tied[0]) if len(tied) == 1 else both(*(_p(s) for s in tied))
        if len(tied) > 1:
            summary = tr("{names} win with {points} points", names=who, points=best)
        else:
            summary = tr("{names} wins with {points} points", names=who, points=best)
        details = [
            tr(
                "Round {round}: {scores}",
                round=number,
                scores=" · ".join(f"{_p(seat)} {points}" for seat, points in enumerate(scores)),
            )
            for number, scores in enumerate(self.round_scores, start=1)
        ]
        if any(coin_points):
            details.append(
                tr("Coins: {coins}", coins=" · ".join(f"{_p(seat)} {c}" for seat, c in enumerate(coin_points)))
            )
        self.outcome = Outcome(winners=tuple(tied), scores=tuple(totals), summary=summary, details=tuple(details))
        self.stage = Stage.GAME_OVER
        self.window = []
        self.say(summary, result=True)


def _names(chars: Sequence[int]) -> Text:
    return joined([char_name(c) for c in chars])


# ------------------------------------------------------------------------------------------------ engine
class LevelUpEngine:
    """Super Mario: Level Up! for 3-6 players over three rounds."""

    name = "levelup"
    title = N_("Super Mario: Level Up!")
    score_label = tr("points")
    #: Options for a short game, for tests and demos (see Engine.quick_options).
    quick_options: ClassVar[dict[str, str]] = {}
    min_players = 3
    max_players = 6
    options: tuple[OptionSpec, ...] = ()
    action_types = ACTION_TYPES
    view_type = LevelUpView
    #: What differs between viewers' views (`private_view`, toadstool.engine.view_split).
    private_view_type = LevelUpPrivateView

    def new(self, players: int, options: Mapping[str, Any], seed: int) -> LevelUpState:
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"Level Up! is for 3-6 players, not {players}")
        rng = random.Random(seed)
        objective_deck = list(range(len(data.OBJECTIVE_CARDS)))
        rng.shuffle(objective_deck)
        power_deck = list(range(len(POWERS)))
        rng.shuffle(power_deck)
        blocks = list(range(len(BLOCKS)))
        n = players
        empty: tuple[tuple[int, ...], ...] = tuple(() for _ in range(n))
        state = LevelUpState(
            players=n,
            rng_state=rng.getrandbits(64),
            round=1,
            first_player=0,
            stage=Stage.PLACEMENT,
            current=0,
            levels=tuple(() for _ in range(N_LEVELS)),
            face_down=tuple(() for _ in range(N_LEVELS)),
            block_pile=tuple(blocks),
            block_discard=(),
            held_blocks=empty,
            fresh_blocks=(),
            power_deck=tuple(power_deck),
            power_discard=(),
            power_hands=empty,
            objective_deck=tuple(objective_deck),
            objectives=(),
            no_cards=(0,) * n,
            extra_turns=(0,) * n,
            skips=(0,) * n,
            moved=False,
            placements_left=0,
            reveal_character=-1,
            reveal_level=-1,
            warp_character=-1,
            nominee=-1,
            window=(),
            votes=(VoteChoice.UNSPECIFIED,) * n,
            revealed_votes=(VoteChoice.UNSPECIFIED,) * n,
            cancelled=(False,) * n,
            placed=empty,
            pushed=empty,
            round_scores=(),
            shown_objectives=(),
            outcome=None,
            events=(),
        )
        work = _Work(state)
        work.start_round()
        return work.freeze()

    def to_act(self, state: LevelUpState) -> tuple[int, ...]:
        stage = state.stage
        if stage == Stage.GAME_OVER:
            return ()
        if stage == Stage.VOTE:
            return tuple(s for s in range(state.players) if state.votes[s] == VoteChoice.UNSPECIFIED)
        if stage in (Stage.PRE_VOTE, Stage.ONE_UP):
            return state.window[:1]
        return (state.current,)

    def legal_actions(self, state: LevelUpState, seat: int) -> tuple[Action, ...]:
        stage = state.stage
        if stage == Stage.GAME_OVER:
            return ()
        if stage == Stage.VOTE:
            if state.votes[seat] != VoteChoice.UNSPECIFIED:
                return ()
            out: list[Action] = [CastVote(VoteChoice.YES)]
            if state.no_cards[seat] > 0:
                out.append(CastVote(VoteChoice.NO))
            if any(POWERS[p] == PowerKind.THWOMP_VOTE for p in state.power_hands[seat]):
                out.append(CastVote(VoteChoice.THWOMP_VOTE))
            return tuple(out)
        if stage in (Stage.PRE_VOTE, Stage.ONE_UP):
            if not state.window or state.window[0] != seat:
                return ()
            out = [Pass()]
            hand = {POWERS[p] for p in state.power_hands[seat]}
            if stage == Stage.PRE_VOTE:
                if _playable_block(state, seat, BlockKind.GREEN_SHELL):
                    out.append(PlayGreenShell(state.nominee))
                if PowerKind.GOOMBA_STOMP in hand:
                    out.append(PlayGoombaStomp(state.nominee))
            elif PowerKind.ONE_UP_MUSHROOM in hand:
                for target, vote in enumerate(state.revealed_votes):
                    if vote in (VoteChoice.NO, VoteChoice.THWOMP_VOTE) and not state.cancelled[target]:
                        out.append(PlayOneUp(target))
            return tuple(out)
        if seat != state.current:
            return ()
        if stage == Stage.PLACEMENT:
            on_board = {c for level in state.levels for c in level}
            rooms = [i for i in data.PLACEMENT_LEVELS if len(state.levels[i]) < data.LEVEL_CAPACITY]
            return tuple(Place(c, i) for c in data.CHARACTERS if c not in on_board for i in rooms)
        if stage == Stage.REVEAL:
            return tuple(RevealBlock(k) for k in range(len(state.face_down[state.reveal_level])))
        # Stage.TURN
        where = _where(state)
        climbers = tuple(c for c in data.CHARACTERS if _can_climb(state, where, c))
        out = []
        if not state.moved:
            out.extend(Move(c) for c in climbers)
        if state.moved or not climbers:
            out.append(EndTurn())
        if _playable_block(state, seat, BlockKind.FEATHER):
            out.extend(PlayFeather(c) for c in climbers)
        lowerable = tuple(c for c in data.CHARACTERS if 1 <= where[c] <= 5)
        if _playable_block(state, seat, BlockKind.GREEN_SHELL):
            out.extend(PlayGreenShell(c) for c in lowerable)
        hand = {POWERS[p] for p in state.power_hands[seat]}
        if PowerKind.WARP_PIPE in hand:
            out.extend(PlayWarpPipe(c) for c in climbers)
        if PowerKind.GOOMBA_STOMP in hand:
            out.extend(PlayGoombaStomp(c) for c in lowerable)
        if PowerKind.BOO in hand:
            swappable = [c for c in data.CHARACTERS if 0 <= where[c] <= 5]
            out.extend(PlayBoo(a, b) for i, a in enumerate(swappable) for b in swappable[i + 1 :])
        if PowerKind.MEGA_POW in hand:
            out.extend(PlayMegaPow(i) for i in range(1, 6) if state.levels[i])
        if PowerKind.GOLDEN_MUSHROOM in hand:
            out.append(PlayGoldenMushroom())
        return tuple(out)

    def apply(self, state: LevelUpState, seat: int, action: Action) -> LevelUpState:
        w = _Work(state)
        s = _p(seat)
        if isinstance(action, Place):
            w.put(action.character, action.level)
            w.placed[seat].append(action.character)
            w.say(
                tr(
                    "{p} places {character} on level {level}",
                    p=s,
                    character=char_name(action.character),
                    level=action.level,
                )
            )
            w.placements_left -= 1
            if w.placements_left == 0:
                w.finish_placement()
            else:
                w.current = (seat + 1) % w.players
            return w.freeze()
        if isinstance(action, Move):
            w.moved = True
            w.pushed[seat].append(action.character)
            w.move_up(action.character, seat)
        elif isinstance(action, RevealBlock):
            w.reveal(action.slot)
        elif isinstance(action, PlayFeather | PlayGreenShell):
            feather = isinstance(action, PlayFeather)
            block = w.take_block(seat, BlockKind.FEATHER if feather else BlockKind.GREEN_SHELL)
            w.say(
                tr(
                    "{p} plays {card} on {character}",
                    p=s,
                    card=block_label(block),
                    character=char_name(action.character),
                )
            )
            if feather:
                w.move_up(action.character)
            elif w.stage == Stage.PRE_VOTE:
                w.stop_nominee()
            else:
                w.move_down(action.character, 1)
        elif isinstance(action, PlayGoombaStomp):
            card = w.take_power(seat, PowerKind.GOOMBA_STOMP)
            w.say(
                tr(
                    "{p} plays {card} on {character}",
                    p=s,
                    card=power_label(card),
                    character=char_name(action.character),
                )
            )
            if w.stage == Stage.PRE_VOTE:
                w.stop_nominee()
            else:
                w.move_down(action.character, 2)
        elif isinstance(action, PlayWarpPipe):
            card = w.take_power(seat, PowerKind.WARP_PIPE)
            w.say(
                tr(
                    "{p} plays {card} on {character}",
                    p=s,
                    card=power_label(card),
                    character=char_name(action.character),
                )
            )
            result = w.move_up(action.character)
            if result == "moved":
                w.move_up(action.character)
            elif result == "reveal":
                w.warp_character = action.character
        elif isinstance(action, PlayBoo):
            card = w.take_power(seat, PowerKind.BOO)
            a, b = action.first, action.second
            la, lb = w.level_of(a), w.level_of(b)
            ia, ib = w.levels[la].index(a), w.levels[lb].index(b)
            w.levels[la][ia], w.levels[lb][ib] = b, a
            w.say(
                tr(
                    "{p} plays {card}: {first} and {second} swap places",
                    p=s,
                    card=power_label(card),
                    first=char_name(a),
                    second=char_name(b),
                )
            )
        elif isinstance(action, PlayMegaPow):
            card = w.take_power(seat, PowerKind.MEGA_POW)
            w.say(tr("{p} plays {card} on level {level}", p=s, card=power_label(card), level=action.level))
            for c in list(w.levels[action.level]):
                w.move_down(c, 1)
        elif isinstance(action, PlayGoldenMushroom):
            card = w.take_power(seat, PowerKind.GOLDEN_MUSHROOM)
            w.extra_turns[seat] += 1
            w.say(tr("{p} plays {card} and will take another turn", p=s, card=power_label(card)))
        elif isinstance(action, EndTurn):
            w.say(tr("{p} ends their turn", p=s))
            w.end_turn()
        elif isinstance(action, Pass):
            w.window.pop(0)
            if w.stage == Stage.PRE_VOTE:
                w.say(tr("{p} lets the vote go ahead", p=s))
                if not w.window:
                    w.start_vote()
            else:
                w.say(tr("{p} plays no 1-Up Mushroom", p=s))
                if not w.window:
                    w.resolve_vote()
        elif isinstance(action, CastVote):
            w.votes[seat] = action.choice
            w.say(tr("{p} has voted", p=s), ((seat, tr("you cast your vote face down")),))
            if all(v != VoteChoice.UNSPECIFIED for v in w.votes):
                w.reveal_votes()
        elif isinstance(action, PlayOneUp):
            card = w.take_power(seat, PowerKind.ONE_UP_MUSHROOM)
            w.cancelled[action.target] = True
            vote = VOTE_NAMES[w.revealed_votes[action.target]]
            w.say(
                tr(
                    "{p} plays {card} and cancels the {vote} of {target}",
                    p=s,
                    card=power_label(card),
                    vote=vote,
                    target=_p(action.target),
                )
            )
            w.window.pop(0)
            if not w.open_objections():
                w.window = []
            if not w.window:
                w.resolve_vote()
        else:  # pragma: no cover - legality is checked before apply
            raise TypeError(f"unknown action {action!r}")
        w.settle()
        return w.freeze()

    def private_view(self, state: LevelUpState, viewer: int | None) -> LevelUpPrivateView:
        """What only `viewer` is shown: its secret objective card and its power-up cards."""
        if viewer is None or not 0 <= viewer < state.players:
            return LevelUpPrivateView(you=None, favourites=(), power_ups=())
        return LevelUpPrivateView(
            you=viewer,
            favourites=data.OBJECTIVE_CARDS[state.objectives[viewer]],
            power_ups=tuple(LevelUpPowerUp(p, POWERS[p]) for p in sorted(state.power_hands[viewer])),
        )

    def view(self, state: LevelUpState, viewer: int | None) -> LevelUpView:
        n = state.players
        fresh = set(state.fresh_blocks)
        seats = []
        voting = state.stage == Stage.VOTE
        for s in range(n):
            held = tuple(LevelUpBlock(b, BLOCKS[b], b in fresh) for b in sorted(state.held_blocks[s]))
            seats.append(
                LevelUpSeat(
                    seat=s,
                    held_blocks=held,
                    power_up_count=len(state.power_hands[s]),
                    no_cards=state.no_cards[s],
                    has_voted=voting and state.votes[s] != VoteChoice.UNSPECIFIED,
                    revealed_vote=state.revealed_votes[s],
                    vote_cancelled=state.cancelled[s],
                    extra_turns=state.extra_turns[s],
                    skips=state.skips[s],
                    coins=sum(data.COIN_VALUES.get(BLOCKS[b], 0) for b in state.held_blocks[s]),
                    round_scores=tuple(r[s] for r in state.round_scores),
                    last_objective=data.OBJECTIVE_CARDS[state.shown_objectives[s]] if state.shown_objectives else (),
                    placed=state.placed[s],
                    pushed=state.pushed[s],
                )
            )
        on_board = {c for level in state.levels for c in level}
        placement = state.stage == Stage.PLACEMENT
        own = self.private_view(state, viewer)
        return LevelUpView(
            phase=self._phase(state),
            scores=self._scores(state),
            you=own.you,
            stage=state.stage,
            round=state.round,
            current=state.current,
            first_player=state.first_player,
            levels=tuple(
                LevelUpLevel(data.LEVELS[i], state.levels[i], len(state.face_down[i])) for i in range(N_LEVELS)
            ),
            off_board=() if placement else tuple(c for c in data.CHARACTERS if c not in on_board),
            unplaced=tuple(c for c in data.CHARACTERS if c not in on_board) if placement else (),
            nominee=state.nominee if state.nominee >= 0 else None,
            favourites=own.favourites,
            power_ups=own.power_ups,
            seats=tuple(seats),
            moved=state.moved,
            reveal_level=data.LEVELS[state.reveal_level] if state.stage == Stage.REVEAL else None,
            block_pile=len(state.block_pile),
            power_deck=len(state.power_deck),
            character_names=data.CHARACTER_NAMES,
            winners=state.outcome.winners if state.outcome else (),
        )

    def _scores(self, state: LevelUpState) -> tuple[int, ...]:
        if state.outcome is not None:
            return state.outcome.scores
        return tuple(sum(r[s] for r in state.round_scores) for s in range(state.players))

    def _phase(self, state: LevelUpState) -> str:
        stage, p = state.stage, _p(state.current)
        if stage == Stage.GAME_OVER:
            return _GAME_OVER
        if stage == Stage.PLACEMENT:
            return tr("Round {round}: {p} to place a character", round=state.round, p=p)
        if stage == Stage.REVEAL:
            return tr("{p} to pick a ? block on {level}", p=p, level=level_name(state.reveal_level))
        nominee = char_name(state.nominee) if state.nominee >= 0 else ""
        if stage == Stage.PRE_VOTE:
            return tr("{p}: stop {character} before the vote?", p=_p(state.window[0]), character=nominee)
        if stage == Stage.VOTE:
            return tr("Vote on {character}", character=nominee)
        if stage == Stage.ONE_UP:
            return tr("{p}: play a 1-Up Mushroom?", p=_p(state.window[0]))
        if not state.moved:
            return tr("Round {round}: {p} to move", round=state.round, p=p)
        return tr("Round {round}: {p} to finish", round=state.round, p=p)

    def outcome(self, state: LevelUpState) -> Outcome | None:
        return state.outcome

    def last_events(self, state: LevelUpState) -> tuple[Event, ...]:
        return state.events

    def describe(self, state: LevelUpState, seat: int, action: Action) -> str:
        if isinstance(action, Place):
            return tr("Place {character} on level {level}", character=char_name(action.character), level=action.level)
        if isinstance(action, Move):
            where = _where(state)[action.character]
            return tr(
                "Move {character} up to {level}", character=char_name(action.character), level=level_name(where + 1)
            )
        if isinstance(action, RevealBlock):
            total = len(state.face_down[state.reveal_level])
            return tr(
                "Reveal ? block {number} of {total} on {level}",
                number=action.slot + 1,
                total=total,
                level=level_name(state.reveal_level),
            )
        if isinstance(action, PlayFeather):
            return tr("Play Feather: {character} up 1", character=char_name(action.character))
        if isinstance(action, PlayGreenShell):
            return tr("Play Green Shell: {character} down 1", character=char_name(action.character))
        if isinstance(action, PlayWarpPipe):
            return tr("Play Warp Pipe: {character} up 2", character=char_name(action.character))
        if isinstance(action, PlayGoombaStomp):
            return tr("Play Goomba Stomp on {character}", character=char_name(action.character))
        if isinstance(action, PlayBoo):
            return tr(
                "Play Boo: swap {first} and {second}", first=char_name(action.first), second=char_name(action.second)
            )
        if isinstance(action, PlayMegaPow):
            return tr("Play Mega POW on level {level}", level=action.level)
        if isinstance(action, PlayGoldenMushroom):
            return tr("Play Golden Mushroom: take another turn")
        if isinstance(action, EndTurn):
            return tr("End your turn")
        if isinstance(action, Pass):
            return tr("Pass")
        if isinstance(action, CastVote):
            return tr("Vote {vote}", vote=VOTE_NAMES[action.choice])
        if isinstance(action, PlayOneUp):
            return tr("Play 1-Up Mushroom: cancel the vote of {target}", target=_p(action.target))
        return str(action)


_GAME_OVER = tr("Game over")


def _where(state: LevelUpState) -> list[int]:
    where = [-1] * len(data.CHARACTERS)
    for i, level in enumerate(state.levels):
        for c in level:
            where[c] = i
    return where


def _can_climb(state: LevelUpState, where: list[int], c: int) -> bool:
    index = where[c]
    if index < 0 or index >= TOP:
        return False
    nxt = index + 1
    if nxt == TOP:
        return not state.levels[TOP]
    return len(state.levels[nxt]) < data.LEVEL_CAPACITY


def _playable_block(state: LevelUpState, seat: int, kind: BlockKind) -> bool:
    return any(BLOCKS[b] == kind and b not in state.fresh_blocks for b in state.held_blocks[seat])


ENGINE = LevelUpEngine()

if TYPE_CHECKING:  # mypy checks the game against the engine Protocol and the optional hooks it has
    _engine: Engine[LevelUpState, Action] = ENGINE
    _private: PrivateViews[LevelUpState] = ENGINE
