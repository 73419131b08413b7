"""Renders a Super Mario: Level Up! view for the terminal client (rich), from the viewer's perspective.

It draws only what the view carries (a thin client knows no rules): the board, the seats, the viewer's
objective and Power Ups. Every name from the network goes into rich Text objects, never into markup.
"""

from __future__ import annotations

from rich import box
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from toadstool.api.v1 import levelup_pb2, table_pb2
from toadstool_clients.i18n import _, n_
from toadstool_clients.names import LEVEL_UP_BLOCK_NAMES, LEVEL_UP_POWER_NAMES, LEVEL_UP_VOTE_NAMES, seat_name
from toadstool_clients.terminal.games.compact import TIGHT, Cells, Flow, one_line_each

_VOTE_STYLES = {
    levelup_pb2.LEVEL_UP_VOTE_YES: "bold green",
    levelup_pb2.LEVEL_UP_VOTE_NO: "bold red",
    levelup_pb2.LEVEL_UP_VOTE_THWOMP_VOTE: "bold magenta",
}


def _block(kind: int) -> str:
    return _(LEVEL_UP_BLOCK_NAMES[kind]) if kind in LEVEL_UP_BLOCK_NAMES else "?"


def _vote(seat: levelup_pb2.LevelUpSeat) -> Text:
    """A seat's vote: "voted" while secret, the revealed card (struck through when cancelled), or nothing."""
    if seat.has_voted:
        return Text(_("voted"), style="yellow")
    if seat.revealed_vote in _VOTE_STYLES:
        style = "strike dim" if seat.vote_cancelled else _VOTE_STYLES[seat.revealed_vote]
        return Text(_(LEVEL_UP_VOTE_NAMES[seat.revealed_vote]), style=style)
    return Text("")


def _powers(view: levelup_pb2.LevelUpView) -> str:
    return ", ".join(_(LEVEL_UP_POWER_NAMES.get(p.kind, "?")) for p in view.power_ups)


def _acting(update: table_pb2.Update, seat: int) -> bool:
    """Whether the table waits for `seat` now: every seat still to vote in a vote (▶ on you when it is your
    vote, not on the seat whose turn it was), else the seat whose turn it is."""
    if update.status == table_pb2.TABLE_STATUS_FINISHED:
        return False
    if update.to_act:
        return seat in update.to_act
    return seat == update.view.levelup.current


def render_view(update: table_pb2.Update) -> RenderableType:
    view = update.view.levelup
    names = list(view.character_names)
    favourites = set(view.favourites)

    def character(c: int) -> Text:
        name = names[c] if 0 <= c < len(names) else f"#{c}"
        if c in favourites:
            return Text(f"★{name}", style="bold yellow")
        return Text(name, style="cyan")

    def characters(chars: list[int]) -> Text:
        return Text(", ").join(character(c) for c in chars) if chars else Text("-", style="dim")

    header = Text()
    header.append(_("Round {number} of 3", number=view.round) + "  ", style="bold")
    header.append(update.phase or view.phase, style="italic")

    board = Table(title=_("Board"), show_header=True, header_style="bold", expand=False)
    board.add_column(_("Level"), justify="right")
    board.add_column(_("Characters (left to right)"))
    board.add_column(_("? blocks"), justify="center")
    for level in reversed(view.levels):
        label = Text(str(level.level), style="bold magenta" if level.level == 10 else "bold")
        blocks = Text("?" * level.face_down_blocks, style="bold yellow on blue") if level.face_down_blocks else Text("")
        board.add_row(label, characters(list(level.characters)), blocks)
    if view.unplaced:
        board.add_row(Text(_("to place"), style="dim"), characters(list(view.unplaced)), Text(""))
    if view.off_board:
        board.add_row(Text(_("off"), style="dim"), characters(list(view.off_board)), Text(""))

    seats = Table(title=_("Players"), header_style="bold")
    for column in (_("Player"), _("No!"), _("Power Ups"), _("Held ? blocks"), _("Voted"), _("Rounds"), _("Points")):
        seats.add_column(column)
    for seat in view.seats:
        name = Text(seat_name(update, seat.seat))
        if view.HasField("you") and seat.seat == view.you:
            name.stylize("bold underline")
        if _acting(update, seat.seat):
            name = Text("▶ ") + name
        held = Text(", ").join(Text(_block(b.kind), style="dim" if b.fresh else "green") for b in seat.held_blocks)
        vote = _vote(seat)
        extras = []
        if seat.extra_turns:
            extras.append(n_("+{n} turn", "+{n} turns", seat.extra_turns))
        if seat.skips:
            extras.append(_("skip {n}", n=seat.skips))
        if extras:
            held.append("  " + " ".join(extras), style="italic")
        score = view.scores[seat.seat] if seat.seat < len(view.scores) else 0
        seats.add_row(
            name,
            str(seat.no_cards),
            str(seat.power_up_count),
            held,
            vote,
            " / ".join(str(r) for r in seat.round_scores),
            Text(
                n_("{score} (+{n} coin)", "{score} (+{n} coins)", seat.coins, score=score) if seat.coins else f"{score}"
            ),
        )

    parts: list[RenderableType] = [header, board]
    if view.HasField("nominee"):
        nominee = Text(_("Nominee for champion: "), style="bold magenta")
        nominee.append_text(character(view.nominee))
        parts.append(nominee)
    parts.append(seats)
    if view.HasField("you"):
        mine = Text(_("Your favourites: "), style="bold")
        mine.append_text(characters(list(view.favourites)))
        mine.append("\n" + _("Your Power Ups: "), style="bold")
        mine.append(_powers(view) or _("none"))
        parts.append(Panel(mine, title=_("You"), expand=False))
    last = [s for s in view.seats if s.last_objective]
    if last:
        shown = Table(title=_("Last round's objectives"), header_style="bold")
        shown.add_column(_("Player"))
        shown.add_column(_("Characters"))
        for seat in last:
            shown.add_row(Text(seat_name(update, seat.seat)), characters(list(seat.last_objective)))
        parts.append(shown)
    return Panel(Group(*parts), title="Super Mario: Level Up!", border_style="red")


def _characters(chars: list[int], names: list[str], favourites: set[int], empty: str) -> Text:
    """Characters by name, your favourites starred and in yellow; `empty` (dimmed) for none."""
    text = Text()
    for index, c in enumerate(chars):
        if index:
            text.append(", ")
        name = names[c] if 0 <= c < len(names) else f"#{c}"
        text.append(f"★{name}" if c in favourites else name, style="bold yellow" if c in favourites else "cyan")
    return text if chars else Text(empty, style="dim")


def render_compact(update: table_pb2.Update) -> RenderableType:
    """The Level Up! part of an 80x24 screen: the board one line per level, one line per seat, your cards."""
    view = update.view.levelup
    names = list(view.character_names)
    favourites = set(view.favourites)
    you = view.you if view.HasField("you") else None

    def characters(chars: list[int]) -> Text:
        return _characters(chars, names, favourites, "-")

    lines: list[RenderableType] = []
    for level in reversed(view.levels):
        if not level.characters and not level.face_down_blocks:
            continue
        line = Text(f"{level.level:>2} ", style="bold magenta" if level.level == 10 else "bold")
        line.append_text(characters(list(level.characters)))
        if level.face_down_blocks:
            line.append("  " + "?" * level.face_down_blocks, style="bold yellow")
        lines.append(line)

    def named(chars: list[int]) -> list[Text]:
        return [characters([c]) for c in chars]

    if view.unplaced:  # broken between names, never inside one
        lines.append(Flow(Text(_("to place: "), style="dim"), named(list(view.unplaced)), gap=", "))
    if view.HasField("nominee"):
        lines.append(Text(_("Nominee: "), style="bold magenta").append_text(characters([view.nominee])))
    if you is not None and not TIGHT.get():  # drawn tight, the board's ★ marks alone say them
        lines.append(Flow(Text(_("Your favourites: "), style="bold cyan"), named(list(view.favourites)), gap=", "))
    long: list[Text] = []
    short: list[Text] = []
    for seat in view.seats:
        line = Text("▶ " if _acting(update, seat.seat) else "  ", style="bold yellow")
        line.append(
            _("you") if seat.seat == you else seat_name(update, seat.seat), style="bold" if seat.seat == you else ""
        )
        brief = line.copy()
        score = view.scores[seat.seat] if seat.seat < len(view.scores) else 0
        points = n_("{n} pt", "{n} pts", score)
        if seat.seat == you:
            powers = _powers(view) or _("no Power Ups")
        else:
            powers = n_("{n} Power Up", "{n} Power Ups", seat.power_up_count)
        line.append(
            "  " + _("{points} · {powers} · No! cards {count}", points=points, powers=powers, count=seat.no_cards)
        )
        brief.append(" " + _("{points} · No! {count}", points=points, count=seat.no_cards))
        if seat.held_blocks:
            line.append(" · " + ", ".join(_block(b.kind) for b in seat.held_blocks), style="green")
        for text in (line, brief):
            vote = _vote(seat)
            if vote.plain and not seat.has_voted:
                text.append(" · ")
                text.append_text(Text(_("voted {vote}", vote=vote.plain), style=vote.style))
            elif vote.plain:
                text.append(" · ")
                text.append_text(vote)
        long.append(line)
        short.append(brief)
    # as many seats to a line as fit, so the board keeps its room; fewer words below 80 columns
    lines.append(Cells(long, short, most_rows=3, roomy_width=80, flow=True))
    return Group(*one_line_each(lines))


def render_medium(update: table_pb2.Update) -> RenderableType:
    """The Level Up! part of a 120x40 screen: the whole board (every level, empty ones too, with its ?
    blocks) beside the players' table (points, Power Ups, No! cards, held blocks, vote, rounds), then your
    favourites and Power Ups by name."""
    view = update.view.levelup
    names = list(view.character_names)
    favourites = set(view.favourites)
    you = view.you if view.HasField("you") else None

    def characters(chars: list[int]) -> Text:
        return _characters(chars, names, favourites, "·")

    board = Table(title=_("Board"), header_style="bold", box=None, padding=(0, 1), expand=False)
    board.add_column(_("Lv"), justify="right")
    board.add_column(_("Characters (left to right)"), max_width=32)
    board.add_column("?", justify="left")
    for level in reversed(view.levels):
        label = Text(str(level.level), style="bold magenta" if level.level == 10 else "bold")
        blocks = Text("?" * level.face_down_blocks, style="bold yellow on blue") if level.face_down_blocks else Text()
        board.add_row(label, characters(list(level.characters)), blocks)
    if view.unplaced:
        board.add_row(Text(_("to place"), style="dim"), characters(list(view.unplaced)), Text())
    if view.off_board:
        board.add_row(Text(_("off"), style="dim"), characters(list(view.off_board)), Text())

    seats = Table(title=_("Players"), header_style="bold", expand=False, box=box.SIMPLE_HEAD, padding=(0, 1))
    for index, column in enumerate(
        ("", _("Player"), _("Points"), _("Power Ups"), _("No!"), _("Blocks"), _("Voted"), _("Rounds"))
    ):
        seats.add_column(column, no_wrap=index in (1, 2, 3, 4, 6, 7), min_width=len(column) if index == 5 else None)
    for seat in view.seats:
        name = Text(_("you") if seat.seat == you else seat_name(update, seat.seat))
        name.stylize("bold" if seat.seat == you else "")
        held = Text(", ").join(Text(_block(b.kind), style="dim" if b.fresh else "green") for b in seat.held_blocks)
        if seat.extra_turns:
            held.append(" " + n_("+{n} turn", "+{n} turns", seat.extra_turns), style="italic")
        elif seat.skips:
            held.append(" " + _("skip {n}", n=seat.skips), style="italic")
        vote = _vote(seat)
        score = view.scores[seat.seat] if seat.seat < len(view.scores) else 0
        seats.add_row(
            Text("▶", style="bold yellow") if _acting(update, seat.seat) else Text(""),
            name,
            Text(_("{score} +{n}c", score=score, n=seat.coins) if seat.coins else f"{score}"),
            str(seat.power_up_count),
            str(seat.no_cards),
            held,
            vote,
            " / ".join(str(r) for r in seat.round_scores) or "-",
        )
    side = Table.grid(padding=(0, 3))
    side.add_row(board, seats)
    parts: list[RenderableType] = [Text(_("Round {number} of 3", number=view.round), style="bold"), side]
    if view.HasField("nominee"):
        parts.append(Text(_("Nominee for champion: "), style="bold magenta").append_text(characters([view.nominee])))
    if you is not None:
        parts.append(Text(_("Your favourites: "), style="bold cyan").append_text(characters(list(view.favourites))))
        parts.append(Text(_("Your Power Ups: "), style="bold cyan").append(_powers(view) or _("none")))
    last = [s for s in view.seats if s.last_objective]
    for seat in last[:6]:
        if seat.seat == you:
            lead = _("Your last objective: ")
        else:
            lead = _("{name}'s last objective: ", name=seat_name(update, seat.seat))
        line = Text(lead, style="dim")
        parts.append(line.append_text(characters(list(seat.last_objective))))
    return Group(*one_line_each(parts))
