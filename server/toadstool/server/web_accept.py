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
import errno
import logging
import socket
import ssl
from collections.abc import Callable

log = logging.getLogger(__name__)

#: Connections accepted per wake-up of the port at most, as asyncio's loop does with its default backlog:
#: a flood of connections cannot keep the loop from everything else, and the rest come at the next turn.
ACCEPT_BATCH = 128
#: How long accepting pauses when the process is out of file descriptors (or the kernel out of memory), as
#: asyncio's loop does: connections wait in the kernel's queue meanwhile, and accepting in a tight loop
#: would only fail again.
PAUSE_WHEN_OUT_OF_FILES = 1.0
#: How long a TLS client may take over its handshake before its connection is dropped.
TLS_HANDSHAKE_SECONDS = 10.0

_OUT_OF_RESOURCES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})


def batch_accept_works(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether `loop` can watch a listening socket (`add_reader`): every loop but Windows' proactor, which
    keeps uvicorn's own server (it accepts with overlapped I/O)."""
    proactor = getattr(asyncio, "ProactorEventLoop", None)
    return proactor is None or not isinstance(loop, proactor)


class BatchAcceptor:
    """Accepts `sock`'s connections in batches for `protocol_factory` (uvicorn's protocol), over TLS with
    `tls`, from `start` until `close`. The caller owns and closes the socket."""

    def __init__(
        self,
        sock: socket.socket,
        protocol_factory: Callable[[], asyncio.Protocol],
        tls: ssl.SSLContext | None,
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        self.sock, self.protocol_factory, self.tls, self.loop = sock, protocol_factory, tls, loop
        self._watching = False
        self._resume: asyncio.TimerHandle | None = None
        self._handshakes: set[asyncio.Task[None]] = set()

    def start(self) -> None:
        self._resume = None
        if not self._watching:
            self.loop.add_reader(self.sock.fileno(), self._accept)
            self._watching = True

    def _stop_watching(self) -> None:
        if self._watching:
            self.loop.remove_reader(self.sock.fileno())
            self._watching = False

    def _accept(self) -> None:
        for _ in range(ACCEPT_BATCH):
            try:
                conn, _address = self.sock.accept()
            except (BlockingIOError, InterruptedError):
                return  # the queue is empty
            except OSError as error:
                if error.errno in _OUT_OF_RESOURCES:
                    log.warning(
                        "cannot accept a connection on the web port (%s); trying again in %.0f s",
                        error.strerror,
                        PAUSE_WHEN_OUT_OF_FILES,
                    )
                    self._stop_watching()
                    self._resume = self.loop.call_later(PAUSE_WHEN_OUT_OF_FILES, self.start)
                    return
                continue  # that one connection went away before it was accepted (ECONNABORTED, EPROTO...)
            self._hand_over(conn)

    def _hand_over(self, conn: socket.socket) -> None:
        conn.setblocking(False)
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as asyncio's and uvloop's servers do
        task = self.loop.create_task(self._connect(conn))
        self._handshakes.add(task)
        task.add_done_callback(self._handshakes.discard)

    async def _connect(self, conn: socket.socket) -> None:
        try:
            await self.loop.connect_accepted_socket(
                self.protocol_factory,
                conn,
                ssl=self.tls,
                ssl_handshake_timeout=TLS_HANDSHAKE_SECONDS if self.tls is not None else None,
            )
        except (OSError, ssl.SSLError, TimeoutError, ConnectionError) as error:
            log.debug("a web connection ended before it began: %r", error)
            conn.close()

    async def close(self) -> None:
        """Stop accepting; connections still in their TLS handshake are dropped (nothing was served yet)."""
        self._stop_watching()
        if self._resume is not None:
            self._resume.cancel()
            self._resume = None
        for task in list(self._handshakes):
            task.cancel()
        await asyncio.gather(*self._handshakes, return_exceptions=True)
