"""The closed set of refusals a table gives (docs/design.md, principle 6), each with a message a person can act on;
`toadstool.service` maps them to gRPC status codes in one place, and says each message in the language of whoever
it answers (a `toadstool.i18n.Text`, said only then).
"""

from __future__ import annotations

import enum

from toadstool.i18n import ENGLISH, Text, said, tr

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


def _cut(message: str) -> str:
    return message if len(message) <= MAX_ERROR_LENGTH else message[: MAX_ERROR_LENGTH - 1] + "…"


class TableError(Exception):
    """A refused request: nothing was changed. The message says what to do about it, quoting what the
    client sent only through `preview` (and cut to MAX_ERROR_LENGTH in any case). It is a `Text` (`tr`), said
    in each reader's language by `said_in`; `message` is its English (logs, tests)."""

    def __init__(self, kind: ErrorKind, text: Text | str) -> None:
        message = _cut(said(text, ENGLISH))
        super().__init__(message)
        self.kind = kind
        self.text = text
        self.message = message

    def said_in(self, language: str) -> str:
        """The message in `language`, cut to MAX_ERROR_LENGTH as the English is."""
        return self.message if language == ENGLISH else _cut(said(self.text, language))


def no_such_seat(seat: int, players: int) -> Text:
    """The refusal of a seat number a table does not have (joining, adding a bot, hosting a seat)."""
    return tr("seat {seat} does not exist; seats are 0..{last}", seat=seat, last=players - 1)
