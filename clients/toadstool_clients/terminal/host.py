"""The host's controls in the terminal: a short menu (key h) of what the table's host may do now.

Offered only to a client holding the table's host token: start now (lobby), add a bot (lobby, an open
seat), change a bot's level (each choice moves it on: easy, normal, hard, easy ...), remove a seat (lobby:
the seat empties; in play: a bot plays it for good), let a bot play a seat (in play: until that person
comes back) and end the table. A control that needs a seat asks for it from a short menu of the seats it
may apply to; removing a seat and ending the table are asked about first. The menu only says what to do;
the server decides and refuses anyone else (its message is shown as it is).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from rich.text import Text

from toadstool.api.v1 import table_pb2
from toadstool_clients.connection import Client
from toadstool_clients.i18n import N_, _, n_
from toadstool_clients.names import bot_level_name


class Control(Enum):
    """One host control, with the words it is offered under."""

    START = N_("Start now")
    ADD_BOT = N_("Add a bot")
    BOT_LEVEL = N_("Change a bot's level")
    KICK = N_("Remove a seat")
    HAND_TO_BOT = N_("Let a bot play a seat")
    END = N_("End the table")


#: Controls a person is asked about before they are done: they cannot be taken back.
CONFIRMED = frozenset({Control.KICK, Control.END})


@dataclass(frozen=True)
class HostCall:
    """What the host chose: a control and, for one that needs it, the seat."""

    control: Control
    seat: int | None = None
    #: For BOT_LEVEL: the level to set (service.proto's BotLevel).
    level: int = 0


def next_level(level: int) -> int:
    """The level after `level` in the cycle easy, normal, hard, easy (0, unspecified, is normal)."""
    return (level or 2) % 3 + 1


def _seat_label(update: table_pb2.Update, seat: table_pb2.Seat) -> str:
    return seat.name or _("Player {number}", number=seat.index + 1)


def seat_entries(update: table_pb2.Update, control: Control) -> list[tuple[str, int]]:
    """(label, seat) for each seat `control` may apply to now, in seat order: a bot for an open seat, a
    person's seat to remove or hand to a bot (a bot's seat is no person's: the server refuses those); the
    host's own seat is never offered (leaving is `q`)."""
    mine = update.viewer_seat if update.HasField("viewer_seat") else None
    lobby = update.status == table_pb2.TABLE_STATUS_LOBBY
    entries: list[tuple[str, int]] = []
    for seat in update.seats:
        name = _seat_label(update, seat)
        if control is Control.ADD_BOT and seat.kind == table_pb2.SEAT_KIND_EMPTY:
            entries.append((_("A bot in seat {number}", number=seat.index + 1), seat.index))
        elif seat.index == mine or seat.kind == table_pb2.SEAT_KIND_EMPTY:
            continue
        elif control is Control.BOT_LEVEL and seat.kind == table_pb2.SEAT_KIND_BOT:
            now, then = _(bot_level_name(seat.bot_level)), _(bot_level_name(next_level(seat.bot_level)))
            entries.append((_("{name} ({now}) → {then}", name=name, now=now, then=then), seat.index))
        elif control is Control.KICK and seat.kind == table_pb2.SEAT_KIND_HUMAN:
            label = _("Remove {name}", name=name) if lobby else _("Remove {name} (a bot plays on)", name=name)
            entries.append((label, seat.index))
        elif (
            control is Control.HAND_TO_BOT
            and not lobby
            and seat.kind == table_pb2.SEAT_KIND_HUMAN
            and not seat.bot_controlled
        ):
            entries.append((_("Let a bot play {name}'s seat", name=name), seat.index))
    return entries


def controls(update: table_pb2.Update) -> list[Control]:
    """The controls that apply to the table now (none once it is finished)."""
    if update.status == table_pb2.TABLE_STATUS_LOBBY:
        offered = [Control.START, Control.ADD_BOT, Control.BOT_LEVEL, Control.KICK, Control.END]
    elif update.status == table_pb2.TABLE_STATUS_PLAYING:
        offered = [Control.BOT_LEVEL, Control.KICK, Control.HAND_TO_BOT, Control.END]
    else:
        return []
    return [c for c in offered if c in (Control.START, Control.END) or seat_entries(update, c)]


def question(update: table_pb2.Update, call: HostCall) -> str:
    """What the host is asked before a confirmed control is done."""
    if call.control is Control.END:
        return _("End the table for everyone now?")
    seat = next((s for s in update.seats if s.index == call.seat), None)
    name = _seat_label(update, seat) if seat is not None else _("seat {number}", number=(call.seat or 0) + 1)
    if update.status == table_pb2.TABLE_STATUS_LOBBY:
        return _("Remove {name} from the table?", name=name)
    return _("Remove {name}? A bot plays their seat from now on.", name=name)


@dataclass
class HostMenu:
    """Where the host is in the host menu: the controls, a control's seats, or the question before one."""

    update: table_pb2.Update
    control: Control | None = None
    asking: HostCall | None = None
    highlighted: int = 0
    typed: str = field(default="")

    def entries(self) -> list[tuple[str, Control | int]]:
        """(label, what choosing it means) at this level: a control, or a seat of the chosen control."""
        if self.control is None:
            open_seats = sum(1 for seat in self.update.seats if seat.kind == table_pb2.SEAT_KIND_EMPTY)
            fill = (
                " " + n_("(bots take the {n} open seat)", "(bots take the {n} open seats)", open_seats)
                if open_seats
                else ""
            )
            return [
                (
                    _(control.value) + (fill if control is Control.START else "" if control is Control.END else " ▸"),
                    control,
                )
                for control in controls(self.update)
            ]
        return [(label, seat) for label, seat in seat_entries(self.update, self.control)]

    def refreshed(self, update: table_pb2.Update) -> HostMenu:
        """The same place in the menu for a newer update, as far as it still applies."""
        self.update = update
        if self.control is not None and self.control not in controls(update):
            self.control, self.asking, self.highlighted = None, None, 0
        self.highlighted = min(self.highlighted, max(0, len(self.entries()) - 1))
        return self

    def move(self, delta: int) -> None:
        entries = self.entries()
        if entries:
            self.highlighted = (self.highlighted + delta) % len(entries)

    def type_digit(self, digit: str) -> None:
        if digit.isdigit() and 1 <= int(digit) <= len(self.entries()):
            self.highlighted = int(digit) - 1

    def back(self) -> bool:
        """Up one level; False when at the top (the menu closes)."""
        if self.asking is not None:
            self.asking = None
            return True
        if self.control is not None:
            self.highlighted = (
                max(0, controls(self.update).index(self.control)) if self.control in controls(self.update) else 0
            )
            self.control = None
            return True
        return False

    def choose(self) -> HostCall | None:
        """Enter: into a control's seats, to its question, or the call to make (None: not yet)."""
        entries = self.entries()
        if not entries:
            return None
        _, chosen = entries[min(self.highlighted, len(entries) - 1)]
        if isinstance(chosen, Control):
            if chosen in (Control.START, Control.END):
                return self._asked(HostCall(chosen))
            self.control, self.highlighted = chosen, 0
            return None
        assert self.control is not None
        if self.control is Control.BOT_LEVEL:
            seat = next(s for s in self.update.seats if s.index == chosen)
            return HostCall(self.control, chosen, next_level(seat.bot_level))
        return self._asked(HostCall(self.control, chosen))

    def _asked(self, call: HostCall) -> HostCall | None:
        if call.control in CONFIRMED:
            self.asking = call
            return None
        return call

    def answer(self, yes: bool) -> HostCall | None:
        """The reply to the question: the call when yes, else back to where it was asked."""
        call, self.asking = self.asking, None
        return call if yes else None

    def lines(self, width: int) -> list[Text]:
        """The host menu as lines no wider than `width`."""
        if self.asking is not None:
            line = Text(
                _("Host: {question}", question=question(self.update, self.asking)) + "  ", style="bold white on red"
            )
            line.append(_("y: yes   n: no"), style="bold white on red")
            line.truncate(width, overflow="ellipsis")
            return [line]
        heading = Text(
            _("Host controls: {control}", control=_(self.control.value)) if self.control else _("Host controls"),
            style="bold white on blue",
        )
        heading.append("  " + _("(Esc: back, h: close)"), style="dim")
        lines = [heading]
        entries = self.entries()
        if not entries:
            lines.append(Text(_("Nothing to do now."), style="dim"))
        for number, (label, _chosen) in enumerate(entries, start=1):
            mark = "›" if number - 1 == self.highlighted else " "  # noqa: RUF001 (a pointer, seen in text captures)
            cell = Text(f"{mark}{number} ", style="bold cyan")
            cell.append(label, style="reverse" if number - 1 == self.highlighted else "")
            cell.truncate(width, overflow="ellipsis")
            lines.append(cell)
        for line in lines:
            line.truncate(width, overflow="ellipsis")
        return lines


async def perform(client: Client, table_id: str, host_token: str, call: HostCall) -> None:
    """Make the call the host chose (the server's refusal is raised as its gRPC error)."""
    if call.control is Control.START:
        await client.start_now(table_id, host_token)
    elif call.control is Control.ADD_BOT:
        await client.add_bot(table_id, host_token, call.seat)
    elif call.control is Control.BOT_LEVEL:
        assert call.seat is not None
        await client.set_bot_level(table_id, host_token, call.seat, call.level)
    elif call.control is Control.KICK:
        assert call.seat is not None
        await client.kick(table_id, host_token, call.seat)
    elif call.control is Control.HAND_TO_BOT:
        assert call.seat is not None
        await client.hand_to_bot(table_id, host_token, call.seat)
    else:
        await client.end_table(table_id, host_token)
