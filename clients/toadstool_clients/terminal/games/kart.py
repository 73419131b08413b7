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
from toadstool_clients.i18n import N_, _, n_
from toadstool_clients.names import KART_ITEM_NAMES, seat_names, with_seat_names
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
    kart_pb2.KART_STAGE_PRE_ROLL: N_("before the roll"),
    kart_pb2.KART_STAGE_BOOSTER: N_("on a booster"),
    kart_pb2.KART_STAGE_SHORTCUT: N_("shortcut or track?"),
    kart_pb2.KART_STAGE_BANANA: N_("placing a banana"),
    kart_pb2.KART_STAGE_FINISHED: N_("race over"),
}
ROW = 20  # fields per row of the track strip
#: How a banana chip on a field is drawn: a letter on yellow, unlike any field or kart.
BANANA = ("b", "bold black on yellow")
#: What a die roll was for, in words (the view carries the purpose as an identifier).
ROLL_PURPOSES: dict[str, str] = {
    "start_order": N_("for the start order"),
    "move": N_("move"),
    "booster": N_("booster"),
    "thwomp": N_("Thwomp"),
}


def _name(names: list[str], seat: int) -> str:
    return names[seat] if 0 <= seat < len(names) else _("Player {number}", number=seat + 1)


def _title(view: kart_pb2.KartView, length: int | None = None) -> str:
    """The track's heading: its name, its fields (with `length`), its laps and its shortcuts."""
    cuts = ", ".join(f"{c.label} {c.start}→{c.exit}" for c in view.track.shortcuts) or _("none")
    laps = n_("{n} lap", "{n} laps", view.laps)
    if length is None:
        return _("{track} · {laps} · shortcuts {cuts}", track=view.track.title, laps=laps, cuts=cuts)
    fields = n_("{n} field", "{n} fields", length)
    return _(
        "{track} · {fields} · {laps} · shortcuts {cuts}", track=view.track.title, fields=fields, laps=laps, cuts=cuts
    )


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
        return Text(" ◀ " + _("target"), style="bold black on yellow")
    return Text(" ◁ " + _("target"), style="yellow")


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
        " " + _("plain") + "  ",
        ("?", "bold yellow"),
        " " + _("item") + "  ",
        ("»", "bold cyan"),
        " " + _("booster") + "  ",
        ("m", "bold red"),
        " " + _("mushroom") + "  ",
        ("T", "bold white on grey23"),
        " " + _("Thwomp") + "  ",
        (BANANA[0], BANANA[1]),
        " " + _("banana chip") + "  ",
        ("A→ →A", "bold red"),
        " " + _("shortcut"),
    )
    start = Text(_("Start area: "))
    for kart in start_area:
        start.append(kart.character, style=COLOR_STYLE.get(kart.color, "bold"))
        start.append_text(_target_note(pick, kart.seat))
        start.append(" ")
    if not start_area:
        start.append(_("empty"), style="dim")
    title = Text(_title(view, length))
    return Panel(Group(*lines, start, legend), title=title, border_style="cyan")


def _karts(view: kart_pb2.KartView, names: list[str], pick: TrackPick | None = None) -> Table:
    table = Table(expand=False, header_style="bold")
    columns = ("", _("Kart"), _("Driver"), _("Lap"), _("Field"), _("Progress"), _("Coins"), _("Item"), _("Skips"))
    for column in (*columns, _("Halved"), _("Start")):
        table.add_column(column)
    turn = view.turn if view.HasField("turn") else None
    you = view.you if view.HasField("you") else None
    for kart in view.karts:
        style = COLOR_STYLE.get(kart.color, "bold")
        marker = "▶" if kart.seat == turn else ""
        driver = Text(_name(names, kart.seat))
        if kart.seat == you:
            driver.append(" " + _("(you)"), style="bold")
        driver.append_text(_target_note(pick, kart.seat))
        item = _(KART_ITEM_NAMES.get(kart.item, "?")) if kart.HasField("item") else "-"
        table.add_row(
            marker,
            Text(kart.character, style=style),
            driver,
            f"{kart.lap}/{view.laps}",
            _("start") if kart.in_start_area else str(kart.field),
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
    status.append(f"  ·  {_(STAGE_NAMES[view.stage]) if view.stage in STAGE_NAMES else ''}")
    notes = []
    if view.bundle_paid:
        notes.append(
            n_("paid {n} coin for +{bonus}", "paid {n} coins for +{bonus}", view.bundle_paid, bonus=view.bundle_bonus)
        )
    if view.mushroom:
        notes.append(_("Mushroom: this roll x2"))
    if view.lightning:
        notes.append(_("Lightning active"))
    if view.item_used:
        notes.append(_("item used this turn"))
    if view.pending_move:
        notes.append(_("move of {number} waiting", number=view.pending_move))
    if notes:
        status.append("  ·  " + ", ".join(notes), style="italic")
    status.append(
        "\n"
        + _(
            "Bank: {bank} coins  ·  Item deck: {deck} cards  ·  Banana chips left: {chips}",
            bank=view.bank,
            deck=view.deck_count,
            chips=view.banana_chips_left,
        )
    )
    if view.last_rolls:
        status.append("\n" + _("Dice: "))
        for roll in view.last_rolls[-6:]:
            status.append(f"{_name(names, roll.roller)} ")
            status.append("⚀⚁⚂⚃⚄⚅"[roll.value - 1] if 1 <= roll.value <= 6 else "?", style="bold")
            purpose = _(ROLL_PURPOSES[roll.purpose]) if roll.purpose in ROLL_PURPOSES else _("roll")
            status.append(f" {roll.value} ({purpose})  ")
    if view.ranking:
        status.append("\n" + _("Final ranking: "), style="bold")
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
        Text.assemble(("?", "bold yellow"), " " + _("item") + " ", ("»", "bold cyan"), " " + _("boost")),
        Text.assemble(("m", "bold red"), " " + _("mushroom")),
        Text.assemble(
            ("T", "bold white on grey23"), " " + _("Thwomp") + " ", (BANANA[0], BANANA[1]), " " + _("banana")
        ),
    ]
    if shortcuts:
        rows.append(Text.assemble(("A╌A", "bold red"), " " + _("shortcut")))
    return rows


def render_compact(update: table_pb2.Update, pick: TrackPick | None = None) -> RenderableType:
    """The Kart part of an 80x24 screen: the track strip, one line per kart, the turn's notes; with `pick`,
    the candidates of the choice being made marked."""
    view = update.view.kart
    names = seat_names(update, len(view.karts))
    you = view.you if view.HasField("you") else None
    turn = view.turn if view.HasField("turn") else None
    title = Text(_title(view), style="bold")
    lines: list[RenderableType] = [title, _CompactTrack(view, pick)]
    long: list[Text] = []
    short: list[Text] = []
    for kart in view.karts:
        line = Text("▶ " if kart.seat == turn else "  ", style="bold yellow")
        line.append(kart.character, style=COLOR_STYLE.get(kart.color, "bold"))
        driver = _("you") if kart.seat == you else (names[kart.seat] if kart.seat < len(names) else "?")
        line.append(f" ({driver})")
        where = _("start") if kart.in_start_area else _("field {number}", number=kart.field)
        lap = _("lap {lap}/{laps}", lap=kart.lap, laps=view.laps)
        line.append(f"  {lap} · {where} · {n_('{n} coin', '{n} coins', kart.coins)}")
        if kart.HasField("item"):
            line.append(f" · {_(KART_ITEM_NAMES.get(kart.item, '?'))}", style="bold")
        if kart.skips:
            line.append(" · " + n_("skips {n} turn", "skips {n} turns", kart.skips), style="italic")
        if kart.halving:
            line.append(" · " + _("next move halved"), style="italic")
        line.append_text(_target_note(pick, kart.seat))
        long.append(line)
        brief = Text("▶ " if kart.seat == turn else "  ", style="bold yellow")
        brief.append(kart.character[:1] or "?", style=COLOR_STYLE.get(kart.color, "bold"))
        where = _("start") if kart.in_start_area else _("f{number}", number=kart.field)
        brief.append(
            " " + _("{driver} lap{lap} {where} {coins}c", driver=driver, lap=kart.lap, where=where, coins=kart.coins)
        )
        if kart.HasField("item"):
            brief.append(f" {_(KART_ITEM_NAMES.get(kart.item, '?'))}", style="bold")
        if kart.skips:
            brief.append(" " + _("skip{n}", n=kart.skips), style="italic")
        brief.append_text(_target_note(pick, kart.seat))
        short.append(brief)
    # one kart a line from 80 columns; narrower, two or more a line in fewer words (f field, c coins)
    lines.append(Cells(long, short, most_rows=3, roomy_width=80))
    notes = []
    if view.bundle_paid:
        notes.append(
            n_("paid {n} coin for +{bonus}", "paid {n} coins for +{bonus}", view.bundle_paid, bonus=view.bundle_bonus)
        )
    if view.mushroom:
        notes.append(_("Mushroom: roll x2"))
    if view.pending_move:
        notes.append(_("a move of {number} waits", number=view.pending_move))
    if view.last_rolls:
        roll = view.last_rolls[-1]
        who = _("you") if roll.roller == you else (names[roll.roller] if roll.roller < len(names) else "?")
        notes.append(_("last roll: {name} {value}", name=who, value=roll.value))
    notes.append(_("bank {bank} · banana chips {chips}", bank=view.bank, chips=view.banana_chips_left))
    lines.append(Text("  ·  ".join(notes), style="dim"))
    return Group(*one_line_each(lines))


def render_medium(update: table_pb2.Update, pick: TrackPick | None = None) -> RenderableType:
    """The Kart part of a 120x40 screen: the compact track with its legend, the full karts' table (coins,
    item, skips, start place) and the turn's status with the latest dice."""
    view = update.view.kart
    names = seat_names(update, len(view.karts))
    title = Text(_title(view), style="bold")
    return Group(title, _CompactTrack(view, pick), _karts(view, names, pick), _status(view, names, update.phase))
