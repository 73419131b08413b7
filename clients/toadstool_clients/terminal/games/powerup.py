"""Renders a Power Up Card Game view for the terminal client with rich.

It is for drawing only what the view carries, from the viewer's perspective: each seat's Level card (face
down unless the viewer may know it), its modifier, Castle immunity, Extra Lives and ? card counts, the
viewer's own ? cards and what Boo showed them. It knows no rules; the generic shell around it shows the
seats, the event log and the menu of legal actions.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from toadstool.api.v1 import powerup_pb2, table_pb2
from toadstool_clients.names import counted, seat_name
from toadstool_clients.terminal.games.compact import one_line_each

_STAGES = {
    powerup_pb2.POWER_UP_STAGE_KEEP_OR_TRADE: "Keep or trade",
    powerup_pb2.POWER_UP_STAGE_ANSWER: "Answer the swap",
    powerup_pb2.POWER_UP_STAGE_MODIFY: "Reveal and modify",
    powerup_pb2.POWER_UP_STAGE_GAME_OVER: "Game over",
}

_TIMING_STYLE = {
    powerup_pb2.POWER_UP_TIMING_MODIFY: "green",
    powerup_pb2.POWER_UP_TIMING_ANY_TIME: "magenta",
    powerup_pb2.POWER_UP_TIMING_TRADE_ANSWER: "yellow",
    powerup_pb2.POWER_UP_TIMING_BEFORE_DECISION: "cyan",
    powerup_pb2.POWER_UP_TIMING_AS_DECISION: "cyan",
}


def _level_text(seat: powerup_pb2.PowerUpSeat) -> Text:
    if not seat.has_level:
        return Text("-", style="dim")
    if seat.castle:
        return Text("CASTLE", style="bold yellow")
    if not seat.HasField("level"):
        return Text("face down", style="dim")
    text = Text(f"{seat.level.value}", style="bold")
    if not seat.face_up:
        text.append(" (face down; you know it)", style="dim")
    return text


def _card_text(card: powerup_pb2.PowerUpCard) -> Text:
    text = Text(card.name, style=f"bold {_TIMING_STYLE.get(card.timing, 'white')}")
    text.append(f"  {card.effect}", style="default")
    return text


def render_view(update: table_pb2.Update) -> RenderableType:
    """The game part of a Power Up update, as the viewer may see it."""
    view = update.view.powerup
    me = update.viewer_seat if update.HasField("viewer_seat") else None

    header = Text()
    header.append(f"Round {view.round}", style="bold")
    header.append(f"  {_STAGES.get(view.stage, '')}", style="cyan")
    header.append("  Dealer: ")
    header.append(seat_name(update, view.dealer), style="bold")
    header.append(f"  Supply: {view.supply} Extra Lives", style="dim")
    if view.stage == powerup_pb2.POWER_UP_STAGE_MODIFY:
        header.append(f"  Passes in a row: {view.passes_in_a_row}", style="dim")

    seats = Table(show_header=True, header_style="bold", expand=False)
    seats.add_column("Seat")
    seats.add_column("Lives", justify="right")
    seats.add_column("Level")
    seats.add_column("Modifier")
    seats.add_column("Value", justify="right")
    seats.add_column("? cards", justify="right")
    seats.add_column("")
    for seat in view.seats:
        name = Text(seat_name(update, seat.seat))
        if me is not None and seat.seat == me:
            name.append(" (you)", style="bold green")
        if seat.seat == view.dealer:
            name.append(" [D]", style="yellow")
        if not seat.active:
            name.stylize("strike dim")
        lives = Text("♥" * seat.tokens if seat.tokens <= 8 else str(seat.tokens), style="red")
        if not seat.tokens:
            lives = Text("0", style="dim")
        modifier = _card_text(seat.modifier) if seat.HasField("modifier") else Text("")
        value = Text(str(seat.value), style="bold") if seat.HasField("value") else Text("?", style="dim")
        if seat.castle:
            value = Text("immune", style="yellow")
        status = Text()
        if view.HasField("turn") and seat.seat == view.turn and not view.HasField("pending"):
            status.append("◀ to act", style="bold cyan")
        if view.HasField("pending") and seat.seat == view.pending.to_seat:
            status.append("◀ to answer", style="bold yellow")
        if seat.decided and view.stage == powerup_pb2.POWER_UP_STAGE_KEEP_OR_TRADE:
            status.append(" decided", style="dim")
        if seat.seat in view.winners:
            status.append(" winner", style="bold green")
        seats.add_row(name, lives, _level_text(seat), modifier, value, str(seat.hand_count), status)

    parts: list[RenderableType] = [header, seats]
    if view.HasField("pending"):
        kind = "Warp Pipe" if view.pending.kind == powerup_pb2.POWER_UP_SWAP_KIND_WARP_PIPE else "trade"
        line = Text()
        line.append(seat_name(update, view.pending.from_seat), style="bold")
        line.append(f" aims a {kind} at ")
        line.append(seat_name(update, view.pending.to_seat), style="bold")
        parts.append(line)
    if view.peeks:
        peeks = Text("Boo showed you: ", style="cyan")
        for index, peek in enumerate(view.peeks):
            if index:
                peeks.append(", ")
            peeks.append(seat_name(update, peek.seat), style="bold")
            peeks.append(" CASTLE" if peek.card.castle else f" x{peek.card.value}")
        parts.append(peeks)
    if me is not None:
        hand = Table.grid(padding=(0, 1))
        for card in view.hand:
            hand.add_row(_card_text(card))
        parts.append(Panel(hand if view.hand else Text("no ? cards", style="dim"), title="Your ? cards"))
    if view.played:
        played = Text("Played this round: ", style="dim")
        played.append(", ".join(card.name for card in view.played))
        parts.append(played)
    decks = Text(
        f"Level deck {view.level_deck_count} (discard {view.level_discard_count})  "
        f"? deck {view.question_deck_count} (discard {view.question_discard_count})",
        style="dim",
    )
    parts.append(decks)
    return Panel(Group(*parts), title="Super Mario Bros. Power Up Card Game", border_style="red")


def render_compact(update: table_pb2.Update) -> RenderableType:
    """The Power Up part of an 80x24 screen: the round, one line per seat, your ? cards by name."""
    view = update.view.powerup
    me = update.viewer_seat if update.HasField("viewer_seat") else None
    header = Text(f"Round {view.round} · {_STAGES.get(view.stage, '')}", style="bold")
    header.append(f" · dealer {'you' if view.dealer == me else seat_name(update, view.dealer)}")
    header.append(f" · supply {counted(view.supply, 'Extra Life', 'Extra Lives')}", style="dim")
    lines: list[RenderableType] = [header]
    for seat in view.seats:
        acting = view.HasField("turn") and seat.seat == view.turn and not view.HasField("pending")
        answering = view.HasField("pending") and seat.seat == view.pending.to_seat
        line = Text("▶ " if acting or answering else "  ", style="bold yellow")
        line.append("you" if seat.seat == me else seat_name(update, seat.seat), style="bold" if seat.seat == me else "")
        if not seat.active:
            line.stylize("strike dim")
        line.append(f"  {counted(seat.tokens, 'life', 'lives')} · Level ")
        line.append_text(_level_text(seat))
        if seat.HasField("modifier"):
            line.append(f" + {seat.modifier.name}", style="italic")
        if seat.HasField("value") and not seat.castle and seat.HasField("modifier"):
            line.append(f" = {seat.value}", style="bold")
        line.append(f" · {counted(seat.hand_count, '? card')}", style="dim")
        if seat.decided and view.stage == powerup_pb2.POWER_UP_STAGE_KEEP_OR_TRADE:
            line.append(" · decided", style="dim")
        lines.append(line)
    if view.HasField("pending"):
        kind = "Warp Pipe" if view.pending.kind == powerup_pb2.POWER_UP_SWAP_KIND_WARP_PIPE else "trade"
        target = "you" if view.pending.to_seat == me else seat_name(update, view.pending.to_seat)
        lines.append(Text(f"{seat_name(update, view.pending.from_seat)} aims a {kind} at {target}", style="yellow"))
    if view.peeks:
        seen = ", ".join(
            f"{seat_name(update, p.seat)} {'CASTLE' if p.card.castle else 'x' + str(p.card.value)}" for p in view.peeks
        )
        lines.append(Text(f"Boo showed you: {seen}", style="cyan"))
    if me is not None:
        if not view.hand:
            lines.append(Text("Your ? cards: none", style="bold cyan"))
        for index, card in enumerate(view.hand):  # one line each, with what it does
            hand = Text("Your ? cards: " if index == 0 else " " * 14, style="bold cyan")
            hand.append(card.name, style=f"bold {_TIMING_STYLE.get(card.timing, 'white')}")
            hand.append(f"  {card.effect}", style="default")
            lines.append(hand)
    return Group(*one_line_each(lines))
