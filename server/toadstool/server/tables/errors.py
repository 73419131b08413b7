"""The closed set of refusals a table gives (docs/design.md, principle 6), each with a message a person can act on;
`toadstool.service` maps them to gRPC status codes in one place.
"""

from __future__ import annotations

import enum

#: The longest message a refusal carries (`TableError`): well under gRPC's metadata limit (8 KiB), so the
#: client always reads the server's answer. Values a client sent are quoted shorter still (`preview`).
MAX_ERROR_LENGTH = 500


class ErrorKind(enum.Enum):
    """The closed set of table errors (docs/design.md, principle 6); the service maps each to one gRPC status."""

    UNKNOWN_TABLE = "unknown table"
    UNAUTHENTICATED = "unauthenticated"
    NOT_YOUR_SEAT = "not your seat"
    NOT_LEGAL = "not legal now"
    STALE_VERSION = "stale version"
    GAME_OVER = "game over"
    BAD_REQUEST = "bad request"
    DUPLICATE_REQUEST = "duplicate request"
    NOT_PLAYING = "not playing"
    LIMIT = "limit reached"


class TableError(Exception):
    """A refused request: nothing was changed. The message says what to do about it, quoting what the
    client sent only through `preview` (and cut to MAX_ERROR_LENGTH in any case)."""

    def __init__(self, kind: ErrorKind, message: str) -> None:
        if len(message) > MAX_ERROR_LENGTH:
            message = message[: MAX_ERROR_LENGTH - 1] + "…"
        super().__init__(message)
        self.kind = kind
        self.message = message
