"""Accepting the browser side's connections: every one waiting in the kernel at each wake-up of the port.

libuv, under uvloop, accepts one connection per turn of the event loop (libuv PR #3696, 2022), and a busy
server's turn takes milliseconds. So a burst of new connections waited in the kernel's queue one turn
each: browsers coming back after a blip, or the load's seats opening their Act connections (uvicorn closes
a connection idle for 5 s). At 250 tables over Connect, some moves took 4 s to reach their table, the
time the loop took to get through the queue, against a p50 of 0.2 s (docs/benchmarks.md, issue #24).
asyncio's own loop accepts up to its backlog at each wake-up. `BatchAcceptor` does the same on any loop
that can watch a socket: it accepts up to `ACCEPT_BATCH` connections whenever the port is readable and
hands each to uvicorn's protocol through `loop.connect_accepted_socket`.

Not for serving HTTP (uvicorn, toadstool.server.web_http) nor binding the port (toadstool.server.web).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import socket
import ssl
from collections.abc import Callable

from toadstool.api.scopes import TaskScope

log = logging.getLogger(__name__)

#: Connections accepted per wake-up of the port at most (asyncio's loop takes up to its backlog): a flood of
#: connections cannot keep the loop from everything else, and the rest come at the next turn (the port is
#: watched level-triggered).
ACCEPT_BATCH = 128
#: How long accepting pauses after an error that is not one connection's (the process out of file
#: descriptors, the kernel out of memory), as asyncio's loop does: connections wait in the kernel's queue
#: meanwhile, and accepting again at once would only fail again.
PAUSE_SECONDS = 1.0
#: The errors of one connection that went away before it was accepted: the next one is accepted at once.
_ONE_CONNECTION_GONE = frozenset({errno.ECONNABORTED, errno.EPROTO, errno.EPERM})


def batch_accept_works(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether `loop` can watch a listening socket (`add_reader`): every loop but Windows' proactor, which
    keeps uvicorn's own server (it accepts with overlapped I/O)."""
    proactor = getattr(asyncio, "ProactorEventLoop", None)
    return proactor is None or not isinstance(loop, proactor)


class BatchAcceptor:
    """Accepts `sock`'s connections in batches for `protocol_factory` (uvicorn's protocol), over TLS with
    `tls`, from `start` until `close`. The caller owns and closes the socket, and owns `tasks`, the scope
    each connection's hand-over runs in (the web side's: toadstool.server.web); a hand-over's failure is
    logged by the hand-over itself and ends only that connection."""

    def __init__(
        self,
        sock: socket.socket,
        protocol_factory: Callable[[], asyncio.Protocol],
        tls: ssl.SSLContext | None,
        loop: asyncio.AbstractEventLoop,
        tasks: TaskScope,
    ) -> None:
        self.sock, self.protocol_factory, self.tls, self.loop = sock, protocol_factory, tls, loop
        self.tasks = tasks
        self._fd = sock.fileno()  # kept: a closed socket's fileno() is -1
        self._watching = False
        self._resume: asyncio.TimerHandle | None = None
        #: Each accepted connection's hand-over to uvicorn, with its socket (closed here if it never began).
        self._handing_over: dict[asyncio.Task[None], socket.socket] = {}

    def start(self) -> None:
        self._resume = None
        if not self._watching:
            self.loop.add_reader(self._fd, self._accept)
            self._watching = True

    def _stop_watching(self) -> None:
        if self._watching:
            self.loop.remove_reader(self._fd)
            self._watching = False

    def _pause(self, why: str) -> None:
        log.warning("cannot accept connections on the web port (%s); trying again in %.0f s", why, PAUSE_SECONDS)
        self._stop_watching()
        self._resume = self.loop.call_later(PAUSE_SECONDS, self.start)

    def _accept(self) -> None:
        for _ in range(ACCEPT_BATCH):
            try:
                conn, _address = self.sock.accept()
            except (BlockingIOError, InterruptedError):
                return  # the queue is empty
            except OSError as error:
                if error.errno in _ONE_CONNECTION_GONE:
                    continue
                self._pause(error.strerror or repr(error))
                return
            self._hand_over(conn)

    def _hand_over(self, conn: socket.socket) -> None:
        conn.setblocking(False)
        with contextlib.suppress(OSError):  # a peer already gone (macOS says EINVAL); its transport will say so
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # asyncio's loop skips it on macOS
        task = self.tasks.create_task(self._connect(conn))
        self._handing_over[task] = conn
        task.add_done_callback(self._handed_over)

    def _handed_over(self, task: asyncio.Task[None]) -> None:
        conn = self._handing_over.pop(task, None)
        if conn is not None and task.cancelled():  # closed before it began: nobody else will close it
            conn.close()

    async def _connect(self, conn: socket.socket) -> None:
        try:
            # The TLS handshake has the loop's default timeout (60 s), as under uvicorn's own server.
            await self.loop.connect_accepted_socket(self.protocol_factory, conn, ssl=self.tls)
        except OSError as error:  # ssl.SSLError and TimeoutError are OSErrors too
            log.debug("a web connection ended before it began: %r", error)
            conn.close()
        except Exception:  # a bug (uvicorn's protocol could not be made): said, and the port goes on
            log.exception("a web connection could not be handed to the HTTP server")
            conn.close()

    async def close(self) -> None:
        """Stop accepting. Connections accepted but not yet handed over, or still in their TLS handshake,
        are closed: nothing was served on them yet, and uvicorn's shutdown does not know them."""
        self._stop_watching()
        if self._resume is not None:
            self._resume.cancel()
            self._resume = None
        tasks = list(self._handing_over)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
