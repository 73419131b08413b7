"""WAL checkpoints mostly off the event loop: a thread of the store's own copies the write-ahead log into the
database file, so that a commit made on the event loop seldom waits for a checkpoint's writes and syncs.

Why: SQLite checkpoints a WAL database inside whichever commit takes the log past its autocheckpoint size
(1,000 pages by default), and at `synchronous = NORMAL` a checkpoint syncs the log, writes the pages back and
syncs the database file. The server commits on its event loop, so at 250 moves a second one commit every 2 s
took 4 to 6 ms instead of 0.15, and every move of every table waited behind it (docs/benchmarks.md, round 8).

Here, once about `EVERY` rows have been written, the store asks this thread, which runs PASSIVE checkpoints
on a connection of its own: a passive checkpoint never waits for a writer nor blocks one, and the sqlite3
module releases the GIL while SQLite writes and syncs. SQLite rewinds the log to its start only at a write
that finds all of it copied back, and under steady writing a commit lands during most checkpoints; so the
thread checkpoints again, each pass shorter than the last, until a pass finds nothing new (`PASSES` at
most). Measured alone at 250 commits a second: no commit over 0.5 ms (SQLite's own checkpoints: 13 in 6,000
over 1 ms, up to 6.8 ms), the log under 5 MiB. The store's own connection keeps a larger autocheckpoint
(`BACKSTOP_PAGES`) as a backstop, for a load this does not keep up with or a thread that cannot run: then
a commit on the loop checkpoints what the thread left, and the next write rewinds the log. (A commit made
while a pass of the thread's holds SQLite's checkpoint lock finds it busy and leaves it to the next commit, so
the log can pass the backstop by what is written during one pass: in a clean-clone CI run on a busy machine,
7,500 pages under back-to-back writing.)

Not for durability: a commit is as durable as `synchronous` makes it once it is in the log, checkpointed or
not, and a process killed in the middle of a checkpoint leaves a log that SQLite recovers on the next open.
The last connection to close (the store's own) checkpoints whatever is left and removes the log.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path
from urllib.parse import quote

log = logging.getLogger(__name__)

#: Rows written between two checkpoints of the thread's. A move is a row and adds one or two pages to the log,
#: so this is about SQLite's own default of 1,000 pages, however many moves a group commit holds.
EVERY = 512
#: Passes of one checkpoint at most (see `Checkpointer._passes`).
PASSES = 8
#: The store's own connection checkpoints (inside a commit) only when the log reaches this many pages (16 MiB
#: of 4 KiB pages): the backstop for a load the thread does not keep up with, or a thread that cannot run.
BACKSTOP_PAGES = 4000
#: A log file left larger than this by a busy spell is cut back to it when it is next rewound.
LOG_SIZE_LIMIT = 16 * 1024 * 1024


class Checkpointer:
    """Checkpoints one database file's log from a thread, every `every` rows that `wrote` is told of.

    The thread starts with the first checkpoint asked for (a store that writes little never starts one), is
    started again if it ever ended, and stops at `close`. A checkpoint that fails (or a connection that
    cannot be opened) is logged once and tried again at the next request, on a new connection: SQLite keeps
    the log until a checkpoint succeeds, so nothing is lost meanwhile, and the backstop bounds the log.
    """

    def __init__(self, path: str, sync: str = "normal", every: int = EVERY) -> None:
        #: Opened read-write by absolute path, never created: a file moved away is not replaced by an empty one.
        self.uri = f"file:{quote(str(Path(path).resolve()))}?mode=rw"
        self.path, self.sync, self.every = path, sync, every
        #: Checkpoints run so far, the last one's (busy, frames in the log, frames checkpointed), and how
        #: many have failed since the last that worked.
        self.done = 0
        self.last: tuple[int, int, int] | None = None
        self.failed = 0
        self._rows = 0
        self._wanted = threading.Event()
        self._closing = False
        self._thread: threading.Thread | None = None

    def wrote(self, rows: int) -> None:
        """`rows` more rows written by the store's connection: every `every` of them ask for a checkpoint."""
        self._rows += rows
        if self._rows >= self.every:
            self._rows = 0
            self.request()

    def request(self) -> None:
        """Ask for a checkpoint now (the thread runs one as soon as it is free)."""
        if self._closing:
            return
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="toadstool-checkpoints", daemon=True)
            self._thread.start()
        self._wanted.set()

    def stop(self) -> None:
        """Let the thread end after the checkpoint under way, without waiting for it."""
        self._closing = True
        self._wanted.set()

    def close(self, timeout: float = 10.0) -> None:
        """Stop the thread, letting a checkpoint under way finish (within `timeout` seconds)."""
        self.stop()
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                log.warning("%s: a checkpoint still runs after %g s; SQLite finishes it later", self.path, timeout)

    def _run(self) -> None:
        connection: sqlite3.Connection | None = None
        try:
            while True:
                self._wanted.wait()
                self._wanted.clear()
                if self._closing:
                    return
                connection = self._checkpoint(connection)
        finally:
            if connection is not None:
                connection.close()

    def _passes(self, connection: sqlite3.Connection) -> tuple[int, int, int]:
        """PASSIVE checkpoints until one finds nothing new in the log (at most `PASSES`): each later pass copies
        only what was committed during the one before, so it is short, and once a pass ends with the whole
        log copied back, the store's next write rewinds the log instead of the backstop's checkpoint."""
        last = (0, -1, -1)
        for _ in range(PASSES):
            busy, frames, copied = connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            if busy or (frames, copied) == last[1:]:
                return busy, frames, copied
            last = (busy, frames, copied)
        return last

    def _checkpoint(self, connection: sqlite3.Connection | None) -> sqlite3.Connection | None:
        """One checkpoint; the connection to use for the next (None after a failure: a new one is opened)."""
        try:
            if connection is None:
                connection = sqlite3.connect(self.uri, uri=True, isolation_level=None)
                connection.execute(f"PRAGMA synchronous = {'FULL' if self.sync == 'full' else 'NORMAL'}")
            busy, frames, copied = self._passes(connection)
        except Exception as error:  # any: the thread must outlive it (out of file descriptors, a full disk)
            if not self.failed:
                log.warning("%s: a checkpoint of the write-ahead log failed (%s); it is tried again", self.path, error)
            self.failed += 1
            if connection is not None:
                connection.close()
            return None
        self.failed = 0
        self.last = (busy, frames, copied)
        self.done += 1
        return connection
