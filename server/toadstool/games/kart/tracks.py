"""Kart tracks as data: reading, validating and listing the TOML track files (docs/tracks.md).

Built-in tracks live beside this module in `tracks/*.toml`; players add their own in `$TOADSTOOL_TRACKS`
or, when that is unset, `~/.config/toadstool/tracks/` (the source invites everyone to draw their own
board). Every problem in a file raises a TrackError naming the file and the problem.

This module is for the track format only; what the fields do during a race is `engine.py`.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from toadstool.engine import listing, preview
from toadstool.games.kart.data import SHORTCUT_COST, FieldType
from toadstool.i18n import N_, tr
from toadstool.paths import config_dir

BUILTIN_DIR = Path(__file__).resolve().parent / "tracks"
DEFAULT_TRACK = "mushroom-loop"
#: The built-in tracks' titles by their registry names, marked for the catalogue: each is said in its
#: reader's language. A track is known as built-in by its name (a user file cannot take a built-in's name);
#: a track a person made keeps the title they wrote, in every language, whatever it says.
BUILTIN_TITLES: dict[str, str] = {"mini-loop": N_("Mini Loop"), "mushroom-loop": N_("Mushroom Loop")}

#: The names a file uses for the field types (docs/tracks.md); every other field is plain.
FIELD_KEYS: dict[str, FieldType] = {
    "item": FieldType.ITEM,
    "booster": FieldType.BOOSTER,
    "mushroom": FieldType.MUSHROOM,
    "thwomp": FieldType.THWOMP,
}
MIN_LENGTH = 10
MAX_LENGTH = 500
MAX_TITLE = 60
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
_LABEL = re.compile(r"^[A-Za-z0-9]{1,8}$")
_TOP_KEYS = ("title", "length", "fields", "shortcuts")


class TrackError(ValueError):
    """A track that cannot be found or whose file is not a valid track; the message names file and problem."""


@dataclass(frozen=True, slots=True)
class Shortcut:
    """A red arrow from field `start` to field `exit` (it saves the fields between them)."""

    label: str
    start: int
    exit: int


@dataclass(frozen=True, slots=True)
class Track:
    """A loop of `length` fields (0..length-1; the finish line lies between the last field and 0)."""

    name: str
    title: str
    length: int
    fields: tuple[FieldType, ...]
    shortcuts: tuple[Shortcut, ...]

    @property
    def said_title(self) -> str:
        """The title as a sentence says it: a built-in one in its reader's language, a person's as written
        (never looked up in the catalogue: a title is a value, `BUILTIN_TITLES` the only words)."""
        return said_track_title(self.name, self.title)


@dataclass(frozen=True, slots=True)
class TrackInfo:
    """One track file as `toadstool tracks` lists it; `error` says why a user file cannot be used."""

    name: str
    title: str
    length: int
    source: str
    builtin: bool
    error: str | None = None


def user_tracks_dir() -> Path:
    """Where user tracks live: $TOADSTOOL_TRACKS, else `tracks/` in the config directory (toadstool.paths:
    ~/.config/toadstool/tracks on Linux)."""
    configured = os.environ.get("TOADSTOOL_TRACKS")
    if configured:
        return Path(configured).expanduser()
    try:
        return config_dir() / "tracks"
    except (RuntimeError, KeyError):  # no home directory (some service accounts): no user tracks
        return BUILTIN_DIR / "no-user-tracks"


def _files(directory: Path) -> list[Path]:
    try:
        return sorted(p for p in directory.glob("*.toml") if p.is_file())
    except OSError:
        return []


def list_tracks() -> list[TrackInfo]:
    """Every built-in track, then every user track (a broken user file is listed with its error)."""
    infos: list[TrackInfo] = []
    builtin_names: set[str] = set()
    for path in _files(BUILTIN_DIR):
        track = load_track(path)
        builtin_names.add(track.name)
        infos.append(TrackInfo(track.name, track.title, track.length, str(path), builtin=True))
    for path in _files(user_tracks_dir()):
        if path.stem in builtin_names:
            infos.append(
                TrackInfo(
                    path.stem,
                    "",
                    0,
                    str(path),
                    builtin=False,
                    error=f"{path}: a built-in track is already called {path.stem!r}; rename the file",
                )
            )
            continue
        try:
            track = load_track(path)
        except TrackError as error:
            infos.append(TrackInfo(path.stem, "", 0, str(path), builtin=False, error=str(error)))
        else:
            infos.append(TrackInfo(track.name, track.title, track.length, str(path), builtin=False))
    return infos


def is_builtin_title(name: str, title: str) -> bool:
    """Whether `title` is the built-in track `name`'s own (a message of the catalogue): the one test of it. A
    user file cannot take a built-in's name, so the name tells; the title must match too, so a track stored
    by an older version under another title is shown as it was stored."""
    return BUILTIN_TITLES.get(name) == title


def said_track_title(name: str, title: str) -> str:
    """A track's title as a person reads it: a built-in one a message said in its reader's language, a
    person's as they wrote it (never looked up in the catalogue, whatever it says)."""
    return tr(title) if is_builtin_title(name, title) else title


def known_track_names() -> list[str]:
    """The names of every usable track (built-in and valid user tracks)."""
    return [name for name, _ in known_tracks()]


def known_tracks() -> list[tuple[str, str]]:
    """(name, title) of every usable track, from one look at the files: the title as a person reads it, a
    built-in one a message said in its reader's language (`Track.said_title`), a person's as they wrote it."""
    return [(info.name, said_track_title(info.name, info.title)) for info in list_tracks() if info.error is None]


def load_track(name_or_path: str | os.PathLike[str]) -> Track:
    """The track called `name_or_path` (built-ins first, then user tracks) or read from that file path.

    Raises TrackError naming the file and the problem, or the known tracks when the name is unknown.
    """
    text = os.fspath(name_or_path)
    if isinstance(name_or_path, Path) or "/" in text or os.sep in text or text.endswith(".toml"):
        path = Path(text).expanduser()
        if not path.is_file():
            raise TrackError(f"{path}: no such track file")
        return _load_file(path)
    if not _NAME.match(text):
        raise TrackError(
            f"{preview(text)} is not a track name (lower-case letters, digits and dashes); "
            f"known tracks: {listing(known_track_names())}"
        )
    for directory in (BUILTIN_DIR, user_tracks_dir()):
        path = directory / f"{text}.toml"
        if path.is_file():
            return _load_file(path)
    raise TrackError(f"unknown track {preview(text)}; known tracks: {listing(known_track_names())}")


def _load_file(path: Path) -> Track:
    try:
        stat = path.stat()
    except OSError as error:
        raise TrackError(f"{path}: cannot read the track file ({error.strerror})") from None
    return _parse_cached(str(path), stat.st_mtime_ns, stat.st_size)


@cache
def _parse_cached(path: str, mtime_ns: int, size: int) -> Track:
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise TrackError(f"{path}: cannot read the track file ({error.strerror})") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise TrackError(f"{path}: a track file must be UTF-8 text") from None
    except tomllib.TOMLDecodeError as error:
        raise TrackError(f"{path}: not valid TOML ({error})") from None
    return parse_track(Path(path).stem, data, source=path)


def parse_track(name: str, data: dict[str, Any], source: str = "<track>") -> Track:
    """Validate the decoded TOML `data` of a track called `name`; TrackError names `source` and the problem."""

    def fail(problem: str) -> TrackError:
        return TrackError(f"{source}: {problem}")

    if not _NAME.match(name):
        raise fail(f"the file name {name!r} must be lower-case letters, digits and dashes (e.g. my-track.toml)")
    for key in data:
        if key not in _TOP_KEYS:
            raise fail(f"unknown key {key!r} (a track has: {', '.join(_TOP_KEYS)})")
    title = data.get("title")
    if "title" in data and not isinstance(title, str):
        raise fail(f'the title must be text in quotes (e.g. title = "Mushroom Loop"), not {_kind_of(title)}')
    if not isinstance(title, str) or not title.strip():
        raise fail('missing title (e.g. title = "Mushroom Loop")')
    if len(title) > MAX_TITLE:
        raise fail(f"the title is longer than {MAX_TITLE} characters")
    length = data.get("length")
    if "length" not in data:
        raise fail("missing length: the number of fields of the loop (e.g. length = 60)")
    if isinstance(length, bool) or not isinstance(length, int):
        raise fail(f"length must be a whole number of fields without quotes (e.g. length = 60), not {_kind_of(length)}")
    if not MIN_LENGTH <= length <= MAX_LENGTH:
        raise fail(f"length {length} is out of range: a track has {MIN_LENGTH} to {MAX_LENGTH} fields")
    last = length - 1

    fields = [FieldType.PLAIN] * length
    where: dict[int, str] = {}
    table = data.get("fields", {})
    if not isinstance(table, dict):
        raise fail("[fields] must be a table of field type = [field numbers]")
    for key, numbers in table.items():
        kind = FIELD_KEYS.get(key)
        if kind is None:
            raise fail(f"unknown field type {key!r} (known: {', '.join(FIELD_KEYS)})")
        if not isinstance(numbers, list):
            raise fail(f"fields.{key} must be a list of field numbers, e.g. {key} = [9, 16]")
        for number in numbers:
            if isinstance(number, bool) or not isinstance(number, int):
                raise fail(f"fields.{key} holds {_kind_of(number)}, which is not a field number")
            if not 0 <= number <= last:
                raise fail(f"field {number} in fields.{key} is out of range: this track has fields 0-{last}")
            if number in where:
                if where[number] == key:
                    raise fail(f"field {number} is listed twice in fields.{key}")
                raise fail(f"field {number} is listed twice: in fields.{where[number]} and in fields.{key}")
            where[number] = key
            fields[number] = kind

    shortcuts: list[Shortcut] = []
    table = data.get("shortcuts", {})
    if not isinstance(table, dict):
        raise fail("[shortcuts] must be a table of label = { from = field, to = field }")
    for label, entry in table.items():
        if not _LABEL.match(label):
            raise fail(f"shortcut label {label!r} must be 1-8 letters or digits")
        if not isinstance(entry, dict) or set(entry) != {"from", "to"}:
            raise fail(f"shortcut {label} must be {{ from = field, to = field }}")
        start, exit_ = entry["from"], entry["to"]
        for end, number in (("start", start), ("exit", exit_)):
            if isinstance(number, bool) or not isinstance(number, int):
                raise fail(f"shortcut {label}: its {end} is {_kind_of(number)}, not a field number")
            if not 0 <= number <= last:
                raise fail(
                    f"shortcut {label} leaves the loop: its {end} field {number} is not on this track (0-{last})"
                )
        span = (exit_ - start) % length
        if span <= SHORTCUT_COST:
            raise fail(
                f"shortcut {label} ({start} -> {exit_}) skips {_count(max(span - 1, 0), 'field')}: its arrow costs "
                f"{_count(SHORTCUT_COST, 'pip')}, so a shortcut must lead at least "
                f"{_count(SHORTCUT_COST + 1, 'field')} ahead"
            )
        shortcuts.append(Shortcut(label, start, exit_))
    total = sum((s.exit - s.start) % length for s in shortcuts)
    if total >= length:
        raise fail(f"the track is too short for its shortcuts: they cut {total} fields of a {length}-field loop")
    for i, first in enumerate(shortcuts):
        for second in shortcuts[i + 1 :]:
            if _within(second.start, first, length) or _within(first.start, second, length):
                raise fail(
                    f"shortcuts {first.label} ({first.start} -> {first.exit}) and "
                    f"{second.label} ({second.start} -> {second.exit}) overlap"
                )
    shortcuts.sort(key=lambda s: s.start)
    return Track(name=name, title=title.strip(), length=length, fields=tuple(fields), shortcuts=tuple(shortcuts))


def broken_track_problem(name: str) -> str | None:
    """What is wrong with the user track called `name`, when there is a file of that name that cannot be
    used (so asking for it says the file's own error, not only which tracks exist); None otherwise."""
    if not _NAME.match(name):
        return None
    if (BUILTIN_DIR / f"{name}.toml").is_file():
        return None
    path = user_tracks_dir() / f"{name}.toml"
    if not path.is_file():
        return None
    try:
        _load_file(path)
    except TrackError as error:
        return str(error)
    return None


def _count(number: int, word: str) -> str:
    """`number` and `word`, plural unless it is one: "1 field", "2 fields"."""
    return f"{number} {word}" if number == 1 else f"{number} {word}s"


def _kind_of(value: object) -> str:
    """What a TOML value is, for an error about a value of the wrong type: "the text '30'", "a list"."""
    if isinstance(value, str):
        return f"the text {preview(value)}"
    if isinstance(value, bool):
        return f"{str(value).lower()} (a yes/no value)"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return f"a {type(value).__name__}"


def track_content(track: Track) -> dict[str, Any]:
    """The content of `track` in the shape of its file, decoded (title, length, [fields], [shortcuts]) and
    canonical (no comments, fields in order), as JSON data: what a Kart table stores of its track, so that
    `parse_track(track.name, track_content(track)) == track` whatever later happens to the file."""
    fields = {
        key: [number for number, kind in enumerate(track.fields) if kind is field_type]
        for key, field_type in FIELD_KEYS.items()
    }
    return {
        "title": track.title,
        "length": track.length,
        "fields": {key: numbers for key, numbers in fields.items() if numbers},
        "shortcuts": {s.label: {"from": s.start, "to": s.exit} for s in track.shortcuts},
    }


def _within(field: int, shortcut: Shortcut, length: int) -> bool:
    """True when `field` lies on the stretch of main route from the shortcut's start to its exit."""
    return (field - shortcut.start) % length <= (shortcut.exit - shortcut.start) % length
