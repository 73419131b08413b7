"""Pig, a tiny dice game that lives only in the tests: the proof that a game is its own module and nothing
else, registered through the `toadstool.games` entry point by the test setup (tests/plugin_games/register.py,
issue #18). It has no message in table.proto, so it travels as GameView.generic, and the clients show it with
their generic screens.

The rules: on your turn, roll the die as often as you like, adding each roll to your turn total; a 1 loses
the turn total and ends your turn; holding banks it. When someone's banked score reaches the target the game
ends, and the highest score plus the secret bonus card each seat was dealt at the start wins (ties share the
win). The bonus card is the one secret: only its holder sees it until the game is over.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from toadstool.engine import BadOptions, DieRoll, Event, OptionKind, OptionSpec, Outcome

#: Where the lobby lists it: after the four games of the package.
ORDER = 100


@dataclass(frozen=True)
class Roll:
    """Roll the die and add it to the turn total (a 1 loses it)."""


@dataclass(frozen=True)
class Hold:
    """Bank the turn total and pass the die."""


@dataclass(frozen=True)
class PigState:
    players: int
    target: int
    scores: tuple[int, ...]
    bonuses: tuple[int, ...]
    turn: int = 0
    turn_total: int = 0
    rng_state: int = 0
    over: bool = False
    events: tuple[Event, ...] = ()


@dataclass(frozen=True)
class PigView:
    phase: str
    scores: tuple[int, ...]
    turn: int
    turn_total: int
    target: int
    #: Each seat's bonus card: only the viewer's own until the game is over (None: face down).
    bonuses: tuple[int | None, ...]


class PigEngine:
    name = "pig"
    title = "Pig (a test game)"
    score_label = "points"
    quick_options: Mapping[str, str] = {"target": "10"}
    min_players = 2
    max_players = 4
    options = (OptionSpec("target", OptionKind.INT, "20", "points that end the game", minimum=5, maximum=100),)
    action_types: tuple[type, ...] = (Roll, Hold)
    view_type = PigView
    #: A hardware roll button rolls for whoever must roll (toadstool.engine.device_action_types).
    device_action_types = (Roll,)

    def new(self, players: int, options: Mapping[str, Any], seed: int) -> PigState:
        if not self.min_players <= players <= self.max_players:
            raise BadOptions(f"Pig is for {self.min_players} to {self.max_players} players, not {players}")
        rng = random.Random(seed)
        bonuses = tuple(rng.randint(1, 3) for _ in range(players))
        return PigState(
            players=players,
            target=int(options.get("target", 20)),
            scores=(0,) * players,
            bonuses=bonuses,
            rng_state=rng.getrandbits(64),
            events=(Event("{p0} rolls first"),),
        )

    def to_act(self, state: PigState) -> tuple[int, ...]:
        return () if state.over else (state.turn,)

    def legal_actions(self, state: PigState, seat: int) -> Sequence[Any]:
        if state.over or seat != state.turn:
            return []
        return [Roll(), Hold()] if state.turn_total else [Roll()]

    def apply(self, state: PigState, seat: int, action: Any) -> PigState:
        rng = random.Random(state.rng_state)
        if isinstance(action, Roll):
            value = rng.randint(1, 6)
            roll = DieRoll(roller=seat, purpose="move", value=value)
            if value == 1:
                return replace(
                    state,
                    turn=(seat + 1) % state.players,
                    turn_total=0,
                    rng_state=rng.getrandbits(64),
                    events=(Event(f"{{p{seat}}} rolled a 1 and lost the turn", seat, roll=roll),),
                )
            return replace(
                state,
                turn_total=state.turn_total + value,
                rng_state=rng.getrandbits(64),
                events=(Event(f"{{p{seat}}} rolled a {value}", seat, roll=roll),),
            )
        banked = state.scores[seat] + state.turn_total
        scores = (*state.scores[:seat], banked, *state.scores[seat + 1 :])
        over = banked >= state.target
        text = f"{{p{seat}}} banked {state.turn_total} ({banked} in all)"
        return replace(
            state,
            scores=scores,
            turn=seat if over else (seat + 1) % state.players,
            turn_total=0,
            over=over,
            events=(Event(text + (", and the game is over" if over else ""), seat),),
        )

    def view(self, state: PigState, viewer: int | None) -> PigView:
        if state.over:
            phase = "game over"
        else:
            phase = f"{{p{state.turn}}} is rolling ({state.turn_total} this turn)"
        bonuses = tuple(b if state.over or seat == viewer else None for seat, b in enumerate(state.bonuses))
        return PigView(phase, state.scores, state.turn, state.turn_total, state.target, bonuses)

    def outcome(self, state: PigState) -> Outcome | None:
        if not state.over:
            return None
        finals = tuple(score + bonus for score, bonus in zip(state.scores, state.bonuses, strict=True))
        best = max(finals)
        winners = tuple(seat for seat, total in enumerate(finals) if total == best)
        return Outcome(winners=winners, scores=finals, summary=f"{best} points with the bonus cards")

    def last_events(self, state: PigState) -> tuple[Event, ...]:
        return state.events

    def describe(self, state: PigState, seat: int, action: Any) -> str:
        return "Roll the die" if isinstance(action, Roll) else f"Hold and bank {state.turn_total}"


class PigBot:
    """Holds at 8 points a turn (or when holding wins)."""

    needs_view = True

    def choose(self, view: Any, legal: Sequence[Any], must_act: bool, rng: random.Random) -> Any | None:
        if not legal:
            return None
        hold = next((a for a in legal if isinstance(a, Hold)), None)
        if hold is not None and (view.turn_total >= 8 or view.scores[view.turn] + view.turn_total >= view.target):
            return hold
        return next(a for a in legal if isinstance(a, Roll))


ENGINE = PigEngine()
BOT = PigBot
