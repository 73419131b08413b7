"""Writing a client's own small files (saved seats, host tokens, the Tk settings) whole or not at all, and
readable by this user alone from the first byte.

Why: a laptop that dies while `seats.json` is rewritten must not lose every seat it held (a truncated file
reads as empty), and a file of seat tokens must never be readable by others, not even between its creation
and a later chmod. So the new content goes to a temporary file beside it, created 0600, flushed to disk,
and then renamed over the old one: a reader, or the next run after a crash, sees the old file or the new.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
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
