"""The rules of the fan-made Super Mario Kart board game (docs/rules/kart.md) as a pure Engine.

This module is for the race itself: the start-order roll, turns (pre-roll choices, the roll pipeline,
shortcuts, landing effects, items, skips), laps, the finish and the ranking, and the view every viewer
gets. It is not for the numbers (`data.py`), the track files (`tracks.py`) or playing well (`bot.py`).

Position is progress p along the main route since the start; a kart stands on field p mod N. Only karts
still at p = 0 are in the start area (exempt from the same-field rule). Every die roll is an Event carrying
a DieRoll. The only secret is the order of the item deck: views carry its size only.

Points the printed rules leave open, decided here (docs/rules/kart.md §4.1, §4.4, §5.3, §7.1, §7.3, §7.5):
- The one-item-per-turn limit counts items used before a roll (Mushroom, Lightning, Ghost, shells). Spending
  the Feather on a shortcut after the roll is not limited by it, so a Feather stolen with the Ghost may be
  spent the same turn; a stolen Mushroom or shell waits for the next turn.
- Throwing an item away is not using it, and is allowed before the booster roll too.
- On a booster, the turn may end without the roll only while no coin bundle is paid for that roll.
- Under the Lightning, the others on the shared field skip one turn instead of paying; the privilege holds
  for the landing of the move right after it was used (not for a later booster move).
- A free field for a banana chip has no kart on it, start-area karts included (they stand on field 0).
- A shell can send its victim back to progress 0, into the start area again.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from toadstool.engine import N_, BadOptions, DieRoll, Event, OptionKind, OptionSpec, Outcome, preview
from toadstool.engine import seat_ref as _p
from toadstool.games.kart.data import (
    BANANA_CHIPS,
    BUNDLE_BONUS,
    BUNDLES,
    COINS,
    DECK,
    DIE_SIDES,
    DISCARDABLE,
    FIELD_NAMES,
    ITEM_NAMES,
    KARTS,
    LAPS,
    LAST_ROLLS,
    SHELL_RANGE,
    SHORTCUT_COST,
    START_PLACE_COINS,
    THWOMP_SKIPS,
    FieldType,
    Item,
    KartColor,
)
from toadstool.games.kart.tracks import (
    DEFAULT_TRACK,
    Shortcut,
    Track,
    TrackError,
    broken_track_problem,
    known_tracks,
    load_track,
    parse_track,
    track_content,
)
from toadstool.games.working_copy import WorkingCopy
from toadstool.i18n import Text, joined, tr, trn

#: The key of a creation record (`KartEngine.creation_record`) that holds the track's content.
TRACK_CONTENT = "track_content"


class Stage(enum.IntEnum):
    """What the seat whose turn it is decides now (proto KartStage)."""

    PRE_ROLL = 1  # use an item, throw one away, pay a coin bundle, then roll
    BOOSTER = 2  # landed on a booster: the same choices, roll again or end the turn
    SHORTCUT = 3  # rolled far enough to take a shortcut with the Feather: take it or stay on the track
    BANANA = 4  # drew a Banana: place (or move) a chip now, or lose it
    FINISHED = 5


# ---------------------------------------------------------------------------------------------- actions
@dataclass(frozen=True, slots=True)
class Roll:
    """Roll the die and move (a move roll, or the booster roll on a booster)."""


@dataclass(frozen=True, slots=True)
class PayCoins:
    """Pay a coin bundle (1, 3, 5 or 10 coins) for extra fields on the coming roll."""

    coins: int


@dataclass(frozen=True, slots=True)
class UseItem:
    """Use the held item; `target` is the seat hit by a shell or robbed by the Ghost."""

    target: int | None = None


@dataclass(frozen=True, slots=True)
class Discard:
    """Throw away the held Feather, Ghost or Shell (it goes under the deck)."""


@dataclass(frozen=True, slots=True)
class TakeShortcut:
    """Spend the Feather to take the track's shortcut number `shortcut` with this move."""

    shortcut: int


@dataclass(frozen=True, slots=True)
class StayOnTrack:
    """Move along the main route and keep the Feather."""


@dataclass(frozen=True, slots=True)
class PlaceBanana:
    """Put a banana chip from the supply on the free field `field`."""

    field: int


@dataclass(frozen=True, slots=True)
class MoveBanana:
    """All five chips are out: move the chip on `from_field` to the free field `field`."""

    from_field: int
    field: int


@dataclass(frozen=True, slots=True)
class DropBanana:
    """Lose the drawn Banana without placing a chip."""


@dataclass(frozen=True, slots=True)
class EndTurn:
    """On a booster: do not roll again; the turn ends."""


ACTION_TYPES: tuple[type, ...] = (
    Roll,
    PayCoins,
    UseItem,
    Discard,
    TakeShortcut,
    StayOnTrack,
    PlaceBanana,
    MoveBanana,
    DropBanana,
    EndTurn,
)


# ----------------------------------------------------------------------------------------------- state
@dataclass(frozen=True, slots=True)
class Kart:
    """One kart: progress along the main route, coins, the held item, turns to skip, a pending halving."""

    progress: int = 0
    coins: int = 0
    item: Item | None = None
    skips: int = 0
    halving: bool = False


@dataclass(frozen=True, slots=True)
class KartState:
    """The whole race. `turn` indexes `start_order`; the per-turn flags describe the coming roll."""

    track: Track
    karts: tuple[Kart, ...]
    start_order: tuple[int, ...]
    turn: int
    stage: Stage
    bank: int
    deck: tuple[Item, ...]  # top first; used items go to the end
    bananas: tuple[int, ...]  # fields holding a chip, sorted
    item_used: bool = False  # an item was used this turn
    bundle: int = 0  # coins paid for the coming roll
    mushroom: bool = False  # a Mushroom doubles the coming roll
    lightning: bool = False  # the Lightning privilege holds for this move's landing
    pending_move: int = 0  # the move waiting for the shortcut decision
    last_rolls: tuple[DieRoll, ...] = ()
    winner: int | None = None
    rng_state: int = 0
    events: tuple[Event, ...] = ()

    @property
    def seat(self) -> int:
        """The seat whose turn it is."""
        return self.start_order[self.turn]


# ------------------------------------------------------------------------------------------------ view
@dataclass(frozen=True, slots=True)
class Racer:
    """A kart as everybody sees it (proto KartRacer)."""

    seat: int
    color: KartColor
    character: str
    progress: int
    lap: int
    field: int
    coins: int
    item: Item | None
    skips: int
    halving: bool
    start_place: int
    in_start_area: bool


@dataclass(frozen=True, slots=True)
class RollView:
    """One recent die roll (proto KartRoll)."""

    roller: int
    purpose: str
    value: int


@dataclass(frozen=True, slots=True)
class KartPrivateView:
    """The fields of a `KartView` that differ from one viewer to another (see `KartEngine.private_view`)."""

    you: int | None


@dataclass(frozen=True, slots=True)
class KartView:
    """Everything a viewer may know: all of it, except the order of the item deck."""

    you: int | None
    track: Track
    laps: int
    karts: tuple[Racer, ...]
    banana_fields: tuple[int, ...]
    banana_chips_left: int
    bank: int
    deck_count: int
    turn: int | None
    stage: Stage
    start_order: tuple[int, ...]
    item_used: bool
    bundle_paid: int
    bundle_bonus: int
    mushroom: bool
    lightning: bool
    pending_move: int
    last_rolls: tuple[RollView, ...]
    ranking: tuple[int, ...]
    winner: int | None
    scores: tuple[int, ...]
    phase: str


# -------------------------------------------------------------------------------------------- helpers
def _coins(count: int) -> Text:
    return trn("{n} coin", "{n} coins", count)


def _fields(count: int) -> Text:
    return trn("{n} field", "{n} fields", count)


def _half_up(coins: int) -> int:
    """Half of the coins, odd counts rounded up (9 coins lose 5)."""
    return (coins + 1) // 2


def shortcut_reach(track: Track, field: int, shortcut: Shortcut) -> int:
    """The pips a kart on `field` needs to take `shortcut`: d + 2 for the distance d to its start field."""
    return (shortcut.start - field) % track.length + SHORTCUT_COST


def shortcut_progress(track: Track, progress: int, move: int, shortcut: Shortcut) -> int:
    """Progress after a move of `move` pips through `shortcut` (landing on exit + move - d - 2)."""
    n = track.length
    d = (shortcut.start - progress) % n
    return progress + d + (shortcut.exit - shortcut.start) % n + (move - d - SHORTCUT_COST)


def reachable_shortcuts(track: Track, progress: int, move: int) -> tuple[int, ...]:
    """Indexes of the shortcuts a move of `move` pips from `progress` reaches past."""
    field = progress % track.length
    return tuple(i for i, s in enumerate(track.shortcuts) if move >= shortcut_reach(track, field, s))


def ranking(state: KartState) -> tuple[int, ...]:
    """Rank per seat (1 = first): the winner, then by progress; equal progress shares a rank."""

    def key(seat: int) -> tuple[int, int]:
        return (0 if seat == state.winner else 1, -state.karts[seat].progress)

    keys = [key(s) for s in range(len(state.karts))]
    return tuple(1 + sum(1 for other in keys if other < mine) for mine in keys)


class _Race(WorkingCopy[KartState]):
    """A mutable working copy of a state for one `apply` (or `new`); `freeze` gives the next state. The karts
    are kept as one list per field; the rest as toadstool.games.working_copy copies them."""

    REBUILT = frozenset({"karts", "bananas", "last_rolls"})

    track: Track
    start_order: tuple[int, ...]
    turn: int
    stage: Stage
    bank: int
    deck: list[Item]
    item_used: bool
    bundle: int
    mushroom: bool
    lightning: bool
    pending_move: int
    winner: int | None

    def __init__(self, state: KartState) -> None:
        super().__init__(state)
        self.n = state.track.length
        self.progress = [k.progress for k in state.karts]
        self.coins = [k.coins for k in state.karts]
        self.items = [k.item for k in state.karts]
        self.skips = [k.skips for k in state.karts]
        self.halving = [k.halving for k in state.karts]
        self.bananas = set(state.bananas)
        self.rolls = list(state.last_rolls)
        self.actor: int | None = None  # the seat whose action is being applied

    @property
    def seat(self) -> int:
        return self.start_order[self.turn]

    def freeze(self) -> KartState:
        karts = tuple(
            Kart(p, c, i, s, h)
            for p, c, i, s, h in zip(self.progress, self.coins, self.items, self.skips, self.halving, strict=True)
        )
        return self.frozen(karts=karts, bananas=tuple(sorted(self.bananas)), last_rolls=tuple(self.rolls[-LAST_ROLLS:]))

    # -- small steps
    def say(self, text: Text, seat: int | None = None, roll: DieRoll | None = None) -> None:
        """Record an event; its seat is the seat that acted (the roller for automatic rolls)."""
        self.events.append(Event(text=text, seat=self.actor if seat is None else seat, roll=roll))

    def die(self, roller: int, purpose: str, text: str) -> int:
        """Roll the die for `roller` and say it with the message `text` (marked with N_, naming `{p}` and
        `{value}`); a 6 during play earns a coin from the bank while it has any."""
        value = self.rng.randint(1, DIE_SIDES)
        roll = DieRoll(roller=roller, purpose=purpose, value=value)
        self.rolls.append(roll)
        self.say(tr(text, p=_p(roller), value=value), seat=roller, roll=roll)
        if value == DIE_SIDES and purpose != "start_order":
            if self.bank > 0:
                self.bank -= 1
                self.coins[roller] += 1
                self.say(tr("{p} rolled a 6 and takes a coin from the bank", p=_p(roller)), seat=roller)
            else:
                self.say(tr("{p} rolled a 6, but the bank has no coins left", p=_p(roller)), seat=roller)
        return value

    def pay(self, seat: int, coins: int) -> None:
        self.coins[seat] -= coins
        self.bank += coins

    def lose_half(self, seat: int) -> int:
        lost = _half_up(self.coins[seat])
        self.pay(seat, lost)
        return lost

    def under_deck(self, item: Item) -> None:
        self.deck.append(item)

    # -- setup
    def roll_start_order(self, players: int) -> None:
        def order(group: list[int]) -> list[int]:
            rolled = {s: self.die(s, "start_order", N_("{p} rolls {value} for the start order")) for s in group}
            result: list[int] = []
            for value in sorted(set(rolled.values()), reverse=True):
                tied = [s for s in group if rolled[s] == value]
                if len(tied) > 1:
                    self.say(
                        tr("{names} tie with {value} and roll again", names=joined([_p(s) for s in tied]), value=value)
                    )
                    result.extend(order(tied))
                else:
                    result.extend(tied)
            return result

        self.start_order = tuple(order(list(range(players))))
        self.say(
            tr("Start order: {order}", order=", ".join(f"{i + 1}. {_p(s)}" for i, s in enumerate(self.start_order)))
        )
        for place, seat in enumerate(self.start_order, start=1):
            coins = START_PLACE_COINS.get(place, 0)
            if coins:
                self.bank -= coins
                self.coins[seat] += coins
                self.say(
                    tr(
                        "{p} starts in place {place} and gets {coins} from the bank",
                        p=_p(seat),
                        place=place,
                        coins=_coins(coins),
                    )
                )
        self.turn = 0
        self.stage = Stage.PRE_ROLL
        self.say(tr("{p} starts the race", p=_p(self.seat)))

    # -- a turn
    def roll(self) -> None:
        seat = self.seat
        purpose = "booster" if self.stage is Stage.BOOSTER else "move"
        label = N_("{p} rolls {value} on the booster") if purpose == "booster" else N_("{p} rolls {value}")
        pips = self.die(seat, purpose, label)
        move = pips
        parts: list[str] = [str(pips)]
        if self.mushroom:
            move *= 2
            parts.append(tr("x2 Mushroom"))
        if self.halving[seat]:
            move //= 2
            self.halving[seat] = False
            parts.append(tr("halved"))
        bonus = BUNDLE_BONUS.get(self.bundle, 0)
        if bonus:
            move += bonus
            parts.append(tr("+{bonus} for coins", bonus=bonus))
        self.mushroom = False
        self.bundle = 0
        if len(parts) > 1:
            self.say(tr("{p} moves {move} ({parts})", p=_p(seat), move=move, parts=joined(parts)))
        if move <= 0:
            self.say(tr("{p} does not move", p=_p(seat)))
            self.lightning = False
            self.end_turn()
            return
        if self.items[seat] is Item.FEATHER and reachable_shortcuts(self.track, self.progress[seat], move):
            self.stage = Stage.SHORTCUT
            self.pending_move = move
            return
        self.drive(move, None)

    def drive(self, move: int, shortcut: int | None) -> None:
        seat = self.seat
        self.pending_move = 0
        start = self.progress[seat]
        if shortcut is None:
            progress = start + move
        else:
            cut = self.track.shortcuts[shortcut]
            progress = shortcut_progress(self.track, start, move, cut)
            self.items[seat] = None
            self.under_deck(Item.FEATHER)
            self.say(
                tr(
                    "{p} spends the Feather on shortcut {label} ({start} -> {exit})",
                    p=_p(seat),
                    label=cut.label,
                    start=cut.start,
                    exit=cut.exit,
                )
            )
        goal = LAPS * self.n
        if progress >= goal:
            self.progress[seat] = goal
            self.winner = seat
            self.stage = Stage.FINISHED
            self.say(tr("{p} crosses the finish line after lap {laps} and wins the race!", p=_p(seat), laps=LAPS))
            return
        self.progress[seat] = progress
        for lap_line in range(start // self.n + 1, progress // self.n + 1):
            self.say(tr("{p} crosses the finish line: lap {lap} of {laps}", p=_p(seat), lap=lap_line + 1, laps=LAPS))
        self.say(tr("{p} lands on field {field}", p=_p(seat), field=progress % self.n))
        self.land()

    def land(self) -> None:
        seat = self.seat
        field = self.progress[seat] % self.n
        # 1. same-field charge
        others = [
            o
            for o in range(len(self.progress))
            if o != seat and self.progress[o] > 0 and self.progress[o] % self.n == field
        ]
        if others:
            if self.lightning:
                self.say(tr("{p} shares the field under the Lightning and pays nothing", p=_p(seat)))
                for other in others:
                    self.skips[other] += 1
                    self.say(tr("{p} shares the field with the Lightning and skips a turn", p=_p(other)))
            else:
                for who in [seat, *others]:
                    if self.coins[who] > 0:
                        self.pay(who, 1)
                        self.say(tr("{p} pays a coin for the shared field", p=_p(who)))
                    else:
                        self.skips[who] += 1
                        self.say(tr("{p} is broke and skips a turn for the shared field", p=_p(who)))
        self.lightning = False
        # 2. banana chip
        if field in self.bananas:
            self.bananas.discard(field)
            self.skips[seat] += 1
            lost = self.lose_half(seat)
            self.say(tr("{p} slips on a banana: skips a turn and loses {coins}", p=_p(seat), coins=_coins(lost)))
        # 3. the field's effect
        kind = self.track.fields[field]
        if kind is FieldType.ITEM:
            self.draw()
            if self.stage is Stage.BANANA:
                return
        elif kind is FieldType.BOOSTER:
            self.stage = Stage.BOOSTER
            self.say(tr("{p} is on a booster and may roll again", p=_p(seat)))
            return
        elif kind is FieldType.MUSHROOM:
            self.halving[seat] = True
            self.say(tr("{p} is on a mushroom field: the next move is halved", p=_p(seat)))
        elif kind is FieldType.THWOMP:
            value = self.die(seat, "thwomp", N_("The Thwomp: {p} rolls {value}"))
            skipped = THWOMP_SKIPS[value]
            self.skips[seat] += skipped
            if skipped:
                self.say(
                    trn(
                        "{p} is crushed by the Thwomp and skips {n} turn",
                        "{p} is crushed by the Thwomp and skips {n} turns",
                        skipped,
                        p=_p(seat),
                    )
                )
            else:
                self.say(tr("{p} dodges the Thwomp", p=_p(seat)))
        self.end_turn()

    def draw(self) -> None:
        seat = self.seat
        held = self.items[seat]
        if held is not None:
            self.say(tr("{p} already holds the {item} and draws nothing", p=_p(seat), item=ITEM_NAMES[held]))
            return
        card = self.deck.pop(0)
        if card is Item.BANANA:
            self.stage = Stage.BANANA
            self.say(tr("{p} draws a Banana", p=_p(seat)))
        elif card is Item.DUD:
            self.under_deck(card)
            self.say(tr("{p} draws a Dud: back under the deck", p=_p(seat)))
        else:
            self.items[seat] = card
            self.say(tr("{p} draws the {item}", p=_p(seat), item=ITEM_NAMES[card]))

    def end_turn(self) -> None:
        self.item_used = False
        self.bundle = 0
        self.mushroom = False
        self.lightning = False
        self.pending_move = 0
        players = len(self.start_order)
        while True:
            self.turn = (self.turn + 1) % players
            seat = self.seat
            if self.skips[seat] <= 0:
                break
            self.skips[seat] -= 1
            self.say(tr("{p} skips this turn", p=_p(seat)))
        self.stage = Stage.PRE_ROLL

    def use_item(self, target: int | None) -> None:
        seat = self.seat
        item = self.items[seat]
        assert item is not None
        self.items[seat] = None
        self.item_used = True
        self.under_deck(item)
        if item is Item.MUSHROOM:
            self.mushroom = True
            self.say(tr("{p} uses the Mushroom: this move counts double", p=_p(seat)))
        elif item is Item.LIGHTNING:
            self.lightning = True
            for other in range(len(self.progress)):
                if other != seat:
                    self.halving[other] = True
            self.say(tr("{p} uses the Lightning: every other kart's next move is halved", p=_p(seat)))
        elif item is Item.GHOST:
            assert target is not None
            stolen = self.items[target]
            assert stolen is not None
            self.items[target] = None
            self.items[seat] = stolen
            self.say(
                tr(
                    "{p} uses the Ghost and takes the {item} from {target}",
                    p=_p(seat),
                    item=ITEM_NAMES[stolen],
                    target=_p(target),
                )
            )
        elif item is Item.BLUE_SHELL:
            assert target is not None
            self.skips[target] += 1
            lost = self.lose_half(target)
            self.say(
                tr(
                    "{p} fires the Blue Shell at the leader {target}: skips a turn and loses {coins}",
                    p=_p(seat),
                    target=_p(target),
                    coins=_coins(lost),
                )
            )
        else:  # Green or Red Shell
            assert target is not None
            self.progress[target] = max(self.progress[seat] - 1, 0)
            lost = self.lose_half(target)
            self.say(
                tr(
                    "{p} hits {target} with the {item}: back to field {field} behind {p}, loses {coins}",
                    p=_p(seat),
                    target=_p(target),
                    item=ITEM_NAMES[item],
                    field=self.progress[target] % self.n,
                    coins=_coins(lost),
                )
            )


def free_fields(state: KartState) -> tuple[int, ...]:
    """Fields with no kart (start-area karts stand on field 0) and no banana chip."""
    n = state.track.length
    taken = {k.progress % n for k in state.karts} | set(state.bananas)
    return tuple(f for f in range(n) if f not in taken)


def item_uses(state: KartState, seat: int) -> tuple[UseItem, ...]:
    """The ways `seat` may use its held item now (ignoring the one-item-per-turn limit)."""
    kart = state.karts[seat]
    item = kart.item
    if item is None or item is Item.FEATHER:
        return ()
    if item in (Item.MUSHROOM, Item.LIGHTNING):
        return (UseItem(None),)
    if item is Item.GHOST:
        return tuple(UseItem(o) for o, k in enumerate(state.karts) if o != seat and k.item is not None)
    me = kart.progress
    reach = SHELL_RANGE[item]
    if item is Item.BLUE_SHELL:
        lead = max(k.progress for k in state.karts)
        if lead == me:
            return ()
        return tuple(UseItem(o) for o, k in enumerate(state.karts) if k.progress == lead and 1 <= lead - me <= reach)
    return tuple(UseItem(o) for o, k in enumerate(state.karts) if o != seat and 1 <= k.progress - me <= reach)


#: The usable tracks when the server starts, as (name, title): the track option's choices and their labels,
#: from one look at the files so that the two line up.
_TRACKS = known_tracks()


class KartEngine:
    """Super Mario Kart, the fan-made board game: 2-7 karts, 3 laps, items, coins and shortcuts."""

    name = "kart"
    title = N_("Super Mario Kart (board game)")
    score_label = tr("laps")
    #: Options for a short game, for tests and demos (see Engine.quick_options).
    quick_options: ClassVar[dict[str, str]] = {"track": "mini-loop"}
    min_players = 2
    max_players = 7
    #: The track choices are the usable tracks found when the server starts (restart it to offer a new
    #: user track); `creation_record` reads the file when a table is created and refuses a track that is
    #: gone with BadOptions.
    options = (
        OptionSpec(
            name="track",
            kind=OptionKind.CHOICE,
            default=DEFAULT_TRACK,
            help=N_("the track to race on (`toadstool tracks` lists them)"),
            choices=tuple(name for name, _ in _TRACKS),
            explain=broken_track_problem,
            label=N_("Track"),
            choice_labels=tuple(title for _, title in _TRACKS),
        ),
    )
    action_types = ACTION_TYPES
    #: A hardware roll button rolls the die for whoever must roll (toadstool.engine.device_action_types).
    device_action_types = (Roll,)
    view_type = KartView
    #: What differs between viewers' views (`private_view`, toadstool.engine.view_split).
    private_view_type = KartPrivateView

    # -- setup
    def creation_record(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The options with the track's content beside its name (see Engine): a table stores this once,
        when it is created, and races on it ever after, whatever later happens to the track file."""
        track = self._track(options)
        return {**options, "track": track.name, TRACK_CONTENT: track_content(track)}

    def new(self, players: int, options: Mapping[str, Any], seed: int) -> KartState:
        """A race on the track a creation record holds, or, given plain options, on the track file its
        name finds now."""
        if not self.min_players <= players <= self.max_players:
            raise BadOptions(f"Super Mario Kart needs {self.min_players}-{self.max_players} players, not {players}")
        track = self._track(options)
        rng = random.Random(seed)
        deck = [item for item, copies in DECK for _ in range(copies)]
        rng.shuffle(deck)
        state = KartState(
            track=track,
            karts=tuple(Kart() for _ in range(players)),
            start_order=tuple(range(players)),
            turn=0,
            stage=Stage.PRE_ROLL,
            bank=COINS,
            deck=tuple(deck),
            bananas=(),
            rng_state=rng.getrandbits(64),
        )
        race = _Race(state)
        race.roll_start_order(players)
        return race.freeze()

    @staticmethod
    def _track(options: Mapping[str, Any]) -> Track:
        name = str(options.get("track", DEFAULT_TRACK))
        content = options.get(TRACK_CONTENT)
        try:
            if content is not None:
                if not isinstance(content, dict):
                    raise TrackError(f"the stored content of the track {name!r} is not a track")
                return parse_track(name, content, source=f"the track {name!r} this table was created with")
            if "/" in name or "\\" in name or name.endswith(".toml"):
                raise TrackError(f"option 'track' names a track, not a file: {preview(name)}")
            return load_track(name)
        except TrackError as error:
            raise BadOptions(f"option 'track': {error}") from None

    # -- whose turn, what is legal
    def to_act(self, state: KartState) -> tuple[int, ...]:
        if state.winner is not None:
            return ()
        return (state.seat,)

    def legal_actions(self, state: KartState, seat: int) -> Sequence[Any]:
        if state.winner is not None or seat != state.seat:
            return ()
        stage = state.stage
        kart = state.karts[seat]
        if stage is Stage.PRE_ROLL or stage is Stage.BOOSTER:
            actions: list[Any] = [Roll()]
            if state.bundle == 0:
                actions.extend(PayCoins(c) for c, _ in BUNDLES if kart.coins >= c)
            if not state.item_used:
                actions.extend(item_uses(state, seat))
            if kart.item in DISCARDABLE:
                actions.append(Discard())
            if stage is Stage.BOOSTER and state.bundle == 0:
                actions.append(EndTurn())
            return tuple(actions)
        if stage is Stage.SHORTCUT:
            cuts = reachable_shortcuts(state.track, kart.progress, state.pending_move)
            return (*(TakeShortcut(i) for i in cuts), StayOnTrack())
        if stage is Stage.BANANA:
            free = free_fields(state)
            if len(state.bananas) < BANANA_CHIPS:
                return (*(PlaceBanana(f) for f in free), DropBanana())
            return (*(MoveBanana(a, f) for a in state.bananas for f in free), DropBanana())
        return ()

    # -- acting
    def apply(self, state: KartState, seat: int, action: Any) -> KartState:
        race = _Race(state)
        race.actor = seat
        if isinstance(action, Roll):
            race.roll()
        elif isinstance(action, PayCoins):
            race.pay(seat, action.coins)
            race.bundle = action.coins
            race.say(
                tr(
                    "{p} pays {coins} for +{fields}",
                    p=_p(seat),
                    coins=_coins(action.coins),
                    fields=_fields(BUNDLE_BONUS[action.coins]),
                )
            )
        elif isinstance(action, UseItem):
            race.use_item(action.target)
        elif isinstance(action, Discard):
            item = race.items[seat]
            assert item is not None
            race.items[seat] = None
            race.under_deck(item)
            race.say(tr("{p} throws away the {item}", p=_p(seat), item=ITEM_NAMES[item]))
        elif isinstance(action, TakeShortcut):
            race.drive(state.pending_move, action.shortcut)
        elif isinstance(action, StayOnTrack):
            race.drive(state.pending_move, None)
        elif isinstance(action, PlaceBanana | MoveBanana | DropBanana):
            race.under_deck(Item.BANANA)
            if isinstance(action, DropBanana):
                race.say(tr("{p} throws the Banana away", p=_p(seat)))
            else:
                if isinstance(action, MoveBanana):
                    race.bananas.discard(action.from_field)
                    race.say(tr("{p} moves the banana chip from field {field}", p=_p(seat), field=action.from_field))
                race.bananas.add(action.field)
                race.say(tr("{p} puts a banana chip on field {field}", p=_p(seat), field=action.field))
            race.end_turn()
        elif isinstance(action, EndTurn):
            race.say(tr("{p} does not roll again", p=_p(seat)))
            race.end_turn()
        else:  # pragma: no cover - the table checks legality first
            raise TypeError(f"not a Kart action: {action!r}")
        return race.freeze()

    # -- what viewers see
    def private_view(self, state: KartState, viewer: int | None) -> KartPrivateView:
        """What only `viewer` is shown: which kart is its own (a race has no secrets but the item deck)."""
        return KartPrivateView(you=viewer)

    def view(self, state: KartState, viewer: int | None) -> KartView:
        n = state.track.length
        places = {seat: place for place, seat in enumerate(state.start_order, start=1)}
        racers = tuple(
            Racer(
                seat=seat,
                color=KARTS[seat][0],
                character=KARTS[seat][1],
                progress=k.progress,
                lap=min(k.progress // n + 1, LAPS),
                field=k.progress % n,
                coins=k.coins,
                item=k.item,
                skips=k.skips,
                halving=k.halving,
                start_place=places[seat],
                in_start_area=k.progress == 0,
            )
            for seat, k in enumerate(state.karts)
        )
        over = state.winner is not None
        return KartView(
            you=self.private_view(state, viewer).you,
            track=state.track,
            laps=LAPS,
            karts=racers,
            banana_fields=state.bananas,
            banana_chips_left=BANANA_CHIPS - len(state.bananas),
            bank=state.bank,
            deck_count=len(state.deck),
            turn=None if over else state.seat,
            stage=state.stage,
            start_order=state.start_order,
            item_used=state.item_used,
            bundle_paid=state.bundle,
            bundle_bonus=BUNDLE_BONUS.get(state.bundle, 0),
            mushroom=state.mushroom,
            lightning=state.lightning,
            pending_move=state.pending_move,
            last_rolls=tuple(RollView(r.roller, r.purpose, r.value) for r in state.last_rolls),
            ranking=ranking(state) if over else (),
            winner=state.winner,
            scores=self._scores(state),
            phase=self._phase(state),
        )

    def _scores(self, state: KartState) -> tuple[int, ...]:
        n = state.track.length
        return tuple(min(k.progress // n, LAPS) for k in state.karts)

    def _phase(self, state: KartState) -> str:
        if state.winner is not None:
            return tr("{p} won the race", p=_p(state.winner))
        who = _p(state.seat)
        if state.stage is Stage.BOOSTER:
            return tr("{p} on a booster: roll again?", p=who)
        if state.stage is Stage.SHORTCUT:
            return tr("{p} to choose: shortcut or track", p=who)
        if state.stage is Stage.BANANA:
            return tr("{p} to place a banana chip", p=who)
        return tr("{p} to roll", p=who)

    def outcome(self, state: KartState) -> Outcome | None:
        if state.winner is None:
            return None
        ranks = ranking(state)
        order = sorted(range(len(ranks)), key=lambda s: ranks[s])
        places = ", ".join(f"{ranks[s]}. {_p(s)}" for s in order)
        n = state.track.length
        details = tuple(
            tr("{place}. {p}: crossed the finish line", place=ranks[s], p=_p(s))
            if s == state.winner
            else tr(
                "{place}. {p}: lap {lap} of {laps}, field {field}",
                place=ranks[s],
                p=_p(s),
                lap=min(state.karts[s].progress // n + 1, LAPS),
                laps=LAPS,
                field=state.karts[s].progress % n,
            )
            for s in order
        )
        return Outcome(
            winners=(state.winner,),
            scores=self._scores(state),
            summary=tr(
                "{p} wins the race on {track} ({places})",
                p=_p(state.winner),
                track=state.track.said_title,
                places=places,
            ),
            details=details,
            places=ranks,
        )

    def last_events(self, state: KartState) -> tuple[Event, ...]:
        return state.events

    def describe(self, state: KartState, seat: int, action: Any) -> str:
        kart = state.karts[seat]
        n = state.track.length
        if isinstance(action, Roll):
            return _ROLL_AGAIN if state.stage is Stage.BOOSTER else _ROLL
        if isinstance(action, PayCoins):
            bonus = BUNDLE_BONUS[action.coins]
            return tr("Pay {coins} for +{fields}", coins=_coins(action.coins), fields=_fields(bonus))
        if isinstance(action, UseItem):
            item = kart.item
            if item is Item.MUSHROOM:
                return tr("Use the Mushroom (this move counts double)")
            if item is Item.LIGHTNING:
                return tr("Use the Lightning (halve everyone else's next move)")
            if item is Item.GHOST and action.target is not None:
                stolen = state.karts[action.target].item
                what = ITEM_NAMES[stolen] if stolen is not None else _ITEM
                return tr("Use the Ghost to take {target}'s {item}", target=_p(action.target), item=what)
            name = ITEM_NAMES[item] if item is not None else _ITEM
            return tr(
                "Fire the {item} at {target}", item=name, target=_p(action.target) if action.target is not None else ""
            )
        if isinstance(action, Discard):
            name = ITEM_NAMES[kart.item] if kart.item is not None else _ITEM
            return tr("Throw away the {item}", item=name)
        if isinstance(action, TakeShortcut):
            cut = state.track.shortcuts[action.shortcut]
            to = shortcut_progress(state.track, kart.progress, state.pending_move, cut)
            return tr(
                "Take shortcut {label} ({start} -> {exit}) with the Feather to field {field}",
                label=cut.label,
                start=cut.start,
                exit=cut.exit,
                field=to % n,
            )
        if isinstance(action, StayOnTrack):
            return tr("Stay on the track to field {field}", field=(kart.progress + state.pending_move) % n)
        if isinstance(action, PlaceBanana):
            return tr(
                "Put a banana chip on field {field} ({kind})",
                field=action.field,
                kind=FIELD_NAMES[state.track.fields[action.field]],
            )
        if isinstance(action, MoveBanana):
            return tr(
                "Move the banana chip from field {start} to field {field}", start=action.from_field, field=action.field
            )
        if isinstance(action, DropBanana):
            return _DROP_BANANA
        if isinstance(action, EndTurn):
            return _END_TURN
        return repr(action)


_ROLL = tr("Roll the die")
_ROLL_AGAIN = tr("Roll again (booster)")
_ITEM = tr("item")
_DROP_BANANA = tr("Throw the Banana away")
_END_TURN = tr("End the turn without rolling again")
