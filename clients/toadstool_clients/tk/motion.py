"""Short animations on the table screen (a card sliding, a kart driving, a die rolling, a result held a
moment), as named sequences of frames run by Tk's `after`.

It is for movement that never makes a test depend on the clock: `frame_ms` is the only duration, and a
test sets it to 0 (only each sequence's last frame runs, at once) or to None (nothing runs until the test
calls `step`). It knows nothing of games: a frame is any callable.
"""

from __future__ import annotations

import functools
import tkinter as tk
from collections.abc import Callable

Frame = Callable[[], None]


class Motion:
    """Named frame sequences on one widget's `after` clock; a new sequence of a name replaces the old one."""

    #: Milliseconds between frames for every window (0: no animation; None: frames only by `step`).
    frame_ms: int | None = 40

    def __init__(self, widget: tk.Misc) -> None:
        self.widget = widget
        self.sequences: dict[str, list[Frame]] = {}
        self._pending: str | None = None

    def play(self, name: str, frames: list[Frame]) -> None:
        """Run `frames` one per tick (replacing a running sequence called `name`)."""
        if not frames:
            return
        if self.frame_ms == 0:
            self.sequences.pop(name, None)
            frames[-1]()
            return
        self.sequences[name] = list(frames)
        self._schedule()

    def step(self) -> bool:
        """Run the next frame of every sequence; False when nothing was left to run."""
        ran = False
        for name in list(self.sequences):
            frames = self.sequences.get(name)
            if not frames:
                self.sequences.pop(name, None)
                continue
            frame = frames.pop(0)
            if not frames:
                self.sequences.pop(name, None)
            frame()
            ran = True
        return ran

    def finish(self) -> None:
        """Run every sequence's last frame now (the state it would end in)."""
        sequences, self.sequences = self.sequences, {}
        for frames in sequences.values():
            if frames:
                frames[-1]()

    def running(self, name: str) -> bool:
        return bool(self.sequences.get(name))

    def cancel(self) -> None:
        self.sequences.clear()
        if self._pending is not None:
            self.widget.after_cancel(self._pending)
            self._pending = None

    def _schedule(self) -> None:
        if self._pending is None and self.frame_ms:
            self._pending = self.widget.after(self.frame_ms, self._tick)

    def _tick(self) -> None:
        self._pending = None
        if self.step() and self.sequences:
            self._schedule()


def slide_frames(canvas: tk.Canvas, tag: str, dx: float, dy: float, count: int = 8) -> list[Frame]:
    """Frames that bring the items tagged `tag` home from (dx, dy) away (the caller has already moved them
    there); the last frame puts them exactly home, however many frames ran before it."""
    left = [dx, dy]

    def move(share: float) -> None:
        x, y = left[0] * share, left[1] * share
        canvas.move(tag, -x, -y)
        left[0] -= x
        left[1] -= y

    return [functools.partial(move, 1 / (count - n)) for n in range(count)]
