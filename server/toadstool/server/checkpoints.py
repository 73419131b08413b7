"""WAL checkpoints off the event loop: a thread of the store's own copies the write-ahead log into the database
file, so that no commit made on the event loop waits for a checkpoint's writes and syncs.

Why: SQLite checkpoints a WAL database inside whichever commit takes the log past 1,000 pages, and at
`synchronous = NORMAL` a checkpoint syncs the log, writes the pages back and syncs the database file. The
server commits on its event loop, so at 250 moves a second one commit every 2 s took 4 to 6 ms instead of
0.15, and every move of every table waited behind it (docs/benchmarks.md, round 8). Here the store's own
connection never checkpoints (`wal_autocheckpoint = 0`); after every `every` commits it asks this thread,
which runs a PASSIVE checkpoint on a connection of its own: a passive checkpoint never waits for a writer nor
blocks one, and the sqlite3 module releases the GIL while SQLite writes and syncs.

Not for durability: a commit is as durable as `synchronous` makes it once it is in the log, checkpointed or
not, and a process killed in the middle of a checkpoint leaves a log that SQLite recovers on the next open.
The last connection to close (the store's own) checkpoints whatever is left and removes the log.
"""

from __future__ import annotations

import logging
import sqlite3
import threading

log = logging.getLogger(__name__)

#: Commits between two checkpoints. A move's commit adds 2 to 3 pages to the log, so this is about SQLite's own
#: default of 1,000 pages: the log stays a few MiB.
EVERY = 256


class Checkpointer:
    """Checkpoints one database file's log from a thread, every `every` commits that `committed` is told of.

    The thread starts with the first checkpoint asked for (a store that writes little never starts one) and
    stops at `close`. A checkpoint that fails is logged once and tried again at the next request: SQLite
    keeps the log until one succeeds, so nothing is lost meanwhile, the log only grows.
    """

    def __init__(self, path: str, every: int = EVERY) -> None:
        self.path, self.every = path, every
        #: Checkpoints run so far, the last one's (busy, frames in the log, frames checkpointed), and how
        #: many have failed since the last that worked.
        self.done = 0
        self.last: tuple[int, int, int] | None = None
        self.failed = 0
        self._commits = 0
        self._wanted = threading.Event()
        self._closing = False
        self._thread: threading.Thread | None = None

    def committed(self) -> None:
        """One more commit on the store's connection: every `every`-th asks for a checkpoint."""
        self._commits += 1
        if self._commits % self.every == 0:
            self.request()

    def request(self) -> None:
        """Ask for a checkpoint now (the thread runs one as soon as it is free)."""
        if self._closing:
            return
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="toadstool-checkpoints", daemon=True)
            self._thread.start()
        self._wanted.set()

    def close(self, timeout: float = 10.0) -> None:
        """Stop the thread, letting a checkpoint under way finish (within `timeout` seconds)."""
        self._closing = True
        self._wanted.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        connection = sqlite3.connect(self.path, isolation_level=None)
        try:
            while True:
                self._wanted.wait()
                self._wanted.clear()
                if self._closing:
                    return
                self._checkpoint(connection)
        finally:
            connection.close()

    def _checkpoint(self, connection: sqlite3.Connection) -> None:
        try:
            busy, frames, copied = connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        except sqlite3.Error as error:
            if not self.failed:
                log.warning("%s: a checkpoint of the write-ahead log failed (%s); it is tried again", self.path, error)
            self.failed += 1
            return
        self.failed = 0
        self.last = (busy, frames, copied)
        self.done += 1
