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
from toadstool_clients.i18n import N_, _, n_
from toadstool_clients.names import UNO_COLOR_NAMES, UNO_KIND_NAMES, seat_names, with_seat_names
from toadstool_clients.terminal.games.compact import Cells, Flow, one_line_each

COLOR_STYLE: dict[int, str] = {
    uno_pb2.UNO_COLOR_RED: "bold white on red",
    uno_pb2.UNO_COLOR_YELLOW: "bold black on yellow",
    uno_pb2.UNO_COLOR_GREEN: "bold white on green",
    uno_pb2.UNO_COLOR_BLUE: "bold white on blue",
}
WILD_STYLE = "bold white on grey15"
#: Colour names (names.py's, said with `_` where shown).
COLOR_NAMES: dict[int, str] = UNO_COLOR_NAMES
#: A colour's mark on a card tile (for terminals without colour): Gelb and Grün need two letters.
COLOR_INITIALS: dict[int, str] = {
    uno_pb2.UNO_COLOR_RED: N_("R"),
    uno_pb2.UNO_COLOR_YELLOW: N_("Y"),
    uno_pb2.UNO_COLOR_GREEN: N_("G"),
    uno_pb2.UNO_COLOR_BLUE: N_("B"),
}
TEXT_STYLE: dict[int, str] = {
    uno_pb2.UNO_COLOR_RED: "bold red",
    uno_pb2.UNO_COLOR_YELLOW: "bold yellow",
    uno_pb2.UNO_COLOR_GREEN: "bold green",
    uno_pb2.UNO_COLOR_BLUE: "bold blue",
}
KIND_LABELS: dict[int, str] = {
    uno_pb2.UNO_KIND_SKIP: UNO_KIND_NAMES[uno_pb2.UNO_KIND_SKIP],
    uno_pb2.UNO_KIND_REVERSE: UNO_KIND_NAMES[uno_pb2.UNO_KIND_REVERSE],
    uno_pb2.UNO_KIND_DRAW_TWO: "+2",
    uno_pb2.UNO_KIND_WILD: UNO_KIND_NAMES[uno_pb2.UNO_KIND_WILD],
    uno_pb2.UNO_KIND_WILD_DRAW_FOUR: N_("Wild +4"),
    uno_pb2.UNO_KIND_WILD_CUSTOMIZABLE: N_("Wild ✎"),
    uno_pb2.UNO_KIND_SUPER_STAR: N_("★ Star"),
}
STAGE_NAMES: dict[int, str] = {
    uno_pb2.UNO_STAGE_PLAY: N_("play a card or draw"),
    uno_pb2.UNO_STAGE_DRAWN: N_("play the drawn card or keep it"),
    uno_pb2.UNO_STAGE_CHOOSE_FIRST_COLOR: N_("choose the first colour"),
    uno_pb2.UNO_STAGE_ANSWER_DRAW_TWO: N_("answer the Draw Two"),
    uno_pb2.UNO_STAGE_ANSWER_WILD_DRAW_FOUR: N_("answer the Wild Draw Four"),
    uno_pb2.UNO_STAGE_GAME_OVER: N_("game over"),
}


def _name(names: list[str], seat: int) -> str:
    return names[seat] if 0 <= seat < len(names) else _("Player {number}", number=seat + 1)


def _with_names(text: str, names: list[str]) -> Text:
    """A plain Text with seat references replaced by names (Text never interprets markup)."""
    return Text(with_seat_names(text, names))


def card_text(card: uno_pb2.UnoCard) -> Text:
    """One card as a small coloured tile with its colour's initial (for plain terminals): " R7 ", " B Skip ",
    " Wild +4 "."""
    label = str(card.number) if card.HasField("number") else _(KIND_LABELS.get(card.kind, "?"))
    if card.color in COLOR_INITIALS:
        label = f"{_(COLOR_INITIALS[card.color])}{label if card.HasField('number') else ' ' + label}"
    style = COLOR_STYLE.get(card.color, WILD_STYLE)
    return Text(f" {label} ", style=style)


def _top(view: uno_pb2.UnoView) -> RenderableType:
    top = Text(_("Top card: "))
    if view.HasField("top_card"):
        top.append_text(card_text(view.top_card))
    top.append("   " + _("Colour: "))
    if view.color in COLOR_NAMES:
        top.append(f" {_(COLOR_NAMES[view.color])} ", style=COLOR_STYLE[view.color])
    else:
        top.append(_("to be chosen"), style="italic")
    clockwise = view.direction == uno_pb2.UNO_DIRECTION_CLOCKWISE
    top.append("   " + (_("↻ clockwise") if clockwise else _("↺ counter-clockwise")))
    top.append("\n" + n_("Draw pile: {n} card", "Draw pile: {n} cards", view.draw_pile_count))
    top.append("   " + n_("Discard pile: {n} card", "Discard pile: {n} cards", view.discard_count))
    return top


def _seats(view: uno_pb2.UnoView, names: list[str]) -> Table:
    table = Table(header_style="bold", expand=False)
    for column in ("", _("Player"), _("Cards"), _("Score")):
        table.add_column(column)
    you = view.you if view.HasField("you") else None
    catchable = view.uno_catchable if view.HasField("uno_catchable") else None
    for seat, count in enumerate(view.hand_counts):
        marker = "▶" if seat == view.current and view.stage != uno_pb2.UNO_STAGE_GAME_OVER else ""
        player = Text(_name(names, seat))
        if seat == you:
            player.append(" " + _("(you)"), style="bold")
        if seat == view.dealer:
            player.append(" · " + _("dealer"), style="dim")
        cards = Text(str(count))
        if count == 1:
            cards.append(" UNO!", style="bold red")
        if seat == catchable:
            cards.append(" " + _("catchable"), style="bold magenta")
        score = str(view.scores[seat]) if seat < len(view.scores) else ""
        table.add_row(marker, player, cards, score)
    return table


def _hand(view: uno_pb2.UnoView) -> RenderableType:
    if not view.HasField("you"):
        return Text(_("Spectating: hands are hidden."), style="dim")
    # broken between cards, never inside one ("B Richtungswechsel" is one card)
    tiles = [card_text(card) for card in view.hand] or [Text(_("(no cards)"), style="dim")]
    parts: list[RenderableType] = [Flow(Text(), tiles)]
    if view.HasField("drawn_card"):
        drawn = Text(_("You drew: "))
        drawn.append_text(card_text(view.drawn_card))
        parts.append(drawn)
    return Panel(Group(*parts), title=_("Your hand ({number})", number=len(view.hand)), border_style="cyan")


def _notes(view: uno_pb2.UnoView, names: list[str]) -> list[RenderableType]:
    notes: list[RenderableType] = []
    if view.pending_penalty and view.HasField("attacker"):
        played: dict[str, object] = {
            "attacker": _name(names, view.attacker),
            "penalty": view.pending_penalty,
            "target": _name(names, view.current),
        }
        if view.prior_color in COLOR_NAMES:
            # the colour word in its colour: the sentence is said whole, then the word styled where it stands
            sentence = _(
                "{attacker} played a draw-{penalty} on {target} (colour before it: {colour})",
                **played,
                colour=_(COLOR_NAMES[view.prior_color]),
            )
            text = Text(sentence)
            text.highlight_words([_(COLOR_NAMES[view.prior_color])], style=TEXT_STYLE[view.prior_color])
        else:
            text = Text(_("{attacker} played a draw-{penalty} on {target}", **played))
        notes.append(Panel(text, title=_("Pending"), border_style="red"))
    if view.HasField("reveal"):
        reveal = view.reveal
        shown = Text(_("{name} showed you: ", name=_name(names, reveal.attacker)))
        for card in reveal.cards:
            shown.append_text(card_text(card))
            shown.append(" ")
        colour = _(COLOR_NAMES.get(reveal.prior_color, "?"))
        if reveal.held_prior_color:
            shown.append("\n" + _("They held a card of the colour {colour}.", colour=colour))
        else:
            shown.append("\n" + _("They held no card of the colour {colour}.", colour=colour))
        notes.append(Panel(shown, title=_("Challenge reveal (only you see this)"), border_style="magenta"))
    if view.house_rule:
        notes.append(Text.assemble((_("House rule (Wild Customizable): "), "bold"), view.house_rule))
    if view.HasField("last_hand_winner"):
        notes.append(
            Text(
                n_(
                    "Last hand: {name} went out ({n} point)",
                    "Last hand: {name} went out ({n} points)",
                    view.last_hand_points,
                    name=_name(names, view.last_hand_winner),
                )
            )
        )
    return notes


def render_view(update: table_pb2.Update) -> RenderableType:
    """The UNO part of the screen for this update."""
    view = update.view.uno
    names = seat_names(update, len(view.hand_counts))
    status = _with_names(update.phase or view.phase, names)
    status.stylize("bold")
    status.append(f"  ·  {_(STAGE_NAMES[view.stage]) if view.stage in STAGE_NAMES else ''}")
    if view.lowest_wins:
        line = n_(
            "Hand {number} · target {n} point (the lowest total wins)",
            "Hand {number} · target {n} points (the lowest total wins)",
            view.target,
            number=view.hand_number,
        )
    else:
        line = n_(
            "Hand {number} · target {n} point (the first to reach it wins)",
            "Hand {number} · target {n} points (the first to reach it wins)",
            view.target,
            number=view.hand_number,
        )
    status.append("\n" + line)
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
            cell.append(_("you") if seat == you else _name(names, seat), style="bold" if seat == you else "")
            score = view.scores[seat] if seat < len(view.scores) else 0
            cell.append(" " + (n_("{n} card", "{n} cards", count) if words else _("{n}c", n=count)))
            if count == 1:
                cell.append(" UNO!", style="bold red")
            if seat == view.uno_catchable and view.HasField("uno_catchable"):
                cell.append(" " + (_("catchable") if words else _("catch!")), style="bold magenta")
            points = n_("{n} pt", "{n} pts", score) if words else _("{n}p", n=score)
            cell.append((" · " if words else " ") + points, style="dim")
            (cells if words else short).append(cell)
    top = Text(_("Top card "))
    if view.HasField("top_card"):
        top.append_text(card_text(view.top_card))
    top.append("  ")
    if view.color in COLOR_NAMES:
        top.append(f" {_(COLOR_NAMES[view.color])} ", style=COLOR_STYLE[view.color])
    else:
        top.append(_("colour to be chosen"), style="italic")
    top.append("  ↻" if view.direction == uno_pb2.UNO_DIRECTION_CLOCKWISE else "  ↺")
    top.append(
        "  "
        + _(
            "pile {pile} · hand {hand} · target {target}",
            pile=view.draw_pile_count,
            hand=view.hand_number,
            target=view.target,
        ),
        style="dim",
    )
    hint = Text(_("(c: cards, p: points)"), style="dim")
    parts: list[RenderableType] = [Cells(cells, short, short_hint=hint), top]
    if you is not None:
        tiles = [card_text(card) for card in view.hand] or [Text(_("no cards"), style="dim")]
        parts.append(Flow(Text(_("Your hand: "), style="bold cyan"), tiles))
        if view.HasField("drawn_card"):
            parts.append(Text(_("You drew: ")).append_text(card_text(view.drawn_card)))
    if view.pending_penalty and view.HasField("attacker"):
        attacker, penalty = _name(names, view.attacker), view.pending_penalty
        if view.current == you:
            said = _("{attacker} played a draw-{penalty} on you", attacker=attacker, penalty=penalty)
        else:
            target = _name(names, view.current)
            said = _(
                "{attacker} played a draw-{penalty} on {target}", attacker=attacker, penalty=penalty, target=target
            )
        parts.append(Text(said, style="bold red"))
    if view.HasField("reveal"):
        parts.append(
            Flow(
                Text(_("{name} showed you: ", name=_name(names, view.reveal.attacker)), style="magenta"),
                [card_text(card) for card in view.reveal.cards],
            )
        )
    return Group(*one_line_each(parts))
