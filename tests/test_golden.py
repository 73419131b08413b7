"""Golden playthroughs: the recorded views of one seeded game per game must not change unnoticed.

After an intended change, regenerate with `python -m toadstool.playthrough --write` and review the diff.
"""

from __future__ import annotations

import difflib

import pytest

from toadstool.games import GAMES
from toadstool.playthrough import SETTINGS, golden_path, record


@pytest.mark.parametrize("game", sorted(GAMES))
def test_golden_playthrough_is_unchanged(game: str) -> None:
    players, seed = SETTINGS[game]
    path = golden_path(game)
    assert path.exists(), f"no golden file {path}: run python -m toadstool.playthrough --write {game}"
    expected = path.read_text()
    actual = record(game, players, seed)
    if actual != expected:
        diff = "".join(
            list(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True), "golden", "now"))[:80]
        )
        pytest.fail(f"{game} playthrough differs from {path}:\n{diff}")
