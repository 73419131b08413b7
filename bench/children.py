"""Starting the benchmarks' load processes: the one way bench/load.py and bench/peers.py spawn a child that
takes its orders on stdin and answers with lines on stdout, and dies when the conductor does.

Why one helper: both scripts must start their load the same way (pipes both ways, stderr straight to the
conductor's so nothing fills an unread pipe, text mode, SIGTERM when the conductor dies however it dies), or
a fix to one silently skips the other. Not for servers: they log to a file (bench/load.py's start_server).
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path


def die_with_parent() -> None:
    """In a child, before exec: be sent SIGTERM when the conductor dies, however it dies (Linux prctl), so
    that no server or worker outlives an interrupted benchmark."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def start_load_process(command: Sequence[str], cwd: Path | None = None) -> subprocess.Popen[str]:
    """A load process: orders to its stdin, answers (READY, then one JSON line) from its stdout, its stderr
    the conductor's own, and it dies with the conductor."""
    return subprocess.Popen(
        list(command),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=sys.stderr,
        text=True,
        cwd=cwd,
        preexec_fn=die_with_parent,
    )
