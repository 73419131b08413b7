"""Bots that work for every registered game, at the three levels a host can choose (easy, normal, hard).

A bot sees only its seat's view and legal actions (never the state), so bots cannot cheat. Each game's
sensible bot (its `BOT`, the normal level) lives in its own package, as does its determinizer (`DETERMINIZER`,
which samples a full state consistent with one seat's view) that the hard bot plans with. The generic parts
are here: the random baseline, the easy bot (the normal bot with a beginner's mistakes) and the hard bot
(determinized Monte Carlo search over the game's engine within a per-move budget).
"""

from __future__ import annotations

import enum
import importlib
import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from toadstool.engine import N_, Bot, Engine, OptionKind, OptionSpec

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

    def __init__(self, normal: Bot, mistake_rate: float = 0.5, optional_rate: float = 0.5) -> None:
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


#: How often the easy bot plays a random legal move instead of the normal choice, where a game needs more
#: than the default 0.5 for normal to win at least 40% against three easy bots (bench/bots.py, 400 games:
#: at 0.5 Kart 36.0% and Level Up! 36.2%; at 0.8 42.5% and 52.2%). In Kart the dice decide much: the
#: normal bot wins only about half its games even against random seats.
EASY_MISTAKES: dict[str, float] = {"kart": 0.8, "levelup": 0.8}


class Determinizer(Protocol):
    """One game's sampler of hidden information: a full engine state that `view` (of the seat `view.you`)
    could be a view of, with everything that seat cannot see (others' cards and objectives, the decks'
    order, the dice) drawn from `rng`. It reads the view and the game's public card lists, never a state.

    Optional attributes the hard bot reads where present: `scale`, `confidence`, `horizon`, and
    `rollout_view(state, seat)`, a cheaper stand-in for the engine's view with the fields the normal bot
    reads (its rollouts ask for one at every move)."""

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


#: The table option that sets how long a table's hard bots think about a move (every game has it: it is the
#: table's, not the game's, so `engine.new` never sees it). Bounded: below 50 ms the search cannot tell the
#: moves apart, above 1 s a table of four hard bots is slow to watch.
BUDGET_OPTION = OptionSpec(
    "bot_budget_ms",
    OptionKind.INT,
    str(int(DEFAULT_BUDGET_MS)),
    N_("how long a hard bot thinks about a move, in milliseconds"),
    minimum=50,
    maximum=1000,
    label=N_("Bot thinking time (ms)"),
)


def table_options(engine: Engine[Any, Any]) -> tuple[OptionSpec, ...]:
    """The options a table of `engine` takes: the game's own, then the hard bots' budget (BUDGET_OPTION)."""
    return (*engine.options, BUDGET_OPTION)


def game_options(values: Mapping[str, Any]) -> dict[str, Any]:
    """`values` (a table's options, raw or parsed) without the table's own ones: what the game is given."""
    return {name: value for name, value in values.items() if name != BUDGET_OPTION.name}


def table_budget(raw: Mapping[str, str]) -> Budget:
    """The hard bots' budget a table's raw options set (the default without BUDGET_OPTION). The options were
    validated when the table was made; a stored value out of range (a file edited by hand) is clamped."""
    given = raw.get(BUDGET_OPTION.name)
    if given is None:
        return Budget()
    try:
        ms = int(given)
    except ValueError:
        return Budget()
    low, high = BUDGET_OPTION.minimum or 0, BUDGET_OPTION.maximum or ms
    return Budget(ms=float(min(max(ms, low), high)))


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


class HardBot:
    """Plans each decision by determinized Monte Carlo search over the game's own engine: flat
    information-set Monte Carlo over its own legal actions, its budget spread by sequential halving.

    Each iteration samples a state consistent with the bot's view only (the game's determinizer: the
    others' cards and objectives, the decks' order, the dice), then tries each action still in the race on
    that same sample with the same rollout seed (common random numbers: the actions are compared on equal
    luck), plays on with every seat choosing as the normal bot would (`greedy_rollouts`: the share of its
    moves; by default all, so that on one sample two actions differ only by what they did), and stops
    where the determinizer says the hand/round is over or after its `horizon` of actions. A rollout that ends
    the game scores 1 for a win (shared: split) and 0 otherwise; one cut off scores the seat's `standing`
    against each other seat's through a logistic of the difference in the determinizer's `scale` (a lead
    of one scale is worth about 73% against that seat), averaged over the others: a smooth value, so a move
    that gains a little shows even when the seat leads or trails by a lot.

    The budget is spent in rounds (sequential halving, Karnin et al. 2013): every round gives the actions
    still in the race an equal share of samples, then drops the worse half by mean value, the normal bot's
    choice always kept. Averaged over the samples, that is planning for the information set, not for one
    guessed deal (root-parallel determinization as in Cowling, Powley and Whitehouse's ISMCTS). At the end
    it plays the action whose mean beats the normal bot's choice on the same samples by more than
    `confidence` standard errors of the paired difference (and `margin`), else the normal choice: a budget
    too small to tell never makes it worse than normal by chasing noise. Optional windows (calling UNO,
    catching) and decisions with one distinct legal action go to the normal bot without spending the budget.

    An iteration is one rollout; `last_iterations` says how many the last decision used (tests assert the
    budget with it).
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
        greedy_rollouts: float = 1.0,
        margin: float = 0.0,
        confidence: float | None = None,
    ) -> None:
        self.engine = engine
        self.determinizer = determinizer
        self.normal = normal
        self.budget = budget or Budget()
        self.rollout_limit = rollout_limit
        self.greedy_rollouts = greedy_rollouts
        self.margin = margin
        #: How many standard errors an action must beat the normal choice by: the determinizer's `confidence`
        #: where it has one (UNO's normal bot is hard to beat by noise-free margins), else 0.5.
        self.confidence = confidence if confidence is not None else getattr(determinizer, "confidence", 0.5)
        self.last_iterations = 0
        #: The seat's memory of its views (`remember`), made at the first view.
        self._tracker: Any = None

    def remember(self, view: Any) -> Any:
        """Show the seat's memory (the determinizer's `tracker`, where it has one) this view, and return what
        the sampler needs of it (None for a game without one). The memory stays with this object, the seat's
        for the whole game; the hints travel with a decision (server/tables/thinking.py)."""
        if self._tracker is None:
            make = getattr(self.determinizer, "tracker", None)
            if make is None:
                return None
            self._tracker = make()
        self._tracker.see(view)
        return self._tracker.hints()

    def choose(self, view: Any, legal: Sequence[Any], must_act: bool, rng: random.Random) -> Any | None:
        hints = self.remember(view) if view is not None else None
        return self.decide(view, legal, must_act, rng, hints)

    def decide(
        self, view: Any, legal: Sequence[Any], must_act: bool, rng: random.Random, hints: Any = None
    ) -> Any | None:
        """`choose` with the seat's memory given (`remember`'s hints): what a thinking process runs."""
        if not legal:
            return None
        usual = self.normal.choose(view, legal, must_act, rng)
        self.last_iterations = 0
        if not must_act:
            return usual
        actions = list(dict.fromkeys(legal))  # the distinct actions, in the engine's order
        if len(actions) == 1:
            return usual
        usual_index = actions.index(usual) if usual in actions else 0
        seat = view.you
        search = random.Random(rng.getrandbits(64))
        #: Per action, its rollout's value on each sample (None where it was not tried on that sample).
        scores: list[list[float | None]] = [[] for _ in actions]
        racing = list(range(len(actions)))
        budget = self.budget
        start = budget.clock() if budget.ms is not None else 0.0
        rounds = max(1, math.ceil(math.log2(len(actions))))
        sample: Callable[..., Any] = self.determinizer.sample
        done = 0
        for round_no in range(rounds):
            share = (round_no + 1) / rounds
            deadline = None if budget.ms is None else start + share * budget.ms / 1000.0
            cap = None if budget.iterations is None else max(1, round(share * budget.iterations))
            while not _spent(budget, deadline, cap, done):
                state = self.determinizer.sample(view, search) if hints is None else sample(view, search, hints)
                available = set(self.engine.legal_actions(state, seat))
                luck = search.getrandbits(64)
                tried = False
                for index in range(len(actions)):
                    score: float | None = None
                    open_ = index in racing and actions[index] in available
                    if open_ and not (tried and _spent(budget, deadline, cap, done)):
                        after = self.engine.apply(state, seat, actions[index])
                        score = self._rollout(state, after, seat, random.Random(luck))
                        done += 1
                        tried = True
                    scores[index].append(score)
                if not tried:
                    done += 1  # a sample where none of its actions could be tried still spends the budget
            if round_no + 1 < rounds and len(racing) > 2:
                ranked = sorted(racing, key=lambda i: _mean(scores[i]), reverse=True)
                keep = ranked[: math.ceil(len(racing) / 2)]
                if usual_index not in keep:
                    keep.append(usual_index)
                racing = sorted(keep)
        self.last_iterations = done
        best, gain = usual_index, 0.0
        for index in racing:
            if index != usual_index:
                edge = _paired_edge(scores[index], scores[usual_index], self.confidence)
                if edge > gain:
                    best, gain = index, edge
        return actions[best] if gain > self.margin else usual

    def _rollout(self, start: Any, state: Any, seat: int, rng: random.Random) -> float:
        """Play on from `state` until the determinizer says the hand/round is over (or the limit), each seat
        playing the normal bot's choice (or, past `greedy_rollouts`, a random one), and score `seat` in [0, 1]."""
        engine = self.engine
        determinizer = self.determinizer
        players = len(engine.view(start, None).scores)
        #: A cheaper view with what the normal bot reads, where the game has one (same choices, less work).
        view_of = getattr(determinizer, "rollout_view", None) or engine.view
        for _ in range(getattr(determinizer, "horizon", self.rollout_limit)):
            if engine.outcome(state) is not None or determinizer.stop(start, state):
                break
            waiting = engine.to_act(state)
            if not waiting:
                break
            chosen = self._optional(state, waiting, players, rng)
            if chosen is None:
                actor = waiting[0]
                legal = engine.legal_actions(state, actor)
                if not legal:
                    break
                if len(legal) == 1:
                    action = legal[0]
                elif rng.random() < self.greedy_rollouts:
                    action = self.normal.choose(view_of(state, actor), legal, True, rng) or legal[0]
                else:
                    action = legal[rng.randrange(len(legal))]
                chosen = (actor, action)
            state = engine.apply(state, chosen[0], chosen[1])
        outcome = engine.outcome(state)
        if outcome is not None:
            if seat not in outcome.winners:
                return 0.0
            return 1.0 / len(outcome.winners)
        return _value(determinizer, state, seat, players)

    def _optional(self, state: Any, waiting: Sequence[int], players: int, rng: random.Random) -> tuple[int, Any] | None:
        """An optional window a seat not waited for takes (catching a missed UNO call, calling UNO, an
        any-time card), as the normal bot would: without these a rollout would find forgetting UNO free."""
        engine = self.engine
        for other in range(players):
            if other in waiting:
                continue
            legal = engine.legal_actions(state, other)
            if legal:
                action = self.normal.choose(engine.view(state, other), legal, False, rng)
                if action is not None:
                    return other, action
        return None


def _value(determinizer: Determinizer, state: Any, seat: int, players: int) -> float:
    """Where `seat` stands in a rollout cut off before the game's end, in [0, 1]: its `standing` against each
    other seat's through a logistic of the difference in the determinizer's `scale` (a game without one:
    1 ahead, 0.5 level, 0 behind), averaged over the others."""
    scale: float | None = getattr(determinizer, "scale", None)
    mine = determinizer.standing(state, seat)
    total = 0.0
    for other in range(players):
        if other != seat:
            diff = mine - determinizer.standing(state, other)
            if scale:
                total += 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, diff / scale))))
            else:
                total += 1.0 if diff > 0 else 0.5 if diff == 0 else 0.0
    return total / max(players - 1, 1)


def _spent(budget: Budget, deadline: float | None, cap: int | None, done: int) -> bool:
    """Whether a round of the search is over: `cap` rollouts done, or `deadline` passed on the budget's clock."""
    if cap is not None and done >= cap:
        return True
    return deadline is not None and budget.clock() >= deadline


def _mean(values: list[float | None]) -> float:
    tried = [v for v in values if v is not None]
    return sum(tried) / len(tried) if tried else -1.0


def _paired_edge(theirs: list[float | None], ours: list[float | None], confidence: float) -> float:
    """How much better `theirs` scored than `ours` on the samples both were tried on, less `confidence`
    standard errors of that mean difference (<= 0: not clearly better)."""
    diffs = [a - b for a, b in zip(theirs, ours, strict=False) if a is not None and b is not None]
    n = len(diffs)
    if n < 4:
        return 0.0
    mean = sum(diffs) / n
    variance = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean - confidence * math.sqrt(variance / n)


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
        return EasyBot(spec.smart_bot(), EASY_MISTAKES.get(spec.name, 0.5))
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
    if not package:
        return None
    try:
        module = importlib.import_module(f"{package}.determinize")
    except ModuleNotFoundError:
        return None
    found: Determinizer | None = getattr(module, "DETERMINIZER", None)
    return found
