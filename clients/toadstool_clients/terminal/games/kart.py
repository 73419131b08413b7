"""Terminal rendering of a Super Mario Kart view: the track as a strip of fields with karts and banana chips,
the karts' table, the turn and the latest dice.

While a choice of a field or a target is made, its candidates are marked on the track (^, and ▲ for the
highlighted one) and a target's kart in the karts' lines. It renders only what the view carries (a thin
client knows no rules); the seat list, event log and action menu around it belong to the generic terminal
shell. Names from the network are always escaped.
"""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from toadstool.api.v1 import kart_pb2, table_pb2
from toadstool_clients.i18n import _
from toadstool_clients.names import KART_ITEM_NAMES, counted, seat_names, with_seat_names
from toadstool_clients.terminal.games.compact import Cells, one_line_each
from toadstool_clients.terminal.track_pick import TrackPick

#: Rich style per kart colour (black karts are drawn grey so they show on dark terminals).
COLOR_STYLE: dict[int, str] = {
    kart_pb2.KART_COLOR_RED: "bold red",
    kart_pb2.KART_COLOR_BLUE: "bold blue",
    kart_pb2.KART_COLOR_GREEN: "bold green",
    kart_pb2.KART_COLOR_PURPLE: "bold magenta",
    kart_pb2.KART_COLOR_WHITE: "bold white",
    kart_pb2.KART_COLOR_YELLOW: "bold yellow",
    kart_pb2.KART_COLOR_BLACK: "bold bright_black",
}
#: Symbol and style per field type.
FIELD_LOOK: dict[int, tuple[str, str]] = {
    kart_pb2.KART_FIELD_TYPE_PLAIN: ("·", "dim"),
    kart_pb2.KART_FIELD_TYPE_ITEM: ("?", "bold yellow"),
    kart_pb2.KART_FIELD_TYPE_BOOSTER: ("»", "bold cyan"),
    kart_pb2.KART_FIELD_TYPE_MUSHROOM: ("m", "bold red"),
    kart_pb2.KART_FIELD_TYPE_THWOMP: ("T", "bold white on grey23"),
}
STAGE_NAMES: dict[int, str] = {
    kart_pb2.KART_STAGE_PRE_ROLL: "before the roll",
    kart_pb2.KART_STAGE_BOOSTER: "on a booster",
    kart_pb2.KART_STAGE_SHORTCUT: "shortcut or track?",
    kart_pb2.KART_STAGE_BANANA: "placing a banana",
    kart_pb2.KART_STAGE_FINISHED: "race over",
}
ROW = 20  # fields per row of the track strip
#: How a banana chip on a field is drawn: a letter on yellow, unlike any field or kart.
BANANA = ("b", "bold black on yellow")
#: What a die roll was for, in words (the view carries the purpose as an identifier).
ROLL_PURPOSES: dict[str, str] = {
    "start_order": "for the start order",
    "move": "move",
    "booster": "booster",
    "thwomp": "Thwomp",
}


def _with_names(text: str, names: list[str]) -> Text:
    """A plain Text with seat references replaced by names (Text never interprets markup)."""
    return Text(with_seat_names(text, names))


def _pick_mark(pick: TrackPick, field: int, width: int) -> Text:
    """The mark under `field` while a choice is made on the track: ▲ for the highlighted, ^ for another."""
    if field == pick.chosen:
        return Text("▲".ljust(width), style="bold black on yellow" if width == 1 else "bold yellow")
    if field in pick.fields:
        return Text("^".ljust(width), style="bold yellow")
    return Text(" " * width)


def _target_note(pick: TrackPick | None, seat: int) -> Text:
    if pick is None or seat not in pick.seats:
        return Text("")
    if seat == pick.chosen_seat:
        return Text(" ◀ target", style="bold black on yellow")
    return Text(" ◁ target", style="yellow")


def _track(view: kart_pb2.KartView, pick: TrackPick | None = None) -> RenderableType:
    track = view.track
    length = track.length or len(track.fields)
    on_field: dict[int, list[kart_pb2.KartRacer]] = {}
    start_area: list[kart_pb2.KartRacer] = []
    for kart in view.karts:
        if kart.in_start_area:
            start_area.append(kart)
        else:
            on_field.setdefault(kart.field, []).append(kart)
    bananas = set(view.banana_fields)
    starts = {cut.start: cut.label for cut in track.shortcuts}
    exits = {cut.exit: cut.label for cut in track.shortcuts}
    lines: list[Text] = []
    for row_start in range(0, length, ROW):
        numbers, cells, marks, karts, picks = Text(), Text(), Text(), Text(), Text()
        for field in range(row_start, min(row_start + ROW, length)):
            if pick is not None and field in pick.fields:  # a candidate shows its number, to type it
                numbers.append(f"{field:<3}", style="bold yellow")
            else:
                numbers.append(f"{field:<3}" if field % 5 == 0 else "   ", style="dim")
            if pick is not None:
                picks.append_text(_pick_mark(pick, field, 3))
            kind = track.fields[field] if field < len(track.fields) else kart_pb2.KART_FIELD_TYPE_PLAIN
            symbol, style = FIELD_LOOK.get(kind, ("·", "dim"))
            cells.append(f" {symbol} ", style=style)
            if field in bananas:
                marks.append(f" {BANANA[0]} ", style=BANANA[1])
            elif field in starts:
                marks.append(f"{starts[field]}→ ", style="bold red")
            elif field in exits:
                marks.append(f"→{exits[field]} ", style="bold red")
            else:
                marks.append("   ")
            here = on_field.get(field, [])
            if not here:
                karts.append("   ")
            else:
                first = here[0]
                letter = first.character[:1] or "?"
                extra = f"+{len(here) - 1}" if len(here) > 1 else "  "
                karts.append(f"{letter}{extra}"[:3].ljust(3), style=COLOR_STYLE.get(first.color, "bold"))
        lines.extend([numbers, cells, marks, karts])
        if pick is not None:
            lines.append(picks)
    legend = Text.assemble(
        ("·", "dim"),
        " plain  ",
        ("?", "bold yellow"),
        " item  ",
        ("»", "bold cyan"),
        " booster  ",
        ("m", "bold red"),
        " mushroom  ",
        ("T", "bold white on grey23"),
        " Thwomp  ",
        (BANANA[0], BANANA[1]),
        " banana chip  ",
        ("A→ →A", "bold red"),
        " shortcut",
    )
    cuts = ", ".join(f"{c.label}: {c.start} → {c.exit}" for c in track.shortcuts) or "none"
    start = Text("Start area: ")
    for kart in start_area:
        start.append(kart.character, style=COLOR_STYLE.get(kart.color, "bold"))
        start.append_text(_target_note(pick, kart.seat))
        start.append(" ")
    if not start_area:
        start.append("empty", style="dim")
    title = Text(f"{track.title} · {length} fields · {view.laps} laps · shortcuts {cuts}")
    return Panel(Group(*lines, start, legend), title=title, border_style="cyan")


def _karts(view: kart_pb2.KartView, names: list[str], pick: TrackPick | None = None) -> Table:
    table = Table(expand=False, header_style="bold")
    for column in ("", "Kart", "Driver", "Lap", "Field", "Progress", "Coins", "Item", "Skips", "Halved", "Start"):
        table.add_column(column)
    turn = view.turn if view.HasField("turn") else None
    you = view.you if view.HasField("you") else None
    for kart in view.karts:
        style = COLOR_STYLE.get(kart.color, "bold")
        marker = "▶" if kart.seat == turn else ""
        driver = Text(names[kart.seat] if kart.seat < len(names) else f"Player {kart.seat + 1}")
        if kart.seat == you:
            driver.append(" (you)", style="bold")
        driver.append_text(_target_note(pick, kart.seat))
        item = _(KART_ITEM_NAMES.get(kart.item, "?")) if kart.HasField("item") else "-"
        table.add_row(
            marker,
            Text(kart.character, style=style),
            driver,
            f"{kart.lap}/{view.laps}",
            "start" if kart.in_start_area else str(kart.field),
            str(kart.progress),
            str(kart.coins),
            item,
            str(kart.skips) if kart.skips else "",
            "½" if kart.halving else "",
            str(kart.start_place),
        )
    return table


def _status(view: kart_pb2.KartView, names: list[str], phase: str) -> Text:
    status = _with_names(phase or view.phase, names)
    status.stylize("bold")
    status.append(f"  ·  {STAGE_NAMES.get(view.stage, '')}")
    notes = []
    if view.bundle_paid:
        notes.append(f"paid {view.bundle_paid} coins for +{view.bundle_bonus}")
    if view.mushroom:
        notes.append("Mushroom: this roll x2")
    if view.lightning:
        notes.append("Lightning active")
    if view.item_used:
        notes.append("item used this turn")
    if view.pending_move:
        notes.append(f"move of {view.pending_move} waiting")
    if notes:
        status.append("  ·  " + ", ".join(notes), style="italic")
    status.append(
        f"\nBank: {view.bank} coins  ·  Item deck: {view.deck_count} cards  ·  "
        f"Banana chips left: {view.banana_chips_left}"
    )
    if view.last_rolls:
        status.append("\nDice: ")
        for roll in view.last_rolls[-6:]:
            who = names[roll.roller] if roll.roller < len(names) else f"Player {roll.roller + 1}"
            status.append(f"{who} ")
            status.append("⚀⚁⚂⚃⚄⚅"[roll.value - 1] if 1 <= roll.value <= 6 else "?", style="bold")
            status.append(f" {roll.value} ({ROLL_PURPOSES.get(roll.purpose, 'roll')})  ")
    if view.ranking:
        status.append("\nFinal ranking: ", style="bold")
        order = sorted(range(len(view.ranking)), key=lambda s: view.ranking[s])
        status.append("  ".join(f"{view.ranking[s]}. {names[s]}" for s in order if s < len(names)))
    return status


def render_view(update: table_pb2.Update, pick: TrackPick | None = None) -> RenderableType:
    """The Kart part of the screen for this update, seen from update.viewer_seat (or a spectator); with
    `pick`, the candidates of the choice being made marked."""
    view = update.view.kart
    names = seat_names(update, len(view.karts))
    return Group(_track(view, pick), _karts(view, names, pick), _status(view, names, update.phase))


#: Fields per row of the compact track (one cell each).
COMPACT_ROW = 60


class _CompactTrack:
    """The compact track as wide as the terminal allows: its legend beside it from 80 columns, below it
    (one line) when narrower; rows of at most COMPACT_ROW fields."""

    def __init__(self, view: kart_pb2.KartView, pick: TrackPick | None) -> None:
        self.view, self.pick = view, pick

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        beside = width >= COMPACT_ROW + 2 + LEGEND_WIDTH
        lines = _compact_track(self.view, self.pick, row=min(COMPACT_ROW, width), legend=beside)
        if not beside:
            lines.append(Text(" ").join(_legend_rows(bool(self.view.track.shortcuts))))
        for line in lines:
            line.no_wrap, line.overflow = True, "ellipsis"
            yield line


#: Columns the legend beside the compact track takes.
LEGEND_WIDTH = 17


def _compact_track(
    view: kart_pb2.KartView, pick: TrackPick | None = None, row: int = 60, legend: bool = True
) -> list[Text]:
    """The track one cell per field: numbers every ten, the fields (a banana chip shows as "b"), the
    shortcuts (its letter where it starts and where it comes out, ╌ over the fields it skips), the karts
    (the driver's initial, or how many share the field); the legend at the right of the first rows."""
    track = view.track
    length = track.length or len(track.fields)
    here: dict[int, list[kart_pb2.KartRacer]] = {}
    for kart in view.karts:
        if not kart.in_start_area:
            here.setdefault(kart.field, []).append(kart)
    bananas = set(view.banana_fields)
    cut_marks: dict[int, tuple[str, str]] = {}
    for cut in track.shortcuts:
        for skipped in range(cut.start + 1, cut.exit) if cut.start < cut.exit else ():
            cut_marks[skipped] = ("╌", "red")
        cut_marks[cut.start] = cut_marks[cut.exit] = (cut.label[:1] or "?", "bold red")
    lines: list[Text] = []
    for row_start in range(0, length, row):
        numbers, cells, cuts, karts, picks = Text(style="dim"), Text(), Text(), Text(), Text()
        for field in range(row_start, min(row_start + row, length)):
            if pick is not None:
                picks.append_text(_pick_mark(pick, field, 1))
            if field % 10 == 0:
                numbers.append(str(field))
            elif numbers.cell_len <= field - row_start:
                numbers.append(" ")
            kind = track.fields[field] if field < len(track.fields) else kart_pb2.KART_FIELD_TYPE_PLAIN
            symbol, style = FIELD_LOOK.get(kind, ("·", "dim"))
            if field in bananas:
                symbol, style = BANANA
            cells.append(symbol, style=style)
            cuts.append(*cut_marks.get(field, (" ", "")))
            on = here.get(field, [])
            if len(on) == 1:
                karts.append(on[0].character[:1] or "?", style=COLOR_STYLE.get(on[0].color, "bold"))
            elif on:
                karts.append(str(len(on)), style="bold")
            else:
                karts.append(" ")
        lines.extend([numbers, cells, *([cuts] if cut_marks else []), karts])
        if pick is not None and pick.fields & set(range(row_start, row_start + row)):
            lines.append(picks)
    for line, words in zip(lines, _legend_rows(bool(cut_marks)) if legend else [], strict=False):
        line.append(" " * (row + 2 - line.cell_len))
        line.append_text(words)
    return lines


def _legend_rows(shortcuts: bool) -> list[Text]:
    """The compact track's legend, in short rows beside it (17 columns at 80)."""
    rows = [
        Text.assemble(("?", "bold yellow"), " item ", ("»", "bold cyan"), " boost"),
        Text.assemble(("m", "bold red"), " mushroom"),
        Text.assemble(("T", "bold white on grey23"), " Thwomp ", (BANANA[0], BANANA[1]), " banana"),
    ]
    if shortcuts:
        rows.append(Text.assemble(("A╌A", "bold red"), " shortcut"))
    return rows


def render_compact(update: table_pb2.Update, pick: TrackPick | None = None) -> RenderableType:
    """The Kart part of an 80x24 screen: the track strip, one line per kart, the turn's notes; with `pick`,
    the candidates of the choice being made marked."""
    view = update.view.kart
    names = seat_names(update, len(view.karts))
    you = view.you if view.HasField("you") else None
    turn = view.turn if view.HasField("turn") else None
    cuts = ", ".join(f"{c.label} {c.start}→{c.exit}" for c in view.track.shortcuts) or "none"
    title = Text(f"{view.track.title} · {view.laps} laps · shortcuts {cuts}", style="bold")
    lines: list[RenderableType] = [title, _CompactTrack(view, pick)]
    long: list[Text] = []
    short: list[Text] = []
    for kart in view.karts:
        line = Text("▶ " if kart.seat == turn else "  ", style="bold yellow")
        line.append(kart.character, style=COLOR_STYLE.get(kart.color, "bold"))
        driver = "you" if kart.seat == you else (names[kart.seat] if kart.seat < len(names) else "?")
        line.append(f" ({driver})")
        where = "start" if kart.in_start_area else f"field {kart.field}"
        line.append(f"  lap {kart.lap}/{view.laps} · {where} · {counted(kart.coins, 'coin')}")
        if kart.HasField("item"):
            line.append(f" · {_(KART_ITEM_NAMES.get(kart.item, '?'))}", style="bold")
        if kart.skips:
            line.append(f" · skips {counted(kart.skips, 'turn')}", style="italic")
        if kart.halving:
            line.append(" · next move halved", style="italic")
        line.append_text(_target_note(pick, kart.seat))
        long.append(line)
        brief = Text("▶ " if kart.seat == turn else "  ", style="bold yellow")
        brief.append(kart.character[:1] or "?", style=COLOR_STYLE.get(kart.color, "bold"))
        where = "start" if kart.in_start_area else f"f{kart.field}"
        brief.append(f" {driver} lap{kart.lap} {where} {kart.coins}c")
        if kart.HasField("item"):
            brief.append(f" {_(KART_ITEM_NAMES.get(kart.item, '?'))}", style="bold")
        if kart.skips:
            brief.append(f" skip{kart.skips}", style="italic")
        brief.append_text(_target_note(pick, kart.seat))
        short.append(brief)
    # one kart a line from 80 columns; narrower, two or more a line in fewer words (f field, c coins)
    lines.append(Cells(long, short, most_rows=3, roomy_width=80))
    notes = []
    if view.bundle_paid:
        notes.append(f"paid {counted(view.bundle_paid, 'coin')} for +{view.bundle_bonus}")
    if view.mushroom:
        notes.append("Mushroom: roll x2")
    if view.pending_move:
        notes.append(f"a move of {view.pending_move} waits")
    if view.last_rolls:
        roll = view.last_rolls[-1]
        who = "you" if roll.roller == you else (names[roll.roller] if roll.roller < len(names) else "?")
        notes.append(f"last roll: {who} {roll.value}")
    notes.append(f"bank {view.bank} · banana chips {view.banana_chips_left}")
    lines.append(Text("  ·  ".join(notes), style="dim"))
    return Group(*one_line_each(lines))


def render_medium(update: table_pb2.Update, pick: TrackPick | None = None) -> RenderableType:
    """The Kart part of a 120x40 screen: the compact track with its legend, the full karts' table (coins,
    item, skips, start place) and the turn's status with the latest dice."""
    view = update.view.kart
    names = seat_names(update, len(view.karts))
    cuts = ", ".join(f"{c.label} {c.start}→{c.exit}" for c in view.track.shortcuts) or "none"
    title = Text(f"{view.track.title} · {view.laps} laps · shortcuts {cuts}", style="bold")
    return Group(title, _CompactTrack(view, pick), _karts(view, names, pick), _status(view, names, update.phase))
