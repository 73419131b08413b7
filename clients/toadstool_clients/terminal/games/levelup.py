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
from toadstool_clients.i18n import _
from toadstool_clients.names import LEVEL_UP_POWER_NAMES, counted, seat_name
from toadstool_clients.terminal.games.compact import Cells, Flow, one_line_each

_BLOCKS = {
    levelup_pb2.LEVEL_UP_BLOCK_KIND_COIN: "Coin",
    levelup_pb2.LEVEL_UP_BLOCK_KIND_COIN_X2: "Coin x2",
    levelup_pb2.LEVEL_UP_BLOCK_KIND_SUPER_MUSHROOM: "Super Mushroom",
    levelup_pb2.LEVEL_UP_BLOCK_KIND_FEATHER: "Feather",
    levelup_pb2.LEVEL_UP_BLOCK_KIND_GOOMBA: "Goomba",
    levelup_pb2.LEVEL_UP_BLOCK_KIND_GREEN_SHELL: "Green Shell",
    levelup_pb2.LEVEL_UP_BLOCK_KIND_DOUBLE_CHERRY: "Double Cherry",
    levelup_pb2.LEVEL_UP_BLOCK_KIND_THWOMP: "Thwomp",
    levelup_pb2.LEVEL_UP_BLOCK_KIND_POW_BLOCK: "POW Block",
    levelup_pb2.LEVEL_UP_BLOCK_KIND_SUPER_STAR: "Super Star",
}
_VOTES = {
    levelup_pb2.LEVEL_UP_VOTE_YES: ("Yes!", "bold green"),
    levelup_pb2.LEVEL_UP_VOTE_NO: ("No!", "bold red"),
    levelup_pb2.LEVEL_UP_VOTE_THWOMP_VOTE: ("Thwomp Vote", "bold magenta"),
}


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
    header.append(f"Round {view.round} of 3  ", style="bold")
    header.append(update.phase or view.phase, style="italic")

    board = Table(title="Board", show_header=True, header_style="bold", expand=False)
    board.add_column("Level", justify="right")
    board.add_column("Characters (left to right)")
    board.add_column("? blocks", justify="center")
    for level in reversed(view.levels):
        label = Text(str(level.level), style="bold magenta" if level.level == 10 else "bold")
        blocks = Text("?" * level.face_down_blocks, style="bold yellow on blue") if level.face_down_blocks else Text("")
        board.add_row(label, characters(list(level.characters)), blocks)
    if view.unplaced:
        board.add_row(Text("to place", style="dim"), characters(list(view.unplaced)), Text(""))
    if view.off_board:
        board.add_row(Text("off", style="dim"), characters(list(view.off_board)), Text(""))

    seats = Table(title="Players", header_style="bold")
    for column in ("Player", "No!", "Power Ups", "Held ? blocks", "Vote", "Rounds", "Points"):
        seats.add_column(column)
    for seat in view.seats:
        name = Text(seat_name(update, seat.seat))
        if view.HasField("you") and seat.seat == view.you:
            name.stylize("bold underline")
        if _acting(update, seat.seat):
            name = Text("▶ ") + name
        held = Text(", ").join(
            Text(_BLOCKS.get(b.kind, "?"), style="dim" if b.fresh else "green") for b in seat.held_blocks
        )
        if seat.has_voted:
            vote = Text("voted", style="yellow")
        elif seat.revealed_vote in _VOTES:
            word, style = _VOTES[seat.revealed_vote]
            vote = Text(word, style="strike dim" if seat.vote_cancelled else style)
        else:
            vote = Text("")
        extras = []
        if seat.extra_turns:
            extras.append(f"+{seat.extra_turns} turn")
        if seat.skips:
            extras.append(f"skip {seat.skips}")
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
            Text(f"{score}" + (f" (+{seat.coins} coins)" if seat.coins else "")),
        )

    parts: list[RenderableType] = [header, board]
    if view.HasField("nominee"):
        nominee = Text("Nominee for champion: ", style="bold magenta")
        nominee.append_text(character(view.nominee))
        parts.append(nominee)
    parts.append(seats)
    if view.HasField("you"):
        mine = Text("Your favourites: ", style="bold")
        mine.append_text(characters(list(view.favourites)))
        mine.append("\nYour Power Ups: ", style="bold")
        mine.append(", ".join(_(LEVEL_UP_POWER_NAMES.get(p.kind, "?")) for p in view.power_ups) or "none")
        parts.append(Panel(mine, title="You", expand=False))
    last = [s for s in view.seats if s.last_objective]
    if last:
        shown = Table(title="Last round's objectives", header_style="bold")
        shown.add_column("Player")
        shown.add_column("Characters")
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
        lines.append(Flow(Text("to place: ", style="dim"), named(list(view.unplaced)), gap=", "))
    if view.HasField("nominee"):
        lines.append(Text("Nominee: ", style="bold magenta").append_text(characters([view.nominee])))
    if you is not None:
        lines.append(Flow(Text("Your favourites: ", style="bold cyan"), named(list(view.favourites)), gap=", "))
    long: list[Text] = []
    short: list[Text] = []
    for seat in view.seats:
        line = Text("▶ " if _acting(update, seat.seat) else "  ", style="bold yellow")
        line.append(
            "you" if seat.seat == you else seat_name(update, seat.seat), style="bold" if seat.seat == you else ""
        )
        brief = line.copy()
        score = view.scores[seat.seat] if seat.seat < len(view.scores) else 0
        if seat.seat == you:
            powers = ", ".join(_(LEVEL_UP_POWER_NAMES.get(p.kind, "?")) for p in view.power_ups) or "no Power Ups"
            line.append(f"  {score} pts · {powers} · No! cards {seat.no_cards}")
        else:
            line.append(f"  {score} pts · {counted(seat.power_up_count, 'Power Up')} · No! cards {seat.no_cards}")
        brief.append(f" {score} pts · No! {seat.no_cards}")
        if seat.held_blocks:
            line.append(" · " + ", ".join(_BLOCKS.get(b.kind, "?") for b in seat.held_blocks), style="green")
        for text in (line, brief):
            if seat.has_voted:
                text.append(" · voted", style="yellow")
            elif seat.revealed_vote in _VOTES:
                word, style = _VOTES[seat.revealed_vote]
                text.append(" · voted ", style="dim")
                text.append(word, style="strike dim" if seat.vote_cancelled else style)
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

    board = Table(title="Board", header_style="bold", box=None, padding=(0, 1), expand=False)
    board.add_column("Lv", justify="right")
    board.add_column("Characters (left to right)", max_width=36)
    board.add_column("?", justify="left")
    for level in reversed(view.levels):
        label = Text(str(level.level), style="bold magenta" if level.level == 10 else "bold")
        blocks = Text("?" * level.face_down_blocks, style="bold yellow on blue") if level.face_down_blocks else Text()
        board.add_row(label, characters(list(level.characters)), blocks)
    if view.unplaced:
        board.add_row(Text("to place", style="dim"), characters(list(view.unplaced)), Text())
    if view.off_board:
        board.add_row(Text("off", style="dim"), characters(list(view.off_board)), Text())

    seats = Table(title="Players", header_style="bold", expand=False, box=box.SIMPLE_HEAD, padding=(0, 1))
    for column in ("", "Player", "Points", "Power Ups", "No!", "Blocks", "Vote", "Rounds"):
        seats.add_column(column, no_wrap=column in ("Points", "Power Ups", "Vote", "Rounds"))
    for seat in view.seats:
        name = Text("you" if seat.seat == you else seat_name(update, seat.seat))
        name.stylize("bold" if seat.seat == you else "")
        held = Text(", ").join(
            Text(_BLOCKS.get(b.kind, "?"), style="dim" if b.fresh else "green") for b in seat.held_blocks
        )
        if seat.extra_turns or seat.skips:
            held.append(f" +{seat.extra_turns} turn" if seat.extra_turns else f" skip {seat.skips}", style="italic")
        if seat.has_voted:
            vote = Text("voted", style="yellow")
        elif seat.revealed_vote in _VOTES:
            word, style = _VOTES[seat.revealed_vote]
            vote = Text(word, style="strike dim" if seat.vote_cancelled else style)
        else:
            vote = Text("")
        score = view.scores[seat.seat] if seat.seat < len(view.scores) else 0
        seats.add_row(
            Text("▶", style="bold yellow") if _acting(update, seat.seat) else Text(""),
            name,
            Text(f"{score}" + (f" +{seat.coins}c" if seat.coins else "")),
            str(seat.power_up_count),
            str(seat.no_cards),
            held,
            vote,
            " / ".join(str(r) for r in seat.round_scores) or "-",
        )
    side = Table.grid(padding=(0, 3))
    side.add_row(board, seats)
    parts: list[RenderableType] = [Text(f"Round {view.round} of 3", style="bold"), side]
    if view.HasField("nominee"):
        parts.append(Text("Nominee for champion: ", style="bold magenta").append_text(characters([view.nominee])))
    if you is not None:
        parts.append(Text("Your favourites: ", style="bold cyan").append_text(characters(list(view.favourites))))
        powers = ", ".join(_(LEVEL_UP_POWER_NAMES.get(p.kind, "?")) for p in view.power_ups) or "none"
        parts.append(Text("Your Power Ups: ", style="bold cyan").append(powers))
    last = [s for s in view.seats if s.last_objective]
    for seat in last[:6]:
        who = "Your" if seat.seat == you else f"{seat_name(update, seat.seat)}'s"
        line = Text(f"{who} last objective: ", style="dim")
        parts.append(line.append_text(characters(list(seat.last_objective))))
    return Group(*one_line_each(parts))
