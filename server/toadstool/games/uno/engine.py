"""The UNO Super Mario engine: the rules of docs/rules/uno.md as pure functions over an immutable state.

This module is for the rules: dealing, legality, applying actions (plays, draws, answers, challenges, UNO
calls and catches), scoring and the per-viewer view. It is not for card facts (those are data in `data.py`),
for choosing moves (`bot.py`) or for anything networked.

Performance notes: cards are ints (ids into the tables of `data.py`), hands and piles are tuples, every
action object is built once at import, events are stored as compact records and only turned into text by
`last_events`, and `apply` builds exactly one new state value.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, assert_never

from toadstool.engine import N_, Engine, Event, OptionKind, OptionSpec, Outcome, PrivateViews
from toadstool.i18n import Text, both, joined, tr, trn

from .data import (
    ALL_CARDS,
    CARD_COLOR,
    CARD_KIND,
    CARD_NAMES,
    CARD_NUMBER,
    CARD_POINTS,
    CARD_RANK,
    CAUGHT_BLUFF_PENALTY,
    COLOR_NAMES,
    COLORS,
    DEALER_DRAW_VALUE,
    DRAW_TWO_PENALTY,
    FAILED_CHALLENGE_PENALTY,
    HAND_SIZE,
    PLAYABLE,
    UNO_PENALTY,
    WILD_DRAW_FOUR_PENALTY,
    UnoColor,
    UnoKind,
)

# --------------------------------------------------------------------------------------------------------
# Actions (each dataclass `FooBar` is the oneof member `foo_bar` of the UnoAction message)


@dataclass(frozen=True, slots=True)
class PlayCard:
    """Play `card_id`; `color` is the colour play continues with (the card's own colour unless it is a wild);
    `uno` calls UNO with the play (meaningful when it is the next-to-last card). In an answer window
    (a Draw Two or Wild Draw Four played on you) playing a Super Star is the Super Star answer."""

    card_id: int
    color: UnoColor
    uno: bool = False


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw one card instead of playing (always allowed while the draw pile can give a card)."""


@dataclass(frozen=True, slots=True)
class Keep:
    """Keep the card just drawn; the turn ends."""


@dataclass(frozen=True, slots=True)
class PassTurn:
    """No card can be played and none can be drawn (the draw pile is exhausted): the turn ends."""


@dataclass(frozen=True, slots=True)
class ChooseColor:
    """The first player chooses the colour when a wild card starts the discard pile."""

    color: UnoColor


@dataclass(frozen=True, slots=True)
class AcceptPenalty:
    """Take the pending Draw Two or Wild Draw Four: draw the cards and lose the turn."""


@dataclass(frozen=True, slots=True)
class Challenge:
    """Challenge the Wild Draw Four just played on you (its player shows you their hand)."""


@dataclass(frozen=True, slots=True)
class CallUno:
    """Call UNO after playing your next-to-last card without the UNO flag (before anyone catches you)."""


@dataclass(frozen=True, slots=True)
class Catch:
    """Catch `seat`, who played their next-to-last card without calling UNO: they draw 2."""

    seat: int


# --------------------------------------------------------------------------------------------------------
# View


class UnoDirection(enum.IntEnum):
    UNSPECIFIED = 0
    CLOCKWISE = 1
    COUNTER_CLOCKWISE = 2


class UnoStage(enum.IntEnum):
    """What the seat to act is asked to do."""

    UNSPECIFIED = 0
    PLAY = 1  # play a card or draw
    DRAWN = 2  # play the card just drawn or keep it
    CHOOSE_FIRST_COLOR = 3  # a wild card was flipped first: choose the colour, then play
    ANSWER_DRAW_TWO = 4  # accept the Draw Two or answer with a Super Star
    ANSWER_WILD_DRAW_FOUR = 5  # accept, challenge, or answer with a Super Star
    GAME_OVER = 6


#: The members by number, for the views built for every viewer after every move: calling an Enum class to
#: look a member up runs the enum module's Python each time.
_COLOR_OF: dict[int, UnoColor] = {int(color): color for color in UnoColor}
_STAGE_OF: dict[int, UnoStage] = {int(stage): stage for stage in UnoStage}


@dataclass(frozen=True, slots=True)
class UnoCard:
    """One physical card."""

    id: int
    color: UnoColor
    kind: UnoKind
    number: int | None
    points: int


@dataclass(frozen=True, slots=True)
class UnoReveal:
    """The hand shown to a challenger of a Wild Draw Four (only the challenger's view has it)."""

    attacker: int
    cards: tuple[UnoCard, ...]
    prior_color: UnoColor
    held_prior_color: bool


@dataclass(frozen=True, slots=True)
class UnoPrivateView:
    """The fields of an `UnoView` that differ from one viewer to another (see `UnoEngine.private_view`)."""

    you: int | None
    hand: tuple[UnoCard, ...]
    drawn_card: UnoCard | None
    reveal: UnoReveal | None


@dataclass(frozen=True, slots=True)
class UnoView:
    """Everything one viewer may know about an UNO table."""

    phase: str
    scores: tuple[int, ...]
    you: int | None
    hand: tuple[UnoCard, ...]
    hand_counts: tuple[int, ...]
    top_card: UnoCard | None
    color: UnoColor
    direction: UnoDirection
    current: int
    stage: UnoStage
    draw_pile_count: int
    discard_count: int
    pending_penalty: int
    attacker: int | None
    prior_color: UnoColor
    drawn_card: UnoCard | None
    reveal: UnoReveal | None
    uno_catchable: int | None
    hand_number: int
    dealer: int
    target: int
    lowest_wins: bool
    house_rule: str
    last_hand_winner: int | None
    last_hand_points: int
    winners: tuple[int, ...]


CARD_VIEWS: tuple[UnoCard, ...] = tuple(
    UnoCard(
        id=c,
        color=UnoColor(CARD_COLOR[c]),
        kind=UnoKind(CARD_KIND[c]),
        number=CARD_NUMBER[c],
        points=CARD_POINTS[c],
    )
    for c in ALL_CARDS
)
#: A spectator's private view: no seat, so nothing of its own.
_NOBODYS_VIEW = UnoPrivateView(you=None, hand=(), drawn_card=None, reveal=None)

# --------------------------------------------------------------------------------------------------------
# State

# `UnoState.stage` holds a stage as a plain int (a state is hashed and compared after every move, and an
# Enum member's hash is Python code); these name them, from the one definition above.
PLAY = int(UnoStage.PLAY)
DRAWN = int(UnoStage.DRAWN)
FIRST_COLOR = int(UnoStage.CHOOSE_FIRST_COLOR)
ANSWER_D2 = int(UnoStage.ANSWER_DRAW_TWO)
ANSWER_WD4 = int(UnoStage.ANSWER_WILD_DRAW_FOUR)
OVER = int(UnoStage.GAME_OVER)

_NUMBER = int(UnoKind.NUMBER)
_SKIP = int(UnoKind.SKIP)
_REVERSE = int(UnoKind.REVERSE)
_DRAW_TWO = int(UnoKind.DRAW_TWO)
_WILD_DRAW_FOUR = int(UnoKind.WILD_DRAW_FOUR)
_SUPER_STAR = int(UnoKind.SUPER_STAR)


@dataclass(frozen=True, slots=True)
class UnoConfig:
    """The table's fixed settings (shared by every state of a game)."""

    players: int
    target: int
    lowest_wins: bool
    house_rule: str


@dataclass(frozen=True, slots=True)
class Attack:
    """A pending Draw Two / Wild Draw Four waiting for its target's answer."""

    attacker: int
    penalty: int
    prior_color: int  # the colour active before a Wild Draw Four (0 for a Draw Two)
    held_prior_color: bool  # the attacker's hand held a card of prior_color when playing it
    hand: tuple[int, ...]  # the attacker's hand right after playing it (shown to a challenger)


class UnoState(NamedTuple):
    """One moment of an UNO game. Draw pile and discard pile tuples have their top card last.

    A NamedTuple rather than a frozen dataclass: it is just as immutable and comparable, and building one
    (once per `apply`) costs a fifth of the time, which matters for selfplay throughput.
    """

    config: UnoConfig
    rng: int
    hands: tuple[tuple[int, ...], ...]
    draw_pile: tuple[int, ...]
    discard: tuple[int, ...]
    color: int
    direction: int  # +1 clockwise, -1 counter-clockwise
    current: int
    stage: int  # a UnoStage's number (PLAY, DRAWN, ... below)
    attack: Attack | None
    drawn: int  # the card just drawn (stage DRAWN), else -1
    catchable: int  # the seat that may be caught for not calling UNO, else -1
    reveal: tuple[int, int] | None  # (challenger, attacker) of the last challenge, shown until the next turn
    revealed: Attack | None  # the challenged attack (hand and prior colour), with `reveal`
    hand_number: int
    dealer: int
    scores: tuple[int, ...]
    hands_won: tuple[tuple[int, int], ...]  # (winner, points) of every hand played, oldest first
    winners: tuple[int, ...]
    events: tuple[Record, ...]  # what the last apply did (see Record and _event_object)


# Event records: what one `apply` did, kept in `UnoState.events` and told as texts by `_event_object` only
# when someone reads them (most states are never shown: bots, selfplay). NamedTuples, typed field by field;
# making one costs more than the plain tuple it replaced (its __new__ is Python: selfplay 1.054x, a person's
# whole move on the server 1.008x). Two records of different kinds with equal fields compare equal as
# tuples do (Kept(1) == Passed(1)): tell them apart by type, as `_event_object` does.


class DealerDraw(NamedTuple):
    """A card drawn to choose the dealer (docs/rules/uno.md §2)."""

    seat: int
    card: int


class DealerTie(NamedTuple):
    """Seats tied for the highest card, who draw again."""

    seats: tuple[int, ...]


class DealerChosen(NamedTuple):
    """The dealer of a new hand."""

    dealer: int
    hand_number: int


class Dealt(NamedTuple):
    """Every hand dealt (each seat is told its own)."""

    hands: tuple[tuple[int, ...], ...]


class Flipped(NamedTuple):
    """The first card turned up."""

    card: int


class FlipReturned(NamedTuple):
    """A Wild Draw Four turned up first, shuffled back."""

    card: int


class FirstSkip(NamedTuple):
    """The seat skipped by a first Skip."""

    seat: int


class FirstReverse(NamedTuple):
    """A first Reverse: the dealer plays first, the other way."""

    dealer: int


class Played(NamedTuple):
    """A card played (`answer`: against a Draw Two or Wild Draw Four)."""

    seat: int
    card: int
    color: int
    uno: bool
    answer: bool


class Drew(NamedTuple):
    """Cards drawn, and why ("" for a plain draw)."""

    seat: int
    cards: tuple[int, ...]
    why: Text | str


class Reshuffled(NamedTuple):
    """The discards shuffled into a new draw pile."""

    discards: int


class Spared(NamedTuple):
    """Cards a seat could not draw (both piles empty)."""

    seat: int
    missing: int


class Kept(NamedTuple):
    """The drawn card kept."""

    seat: int


class Passed(NamedTuple):
    """A turn passed with nothing to play or draw."""

    seat: int


class Chose(NamedTuple):
    """A colour chosen for the first card."""

    seat: int
    color: int


class LostTurn(NamedTuple):
    """A seat loses its turn."""

    seat: int


class Reversed(NamedTuple):
    """The direction of play changed (+1 clockwise)."""

    direction: int


class Challenged(NamedTuple):
    """A Wild Draw Four challenged: whether the attacker held the prior colour, and its hand."""

    challenger: int
    attacker: int
    held: bool
    prior_color: int
    hand: tuple[int, ...]


class CalledUno(NamedTuple):
    """UNO called."""

    seat: int


class Caught(NamedTuple):
    """A seat caught not calling UNO."""

    catcher: int
    caught: int


class HandWon(NamedTuple):
    """A hand won, with the points scored (and, in the running tally, what each was charged)."""

    winner: int
    points: int
    charged: tuple[int, ...]


class GameOver(NamedTuple):
    """The game over."""

    winners: tuple[int, ...]
    scores: tuple[int, ...]


class TookPenalty(NamedTuple):
    """A Draw Two or Wild Draw Four penalty taken."""

    seat: int
    penalty: int


Record = (
    DealerDraw
    | DealerTie
    | DealerChosen
    | Dealt
    | Flipped
    | FlipReturned
    | FirstSkip
    | FirstReverse
    | Played
    | Drew
    | Reshuffled
    | Spared
    | Kept
    | Passed
    | Chose
    | LostTurn
    | Reversed
    | Challenged
    | CalledUno
    | Caught
    | HandWon
    | GameOver
    | TookPenalty
)


# --------------------------------------------------------------------------------------------------------
# Precomputed action objects

_PLAY_PLAIN: tuple[tuple[PlayCard, ...], ...] = tuple(
    tuple(PlayCard(c, col, False) for col in COLORS)
    if CARD_COLOR[c] == 0
    else (PlayCard(c, UnoColor(CARD_COLOR[c]), False),)
    for c in ALL_CARDS
)
_PLAY_UNO: tuple[tuple[PlayCard, ...], ...] = tuple(
    tuple(PlayCard(a.card_id, a.color, flag) for a in plain for flag in (True, False)) for plain in _PLAY_PLAIN
)
_DRAW = Draw()
_KEEP = Keep()
_PASS = PassTurn()
_ACCEPT = AcceptPenalty()
_CHALLENGE = Challenge()
_CALL_UNO = CallUno()
_CHOOSE = tuple(ChooseColor(col) for col in COLORS)
_CATCH = tuple(Catch(s) for s in range(16))
_ONLY_CALL = (_CALL_UNO,)
_ONLY_CATCH = tuple((c,) for c in _CATCH)
_SEAT = tuple((s,) for s in range(16))
_NONE: tuple[Any, ...] = ()
_NO_HANDS_WON: tuple[tuple[int, int], ...] = ()
_WON_CHALLENGE = tr("the challenge succeeded")
_LOST_CHALLENGE = tr("the challenge failed")
#: The seat references `{p0}`, `{p1}`, ... that texts name seats by (`name_seats` fills them in).
_P = tuple(f"{{p{s}}}" for s in range(16))


def _take(
    pile: tuple[int, ...], discard: tuple[int, ...], rng: int, k: int, events: list[Record]
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int]:
    """Draw k cards: (drawn, pile, discard, rng). An empty pile is rebuilt from the discards under the top
    card; if nothing is left to shuffle, the rest of the draw is cancelled."""
    size = len(pile)
    if size >= k:
        split = size - k
        return pile[split:], pile[:split], discard, rng
    got = pile
    rest = discard[:-1]
    if not rest:
        return got, (), discard, rng
    shuffler = random.Random(rng)
    cards = list(rest)
    shuffler.shuffle(cards)
    rng = shuffler.getrandbits(64)
    events.append(Reshuffled(len(cards)))
    pile = tuple(cards)
    discard = discard[-1:]
    need = k - len(got)
    split = max(len(pile) - need, 0)
    return got + pile[split:], pile[:split], discard, rng


def _hand_points(hand: tuple[int, ...]) -> int:
    points = CARD_POINTS
    return sum([points[c] for c in hand])


@dataclass(frozen=True, slots=True)
class _Deal:
    rng: int
    hands: tuple[tuple[int, ...], ...]
    pile: tuple[int, ...]
    discard: tuple[int, ...]
    color: int
    direction: int
    current: int
    stage: int


def _deal(rng: random.Random, n: int, dealer: int, events: list[Record]) -> _Deal:
    """Shuffle all 112 cards, deal 7 each from the dealer's left, flip the first card and apply it."""
    deck = list(ALL_CARDS)
    rng.shuffle(deck)
    hands: list[list[int]] = [[] for _ in range(n)]
    for _ in range(HAND_SIZE):
        for i in range(n):
            hands[(dealer + 1 + i) % n].append(deck.pop())
    events.append(Dealt(tuple(tuple(h) for h in hands)))
    first = deck.pop()
    while CARD_KIND[first] == _WILD_DRAW_FOUR:
        # docs/rules/uno.md §3.3: a Wild Draw Four turned over first goes back, the pile is shuffled, another turns.
        events.append(FlipReturned(first))
        deck.append(first)
        rng.shuffle(deck)
        first = deck.pop()
    events.append(Flipped(first))
    state_rng = rng.getrandbits(64)
    left = (dealer + 1) % n
    kind = CARD_KIND[first]
    color = CARD_COLOR[first]
    direction = 1
    current = left
    stage = PLAY
    pile = tuple(deck)
    if color == 0:
        stage = FIRST_COLOR
    elif kind == _SKIP:
        events.append(FirstSkip(left))
        current = (left + 1) % n
    elif kind == _REVERSE:
        direction = -1
        current = dealer
        events.append(FirstReverse(dealer))
    elif kind == _DRAW_TWO:
        drawn, pile, _, state_rng = _take(pile, (first,), state_rng, DRAW_TWO_PENALTY, events)
        hands[left].extend(drawn)
        events.append(Drew(left, drawn, tr("the first card is a Draw Two")))
        events.append(LostTurn(left))
        current = (left + 1) % n
    return _Deal(
        rng=state_rng,
        hands=tuple(tuple(h) for h in hands),
        pile=pile,
        discard=(first,),
        color=color,
        direction=direction,
        current=current,
        stage=stage,
    )


def _start_hand(
    config: UnoConfig,
    rng: random.Random,
    dealer: int,
    hand_number: int,
    scores: tuple[int, ...],
    hands_won: tuple[tuple[int, int], ...],
    events: list[Record],
) -> UnoState:
    events.append(DealerChosen(dealer, hand_number))
    deal = _deal(rng, config.players, dealer, events)
    return UnoState(
        config,
        deal.rng,
        deal.hands,
        deal.pile,
        deal.discard,
        deal.color,
        deal.direction,
        deal.current,
        deal.stage,
        None,
        -1,
        -1,
        None,
        None,
        hand_number,
        dealer,
        scores,
        hands_won,
        (),
        tuple(events),
    )


def _choose_dealer(rng: random.Random, n: int, events: list[Record]) -> int:
    """docs/rules/uno.md §3.1: each player draws a card; the highest number deals (action and wild cards count
    0); players tied for the highest draw again among themselves. (Drawing k cards from a shuffled deck is a
    sample of k cards.)"""
    left = list(ALL_CARDS)
    drawing = list(range(n))
    while True:
        if len(left) < len(drawing):
            left = list(ALL_CARDS)
        cards = rng.sample(left, len(drawing))
        values = {}
        for seat, card in zip(drawing, cards, strict=True):
            left.remove(card)
            events.append(DealerDraw(seat, card))
            values[seat] = DEALER_DRAW_VALUE[card]
        best = max(values.values())
        tied = [s for s in drawing if values[s] == best]
        if len(tied) == 1:
            return tied[0]
        events.append(DealerTie(tuple(tied)))
        drawing = tied


# --------------------------------------------------------------------------------------------------------
# The engine


class UnoEngine:
    """UNO Super Mario (docs/rules/uno.md)."""

    name = "uno"
    title = N_("UNO Super Mario")
    score_label = tr("points")
    #: Options for a short game, for tests and demos (see Engine.quick_options).
    quick_options: ClassVar[dict[str, str]] = {"target": "1"}
    min_players = 2
    max_players = 10
    options = (
        OptionSpec(
            "target",
            OptionKind.INT,
            "500",
            N_("points that end the game"),
            minimum=1,
            maximum=100_000,
            label=N_("Target score"),
        ),
        OptionSpec(
            "lowest_wins",
            OptionKind.BOOL,
            "false",
            N_("running tally variant: each player is charged their own hand; at the target the lowest total wins"),
            label=N_("Lowest wins"),
        ),
        OptionSpec(
            "house_rule",
            OptionKind.TEXT,
            "",
            N_("house rule shown for the Wild Customizable card (not enforced)"),
            max_length=200,
            label=N_("House rule"),
        ),
    )
    action_types = (PlayCard, Draw, Keep, PassTurn, ChooseColor, AcceptPenalty, Challenge, CallUno, Catch)
    view_type = UnoView
    #: What differs between viewers' views (`private_view`, toadstool.engine.view_split).
    private_view_type = UnoPrivateView

    # ---- setup

    def new(self, players: int, options: Mapping[str, Any], seed: int) -> UnoState:
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"UNO takes 2 to 10 players, not {players}")
        config = UnoConfig(
            players=players,
            target=int(options.get("target", 500)),
            lowest_wins=bool(options.get("lowest_wins", False)),
            house_rule=str(options.get("house_rule", "")),
        )
        rng = random.Random(seed)
        events: list[Record] = []
        dealer = _choose_dealer(rng, players, events)
        return _start_hand(config, rng, dealer, 1, (0,) * players, _NO_HANDS_WON, events)

    # ---- queries

    def to_act(self, state: UnoState) -> tuple[int, ...]:
        if state.stage == OVER:
            return _NONE
        return _SEAT[state.current]

    def legal_actions(self, state: UnoState, seat: int) -> Sequence[Any]:
        catchable = state.catchable
        if seat != state.current:
            if catchable < 0:
                return _NONE
            if catchable == seat:
                return _ONLY_CALL
            return _ONLY_CATCH[catchable]
        stage = state.stage
        hand = state.hands[seat]
        table = _PLAY_UNO if len(hand) == 2 else _PLAY_PLAIN
        acts: list[Any]
        if stage == PLAY:
            ok = PLAYABLE[state.color][CARD_RANK[state.discard[-1]]]
            acts = []
            for c in hand:
                if c in ok:
                    acts.extend(table[c])
            if state.draw_pile or len(state.discard) > 1:
                acts.append(_DRAW)
            elif not acts:
                acts.append(_PASS)
        elif stage == DRAWN:
            drawn = state.drawn
            if drawn in PLAYABLE[state.color][CARD_RANK[state.discard[-1]]]:
                acts = [*table[drawn], _KEEP]
            else:
                acts = [_KEEP]
        elif stage in (ANSWER_D2, ANSWER_WD4):
            acts = [_ACCEPT, _CHALLENGE] if stage == ANSWER_WD4 else [_ACCEPT]
            for c in hand:
                if CARD_KIND[c] == _SUPER_STAR:
                    acts.extend(table[c])
        elif stage == FIRST_COLOR:
            return _CHOOSE
        else:
            return _NONE
        if catchable >= 0:
            acts.append(_CALL_UNO if catchable == seat else _CATCH[catchable])
        return acts

    def outcome(self, state: UnoState) -> Outcome | None:
        if state.stage != OVER:
            return None
        names = _names(state.winners)
        lowest = state.config.lowest_wins
        if lowest:
            summary = tr("{names} won with the lowest total ({points} points)", names=names, points=min(state.scores))
        else:
            summary = tr("{names} won with {points} points", names=names, points=state.scores[state.winners[0]])
        details = tuple(
            tr("Hand {number}: {player} went out; the others were charged {points} points", **hand)
            if lowest
            else tr("Hand {number}: {player} went out and scored {points} points", **hand)
            for hand in (
                {"number": number, "player": _P[winner], "points": points}
                for number, (winner, points) in enumerate(state.hands_won, start=1)
            )
        )
        return Outcome(winners=state.winners, scores=state.scores, summary=summary, details=details)

    # ---- apply

    def apply(self, state: UnoState, seat: int, action: Any) -> UnoState:
        return _HANDLERS[type(action)](state, seat, action)

    # ---- views and texts

    def last_events(self, state: UnoState) -> tuple[Event, ...]:
        return tuple(_event_object(record) for record in state.events)

    def private_view(self, state: UnoState, viewer: int | None) -> UnoPrivateView:
        """What only `viewer` is shown: its hand, the card it just drew, a hand shown to it as challenger."""
        if viewer is None or not 0 <= viewer < state.config.players:
            return _NOBODYS_VIEW
        reveal = None
        if state.reveal is not None and state.reveal[0] == viewer and state.revealed is not None:
            shown = state.revealed
            reveal = UnoReveal(
                attacker=shown.attacker,
                cards=tuple(CARD_VIEWS[c] for c in sorted(shown.hand)),
                prior_color=_COLOR_OF[shown.prior_color],
                held_prior_color=shown.held_prior_color,
            )
        drawn = CARD_VIEWS[state.drawn] if state.drawn >= 0 and viewer == state.current else None
        return UnoPrivateView(
            you=viewer, hand=tuple(CARD_VIEWS[c] for c in sorted(state.hands[viewer])), drawn_card=drawn, reveal=reveal
        )

    def view(self, state: UnoState, viewer: int | None) -> UnoView:
        config = state.config
        attack = state.attack
        own = self.private_view(state, viewer)
        winner, points = state.hands_won[-1] if state.hands_won else (-1, 0)
        return UnoView(
            phase=self.phase(state),
            scores=state.scores,
            you=own.you,
            hand=own.hand,
            hand_counts=tuple(len(h) for h in state.hands),
            top_card=CARD_VIEWS[state.discard[-1]],
            color=_COLOR_OF[state.color],
            direction=UnoDirection.CLOCKWISE if state.direction == 1 else UnoDirection.COUNTER_CLOCKWISE,
            current=state.current,
            stage=_STAGE_OF[state.stage],
            draw_pile_count=len(state.draw_pile),
            discard_count=len(state.discard),
            pending_penalty=attack.penalty if attack is not None else 0,
            attacker=attack.attacker if attack is not None else None,
            prior_color=_COLOR_OF[attack.prior_color] if attack is not None else UnoColor.UNSPECIFIED,
            drawn_card=own.drawn_card,
            reveal=own.reveal,
            uno_catchable=state.catchable if state.catchable >= 0 else None,
            hand_number=state.hand_number,
            dealer=state.dealer,
            target=config.target,
            lowest_wins=config.lowest_wins,
            house_rule=config.house_rule,
            last_hand_winner=winner if winner >= 0 else None,
            last_hand_points=points,
            winners=state.winners,
        )

    def phase(self, state: UnoState) -> str:
        """What is happening, in a few words (a `Text`, remembered per stage and seat)."""
        stage = state.stage
        if stage == OVER:
            return tr("Game over: {names} won", names=_names(state.winners))
        key = (stage, state.current)
        text = _PHASES.get(key)
        if text is None:
            text = _PHASES[key] = tr(_PHASE_MESSAGES[stage], player=_P[state.current])
        return text

    def describe(self, state: UnoState, seat: int, action: Any) -> str:
        """The label of `action`: a `Text`, remembered (a seat is offered the same few after every move)."""
        kind_of = type(action)
        if kind_of is PlayCard:
            answer = state.stage in (ANSWER_D2, ANSWER_WD4)
            # By the fields the label is made of (hashing a frozen dataclass itself runs Python, for every
            # card of the hand of every seat after every move; a tuple of them is hashed in C).
            key = (action.card_id, action.color, action.uno, answer)
            label = _PLAY_LABELS.get(key)
            if label is None:
                label = _PLAY_LABELS[key] = _play_label(action, answer)
            return label
        if kind_of is Draw:
            return _DRAW_LABEL
        if kind_of is Keep:
            return _KEEP_LABEL
        if kind_of is PassTurn:
            return _PASS_LABEL
        if kind_of is ChooseColor:
            return tr("Choose {colour}", colour=COLOR_NAMES[action.color])
        if kind_of is AcceptPenalty:
            penalty = state.attack.penalty if state.attack is not None else 0
            return tr("Draw {n} and lose your turn", n=penalty)
        if kind_of is Challenge:
            return _CHALLENGE_LABEL
        if kind_of is CallUno:
            return _CALL_LABEL
        if kind_of is Catch:
            return tr("Catch {player}: UNO not called", player=_P[action.seat])
        return str(action)


#: What `phase` says in each stage but the last, of the seat `{player}` whose turn it is.
_PHASE_MESSAGES: dict[int, str] = {
    PLAY: N_("{player} to play"),
    DRAWN: N_("{player} to play the drawn card or keep it"),
    FIRST_COLOR: N_("{player} to choose the first colour"),
    ANSWER_D2: N_("{player} to answer the Draw Two"),
    ANSWER_WD4: N_("{player} to answer the Wild Draw Four"),
}
#: `phase`'s texts by (stage, seat), and `describe`'s of playing a card by (card, colour, calling UNO,
#: answering): made once (at most every card x every colour x 2 x 2).
_PHASES: dict[tuple[int, int], Text] = {}
_PLAY_LABELS: dict[tuple[int, int, bool, bool], Text] = {}
_DRAW_LABEL = tr("Draw a card")
_KEEP_LABEL = tr("Keep the drawn card")
_PASS_LABEL = tr("Pass (nothing to play or draw)")
_CHALLENGE_LABEL = tr("Challenge the Wild Draw Four")
_CALL_LABEL = tr("Call UNO")


def _play_label(action: PlayCard, answer: bool) -> Text:
    """The label of playing a card: whole sentences, one per way it can go, each language its own order."""
    card = CARD_NAMES[action.card_id]
    colour = COLOR_NAMES[action.color] if CARD_COLOR[action.card_id] == 0 else None
    if answer:
        if colour is None:
            if action.uno:
                return tr("Answer with {card} and call UNO", card=card)
            return tr("Answer with {card}", card=card)
        if action.uno:
            return tr("Answer with {card} (choose {colour}) and call UNO", card=card, colour=colour)
        return tr("Answer with {card} (choose {colour})", card=card, colour=colour)
    if colour is None:
        if action.uno:
            return tr("Play {card} and call UNO", card=card)
        return tr("Play {card}", card=card)
    if action.uno:
        return tr("Play {card} (choose {colour}) and call UNO", card=card, colour=colour)
    return tr("Play {card} (choose {colour})", card=card, colour=colour)


def _names(seats: Sequence[int]) -> str:
    """Seats named together: "{p0}", "{p0} and {p2}" (in the reader's language)."""
    return _P[seats[0]] if len(seats) == 1 else both(*(_P[s] for s in seats))


def _replace_hand(hands: tuple[tuple[int, ...], ...], seat: int, hand: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    return (*hands[:seat], hand, *hands[seat + 1 :])


def _penalty(
    hands: tuple[tuple[int, ...], ...],
    pile: tuple[int, ...],
    discard: tuple[int, ...],
    rng: int,
    seat: int,
    amount: int,
    why: Text | str,
    events: list[Record],
) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...], tuple[int, ...], int]:
    got, pile, discard, rng = _take(pile, discard, rng, amount, events)
    events.append(Drew(seat, got, why))
    if len(got) < amount:
        events.append(Spared(seat, amount - len(got)))
    return _replace_hand(hands, seat, hands[seat] + got), pile, discard, rng


def _end_hand(
    state: UnoState,
    winner: int,
    hands: tuple[tuple[int, ...], ...],
    pile: tuple[int, ...],
    discard: tuple[int, ...],
    rng: int,
    color: int,
    direction: int,
    events: list[Record],
) -> UnoState:
    """Score the hand (docs/rules/uno.md §9.2: the winner scores the cards left in the other hands; §9.4: with
    lowest_wins each player is charged their own hand), then end the game at the target or deal the next hand."""
    config = state.config
    charged = tuple(_hand_points(h) for h in hands)
    total = sum(charged)
    if config.lowest_wins:
        scores = tuple(s + c for s, c in zip(state.scores, charged, strict=True))
    else:
        scores = tuple(s + total if i == winner else s for i, s in enumerate(state.scores))
    events.append(HandWon(winner, total, charged))
    hands_won = (*state.hands_won, (winner, total))
    if max(scores) >= config.target:
        if config.lowest_wins:
            low = min(scores)
            winners = tuple(i for i, s in enumerate(scores) if s == low)
        else:
            winners = (winner,)
        events.append(GameOver(winners, scores))
        return UnoState(
            config, rng, hands, pile, discard, color, direction, winner, OVER,
            None, -1, -1, None, None, state.hand_number, state.dealer, scores, hands_won, winners,
            tuple(events),
        )  # fmt: skip
    dealer = (state.dealer + 1) % config.players
    return _start_hand(config, random.Random(rng), dealer, state.hand_number + 1, scores, hands_won, events)


# --------------------------------------------------------------------------------------------------------
# Applying actions: one handler per action type, each building exactly one new state. A turn action (every
# action but CallUno and Catch) closes the UNO window and ends a challenge reveal.


def _apply_call_uno(s: UnoState, seat: int, action: CallUno) -> UnoState:
    return s._replace(catchable=-1, events=(CalledUno(seat),))


def _apply_catch(s: UnoState, seat: int, action: Catch) -> UnoState:
    caught = action.seat
    events: list[Record] = [Caught(seat, caught)]
    hands, pile, discard, rng = _penalty(
        s.hands, s.draw_pile, s.discard, s.rng, caught, UNO_PENALTY, tr("caught not calling UNO"), events
    )
    return s._replace(rng=rng, hands=hands, draw_pile=pile, discard=discard, catchable=-1, events=tuple(events))


def _apply_draw(s: UnoState, seat: int, action: Draw) -> UnoState:
    pile = s.draw_pile
    if pile:
        got = pile[-1:]
        pile = pile[:-1]
        discard = s.discard
        rng = s.rng
        events: tuple[Record, ...] = (Drew(seat, got, ""),)
    else:
        drew: list[Record] = []
        got, pile, discard, rng = _take(pile, s.discard, s.rng, 1, drew)
        drew.append(Drew(seat, got, ""))
        events = tuple(drew)
    hands = s.hands
    hands = (*hands[:seat], hands[seat] + got, *hands[seat + 1 :])
    return UnoState(
        s.config, rng, hands, pile, discard, s.color, s.direction, seat, DRAWN, None, got[0], -1, None, None,
        s.hand_number, s.dealer, s.scores, s.hands_won, (), events,
    )  # fmt: skip


def _apply_keep(s: UnoState, seat: int, action: Keep) -> UnoState:
    direction = s.direction
    return UnoState(
        s.config, s.rng, s.hands, s.draw_pile, s.discard, s.color, direction,
        (seat + direction) % s.config.players, PLAY, None, -1, -1, None, None, s.hand_number, s.dealer,
        s.scores, s.hands_won, (), (Kept(seat),),
    )  # fmt: skip


def _apply_pass(s: UnoState, seat: int, action: PassTurn) -> UnoState:
    direction = s.direction
    return UnoState(
        s.config, s.rng, s.hands, s.draw_pile, s.discard, s.color, direction,
        (seat + direction) % s.config.players, PLAY, None, -1, -1, None, None, s.hand_number, s.dealer,
        s.scores, s.hands_won, (), (Passed(seat),),
    )  # fmt: skip


def _apply_choose_color(s: UnoState, seat: int, action: ChooseColor) -> UnoState:
    return s._replace(
        color=int(action.color), stage=PLAY, catchable=-1, reveal=None, revealed=None,
        events=(Chose(seat, int(action.color)),),
    )  # fmt: skip


def _apply_accept(s: UnoState, seat: int, action: AcceptPenalty) -> UnoState:
    attack = s.attack
    assert attack is not None
    events: list[Record] = [TookPenalty(seat, attack.penalty)]
    hands, pile, discard, rng = _penalty(s.hands, s.draw_pile, s.discard, s.rng, seat, attack.penalty, "", events)
    events.append(LostTurn(seat))
    return UnoState(
        s.config, rng, hands, pile, discard, s.color, s.direction, (seat + s.direction) % s.config.players,
        PLAY, None, -1, -1, None, None, s.hand_number, s.dealer, s.scores, s.hands_won, (), tuple(events),
    )  # fmt: skip


def _apply_challenge(s: UnoState, seat: int, action: Challenge) -> UnoState:
    """docs/rules/uno.md §5.3: "If the hand held such a card, its player draws 4 and the challenger keeps their
    turn. If not, the challenger draws 6 and loses their turn." §5.1: "The chosen colour stands in every
    case." """
    attack = s.attack
    assert attack is not None
    events: list[Record] = [Challenged(seat, attack.attacker, attack.held_prior_color, attack.prior_color, attack.hand)]
    if attack.held_prior_color:
        hands, pile, discard, rng = _penalty(
            s.hands, s.draw_pile, s.discard, s.rng, attack.attacker, CAUGHT_BLUFF_PENALTY, _WON_CHALLENGE, events
        )
        current = seat
    else:
        hands, pile, discard, rng = _penalty(
            s.hands, s.draw_pile, s.discard, s.rng, seat, FAILED_CHALLENGE_PENALTY, _LOST_CHALLENGE, events
        )
        events.append(LostTurn(seat))
        current = (seat + s.direction) % s.config.players
    return UnoState(
        s.config, rng, hands, pile, discard, s.color, s.direction, current, PLAY, None, -1, -1,
        (seat, attack.attacker), attack, s.hand_number, s.dealer, s.scores, s.hands_won, (), tuple(events),
    )  # fmt: skip


def _apply_play(s: UnoState, seat: int, action: PlayCard) -> UnoState:
    n = s.config.players
    card = action.card_id
    hands = s.hands
    hand = hands[seat]
    i = hand.index(card)
    hand = hand[:i] + hand[i + 1 :]
    hands = (*hands[:seat], hand, *hands[seat + 1 :])
    discard = (*s.discard, card)
    pile = s.draw_pile
    rng = s.rng
    previous_color = s.color
    color = int(action.color)
    direction = s.direction
    stage = s.stage
    attack = s.attack
    answering = stage in (ANSWER_D2, ANSWER_WD4)
    events: list[Record] = [Played(seat, card, color, action.uno, answering)]
    left = len(hand)
    catchable = seat if left == 1 and not action.uno else -1
    kind = CARD_KIND[card]
    nxt = (seat + direction) % n
    current = nxt
    stage = PLAY
    if answering:
        assert attack is not None
        # docs/rules/uno.md §6.2: "The attacker then draws the 2 or 4 cards themselves and is not skipped, you
        # name the colour, and play goes on with the player after you."
        hands, pile, discard, rng = _penalty(
            hands, pile, discard, rng, attack.attacker, attack.penalty, tr("answered with a Super Star"), events
        )
        attack = None
        if left == 0:
            return _end_hand(s, seat, hands, pile, discard, rng, color, direction, events)
    elif left == 0:
        # docs/rules/uno.md §9.1: "If that card is a Draw Two or a Wild Draw Four, the next player still draws
        # the cards, with no answer, so that they count for scoring."
        if kind in (_DRAW_TWO, _WILD_DRAW_FOUR):
            amount = DRAW_TWO_PENALTY if kind == _DRAW_TWO else WILD_DRAW_FOUR_PENALTY
            hands, pile, discard, rng = _penalty(hands, pile, discard, rng, nxt, amount, tr("for scoring"), events)
        return _end_hand(s, seat, hands, pile, discard, rng, color, direction, events)
    elif kind == _SKIP:
        events.append(LostTurn(nxt))
        current = (nxt + direction) % n
    elif kind == _REVERSE:
        direction = -direction
        events.append(Reversed(direction))
        if n == 2:
            # docs/rules/uno.md §4.3: "with two players a Reverse works as a Skip"
            events.append(LostTurn(nxt))
            current = seat
        else:
            current = (seat + direction) % n
    elif kind == _DRAW_TWO:
        attack = Attack(seat, DRAW_TWO_PENALTY, 0, False, ())
        stage = ANSWER_D2
    elif kind == _WILD_DRAW_FOUR:
        held = False
        for c in hand:
            if CARD_COLOR[c] == previous_color:
                held = True
                break
        attack = Attack(seat, WILD_DRAW_FOUR_PENALTY, previous_color, held, hand)
        stage = ANSWER_WD4
    return UnoState(
        s.config, rng, hands, pile, discard, color, direction, current, stage, attack, -1, catchable, None,
        None, s.hand_number, s.dealer, s.scores, s.hands_won, (), tuple(events),
    )  # fmt: skip


_HANDLERS: dict[type, Callable[[UnoState, int, Any], UnoState]] = {
    PlayCard: _apply_play,
    Draw: _apply_draw,
    Keep: _apply_keep,
    PassTurn: _apply_pass,
    ChooseColor: _apply_choose_color,
    AcceptPenalty: _apply_accept,
    Challenge: _apply_challenge,
    CallUno: _apply_call_uno,
    Catch: _apply_catch,
}


# --------------------------------------------------------------------------------------------------------
# Event texts


def _cards_text(cards: Sequence[int]) -> Text:
    return joined([CARD_NAMES[c] for c in cards]) if cards else _NOTHING


_NOTHING = tr("nothing")


def _event_object(record: Record) -> Event:
    """The event `record` as every seat is told it (and, where it holds cards, as its own seat is). A hand's
    result (who went out and the points scored, then the game's end with every score) is marked
    `round_result`, so clients find the hand's recap without reading the words."""
    match record:
        case DealerDraw(seat, card):
            text = tr("{player} drew the {card} to choose the dealer", player=_P[seat], card=CARD_NAMES[card])
            return Event(text, seat=seat)
        case DealerTie(seats):
            return Event(tr("{players} tied for highest and draw again", players=_names(seats)))
        case DealerChosen(dealer, number):
            return Event(
                tr("Hand {number}: {player} deals 7 cards each", number=number, player=_P[dealer]), seat=dealer
            )
        case Dealt(hands):
            private = tuple(
                (s, tr("you were dealt {cards}", cards=_cards_text(sorted(h)))) for s, h in enumerate(hands)
            )
            return Event(tr("Everyone was dealt 7 cards"), private=private)
        case Flipped(card):
            return Event(tr("The first card is the {card}", card=CARD_NAMES[card]))
        case FlipReturned():
            return Event(tr("A Wild Draw Four was flipped first: it goes back into the draw pile, reshuffled"))
        case FirstSkip(seat):
            return Event(tr("{player} is skipped by the first card", player=_P[seat]), seat=seat)
        case FirstReverse(dealer):
            return Event(tr("The first card is a Reverse: {player} plays first, counter-clockwise", player=_P[dealer]))
        case Played(seat, card, color, uno, answer):
            colour = COLOR_NAMES[color] if CARD_COLOR[card] == 0 else None
            return Event(_played(_P[seat], CARD_NAMES[card], colour, uno, answer), seat=seat)
        case Drew(seat, cards, why):
            count = len(cards)
            if why:
                public = trn(
                    "{player} drew a card ({why})", "{player} drew {n} cards ({why})", count, player=_P[seat], why=why
                )
                secret = tr("you drew {cards} ({why})", cards=_cards_text(cards), why=why)
            else:
                public = trn("{player} drew a card", "{player} drew {n} cards", count, player=_P[seat])
                secret = tr("you drew {cards}", cards=_cards_text(cards))
            return Event(public, seat=seat, private=((seat, secret),))
        case Reshuffled(discards):
            return Event(
                trn(
                    "The draw pile ran out: {n} discard was shuffled into a new draw pile",
                    "The draw pile ran out: {n} discards were shuffled into a new draw pile",
                    discards,
                )
            )
        case Spared(seat, missing):
            return Event(
                trn(
                    "No cards left to draw: {player} is spared a card",
                    "No cards left to draw: {player} is spared {n} cards",
                    missing,
                    player=_P[seat],
                ),
                seat=seat,
            )
        case Kept(seat):
            return Event(tr("{player} kept the drawn card", player=_P[seat]), seat=seat)
        case Passed(seat):
            return Event(tr("{player} passed (nothing to play or draw)", player=_P[seat]), seat=seat)
        case Chose(seat, color):
            return Event(tr("{player} chose {colour}", player=_P[seat], colour=COLOR_NAMES[color]), seat=seat)
        case LostTurn(seat):
            return Event(tr("{player} loses the turn", player=_P[seat]), seat=seat)
        case Reversed(direction):
            if direction == 1:
                return Event(tr("Play now goes clockwise"))
            return Event(tr("Play now goes counter-clockwise"))
        case Challenged(challenger, attacker, held, prior, hand):
            who = {"challenger": _P[challenger], "attacker": _P[attacker]}
            if held:
                public = tr("{challenger} challenged {attacker}'s Wild Draw Four: the challenge succeeded", **who)
                secret = tr(
                    "you challenged {attacker}'s Wild Draw Four and saw their hand: {cards}; they held a {colour} "
                    "card, so the challenge succeeded",
                    attacker=_P[attacker],
                    cards=_cards_text(sorted(hand)),
                    colour=COLOR_NAMES[prior],
                )
            else:
                public = tr("{challenger} challenged {attacker}'s Wild Draw Four: the challenge failed", **who)
                secret = tr(
                    "you challenged {attacker}'s Wild Draw Four and saw their hand: {cards}; they did not hold a "
                    "{colour} card, so the challenge failed",
                    attacker=_P[attacker],
                    cards=_cards_text(sorted(hand)),
                    colour=COLOR_NAMES[prior],
                )
            return Event(public, seat=challenger, private=((challenger, secret),))
        case CalledUno(seat):
            return Event(tr("{player} called UNO", player=_P[seat]), seat=seat)
        case Caught(catcher, caught):
            text = tr("{catcher} caught {caught} not calling UNO", catcher=_P[catcher], caught=_P[caught])
            return Event(text, seat=catcher)
        case HandWon(winner, points, _charged):
            return Event(
                tr(
                    "{player} went out and won the hand ({points} points in other hands)",
                    player=_P[winner],
                    points=points,
                ),
                seat=winner,
                round_result=True,
            )
        case GameOver(winners, scores):
            return Event(
                tr(
                    "Game over: {names} won (scores {scores})",
                    names=_names(winners),
                    scores=", ".join(str(s) for s in scores),
                ),
                round_result=True,
            )
        case TookPenalty(seat, penalty):
            return Event(tr("{player} takes the {n}-card penalty", player=_P[seat], n=penalty), seat=seat)
        case _:
            assert_never(record)  # mypy: every kind of Record has its text above


def _played(player: str, card: Text, colour: Text | None, uno: bool, answer: bool) -> Text:
    """A card played (or an attack answered with it): whole sentences, one per way it can go."""
    if answer:
        if colour is None:
            if uno:
                return tr("{player} answered with the {card} and called UNO", player=player, card=card)
            return tr("{player} answered with the {card}", player=player, card=card)
        if uno:
            return tr(
                "{player} answered with the {card} and chose {colour} and called UNO",
                player=player,
                card=card,
                colour=colour,
            )
        return tr("{player} answered with the {card} and chose {colour}", player=player, card=card, colour=colour)
    if colour is None:
        if uno:
            return tr("{player} played the {card} and called UNO", player=player, card=card)
        return tr("{player} played the {card}", player=player, card=card)
    if uno:
        return tr(
            "{player} played the {card} and chose {colour} and called UNO", player=player, card=card, colour=colour
        )
    return tr("{player} played the {card} and chose {colour}", player=player, card=card, colour=colour)


ENGINE = UnoEngine()

if TYPE_CHECKING:  # mypy checks the game against the engine Protocol and the optional hooks it has
    _engine: Engine[UnoState, Any] = ENGINE
    _private: PrivateViews[UnoState] = ENGINE
