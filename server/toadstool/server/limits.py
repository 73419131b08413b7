"""Limits that keep one curious or buggy client from hurting everyone else's game night.

Each limit refuses with RESOURCE_EXHAUSTED and a message naming the limit and its value (the service maps
`TableError(LIMIT)`). All are configurable (`toadstool serve --help`) with defaults sized for a LAN. A
"client" is a peer address (IP without port): on a LAN, one machine.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field

from toadstool.i18n import tr, trn
from toadstool.server.tables import ErrorKind, TableError

#: Seats tracked by the rate limiter before idle ones are forgotten.
MAX_BUCKETS = 10_000


@dataclass(frozen=True)
class Limits:
    max_request_bytes: int = 64 * 1024
    max_tables: int = 1000
    max_tables_per_client: int = 50
    max_streams_per_client: int = 512
    actions_per_second: float = 20.0
    action_burst: int = 40
    #: The shortest bot delay a client may ask for at table creation: all-bot tables with no delay would
    #: otherwise let any client keep the server's CPU busy. (`toadstool serve` sets 0.05 s.)
    min_bot_delay: float = 0.0


def client_of(peer: str) -> str:
    """The client part of a gRPC peer string: "ipv4:10.0.0.5:51234" -> "ipv4:10.0.0.5"."""
    if peer.startswith("ipv6:["):
        return peer.split("]", 1)[0] + "]"
    if peer.startswith("ipv4:"):
        return peer.rsplit(":", 1)[0]
    return peer  # unix sockets and the like: the whole peer


@dataclass
class _Bucket:
    tokens: float
    updated: float


@dataclass
class Guard:
    """Counts what each client holds (tables created, open streams) and how fast each seat acts."""

    limits: Limits
    tables_by_client: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    streams_by_client: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    buckets: dict[tuple[str, int], _Bucket] = field(default_factory=dict)

    def check_new_table(self, client: str, live_tables: set[str]) -> None:
        owned = self.tables_by_client[client] & live_tables
        self.tables_by_client[client] = owned
        if len(owned) >= self.limits.max_tables_per_client:
            raise TableError(
                ErrorKind.LIMIT,
                trn(
                    "limit reached: at most {n} unfinished table per client; finish or abandon one first",
                    "limit reached: at most {n} unfinished tables per client; finish or abandon one first",
                    self.limits.max_tables_per_client,
                ),
            )

    def table_created(self, client: str, table_id: str) -> None:
        self.tables_by_client[client].add(table_id)

    def open_stream(self, client: str) -> None:
        if self.streams_by_client[client] >= self.limits.max_streams_per_client:
            raise TableError(
                ErrorKind.LIMIT,
                trn(
                    "limit reached: at most {n} open stream per client; close some watches first",
                    "limit reached: at most {n} open streams per client; close some watches first",
                    self.limits.max_streams_per_client,
                ),
            )
        self.streams_by_client[client] += 1

    def close_stream(self, client: str) -> None:
        self.streams_by_client[client] -= 1
        if self.streams_by_client[client] <= 0:
            del self.streams_by_client[client]

    def check_action_rate(self, table_id: str, seat: int) -> None:
        """A token bucket per seat: `action_burst` at once, refilled at `actions_per_second`."""
        now = time.monotonic()
        if len(self.buckets) > MAX_BUCKETS:  # forget seats that have been quiet long enough to be full again
            idle = self.limits.action_burst / self.limits.actions_per_second
            self.buckets = {key: b for key, b in self.buckets.items() if now - b.updated < idle}
        bucket = self.buckets.get((table_id, seat))
        if bucket is None:
            bucket = self.buckets[(table_id, seat)] = _Bucket(float(self.limits.action_burst), now)
        bucket.tokens = min(
            float(self.limits.action_burst), bucket.tokens + (now - bucket.updated) * self.limits.actions_per_second
        )
        bucket.updated = now
        if bucket.tokens < 1.0:
            raise TableError(
                ErrorKind.LIMIT,
                tr(
                    "limit reached: at most {rate} actions per second per seat; slow down",
                    rate=format(self.limits.actions_per_second, "g"),
                ),
            )
        bucket.tokens -= 1.0
