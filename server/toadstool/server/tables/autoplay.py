"""What the server plays by itself at a table: its bots' moves, the turn clock's default moves and the
takeover of seats whose person is away, as the tasks the registry runs for each playing table.

The rules stay in the engines and the validation ladder in `ladder`: these only choose when, and whose
move, and hand it to the group commit, the one way a move is written and applied.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from toadstool.engine import seat_ref
from toadstool.i18n import tr
from toadstool.server.records import DiskUnavailable
from toadstool.server.tables import hosting
from toadstool.server.tables.core import TIMEOUT_NOTE
from toadstool.server.tables.pacing import BUSY_LAG, Clock
from toadstool.server.tables.seats import SeatKind, Status
from toadstool.server.tables.table import Table

log = logging.getLogger(__name__)

#: How long a bot or a clock waits before it tries again a write the disk refused (full, read-only).
DISK_RETRY_SECONDS = 1.0


# -- bots ------------------------------------------------------------------------------------------


async def run_bots(table: Table) -> None:
    """Let bots act, one action per bot delay, until the game ends (a task per playing table).

    At a table where no seat is played by a bot, only a change of who plays which seat (a bot seated or
    taking over, the start, the end: `Table.wait_people`) can give it something to do, so the people's
    moves do not wake it: one task fewer woken by every move of a table of people."""
    while table.status is not Status.FINISHED:
        revision, people = table.revision, table.people_revision
        if not any(seat.played_by_bot for seat in table.seats):
            await table.wait_people(people)
            continue
        version = table.version
        if any(seat.played_by_bot and getattr(seat.bot, "plans", False) for seat in table.seats):
            # A planning (hard) bot thinks for its budget: in a thread, so other tables' moves go on.
            choice = await asyncio.to_thread(table.bot_choice)
        else:
            choice = table.bot_choice()
        if choice is None:
            await table.wait_change(revision)
            continue
        await _bot_pause(table)
        seat, action = choice
        if table.version != version or not table.seats[seat].played_by_bot:
            continue  # the table moved on while the bot was thinking: choose again
        try:
            # Applied when this turn's bot moves have been written together (or dropped, if the table
            # moves on first: then the bot chooses again).
            await table.moves.propose(table, seat, action, table.engine.apply(table.state, seat, action))
        except DiskUnavailable as error:  # the store has said so in the log, once: wait quietly
            table.disk_refused(str(error))
            await _wait_for_disk(table)
        except Exception:  # a bug: keep the table alive and try again later
            log.exception("table %s: a bot action could not be applied", table.table_id)
            await asyncio.sleep(1.0)


async def _bot_pause(table: Table) -> None:
    """The bot's delay, stretched while the server is overloaded.

    Without this, a server hosting more bot tables than it can play spends its time on moves nobody
    sees: streams skip versions, views per move fall, and new calls wait for the event loop (seen in
    bench/load.py with 500 tables of bots: under a view per move, and StartTable calls cancelled by
    gRPC after waiting 30 s to be taken). Two signs: the delay itself ends late (the event loop is
    behind: the bot waits as long again), or most streams are still sending (gRPC is behind: the
    beat is held, see `Beat`).
    """
    late = await table.beat.sleep(table.bot_delay)
    if late > BUSY_LAG:  # not held again: one move waits for the backlog at most once
        await table.beat.sleep(late, hold=False)


# -- clocks: the turn clock and takeover of seats whose person is away ---------------------------------


def _takeover_deadlines(table: Table) -> list[tuple[float, int]]:
    if not table.takeover_seconds or table.status is not Status.PLAYING:
        return []
    return [
        (seat.away_since + table.takeover_seconds, seat.index)
        for seat in table.seats
        if seat.kind is SeatKind.HUMAN and not seat.bot_controlled and seat.away_since is not None
    ]


def check_clocks(table: Table, now: float) -> tuple[int, Any] | None:
    """Hand away seats to bots, end a table nobody is at any more (`hosting.abandon_deadline`), and return
    the default move for a timed-out decision (seat, action), if one is due, for `run_clocks` to propose."""
    for deadline, index in _takeover_deadlines(table):
        if now >= deadline:
            table.bot_plays_for(
                index,
                tr("{seat} is away; a bot plays for them until they return", seat=seat_ref(index)),
                tr("{name} is away: a bot plays for them until they return", name=table.seats[index].name),
            )
    abandon = hosting.abandon_deadline(table)
    if abandon is not None and now >= abandon:
        hosting.end(table, hosting.abandoned_reason(table.abandon_seconds))
        return None
    turn = table.turn_deadline()
    if turn is None or now < turn:
        return None
    seat = table.waiting_people()[0]
    legal = table.engine.legal_actions(table.state, seat)
    bot = table.spec.smart_bot()
    view = table.engine.view(table.state, seat) if bot.needs_view else None
    return seat, bot.choose(view, legal, True, table.rng) or legal[0]


async def run_clocks(table: Table) -> None:
    """Sleep until the next clock deadline or change, then check the clocks (a task per timed table)."""
    while table.status is not Status.FINISHED:
        # Without a turn clock, only who is at the table moves a deadline: a move need not wake this task.
        revision, people = table.revision, None if table.turn_seconds else table.people_revision
        deadlines = [d for d, _ in _takeover_deadlines(table)]
        for deadline in (table.turn_deadline(), hosting.abandon_deadline(table)):
            if deadline is not None:
                deadlines.append(deadline)
        if not deadlines:
            await (table.wait_change(revision) if people is None else table.wait_people(people))
            continue
        await wait_change_until(table, revision, min(deadlines), people)
        try:
            timeout = check_clocks(table, table.now())
            if timeout is not None:  # written with this turn's other moves; dropped if the person acted first
                seat, action = timeout
                state = table.engine.apply(table.state, seat, action)
                await table.moves.propose(table, seat, action, state, "", note=TIMEOUT_NOTE)
        except DiskUnavailable as error:  # the table says so, once; wait quietly and try again
            table.disk_refused(str(error))
            await _wait_for_disk(table)
        except Exception:  # keep the clock alive; the next deadline tries again
            log.exception("table %s: a clock could not act", table.table_id)
            await asyncio.sleep(1.0)


async def wait_change_until(table: Table, revision: int, deadline: float, people: int | None = None) -> None:
    """Return at the table's next change (with `people`, the next change of who is at it) or once its clock
    reaches `deadline`, whichever comes first (what `asyncio.timeout_at` around `wait_change` does, on the
    table's clock)."""
    task = asyncio.current_task()
    assert task is not None
    clock: Clock = table.clock or asyncio.get_running_loop()
    cancelling = task.cancelling()
    expired = False

    def expire() -> None:
        nonlocal expired
        expired = True
        task.cancel()

    timer = clock.call_at(deadline, expire)
    try:
        await (table.wait_change(revision) if people is None else table.wait_people(people))
    except asyncio.CancelledError:
        if not expired or task.uncancel() > cancelling:
            raise  # cancelled from outside (the registry closing), not by the deadline
    finally:
        timer.cancel()


async def _wait_for_disk(table: Table) -> None:
    """Wait quietly before a bot or a clock tries a refused write again (sooner if the table changes)."""
    await wait_change_until(table, table.revision, table.now() + DISK_RETRY_SECONDS)
