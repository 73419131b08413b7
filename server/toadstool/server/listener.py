"""Keeping the gRPC port open: one hostile request must never make the server unreachable.

grpcio's aio accept loop (`AioServer._server_main_loop`) decodes each new call's method name as UTF-8 before
any interceptor or handler of ours runs; a `:path` that is not UTF-8 raises there, the loop ends, and its
crash handler shuts the whole gRPC server down: every new call is refused until the last open stream has
closed (with the MQTT bridge watching, never). See grpcio's `server.pyx.pxi`; still so in grpcio 1.85.

`Listener` starts each grpc.aio server with its accept loop wrapped: when that loop ends with an exception,
the wrapper keeps grpcio's crash handler from shutting the server down and tells the listener at once. The
listener then retires that server gracefully (it closes its listening socket and sends GOAWAY, so clients
move to a new connection, while every call already open on it, a `Watch` stream included, keeps running),
and binds a fresh server on the same port. A person watching sees no gap; a new call fails for at most the
moment between the old socket closing and the new one opening.

Not for: what is served (the caller builds each server), nor bad bytes that grpcio survives (hardening.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine
from typing import Any

import grpc

from toadstool.api.scopes import TaskScope, logged

log = logging.getLogger(__name__)

#: The coroutines grpcio runs as a server's accept loop, and as each request for the next call inside it.
ACCEPT_LOOP = "AioServer._server_main_loop"
REQUEST_CALLS = frozenset({"AioServer._request_call", "AioServer._request_registered_call"})

#: How long a retired server may keep serving the calls that were open on it. Watch streams last as long as
#: a game (hours); the server's own shutdown stops retired servers with its grace like the current one.
RETIRED_GRACE = 7 * 24 * 3600.0

#: How long a replacement keeps trying to bind the port while the retired server's socket closes.
REBIND_SECONDS = 2.0
REBIND_PAUSE = 0.01


def bind(server: grpc.aio.Server, host: str, port: int, credentials: grpc.ServerCredentials | None) -> int:
    """Bind `server` to host:port (port 0: a free one); return the port, or raise OSError naming the address."""
    address = f"{host}:{port}"
    try:  # grpc.aio raises RuntimeError ("Failed to bind"); older grpcio returned 0
        bound = server.add_secure_port(address, credentials) if credentials else server.add_insecure_port(address)
    except RuntimeError as error:
        raise OSError(f"cannot listen on {address} (is another server using it?): {error}") from None
    if bound == 0:
        raise OSError(f"cannot listen on {address} (is another server using it?)")
    return int(bound)


async def _guarded(accept_loop: Coroutine[Any, Any, Any], crashed: Callable[[BaseException], None]) -> Any:
    """Run grpcio's accept loop; an exception that ends it is reported, not raised, so grpcio's crash handler
    (which would shut the server down, cancelling or stranding every open call) sees a clean exit."""
    try:
        return await accept_loop
    except Exception as error:
        crashed(error)
        return None


def _kept(loop: asyncio.AbstractEventLoop, request: asyncio.Future[Any]) -> asyncio.Future[Any]:
    """What the accept loop awaits in place of grpcio's request for the next call: a future that relays the
    request's outcome. A dying accept loop cancels what it awaits; the request itself must run on until the
    core completes it, because the core writes the new call into memory the request owns. Cancelling the
    request outright frees that memory while the core still holds it: the process segfaults as soon as the
    next call arrives (seen with grpcio 1.85 under steady traffic). A plain future, not a second task: this
    runs once per call, and a task costs a scheduled step more."""
    waiter: asyncio.Future[Any] = loop.create_future()

    def relay(done: asyncio.Future[Any]) -> None:
        if waiter.done():  # cancelled by a dying accept loop: nobody is waiting for the call any more
            if not done.cancelled():
                done.exception()  # read, so asyncio does not log it as never retrieved
        elif done.cancelled():
            waiter.cancel()
        elif (error := done.exception()) is not None:
            waiter.set_exception(error)
        else:
            waiter.set_result(done.result())

    request.add_done_callback(relay)
    return waiter


class AcceptLoopGuard:
    """An event-loop task factory, installed while servers run: it guards each accept loop it sees start and
    keeps each request for a call alive through the loop's death. Every other task passes through as is."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._previous = loop.get_task_factory()
        #: Told about the accept loop that starts next (set just around a server's start()).
        self.crashed: Callable[[BaseException], None] | None = None
        self.found = False

    def install(self) -> AcceptLoopGuard:
        self._loop.set_task_factory(self._factory)
        return self

    def remove(self) -> None:
        if self._loop.get_task_factory() == self._factory:
            self._loop.set_task_factory(self._previous)

    def _task(self, coro: Any, **kwargs: Any) -> asyncio.Future[Any]:
        if self._previous is not None:
            return self._previous(self._loop, coro, **kwargs)
        return asyncio.Task(coro, loop=self._loop, **kwargs)

    def _factory(self, loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Future[Any]:
        name = getattr(coro, "__qualname__", "")
        if name in REQUEST_CALLS:
            return _kept(loop, self._task(coro, **kwargs))
        if name == ACCEPT_LOOP and self.crashed is not None:
            self.found = True
            coro, self.crashed = _guarded(coro, self.crashed), None
        return self._task(coro, **kwargs)


class Listener:
    """The server's port, kept open: the current grpc.aio server and the retired ones still finishing calls.

    `build` makes a new, unbound server with every service added; `credentials` are TLS or None.

    Its scope, from `start` to `stop`, holds the retired servers' stop() and the task that listens again;
    each one's failure is logged and ends only it (the current server goes on serving).
    """

    def __init__(
        self,
        build: Callable[[], grpc.aio.Server],
        host: str,
        credentials: grpc.ServerCredentials | None,
    ) -> None:
        self._build = build
        self.host = host
        self.port = 0
        self._credentials = credentials
        self.server: grpc.aio.Server | None = None
        #: Servers whose accept loop died, each still finishing its open calls in its stop() task.
        self._retired: dict[grpc.aio.Server, asyncio.Task[None]] = {}
        self._replacing: asyncio.Task[None] | None = None
        self._tasks = TaskScope()
        self._closing = False
        #: How many times the accept loop died and the port was re-opened (for the tests and the log).
        self.restarts = 0
        self._guard: AcceptLoopGuard | None = None

    async def start(self, port: int) -> int:
        """Bind and start the first server; return the port it got. `stop` must follow, in the same task."""
        server = self._build()
        self.port = bind(server, self.host, port, self._credentials)
        await self._tasks.__aenter__()
        await self._start(server)
        return self.port

    async def _start(self, server: grpc.aio.Server) -> None:
        self.server = server
        if self._guard is None:
            self._guard = AcceptLoopGuard(asyncio.get_running_loop()).install()
        self._guard.crashed, self._guard.found = (lambda error: self._crashed(server, error)), False
        await server.start()
        if not self._guard.found:
            log.warning("cannot guard grpcio's accept loop (its internals changed): a malformed request may stop it")
            self._replacing = self._tasks.create_task(
                logged(log, "re-opening the port", self._watch_unguarded, server), name="grpc-unguarded"
            )

    def _crashed(self, server: grpc.aio.Server, error: BaseException) -> None:
        if self._closing or self.server is None or server is not self.server:
            return
        log.warning(
            "grpcio's accept loop stopped on a malformed request (%s: %s); listening again on port %d",
            type(error).__name__,
            error,
            self.port,
        )
        # Retire it first, at once: until its socket closes, new connections reach an accept loop nobody runs.
        self._retired[server] = self._tasks.create_task(self._retire(server), name="grpc-retired")
        self._replacing = self._tasks.create_task(
            logged(log, "re-opening the port", self._replace), name="grpc-relisten"
        )

    async def _retire(self, server: grpc.aio.Server) -> None:
        """Let a retired server finish its open calls (a failure to stop is said, and ends only this)."""
        try:
            await server.stop(RETIRED_GRACE)
        except Exception as error:
            log.warning("a retired gRPC server failed to stop: %s", error)
        finally:
            self._retired.pop(server, None)

    async def _watch_unguarded(self, server: grpc.aio.Server) -> None:
        """Fallback for an unguarded server: re-open the port once grpcio has shut the crashed server down."""
        with contextlib.suppress(Exception):
            # Shielded: cancelling wait_for_termination() cancels grpcio's own shutdown future.
            await asyncio.shield(server.wait_for_termination())
        if not self._closing and server is self.server:
            await self._replace()

    async def _replace(self) -> None:
        """Bind a new server on the port once the retired one's socket has closed (no SO_REUSEPORT, so that a
        second program on this port is refused rather than handed half the connections)."""
        await asyncio.sleep(0)  # the retired server's stop() closes its listening socket in its first step
        deadline = asyncio.get_running_loop().time() + REBIND_SECONDS
        while not self._closing:
            server = self._build()
            try:
                bind(server, self.host, self.port, self._credentials)
            except OSError:
                if asyncio.get_running_loop().time() > deadline:
                    log.error("cannot listen on port %d again after grpcio's accept loop stopped", self.port)
                    return
                await asyncio.sleep(REBIND_PAUSE)
                continue
            await self._start(server)
            self.restarts += 1
            return

    async def stop(self, grace: float) -> None:
        """Stop the current server and every retired one: no new calls, open calls get `grace` seconds."""
        self._closing = True
        if self._replacing is not None and not self._replacing.done():
            self._replacing.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._replacing
        servers = [*([] if self.server is None else [self.server]), *self._retired]
        # A second stop() on a retiring server cuts its long grace short: its open calls are cancelled after
        # `grace`, and the first stop() then returns too.
        async with asyncio.TaskGroup() as stopping:
            for server in servers:
                stopping.create_task(_stopped(server, grace))
        # The retired servers' first stop() returns once the one above has: waited for, never cancelled
        # (cancelling a stop() cancels grpcio's own shutdown). Then leaving the scope ends what is left.
        if self._retired:
            await asyncio.wait(list(self._retired.values()))
        await self._tasks.__aexit__(None, None, None)
        if self._guard is not None:
            self._guard.remove()


async def _stopped(server: grpc.aio.Server, grace: float) -> None:
    """`server.stop(grace)`; a failure is ignored, so that every other server stops all the same."""
    with contextlib.suppress(Exception):
        await server.stop(grace)
