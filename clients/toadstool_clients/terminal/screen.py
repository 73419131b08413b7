"""The terminal's whole screen for one update, laid out to fit a given width and height.

From top to bottom: the turn line (whose turn, or the one game-over result), the game (its full drawing
when it fits, else its compact one), the last events, the menu and a line of keys. Whatever the size, the
turn line, the menu and the game come first; the event log gets what is left (at least two lines), and a
larger terminal gets the fuller drawing, a longer log and one menu entry per line. Every string from the
network is scrubbed of control, escape and bidi characters before it is drawn. Drawing only: the input loop
and the connection are in app.py, the menu's state in menu.py.
"""

from __future__ import annotations

import io
import re
import unicodedata
from collections.abc import Sequence

from google.protobuf.message import Message
from rich.console import Console, RenderableType
from rich.panel import Panel
from rich.text import Text

from toadstool.api.v1 import table_pb2
from toadstool_clients.i18n import N_, _, n_, person_language
from toadstool_clients.names import bot_level_name, seat_name, you_or_name
from toadstool_clients.terminal.games import has_medium, render_game
from toadstool_clients.terminal.games.compact import tight
from toadstool_clients.terminal.track_pick import TrackPick

#: Below this height the menu flows along lines and the game is drawn compact.
ROOMY_HEIGHT = 40
#: The event log's fewest lines.
MIN_LOG = 2

STATUS_NAMES = {
    table_pb2.TABLE_STATUS_LOBBY: N_("waiting for players"),
    table_pb2.TABLE_STATUS_PLAYING: N_("playing"),
    table_pb2.TABLE_STATUS_FINISHED: N_("finished"),
}


def printable(text: str) -> str:
    """`text` without control, escape and bidi characters (newlines stay)."""
    return "".join(ch for ch in text if ch == "\n" or unicodedata.category(ch)[0] != "C")


def scrubbed(message: Message) -> Message:
    """A copy of `message` whose every string has lost its control, escape and bidi characters.

    The server cleans names already; this is the client's own defence, so nothing a server sends (a
    hostile one included) can move the cursor, retitle the terminal or reverse text on this screen.
    """
    clean = type(message)()
    clean.CopyFrom(message)
    _scrub(clean)
    return clean


def _scrub(message: Message) -> None:
    for field, value in message.ListFields():
        if field.type == field.TYPE_STRING:
            if isinstance(value, str):
                setattr(message, field.name, printable(value))
            elif field.message_type is None:
                repeated = getattr(message, field.name)
                repeated[:] = [printable(v) for v in value]
        elif field.type == field.TYPE_MESSAGE:
            if isinstance(value, Message):
                _scrub(value)
            elif hasattr(value, "items"):  # a map: scrub its values
                for key in list(value):
                    item = value[key]
                    if isinstance(item, str):
                        value[key] = printable(item)
                    else:
                        _scrub(item)
            else:
                for item in value:
                    _scrub(item)


def result_line(update: table_pb2.Update) -> Text:
    """The one game-over result: the server's summary ("You win with 44 points"), else who won; a game
    that did not end by its rules (the host ended it, it was abandoned) says why, and names no winner."""
    if update.outcome.ended:
        return Text(_("Game ended: {why}", why=update.outcome.ended), style="bold yellow")
    winners = list(update.outcome.winners)
    you = update.viewer_seat if update.HasField("viewer_seat") else None
    summary = update.outcome.summary
    if summary:
        if you is not None:
            name = re.escape(seat_name(update, you))
            summary = re.sub(rf"^{name} wins\b", "You win", summary)
            summary = re.sub(rf"^{name}\b", "You", summary)
        return Text(_("Game over: {summary}", summary=summary), style="bold green").append_text(named_scores(update))
    names = ", ".join(seat_name(update, w) for w in winners if w != you)
    if you is not None and you in winners:
        said = _("Game over: you win") if not names else _("Game over: you and {names} win", names=names)
    elif winners:
        said = n_("Game over: {names} wins", "Game over: {names} win", len(winners), names=names)
    else:
        said = _("Game over: nobody wins")
    return Text(said, style="bold green").append_text(named_scores(update))


def named_scores(update: table_pb2.Update) -> Text:
    """Every seat's final score by name ("  ·  you 0 · Bot 1 532 · ..."), from the outcome; empty
    without one score per seat."""
    scores = list(update.outcome.scores)
    if not scores or len(scores) != len(update.seats):
        return Text("")
    text = Text("  ·  ", style="bold green")
    text.append(" · ".join(f"{you_or_name(update, seat)} {score}" for seat, score in enumerate(scores)))
    return text


def table_title(update: table_pb2.Update) -> str:
    """The table's name as a person reads it: without the table id a default name ends with."""
    name = update.table_name
    if update.table_id and name.endswith(" " + update.table_id):
        name = name[: -len(update.table_id) - 1]
    return name


def turn_line(update: table_pb2.Update, banner: str = "", now_ms: float | None = None) -> Text:
    """Whose turn it is (or the result), the turn clock (with `now_ms`, the time now in milliseconds since
    the epoch) and the table's name: the screen's first line."""
    if banner:
        return Text(banner, style="bold white on red")
    if update.status == table_pb2.TABLE_STATUS_FINISHED and update.HasField("outcome"):
        return result_line(update)
    line = Text()
    mine = update.HasField("viewer_seat") and update.viewer_seat in update.to_act
    if update.status == table_pb2.TABLE_STATUS_LOBBY:
        open_seats = sum(1 for s in update.seats if s.kind == table_pb2.SEAT_KIND_EMPTY)
        said = n_("Waiting for players ({n} open seat)", "Waiting for players ({n} open seats)", open_seats)
        line.append(said, style="bold magenta")
    elif mine:
        line.append_text(_your_turn(update))
    else:
        line.append(update.phase or _(STATUS_NAMES.get(update.status, "")), style="bold magenta")
    if update.HasField("turn_deadline_unix_ms") and now_ms is not None:
        left = max(0, round((update.turn_deadline_unix_ms - now_ms) / 1000))
        line.append("   ⏱ " + n_("{n} second to decide", "{n} seconds to decide", left), style="bold yellow")
    title = table_title(update)
    if title:
        line.append(f"   · {title}", style="dim")
    return line


def _your_turn(update: table_pb2.Update) -> Text:
    """The phase when the table waits for the viewer, in the second person: "Root to play" reads "Your turn
    to play", "Round 1: Root to move" reads "Round 1: your turn to move"."""
    name = seat_name(update, update.viewer_seat)
    phase = update.phase
    if person_language() != "en":  # the rewriting below knows English phases only
        text = Text(_("Your turn"), style="bold black on yellow")
        if phase and not phase.startswith(name):  # "Anna ist am Zug" only says the same again
            text.append(" · " + phase, style="bold")
        return text
    if f"{name} to " in phase:
        before, after = phase.split(f"{name} to ", 1)
        text = Text(before)
        text.append("your turn" if before else "Your turn", style="bold black on yellow")
        text.append(" to " + after, style="bold")
        return text
    text = Text(_("Your turn"), style="bold black on yellow")
    if phase:
        text.append(" · " + phase, style="bold")
    return text


def seats_line(update: table_pb2.Update) -> Text:
    """Who holds each seat, and who is away or disconnected: "Seats: Ann (you) · Bot 1 (hard bot) · open"."""
    line = Text(_("Seats: "), style="bold")
    for number, seat in enumerate(update.seats):
        if number:
            line.append(" · ")
        if seat.kind == table_pb2.SEAT_KIND_EMPTY:
            line.append(_("open"), style="dim")
            continue
        you = update.HasField("viewer_seat") and seat.index == update.viewer_seat
        line.append(seat.name or f"Player {seat.index + 1}", style="bold" if you else "")
        notes = [_("you")] if you else []
        if seat.kind == table_pb2.SEAT_KIND_BOT:  # a normal bot is just a bot; the others say how strong
            level = bot_level_name(seat.bot_level)
            notes.append(_("bot") if level == "normal" else _("easy bot") if level == "easy" else _("hard bot"))
        if seat.bot_controlled:
            notes.append(_("away: a bot plays for them"))
        elif seat.kind == table_pb2.SEAT_KIND_HUMAN and not seat.connected:
            notes.append(_("disconnected"))
        if notes:
            line.append(f" ({', '.join(notes)})", style="dim")
    return line


def _needs_seats(update: table_pb2.Update) -> bool:
    """The seats line is worth a line on a small screen: in the lobby, or when someone is away."""
    return update.status == table_pb2.TABLE_STATUS_LOBBY or any(
        seat.bot_controlled or (seat.kind == table_pb2.SEAT_KIND_HUMAN and not seat.connected) for seat in update.seats
    )


def fitted_keys(keys: Sequence[str], width: int) -> str:
    """The footer's key hints that fit `width`: the last one (how to leave) always, then the others in order
    while they fit, so a narrow terminal loses "a: auto", never "q: leave"."""
    *others, last = keys
    shown: list[str] = []
    for key in others:
        if len("   ".join([*shown, key, last])) <= width:
            shown.append(key)
    return "   ".join([*shown, last])


def _wrapped(text: Text, width: int, most: int) -> list[str]:
    """`text` on at most `most` lines of `width`, the last ending in "…" when some of it did not fit."""
    lines = _lines(text, width)
    if len(lines) <= most:
        return lines
    console = Console(width=width, force_terminal=True, color_system="256", legacy_windows=False)
    wrapped = text.wrap(console, width)
    kept = Text("\n").join(wrapped[: most - 1]) if most > 1 else Text()
    last = Text("").join(wrapped[most - 1 :]) if len(wrapped) >= most else Text()
    last.truncate(width, overflow="ellipsis")
    if not last.plain.endswith("…"):
        last.truncate(width - 1)
        last.append("…")
    return (_lines(kept, width) if most > 1 else []) + _lines(last, width)[:1]


def _lines(renderable: RenderableType, width: int) -> list[str]:
    """`renderable` drawn `width` wide, as lines of ANSI text."""
    out = io.StringIO()
    console = Console(
        file=out, width=width, force_terminal=True, color_system="256", highlight=False, legacy_windows=False
    )
    console.print(renderable, crop=True)
    return out.getvalue().rstrip("\n").split("\n") if out.getvalue() else []


def screen_lines(
    update: table_pb2.Update,
    log: Sequence[str | Text],
    menu: Sequence[Text],
    footer: Text,
    width: int,
    height: int,
    banner: str = "",
    now_ms: float | None = None,
    pick: TrackPick | None = None,
    mine: Sequence[str] = (),
    pause: Sequence[Text] | None = None,
) -> list[str]:
    """The whole screen as at most `height` lines of ANSI text, each at most `width` cells wide (`now_ms`:
    the time now, for the turn clock; `pick`: the places on the Kart track the menu's level stands for). A
    log line given as Text (the host's feed) keeps its own look (its maker scrubs it with `printable`).
    `mine`: what the viewer's last action did, kept in view above the log until they act again; `pause`:
    the hand or round that just ended, drawn in place of the game (pause.py)."""
    update = scrubbed(update)  # type: ignore[assignment]
    first = turn_line(update, banner, now_ms)
    finished = update.status == table_pb2.TABLE_STATUS_FINISHED and not banner
    if not finished:  # one line: a long table name loses its end, never the turn
        first.truncate(width, overflow="ellipsis")
    top = _wrapped(first, width, 3) if finished else _lines(first, width)[:1]
    if height >= ROOMY_HEIGHT or _needs_seats(update):
        top.extend(_lines(seats_line(update), width)[: 2 if height >= ROOMY_HEIGHT else 1])
    bottom = _lines(footer, width)[:1]
    menu_lines = [line for entry in menu for line in _lines(entry, width)]
    room = height - len(top) - len(bottom) - len(menu_lines) - MIN_LOG - 2
    game: list[str] = []
    if pause is not None:
        game = _pause_lines(pause, width, height - len(top) - len(bottom) - MIN_LOG - 2)
    elif finished and update.outcome.details:
        game = _account_lines(update.outcome.details, width, room)
    elif update.view.WhichOneof("game") is not None:
        game = _lines(render_game(update, compact=False, pick=pick), width) if height >= ROOMY_HEIGHT else []
        if game and len(game) > room and has_medium(update):
            game = _lines(render_game(update, pick=pick, medium=True), width)
        if not game or len(game) > room:
            game = _lines(render_game(update, compact=True, pick=pick), width)
        if len(game) > room:  # seats in fewer words, so every seat stays in view
            with tight():
                game = _lines(render_game(update, compact=True, pick=pick), width)
        if len(game) > room:  # last resort: keep the top of the drawing
            game = game[: max(0, room - 1)] + (["…"] if room > 0 else [])
    log_room = height - len(top) - len(bottom) - len(menu_lines) - len(game) - 2
    log_lines = _log_lines(log, mine, width, log_room)
    body = [*top, *game, "", *log_lines]
    filler = height - len(body) - len(menu_lines) - len(bottom) - 1
    return [*body, *([""] * max(0, filler)), "", *menu_lines, *bottom][:height]


def _pause_lines(pause: Sequence[Text], width: int, room: int) -> list[str]:
    """The pause screen's lines in a box within `room`: each on up to two lines, else one (with an
    ellipsis if cut), but the second (every seat's total) on up to three; if still too tall, its first
    lines and "…"."""
    for most in (2, 1):
        inner: list[str] = []
        for index, line in enumerate(pause):
            inner.extend(_wrapped(line, width - 4, 3 if index == 1 else most))
        if len(inner) + 2 <= room:
            break
    else:
        inner = [*inner[: max(1, room - 3)], "…"]
    return _lines(Panel(Text.from_ansi("\n".join(inner)), border_style="yellow", expand=False), width)


def _account_lines(details: Sequence[str], width: int, room: int) -> list[str]:
    """The game's own account of how it went (the outcome's details: UNO's hands, Level Up!'s rounds, ...)
    in a box within `room`, a line each (cut with an ellipsis); when they do not all fit, the newest ones,
    after a line saying how many earlier ones are left out."""
    fit = max(1, room - 3)  # the box's two borders and its heading
    shown = list(details[-fit:])
    heading = Text(_("How the game went"), style="bold")
    if len(shown) < len(details):
        heading.append(" " + _("(… {n} earlier)", n=len(details) - len(shown)), style="dim")
    inner = [_lines(heading, width - 4)[0]]
    for line in shown:
        text = Text(printable(line))
        text.truncate(width - 4, overflow="ellipsis")
        inner.append(_lines(text, width - 4)[0] if text.plain else "")
    return _lines(Panel(Text.from_ansi("\n".join(inner)), border_style="green", expand=False), width)


def _log_lines(log: Sequence[str | Text], mine: Sequence[str], width: int, room: int) -> list[str]:
    """The newest events that fit `room` lines under an "Events" heading, each on up to two lines (cut with
    an ellipsis); and above them, while they are not among those shown, what the viewer's own last action
    did ("You roll 5"), so it stays in view until their next turn."""
    if room <= 1:
        return []

    def drawn(event: str | Text, most: int) -> list[str]:
        line = Text("· ").append_text(event) if isinstance(event, Text) else Text("· " + printable(event))
        return _wrapped(line, width, most)

    events = list(log)
    shown_plain = {event.plain if isinstance(event, Text) else event for event in events[-(room - 1) :]}
    missing = [text for text in mine if text not in shown_plain]
    pinned: list[str] = []
    if missing:  # one line, before any older event: it stays until the viewer acts again
        line = Text(_("Your last move: "), style="bold cyan")
        line.append(" · ".join(printable(text) for text in missing[-2:]), style="cyan")
        pinned = _wrapped(line, width, 1)
    left = room - len(pinned) - 1
    body: list[str] = []
    for event in reversed(events):
        space = left - len(body)
        if space < 1:
            break
        body = drawn(event, min(2, space)) + body
    if not body:
        return pinned
    return [*pinned, *_lines(Text(_("Events"), style="bold dim"), width), *body]


def render_update(update: table_pb2.Update, log_lines: Sequence[Text], banner: str = "") -> RenderableType:
    """The screen for one update as one renderable, 120x50 (what tests and a plain console print)."""
    lines = screen_lines(update, [line.plain for line in log_lines], _plain_menu(update), Text(""), 120, 50, banner)
    return Text.from_ansi("\n".join(lines))


def _plain_menu(update: table_pb2.Update) -> list[Text]:
    from toadstool_clients.terminal.menu import Menu

    return Menu.for_update(scrubbed(update)).lines(120, one_per_line=True) if update.legal_actions else []  # type: ignore[arg-type]
