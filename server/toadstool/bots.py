"""Bots that work for every registered game, at the three levels a host can choose (easy, normal, hard).

A bot sees only its seat's view and legal actions (never the state), so bots cannot cheat. Each game's
sensible bot (its `BOT`, the normal level) lives in its own package, as does its determinizer (`DETERMINIZER`,
which samples a full state consistent with one seat's view) that the hard bot plans with. The generic parts
are here: the random baseline, the easy bot (the normal bot with a beginner's mistakes) and the hard bot
(information-set Monte Carlo search over the game's engine within a per-move budget).
"""

from __future__ import annotations

import enum
import importlib
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from toadstool.engine import Bot, Engine

if TYPE_CHECKING:
    from toadstool.games import GameSpec


class RandomBot:
    """Picks uniformly among legal actions; lets optional windows pass most of the time.

    It is the baseline every sensible bot is measured against, and the player of conformance playouts.
    """

    needs_view = False

    def __init__(self, optional_rate: float = 0.25) -> None:
        self.optional_rate = optional_rate

    def choose(self, view: Any, legal: Sequence[Any], must_act: bool, rng: random.Random) -> Any | None:
        if not legal:
            return None
        if not must_act and rng.random() >= self.optional_rate:
            return None
        return legal[rng.randrange(len(legal))]


class BotLevel(enum.IntEnum):
    """How strong a bot plays; the values are the BotLevel numbers of service.proto (0 there means normal)."""

    EASY = 1
    NORMAL = 2
    HARD = 3

    @property
    def label(self) -> str:
        return self.name.lower()


def parse_level(text: str) -> BotLevel:
    """The level named `text` ("easy", "normal", "hard"); ValueError naming the levels otherwise."""
    try:
        return BotLevel[text.strip().upper()]
    except KeyError:
        raise ValueError(f"unknown bot level {text!r}; the levels are easy, normal, hard") from None


class EasyBot:
    """The normal bot with a beginner's mistakes: now and then a random legal move instead of its choice,
    and it takes optional windows (calling UNO, catching a player) only some of the time.

    It plays every legal move the normal bot could and nothing else, so it is as legal as the normal bot;
    the mistakes make it clearly weaker (bench/bots.py measures how much).
    """

    needs_view = True

    def __init__(self, normal: Bot, mistake_rate: float = 0.4, optional_rate: float = 0.5) -> None:
        self.normal = normal
        self.mistake_rate = mistake_rate
        self.optional_rate = optional_rate

    def choose(self, view: Any, legal: Sequence[Any], must_act: bool, rng: random.Random) -> Any | None:
        if not legal:
            return None
        if not must_act:
            if rng.random() >= self.optional_rate:
                return None
            return self.normal.choose(view, legal, False, rng)
        if len(legal) > 1 and rng.random() < self.mistake_rate:
            return legal[rng.randrange(len(legal))]
        return self.normal.choose(view, legal, True, rng)


class Determinizer(Protocol):
    """One game's sampler of hidden information: a full engine state that `view` (of the seat `view.you`)
    could be a view of, with everything that seat cannot see (others' cards and objectives, the decks'
    order, the dice) drawn from `rng`. It reads the view and the game's public card lists, never a state."""

    def sample(self, view: Any, rng: random.Random) -> Any: ...

    def standing(self, state: Any, seat: int) -> float:
        """How well `seat` stands in a sampled state where a rollout stopped (higher is better): compared
        between seats, so only its order matters."""
        ...

    def stop(self, start: Any, state: Any) -> bool:
        """Whether a rollout from `start` may stop at `state` (the hand, round or lap it was in is over)."""
        ...


#: The hard bot's default budget per decision (the issue asks 150 ms on a 2-core machine).
DEFAULT_BUDGET_MS = 150.0


@dataclass
class Budget:
    """How long the hard bot may think about one decision: `ms` on `clock` (seconds), and/or at most
    `iterations` searches. Tests pass an iteration count or a clock they control, never wall time.

    The clock is the thinking thread's own CPU time: on a loaded machine (or beside other tables' work in
    the same process) the bot still thinks as much, so it is as strong, and a move's wait is the bot's
    delay plus its budget times the load."""

    ms: float | None = DEFAULT_BUDGET_MS
    iterations: int | None = None
    clock: Callable[[], float] = time.thread_time

    def deadline(self) -> float | None:
        return None if self.ms is None else self.clock() + self.ms / 1000.0

    def over(self, deadline: float | None, done: int) -> bool:
        if self.iterations is not None and done >= self.iterations:
            return True
        return deadline is not None and self.clock() >= deadline


#: The UCB1 exploration constant of the search (values are win shares in [0, 1]).
EXPLORATION = 0.7


class HardBot:
    """Plans each decision by information-set Monte Carlo search over the game's own engine.

    Each iteration samples a state consistent with the bot's view only (the game's determinizer), chooses
    one of its legal actions by UCB1 over the statistics of all iterations (so it plans for the
    information set, not for one guessed deal), applies it, plays the rest of the hand/round with the
    normal bot's rules of thumb and scores where the bot then stands against the others. It returns the
    action searched most. Optional windows (calling UNO, catching) and forced moves go to the normal bot.

    `last_iterations` says how many iterations the last decision used (tests assert the budget with it).
    """

    needs_view = True
    #: Its decisions take its budget: the server runs them off the event loop (autoplay.run_bots).
    plans = True

    def __init__(
        self,
        engine: Engine[Any, Any],
        determinizer: Determinizer,
        normal: Bot,
        budget: Budget | None = None,
        rollout_limit: int = 400,
        greedy_rollouts: float = 0.8,
    ) -> None:
        self.engine = engine
        self.determinizer = determinizer
        self.normal = normal
        self.budget = budget or Budget()
        self.rollout_limit = rollout_limit
        self.greedy_rollouts = greedy_rollouts
        self.last_iterations = 0

    def choose(self, view: Any, legal: Sequence[Any], must_act: bool, rng: random.Random) -> Any | None:
        if not legal:
            return None
        if not must_act or len(legal) == 1:
            self.last_iterations = 0
            return self.normal.choose(view, legal, must_act, rng)
        seat = view.you
        search = random.Random(rng.getrandbits(64))
        visits = [0] * len(legal)
        wins = [0.0] * len(legal)
        budget = self.budget
        deadline = budget.deadline()
        done = 0
        while not budget.over(deadline, done):
            state = self.determinizer.sample(view, search)
            available = set(self.engine.legal_actions(state, seat))
            choices = [i for i, action in enumerate(legal) if action in available]
            if not choices:
                done += 1
                continue
            index = _ucb(choices, visits, wins, done + 1)
            after = self.engine.apply(state, seat, legal[index])
            wins[index] += self._rollout(state, after, seat, search)
            visits[index] += 1
            done += 1
        self.last_iterations = done
        if not any(visits):
            return self.normal.choose(view, legal, must_act, rng)
        best = max(range(len(legal)), key=lambda i: (visits[i], wins[i]))
        return legal[best]

    def _rollout(self, start: Any, state: Any, seat: int, rng: random.Random) -> float:
        """Play on from `state` until the determinizer says the hand/round is over (or the limit), each seat
        playing the normal bot's choice (or now and then a random one), and score `seat` in [0, 1]."""
        engine = self.engine
        determinizer = self.determinizer
        players = len(engine.view(start, None).scores)
        for _ in range(getattr(determinizer, "horizon", self.rollout_limit)):
            if engine.outcome(state) is not None or determinizer.stop(start, state):
                break
            waiting = engine.to_act(state)
            if not waiting:
                break
            actor = waiting[0]
            legal = engine.legal_actions(state, actor)
            if not legal:
                break
            if len(legal) == 1:
                action = legal[0]
            elif rng.random() < self.greedy_rollouts:
                action = self.normal.choose(engine.view(state, actor), legal, True, rng) or legal[0]
            else:
                action = legal[rng.randrange(len(legal))]
            state = engine.apply(state, actor, action)
        outcome = engine.outcome(state)
        if outcome is not None:
            if seat not in outcome.winners:
                return 0.0
            return 1.0 / len(outcome.winners)
        mine = determinizer.standing(state, seat)
        beaten = 0.0
        for other in range(players):
            if other != seat:
                theirs = determinizer.standing(state, other)
                beaten += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
        return beaten / max(players - 1, 1)


def _ucb(choices: list[int], visits: list[int], wins: list[float], total: int) -> int:
    """The choice to search next: an unvisited one first, else the best by UCB1."""
    for index in choices:
        if visits[index] == 0:
            return index
    log_total = math.log(total)
    return max(choices, key=lambda i: wins[i] / visits[i] + EXPLORATION * math.sqrt(log_total / visits[i]))


def make_bot(game: str, level: BotLevel | str | int | None = None, budget: Budget | None = None) -> Bot:
    """A bot for the registered game `game` at `level` (None or 0: normal); see `level_bot`."""
    from toadstool.games import get_game

    return level_bot(get_game(game), level, budget)


def level_bot(spec: GameSpec, level: BotLevel | str | int | None = None, budget: Budget | None = None) -> Bot:
    """A bot for `spec`'s game at `level`: a BotLevel, its name, its value (0 or None: normal). A game
    without a determinizer gets its normal bot for hard (a plug-in game that has none still plays)."""
    chosen = as_level(level)
    if chosen is BotLevel.NORMAL:
        return spec.smart_bot()
    if chosen is BotLevel.EASY:
        return EasyBot(spec.smart_bot())
    determinizer = determinizer_of(spec)
    if determinizer is None:
        return spec.smart_bot()
    return HardBot(spec.engine, determinizer, spec.smart_bot(), budget)


def as_level(level: BotLevel | str | int | None) -> BotLevel:
    """`level` as a BotLevel (None and 0, protobuf's unspecified, are normal); ValueError for anything else."""
    if level is None or isinstance(level, BotLevel):
        return level or BotLevel.NORMAL
    if isinstance(level, str):
        return parse_level(level)
    if level == 0:
        return BotLevel.NORMAL
    try:
        return BotLevel(level)
    except ValueError:
        raise ValueError(
            f"unknown bot level {level}; the levels are 1 (easy), 2 (normal), 3 (hard), or 0 for normal"
        ) from None


def determinizer_of(spec: GameSpec) -> Determinizer | None:
    """The game's determinizer (`DETERMINIZER` of the module `determinize` beside its engine), or None for a
    game without one."""
    package = type(spec.engine).__module__.rpartition(".")[0]
    try:
        module = importlib.import_module(f"{package}.determinize")
    except ModuleNotFoundError:
        return None
    found: Determinizer | None = getattr(module, "DETERMINIZER", None)
    return found
