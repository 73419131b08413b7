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
from toadstool_clients.i18n import N_, _, n_
from toadstool_clients.names import powerup_decision, seat_name
from toadstool_clients.terminal.games.compact import one_line_each

_STAGES = {
    powerup_pb2.POWER_UP_STAGE_KEEP_OR_TRADE: N_("Keep or trade"),
    powerup_pb2.POWER_UP_STAGE_ANSWER: N_("Answer the swap"),
    powerup_pb2.POWER_UP_STAGE_MODIFY: N_("Reveal and modify"),
    powerup_pb2.POWER_UP_STAGE_GAME_OVER: N_("Game over"),
}

_TIMING_STYLE = {
    powerup_pb2.POWER_UP_TIMING_MODIFY: "green",
    powerup_pb2.POWER_UP_TIMING_ANY_TIME: "magenta",
    powerup_pb2.POWER_UP_TIMING_TRADE_ANSWER: "yellow",
    powerup_pb2.POWER_UP_TIMING_BEFORE_DECISION: "cyan",
    powerup_pb2.POWER_UP_TIMING_AS_DECISION: "cyan",
}


def _stage(view: powerup_pb2.PowerUpView) -> str:
    return _(_STAGES[view.stage]) if view.stage in _STAGES else ""


def _aims(update: table_pb2.Update, me: int | None) -> str:
    """Who aims a Warp Pipe or a trade at whom, as one sentence."""
    pending = update.view.powerup.pending
    who = seat_name(update, pending.from_seat)
    pipe = pending.kind == powerup_pb2.POWER_UP_SWAP_KIND_WARP_PIPE
    if pending.to_seat == me:
        return _("{name} aims a Warp Pipe at you", name=who) if pipe else _("{name} aims a trade at you", name=who)
    target = seat_name(update, pending.to_seat)
    if pipe:
        return _("{name} aims a Warp Pipe at {target}", name=who, target=target)
    return _("{name} aims a trade at {target}", name=who, target=target)


def _peeks(update: table_pb2.Update) -> str:
    """What Boo showed: each seat's Level card ("Anna x3", "Ben CASTLE")."""
    return ", ".join(
        _("{name} CASTLE", name=seat_name(update, p.seat))
        if p.card.castle
        else _("{name} x{value}", name=seat_name(update, p.seat), value=p.card.value)
        for p in update.view.powerup.peeks
    )


def _level_text(seat: powerup_pb2.PowerUpSeat) -> Text:
    if not seat.has_level:
        return Text("-", style="dim")
    if seat.castle:
        return Text(_("CASTLE"), style="bold yellow")
    if not seat.HasField("level"):
        return Text(_("face down"), style="dim")
    text = Text(f"{seat.level.value}", style="bold")
    if not seat.face_up:
        text.append(" " + _("(face down; you know it)"), style="dim")
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
    header.append(_("Round {number}", number=view.round), style="bold")
    header.append(f"  {_stage(view)}", style="cyan")
    header.append("  " + _("Dealer: {name}", name=seat_name(update, view.dealer)))
    header.append("  " + n_("Supply: {n} Extra Life", "Supply: {n} Extra Lives", view.supply), style="dim")
    if view.stage == powerup_pb2.POWER_UP_STAGE_MODIFY:
        header.append("  " + _("Passes in a row: {n}", n=view.passes_in_a_row), style="dim")

    seats = Table(show_header=True, header_style="bold", expand=False)
    seats.add_column(_("Seat"))
    seats.add_column(_("Lives"), justify="right")
    seats.add_column(_("Level card"))
    seats.add_column(_("Modifier"))
    seats.add_column(_("Value"), justify="right")
    seats.add_column(_("? cards"), justify="right")
    seats.add_column("")
    for seat in view.seats:
        name = Text(seat_name(update, seat.seat))
        if me is not None and seat.seat == me:
            name.append(" " + _("(you)"), style="bold green")
        if seat.seat == view.dealer:
            name.append(" " + _("[D]"), style="yellow")
        if not seat.active:
            name.stylize("strike dim")
        lives = Text("♥" * seat.tokens if seat.tokens <= 8 else str(seat.tokens), style="red")
        if not seat.tokens:
            lives = Text("0", style="dim")
        modifier = _card_text(seat.modifier) if seat.HasField("modifier") else Text("")
        value = Text(str(seat.value), style="bold") if seat.HasField("value") else Text("?", style="dim")
        if seat.castle:
            value = Text(_("immune"), style="yellow")
        status = Text()
        if view.HasField("turn") and seat.seat == view.turn and not view.HasField("pending"):
            status.append("◀ " + _("to act"), style="bold cyan")
        if view.HasField("pending") and seat.seat == view.pending.to_seat:
            status.append("◀ " + _("to answer"), style="bold yellow")
        if seat.decided and view.stage != powerup_pb2.POWER_UP_STAGE_GAME_OVER:
            status.append(" " + powerup_decision(seat.decision), style="dim")
        if seat.seat in view.winners:
            status.append(" " + _("winner"), style="bold green")
        seats.add_row(name, lives, _level_text(seat), modifier, value, str(seat.hand_count), status)

    parts: list[RenderableType] = [header, seats]
    if view.HasField("pending"):
        parts.append(Text(_aims(update, None), style="bold"))
    if view.peeks:
        parts.append(Text(_("Boo showed you: {cards}", cards=_peeks(update)), style="cyan"))
    if me is not None:
        hand = Table.grid(padding=(0, 1))
        for card in view.hand:
            hand.add_row(_card_text(card))
        parts.append(Panel(hand if view.hand else Text(_("no ? cards"), style="dim"), title=_("Your ? cards")))
    if view.played:
        played = ", ".join(card.name for card in view.played)
        parts.append(Text(_("Played this round: {cards}", cards=played), style="dim"))
    decks = Text(
        _(
            "Level deck {level} (discard {level_discard})  ? deck {question} (discard {question_discard})",
            level=view.level_deck_count,
            level_discard=view.level_discard_count,
            question=view.question_deck_count,
            question_discard=view.question_discard_count,
        ),
        style="dim",
    )
    parts.append(decks)
    return Panel(Group(*parts), title=_("Super Mario Bros. Power Up Card Game"), border_style="red")


def render_compact(update: table_pb2.Update) -> RenderableType:
    """The Power Up part of an 80x24 screen: the round, one line per seat, your ? cards by name."""
    view = update.view.powerup
    me = update.viewer_seat if update.HasField("viewer_seat") else None
    header = Text(_("Round {number} · {stage}", number=view.round, stage=_stage(view)), style="bold")
    dealer = _("you") if view.dealer == me else seat_name(update, view.dealer)
    header.append(" · " + _("dealer {name}", name=dealer))
    header.append(" · " + n_("supply {n} Extra Life", "supply {n} Extra Lives", view.supply), style="dim")
    lines: list[RenderableType] = [header]
    for seat in view.seats:
        acting = view.HasField("turn") and seat.seat == view.turn and not view.HasField("pending")
        answering = view.HasField("pending") and seat.seat == view.pending.to_seat
        line = Text("▶ " if acting or answering else "  ", style="bold yellow")
        line.append(
            _("you") if seat.seat == me else seat_name(update, seat.seat), style="bold" if seat.seat == me else ""
        )
        if not seat.active:
            line.stylize("strike dim")
        line.append("  " + n_("{n} life", "{n} lives", seat.tokens) + " · " + _("Level card") + " ")
        line.append_text(_level_text(seat))
        if seat.HasField("modifier"):
            line.append(f" + {seat.modifier.name}", style="italic")
        if seat.HasField("value") and not seat.castle and seat.HasField("modifier"):
            line.append(f" = {seat.value}", style="bold")
        line.append(" · " + n_("{n} ? card", "{n} ? cards", seat.hand_count), style="dim")
        if seat.decided and view.stage != powerup_pb2.POWER_UP_STAGE_GAME_OVER:
            line.append(" · " + powerup_decision(seat.decision), style="dim")
        lines.append(line)
    if view.HasField("pending"):
        lines.append(Text(_aims(update, me), style="yellow"))
    if view.peeks:
        lines.append(Text(_("Boo showed you: {cards}", cards=_peeks(update)), style="cyan"))
    if me is not None:
        if not view.hand:
            lines.append(Text(_("Your ? cards: none"), style="bold cyan"))
        lead = _("Your ? cards: ")
        for index, card in enumerate(view.hand):  # one line each, with what it does
            hand = Text(lead if index == 0 else " " * len(lead), style="bold cyan")
            hand.append(card.name, style=f"bold {_TIMING_STYLE.get(card.timing, 'white')}")
            hand.append(f"  {card.effect}", style="default")
            lines.append(hand)
    return Group(*one_line_each(lines))
