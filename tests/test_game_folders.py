"""A game of this package is found by its folder alone (issue #18: a fifth game is its folder, its .proto
file and one line in table.proto, nothing central): nothing in pyproject.toml lists the built-in games."""

from __future__ import annotations

import tomllib

from conftest import ROOT
from toadstool.games import GAMES, discover

GAMES_DIR = ROOT / "server" / "toadstool" / "games"


def test_every_folder_of_the_games_package_is_a_registered_game() -> None:
    folders = {path.name for path in GAMES_DIR.iterdir() if (path / "__init__.py").exists()}
    assert folders <= set(discover())
    assert {"uno", "powerup", "levelup", "kart"} <= folders


def test_the_built_in_games_are_not_listed_centrally() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "toadstool.games" not in project.get("entry-points", {})


def test_the_lobby_order_is_the_games_own_order() -> None:
    assert list(GAMES)[:4] == ["uno", "powerup", "levelup", "kart"]
