"""Time in tests of the server's own tasks (bots moving, counts settling): a polled, bounded wait that fails
with a message instead of hanging the suite, and a clock the test moves by hand."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


async def until(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    """Return once `condition()` holds; fail the test if it has not within `seconds`."""
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while not condition():
        assert loop.time() < end, "the condition did not hold in time"
        await asyncio.sleep(0.01)


class Clock:
    """A clock for `Backlog(clock=...)` that stands still until the test moves `now`."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now
