"""A person's action at a table: the validation ladder in front of it (what `act` checks, in order, and the
one answer or refusal for each rung), then its proposal to the group commit, answered once it is written.

Not for applying the move (the group commit lands it on the table: toadstool.server.tables.group_commit)
nor for the table and token, which the caller (toadstool.server.service) has checked first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toadstool.engine import listing, name_seats, preview
from toadstool.i18n import tr
from toadstool.server.records import DiskUnavailable
from toadstool.server.tables.action_ids import id_of
from toadstool.server.tables.errors import ErrorKind, TableError
from toadstool.server.tables.seats import AppliedRequest, Status

if TYPE_CHECKING:
    from toadstool.server.tables.table import Table

#: How many times `act` proposes one move whose group commit dropped it with the table unchanged (each
#: time another move of the table, written first, failed): a bound that a live table never reaches.
MAX_PROPOSALS = 8


async def act(table: Table, seat: int, wanted: str, expected_version: int, request_id: str) -> tuple[int, bool]:
    """Apply the action with id `wanted` for `seat` if the ladder (`checked`) accepts it; return (new
    version, replayed) once it is on disk. It is written with the other moves of its loop turn
    (`GroupCommit`); if it was dropped there (another move of this table came first, the host ended the
    table), the ladder answers again as the table now stands: replayed, refused, or (another's move
    failed to be written, and the table is unchanged) proposed once more."""
    holder = table.seats[seat]
    for _ in range(MAX_PROPOSALS):
        action = checked(table, seat, wanted, expected_version, request_id)
        if isinstance(action, AppliedRequest):
            return action.version, True
        state = table.engine.apply(table.state, seat, action)
        try:
            version = await table.moves.propose(table, seat, action, state, request_id)
        except DiskUnavailable as error:
            table.disk_refused(error)
            raise
        if version is not None:
            return version, False
        if table.seats[seat] is not holder:  # removed by the host, or left, while the move waited
            raise TableError(
                ErrorKind.NOT_YOUR_SEAT, tr("seat {seat} is no longer yours; nothing was played", seat=seat)
            )
    raise TableError(
        ErrorKind.STALE_VERSION, tr("the table kept changing while your action waited; look at the latest view")
    )


def checked(table: Table, seat: int, wanted: str, expected_version: int, request_id: str) -> Any:
    """The validation ladder (table and token were checked by the caller): a request id seen before (same
    action: the `AppliedRequest` it was, answered again, never applied twice), the game running, the
    action legal now, the version current or, in a decision the seat still owes, one it saw while owing it
    (`_still_deciding`). Returns the action to apply; a refusal raises `TableError`
    and changes nothing."""
    if request_id and request_id in table.requests:
        prior = table.requests[request_id]
        if prior.seat == seat and prior.action_id == wanted:
            return prior
        raise TableError(
            ErrorKind.DUPLICATE_REQUEST,
            tr(
                "request id {request} was already used for another action; use a fresh id per action",
                request=preview(request_id),
            ),
        )
    if table.status is Status.LOBBY:
        raise TableError(ErrorKind.NOT_PLAYING, tr("table {table} has not started yet", table=table.table_id))
    if table.status is Status.FINISHED:
        raise TableError(ErrorKind.GAME_OVER, tr("the game at table {table} is over", table=table.table_id))
    if table.seats[seat].bot_controlled:  # they act: they are back, so they play their seat again
        table.reclaim(table.seats[seat])
        table.touch()
    legal = table.engine.legal_actions(table.state, seat)
    action = next((a for a in legal if id_of(a) == wanted), None)
    if action is None:
        if not legal:
            refusal = tr("that action is not legal now (you have nothing to do right now; wait for your turn)")
        else:
            names = table.names()
            refusal = tr(
                "that action is not legal now (your legal actions now: {actions})",
                actions=listing((name_seats(table.engine.describe(table.state, seat, a), names) for a in legal), "; "),
            )
        raise TableError(ErrorKind.NOT_LEGAL, refusal)
    if expected_version != table.version and not _still_deciding(table, seat, expected_version):
        raise TableError(
            ErrorKind.STALE_VERSION,
            tr(
                "you acted on version {acted} but the table is at version {version}; "
                "look at the latest view and act again",
                acted=expected_version,
                version=table.version,
            ),
        )
    return action


def _still_deciding(table: Table, seat: int, expected_version: int) -> bool:
    """Whether `seat` acted on a version within the decision it still owes: it has owed a decision since that
    version or earlier, and every move since was another seat's (a simultaneous decision such as Level Up!'s
    vote, where everyone else's vote raises the version but changes nothing this seat decides on).

    Its action is legal now (checked before), so it is accepted: a vote sent a moment after another's is
    never refused for being a moment late. A seat whose own decision the table moved past (it acted, or its
    turn ended and came back) owes it since a later version, and a stale action is refused as before.
    """
    since = table.owing_since.get(seat)
    return since is not None and since <= expected_version < table.version
