"""Golden playthroughs: what each seat and the spectator saw at every step of one seeded game per registered
game, written to tests/golden/<game>.txt as lines a person can review (OpenSpiel's playthroughs are the
model). tests/test_golden.py compares them with the game played now, and reads them back (reader.py) to
prove they hold every view in full. This is test tooling: it is not part of the installed package.

After an intended change to rules or views, regenerate the files and review `git diff tests/golden`:

    python tests/golden/writer.py --write         # every game
    python tests/golden/writer.py --write uno     # one game
    python tests/golden/writer.py                 # only check: exit 1 and name the stale files

The format: one line per fact. A line that names no viewer is what every viewer (each seat and the
spectator) saw; otherwise it starts with the viewers it is for (`seat 1`, `seats 0 2`, `spectator`,
`seats 0 2 + spectator`).

    == setup                                       the dealt game, before any action
    == step 12: seat 1 draw (Draw a card)          the action taken at this step: seat, action id, label
    event: The draw pile was shuffled              an event, in the same words for every viewer
    seat 1 event: you drew the red 5               ... or in the words some viewers read
    view: uno.color: GREEN -> BLUE                 a field of the view that changed: old -> new
    seat 1 view: uno.hand[3] + {id: 9, color: RED, kind: NUMBER, number: 5, points: 5}
    seat 1 view: uno.hand[0] - {id: 4, color: RED, kind: NUMBER, number: 2, points: 2}
    seat 1 legal: draw play_card:card_id=9         the seat's legal action ids, when they changed
    == outcome: winners [1] scores [0, 41, 0]      how the game ended

At setup every viewer's view lists each field that is set (`path = value`) and each seat its legal actions;
after that a step lists only what changed since the same viewer's previous step, so applying the lines in
order rebuilds every view. Values read as in protobuf's text format, on one line: numbers, true/false,
"strings" (JSON-escaped), enum values without their type's prefix (RED for UNO_COLOR_RED), lists `[a, b]`
and messages `{field: value, ...}` with unset fields left out; `(unset)` is a field that is not present.
A list of messages changes element by element: `+` adds an element (its index counts in the new list),
`-` takes one out (its index counts in the previous list), and a changed field of an element that stays is
addressed by the element's new index. Elements are matched by their `id` or `seat` field where they have
one, so a card played from a hand is one `-` line, not a shifted hand. A map's entries are paths of their
own (`generic.state.fields["hand"]`); google.protobuf.Value is written as JSON.
"""

from __future__ import annotations

import argparse
import base64
import difflib
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from toadstool.bots import RandomBot
from toadstool.engine import Engine, action_id, event_text, name_seats, parse_options
from toadstool.games import GAMES, get_game
from toadstool.selfplay import play
from toadstool.server.messages import game_view_message

GOLDEN_DIR = Path(__file__).resolve().parent

#: (players, seed) of the recorded game per registry key; a game not listed plays its fewest players, seed 7.
SETTINGS: dict[str, tuple[int, int]] = {"uno": (3, 7), "powerup": (4, 7), "levelup": (3, 7), "kart": (3, 7)}

LEGEND = (
    "# Format: tests/golden/writer.py. A line naming no viewer is what every viewer saw; views list each set "
    "field at setup, then only what changed."
)

Viewer = int | None
#: protobuf's descriptors (its stubs tell the pure-Python and the upb classes apart, so these stay loose).
FieldDescriptor = Any
Descriptor = Any


# ---- what was seen ---------------------------------------------------------------------------------------


@dataclass
class Seen:
    """What one viewer saw after one step: the events (in the viewer's words), the view, the legal action
    ids (None for the spectator)."""

    events: list[str]
    view: Message
    legal: list[str] | None


@dataclass
class Step:
    """One step of a playthrough: its header (`setup`, or the action taken) and what each viewer saw."""

    header: str
    seen: dict[Viewer, Seen] = field(default_factory=dict)


@dataclass
class Playthrough:
    """One recorded game: its title (game, players, seed), its viewers (seats, then None for the spectator),
    every step and how it ended."""

    title: str
    viewers: list[Viewer]
    steps: list[Step]
    outcome: str


def settings(game: str) -> tuple[int, int]:
    """(players, seed) of the recorded game of `game`."""
    return SETTINGS.get(game, (get_game(game).engine.min_players, 7))


def play_through(game: str) -> Playthrough:
    """Play the seeded random short game (the engine's quick options) of `game` and keep what every viewer
    saw at every step."""
    players, seed = settings(game)
    engine: Engine[Any, Any] = get_game(game).engine
    options = parse_options(engine.options, engine.quick_options)
    viewers: list[Viewer] = [*range(players), None]
    steps: list[Step] = []
    previous: list[Any] = [None]

    def observe(state: Any, seat: int | None, action: Any) -> None:
        if seat is None:
            header = "setup"
        else:
            label = name_seats(engine.describe(previous[0], seat, action), ())
            header = f"step {len(steps)}: seat {seat} {action_id(action)} ({label})"
        previous[0] = state
        step = Step(header)
        for viewer in viewers:
            events = [name_seats(event_text(event, viewer), ()) for event in engine.last_events(state)]
            view = game_view_message(engine, engine.view(state, viewer))
            legal = None if viewer is None else [action_id(a) for a in engine.legal_actions(state, viewer)]
            step.seen[viewer] = Seen(events, view, legal)
        steps.append(step)

    result = play(engine, [RandomBot() for _ in range(players)], seed, options=options, observe=observe)
    outcome = f"winners {list(result.outcome.winners)} scores {list(result.outcome.scores)}"
    return Playthrough(f"{engine.title}: {players} players, seed {seed}", viewers, steps, outcome)


# ---- values on one line ----------------------------------------------------------------------------------

#: Well-known types shown as one JSON value rather than field by field.
LEAF_TYPES = {"google.protobuf.Value", "google.protobuf.ListValue"}
UNSET = "(unset)"


def is_repeated(f: FieldDescriptor) -> bool:
    flag = getattr(f, "is_repeated", None)  # protobuf >= 6; `label` before (and gone in 7)
    return bool(flag) if flag is not None else f.label == f.LABEL_REPEATED


def is_nested(f: FieldDescriptor) -> bool:
    """A message field shown field by field (not a well-known leaf)."""
    return f.message_type is not None and f.message_type.full_name not in LEAF_TYPES


def is_map(f: FieldDescriptor) -> bool:
    return f.message_type is not None and f.message_type.GetOptions().map_entry


def map_value(f: FieldDescriptor) -> FieldDescriptor:
    """The value field of a map field's entries."""
    return f.message_type.fields_by_name["value"]


@cache
def enum_prefix(enum: Any) -> str:
    """The prefix its values share by the style rule (UNO_COLOR_ for UnoColor), or "" when they do not."""
    prefix = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", enum.name).upper() + "_"
    short = [value.name[len(prefix) :] for value in enum.values]
    ok = all(v.name.startswith(prefix) for v in enum.values) and all(re.match(r"[A-Za-z_]", s) for s in short)
    return prefix if ok else ""


def _scalar(f: FieldDescriptor, value: Any) -> str:
    if f.message_type is not None:
        if is_nested(f):
            return message_text(value)
        return json.dumps(json_format.MessageToDict(value), ensure_ascii=False, sort_keys=True)
    if f.enum_type is not None:
        known = f.enum_type.values_by_number.get(value)
        return str(value) if known is None else known.name[len(enum_prefix(f.enum_type)) :]
    if f.type == f.TYPE_BOOL:
        return "true" if value else "false"
    if f.type == f.TYPE_STRING:
        return json.dumps(value, ensure_ascii=False)
    if f.type == f.TYPE_BYTES:
        return json.dumps(base64.b64encode(value).decode())
    return repr(value)


def _map_key(key: Any) -> str:
    return json.dumps(key) if isinstance(key, str) else repr(key)


def _value(message: Message, f: FieldDescriptor) -> str:
    """A present field of `message` on one line."""
    value = getattr(message, f.name)
    if is_map(f):
        entry = map_value(f)
        return "{" + ", ".join(f"{_map_key(k)}: {_scalar(entry, value[k])}" for k in sorted(value)) + "}"
    if is_repeated(f):
        return "[" + ", ".join(_scalar(f, item) for item in value) + "]"
    return _scalar(f, value)


def _present(message: Message, f: FieldDescriptor) -> bool:
    if is_repeated(f):
        return len(getattr(message, f.name)) > 0
    if f.has_presence:
        return message.HasField(f.name)
    return bool(getattr(message, f.name) != f.default_value)


def message_text(message: Message) -> str:
    """`message` on one line: `{field: value, ...}`, its set fields in the order the .proto declares them."""
    fields = message.DESCRIPTOR.fields
    return "{" + ", ".join(f"{f.name}: {_value(message, f)}" for f in fields if _present(message, f)) + "}"


# ---- a view as lines: every field, then what changed -----------------------------------------------------


def listing(message: Message, path: str = "") -> list[str]:
    """Every set field of `message`, one line each (`path = value`); a message field field by field, each
    element of a list of messages on its own line."""
    lines: list[str] = []
    for f in message.DESCRIPTOR.fields:
        name = f"{path}.{f.name}" if path else f.name
        if not _present(message, f):
            continue
        if is_map(f):
            entry = map_value(f)
            items = getattr(message, f.name)
            lines += [f"{name}[{_map_key(k)}] = {_scalar(entry, items[k])}" for k in sorted(items)]
        elif is_repeated(f) and is_nested(f):
            lines += [f"{name}[{i}] = {message_text(item)}" for i, item in enumerate(getattr(message, f.name))]
        elif is_nested(f) and not is_repeated(f):
            lines += listing(getattr(message, f.name), name) or [f"{name} = {{}}"]
        else:
            lines.append(f"{name} = {_value(message, f)}")
    return lines


def _or_unset(message: Message, f: FieldDescriptor) -> str:
    return UNSET if f.has_presence and not message.HasField(f.name) else _value(message, f)


def changes(old: Message, new: Message, path: str = "") -> list[str]:
    """What changed from `old` to `new`, one line per field (`path: old -> new`), element by element in a
    list of messages (`path[i] + value`, `path[i] - value`)."""
    lines: list[str] = []
    if old == new:
        return lines
    for f in new.DESCRIPTOR.fields:
        name = f"{path}.{f.name}" if path else f.name
        a, b = getattr(old, f.name), getattr(new, f.name)
        if (not f.has_presence or old.HasField(f.name) == new.HasField(f.name)) and a == b:
            continue
        if is_map(f):
            entry = map_value(f)
            for k in sorted(set(a) | set(b)):
                key = f"{name}[{_map_key(k)}]"
                if k in a and k in b and is_nested(entry):
                    lines += changes(a[k], b[k], key)
                else:
                    before = _scalar(entry, a[k]) if k in a else UNSET
                    after = _scalar(entry, b[k]) if k in b else UNSET
                    lines += [f"{key}: {before} -> {after}"] if before != after else []
        elif is_repeated(f) and is_nested(f):
            lines += _list_changes(f.message_type, list(a), list(b), name)
        elif is_nested(f) and old.HasField(f.name) and new.HasField(f.name):
            lines += changes(a, b, name)
        else:
            before, after = _or_unset(old, f), _or_unset(new, f)
            lines += [f"{name}: {before} -> {after}"] if before != after else []
    return lines


def _list_changes(kind: Descriptor, old: list[Message], new: list[Message], path: str) -> list[str]:
    key = next((k for k in ("id", "seat") if k in kind.fields_by_name), None)

    def identity(item: Message) -> object:
        return getattr(item, key) if key else item.SerializeToString(deterministic=True)

    lines: list[str] = []
    matcher = difflib.SequenceMatcher(None, [identity(x) for x in old], [identity(x) for x in new], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        # Elements that stay: the same key, or (without one) a changed run as long as the one it replaces.
        kept = i2 - i1 if tag == "equal" else 0 if key else min(i2 - i1, j2 - j1)
        if tag != "equal" or key:
            for k in range(kept):
                lines += changes(old[i1 + k], new[j1 + k], f"{path}[{j1 + k}]")
        lines += [f"{path}[{i}] - {message_text(old[i])}" for i in range(i1 + kept, i2)]
        lines += [f"{path}[{j}] + {message_text(new[j])}" for j in range(j1 + kept, j2)]
    return lines


# ---- the golden text ------------------------------------------------------------------------------------


def who(viewers: Sequence[Viewer], everyone: Sequence[Viewer]) -> str:
    """The prefix naming `viewers`: "" for everyone, else `seat 1 `, `seats 0 2 `, `seats 0 2 + spectator `."""
    if list(viewers) == list(everyone):
        return ""
    seats = [str(v) for v in viewers if v is not None]
    parts = [f"seat{'s' if len(seats) > 1 else ''} {' '.join(seats)}"] if seats else []
    parts += ["spectator"] if None in viewers else []
    return " + ".join(parts) + " "


def _grouped(kind: str, lines: dict[Viewer, list[str]], everyone: list[Viewer]) -> list[str]:
    """Lines the viewers have in common written once, naming the viewers each is for: first the lines every
    viewer has, then the others in viewer order."""
    holders: dict[str, list[Viewer]] = {}
    for viewer in everyone:
        for line in lines.get(viewer, []):
            holders.setdefault(line, []).append(viewer)
    order = sorted(holders, key=lambda line: holders[line] != everyone)  # stable: everyone's lines first
    return [f"{who(holders[line], everyone)}{kind}: {line}" for line in order]


def golden_text(playthrough: Playthrough) -> str:
    """The golden file's text of `playthrough` (the format is in this module's docstring)."""
    everyone = playthrough.viewers
    out = [f"# {playthrough.title}", LEGEND]
    last: dict[Viewer, Seen] = {}
    for step in playthrough.steps:
        out.append(f"== {step.header}")
        seen = step.seen
        # Every viewer reads the same events, each in its own words: group them event by event.
        if any("\n" in text for s in seen.values() for text in s.events):
            raise ValueError(f"{step.header}: an event text with a line break cannot be written on one line")
        for index in range(max((len(s.events) for s in seen.values()), default=0)):
            texts = {v: [s.events[index]] for v, s in seen.items() if index < len(s.events)}
            out += _grouped("event", texts, everyone)
        views = {v: changes(last[v].view, s.view) if v in last else listing(s.view) for v, s in seen.items()}
        out += _grouped("view", views, everyone)
        legal: dict[Viewer, list[str]] = {}
        for v, s in seen.items():
            if s.legal is not None and (v not in last or last[v].legal != s.legal):
                if any(" " in a for a in s.legal):
                    raise ValueError(f"an action id with a space cannot be written on one line: {s.legal}")
                legal[v] = [" ".join(s.legal) or "(none)"]
        out += _grouped("legal", legal, everyone)
        last = dict(seen)
    out.append(f"== outcome: {playthrough.outcome}")
    return "\n".join(out) + "\n"


def record(game: str) -> str:
    """The golden file's text for `game`, played now."""
    return golden_text(play_through(game))


def golden_path(game: str) -> Path:
    return GOLDEN_DIR / f"{game}.txt"


# ---- the command ----------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", nargs="*", help="registry keys (default: every registered game)")
    parser.add_argument("--write", action="store_true", help="rewrite the golden files (default: only check)")
    args = parser.parse_args(argv)
    stale = 0
    for game in args.games or list(GAMES):
        text = record(game)
        path = golden_path(game)
        if args.write:
            path.write_text(text)
            print(f"wrote {path} ({len(text.encode()):,} bytes)")
        elif not path.exists() or path.read_text() != text:
            print(f"{path} is stale: regenerate with python tests/golden/writer.py --write {game}", file=sys.stderr)
            stale += 1
    return 1 if stale else 0


if __name__ == "__main__":
    # Run as a command: register the test-only games (tests/plugin_games) as the test setup does, so their
    # goldens are written and checked too.
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "plugin_games"))
    import register

    register.install()
    raise SystemExit(main())
