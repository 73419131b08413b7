"""The registry of games: the one place that knows which games exist (DESIGN.md principle 1).

Games are found through the `toadstool.games` entry point group: each entry names a module that exports
ENGINE (an Engine) and BOT (a factory for the game's sensible bot), under the game's registry key, and may
export ORDER (where the lobby lists it: lower first; games without one come last, by key). The four
games of this package declare theirs in pyproject.toml; a game from another installed package (or one a
test registers) declares its own, and nothing here changes. Everything else (tables, bots, the service,
selfplay, the conformance tests, the clients' lobby) looks a game up here by its name and never branches on
which game it is.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from toadstool.engine import Bot, Engine

log = logging.getLogger(__name__)

#: The entry point group games register under: `key = "module.path"`.
ENTRY_POINT_GROUP = "toadstool.games"


@dataclass(frozen=True)
class GameSpec:
    """A registered game: its engine and the factory for its sensible bot."""

    engine: Engine[Any, Any]
    smart_bot: Callable[[], Bot]

    @property
    def name(self) -> str:
        return self.engine.name


#: Where a game that exports no ORDER is listed: after the others.
LAST = 1_000_000


def _spec(entry: EntryPoint) -> tuple[int, GameSpec]:
    module = importlib.import_module(entry.value)
    engine = getattr(module, "ENGINE", None)
    bot = getattr(module, "BOT", None)
    if engine is None or bot is None:
        raise RuntimeError(f"{entry.value} (game {entry.name!r}) exports no ENGINE and BOT")
    if engine.name != entry.name:
        raise RuntimeError(f"{entry.value} registers itself as {engine.name!r}, not {entry.name!r}")
    return int(getattr(module, "ORDER", LAST)), GameSpec(engine=engine, smart_bot=bot)


def discover() -> dict[str, GameSpec]:
    """Every game the installed packages register, in the lobby's order. A game that fails to load is
    logged and left out: it must not take the others with it."""
    found: dict[str, tuple[int, GameSpec]] = {}
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        if entry.name in found:
            continue
        try:
            found[entry.name] = _spec(entry)
        except Exception as error:
            log.error("the game %r could not be loaded: %s", entry.name, error)
    if not found:
        raise RuntimeError(
            f"no games are registered under the entry point group {ENTRY_POINT_GROUP!r}: is toadstool installed "
            "(pip install -e .)?"
        )
    return {name: spec for name, (_, spec) in sorted(found.items(), key=lambda item: (item[1][0], item[0]))}


#: The registered games by key. Refresh with `reload()` after installing (or registering) another game.
GAMES: dict[str, GameSpec] = discover()


def reload() -> None:
    """Look for registered games again, in place, so every module holding GAMES sees the change."""
    fresh = discover()
    GAMES.clear()
    GAMES.update(fresh)


def get_game(name: str) -> GameSpec:
    """The game registered as `name`; KeyError with the known names otherwise."""
    try:
        return GAMES[name]
    except KeyError:
        known = ", ".join(GAMES) or "none"
        raise KeyError(f"unknown game {name!r}; this server hosts: {known}") from None
