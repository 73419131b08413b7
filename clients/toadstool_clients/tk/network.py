"""The Tk client's network side: one asyncio loop in a background thread, and a queue back to Tk.

It is for keeping every gRPC call off the Tk main loop, so the window never waits for the server. Tk code
submits coroutines with callbacks; the callbacks run later on the Tk thread, when the window polls the
queue with `after`. It knows nothing about screens or games.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import queue
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def ignore_spurious_grpc_wakeups(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """An asyncio exception handler that drops grpc.aio's harmless BlockingIOError from
    PollerCompletionQueue._handle_events, which every loop but one raises when grpc.aio runs in several event
    loops of one process (grpc/grpc#25364); anything else goes to the default handler."""
    error = context.get("exception")
    if isinstance(error, BlockingIOError) and "PollerCompletionQueue" in repr(context.get("handle")):
        return
    loop.default_exception_handler(context)


class Network:
    """An asyncio loop on a daemon thread plus the inbox of callbacks for the Tk thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.inbox: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        #: Submitted calls by number, pruned on the Tk thread once done (see `oldest_pending`).
        self.submitted = 0
        self._pending: dict[int, concurrent.futures.Future[Any]] = {}
        self._thread = threading.Thread(target=self._run, name="toadstool-tk-network", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.set_exception_handler(ignore_spurious_grpc_wakeups)
        self.loop.run_forever()

    def submit(
        self,
        coroutine: Coroutine[Any, Any, T],
        on_done: Callable[[T], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
    ) -> concurrent.futures.Future[T]:
        """Run `coroutine` on the network loop; its result or error is handed to the callbacks on the Tk
        thread (a cancelled call calls neither)."""
        future = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        self.submitted += 1
        self._pending[self.submitted] = future

        def finished(done: concurrent.futures.Future[T]) -> None:
            if done.cancelled():
                return
            error = done.exception()
            if error is not None:
                if on_error is not None:
                    self.inbox.put(lambda: on_error(error))
            elif on_done is not None:
                result = done.result()
                self.inbox.put(lambda: on_done(result))

        future.add_done_callback(finished)
        return future

    def oldest_pending(self) -> int | None:
        """The number of the oldest call not yet finished, or None (Tk thread only)."""
        for number in sorted(self._pending):
            if self._pending[number].done():
                del self._pending[number]
            else:
                return number
        return None

    def post(self, callback: Callable[[], None]) -> None:
        """From the network thread: run `callback` on the Tk thread at the next poll."""
        self.inbox.put(callback)

    def drain(self, limit: int = 500) -> int:
        """On the Tk thread: run the waiting callbacks (at most `limit`, so a flood cannot starve the
        window); returns how many ran."""
        count = 0
        while count < limit:
            try:
                callback = self.inbox.get_nowait()
            except queue.Empty:
                break
            callback()
            count += 1
        return count

    def close(self, seconds: float = 3.0) -> None:
        """Cancel every task on the loop, stop it and join the thread (bounded by `seconds`)."""
        if not self.loop.is_running():
            return

        async def cancel_all() -> None:
            tasks = [t for t in asyncio.all_tasks(self.loop) if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.wait(tasks, timeout=seconds) if tasks else None

        with contextlib.suppress(concurrent.futures.TimeoutError, RuntimeError):
            asyncio.run_coroutine_threadsafe(cancel_all(), self.loop).result(seconds + 1)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(seconds)
