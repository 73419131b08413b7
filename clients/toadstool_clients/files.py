"""A client's own small files (saved seats, host tokens, the Tk settings): written whole or not at all,
readable by this user alone from the first byte, and changed by one program at a time.

Why: a laptop that dies while `seats.json` is rewritten must not lose every seat it held (a truncated file
reads as empty), and a file of seat tokens must never be readable by others, not even between its creation
and a later chmod. So the new content goes to a temporary file beside it, created 0600, flushed to disk,
and then renamed over the old one: a reader, or the next run after a crash, sees the old file or the new.
And two clients on one machine (two people at one laptop, each in a terminal) may save a seat at the same
moment: each would write back what it read, without the other's seat, unless the change is `changing`'s.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path


def replace_private(path: Path, text: str) -> None:
    """Make `path` hold `text` (UTF-8), atomically, with mode 0600; creates its directory if needed.

    Raises OSError (a full disk, a read-only home) with the old file left as it was. A `path` that is a
    symbolic link (dotfiles kept elsewhere) has the file it points to replaced, not the link."""
    path = Path(os.path.realpath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")  # 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


@contextlib.contextmanager
def changing(path: Path) -> Iterator[None]:
    """Held around a read, change and `replace_private` of `path`: another program's change waits for it.

    An advisory lock (flock) on a lock file beside it, for the milliseconds a change takes. Where there is
    none to take (not POSIX) or the lock file cannot be made, the change goes ahead unlocked, as before."""
    path = Path(os.path.realpath(path))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = open(path.with_name(path.name + ".lock"), "a")  # noqa: SIM115 (closed below, which unlocks)
    except OSError:
        yield
        return
    with lock:
        if sys.platform != "win32":
            import fcntl

            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        yield
