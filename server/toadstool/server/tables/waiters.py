"""Waiters: futures woken together when something a task waits for has happened (a table changed, a
beat came, the backlog cleared), in the loop they were made in.
"""

from __future__ import annotations

import asyncio
import contextlib


def kept_loop(kept: asyncio.AbstractEventLoop | None) -> asyncio.AbstractEventLoop:
    """`kept` while it is open, else the running loop.

    On Python 3.11 each lookup of the running loop is a `getpid` system call (a few per cent of a busy
    server's time in bench/load.py, where streams and bots wait thousands of times a second), so the
    hottest waits keep the loop they first ran in. A server's tables live in its one loop; tests and
    programs embedding the server may run several loops one after the other, hence the check.
    """
    if kept is None or kept.is_closed():
        return asyncio.get_running_loop()
    return kept


class Waiters:
    """Tasks waiting for the same thing, all woken together by `wake_all`: what `asyncio.Event` does, for
    the server's hottest waits (every stream between messages, bots between moves), without asking for
    the running loop at every wait (see `kept_loop`)."""

    def __init__(self) -> None:
        self._futures: list[asyncio.Future[None]] = []
        self._loop: asyncio.AbstractEventLoop | None = None

    def __len__(self) -> int:
        return len(self._futures)

    async def wait(self) -> None:
        """Return at the next `wake_all`."""
        future = self.next()
        try:
            await future
        except BaseException:  # the waiter went away: do not keep its future until the next wake-up
            self.forget(future)
            raise

    def next(self) -> asyncio.Future[None]:
        """A future done at the next `wake_all`, for the hottest wait (a Watch stream's, which awaits it
        itself: two coroutines fewer to resume and to keep alive, per stream and per change). Whoever stops
        waiting before it is done must `forget` it, as `wait` does."""
        loop = kept_loop(self._loop)
        if loop is not self._loop:
            self._loop, self._futures = loop, []  # any futures left belonged to a closed loop
        future = loop.create_future()
        self._futures.append(future)
        return future

    def forget(self, future: asyncio.Future[None]) -> None:
        """Let go of a future from `next` that nobody waits for any more (a stream that ended)."""
        with contextlib.suppress(ValueError):
            self._futures.remove(future)

    def wake_all(self) -> None:
        futures, self._futures = self._futures, []
        for future in futures:
            if not future.done():
                future.set_result(None)
