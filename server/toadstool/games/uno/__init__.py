"""UNO Super Mario (RULINGS.md section 1): the registry entry exporting the engine and the sensible bot.

This package is for the UNO game only; the registry in `toadstool.games` finds it by its key `uno`.
"""

from toadstool.games.uno.bot import UnoBot
from toadstool.games.uno.engine import ENGINE, UnoEngine, UnoState, UnoView

BOT = UnoBot

__all__ = ["BOT", "ENGINE", "UnoBot", "UnoEngine", "UnoState", "UnoView"]
