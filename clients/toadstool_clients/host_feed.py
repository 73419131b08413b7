"""The host's feed: the lines a server running inside this client (`toadstool play --lan`) says about its
tables (who joined, left, lost their connection, came back, was taken over; a game's end), for the client
to show its host, since a full-screen client cannot let them be printed over it.

The server side writes them as records of its `toadstool.host` logger; the composition root (cli.py) hands
them to a feed with a logging handler, so the clients never import the server.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

#: How many lines a feed keeps: more than any screen shows.
KEEP_LINES = 200


class HostFeed:
    """The newest lines the host is told, oldest first, and whoever wants to know of a new one."""

    def __init__(self, keep: int = KEEP_LINES) -> None:
        self.lines: deque[str] = deque(maxlen=keep)
        self._listeners: list[Callable[[str], None]] = []

    def add(self, line: str) -> None:
        """Keep a line and tell every listener (called on the thread the server logs on: its event loop)."""
        self.lines.append(line)
        for listener in list(self._listeners):
            listener(line)

    def listen(self, listener: Callable[[str], None]) -> Callable[[], None]:
        """Call `listener` with every new line; returns what stops it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None
