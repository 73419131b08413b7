"""Terminal rendering of an UNO Super Mario view: the top card and active colour, the seats with their card
counts and scores, the viewer's own hand as coloured cards, and any pending Draw Two / Wild Draw Four, UNO
catch or challenge reveal.

It renders only what the view carries (a thin client knows no rules); the seat list, event log and action
menu around it belong to the generic terminal shell. Names from the network are always escaped (rich Text
objects, never markup).
"""

from __future__ import annotations

from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from toadstool.api.v1 import table_pb2, uno_pb2
from toadstool_clients.names import counted, seat_names, with_seat_names
from toadstool_clients.terminal.games.compact import Cells, Flow, one_line_each

COLOR_STYLE: dict[int, str] = {
    uno_pb2.UNO_COLOR_RED: "bold white on red",
    uno_pb2.UNO_COLOR_YELLOW: "bold black on yellow",
    uno_pb2.UNO_COLOR_GREEN: "bold white on green",
    uno_pb2.UNO_COLOR_BLUE: "bold white on blue",
}
WILD_STYLE = "bold white on grey15"
COLOR_NAMES: dict[int, str] = {
    uno_pb2.UNO_COLOR_RED: "red",
    uno_pb2.UNO_COLOR_YELLOW: "yellow",
    uno_pb2.UNO_COLOR_GREEN: "green",
    uno_pb2.UNO_COLOR_BLUE: "blue",
}
TEXT_STYLE: dict[int, str] = {
    uno_pb2.UNO_COLOR_RED: "bold red",
    uno_pb2.UNO_COLOR_YELLOW: "bold yellow",
    uno_pb2.UNO_COLOR_GREEN: "bold green",
    uno_pb2.UNO_COLOR_BLUE: "bold blue",
}
KIND_LABELS: dict[int, str] = {
    uno_pb2.UNO_KIND_SKIP: "Skip",
    uno_pb2.UNO_KIND_REVERSE: "Reverse",
    uno_pb2.UNO_KIND_DRAW_TWO: "+2",
    uno_pb2.UNO_KIND_WILD: "Wild",
    uno_pb2.UNO_KIND_WILD_DRAW_FOUR: "Wild +4",
    uno_pb2.UNO_KIND_WILD_CUSTOMIZABLE: "Wild ✎",
    uno_pb2.UNO_KIND_SUPER_STAR: "★ Star",
}
STAGE_NAMES: dict[int, str] = {
    uno_pb2.UNO_STAGE_PLAY: "play a card or draw",
    uno_pb2.UNO_STAGE_DRAWN: "play the drawn card or keep it",
    uno_pb2.UNO_STAGE_CHOOSE_FIRST_COLOR: "choose the first colour",
    uno_pb2.UNO_STAGE_ANSWER_DRAW_TWO: "answer the Draw Two",
    uno_pb2.UNO_STAGE_ANSWER_WILD_DRAW_FOUR: "answer the Wild Draw Four",
    uno_pb2.UNO_STAGE_GAME_OVER: "game over",
}


def _name(names: list[str], seat: int) -> str:
    return names[seat] if 0 <= seat < len(names) else f"Player {seat + 1}"


def _with_names(text: str, names: list[str]) -> Text:
    """A plain Text with seat references replaced by names (Text never interprets markup)."""
    return Text(with_seat_names(text, names))


def card_text(card: uno_pb2.UnoCard) -> Text:
    """One card as a small coloured tile with its colour's initial (for plain terminals): " R7 ", " B Skip ",
    " Wild +4 "."""
    label = str(card.number) if card.HasField("number") else KIND_LABELS.get(card.kind, "?")
    if card.color in COLOR_NAMES:
        label = f"{COLOR_NAMES[card.color][0].upper()}{label if card.HasField('number') else ' ' + label}"
    style = COLOR_STYLE.get(card.color, WILD_STYLE)
    return Text(f" {label} ", style=style)


def _top(view: uno_pb2.UnoView) -> RenderableType:
    top = Text("Top card: ")
    if view.HasField("top_card"):
        top.append_text(card_text(view.top_card))
    top.append("   Colour: ")
    if view.color in COLOR_NAMES:
        top.append(f" {COLOR_NAMES[view.color]} ", style=COLOR_STYLE[view.color])
    else:
        top.append("to be chosen", style="italic")
    arrow = "↻ clockwise" if view.direction == uno_pb2.UNO_DIRECTION_CLOCKWISE else "↺ counter-clockwise"
    top.append(f"   {arrow}")
    top.append(
        f"\nDraw pile: {counted(view.draw_pile_count, 'card')}   Discard pile: {counted(view.discard_count, 'card')}"
    )
    return top


def _seats(view: uno_pb2.UnoView, names: list[str]) -> Table:
    table = Table(header_style="bold", expand=False)
    for column in ("", "Player", "Cards", "Score"):
        table.add_column(column)
    you = view.you if view.HasField("you") else None
    catchable = view.uno_catchable if view.HasField("uno_catchable") else None
    for seat, count in enumerate(view.hand_counts):
        marker = "▶" if seat == view.current and view.stage != uno_pb2.UNO_STAGE_GAME_OVER else ""
        player = Text(_name(names, seat))
        if seat == you:
            player.append(" (you)", style="bold")
        if seat == view.dealer:
            player.append(" · dealer", style="dim")
        cards = Text(str(count))
        if count == 1:
            cards.append(" UNO!", style="bold red")
        if seat == catchable:
            cards.append(" catchable", style="bold magenta")
        score = str(view.scores[seat]) if seat < len(view.scores) else ""
        table.add_row(marker, player, cards, score)
    return table


def _hand(view: uno_pb2.UnoView) -> RenderableType:
    if not view.HasField("you"):
        return Text("Spectating: hands are hidden.", style="dim")
    tiles = Text()
    for card in view.hand:
        tiles.append_text(card_text(card))
        tiles.append(" ")
    if not view.hand:
        tiles.append("(no cards)", style="dim")
    parts: list[RenderableType] = [tiles]
    if view.HasField("drawn_card"):
        drawn = Text("You drew: ")
        drawn.append_text(card_text(view.drawn_card))
        parts.append(drawn)
    return Panel(Group(*parts), title=f"Your hand ({len(view.hand)})", border_style="cyan")


def _notes(view: uno_pb2.UnoView, names: list[str]) -> list[RenderableType]:
    notes: list[RenderableType] = []
    if view.pending_penalty and view.HasField("attacker"):
        text = Text(f"{_name(names, view.attacker)} played a draw-{view.pending_penalty} on ")
        text.append(_name(names, view.current))
        if view.prior_color in COLOR_NAMES:
            text.append(" (colour before it: ")
            text.append(COLOR_NAMES[view.prior_color], style=TEXT_STYLE[view.prior_color])
            text.append(")")
        notes.append(Panel(text, title="Pending", border_style="red"))
    if view.HasField("reveal"):
        reveal = view.reveal
        shown = Text(f"{_name(names, reveal.attacker)} showed you: ")
        for card in reveal.cards:
            shown.append_text(card_text(card))
            shown.append(" ")
        held = "held" if reveal.held_prior_color else "did not hold"
        shown.append(f"\nThey {held} a {COLOR_NAMES.get(reveal.prior_color, '?')} card.")
        notes.append(Panel(shown, title="Challenge reveal (only you see this)", border_style="magenta"))
    if view.house_rule:
        notes.append(Text.assemble(("House rule (Wild Customizable): ", "bold"), view.house_rule))
    if view.HasField("last_hand_winner"):
        notes.append(
            Text(f"Last hand: {_name(names, view.last_hand_winner)} went out ({view.last_hand_points} points)")
        )
    return notes


def render_view(update: table_pb2.Update) -> RenderableType:
    """The UNO part of the screen for this update."""
    view = update.view.uno
    names = seat_names(update, len(view.hand_counts))
    status = _with_names(update.phase or view.phase, names)
    status.stylize("bold")
    status.append(f"  ·  {STAGE_NAMES.get(view.stage, '')}")
    variant = "lowest total wins" if view.lowest_wins else "first to reach it wins"
    status.append(f"\nHand {view.hand_number} · target {counted(view.target, 'point')} ({variant})")
    body: list[RenderableType] = [status, Columns([_seats(view, names), _top(view)]), _hand(view)]
    body.extend(_notes(view, names))
    return Panel(Group(*body), title="UNO Super Mario", border_style="yellow")


def render_compact(update: table_pb2.Update) -> RenderableType:
    """The UNO part of an 80x24 screen: every seat's cards and points in columns, the top card, the hand
    (broken between cards) and what is pending."""
    view = update.view.uno
    names = seat_names(update, len(view.hand_counts))
    you = view.you if view.HasField("you") else None
    cells: list[Text] = []
    short: list[Text] = []
    for seat, count in enumerate(view.hand_counts):
        for words in (True, False):
            cell = Text("▶ " if seat == view.current and view.stage != uno_pb2.UNO_STAGE_GAME_OVER else "  ")
            cell.stylize("bold yellow")
            cell.append("you" if seat == you else _name(names, seat), style="bold" if seat == you else "")
            score = view.scores[seat] if seat < len(view.scores) else 0
            cell.append(f" {counted(count, 'card')}" if words else f" {count}c")
            if count == 1:
                cell.append(" UNO!", style="bold red")
            if seat == view.uno_catchable and view.HasField("uno_catchable"):
                cell.append(" catchable" if words else " catch!", style="bold magenta")
            cell.append(f" · {score} pts" if words else f" {score}p", style="dim")
            (cells if words else short).append(cell)
    top = Text("Top card ")
    if view.HasField("top_card"):
        top.append_text(card_text(view.top_card))
    top.append("  ")
    if view.color in COLOR_NAMES:
        top.append(f" {COLOR_NAMES[view.color]} ", style=COLOR_STYLE[view.color])
    else:
        top.append("colour to be chosen", style="italic")
    top.append("  ↻" if view.direction == uno_pb2.UNO_DIRECTION_CLOCKWISE else "  ↺")
    top.append(f"  pile {view.draw_pile_count} · hand {view.hand_number} · target {view.target}", style="dim")
    hint = Text("(c: cards, p: points)", style="dim")
    parts: list[RenderableType] = [Cells(cells, short, short_hint=hint), top]
    if you is not None:
        tiles = [card_text(card) for card in view.hand] or [Text("no cards", style="dim")]
        parts.append(Flow(Text("Your hand: ", style="bold cyan"), tiles))
        if view.HasField("drawn_card"):
            parts.append(Text("You drew ").append_text(card_text(view.drawn_card)))
    if view.pending_penalty and view.HasField("attacker"):
        pending = Text(f"{_name(names, view.attacker)} played a draw-{view.pending_penalty} on ", style="bold red")
        pending.append("you" if view.current == you else _name(names, view.current), style="bold red")
        parts.append(pending)
    if view.HasField("reveal"):
        parts.append(
            Flow(
                Text(f"{_name(names, view.reveal.attacker)} showed you: ", style="magenta"),
                [card_text(card) for card in view.reveal.cards],
            )
        )
    return Group(*one_line_each(parts))
