"""The table server's domain: tables, their seats and lifecycle, the registry, and the server-wide pacing of
bots and writes. Each module owns one concept:

- `table`: one table (lifecycle, seats, applying actions, one transaction for each other request);
- `ladder`: the validation ladder in front of every person's action;
- `autoplay`: what the server plays by itself at a table (bots, the turn clock, takeover of away seats);
- `thinking`: the worker processes the hard bots' searches run in, away from the event loop;
- `history`: a table's recent events and actions in memory (the rest is read back from the store);
- `registry`: every table of the server (create, find, restore, forget, shut down);
- `seats`: statuses, seat kinds, names from the network and the secret tokens;
- `errors`: the closed set of refusals (`TableError`), mapped to gRPC statuses once, in toadstool.service;
- `waiters`, `backlog`, `pacing`, `group_commit`: waking waiters, fan-out backpressure, the bots' beat, and
  writing the moves of a loop turn (people's and bots') in one transaction.

No protobuf here: toadstool.messages builds every message from a table. This package re-exports the names
the rest of the server and the tests use.
"""

from toadstool.server.tables.backlog import BACKLOG_FLOOR, STUCK_AFTER, Backlog
from toadstool.server.tables.errors import MAX_ERROR_LENGTH, ErrorKind, TableError
from toadstool.server.tables.group_commit import GroupCommit, apply_now
from toadstool.server.tables.pacing import BACKLOG_RECHECK, BEAT_SECONDS, BUSY_LAG, MAX_BOT_WAIT, Beat
from toadstool.server.tables.registry import KEEP_FINISHED, TableRegistry
from toadstool.server.tables.seats import (
    MAX_NAME_LENGTH,
    MAX_TABLE_NAME_LENGTH,
    Seat,
    SeatKind,
    Status,
    new_token,
    sanitize_name,
    token_matches,
)
from toadstool.server.tables.table import MAX_CLOCK_SECONDS, TIMEOUT_NOTE, Table
from toadstool.server.tables.waiters import Waiters

__all__ = [
    "BACKLOG_FLOOR",
    "BACKLOG_RECHECK",
    "BEAT_SECONDS",
    "BUSY_LAG",
    "KEEP_FINISHED",
    "MAX_BOT_WAIT",
    "MAX_CLOCK_SECONDS",
    "MAX_ERROR_LENGTH",
    "MAX_NAME_LENGTH",
    "MAX_TABLE_NAME_LENGTH",
    "STUCK_AFTER",
    "TIMEOUT_NOTE",
    "Backlog",
    "Beat",
    "ErrorKind",
    "GroupCommit",
    "Seat",
    "SeatKind",
    "Status",
    "Table",
    "TableError",
    "TableRegistry",
    "Waiters",
    "apply_now",
    "new_token",
    "sanitize_name",
    "token_matches",
]
