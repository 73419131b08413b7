"""Super Mario Kart, the fan-made board game (docs/rules/kart.md): registry entry point.

Exports ENGINE (the rules) and BOT (the sensible bot's factory); nothing else belongs here.
"""

from typing import TYPE_CHECKING, Any

from toadstool.engine import CreationRecords, DeviceActions, Engine, PrivateViews
from toadstool.games.kart.bot import KartBot
from toadstool.games.kart.engine import KartEngine, KartState

ENGINE = KartEngine()
if TYPE_CHECKING:  # mypy checks the game against the engine Protocol and the optional hooks it has
    _engine: Engine[KartState, Any] = ENGINE
    _private: PrivateViews[KartState] = ENGINE
    _record: CreationRecords = ENGINE
    _device: DeviceActions = ENGINE
BOT = KartBot
#: Where the lobby lists this game (toadstool.games).
ORDER = 4

__all__ = ["BOT", "ENGINE", "ORDER"]
