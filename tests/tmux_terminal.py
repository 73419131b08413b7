"""The `toadstool` commands in a real terminal for tests: terminal_helpers.Tmux (a private tmux server, one
pane) with what the command tests ask of it: wait for a text on the screen, type, read the command's exit
status, and save captures to test-output/commands/ for a person to look at.

Every wait is bounded; `close()` ends the tmux server and the command in it.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from terminal_helpers import Tmux

CAPTURES = Path(__file__).resolve().parents[1] / "test-output" / "commands"
#: What terminal_helpers.Tmux prints once the command has ended, before its exit status.
EXITED = "EXIT="


class Terminal:
    """One command running in a `columns` x `lines` terminal, with `env`."""

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
