"""What the games' compact drawings (80x24, beside the menu and the log) share: each line stays one line.

A compact drawing has a line budget; a line that wrapped would push the menu or the log off the screen,
so a line too long for the terminal ends in an ellipsis instead. Seats go in aligned columns as wide as
the terminal (`Cells`: every seat shown, in fewer words when many), and a hand flows along lines broken
between cards, never inside one (`Flow`). Drawing helpers only.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.text import Text


def one_line_each(parts: Sequence[RenderableType], keep: Sequence[Text] = ()) -> list[RenderableType]:
    """`parts` with every Text among them (but those in `keep`, which may wrap) cut to one line."""
    for part in parts:
        if isinstance(part, Text) and not any(part is kept for kept in keep):
            part.no_wrap = True
            part.overflow = "ellipsis"
    return list(parts)


#: Set while a drawing is made again because it did not fit: `Cells` then use their short form at any width.
TIGHT: ContextVar[bool] = ContextVar("TIGHT", default=False)


@contextmanager
def tight() -> Iterator[None]:
    """Draw in fewer words: seats in their short form even where the long one would fit the width."""
    token = TIGHT.set(True)
    try:
        yield
    finally:
        TIGHT.reset(token)


class Cells:
    """Seats (or any short items) in aligned columns as wide as the terminal: every item shown, none cut
    unless one alone is wider than the terminal (then with an ellipsis). With `short`, the same items in
    fewer words, used when the long ones would take more than `most_rows` lines; never at `roomy_width`
    or wider (0: at any width) unless drawn `tight`; `short_hint` says what their abbreviations mean,
    after the last. With `flow`, the long items flow along lines instead of in columns."""

    def __init__(
        self,
        cells: Sequence[Text],
        short: Sequence[Text] = (),
        most_rows: int = 2,
        roomy_width: int = 0,
        flow: bool = False,
        short_hint: Text | None = None,
    ) -> None:
        self.cells, self.short, self.most_rows = list(cells), list(short), most_rows
        self.roomy_width, self.flow, self.short_hint = roomy_width, flow, short_hint

    def rows(self, width: int) -> list[Text]:
        rows = flowed(self.cells, width) if self.flow else grid(self.cells, width)
        if self.roomy_width and width >= self.roomy_width and not TIGHT.get():
            return rows
        if self.short and len(rows) > self.most_rows:
            rows = min(grid(self.short, width), flowed(self.short, width), key=len)
            hint = self.short_hint
            if hint is not None and rows[-1].cell_len + 3 + hint.cell_len <= width:
                rows[-1] = rows[-1] + Text("   ") + hint
            elif hint is not None:
                rows.append(hint)
        return rows

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from self.rows(options.max_width)


def flowed(cells: Sequence[Text], width: int, gap: str = "   ") -> list[Text]:
    """`cells` along lines of `width`, `gap` between them, broken between cells (one too wide is cut with
    an ellipsis)."""
    rows: list[Text] = []
    row = Text(no_wrap=True, overflow="ellipsis")
    for cell in cells:
        if row.cell_len and row.cell_len + len(gap) + cell.cell_len > width:
            rows.append(row)
            row = Text(no_wrap=True, overflow="ellipsis")
        if row.cell_len:
            row.append(gap)
        cell = cell.copy()
        cell.truncate(width, overflow="ellipsis")
        row.append_text(cell)
    rows.append(row)
    return rows


def grid(cells: Sequence[Text], width: int) -> list[Text]:
    """`cells` in as many aligned columns as fit `width`, row by row."""
    if not cells:
        return []
    column = min(width, max(cell.cell_len for cell in cells) + 3)
    per_row = max(1, (width + 3) // column)
    rows: list[Text] = []
    for start in range(0, len(cells), per_row):
        row = Text(no_wrap=True, overflow="ellipsis")
        for index, cell in enumerate(cells[start : start + per_row]):
            cell = cell.copy()
            cell.truncate(column - (3 if per_row > 1 else 0), overflow="ellipsis")
            if index:
                row.append(" " * (-row.cell_len % column))
            row.append_text(cell)
        row.truncate(width, overflow="ellipsis")
        rows.append(row)
    return rows


class Flow:
    """Items (cards, characters) flowing along lines after a `lead`, broken between items, never inside
    one; lines after the first are indented under the first item."""

    def __init__(self, lead: Text, items: Sequence[Text], gap: str = " ") -> None:
        self.lead, self.items, self.gap = lead, list(items), gap

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        indent = min(self.lead.cell_len, width // 3)
        line = self.lead.copy()
        started = False
        for item in self.items:
            needed = (len(self.gap) if started else 0) + item.cell_len
            if started and line.cell_len + needed > width:
                yield line
                line, started = Text(" " * indent), False
            if started:
                line.append(self.gap)
            item = item.copy()
            item.truncate(width - indent, overflow="ellipsis")
            line.append_text(item)
            started = True
        yield line
