"""Time in tests of the server's own tasks (bots moving, counts settling): a polled, bounded wait that fails
with a message instead of hanging the suite, and a clock the test moves by hand."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable
from typing import Any


async def until(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    """Return once `condition()` holds; fail the test if it has not within `seconds`."""
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while not condition():
        assert loop.time() < end, "the condition did not hold in time"
        await asyncio.sleep(0.01)


def wait_until(condition: Callable[[], bool], what: str, seconds: float = 20.0) -> None:
    """The same wait for a test that is not a coroutine (a server in another process, a thread): polls
    `condition()` until it holds, failing the test with `what` after `seconds`, a bound for a loaded two-core
    machine, not a speed requirement."""
    end = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < end, f"still not {what} after {seconds:g} s"
        time.sleep(0.01)


async def turns(count: int = 5) -> None:
    """Let the event loop run `count` turns (tasks a clock's timer woke run, and those they wake)."""
    for _ in range(count):
        await asyncio.sleep(0)


class Timer:
    """A callback a `Clock` calls at `when`, unless it is cancelled first."""

    def __init__(self, when: float, callback: Callable[..., object], args: tuple[Any, ...]) -> None:
        self.when = when
        self.cancelled = False
        self._callback = callback
        self._args = args

    def cancel(self) -> None:
        self.cancelled = True

    def fire(self) -> None:
        if not self.cancelled:
            self.cancelled = True  # called once
            self._callback(*self._args)


class Clock:
    """A clock that stands still until the test moves it.

    Call it for the time (what `Backlog(clock=...)` takes); or give it as the `Clock` of a `Beat`, a
    `TableRegistry` or a table (toadstool.tables.pacing), which tell the time and set their timers by it.

    `advance(seconds)` moves it on, calling each timer that falls due on the way at its own time; `tick()`
    moves it to the next timer only. The tasks a timer wakes run when the test next lets the loop turn
    (`turns`), at the clock's time then: so `tick()` then `turns()` is a loop on time, while setting `now`
    (no timer called) and then `advance(0)` is a loop that was held up, whose timers run late. A timer set
    for a time already past runs at the loop's next turn, as asyncio's does.
    """

    def __init__(self, now: float = 100.0) -> None:
        self.now = now
        self._timers: list[tuple[float, int, Timer]] = []
        self._order = itertools.count()

    def __call__(self) -> float:
        return self.now

    def time(self) -> float:
        return self.now

    def call_at(self, when: float, callback: Callable[..., object], *args: Any) -> Timer:
        timer = Timer(when, callback, args)
        if when <= self.now:
            try:
                asyncio.get_running_loop().call_soon(timer.fire)
                return timer
            except RuntimeError:  # no loop runs: it is called at the next move of the clock
                pass
        heapq.heappush(self._timers, (when, next(self._order), timer))
        return timer

    def call_later(self, delay: float, callback: Callable[..., object], *args: Any) -> Timer:
        return self.call_at(self.now + delay, callback, *args)

    def pending(self) -> list[float]:
        """When the timers not yet called nor cancelled fall due, soonest first."""
        return sorted(timer.when for _, _, timer in self._timers if not timer.cancelled)

    def advance(self, seconds: float) -> None:
        """Move the clock `seconds` on, calling every timer that falls due meanwhile at its time (those set
        by timers called on the way too)."""
        end = self.now + seconds
        while self._timers and self._timers[0][0] <= end:
            when, _, timer = heapq.heappop(self._timers)
            self.now = max(self.now, when)
            timer.fire()
        self.now = max(self.now, end)

    def tick(self) -> float:
        """Move the clock to the next timer, call it (and any other due then); returns the time."""
        upcoming = self.pending()
        assert upcoming, "no timer is set: the clock would move for nothing"
        self.advance(max(0.0, upcoming[0] - self.now))
        return self.now
