"""Super Mario: Level Up! (registry key `levelup`): exports the engine and the sensible bot."""

from toadstool.games.levelup.bot import LevelUpBot
from toadstool.games.levelup.engine import ENGINE

BOT = LevelUpBot
#: Where the lobby lists this game (toadstool.games).
ORDER = 3

__all__ = ["BOT", "ENGINE", "ORDER"]
