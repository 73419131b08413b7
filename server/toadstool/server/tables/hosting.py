"""What a table's host may do beyond filling its lobby (remove someone, let a bot play for someone now, end
the table, issue the token a hardware die rolls with), and how a table nobody is at any more ends by itself
(abandoned).

Kept beside `Table` rather than in it: these are the host's powers and the evening's housekeeping, not the
lifecycle every table goes through. Each checks, then changes the table in one transaction, tells the
table's watchers (a public note) and the host's log.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toadstool.engine import action_id, device_action_types, seat_ref
from toadstool.i18n import Text, tr, trn
from toadstool.server.tables.errors import ErrorKind, TableError, no_such_seat
from toadstool.server.tables.host_log import tell_host
from toadstool.server.tables.seats import SeatKind, Status, new_token, token_matches

if TYPE_CHECKING:
    from toadstool.server.tables.table import Table

#: Why a table its host ended is over (its outcome and its last event).
ENDED_BY_HOST = tr("The host ended the game")

#: How long a table waits, by default, once every person has gone, before it is ended as abandoned.
DEFAULT_ABANDON_SECONDS = 4 * 3600.0


def _person(table: Table, seat: int) -> str:
    """The name of the person at `seat`; refused when there is no such seat or no person in it."""
    if not 0 <= seat < table.players:
        raise TableError(ErrorKind.BAD_REQUEST, no_such_seat(seat, table.players))
    if table.seats[seat].kind is not SeatKind.HUMAN:
        raise TableError(ErrorKind.BAD_REQUEST, tr("seat {seat} holds no person", seat=seat))
    if table.status is Status.FINISHED:
        raise TableError(ErrorKind.GAME_OVER, tr("the game at table {table} is over", table=table.table_id))
    return table.seats[seat].name


def kick(table: Table, seat: int) -> None:
    """The host removes a seat's holder: their token stops working; a bot plays on in a running game."""
    name = _person(table, seat)
    with table.one_write():
        table.leave(seat, quietly=True)
        if table.seats[seat].name == name:  # a running game: the seat keeps its name, a bot plays it
            table.note(tr("The host removed {seat} from the table; a bot plays their seat", seat=seat_ref(seat)))
        else:  # the lobby: the seat is empty now, so the note names them itself (braces cannot name a seat)
            table.note(tr("The host removed {name} from the table", name=name.replace("{", "(")))
    tell_host(table, tr("the host removed {name} (seat {seat})", name=name, seat=seat))


def hand_to_bot(table: Table, seat: int) -> None:
    """A bot plays the person's seat now, until they come back (their next action or connection), as if
    they had been away for the takeover grace: for a friend who stepped away with their client open."""
    name = _person(table, seat)
    if table.status is not Status.PLAYING:
        raise TableError(
            ErrorKind.NOT_PLAYING,
            tr(
                "table {table} has not started: a bot can play a seat once the game runs "
                "(in the lobby, remove the person or add a bot to an open seat)",
                table=table.table_id,
            ),
        )
    held = table.seats[seat]
    if held.bot_controlled:
        raise TableError(
            ErrorKind.BAD_REQUEST, tr("a bot already plays the seat of {name} until they are back", name=name)
        )
    table.bot_plays_for(
        seat,
        tr("The host let a bot play for {seat} until they are back", seat=seat_ref(seat)),
        tr("a bot plays for {name} (seat {seat}) until they are back", name=name, seat=seat),
    )


def end(table: Table, reason: str) -> None:
    """End the table now, in the lobby or in play, for `reason` (its outcome says it; nobody wins): it leaves
    the live tables, its history stays, and every stream gets its last update."""
    table.end(reason)


def abandoned_reason(seconds: float) -> Text:
    """What an abandoned table's outcome says, with the wait in words a person reads at a glance."""
    hours, minutes = divmod(round(seconds / 60), 60)
    if seconds < 60:
        n = round(seconds)
        return trn(
            "Abandoned: nobody was at the table for {n} second", "Abandoned: nobody was at the table for {n} seconds", n
        )
    if hours and not minutes:
        return trn(
            "Abandoned: nobody was at the table for {n} hour", "Abandoned: nobody was at the table for {n} hours", hours
        )
    return trn(
        "Abandoned: nobody was at the table for {n} minute",
        "Abandoned: nobody was at the table for {n} minutes",
        round(seconds / 60),
    )


def abandon_deadline(table: Table) -> float | None:
    """The table's time (`now`) it is ended as abandoned, if it would be: when no person is connected to it,
    `abandon_seconds` after the last one was (or after it was made). A game of bots alone is never
    abandoned: it ends by itself."""
    if not table.abandon_seconds or table.status is Status.FINISHED:
        return None
    people = [seat for seat in table.seats if seat.kind is SeatKind.HUMAN]
    if any(seat.connections for seat in people) or (not people and table.status is Status.PLAYING):
        return None
    return table.people_seen + table.abandon_seconds


def issue_device_token(table: Table) -> str:
    """A new device token for this table (replacing any earlier one): it may only roll dice."""
    token, digest = new_token()
    table.set_device_token(digest)
    return token


def device_move(table: Table, token: str) -> tuple[int, str]:
    """The seat a hardware button acts for and the id of the roll it makes: the seat the game waits for, if
    it may roll now (an action of one of the engine's `device_action_types`).

    Devices get exactly one power, rolling for whoever must roll; anything else is refused.
    """
    if not token_matches(token, table.device_token_hash):
        raise TableError(
            ErrorKind.UNAUTHENTICATED,
            tr("that device token is not valid at table {table}; ask its host", table=table.table_id),
        )
    if table.status is not Status.PLAYING:
        raise TableError(ErrorKind.NOT_PLAYING, tr("table {table} is not being played", table=table.table_id))
    kinds = device_action_types(table.engine)
    for seat in table.engine.to_act(table.state):
        for action in table.engine.legal_actions(table.state, seat):
            if isinstance(action, kinds):
                return seat, action_id(action)
    raise TableError(ErrorKind.NOT_LEGAL, tr("nobody can roll right now; press the button when it is a roll"))
