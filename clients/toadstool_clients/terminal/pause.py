"""The pause screen between hands or rounds: what the hand or round that just ended did, shown until a key.

Bots play fast; the events that close a UNO hand, a Level Up! round or a Power Up round scroll past before
a person reads them. When an update starts a new hand or round, the terminal shows, in place of the board,
first each seat's points or Extra Lives and what changed, then the closing events (in the viewer's words),
until the person presses a key. It reads only the views (the hand or round number and the scores they
carry) and the events; it knows no rules. A round's closing events are the ones the server marks as its
result (`Event.round_result`), never found by their words, which are in the person's language. Kart is one
race: the game-over screen is its result.
"""

from __future__ import annotations

from rich.text import Text

from toadstool.api.v1 import table_pb2
from toadstool_clients.i18n import _
from toadstool_clients.names import seat_name
from toadstool_clients.terminal.events import in_your_words

#: The most closing events shown (the newest).
MOST_EVENTS = 6


def _number(update: table_pb2.Update) -> int | None:
    """The hand (UNO) or round (Level Up!, Power Up) an update is in; None for a game without them."""
    member = update.view.WhichOneof("game")
    if member == "uno":
        return update.view.uno.hand_number
    if member == "levelup":
        return update.view.levelup.round
    if member == "powerup":
        return update.view.powerup.round
    return None


def _who(update: table_pb2.Update, seat: int) -> str:
    you = update.HasField("viewer_seat") and seat == update.viewer_seat
    return _("you") if you else seat_name(update, seat)


def _totals(update: table_pb2.Update, before: list[int], after: list[int], unit: str) -> list[Text]:
    """Each seat's total now and its change, on lines of a few seats each (every seat named)."""
    cells = []
    for seat, total in enumerate(after):
        change = total - before[seat] if seat < len(before) else 0
        cell = Text(f"{_who(update, seat)} ", style="bold")
        cell.append(f"{total}")
        if change:
            cell.append(f" ({change:+})", style="bold green" if change > 0 else "bold red")
        cells.append(cell)
    line = Text(f"{unit}: ", style="bold cyan")
    for index, cell in enumerate(cells):
        if index:
            line.append(" · ")
        line.append_text(cell)
    return [line]


def round_ended(previous: table_pb2.Update, update: table_pb2.Update) -> list[Text] | None:
    """The pause screen's lines when `update` starts a new hand or round after `previous`, else None."""
    before, now = _number(previous), _number(update)
    if before is None or now is None or now <= before or before == 0:
        return None
    member = update.view.WhichOneof("game")
    said = [in_your_words(update, event) for event in update.events]
    result = [text for text, event in zip(said, update.events, strict=True) if event.round_result]
    lines: list[Text] = []
    if member == "uno":
        old, new = previous.view.uno, update.view.uno
        lines.append(Text(_("Hand {number} is over", number=before), style="bold yellow"))
        lines.extend(_totals(update, list(old.scores), list(new.scores), _("Points")))
        target = (
            _("Target {target} points (the lowest total wins)", target=new.target)
            if new.lowest_wins
            else _("Target {target} points (the first to reach it wins)", target=new.target)
        )
        lines.append(Text(target, style="dim"))
        closing = result or said
        lines.extend(Text(text) for text in closing[-MOST_EVENTS:])
    elif member == "levelup":
        old_up, new_up = previous.view.levelup, update.view.levelup
        lines.append(Text(_("Round {number} of 3 is over", number=before), style="bold yellow"))
        lines.extend(_totals(update, list(old_up.scores), list(new_up.scores), _("Points")))
        closing = result or said
        lines.extend(Text(text) for text in closing[-MOST_EVENTS:])
    elif member == "powerup":
        old_pu, new_pu = previous.view.powerup, update.view.powerup
        lines.append(Text(_("Round {number} is over", number=before), style="bold yellow"))
        old_lives = {seat.seat: seat.tokens for seat in old_pu.seats}
        lives = [seat.tokens for seat in sorted(new_pu.seats, key=lambda s: s.seat)]
        lines.extend(_totals(update, [old_lives.get(s, 0) for s in range(len(lives))], lives, _("Extra Lives")))
        lines.extend(Text(text) for text in (result[:MOST_EVENTS] if result else said[-MOST_EVENTS:]))
    return lines
