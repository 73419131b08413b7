"""A real terminal for tests: a tmux server of its own (its own socket), one session per program, captured
as text with `capture-pane -p`, driven with `send-keys`, its scrollback read from `#{history_size}`.

Test tooling only; every wait is bounded by time.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path

OUTPUT = Path(__file__).resolve().parent.parent / "test-output" / "terminal"


class Tmux:
    """One program running in a tmux pane of `width` x `height` on a private tmux server."""

    def __init__(self, socket: Path, command: Sequence[str], width: int, height: int, env: dict[str, str]) -> None:
        assert shutil.which("tmux"), "tmux is needed (scripts/test installs it)"
        self.socket = str(socket)
        exports = " ".join(f"{key}={shlex.quote(value)}" for key, value in env.items())
        line = f"env {exports} {shlex.join(command)}; echo EXIT=$?; read -r -t 600 _"
        self._tmux("new-session", "-d", "-s", "t", "-x", str(width), "-y", str(height), line)

    def _tmux(self, *args: str) -> str:
        result = subprocess.run(
            ["tmux", "-S", self.socket, *args], capture_output=True, text=True, timeout=20, check=True
        )
        return result.stdout

    def capture(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "t")

    def history_size(self) -> int:
        return int(self._tmux("display", "-p", "-t", "t", "#{history_size}").strip())

    def send(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", "t", *keys)

    def resize(self, width: int, height: int) -> None:
        """Resize the terminal as a person dragging its window would."""
        self._tmux("resize-window", "-t", "t", "-x", str(width), "-y", str(height))

    def wait_for(self, seen: Callable[[str], bool], timeout: float = 20.0) -> str:
        """The first settled capture for which `seen` holds; AssertionError with the last one after
        `timeout`. Settled: the same in two captures 50 ms apart, so a screen caught while it was being
        redrawn (the terminal had only part of the new frame) is never judged."""
        deadline = time.monotonic() + timeout
        screen = self.capture()
        while True:
            if seen(screen):
                time.sleep(0.05)
                again = self.capture()
                if again == screen or time.monotonic() > deadline:
                    return again if seen(again) else screen
                screen = again
                continue
            if time.monotonic() > deadline:
                raise AssertionError(f"not seen within {timeout} s; the screen:\n{screen}")
            time.sleep(0.05)
            screen = self.capture()

    def close(self) -> None:
        """End the tmux server and the program in it, and wait (bounded) until they are gone."""
        pids: list[int] = []
        with contextlib.suppress(subprocess.SubprocessError):
            pids.append(int(self._tmux("display", "-p", "-t", "t", "#{pid}").strip()))
            pids.extend(int(p) for p in self._tmux("list-panes", "-a", "-F", "#{pane_pid}").split())
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True, timeout=20, check=False)
        deadline = time.monotonic() + 10
        while pids and time.monotonic() < deadline:
            pids = [pid for pid in pids if _alive(pid)]
            time.sleep(0.05)
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    """Whether `pid` is still running (a zombie counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):  # gone, or gone while its stat was read
        return False
    return state != "Z"


def save(name: str, screen: str) -> Path:
    """Keep a capture in test-output/terminal/ for a person to look at."""
    OUTPUT.mkdir(parents=True, exist_ok=True)
    path = OUTPUT / f"{name}.txt"
    path.write_text(screen)
    return path
