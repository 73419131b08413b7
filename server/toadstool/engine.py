"""The one engine interface that all four games implement, and the small value types they share.

This module is for what every game has in common: the `Engine` protocol (docs/design.md, principle 1), events
with their per-viewer visibility, outcomes, option specs, the stable action id, and how every error message
quotes what a client sent (`preview`, `listing`). It is not for anything a particular game decides: rules
live in `toadstool.games.<game>`, and nothing here speaks gRPC.

An engine is a stateless object of pure functions over an immutable state value. The state carries its own
seeded RNG so that a game is exactly its seed plus its list of actions.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

from toadstool.i18n import N_ as N_  # games mark their titles and options' help with it (docs/design.md §4.1)
from toadstool.i18n import Text, tr, trn

S = TypeVar("S")
A = TypeVar("A")
#: A game's state where a Protocol only takes it (a hook): contravariant.
_State = TypeVar("_State", contravariant=True)

#: The viewer id of a spectator: someone watching who holds no seat and may see only public state.
SPECTATOR: int | None = None


#: How many characters of a value a client sent an error message quotes (`preview`).
PREVIEW_LENGTH = 40
#: About how many characters of a list of choices an error message shows (`listing`).
LISTING_LENGTH = 200


def _shown(text: str, limit: int) -> tuple[str, bool]:
    """`text` safe to show (each unprintable character as its backslash escape, so no control sequence or
    bidi override reaches a screen), cut before it passes `limit` characters; and whether all of it fit."""
    out: list[str] = []
    used = 0
    for ch in text:
        shown = ch if ch.isprintable() else ch.encode("unicode_escape", "backslashreplace").decode("ascii")
        used += len(shown)
        if used > limit:
            return "".join(out), False
        out.append(shown)
    return "".join(out), True


def preview(value: object, limit: int = PREVIEW_LENGTH) -> str:
    """How an error message quotes a value it was sent: a string in quotes, anything else as text, either
    cut to `limit` characters with an ellipsis (``'xxxx…'``). Every echo of a client's input goes through
    here, so a message stays short however long the input (a 10,000-character game name would otherwise
    make the answer pass gRPC's metadata limit and reach the client as a broken stream)."""
    text, whole = _shown(value if isinstance(value, str) else str(value), limit)
    text = text if whole else text + "…"
    return f"'{text}'" if isinstance(value, str) else text


def listing(items: Iterable[object], separator: str = ", ", limit: int = LISTING_LENGTH) -> Text:
    """The choices an error message names ("one of a, b, c"), as many as fit in about `limit` characters,
    then how many more there are ("a, b, and 12 more"); "none" when there are none. A `Text`, so the words
    around the items are said in the message's language (`str()` of it is the English)."""
    names = [str(item) for item in items]
    shown: list[str] = []
    used = 0
    for name in names:
        text, whole = _shown(name, PREVIEW_LENGTH)
        used += len(text) + len(separator)
        if shown and used > limit:
            break
        shown.append(text if whole else text + "…")
    if not shown:
        return tr("none")
    if len(shown) < len(names):
        more = len(names) - len(shown)
        return trn(
            "{items}{separator}and {n} more",
            "{items}{separator}and {n} more",
            more,
            items=separator.join(shown),
            separator=separator,
        )
    return Text("{items}", (("items", separator.join(shown)),))  # the items alone: nothing to translate


class EngineError(Exception):
    """Base of the errors an engine raises; each carries a message a person can act on (values a client
    sent quoted with `preview`, lists of choices with `listing`): `text`, said in its reader's language
    where it is a `toadstool.i18n.Text`; `str(error)` is its English."""

    def __init__(self, text: Text | str) -> None:
        super().__init__(str(text))
        self.text = text


class IllegalAction(EngineError):
    """The action is not among the seat's legal actions right now (raised by the table, not by `apply`)."""


class BadOptions(EngineError):
    """A table option is unknown or its value is out of range."""


@dataclass(frozen=True, slots=True)
class DieRoll:
    """A die roll, public by nature, so clients can animate it and the MQTT bridge can show it on LED dice."""

    roller: int
    purpose: str  # "start_order", "move", "booster", "thwomp", ...
    value: int


@dataclass(frozen=True, slots=True)
class Event:
    """Something that just happened, as each viewer may know it.

    `text` is what everybody (spectators included) is told. `private` gives some seats a different text
    instead ("you drew the red 5" where the others read "Luigi drew a card"). Keeping both in one value
    lets `event_text` be the single rule for who reads what. `round_result` marks the lines of a round's
    result as the game scored it, so clients find the round's recap without reading the words (which are
    in each reader's language).
    """

    text: str
    seat: int | None = None
    private: tuple[tuple[int, str], ...] = ()
    roll: DieRoll | None = None
    round_result: bool = False


def event_text(event: Event, viewer: int | None) -> str:
    """The text of `event` that `viewer` (a seat, or None for a spectator) is allowed to read."""
    if viewer is not None:
        for seat, text in event.private:
            if seat == viewer:
                return text
    return event.text


_SEAT_REF = re.compile(r"\{p(\d+)\}")


def name_seats(text: str, names: Sequence[str]) -> str:
    """Replace the seat references `{p0}`, `{p1}`, ... in an engine text with the seats' names.

    Engines write every human text this way because only the table knows who sits where; a reference to
    a seat with no name reads "Player N" (N counted from 1).
    """
    if "{" not in text:  # most texts (card names, labels) name no seat: skip the regex and its callback
        return text
    return _named(text, tuple(names))


#: The seat references `{p0}` ... `{p15}` (`seat_ref`), made once.
_SEAT_REFS = tuple(f"{{p{seat}}}" for seat in range(16))


def seat_ref(seat: int) -> str:
    """The reference `{pN}` to `seat` that a text names it by (a value of a `tr` message: `name_seats` fills
    it in once the text is said)."""
    return _SEAT_REFS[seat] if seat < len(_SEAT_REFS) else f"{{p{seat}}}"


@functools.lru_cache(maxsize=4096)
def _named(text: str, names: tuple[str, ...]) -> str:
    """`name_seats`, remembered: after every move each viewer's phase, events and labels are named again,
    and the same few texts ("{p2} to play") recur with the same names all evening."""

    def name(match: re.Match[str]) -> str:
        seat = int(match.group(1))
        return names[seat] if seat < len(names) and names[seat] else f"Player {seat + 1}"

    return _SEAT_REF.sub(name, text)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended: the winning seats (several when the win is shared) and final scores.

    `summary` is one line; `details` is the game's own account of how it got there, a line each (UNO's
    hands, Level Up!'s rounds, Power Up's eliminations, Kart's finishing order), for end-of-game screens.
    Both may name seats as {pN}, as event texts do.
    """

    winners: tuple[int, ...]
    scores: tuple[int, ...] = ()
    summary: str = ""
    details: tuple[str, ...] = ()
    #: Each seat's final place by the game's rules (1 = first; equal places share), when the scores do not
    #: tell it (Kart: progress on the track, not laps); empty: rank by the winners, then the scores.
    places: tuple[int, ...] = ()


class OptionKind(enum.Enum):
    INT = "int"
    BOOL = "bool"
    CHOICE = "choice"
    TEXT = "text"


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One table option a game accepts at creation (`--option name=value`), with its default and range."""

    name: str
    kind: OptionKind
    default: str
    help: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()
    max_length: int = 200
    #: For a CHOICE: what is wrong with a value that is not among the choices, when the game knows more
    #: than "not one of them" (a user's Kart track file that is broken); None says nothing more.
    explain: Callable[[str], str | None] | None = dataclasses.field(default=None, compare=False, repr=False)
    #: The option's name as a person reads it (marked with `N_`: said in the reader's language); empty for
    #: a game that gives none (clients show `name`).
    label: str = ""
    #: For a CHOICE: each choice as a person reads it, in the order of `choices` (a track's title), each a
    #: message of the catalogue or a value shown as it is (`said_choice`); empty: the choices themselves.
    choice_labels: tuple[str, ...] = ()


def parse_options(specs: Sequence[OptionSpec], given: Mapping[str, str]) -> dict[str, Any]:
    """Validate raw string options against `specs` and return typed values, defaults filled in.

    Raises BadOptions naming the option and what is allowed, so `toadstool new --option` errors are clear.
    """
    by_name = {spec.name: spec for spec in specs}
    for name in given:
        if name not in by_name:
            raise BadOptions(
                tr(
                    "unknown option {option}; this game's options are: {options}",
                    option=preview(name),
                    options=listing(sorted(by_name)),
                )
            )
    values: dict[str, Any] = {}
    for spec in specs:
        raw = given.get(spec.name, spec.default)
        values[spec.name] = _parse_option(spec, raw)
    return values


def _parse_option(spec: OptionSpec, raw: str) -> Any:
    if spec.kind is OptionKind.INT:
        try:
            value = int(raw)
        except ValueError:
            raise BadOptions(
                tr("option {option} must be a whole number, not {value}", option=repr(spec.name), value=preview(raw))
            ) from None
        if spec.minimum is not None and value < spec.minimum:
            raise BadOptions(
                tr(
                    "option {option} must be at least {min}, not {value}",
                    option=repr(spec.name),
                    min=spec.minimum,
                    value=preview(value),
                )
            )
        if spec.maximum is not None and value > spec.maximum:
            raise BadOptions(
                tr(
                    "option {option} must be at most {max}, not {value}",
                    option=repr(spec.name),
                    max=spec.maximum,
                    value=preview(value),
                )
            )
        return value
    if spec.kind is OptionKind.BOOL:
        lowered = raw.strip().lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off", ""):
            return False
        raise BadOptions(
            tr("option {option} must be true or false, not {value}", option=repr(spec.name), value=preview(raw))
        )
    if spec.kind is OptionKind.CHOICE:
        problem = spec.explain(raw) if spec.explain is not None and raw not in spec.choices else None
        if problem:
            raise BadOptions(tr("option {option}: {problem}", option=repr(spec.name), problem=problem))
        if raw not in spec.choices:
            raise BadOptions(
                tr(
                    "option {option} must be one of {choices}, not {value}",
                    option=repr(spec.name),
                    choices=listing(spec.choices),
                    value=preview(raw),
                )
            )
        return raw
    if len(raw) > spec.max_length:
        raise BadOptions(
            trn(
                "option {option} is longer than {n} character",
                "option {option} is longer than {n} characters",
                spec.max_length,
                option=repr(spec.name),
            )
        )
    # Free text reaches every player's screen: keep only printable characters (no escapes, no bidi).
    return "".join(ch for ch in raw if unicodedata.category(ch)[0] != "C")


def action_id(action: object) -> str:
    """A stable, human-readable id for a dataclass action, e.g. ``play_card:card_id=12,color=1``.

    Ids are derived from the action's type and field values, so the same action always has the same id
    across versions and processes; clients may send an id back instead of the typed action. A field that
    is unset (None) is left out (``use_item``, not ``use_item:target=None``).
    """
    name, fields = _id_shape(type(action))
    if not fields:
        return name
    parts = []
    for field in fields:
        value = getattr(action, field)
        if value is None:
            continue
        if isinstance(value, enum.Enum):
            value = value.name.lower()
        elif isinstance(value, bool):
            value = int(value)
        elif isinstance(value, tuple):
            value = "-".join(str(v.value if isinstance(v, enum.Enum) else v) for v in value)
        parts.append(f"{field}={value}")
    return f"{name}:{','.join(parts)}" if parts else name


def current_action_id(stored: str) -> str:
    """The id an action has now, given the id it was stored under: before unset fields were left out of
    ids, they were written as ``=None`` (``use_item:target=None``). Databases keep those ids, so a table
    written then replays the same."""
    if "=None" not in stored:
        return stored
    name, _, fields = stored.partition(":")
    kept = [part for part in fields.split(",") if not part.endswith("=None")]
    return f"{name}:{','.join(kept)}" if kept else name


_ID_SHAPES: dict[type, tuple[str, tuple[str, ...]]] = {}


def _id_shape(cls: type) -> tuple[str, tuple[str, ...]]:
    """An action class's id prefix and field names, looked up once per class: every legal action of every
    seat gets an id after every move, and `dataclasses.fields` is slow to ask each time."""
    shape = _ID_SHAPES.get(cls)
    if shape is None:
        fields = tuple(f.name for f in dataclasses.fields(cls)) if dataclasses.is_dataclass(cls) else ()
        shape = _ID_SHAPES[cls] = (_snake(cls.__name__), fields)
    return shape


_SNAKE_CACHE: dict[str, str] = {}


def _snake(name: str) -> str:
    cached = _SNAKE_CACHE.get(name)
    if cached is None:
        out = []
        for i, ch in enumerate(name):
            if ch.isupper() and i and not name[i - 1].isupper():
                out.append("_")
            out.append(ch.lower())
        cached = _SNAKE_CACHE[name] = "".join(out)
    return cached


@runtime_checkable
class Engine(Protocol[S, A]):
    """The rules of one game as pure functions over an immutable state (docs/design.md, principle 1).

    The server, bots, store and clients never branch on which game it is: they call these.

    - `new` deals/sets up a fresh game from the player count, parsed options and a seed.
    - `to_act` lists the seats the game is waiting for (it stalls until one of them acts). Other seats may
      still have optional actions (catching a missed UNO call, any-time cards): `legal_actions` tells.
    - `legal_actions` is the single place legality is decided (principle 3); it is empty for a seat with
      nothing to do and for every seat once the game is over.
    - `apply` assumes a legal action and returns the next state (never mutating the old one), resolving
      everything automatic that follows (deals, skipped turns, scoring). It records what happened in
      `last_events`.
    - `view` is the only door for state leaving the server (principle 4): everything `viewer` may know.
      Every view dataclass has at least `phase: str` (what is happening, in a few words) and
      `scores: tuple[int, ...]` (one per seat), which the table copies into each update for generic clients.
    - `outcome` is None until the game is over.

    A game may also have the optional hook `private_view(state, viewer)`, with the class it returns as
    `private_view_type`: a dataclass of the fields of its view that differ from one viewer to another (the
    hand, `you`, what only one seat was shown), named as in `view_type`, holding what `view(state, viewer)`
    holds in them (a game's `view` builds them by calling it, so they are one code). The server then
    serialises the other fields once per version, from the spectator's view, for every viewer, and per
    viewer only the private ones (`view_split` below). `phase` and `scores` are never private: every viewer
    is told the same. A game without the hook has each whole view built and serialised per viewer.

    A game whose options name something outside itself (a Kart track file) also has the optional hook
    `creation_record(options) -> dict`: the parsed options made self-contained (the track's content, not
    only its name), which `new` accepts in place of the options. The table calls it once, when it is
    created (through `creation_record` below, which also serves the games without the hook), stores the
    record and replays from it ever after, so no later change outside the table changes its game.
    """

    # The data members are read-only properties here so that a game's class attributes (a tuple of its own
    # action classes, a dict of quick options) satisfy them as they are.
    @property
    def name(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def score_label(self) -> str:
        """What the `scores` in every view count: "points", "Extra Lives", "laps"."""

    @property
    def quick_options(self) -> Mapping[str, str]:
        """Options that make a short game (one UNO hand, the short Kart track), for tests, demos and benchmarks."""

    @property
    def min_players(self) -> int: ...

    @property
    def max_players(self) -> int: ...

    @property
    def options(self) -> tuple[OptionSpec, ...]: ...

    @property
    def action_types(self) -> tuple[type, ...]: ...

    @property
    def view_type(self) -> type: ...

    def new(self, players: int, options: Mapping[str, Any], seed: int) -> S: ...

    def to_act(self, state: S) -> tuple[int, ...]: ...

    def legal_actions(self, state: S, seat: int) -> Sequence[A]: ...

    def apply(self, state: S, seat: int, action: A) -> S: ...

    def view(self, state: S, viewer: int | None) -> Any: ...

    def outcome(self, state: S) -> Outcome | None: ...

    def last_events(self, state: S) -> tuple[Event, ...]: ...

    def describe(self, state: S, seat: int, action: A) -> str: ...


#: The members every engine has (`Engine`'s), named in the refusal of a game that lacks some.
ENGINE_MEMBERS: tuple[str, ...] = tuple(name for name in vars(Engine) if not name.startswith("_"))


@runtime_checkable
class PrivateViews(Protocol[_State]):
    """The optional hook of a game whose views differ between viewers in a few fields (see `Engine`):
    `private_view` builds those fields as a `private_view_type`. A game with it states so where its engine
    is made (`_private: PrivateViews[State] = ENGINE` under TYPE_CHECKING), so that mypy checks it."""

    @property
    def private_view_type(self) -> type: ...

    def private_view(self, state: _State, viewer: int | None) -> Any: ...


@runtime_checkable
class CreationRecords(Protocol):
    """The optional hook of a game whose options name something outside itself (see `Engine`)."""

    def creation_record(self, options: Mapping[str, Any]) -> dict[str, Any]: ...


@runtime_checkable
class DeviceActions(Protocol):
    """The optional attribute of a game a hardware button can play: the action types it may take for whoever
    must take one (a die roll)."""

    @property
    def device_action_types(self) -> tuple[type, ...]: ...


def creation_record(engine: Any, options: Mapping[str, Any]) -> dict[str, Any]:
    """What a table of `engine` stores as its game's creation record, from the parsed `options`: the
    engine's `creation_record(options)` hook where it has one, else the options themselves. The record is
    returned as it reads back from the store (through JSON), so a table plays the same before and after a
    restart. Raises BadOptions when the options name something that cannot be found (a removed track)."""
    record = engine.creation_record(options) if isinstance(engine, CreationRecords) else dict(options)
    try:
        decoded: dict[str, Any] = json.loads(json.dumps(record, sort_keys=True))
    except (TypeError, ValueError) as error:  # a game's bug, not the person's: say which game
        raise TypeError(f"the creation record of {engine.name!r} is not JSON data: {error}") from None
    return decoded


@functools.cache
def view_split(engine_type: type[Any]) -> tuple[frozenset[str], frozenset[str]] | None:
    """The (public, private) field names of the views of an engine class with `private_view` (see `Engine`),
    or None for a game without it. Raises TypeError for a `private_view_type` the server cannot honour (a
    field that is no field of its `view_type`, or `phase` or `scores`): a game's bug, said at its first
    update rather than shown to players as a wrong view."""
    private_type = getattr(engine_type, "private_view_type", None)
    if private_type is None or not hasattr(engine_type, "private_view"):
        return None
    names = frozenset(field.name for field in dataclasses.fields(engine_type.view_type))
    private = frozenset(field.name for field in dataclasses.fields(private_type))
    wrong = sorted(private - names) or sorted(private & {"phase", "scores"})
    if wrong:
        raise TypeError(
            f"{engine_type.__name__}.private_view_type has {wrong}: its fields must be fields of the game's "
            "view_type other than phase and scores"
        )
    return names - private, private


def device_action_types(engine: object) -> tuple[type, ...]:
    """The action types a hardware button may take for whoever must take one (a die roll), from an engine's
    optional `device_action_types` attribute; games without one have none."""
    return tuple(engine.device_action_types) if isinstance(engine, DeviceActions) else ()


class Bot(Protocol):
    """Chooses an action for one seat from what that seat may know (its view) and its legal actions.

    Bots see only the view, never the state, so a bot cannot cheat. `choose` returns None when the seat
    is not obliged to act (it is not in `to_act`) and prefers to let an optional window pass.
    """

    #: False for bots that ignore the view, so playouts can skip computing it.
    needs_view: bool

    def choose(self, view: Any, legal: Sequence[Any], must_act: bool, rng: Any) -> Any | None: ...
