"""The registry of games: the one place that knows which games exist (DESIGN.md principle 1).

Everything else (tables, bots, the service, selfplay, the conformance tests, the clients' lobby) looks a
game up here by its name and never branches on which game it is.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from toadstool.engine import Bot, Engine

#: Registry keys, in the order the lobby lists them. Each names a package `toadstool.games.<key>` that
#: exports ENGINE (an Engine) and BOT (a factory for the game's sensible bot).
GAME_NAMES: tuple[str, ...] = ("uno", "powerup", "levelup", "kart")


@dataclass(frozen=True)
class GameSpec:
    """A registered game: its engine and the factory for its sensible bot."""

    engine: Engine[Any, Any]
    smart_bot: Callable[[], Bot]

    @property
    def name(self) -> str:
        return self.engine.name


def _load() -> dict[str, GameSpec]:
    games: dict[str, GameSpec] = {}
    for key in GAME_NAMES:
        module = importlib.import_module(f"toadstool.games.{key}")
        engine = getattr(module, "ENGINE", None)
        if engine is None:  # not landed yet
            continue
        if engine.name != key:
            raise RuntimeError(f"toadstool.games.{key} registers itself as {engine.name!r}")
        games[key] = GameSpec(engine=engine, smart_bot=module.BOT)
    return games


GAMES: dict[str, GameSpec] = _load()


def get_game(name: str) -> GameSpec:
    """The game registered as `name`; KeyError with the known names otherwise."""
    try:
        return GAMES[name]
    except KeyError:
        known = ", ".join(GAMES) or "none"
        raise KeyError(f"unknown game {name!r}; this server hosts: {known}") from None
