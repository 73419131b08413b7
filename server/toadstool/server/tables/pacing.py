"""Bot pacing: bots' delays end together on a shared beat, which is held while the server is behind on
delivering (`Backlog`), so a busy server plays its bots slower instead of falling further behind; and the
`Clock` that the beat and the tables' turn clocks tell the time and set their timers by.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable
from typing import Any, Protocol

from toadstool.server.tables.backlog import Backlog
from toadstool.server.tables.waiters import Waiters, kept_loop

log = logging.getLogger(__name__)


#: When a bot's delay ends this many seconds late, the event loop is behind (more tables than the machine can
#: play): the bot then waits as long again, so people's calls and every stream catch up first.
BUSY_LAG = 0.02


#: The longest a bot's beat is held while the server catches up, per move (so a bot game never stops for
#: good); the release comes at the next look after it (`BACKLOG_RECHECK`).
MAX_BOT_WAIT = 2.0


#: How often the server's beat looks again, while it holds bots, whether the server is still behind.
BACKLOG_RECHECK = 0.25


#: Bot delays end on multiples of this many seconds (see `Beat`).
BEAT_SECONDS = 0.005


class Timer(Protocol):
    """A callback a `Clock` will call, unless it is cancelled first (an `asyncio.TimerHandle`)."""

    def cancel(self) -> None: ...


class Clock(Protocol):
    """The time and the timers of the server's waits (the beat, the turn clocks, takeover).

    By default the event loop they run in (asyncio's time is `time.monotonic()`, what the turn clock's
    deadlines sent to clients are counted from): the server asks it what it asked the loop before. Tests give
    a clock they move by hand instead (tests/timing.py), so nothing they check depends on how fast a loaded
    machine runs.
    """

    def time(self) -> float: ...

    def call_at(self, when: float, callback: Callable[..., object], *args: Any) -> Timer: ...

    def call_later(self, delay: float, callback: Callable[..., object], *args: Any) -> Timer: ...


class _Sounding:
    """One beat's sleepers, and when they were woken (the beat's time, or later if it was held); `free`
    sleepers are never held."""

    __slots__ = ("due", "free", "sleepers", "woken")

    def __init__(self, due: float) -> None:
        self.due = due
        self.woken = due
        self.sleepers = Waiters()
        self.free = Waiters()


class Beat:
    """The server's pace for bots: sleeping bots wake together, on multiples of `BEAT_SECONDS`, and not
    while the server is behind on delivering (`Backlog`).

    Shared by every table of a server. Bots whose delays end within the same few milliseconds move in
    the same turn of the event loop, so their tables' views go out together: one timer instead of one
    per move, and gRPC sends (and clients receive) those views in bursts, which costs both sides less
    per message than the same views one by one (bench/load.py: about 5 % more views per second with
    250 tables of bots). A delay is stretched by less than a beat, which nobody sees in a bot's move.

    A beat that comes while most streams are still sending is held until they catch up (at most
    `MAX_BOT_WAIT`): bots that moved anyway would spend the machine on moves nobody sees. Holding the
    beat, rather than each bot waiting on the backlog after it wakes, wakes a bot once per move.

    Its time and timers are the event loop's, or those of the `clock` it is given (tests move one by hand).
    """

    def __init__(self, backlog: Backlog | None = None, clock: Clock | None = None) -> None:
        self.backlog = backlog
        self.clock = clock
        #: The beats to come, by the clock's time each falls at.
        self._due: dict[float, _Sounding] = {}
        #: Beats that came while the server was behind, oldest first.
        self._held: list[_Sounding] = []
        self._look_again: Timer | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def sleep(self, delay: float, hold: bool = True) -> float:
        """Sleep at least `delay` seconds, until the next beat after it (and, unless `hold` is False, until
        the server is no longer behind); return how many seconds after being woken this sleeper ran (more
        than a few milliseconds: the event loop is behind)."""
        loop = kept_loop(self._loop)
        if loop is not self._loop:  # any beats still due or held belonged to a closed loop
            self._loop, self._due, self._held, self._look_again = loop, {}, [], None
        clock: Clock = self.clock or loop
        if delay <= 0 and not (hold and self._behind()):  # no delay asked (tests play whole games at full
            asked = clock.time()  # speed): one turn of the loop, and how long that took is how late it is
            await asyncio.sleep(0)
            return clock.time() - asked
        if delay <= 0:  # and the server is behind: held like a beat that came now
            sounding = _Sounding(clock.time())
            self._hold(sounding, clock)
        else:
            when = math.ceil((clock.time() + delay) / BEAT_SECONDS) * BEAT_SECONDS
            due = self._due.get(when)
            if due is None:
                due = self._due[when] = _Sounding(when)
                clock.call_at(when, self._sound, when)
            sounding = due
        if hold:
            await sounding.sleepers.wait()
            return clock.time() - sounding.woken
        await sounding.free.wait()
        return clock.time() - sounding.due

    def _clock(self) -> Clock:
        return self.clock or kept_loop(self._loop)

    def _behind(self) -> bool:
        return self.backlog is not None and self.backlog.behind()

    def _sound(self, when: float) -> None:
        sounding = self._due.pop(when)
        sounding.free.wake_all()
        if self._behind():
            self._hold(sounding, self._clock())
        else:
            sounding.sleepers.wake_all()

    def _hold(self, sounding: _Sounding, clock: Clock) -> None:
        """Keep a beat until the backlog's next send leaves the server caught up, looking again in slices
        meanwhile (the backlog also clears without a send finishing: stuck sends stop counting)."""
        self._held.append(sounding)
        if self._look_again is None and self.backlog is not None:
            self._look_again = clock.call_later(BACKLOG_RECHECK, self._look)
            self.backlog.when_caught_up(self._release_all)

    def _release_all(self) -> None:
        if self._look_again is not None:
            self._look_again.cancel()
            self._look_again = None
        held, self._held = self._held, []
        self._release(held)

    def _look(self) -> None:
        self._look_again = None
        if not self._behind():
            self._release_all()
            return
        clock = self._clock()
        overdue = clock.time() - MAX_BOT_WAIT  # a bot game never waits more than that per move
        self._release([s for s in self._held if s.due <= overdue])
        self._held = [s for s in self._held if s.due > overdue]
        if self._held:
            self._look_again = clock.call_later(BACKLOG_RECHECK, self._look)

    def _release(self, held: list[_Sounding]) -> None:
        now = self._clock().time()
        for sounding in held:
            sounding.woken = now
            sounding.sleepers.wake_all()
