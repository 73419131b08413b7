"""The Super Mario Bros. Power Up Card Game (docs/rules/powerup.md): registry key `powerup`.

Exports the engine and the sensible bot for the game registry; the rules live in `engine`, the card data
in `data`, the wire shapes in `views` and the strategy in `bot`.
"""

from toadstool.games.powerup.bot import PowerUpBot
from toadstool.games.powerup.engine import ENGINE, PowerUpEngine

BOT = PowerUpBot
#: Where the lobby lists this game (toadstool.games).
ORDER = 2

__all__ = ["BOT", "ENGINE", "ORDER", "PowerUpBot", "PowerUpEngine"]
