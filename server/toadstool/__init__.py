"""Toadstool: a LAN game server for four Mario-themed tabletop games.

The public surface of the server package is small: the engine interface (`toadstool.engine`), the game
registry (`toadstool.games`), and the server entry point (`toadstool.server.serve`).
"""

__version__ = "0.1.0"
