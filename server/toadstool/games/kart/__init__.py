"""Super Mario Kart, the fan-made board game (docs/rules/kart.md): registry entry point.

Exports ENGINE (the rules) and BOT (the sensible bot's factory); nothing else belongs here.
"""

from toadstool.games.kart.bot import KartBot
from toadstool.games.kart.engine import KartEngine

ENGINE = KartEngine()
BOT = KartBot
#: Where the lobby lists this game (toadstool.games).
ORDER = 4

__all__ = ["BOT", "ENGINE", "ORDER"]
