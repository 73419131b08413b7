"""The Kart track format (docs/tracks.md): the shipped tracks match docs/rules/kart.md §2, user tracks load
from $TOADSTOOL_TRACKS, and every broken file gets an error naming the file and the problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from toadstool.games.kart.data import FieldType
from toadstool.games.kart.tracks import Shortcut, TrackError, list_tracks, load_track

GOOD = """title = "Test Ring"
length = 30

[fields]
item = [5, 15]
booster = [8]
mushroom = [20]
thwomp = [25]

[shortcuts]
A = { from = 10, to = 14 }
"""


@pytest.fixture
def user_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TOADSTOOL_TRACKS", str(tmp_path))
    return tmp_path


def fields_of(track_name: str, kind: FieldType) -> list[int]:
    track = load_track(track_name)
    return [i for i, f in enumerate(track.fields) if f is kind]


def test_mushroom_loop_is_the_rulings_track() -> None:
    """'Default "Mushroom Loop", 60 fields ... ? 9, 16, 23, 30, 38, 45, 52, 57; booster 12, 27, 41, 55;
    mushroom field 19, 34, 48; Thwomp 21, 36, 50; shortcut A from 13 to 20; shortcut B from 42 to 49'."""
    track = load_track("mushroom-loop")
    assert track.length == 60
    assert track.title == "Mushroom Loop"
    assert fields_of("mushroom-loop", FieldType.ITEM) == [9, 16, 23, 30, 38, 45, 52, 57]
    assert fields_of("mushroom-loop", FieldType.BOOSTER) == [12, 27, 41, 55]
    assert fields_of("mushroom-loop", FieldType.MUSHROOM) == [19, 34, 48]
    assert fields_of("mushroom-loop", FieldType.THWOMP) == [21, 36, 50]
    assert track.shortcuts == (Shortcut("A", 13, 20), Shortcut("B", 42, 49))


def test_mini_loop_is_the_rulings_track() -> None:
    """'Short "Mini Loop", 40 fields: ? 6, 12, 19, 25, 31, 37; booster 8, 27; mushroom field 13, 32;
    Thwomp 15, 34; shortcut A 9 -> 14, B 28 -> 33'."""
    track = load_track("mini-loop")
    assert track.length == 40
    assert fields_of("mini-loop", FieldType.ITEM) == [6, 12, 19, 25, 31, 37]
    assert fields_of("mini-loop", FieldType.BOOSTER) == [8, 27]
    assert fields_of("mini-loop", FieldType.MUSHROOM) == [13, 32]
    assert fields_of("mini-loop", FieldType.THWOMP) == [15, 34]
    assert track.shortcuts == (Shortcut("A", 9, 14), Shortcut("B", 28, 33))


def test_user_tracks_are_listed_and_loaded_by_name(user_dir: Path) -> None:
    (user_dir / "test-ring.toml").write_text(GOOD)
    (user_dir / "broken.toml").write_text("title = 'x'\nlength = 5\n")
    infos = {info.name: info for info in list_tracks()}
    assert infos["mushroom-loop"].builtin
    assert infos["mushroom-loop"].length == 60
    assert infos["test-ring"].title == "Test Ring"
    assert not infos["test-ring"].builtin
    assert infos["test-ring"].source == str(user_dir / "test-ring.toml")
    assert infos["test-ring"].error is None
    assert infos["broken"].error is not None
    assert "broken.toml" in infos["broken"].error
    track = load_track("test-ring")
    assert track.length == 30
    assert track.fields[8] is FieldType.BOOSTER
    assert load_track(user_dir / "test-ring.toml") == track


def test_a_user_track_cannot_shadow_a_built_in(user_dir: Path) -> None:
    (user_dir / "mushroom-loop.toml").write_text(GOOD)
    shadow = [i for i in list_tracks() if not i.builtin]
    assert shadow[0].error is not None
    assert "already called" in shadow[0].error
    assert load_track("mushroom-loop").length == 60


def test_an_unknown_track_name_lists_the_known_tracks(user_dir: Path) -> None:
    with pytest.raises(TrackError, match="unknown track 'nope'; known tracks: mini-loop, mushroom-loop"):
        load_track("nope")


def broken(user_dir: Path, text: str) -> str:
    path = user_dir / "bad.toml"
    path.write_text(text)
    with pytest.raises(TrackError) as caught:
        load_track(path)
    message = str(caught.value)
    assert str(path) in message
    return message


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (GOOD.replace("thwomp =", "lava ="), "unknown field type 'lava'"),
        (GOOD.replace("[25]", "[30]"), "field 30 in fields.thwomp is out of range: this track has fields 0-29"),
        (GOOD.replace("[25]", "[-1]"), "field -1 in fields.thwomp is out of range"),
        (GOOD.replace("to = 14", "to = 31"), "shortcut A leaves the loop: its exit field 31"),
        (GOOD.replace("[25]", "[8]"), "field 8 is listed twice: in fields.booster and in fields.thwomp"),
        (GOOD.replace("[5, 15]", "[5, 5]"), "field 5 is listed twice in fields.item"),
        (GOOD.replace("to = 14", "to = 12"), "shortcut A (10 -> 12) skips 1 field: its arrow costs 2 pips"),
        (GOOD.replace("to = 14", "to = 11"), "shortcut A (10 -> 11) skips 0 fields"),
        (GOOD + "B = { from = 12, to = 18 }\n", "shortcuts A (10 -> 14) and B (12 -> 18) overlap"),
        (GOOD + "B = { from = 15, to = 11 }\n", "too short for its shortcuts: they cut 30 fields of a 30-field loop"),
        (GOOD.replace("length = 30", "length = 5"), "length 5 is out of range"),
        (GOOD.replace('title = "Test Ring"', ""), "missing title"),
        (GOOD.replace("length = 30", ""), "missing length"),
        (
            GOOD.replace("length = 30", 'length = "30"'),
            "length must be a whole number of fields without quotes (e.g. length = 60), not the text '30'",
        ),
        (GOOD.replace("length = 30", "length = 30.5"), "length must be a whole number of fields"),
        (GOOD.replace("length = 30", "length = true"), "not true (a yes/no value)"),
        (GOOD.replace('title = "Test Ring"', "title = 7"), "the title must be text in quotes"),
        ("laps = 5\n" + GOOD, "unknown key 'laps'"),
        (GOOD.replace("[5, 15]", "['five']"), "holds the text 'five', which is not a field number"),
        (GOOD.replace("{ from = 10, to = 14 }", "{ from = '10', to = 14 }"), "its start is the text '10'"),
        (GOOD.replace("{ from = 10, to = 14 }", "{ from = 10 }"), "shortcut A must be { from = field, to = field }"),
        ("title = 'x\n", "not valid TOML"),
    ],
)
def test_a_broken_track_file_names_the_file_and_the_problem(user_dir: Path, text: str, problem: str) -> None:
    assert problem in broken(user_dir, text)


def test_a_track_file_name_must_be_a_plain_name(user_dir: Path) -> None:
    path = user_dir / "Bad Name.toml"
    path.write_text(GOOD)
    with pytest.raises(TrackError, match="lower-case letters, digits and dashes"):
        load_track(path)


def test_a_length_in_quotes_is_the_wrong_type_not_a_missing_length(user_dir: Path) -> None:
    message = broken(user_dir, GOOD.replace("length = 30", 'length = "30"'))
    assert "missing" not in message
    assert "not the text '30'" in message


def test_asking_for_a_broken_user_track_says_what_is_wrong_with_its_file(user_dir: Path) -> None:
    """Not only "must be one of ...": the file's own error, so the person can fix it."""
    from toadstool.engine import BadOptions, parse_options
    from toadstool.games.kart import ENGINE

    (user_dir / "quoted.toml").write_text(GOOD.replace("length = 30", 'length = "30"'))
    with pytest.raises(BadOptions) as caught:
        parse_options(ENGINE.options, {"track": "quoted"})
    assert str(caught.value).startswith(f"option 'track': {user_dir / 'quoted.toml'}: length must be a whole number")
    with pytest.raises(BadOptions, match="option 'track' must be one of"):
        parse_options(ENGINE.options, {"track": "no-such-track"})
    assert parse_options(ENGINE.options, {"track": "mini-loop"}) == {"track": "mini-loop"}
