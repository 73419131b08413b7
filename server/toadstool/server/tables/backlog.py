"""The server's fan-out backpressure: how many streams are still waiting for gRPC to take their last update,
and whether the server is behind on delivering (then bots wait, see `toadstool.tables.pacing`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

#: The server is behind on delivering when more of its streams than this (and more than half of them) wait
#: for gRPC to take their last update: then the bots' beat is held (see `Backlog`, `Beat`).
BACKLOG_FLOOR = 16


#: An update gRPC has not taken after this many seconds is a slow or stalled viewer's (a full flow-control
#: window), not a sign of a busy server: it stops counting as "sending" (1-2 s after it started).
STUCK_AFTER = 1.0


@dataclass
class Backlog:
    """How many update streams the server has open, and how many of them gRPC is still sending.

    Shared by every table of a server (the service counts, the bots read). When most streams are still
    sending, the server is behind: bots that moved anyway would spend the machine on moves nobody sees
    (each stream skips to the newest view), so their beat is held (`Beat`). Slow viewers never count: a
    send counts only while it is recent (`STUCK_AFTER`), so a stalled client, even one with hundreds of
    streams (a bridge whose broker hangs), cannot hold up other tables' bots; and the floor and the half
    make it a server-wide condition.
    """

    open: int = 0
    clock: Callable[[], float] = time.monotonic
    #: Sends in progress by the period they started in (periods of STUCK_AFTER seconds).
    _sending: dict[int, int] = field(default_factory=dict)
    _on_caught_up: Callable[[], None] | None = None

    def _period(self) -> int:
        return int(self.clock() / STUCK_AFTER)

    def sending(self) -> int:
        """Sends started in this period or the one before (older ones are stuck, not busy)."""
        now = self._period()
        return self._sending.get(now, 0) + self._sending.get(now - 1, 0)

    def behind(self) -> bool:
        return self.sending() > max(BACKLOG_FLOOR, self.open // 2)

    def start_sending(self) -> int:
        """Count a send; pass what this returns to `done_sending` when gRPC has taken the update."""
        period = self._period()
        self._sending[period] = self._sending.get(period, 0) + 1
        return period

    def done_sending(self, period: int) -> None:
        left = self._sending[period] - 1
        if left:
            self._sending[period] = left
        else:
            del self._sending[period]
        if self._on_caught_up is not None and not self.behind():
            callback, self._on_caught_up = self._on_caught_up, None
            callback()

    def when_caught_up(self, callback: Callable[[], None]) -> None:
        """Call `callback` once, at the first finished send that leaves the server no longer behind.

        One listener (the server's `Beat`), replaced by the next call. The backlog can also clear without a
        send finishing (stuck sends stop counting), so the listener looks again on its own too."""
        self._on_caught_up = callback
