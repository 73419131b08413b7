"""A game of this package is found by its folder alone (issue #18: a fifth game is its folder, its .proto
file and one line in table.proto, nothing central): nothing in pyproject.toml lists the built-in games."""

from __future__ import annotations

import ast
import sys
import tomllib
from pathlib import Path

import pytest

from conftest import ROOT
from toadstool import games as games_module
from toadstool.engine import Engine
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


#: The optional hooks (toadstool.engine) and the member that tells a game has each.
HOOKS = {"PrivateViews": "private_view", "CreationRecords": "creation_record", "DeviceActions": "device_action_types"}


def _checked_protocols(folder: Path) -> set[str]:
    """The Protocols a game's folder assigns its ENGINE to under TYPE_CHECKING (`_x: Engine[...] = ENGINE`),
    which is where mypy checks the game against them."""
    found: set[str] = set()
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.AnnAssign) and isinstance(node.value, ast.Name) and node.value.id == "ENGINE":
                annotation = node.annotation.value if isinstance(node.annotation, ast.Subscript) else node.annotation
                if isinstance(annotation, ast.Name):
                    found.add(annotation.id)
    return found


def test_mypy_checks_every_built_in_game_against_the_engine_and_each_hook_it_has() -> None:
    for name in ("uno", "powerup", "levelup", "kart"):
        engine = GAMES[name].engine
        wanted = {"Engine"} | {hook for hook, member in HOOKS.items() if hasattr(engine, member)}
        assert _checked_protocols(GAMES_DIR / name) >= wanted, name
        assert isinstance(engine, Engine)
    assert {"PrivateViews", "CreationRecords", "DeviceActions"} <= _checked_protocols(GAMES_DIR / "kart")


def test_a_game_whose_engine_lacks_part_of_the_protocol_is_not_loaded(tmp_path: Path) -> None:
    """A game from another package is checked when it loads: an ENGINE without `describe` is refused with the
    reason (`discover` then logs it and lists the other games)."""
    package = tmp_path / "halfgame"
    package.mkdir()
    (package / "__init__.py").write_text(
        "class Half:\n    name = 'half'\n\nENGINE = Half()\nBOT = object\n", encoding="utf-8"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(RuntimeError, match=r"lacks part of toadstool\.engine\.Engine: action_types, apply, "):
            games_module._spec("half", "halfgame")
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("halfgame", None)
