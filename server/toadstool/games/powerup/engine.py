"""The rules of the Super Mario Bros. Power Up Card Game (docs/rules/powerup.md) as a pure engine.

This module is for play: setup, the round (deal, keep or trade, reveal, modify, score), elimination and
the end, what each seat may do now, and what each viewer may know. It is not for card data (data.py), the
wire shapes (views.py) or strategy (bot.py).

The state is an immutable value; `apply` copies it into a small mutable builder (a working copy, see
toadstool.games.working_copy), resolves the action and everything automatic after it, and freezes the result.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from toadstool.engine import N_, Engine, Event, OptionSpec, Outcome, PrivateViews
from toadstool.engine import seat_ref as _p
from toadstool.games.powerup import data
from toadstool.games.powerup.data import CARD_TYPE, IS_CASTLE, LEVEL_VALUE, QUESTION_CARD_KIND, CardKind, Target, Timing
from toadstool.games.powerup.views import (
    AcceptSwap,
    Decision,
    DrawNewLevel,
    Keep,
    Pass,
    PlayCard,
    PowerUpCard,
    PowerUpLevelCard,
    PowerUpPeek,
    PowerUpPendingSwap,
    PowerUpPrivateView,
    PowerUpSeat,
    PowerUpView,
    Stage,
    SwapKind,
    Trade,
)
from toadstool.games.working_copy import WorkingCopy
from toadstool.i18n import Text, both, full_stop, joined, tr, trn

Action = Keep | Trade | DrawNewLevel | PlayCard | AcceptSwap | Pass

_PLAYING = (Stage.KEEP_OR_TRADE, Stage.ANSWER, Stage.MODIFY)
_ANY_TIME_KINDS = tuple(t.kind for t in data.QUESTION_CARD_TYPES if t.timing is Timing.ANY_TIME)
_MODIFY_KINDS = tuple(t.kind for t in data.QUESTION_CARD_TYPES if t.timing is Timing.MODIFY)


@dataclass(frozen=True, slots=True)
class Pending:
    """A trade or Warp Pipe waiting for its target's answer."""

    actor: int
    target: int
    kind: SwapKind


@dataclass(frozen=True, slots=True)
class PowerUpState:
    """The whole game: a value. Seats are 0..players-1; card ids index data.LEVEL_CARDS / QUESTION_CARD_KIND."""

    players: int
    rng_state: int
    round_no: int
    dealer: int
    tokens: tuple[int, ...]
    supply: int
    alive: tuple[bool, ...]  # still in the game
    in_round: tuple[bool, ...]  # dealt in this round
    level: tuple[int, ...]  # Level card id per seat, -1 for none
    face_up: tuple[bool, ...]
    knows: tuple[tuple[int, ...], ...]  # knows[v][s]: the card v knows s holds, -1 when v does not know
    modifier: tuple[int, ...]  # id of the most recent modifier ? card on each seat's Level, -1 for none
    hands: tuple[tuple[int, ...], ...]
    level_deck: tuple[int, ...]  # the top card is the last
    level_discard: tuple[int, ...]
    q_deck: tuple[int, ...]
    q_discard: tuple[int, ...]
    q_table: tuple[int, ...]  # ? cards played this round (to the discard pile at the round's end)
    stage: Stage
    turn: int  # the deciding seat (keep or trade) or the seat whose modify turn it is; -1 when over
    decided: tuple[Decision, ...]  # how each seat made its keep-or-trade decision (UNDECIDED: not yet)
    pending: Pending | None
    passes: int
    peeks: tuple[tuple[int, int, int], ...]  # (viewer, seat, card id) Boo showed this round
    started: tuple[int, ...]  # seats that held a token when this round started
    winners: tuple[int, ...]
    events: tuple[Event, ...]
    # The round in which each seat lost its last Extra Life, 0 while it is in the game (the end screen's
    # account); empty in a determinized state, which does not need it.
    out_in_round: tuple[int, ...] = ()


#: The ? cards' names, each a `Text` said in its reader's language (docs/glossary.md).
_CARD_NAMES: dict[CardKind, Text] = {
    CardKind.SUPER_STAR: tr("Super Star"),
    CardKind.KOOPA_TROOPA: tr("Koopa Troopa"),
    CardKind.BOWSER: tr("Bowser"),
    CardKind.FIRE_FLOWER: tr("Fire Flower"),
    CardKind.SUPER_MUSHROOM: tr("Super Mushroom"),
    CardKind.GOOMBA: tr("Goomba"),
    CardKind.GREEN_SHELL: tr("Green Shell"),
    CardKind.RED_SHELL: tr("Red Shell"),
    CardKind.HAMMER_BROS: tr("Hammer Bros."),
    CardKind.BOO: tr("Boo"),
    CardKind.WARP_PIPE: tr("Warp Pipe"),
    CardKind.VINE: tr("Vine"),
    CardKind.ONE_UP_MUSHROOM: tr("1-Up Mushroom"),
    CardKind.BULLET_BILL: tr("Bullet Bill"),
}


def _card_name(card: int) -> Text:
    return _CARD_NAMES[CardKind(QUESTION_CARD_KIND[card])]


def _level_name(card: int) -> Text:
    if IS_CASTLE[card]:
        return _A_CASTLE
    value = LEVEL_VALUE[card]
    return tr("an {value}", value=value) if value in (8, 11) else tr("a {value}", value=value)


_A_CASTLE = tr("a Castle")


def _level_value(card: int, modifier: int) -> int:
    """A Level's value: its printed value with its most recent modifier (Bowser sets it to 0)."""
    if modifier < 0:
        return LEVEL_VALUE[card]
    kind = CARD_TYPE[QUESTION_CARD_KIND[modifier]]
    if kind.set_value is not None:
        return kind.set_value
    return LEVEL_VALUE[card] + (kind.delta or 0)


class _Builder(WorkingCopy[PowerUpState]):
    """A mutable copy of a state for one `apply` (or the setup): the fields `apply` changes, typed as it
    holds them (toadstool.games.working_copy copies and freezes them)."""

    players: int
    round_no: int
    dealer: int
    tokens: list[int]
    supply: int
    alive: list[bool]
    in_round: list[bool]
    level: list[int]
    face_up: list[bool]
    knows: list[list[int]]
    modifier: list[int]
    hands: list[list[int]]
    level_deck: list[int]
    level_discard: list[int]
    q_deck: list[int]
    q_discard: list[int]
    q_table: list[int]
    stage: Stage
    turn: int
    decided: list[Decision]
    pending: Pending | None
    passes: int
    peeks: list[tuple[int, int, int]]
    started: tuple[int, ...]
    winners: tuple[int, ...]
    out_in_round: list[int]

    def __init__(self, state: PowerUpState) -> None:
        super().__init__(state)
        if not self.out_in_round:  # a determinized state leaves it empty
            self.out_in_round = [0] * self.players

    # Helpers -----------------------------------------------------------------------------------------

    def say(
        self, text: Text, seat: int | None = None, private: Sequence[tuple[int, Text]] = (), result: bool = False
    ) -> None:
        """An event; `result` marks a line of the round's scoring (Event.round_result)."""
        self.events.append(Event(text=text, seat=seat, private=tuple(private), round_result=result))

    def next_in_round(self, seat: int) -> int:
        for step in range(1, self.players + 1):
            other = (seat + step) % self.players
            if self.in_round[other]:
                return other
        return seat

    def round_order(self) -> list[int]:
        """Seats in the round from the dealer's left, the dealer last."""
        return [
            (self.dealer + step) % self.players
            for step in range(1, self.players + 1)
            if self.in_round[(self.dealer + step) % self.players]
        ]

    def castle(self, seat: int) -> bool:
        card = self.level[seat]
        return card >= 0 and IS_CASTLE[card]

    def draw_level(self) -> int:
        if not self.level_deck:
            self.level_deck = self.level_discard
            self.level_discard = []
            self.rng.shuffle(self.level_deck)
            self.say(tr("The Level deck ran out: its discard pile is shuffled into a new deck."))
        return self.level_deck.pop()

    def draw_question(self, seat: int) -> None:
        if not self.q_deck:
            if not self.q_discard:
                self.say(tr("{p} would draw a ? card, but none is left.", p=_p(seat)), seat)
                return
            self.q_deck = self.q_discard
            self.q_discard = []
            self.rng.shuffle(self.q_deck)
            self.say(tr("The ? deck ran out: its discard pile is shuffled into a new deck."))
        card = self.q_deck.pop()
        self.hands[seat].append(card)
        self.say(
            tr("{p} draws a ? card.", p=_p(seat)),
            seat,
            [(seat, full_stop(tr("You draw {card}", card=_card_name(card))))],
        )

    def take_card(self, seat: int, kind: CardKind) -> int:
        hand = self.hands[seat]
        for i, card in enumerate(hand):
            if QUESTION_CARD_KIND[card] == kind:
                del hand[i]
                return card
        raise ValueError(f"seat {seat} holds no {kind.name}")

    def lose_token(self, seat: int) -> bool:
        if self.tokens[seat] <= 0 or self.castle(seat):
            return False
        self.tokens[seat] -= 1
        self.supply += 1
        return True

    def value(self, seat: int) -> int:
        return _level_value(self.level[seat], self.modifier[seat])

    # The round -----------------------------------------------------------------------------------------

    def start_round(self) -> None:
        self.round_no += 1
        self.in_round = [self.alive[s] and self.tokens[s] > 0 for s in range(self.players)]
        self.started = tuple(s for s in range(self.players) if self.in_round[s])
        self.level = [-1] * self.players
        self.face_up = [False] * self.players
        self.knows = [[-1] * self.players for _ in range(self.players)]
        self.modifier = [-1] * self.players
        self.decided = [Decision.UNDECIDED] * self.players
        self.pending = None
        self.passes = 0
        self.peeks = []
        order = self.round_order()
        for seat in order:
            card = self.draw_level()
            self.level[seat] = card
            self.knows[seat][seat] = card
        self.say(
            tr("Round {round}: {p} deals a Level card to each player.", round=self.round_no, p=_p(self.dealer)),
            self.dealer,
            [
                (s, tr("Round {round}: you are dealt {level}.", round=self.round_no, level=_level_name(self.level[s])))
                for s in order
            ],
        )
        for seat in order:
            if self.castle(seat):
                self.reveal_castle(seat)
        self.stage = Stage.KEEP_OR_TRADE
        self.turn = order[0]
        self.begin_decision()

    def reveal_castle(self, seat: int) -> None:
        self.face_up[seat] = True
        self.say(tr("{p} reveals a Castle: immune this round.", p=_p(seat)), seat)
        self.draw_question(seat)

    def begin_decision(self) -> None:
        seat = self.turn
        if seat == self.dealer and not self.face_up[seat]:
            self.face_up[seat] = True
            self.say(tr("{p} (the dealer) reveals {level}.", p=_p(seat), level=_level_name(self.level[seat])), seat)

    def end_decision(self, seat: int, how: Decision) -> None:
        self.decided[seat] = how
        self.pending = None
        self.stage = Stage.KEEP_OR_TRADE
        if seat == self.dealer:
            self.reveal_all()
        else:
            self.turn = self.next_in_round(seat)
            self.begin_decision()

    def reveal_all(self) -> None:
        order = self.round_order()
        for seat in order:
            self.face_up[seat] = True
        shown = joined(
            [tr("{p} Castle", p=_p(s)) if self.castle(s) else f"{_p(s)} {LEVEL_VALUE[self.level[s]]}" for s in order]
        )
        self.say(tr("All Level cards are revealed: {shown}.", shown=shown))
        counts: dict[int, int] = {}
        for seat in order:
            if not self.castle(seat):
                counts[LEVEL_VALUE[self.level[seat]]] = counts.get(LEVEL_VALUE[self.level[seat]], 0) + 1
        for seat in order:
            if not self.castle(seat) and counts[LEVEL_VALUE[self.level[seat]]] > 1:
                self.say(tr("{p}'s Level matches another player's.", p=_p(seat)), seat)
                self.draw_question(seat)
        self.stage = Stage.MODIFY
        self.turn = order[0]
        self.passes = 0

    def end_modify_turn(self, played: bool) -> None:
        if played:
            self.passes = 0
        else:
            self.passes += 1
            if self.passes >= sum(self.in_round):
                self.score()
                return
        self.turn = self.next_in_round(self.turn)

    def score(self) -> None:
        order = self.round_order()
        contenders = [s for s in order if not self.castle(s)]
        if not contenders:
            self.say(tr("Every player holds a Castle: nobody loses an Extra Life."), result=True)
        else:
            values = {s: self.value(s) for s in contenders}
            lowest = min(values.values())
            losers = [s for s in contenders if values[s] == lowest]
            shown = ", ".join(f"{_p(s)} {values[s]}" for s in contenders)
            self.say(tr("Final Levels: {shown}. Lowest: {lowest}.", shown=shown, lowest=lowest), result=True)
            for seat in losers:
                if self.lose_token(seat):
                    lost = tr("{p} loses an Extra Life ({left} left).", p=_p(seat), left=self.tokens[seat])
                    self.say(lost, seat, result=True)
                else:
                    self.say(
                        tr("{p} has the lowest Level but no Extra Life left to lose.", p=_p(seat)), seat, result=True
                    )
        for seat in order:
            if self.tokens[seat] == 0:
                self.alive[seat] = False
                self.out_in_round[seat] = self.round_no
                self.q_discard.extend(self.hands[seat])
                self.hands[seat] = []
                self.say(tr("{p} has no Extra Lives left and is out.", p=_p(seat)), seat, result=True)
        for seat in order:
            self.level_discard.append(self.level[seat])
        self.q_discard.extend(self.q_table)
        self.q_table = []
        survivors = [s for s in range(self.players) if self.alive[s]]
        if len(survivors) <= 1:
            self.winners = tuple(survivors) if survivors else self.started
            self.stage = Stage.GAME_OVER
            self.turn = -1
            self.pending = None
            if len(self.winners) == 1:
                self.say(tr("Game over: {names} wins.", names=_names(self.winners)), result=True)
            else:
                self.say(tr("Game over: {names} share the win.", names=_names(self.winners)), result=True)
            return
        n = self.players
        self.dealer = next(s for s in ((self.dealer + k) % n for k in range(1, n + 1)) if self.alive[s])
        self.start_round()

    # Actions -----------------------------------------------------------------------------------------

    def swap(self, actor: int, target: int, kind: SwapKind) -> None:
        given, received = self.level[actor], self.level[target]
        self.level[actor], self.level[target] = received, given
        for row in self.knows:
            row[actor], row[target] = row[target], row[actor]
        self.knows[actor][actor] = received
        self.knows[target][target] = given
        if kind is SwapKind.TRADE:
            public = tr("{actor} trades Level cards with {target}.", actor=_p(actor), target=_p(target))
        else:
            public = tr(
                "{actor} plays Warp Pipe and swaps Level cards with {target}.", actor=_p(actor), target=_p(target)
            )
        self.say(
            public,
            actor,
            [
                (
                    actor,
                    tr(
                        "You give {target} {given} and receive {received}.",
                        target=_p(target),
                        given=_level_name(given),
                        received=_level_name(received),
                    ),
                ),
                (
                    target,
                    tr(
                        "{actor} gives you {given} for your {value}.",
                        actor=_p(actor),
                        given=_level_name(given),
                        value=LEVEL_VALUE[received],
                    ),
                ),
            ],
        )

    def aim_swap(self, actor: int, target: int, kind: SwapKind) -> None:
        # The target is asked whenever they hold any ? card (not only a Hammer Bros.), so that waiting for
        # them does not tell the table what they hold; counts are public anyway.
        if self.hands[target]:
            self.pending = Pending(actor, target, kind)
            self.stage = Stage.ANSWER
            if kind is SwapKind.TRADE:
                aimed = tr("{actor} aims a trade at {target}, who may answer.", actor=_p(actor), target=_p(target))
            else:
                aimed = tr("{actor} aims a Warp Pipe at {target}, who may answer.", actor=_p(actor), target=_p(target))
            self.say(aimed, actor)
            return
        self.swap(actor, target, kind)
        self.end_decision(actor, Decision.TRADED if kind is SwapKind.TRADE else Decision.WARP_PIPE)

    def play(self, seat: int, action: PlayCard) -> None:
        kind = action.card
        card = self.take_card(seat, kind)
        self.q_table.append(card)
        name = _CARD_NAMES[kind]
        target = action.target
        if kind == CardKind.BOO:
            assert target is not None
            seen = self.level[target]
            self.knows[seat][target] = seen
            self.peeks.append((seat, target, seen))
            self.say(
                tr("{p} plays Boo and looks at {target}'s Level card.", p=_p(seat), target=_p(target)),
                seat,
                [
                    (
                        seat,
                        tr("Boo shows you {target}'s Level card: {level}.", target=_p(target), level=_level_name(seen)),
                    )
                ],
            )
        elif kind == CardKind.WARP_PIPE:
            assert target is not None
            self.say(tr("{p} plays Warp Pipe on {target}.", p=_p(seat), target=_p(target)), seat)
            self.aim_swap(seat, target, SwapKind.WARP_PIPE)
        elif kind == CardKind.VINE:
            old = self.level[seat]
            self.level_discard.append(old)
            new = self.draw_level()
            self.level[seat] = new
            for row in self.knows:
                row[seat] = -1
            self.knows[seat][seat] = new
            self.say(
                tr(
                    "{p} plays Vine: discards {level} and takes the top Level card.", p=_p(seat), level=_level_name(old)
                ),
                seat,
                [
                    (
                        seat,
                        tr(
                            "You play Vine: you discard {old} and take {new}.",
                            old=_level_name(old),
                            new=_level_name(new),
                        ),
                    )
                ],
            )
            if IS_CASTLE[new]:
                self.reveal_castle(seat)
            self.end_decision(seat, Decision.VINE)
        elif kind == CardKind.HAMMER_BROS:
            pending = self.pending
            assert pending is not None
            if pending.kind is SwapKind.TRADE:
                message = N_("{p} answers with Hammer Bros.: {actor}'s trade is cancelled.")
            else:
                message = N_("{p} answers with Hammer Bros.: {actor}'s Warp Pipe is cancelled.")
            self.say(tr(message, p=_p(seat), actor=_p(pending.actor)), seat)
            self.end_decision(pending.actor, Decision.BLOCKED)
        elif kind == CardKind.GREEN_SHELL:
            assert target is not None
            hand = self.hands[target]
            lost = hand.pop(self.rng.randrange(len(hand)))
            self.q_discard.append(lost)
            self.say(
                tr(
                    "{p} plays Green Shell: {target} discards {card} at random.",
                    p=_p(seat),
                    target=_p(target),
                    card=_card_name(lost),
                ),
                seat,
            )
        elif kind == CardKind.RED_SHELL:
            assert target is not None
            hand = self.hands[target]
            taken = hand.pop(self.rng.randrange(len(hand)))
            self.hands[seat].append(taken)
            self.say(
                tr("{p} plays Red Shell and takes a ? card at random from {target}.", p=_p(seat), target=_p(target)),
                seat,
                [
                    (
                        seat,
                        tr(
                            "You play Red Shell and take {card} from {target}.",
                            card=_card_name(taken),
                            target=_p(target),
                        ),
                    ),
                    (
                        target,
                        full_stop(tr("{p} plays Red Shell and takes your {card}", p=_p(seat), card=_card_name(taken))),
                    ),
                ],
            )
        elif kind == CardKind.ONE_UP_MUSHROOM:
            if self.supply > 0:
                self.supply -= 1
                self.tokens[seat] += 1
                self.say(
                    tr(
                        "{p} plays 1-Up Mushroom and takes an Extra Life ({lives}).",
                        p=_p(seat),
                        lives=self.tokens[seat],
                    ),
                    seat,
                )
            else:
                self.say(tr("{p} plays 1-Up Mushroom, but the supply is empty.", p=_p(seat)), seat)
        elif kind == CardKind.BULLET_BILL:
            assert target is not None
            self.lose_token(target)
            if self.tokens[target] == 0:
                message = N_(
                    "{p} plays Bullet Bill: {target} loses an Extra Life ({left} left) and stays in this round."
                )
            else:
                message = N_("{p} plays Bullet Bill: {target} loses an Extra Life ({left} left).")
            self.say(tr(message, p=_p(seat), target=_p(target), left=self.tokens[target]), seat)
        else:  # a Level modifier
            assert target is not None
            self.modifier[target] = card
            self.say(
                tr(
                    "{p} plays {card} on {target}'s Level: it is now {value}.",
                    p=_p(seat),
                    card=name,
                    target=_p(target),
                    value=self.value(target),
                ),
                seat,
            )
        timing = CARD_TYPE[kind].timing
        if timing is Timing.ANY_TIME and self.stage is Stage.MODIFY:
            self.passes = 0  # restarts the count, ends nobody's turn
        elif kind in _MODIFY_KINDS:
            self.end_modify_turn(played=True)


def _castle(state: PowerUpState, seat: int) -> bool:
    card = state.level[seat]
    return card >= 0 and IS_CASTLE[card]


def _next_in_round(state: PowerUpState, seat: int) -> int:
    n = state.players
    for step in range(1, n + 1):
        other = (seat + step) % n
        if state.in_round[other]:
            return other
    return seat


def _targets(state: PowerUpState, seat: int, target: Target) -> list[int | None]:
    n = state.players
    if target is Target.NONE:
        return [None]
    if target is Target.OWN_LEVEL:
        return [] if _castle(state, seat) else [seat]
    out: list[int | None] = []
    for other in range(n):
        if not state.in_round[other] or _castle(state, other):
            continue
        if other == seat and target is not Target.ANY_LEVEL:
            continue
        if target is Target.OTHER_WITH_CARDS and not state.hands[other]:
            continue
        if target is Target.OTHER_WITH_TOKENS and state.tokens[other] <= 0:
            continue
        if target is Target.OTHER_FACE_DOWN and (state.face_up[other] or state.knows[seat][other] >= 0):
            continue
        out.append(other)
    return out


def _plays(state: PowerUpState, seat: int, kinds: Sequence[CardKind]) -> list[Action]:
    held = {QUESTION_CARD_KIND[c] for c in state.hands[seat]}
    actions: list[Action] = []
    for kind in kinds:
        if kind in held:
            actions.extend(PlayCard(kind, t) for t in _targets(state, seat, CARD_TYPE[kind].target))
    return actions


class PowerUpEngine:
    """The Power Up Card Game behind the generic Engine protocol."""

    name = "powerup"
    title = N_("Super Mario Bros. Power Up Card Game")
    score_label = tr("Extra Lives")
    #: Options for a short game, for tests and demos (see Engine.quick_options).
    quick_options: ClassVar[dict[str, str]] = {}
    min_players = 2
    max_players = 8
    options: tuple[OptionSpec, ...] = ()
    action_types: tuple[type, ...] = (Keep, Trade, DrawNewLevel, PlayCard, AcceptSwap, Pass)
    view_type = PowerUpView
    #: What differs between viewers' views (`private_view`, toadstool.engine.view_split).
    private_view_type = PowerUpPrivateView

    def new(self, players: int, options: Mapping[str, Any], seed: int) -> PowerUpState:
        return new_game(players, seed)

    def to_act(self, state: PowerUpState) -> tuple[int, ...]:
        if state.stage is Stage.ANSWER and state.pending is not None:
            return (state.pending.target,)
        if state.stage in _PLAYING:
            return (state.turn,)
        return ()

    def legal_actions(self, state: PowerUpState, seat: int) -> Sequence[Action]:
        if state.stage not in _PLAYING or not state.in_round[seat]:
            return ()
        actions: list[Action] = []
        if state.stage is Stage.KEEP_OR_TRADE and seat == state.turn:
            castle = _castle(state, seat)
            actions.append(Keep())
            if seat == state.dealer:
                if not castle:
                    actions.append(DrawNewLevel())
            elif not castle:
                left = _next_in_round(state, seat)
                if not _castle(state, left):
                    actions.append(Trade(left))
                actions.extend(_plays(state, seat, (CardKind.WARP_PIPE, CardKind.VINE)))
            actions.extend(_plays(state, seat, (CardKind.BOO,)))
        elif state.stage is Stage.ANSWER and state.pending is not None and seat == state.pending.target:
            actions.append(AcceptSwap())
            actions.extend(_plays(state, seat, (CardKind.HAMMER_BROS,)))
        elif state.stage is Stage.MODIFY and seat == state.turn:
            actions.append(Pass())
            actions.extend(_plays(state, seat, _MODIFY_KINDS))
        if state.hands[seat]:
            actions.extend(_plays(state, seat, _ANY_TIME_KINDS))
        return tuple(actions)

    def apply(self, state: PowerUpState, seat: int, action: Action) -> PowerUpState:
        b = _Builder(state)
        if isinstance(action, Keep):
            b.say(tr("{p} keeps their Level card.", p=_p(seat)), seat)
            b.end_decision(seat, Decision.KEPT)
        elif isinstance(action, Trade):
            b.aim_swap(seat, action.target, SwapKind.TRADE)
        elif isinstance(action, DrawNewLevel):
            old = b.level[seat]
            b.level_discard.append(old)
            new = b.draw_level()
            b.level[seat] = new
            b.face_up[seat] = True
            b.say(
                tr("{p} discards {old} and draws {new}.", p=_p(seat), old=_level_name(old), new=_level_name(new)), seat
            )
            if IS_CASTLE[new]:
                b.reveal_castle(seat)
            b.end_decision(seat, Decision.DREW_NEW)
        elif isinstance(action, AcceptSwap):
            pending = b.pending
            assert pending is not None
            b.swap(pending.actor, pending.target, pending.kind)
            b.end_decision(pending.actor, Decision.TRADED if pending.kind is SwapKind.TRADE else Decision.WARP_PIPE)
        elif isinstance(action, Pass):
            b.say(tr("{p} passes.", p=_p(seat)), seat)
            b.end_modify_turn(played=False)
        else:
            b.play(seat, action)
        return b.freeze()

    def private_view(self, state: PowerUpState, viewer: int | None) -> PowerUpPrivateView:
        """What only `viewer` is shown: its hand, what it peeked at, and the seats with each face-down Level
        card it knows shown."""
        seats = []
        for s in range(state.players):
            card = state.level[s]
            known = card >= 0 and (state.face_up[s] or (viewer is not None and state.knows[viewer][s] == card))
            mod = state.modifier[s]
            value: int | None = None
            if known and not IS_CASTLE[card]:
                value = _level_value(card, mod)
            seats.append(
                PowerUpSeat(
                    seat=s,
                    active=state.alive[s],
                    in_round=state.in_round[s],
                    tokens=state.tokens[s],
                    has_level=card >= 0,
                    face_up=state.face_up[s],
                    level=_level_card(card) if known else None,
                    castle=card >= 0 and state.face_up[s] and IS_CASTLE[card],
                    modifier=_question_card(mod) if mod >= 0 else None,
                    value=value,
                    hand_count=len(state.hands[s]),
                    decided=state.decided[s] != Decision.UNDECIDED,
                    decision=Decision(state.decided[s]),
                )
            )
        peeks = tuple(
            PowerUpPeek(seat=t, card=_level_card(c)) for v, t, c in state.peeks if viewer is not None and v == viewer
        )
        return PowerUpPrivateView(
            you=viewer,
            seats=tuple(seats),
            hand=tuple(_question_card(c) for c in state.hands[viewer]) if viewer is not None else (),
            peeks=peeks,
        )

    def view(self, state: PowerUpState, viewer: int | None) -> PowerUpView:
        own = self.private_view(state, viewer)
        pending = None
        if state.pending is not None:
            pending = PowerUpPendingSwap(state.pending.actor, state.pending.target, state.pending.kind)
        return PowerUpView(
            you=own.you,
            phase=_phase(state),
            scores=state.tokens,
            stage=state.stage,
            round=state.round_no,
            dealer=state.dealer,
            turn=None if state.stage is Stage.GAME_OVER else state.turn,
            pending=pending,
            seats=own.seats,
            hand=own.hand,
            supply=state.supply,
            level_deck_count=len(state.level_deck),
            level_discard_count=len(state.level_discard),
            question_deck_count=len(state.q_deck),
            question_discard_count=len(state.q_discard),
            peeks=own.peeks,
            passes_in_a_row=state.passes,
            played=tuple(_question_card(c) for c in state.q_table),
            winners=state.winners,
        )

    def outcome(self, state: PowerUpState) -> Outcome | None:
        if state.stage is not Stage.GAME_OVER:
            return None
        names = _names(state.winners)
        if len(state.winners) == 1:
            summary = tr("{names} is the last player with Extra Lives", names=names)
        else:
            summary = tr("{names} lost their last Extra Lives together and share the win", names=names)
        out = state.out_in_round
        details = [
            tr("Round {round}: {p} lost their last Extra Life", round=out[seat], p=_p(seat))
            for seat in sorted((s for s in range(state.players) if out and out[s]), key=lambda s: (out[s], s))
        ]
        rounds = state.round_no
        details.append(trn("The game lasted {n} round", "The game lasted {n} rounds", rounds))
        return Outcome(winners=state.winners, scores=state.tokens, summary=summary, details=tuple(details))

    def last_events(self, state: PowerUpState) -> tuple[Event, ...]:
        return state.events

    def describe(self, state: PowerUpState, seat: int, action: Action) -> str:
        if isinstance(action, Keep):
            return tr("Keep your Level card")
        if isinstance(action, Trade):
            return tr("Trade Level cards with {target}", target=_p(action.target))
        if isinstance(action, DrawNewLevel):
            return tr("Discard your Level card and draw a new one")
        if isinstance(action, AcceptSwap):
            pending = state.pending
            if pending is not None and pending.kind is SwapKind.WARP_PIPE:
                return tr("Accept the Warp Pipe")
            return tr("Accept the trade")
        if isinstance(action, Pass):
            return tr("Pass")
        target = action.target
        own, other = _PLAY_LABELS[action.card]
        return tr(own if target == seat else other, target=_p(target) if target is not None else "")


_LEVEL_CARD_VIEWS = tuple(PowerUpLevelCard(c.id, c.value, c.suit, c.castle) for c in data.LEVEL_CARDS)
_QUESTION_CARD_VIEWS = tuple(
    PowerUpCard(i, k, CARD_TYPE[k].name, CARD_TYPE[k].effect, CARD_TYPE[k].timing)
    for i, k in enumerate(QUESTION_CARD_KIND)
)


def _level_card(card: int) -> PowerUpLevelCard:
    return _LEVEL_CARD_VIEWS[card]


def _question_card(card: int) -> PowerUpCard:
    return _QUESTION_CARD_VIEWS[card]


#: Each ? card's label (`describe`), played on the player's own Level and on another's (`{target}`).
_PLAY_LABELS: dict[CardKind, tuple[str, str]] = {
    CardKind.SUPER_STAR: (N_("Play Super Star (+4) on your Level"), N_("Play Super Star (+4) on {target}'s Level")),
    CardKind.KOOPA_TROOPA: (
        N_("Play Koopa Troopa (-2) on your Level"),
        N_("Play Koopa Troopa (-2) on {target}'s Level"),
    ),
    CardKind.BOWSER: (N_("Play Bowser: set your Level to 0"), N_("Play Bowser: set {target}'s Level to 0")),
    CardKind.FIRE_FLOWER: (
        N_("Play Fire Flower (+3) on your Level"),
        N_("Play Fire Flower (+3) on {target}'s Level"),
    ),
    CardKind.SUPER_MUSHROOM: (
        N_("Play Super Mushroom (+1) on your Level"),
        N_("Play Super Mushroom (+1) on {target}'s Level"),
    ),
    CardKind.GOOMBA: (N_("Play Goomba (-1) on your Level"), N_("Play Goomba (-1) on {target}'s Level")),
    CardKind.GREEN_SHELL: (N_("Play Green Shell: {target} discards a ? card at random"),) * 2,
    CardKind.RED_SHELL: (N_("Play Red Shell: take a ? card at random from {target}"),) * 2,
    CardKind.HAMMER_BROS: (N_("Play Hammer Bros.: cancel the swap aimed at you"),) * 2,
    CardKind.BOO: (N_("Play Boo: look at your Level card"), N_("Play Boo: look at {target}'s Level card")),
    CardKind.WARP_PIPE: (N_("Play Warp Pipe: swap Level cards with {target}"),) * 2,
    CardKind.VINE: (N_("Play Vine: discard your Level card and take the top of the Level deck"),) * 2,
    CardKind.ONE_UP_MUSHROOM: (N_("Play 1-Up Mushroom: take an Extra Life from the supply"),) * 2,
    CardKind.BULLET_BILL: (N_("Play Bullet Bill: {target} loses an Extra Life"),) * 2,
}


def _names(seats: Sequence[int]) -> str:
    """Seats named together: "{p0}", "{p0} and {p2}" (in the reader's language)."""
    return _p(seats[0]) if len(seats) == 1 else both(*(_p(s) for s in seats))


def _phase(state: PowerUpState) -> str:
    if state.stage is Stage.GAME_OVER:
        if len(state.winners) == 1:
            return tr("{names} wins", names=_names(state.winners))
        return tr("{names} share the win", names=_names(state.winners))
    if state.stage is Stage.ANSWER and state.pending is not None:
        who = {"target": _p(state.pending.target), "actor": _p(state.pending.actor)}
        if state.pending.kind is SwapKind.WARP_PIPE:  # as its buttons say
            return tr("{target} to answer {actor}'s Warp Pipe", **who)
        return tr("{target} to answer {actor}'s trade", **who)
    if state.stage is Stage.KEEP_OR_TRADE:
        if state.turn == state.dealer:
            return tr("{p} (dealer) to keep or draw", p=_p(state.turn))
        return tr("{p} to keep or trade", p=_p(state.turn))
    return tr("{p} to play a ? card or pass", p=_p(state.turn))


def new_game(
    players: int,
    seed: int,
    level_deck: Sequence[int] | None = None,
    question_deck: Sequence[int] | None = None,
    dealer: int = 0,
) -> PowerUpState:
    """Set up a game and deal its first round.

    `level_deck` and `question_deck`, when given, list card ids from the top of the deck down (for scenario
    tests: the setup ? cards go to seats 0, 1, ... first, then the deal starts at the dealer's left); cards
    not listed follow in shuffled order.
    """
    rng = random.Random(seed)

    def deck(size: int, top: Sequence[int] | None) -> list[int]:
        rest = list(range(size))
        rng.shuffle(rest)
        if top:
            chosen = set(top)
            rest = [c for c in rest if c not in chosen]
            rest.extend(reversed(top))
        return rest

    levels = deck(data.LEVEL_DECK_SIZE, level_deck)
    questions = deck(data.QUESTION_DECK_SIZE, question_deck)
    hands = tuple(tuple(questions.pop() for _ in range(data.STARTING_QUESTION_CARDS)) for _ in range(players))
    state = PowerUpState(
        players=players,
        rng_state=rng.getrandbits(64),
        round_no=0,
        dealer=dealer,
        tokens=(data.STARTING_TOKENS,) * players,
        supply=data.TOTAL_TOKENS - data.STARTING_TOKENS * players,
        alive=(True,) * players,
        in_round=(False,) * players,
        level=(-1,) * players,
        face_up=(False,) * players,
        knows=((-1,) * players,) * players,
        modifier=(-1,) * players,
        hands=hands,
        level_deck=tuple(levels),
        level_discard=(),
        q_deck=tuple(questions),
        q_discard=(),
        q_table=(),
        stage=Stage.KEEP_OR_TRADE,
        turn=0,
        decided=(Decision.UNDECIDED,) * players,
        pending=None,
        passes=0,
        peeks=(),
        started=(),
        winners=(),
        events=(),
    )
    b = _Builder(state)
    counts = {"players": players, "lives": data.STARTING_TOKENS, "cards": data.STARTING_QUESTION_CARDS}
    b.say(
        tr("{players} players take {lives} Extra Lives and {cards} ? card each.", **counts),
        private=[
            (
                s,
                full_stop(
                    tr(
                        "{players} players take {lives} Extra Lives and {cards} ? card each. Yours: {hand}",
                        hand=joined([_card_name(c) for c in hands[s]]),
                        **counts,
                    )
                ),
            )
            for s in range(players)
        ],
    )
    b.start_round()
    return b.freeze()


ENGINE = PowerUpEngine()

if TYPE_CHECKING:  # mypy checks the game against the engine Protocol and the optional hooks it has
    _engine: Engine[PowerUpState, Action] = ENGINE
    _private: PrivateViews[PowerUpState] = ENGINE
