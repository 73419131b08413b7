"""Task scopes: the asyncio.TaskGroup every task of the server and of the clients starts in (docs/design.md,
principle 7). Here, beside the contract, because both sides use it and a client imports nothing else of
the server package (tests/test_layout.py).

`TaskScope` is a TaskGroup for a scope that lives until it is left (the server, a table, a connection, the
bridge's broker link, a terminal session, a Play stream): leaving it cancels every child still running and
waits until each has ended, so shutting a scope down is leaving its block. `logged` runs a child whose
failure must end only itself.

Not for: deciding what a scope's children are, nor when the scope ends (each owner does).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Generator
from contextvars import Context
from types import TracebackType
from typing import Any, TypeVar

T = TypeVar("T")


class TaskScope(asyncio.TaskGroup):
    """An asyncio.TaskGroup whose end cancels what still runs: a plain TaskGroup waits at the end of its
    block for children that here run until told to stop (a table's bots, a socket's pump, a stream's reader).

    A child's exception cancels its siblings and the block, as in any TaskGroup: a child whose failure
    must not do that runs under `logged`. An exception of the block itself comes out as itself, not in an
    ExceptionGroup, so callers catch it as they would without the scope. A task started while the scope
    is being left is cancelled at once.
    """

    def __init__(self) -> None:
        super().__init__()
        self._children: set[asyncio.Task[Any]] = set()
        self._leaving = False

    def create_task(
        self,
        coro: Generator[Any, None, T] | Coroutine[Any, Any, T],
        *,
        name: str | None = None,
        context: Context | None = None,
    ) -> asyncio.Task[T]:
        task = super().create_task(coro, name=name, context=context)
        if not task.done():
            self._children.add(task)
            task.add_done_callback(self._children.discard)
            if self._leaving:
                task.cancel()
        return task

    def cancel(self) -> None:
        """Cancel every child still running (the scope waits for them when it is left)."""
        for task in list(self._children):
            task.cancel()

    async def __aexit__(
        self, et: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._leaving = True
        self.cancel()
        try:
            await super().__aexit__(et, exc, tb)
        except BaseExceptionGroup as group:
            if exc is not None and len(group.exceptions) == 1 and group.exceptions[0] is exc:
                raise exc from exc.__cause__  # the block's own error, not wrapped
            raise


async def logged(log: logging.Logger, what: str, run: Callable[..., Coroutine[Any, Any, None]], *args: Any) -> None:
    """Run `run(*args)`; an exception ends it and is logged as an ERROR with its traceback, never raised,
    so it ends only this child: not its siblings, nor its scope. (It takes the coroutine function, not a
    coroutine: a child cancelled before it starts then leaves no coroutine that was never awaited.)"""
    try:
        await run(*args)
    except Exception:
        log.exception("%s failed", what)
