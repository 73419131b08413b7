"""The registry of games: the one place that knows which games exist (docs/design.md, principle 1).

A game is a module that exports ENGINE (an Engine) and BOT (a factory for the game's sensible bot), and may
export ORDER (where the lobby lists it: lower first; games without one come last, by key). The games of
this package are its subpackages (every folder here is a game, under its folder's name: adding one is
its folder, its .proto file and its line in table.proto, nothing central); a game from
another installed package (or one a test registers) names its module in the `toadstool.games` entry point
group, and nothing here changes. Everything else (tables, bots, the service,
selfplay, the conformance tests, the clients' lobby) looks a game up here by its name and never branches on
which game it is.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from toadstool.engine import ENGINE_MEMBERS, Bot, Engine

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


def _spec(name: str, module_name: str) -> tuple[int, GameSpec]:
    module = importlib.import_module(module_name)
    engine = getattr(module, "ENGINE", None)
    bot = getattr(module, "BOT", None)
    if engine is None or bot is None:
        raise RuntimeError(f"{module_name} (game {name!r}) exports no ENGINE and BOT")
    if not isinstance(engine, Engine):  # a game from another package, which mypy never saw
        missing = sorted(name for name in ENGINE_MEMBERS if not hasattr(engine, name))
        raise RuntimeError(
            f"{module_name}'s ENGINE lacks part of toadstool.engine.Engine: {', '.join(missing)} (see its docstring)"
        )
    if engine.name != name:
        raise RuntimeError(f"{module_name} registers itself as {engine.name!r}, not {name!r}")
    return int(getattr(module, "ORDER", LAST)), GameSpec(engine=engine, smart_bot=bot)


def _candidates() -> list[tuple[str, str]]:
    """(name, module) of every game: this package's folders first, then the entry points of others."""
    here = [(info.name, f"{__name__}.{info.name}") for info in pkgutil.iter_modules(__path__) if info.ispkg]
    return [*here, *((entry.name, entry.value) for entry in entry_points(group=ENTRY_POINT_GROUP))]


def discover() -> dict[str, GameSpec]:
    """Every game of this package and of the installed packages' entry points, in the lobby's order. A game
    that fails to load is logged and left out: it must not take the others with it."""
    found: dict[str, tuple[int, GameSpec]] = {}
    for name, module_name in _candidates():
        if name in found:
            continue
        try:
            found[name] = _spec(name, module_name)
        except Exception as error:
            log.error("the game %r could not be loaded: %s", name, error)
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
