"""The table server's domain: tables, their seats and lifecycle, the registry, and the server-wide pacing of
bots and writes. Each module owns one concept:

- `core`: one table's rules of play as plain synchronous state (lifecycle, seats, the validation ladder in
  front of a person's action, landing a written move), saying what must be written and told;
- `table`: the core on the event loop: its one write path (a transaction per request, the group commit
  for every move), its waiters, and a person's action from check to answer;
- `autoplay`: what the server plays by itself at a table (bots, the turn clock, takeover of away seats);
- `thinking`: the worker processes the hard bots' searches run in, away from the event loop;
- `history`: a table's recent events and actions in memory (the rest is read back from the store);
- `registry`: every table of the server (create, find, restore, forget, shut down);
- `seats`: statuses, seat kinds, names from the network and the secret tokens;
- `errors`: the closed set of refusals (`TableError`), mapped to gRPC statuses once, in toadstool.service;
- `waiters`, `backlog`, `pacing`: waking waiters, fan-out backpressure, the bots' beat.

No protobuf here: toadstool.messages builds every message from a table. This package re-exports the names
the rest of the server and the tests use.
"""

from toadstool.server.tables.backlog import BACKLOG_FLOOR, STUCK_AFTER, Backlog
from toadstool.server.tables.core import TIMEOUT_NOTE, TableCore
from toadstool.server.tables.errors import MAX_ERROR_LENGTH, ErrorKind, TableError
from toadstool.server.tables.pacing import BACKLOG_RECHECK, BEAT_SECONDS, BUSY_LAG, MAX_BOT_WAIT, Beat
from toadstool.server.tables.registry import KEEP_FINISHED, MAX_CLOCK_SECONDS, TableRegistry
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
from toadstool.server.tables.table import GroupCommit, Table
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
    "TableCore",
    "TableError",
    "TableRegistry",
    "Waiters",
    "new_token",
    "sanitize_name",
    "token_matches",
]
