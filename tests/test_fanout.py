"""How a table wakes what waits on it: streams between messages (`Table.next_change`, `Table.wait_change`)
and bots between moves (`Beat`). Both replace per-waiter asyncio primitives for speed (bench/load.py), so
these pin down what the primitives gave for free: every waiter wakes, a cancelled waiter neither wakes nor
stops the others, and nothing is kept for waiters that went away."""

from __future__ import annotations

import asyncio

import pytest
from timing import Clock, turns, until

from toadstool.server.app import RunningServer
from toadstool.server.tables import (
    BACKLOG_RECHECK,
    BEAT_SECONDS,
    MAX_BOT_WAIT,
    STUCK_AFTER,
    Backlog,
    Beat,
    Table,
    TableRegistry,
)
from toadstool_clients.connection import Client


class LoopTurns:
    """Counts turns of the event loop, so a test can tell whether two things ran in the same turn."""

    def __init__(self) -> None:
        self.count = 0
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while True:
            self.count += 1
            await asyncio.sleep(0)

    def stop(self) -> None:
        self._task.cancel()


async def test_sleepers_due_in_the_same_beat_wake_in_the_same_turn_and_never_early() -> None:
    clock = Clock()
    beat = Beat(clock=clock)
    turns_seen = LoopTurns()
    woke: dict[float, tuple[float, float, int]] = {}

    async def sleeper(delay: float) -> None:
        late = await beat.sleep(delay)
        woke[delay] = (clock.now, late, turns_seen.count)

    asked = clock.now
    delays = [0.010 + i * 0.0007 for i in range(12)]  # spread over about two beats
    sleepers = [asyncio.create_task(sleeper(d)) for d in delays]
    await turns()
    assert len(clock.pending()) < len(delays), "a timer per sleeper, not per beat"
    while clock.pending():  # the loop on time: each beat's timer at its time, then its sleepers run
        clock.tick()
        await turns()
    await asyncio.gather(*sleepers)
    turns_seen.stop()
    by_beat: dict[float, set[int]] = {}
    for delay in delays:
        at, late, turn = woke[delay]
        assert at >= asked + delay, "a bot moved before its delay was over"
        assert at < asked + delay + BEAT_SECONDS + 1e-9, "a delay was stretched by more than a beat"
        assert late == 0, "a sleeper woken on time said it ran late"
        by_beat.setdefault(at, set()).add(turn)
    assert len(by_beat) < len(delays), "no two sleepers shared a beat"
    assert all(len(turns_of_beat) == 1 for turns_of_beat in by_beat.values()), f"one beat, several turns: {by_beat}"


async def test_a_cancelled_sleeper_does_not_stop_the_others() -> None:
    clock = Clock()
    beat = Beat(clock=clock)
    done: list[str] = []

    async def sleeper(name: str) -> None:
        await beat.sleep(0.02)
        done.append(name)

    first, second, third = (asyncio.create_task(sleeper(n)) for n in ("first", "second", "third"))
    await turns()
    second.cancel()
    await turns()
    clock.advance(0.03)
    await asyncio.wait_for(asyncio.gather(first, third), 10)
    assert sorted(done) == ["first", "third"]
    assert second.cancelled()
    assert not beat._due, "a beat kept its sleepers after waking them"


async def test_a_sleeper_woken_late_says_how_late() -> None:
    clock = Clock()
    beat = Beat(clock=clock)
    task = asyncio.create_task(beat.sleep(0.005))
    await turns()  # the sleeper has taken its beat, 0.005 to 0.01 s from now
    clock.now += 0.06  # the event loop held up, as on an overloaded server: no timer ran meanwhile
    clock.advance(0)  # and the beat's timer runs now, late
    late = await asyncio.wait_for(task, 10)
    assert 0.06 - 0.005 - BEAT_SECONDS - 1e-9 <= late <= 0.06 - 0.005 + 1e-9, late
    task = asyncio.create_task(beat.sleep(0.005))  # and on time when nothing holds the loop up
    await turns()
    clock.tick()
    assert await asyncio.wait_for(task, 10) == 0


async def test_no_delay_asked_is_no_beat_but_still_says_how_late_the_loop_is() -> None:
    clock = Clock()
    beat = Beat(clock=clock)

    async def a_whole_game() -> list[float]:  # whole games in the tests run with no bot delay
        return [await beat.sleep(0) for _ in range(200)]

    game = asyncio.create_task(a_whole_game())
    await until(game.done)  # the clock stands still: a sleeper that waited for a beat would never wake
    assert game.result() == [0] * 200
    assert not clock.pending(), "a sleep with no delay set a timer"
    assert not beat._due
    # A bot with no delay on an overloaded server must still notice the loop is behind, and give way.
    task = asyncio.create_task(beat.sleep(0))
    await asyncio.sleep(0)  # the sleeper has started its turn
    clock.now += 0.05  # and that turn of the loop took 0.05 s
    assert await asyncio.wait_for(task, 10) == pytest.approx(0.05)


def test_a_beat_and_a_table_outlive_their_first_event_loop() -> None:
    # Tests and programs embedding the server may run several event loops one after the other.
    beat = Beat()
    asyncio.run(beat.sleep(0.001))
    assert asyncio.run(beat.sleep(0.001)) >= 0

    async def quiet_table() -> Table:
        async with TableRegistry(bot_delay=0.0) as registry:
            table, _ = registry.create("uno", 2, manual_start=True)
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(table.wait_change(table.revision), 0.01)
            return table

    table = asyncio.run(quiet_table())

    async def change_it() -> None:
        waiting = asyncio.create_task(table.wait_change(table.revision))
        await asyncio.sleep(0)
        table.touch()
        await asyncio.wait_for(waiting, 1)

    asyncio.run(change_it())


async def test_every_stream_waiting_on_a_table_wakes_and_a_cancelled_one_is_not_kept() -> None:
    async with TableRegistry(bot_delay=0.0) as registry:
        table, _ = registry.create("uno", 2, manual_start=True)
        await asyncio.sleep(0.05)
        revision = table.revision
        own = len(table._changed)  # the table's own tasks (its bots' and clocks') wait on it too
        waiters = [asyncio.create_task(table.wait_change(revision)) for _ in range(5)]
        await asyncio.sleep(0)
        waiters[2].cancel()
        await asyncio.sleep(0)
        assert len(table._changed) == own + 4, "a stream that went away stays registered until the next change"
        table.add_bot(None)  # any change
        done, pending = await asyncio.wait(waiters, timeout=5)
        assert not pending
        assert waiters[2].cancelled()
        assert all(w.exception() is None for w in done if w is not waiters[2])
        await asyncio.sleep(0.05)
        assert len(table._changed) == own, "the table's own tasks wait again; nothing else is kept"
        # A stream whose revision is already behind returns at once, without waiting.
        await asyncio.wait_for(table.wait_change(revision), 1)


async def test_many_streams_coming_and_going_on_a_quiet_table_leave_nothing_behind() -> None:
    async with TableRegistry(bot_delay=0.0) as registry:
        table, _ = registry.create("uno", 2, manual_start=True)
        await asyncio.sleep(0.05)
        own = len(table._changed)
        for _ in range(50):
            tasks = [asyncio.create_task(table.wait_change(table.revision)) for _ in range(20)]
            await asyncio.sleep(0)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        assert len(table._changed) == own
        with pytest.raises(TimeoutError):  # and a quiet table still makes its streams wait
            await asyncio.wait_for(table.wait_change(table.revision), 0.05)


async def test_watch_streams_cancelled_while_waiting_on_a_quiet_table_leave_nothing_behind(
    server: RunningServer, client: Client
) -> None:
    # A real Watch waits on the table's change future itself (`Table.next_change`), not through
    # `wait_change`: a stream that goes away while waiting must take its future with it, or a quiet table
    # (a lobby nobody joins) would keep one for every reconnect of the evening.
    created = await client.create_table("uno", 2, manual_start=True)
    await client.join(created.table.table_id, "Ann")
    table = server.registry.tables[created.table.table_id]
    await turns()
    own = len(table._changed)
    for _ in range(5):
        # Onlookers' streams: a seat's connecting and going would change the table, waking every stream.
        calls = [client.watch(created.table.table_id) for _ in range(10)]
        for call in calls:
            await asyncio.wait_for(call.read(), 10)  # each stream sent its first update and now waits
        await until(lambda: len(table._changed) == own + 10)
        for call in calls:
            call.cancel()
        await until(lambda: len(table._changed) == own)
    # A stream opened now still waits, and wakes at the next change.
    call = client.watch(created.table.table_id)
    first = await asyncio.wait_for(call.read(), 10)
    assert [seat.name for seat in first.update.seats] == ["Ann", ""], first.update.seats
    await client.add_bot(created.table.table_id, created.host_token)
    second = await asyncio.wait_for(call.read(), 10)
    assert [seat.name for seat in second.update.seats] == ["Ann", "Bot 1"], second.update.seats
    call.cancel()


def behind_backlog(clock: Clock) -> tuple[Backlog, list[int]]:
    """A backlog with most of its streams still sending: the server is behind."""
    backlog = Backlog(open=100, clock=clock)
    sends = [backlog.start_sending() for _ in range(60)]
    assert backlog.behind()
    return backlog, sends


async def test_a_beat_that_comes_while_the_server_is_behind_waits_for_it_to_catch_up() -> None:
    clock = Clock()
    backlog, sends = behind_backlog(clock)
    beat = Beat(backlog, clock)
    sleepers = [asyncio.create_task(beat.sleep(delay)) for delay in (0.001, 0.004, 0.0)]
    free = [asyncio.create_task(beat.sleep(delay, hold=False)) for delay in (0.001, 0.0)]
    await turns()
    clock.advance(0.1)  # many beats
    await turns()
    assert not any(s.done() for s in sleepers), "a bot moved while the server was behind"
    # A bot's second wait (its delay ended late) is never held: one move waits for the backlog only once.
    assert all(s.done() for s in free), "a sleeper that must not be held was held"
    for period in sends[:9]:  # 51 of 100 still sending: behind
        backlog.done_sending(period)
    clock.advance(0.02)
    await turns()
    assert not any(s.done() for s in sleepers)
    backlog.done_sending(sends[9])  # 50 of 100: no longer behind
    await turns(3)  # woken by that send itself, not by a timer: within a turn or two of the loop
    assert all(s.done() for s in sleepers), "the sleepers were not woken when the server caught up"
    # How late a sleeper ran counts from when it was let go, not from its beat (0.12 s before): being held
    # is not the event loop being behind, and would make the bot wait as long again.
    assert [s.result() for s in sleepers] == [0, 0, 0]
    assert not beat._held
    # Caught up, beats come on time again.
    task = asyncio.create_task(beat.sleep(0.002))
    await turns()
    clock.tick()
    assert await asyncio.wait_for(task, 10) == 0


async def test_a_held_beat_is_let_go_when_stuck_sends_stop_counting() -> None:
    # A client that stopped reading: its sends never finish, so no finished send says the server caught up.
    clock, sends_clock = Clock(), Clock()
    backlog, _ = behind_backlog(sends_clock)
    beat = Beat(backlog, clock)
    sleeper = asyncio.create_task(beat.sleep(0.001))
    await turns()
    clock.advance(1.0)  # beats and looks come and go (less than MAX_BOT_WAIT): the server is still behind
    await turns()
    assert not sleeper.done()
    sends_clock.now += 2 * STUCK_AFTER + 0.01  # those sends are a stalled client's now, not a busy server's
    await turns()
    assert not sleeper.done(), "let go before the beat looked again"
    clock.advance(BACKLOG_RECHECK)  # its next look finds the server caught up
    await turns()
    assert sleeper.done(), "a held beat waited for a send to finish that never will"


async def test_a_bot_never_waits_for_the_backlog_longer_than_its_limit() -> None:
    clock = Clock()
    backlog, _ = behind_backlog(Clock())  # and it stays behind: its clock never lets the sends age out
    beat = Beat(backlog, clock)
    first = asyncio.create_task(beat.sleep(0.001))
    await turns()
    clock.tick()  # its beat comes, and is held
    (first_held,) = beat._held
    clock.advance(MAX_BOT_WAIT * 0.75)
    second = asyncio.create_task(beat.sleep(0.001))
    await turns()
    while len(beat._held) < 2:
        clock.tick()
    second_held = beat._held[1]
    let_go: dict[str, float] = {}
    for _ in range(200):  # the loop on time, until both are let go
        clock.tick()
        await turns()
        for name, task in (("first", first), ("second", second)):
            if task.done():
                let_go.setdefault(name, clock.now)
        if len(let_go) == 2:
            break
    assert len(let_go) == 2, "a held beat was never let go"
    for name, held in (("first", first_held), ("second", second_held)):
        assert held.due + MAX_BOT_WAIT <= let_go[name] <= held.due + MAX_BOT_WAIT + BACKLOG_RECHECK, (name, let_go)
    assert let_go["first"] < let_go["second"], "a beat held for less than the limit was let go with an older one"
    assert not beat._held


async def test_a_cancelled_held_sleeper_does_not_stop_the_others_and_is_not_kept() -> None:
    clock = Clock()
    backlog, sends = behind_backlog(clock)
    beat = Beat(backlog, clock)
    sleepers = [asyncio.create_task(beat.sleep(0.001)) for _ in range(3)]
    await turns()
    clock.advance(0.02)
    sleepers[1].cancel()
    await turns()
    assert sum(len(s.sleepers) for s in beat._held) == 2
    for period in sends:
        backlog.done_sending(period)
    await asyncio.wait_for(asyncio.gather(sleepers[0], sleepers[2]), 10)
    assert sleepers[1].cancelled()
    assert not beat._held
