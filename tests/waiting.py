"""Waiting, in a test, for what the server's own tasks do (bots moving, counts settling): polled, bounded,
and failing with a message instead of hanging the suite."""

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
