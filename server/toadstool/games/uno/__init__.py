"""UNO Super Mario (docs/rules/uno.md): the registry entry exporting the engine and the sensible bot.

This package is for the UNO game only; the registry in `toadstool.games` finds it by its key `uno`.
"""

from toadstool.games.uno.bot import UnoBot
from toadstool.games.uno.engine import ENGINE, UnoEngine, UnoState, UnoView

BOT = UnoBot
#: Where the lobby lists this game (toadstool.games).
ORDER = 1

__all__ = ["BOT", "ENGINE", "ORDER", "UnoBot", "UnoEngine", "UnoState", "UnoView"]
