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

from toadstool.api.scopes import TaskScope

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
    """An asyncio loop on a daemon thread, whose every call runs in one task scope, plus the inbox of
    callbacks for the Tk thread.

    The thread runs one `asyncio.run`, whose main coroutine holds a `TaskScope` until `close`: each
    submitted coroutine is a child of that scope (started from the Tk thread with the loop's
    `call_soon_threadsafe`), so closing is leaving the scope, which cancels and waits for every call
    still running. A call's failure is its own: it is handed to the Tk side, never to its siblings.
    """

    def __init__(self, start_seconds: float = 10.0) -> None:
        self.inbox: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        #: Submitted calls by number, pruned on the Tk thread once done (see `oldest_pending`).
        self.submitted = 0
        self._pending: dict[int, concurrent.futures.Future[Any]] = {}
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._scope: TaskScope | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=asyncio.run, args=(self._main(),), name="toadstool-tk-network")
        self._thread.daemon = True
        self._thread.start()
        if not self._ready.wait(start_seconds):
            raise RuntimeError(f"the network thread did not start within {start_seconds:g} s")

    async def _main(self) -> None:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(ignore_spurious_grpc_wakeups)
        self._stop = asyncio.Event()
        try:
            async with TaskScope() as scope:
                self._loop, self._scope = loop, scope
                self._ready.set()
                await self._stop.wait()
        finally:
            self._scope = None

    def submit(
        self,
        coroutine: Coroutine[Any, Any, T],
        on_done: Callable[[T], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
    ) -> concurrent.futures.Future[T]:
        """Run `coroutine` on the network loop, in its scope; its result or error is handed to the callbacks
        on the Tk thread (a cancelled call calls neither). The future cancels the call when cancelled; after
        `close`, the call is not run and the future comes back cancelled."""
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        loop = self._loop
        if loop is None or self._scope is None or loop.is_closed():
            coroutine.close()
            future.cancel()
            return future
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
        try:
            loop.call_soon_threadsafe(self._start, coroutine, future)
        except RuntimeError:  # the loop closed meanwhile
            coroutine.close()
            future.cancel()
        return future

    def _start(self, coroutine: Coroutine[Any, Any, T], future: concurrent.futures.Future[T]) -> None:
        """On the loop: run the call as a child of the scope, unless it was cancelled or the scope is gone."""
        scope, loop = self._scope, self._loop
        if future.cancelled() or scope is None or loop is None:
            coroutine.close()
            future.cancel()
            return
        task = scope.create_task(_settled(coroutine, future))

        def cancelled_from_tk(done: concurrent.futures.Future[T]) -> None:
            if done.cancelled():
                with contextlib.suppress(RuntimeError):  # the loop ended already, and the task with it
                    loop.call_soon_threadsafe(task.cancel)

        future.add_done_callback(cancelled_from_tk)

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
        """Leave the scope (every call still running is cancelled and waited for), end the loop and join
        the thread (bounded by `seconds`)."""
        loop, stop = self._loop, self._stop
        if loop is None or stop is None or not self._thread.is_alive():
            return
        with contextlib.suppress(RuntimeError):  # the loop ended already
            loop.call_soon_threadsafe(stop.set)
        self._thread.join(seconds)


async def _settled(coroutine: Coroutine[Any, Any, T], future: concurrent.futures.Future[T]) -> None:
    """Await one call and settle its future: its result, its error (kept from the scope: a refused call
    must not cancel the others), or cancelled."""
    try:
        result = await coroutine
    except asyncio.CancelledError:
        future.cancel()
        raise
    except Exception as error:
        if future.set_running_or_notify_cancel():
            future.set_exception(error)
        return
    if future.set_running_or_notify_cancel():
        future.set_result(result)
