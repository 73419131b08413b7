"""Plays whole games in-process between bots, with no server: for `toadstool selfplay`, the conformance
tests, golden playthroughs and the engine benchmarks.

Not for anything networked: the table layer drives bots on a live server.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toadstool.bots import Budget, RandomBot, make_bot, parse_level
from toadstool.engine import BadOptions, Bot, Engine, Outcome, creation_record, parse_options
from toadstool.games import get_game


class PlayoutTooLong(RuntimeError):
    """A playout exceeded its step budget: an engine that never ends is a bug."""


@dataclass
class Playout:
    """One finished game: how it ended and how long it took."""

    outcome: Outcome
    actions: int
    seconds: float
    log: list[tuple[int, Any]] = field(default_factory=list)


Observer = Callable[[Any, int | None, Any], None]


def play(
    engine: Engine[Any, Any],
    bots: Sequence[Bot],
    seed: int,
    options: Mapping[str, Any] | None = None,
    max_actions: int = 200_000,
    observe: Observer | None = None,
) -> Playout:
    """Play one game to its end with one bot per seat.

    Each step first offers optional windows (seats not waited for but holding legal actions) to their
    bots in seat order, then lets the first waited-for seat act. `observe(state, seat, action)` is called
    with the initial state (seat and action None) and after every applied action.
    """
    players = len(bots)
    parsed = parse_options(engine.options, {}) if options is None else dict(options)
    state = engine.new(players, parsed, seed)
    rng = random.Random(seed * 7919 + 17)
    log: list[tuple[int, Any]] = []
    started = time.perf_counter()
    if observe is not None:
        observe(state, None, None)
    while engine.outcome(state) is None:
        if len(log) >= max_actions:
            raise PlayoutTooLong(f"{engine.name}: no end after {max_actions} actions (seed {seed})")
        waiting = engine.to_act(state)
        if not waiting:
            raise RuntimeError(f"{engine.name}: game not over but no seat to act (seed {seed})")
        chosen: tuple[int, Any] | None = None
        for seat in range(players):
            if seat in waiting:
                continue
            legal = engine.legal_actions(state, seat)
            if legal:
                bot = bots[seat]
                view = engine.view(state, seat) if bot.needs_view else None
                action = bot.choose(view, legal, False, rng)
                if action is not None:
                    chosen = (seat, action)
                    break
        if chosen is None:
            seat = waiting[0]
            legal = engine.legal_actions(state, seat)
            bot = bots[seat]
            view = engine.view(state, seat) if bot.needs_view else None
            action = bot.choose(view, legal, True, rng)
            if action is None:
                raise RuntimeError(f"{type(bot).__name__} returned no action when it had to act")
            chosen = (seat, action)
        state = engine.apply(state, chosen[0], chosen[1])
        log.append(chosen)
        if observe is not None:
            observe(state, chosen[0], chosen[1])
    outcome = engine.outcome(state)
    assert outcome is not None
    return Playout(outcome=outcome, actions=len(log), seconds=time.perf_counter() - started, log=log)


def selfplay_summary(
    game: str,
    games: int,
    seed: int,
    players: int | None = None,
    smart_seats: Sequence[int] = (),
    options: Mapping[str, str] | None = None,
    levels: Sequence[str] = (),
    budget: Budget | None = None,
) -> dict[str, Any]:
    """Play `games` bot games of `game` and summarise them (the JSON that `toadstool selfplay` prints).

    `options` are the raw `--option` values, checked and made into a creation record as a table's are (so
    a user's Kart track is raced on; BadOptions says what is wrong). With `levels` (one per seat: easy,
    normal, hard) each seat plays a bot of that level (the hard ones within `budget`); without, seats in
    `smart_seats` get the game's sensible bot and the others play randomly. Wins are counted per seat (a
    shared win counts for each sharer).
    """
    spec = get_game(game)
    engine = spec.engine
    record = creation_record(engine, parse_options(engine.options, options or {}))
    try:
        chosen = [parse_level(level) for level in levels]
    except ValueError as error:
        raise BadOptions(str(error)) from None
    n = players or (len(chosen) if chosen else engine.min_players)
    if not engine.min_players <= n <= engine.max_players:
        raise BadOptions(f"{engine.title} takes {engine.min_players} to {engine.max_players} players, not {n}")
    if chosen and len(chosen) != n:
        raise BadOptions(f"give one bot level per seat: {len(chosen)} levels for {n} players")
    wins = [0] * n
    turns = 0
    started = time.perf_counter()
    for index in range(games):
        bots: list[Bot] = (
            [make_bot(game, level, budget) for level in chosen]
            if chosen
            else [spec.smart_bot() if s in smart_seats else RandomBot() for s in range(n)]
        )
        result = play(engine, bots, seed + index, record)
        turns += result.actions
        for winner in result.outcome.winners:
            wins[winner] += 1
    seconds = time.perf_counter() - started
    return {
        "game": game,
        "players": n,
        "games": games,
        "seed": seed,
        "options": {name: value for name, value in record.items() if isinstance(value, str | int | bool)},
        "smart_seats": list(smart_seats),
        "levels": [level.label for level in chosen],
        "wins_by_seat": wins,
        "actions": turns,
        "actions_per_game": turns / games if games else 0.0,
        "seconds": round(seconds, 4),
        "games_per_second": round(games / seconds, 2) if seconds > 0 else None,
    }
