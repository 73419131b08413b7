"""A real terminal for tests: a tmux server of its own (its own socket), one session per program, captured
as text with `capture-pane -p`, driven with `send-keys`, its scrollback read from `#{history_size}`.
`Tmux` is the terminal; `Terminal` is one command in one (its own temporary socket), with what the command
tests ask of it: wait for a text, type, read the exit status, save captures to test-output/commands/.

Test tooling only; every wait is bounded by time.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

OUTPUT = Path(__file__).resolve().parent.parent / "test-output" / "terminal"
CAPTURES = Path(__file__).resolve().parent.parent / "test-output" / "commands"
#: What `Tmux` prints once the command has ended, before its exit status.
EXITED = "EXIT="


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


def terminal_env(tmp_path: Path) -> dict[str, str]:
    """The environment of a client in a test's terminal: its own home and config under `tmp_path` (its seats
    and `play`'s games are its own), a colour terminal, UTF-8."""
    return {
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "HOME": str(tmp_path),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
    }


def save(name: str, screen: str) -> Path:
    """Keep a capture in test-output/terminal/ for a person to look at."""
    OUTPUT.mkdir(parents=True, exist_ok=True)
    path = OUTPUT / f"{name}.txt"
    path.write_text(screen)
    return path


class Terminal:
    """One command running in a `columns` x `lines` terminal, with `env` (a `Tmux` on a socket of its own)."""

    def __init__(self, command: Sequence[str], env: Mapping[str, str], columns: int = 80, lines: int = 24) -> None:
        self._directory = tempfile.TemporaryDirectory(prefix="toadstool-tmux-")
        self.tmux = Tmux(Path(self._directory.name) / "tmux.sock", command, columns, lines, dict(env))

    def screen(self) -> str:
        """What the terminal shows now, line by line (no colours)."""
        return self.tmux.capture()

    def keys(self, *keys: str) -> None:
        """Press keys (tmux key names: "Enter", "Right", "C-c"; a letter or digit is itself)."""
        self.tmux.send(*keys)

    def wait_for(self, wanted: str, seconds: float = 30.0, without: str | None = None) -> str:
        """The screen once it shows `wanted` (and no longer `without`); fails with the screen after `seconds`."""
        return self.tmux.wait_for(lambda shown: wanted in shown and not (without and without in shown), seconds)

    def exit_status(self, seconds: float = 30.0) -> int:
        """Wait for the command to end; its exit status."""
        shown = self.tmux.wait_for(lambda shown: EXITED in shown, seconds)
        return int(shown.split(EXITED, 1)[1].split()[0])

    def save(self, name: str) -> str:
        """Save what the screen shows as test-output/commands/NAME.txt; returns it."""
        shown = self.screen()
        CAPTURES.mkdir(parents=True, exist_ok=True)
        (CAPTURES / f"{name}.txt").write_text(shown)
        return shown

    def close(self) -> None:
        self.tmux.close()
        self._directory.cleanup()


def terminal_client_command(
    address: str, table_id: str, seat_token: str | None, host_token: str | None, feed_file: Path
) -> list[str]:
    """A command that runs the terminal client itself (`TerminalClient`) at a table, as `toadstool play
    --lan` runs it but without binding 0.0.0.0: with `host_token`, and a `HostFeed` filled with each line
    written to `feed_file` (the test plays the server's host logger)."""
    here = str(Path(__file__).resolve().parent)
    code = (
        f"import sys; sys.path.insert(0, {here!r}); import terminal_helpers as t; "
        f"sys.exit(t.run_terminal_client({address!r}, {table_id!r}, {seat_token!r}, {host_token!r}, "
        f"{str(feed_file)!r}))"
    )
    return [sys.executable, "-c", code]


def run_terminal_client(
    address: str, table_id: str, seat_token: str | None, host_token: str | None, feed_file: str
) -> int:
    """The body of `terminal_client_command`: the client, and a task copying new lines of the file into
    the feed (bounded: it ends with the client)."""
    import asyncio

    from toadstool_clients.connection import Client
    from toadstool_clients.host_feed import HostFeed
    from toadstool_clients.terminal.app import TerminalClient

    async def main() -> int:
        feed = HostFeed()

        def read_lines() -> list[str]:
            path = Path(feed_file)
            return path.read_text().splitlines() if path.exists() else []

        async def copy_lines() -> None:
            seen = 0
            while True:
                lines = read_lines()  # a small file of the test's: read at once
                for line in lines[seen:]:
                    feed.add(line)
                seen = max(seen, len(lines))
                await asyncio.sleep(0.05)

        async with Client(address) as client:
            copying = asyncio.get_running_loop().create_task(copy_lines())
            try:
                await asyncio.sleep(0.2)  # the lines already written are there from the start
                return await TerminalClient(client, table_id, seat_token, host_token=host_token, host_feed=feed).run()
            finally:
                copying.cancel()

    return asyncio.run(main())
