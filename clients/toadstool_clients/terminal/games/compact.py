"""What the games' compact drawings (80x24, beside the menu and the log) share: each line stays one line.

A compact drawing has a line budget; a line that wrapped would push the menu or the log off the screen,
so a line too long for the terminal ends in an ellipsis instead. Drawing helpers only.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import RenderableType
from rich.text import Text


def one_line_each(parts: Sequence[RenderableType], keep: Sequence[Text] = ()) -> list[RenderableType]:
    """`parts` with every Text among them (but those in `keep`, which may wrap) cut to one line."""
    for part in parts:
        if isinstance(part, Text) and not any(part is kept for kept in keep):
            part.no_wrap = True
            part.overflow = "ellipsis"
    return list(parts)
