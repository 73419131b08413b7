"""Golden playthroughs: what each seat and the spectator saw at every step of one seeded game per game must
not change unnoticed, and the golden files must hold all of it in lines a person can review.

The files are tests/golden/<game>.txt, written by tests/golden/writer.py (its docstring describes the
format) and read back by tests/golden/reader.py. After an intended change to rules or views, regenerate
them and review the diff:

    python tests/golden/writer.py --write
    git diff tests/golden
"""

from __future__ import annotations

import difflib
from functools import cache

import pytest
from golden.reader import apply_view_lines, rebuild
from golden.writer import GOLDEN_DIR, Playthrough, changes, golden_path, golden_text, listing, play_through
from google.protobuf import json_format

from toadstool.games import GAMES

REGENERATE = "python tests/golden/writer.py --write"


@cache
def played(game: str) -> Playthrough:
    return play_through(game)


def _step_of(lines: list[str], index: int) -> str:
    """The step header (`== step 12: ...`) the line at `index` belongs to."""
    for line in reversed(lines[: index + 1]):
        if line.startswith("== "):
            return line
    return "(before the first step)"


def readable_diff(expected: str, actual: str, limit: int = 40) -> str:
    """The first lines that differ between the golden file and the game played now, each run of them under
    the step it is in (the lines name their viewers), with a count of the rest."""
    old, new = expected.splitlines(), actual.splitlines()
    shown: list[str] = []
    differing = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new).get_opcodes():
        if tag == "equal":
            continue
        differing += max(i2 - i1, j2 - j1)
        if len(shown) < limit:
            where = _step_of(new, j1) if j1 < len(new) else _step_of(old, i1)
            shown += [f"@ {where}", *(f"- {line}" for line in old[i1:i2]), *(f"+ {line}" for line in new[j1:j2])]
    more = len(shown) - limit
    shown = shown[:limit] + ([f"... and {more} more lines of this diff"] if more > 0 else [])
    counted = f"{differing} line differs" if differing == 1 else f"{differing} lines differ"
    return f"{counted} (- golden file, + now):\n" + "\n".join(shown)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_golden_playthrough_is_unchanged(game: str) -> None:
    path = golden_path(game)
    assert path.exists(), f"no golden file {path}: run {REGENERATE} {game}"
    expected = path.read_text()
    actual = golden_text(played(game))
    if actual != expected:
        pytest.fail(
            f"the {game} playthrough differs from {path}; if the change is intended, run {REGENERATE} {game} "
            f"and review git diff tests/golden\n{readable_diff(expected, actual)}",
            pytrace=False,
        )


@pytest.mark.parametrize("game", sorted(GAMES))
def test_golden_lines_rebuild_everything_each_viewer_saw(game: str) -> None:
    """Writing only what changed loses nothing: applying the lines in order gives back every viewer's
    events, full view and legal actions at every step."""
    playthrough = played(game)
    view_type = type(playthrough.steps[0].seen[0].view)
    rebuilt = rebuild(golden_text(playthrough), view_type)
    for step, again in zip(playthrough.steps, rebuilt.steps, strict=True):
        for viewer, seen in step.seen.items():
            assert again.seen[viewer] == seen, f"{step.header}: {viewer=} reads back differently"
    assert rebuilt == playthrough


def test_golden_files_stay_small_enough_to_review() -> None:
    sizes = {path.name: path.stat().st_size for path in GOLDEN_DIR.glob("*.txt")}
    assert sum(sizes.values()) < 1_000_000, sizes


def test_a_changed_view_is_shown_under_its_step_with_its_viewer() -> None:
    expected = "# t\n== setup\nview: uno.color = RED\n== step 1: seat 0 draw (Draw)\nseat 0 view: uno.current: 0 -> 1\n"
    actual = expected.replace("uno.current: 0 -> 1", "uno.current: 0 -> 2")
    diff = readable_diff(expected, actual)
    assert "@ == step 1: seat 0 draw (Draw)" in diff
    assert "- seat 0 view: uno.current: 0 -> 1" in diff
    assert "+ seat 0 view: uno.current: 0 -> 2" in diff


def test_a_generic_view_reads_back_key_by_key() -> None:
    """A game with no message of its own shows its state as a Struct: it is written key by key too."""
    view_type = type(played("uno").steps[0].seen[0].view)
    before, after = view_type(), view_type()
    json_format.ParseDict({"generic": {"game": "tiny", "phase": "{p0} to go", "state": {"hand": [1, 2]}}}, before)
    json_format.ParseDict({"generic": {"game": "tiny", "phase": "{p0} to go", "state": {"hand": [2], "x": "é"}}}, after)
    assert changes(before, after) == [
        'generic.state.fields["hand"]: [1.0, 2.0] -> [2.0]',
        'generic.state.fields["x"]: (unset) -> "é"',
    ]
    rebuilt = view_type()
    apply_view_lines(rebuilt, listing(before))
    apply_view_lines(rebuilt, changes(before, after))
    assert rebuilt == after
