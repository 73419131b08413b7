"""Super Mario: Level Up! (registry key `levelup`): exports the engine and the sensible bot."""

from toadstool.games.levelup.bot import LevelUpBot
from toadstool.games.levelup.engine import ENGINE

BOT = LevelUpBot

__all__ = ["BOT", "ENGINE"]
