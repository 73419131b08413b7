"""How a table wakes what waits on it: streams between messages (`Table.wait_change`) and bots between
moves (`Beat`). Both replace per-waiter asyncio primitives for speed (bench/load.py), so these pin down
what the primitives gave for free: every waiter wakes, a cancelled waiter neither wakes nor stops the
others, and nothing is kept for waiters that went away."""

from __future__ import annotations

import asyncio
import time

import pytest
from timing import Clock

from toadstool.tables import (
    BACKLOG_RECHECK,
    BEAT_SECONDS,
    STUCK_AFTER,
    Backlog,
    Beat,
    Table,
    TableRegistry,
    pacing,
)


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
    beat = Beat()
    turns = LoopTurns()
    loop = asyncio.get_running_loop()
    woke: dict[float, tuple[float, float, float, int]] = {}

    async def sleeper(delay: float) -> None:
        asked = loop.time()
        late = await beat.sleep(delay)
        woke[delay] = (asked, loop.time(), late, turns.count)

    delays = [0.010 + i * 0.0007 for i in range(12)]  # spread over about two beats
    await asyncio.gather(*(sleeper(d) for d in delays))
    turns.stop()
    by_beat: dict[int, set[int]] = {}
    for delay in delays:
        asked, at, late, turn = woke[delay]
        assert at >= asked + delay, "a bot moved before its delay was over"
        assert late >= 0
        beat_at = at - late  # the beat this sleeper slept until (it may be woken a little after it)
        assert beat_at < asked + delay + BEAT_SECONDS + 1e-6, "a delay was stretched by more than a beat"
        by_beat.setdefault(round(beat_at / BEAT_SECONDS), set()).add(turn)
    assert len(by_beat) < len(delays), "no two sleepers shared a beat"
    assert all(len(turns_seen) == 1 for turns_seen in by_beat.values()), f"one beat, several turns: {by_beat}"


async def test_a_cancelled_sleeper_does_not_stop_the_others() -> None:
    beat = Beat()
    done: list[str] = []

    async def sleeper(name: str) -> None:
        await beat.sleep(0.02)
        done.append(name)

    first, second, third = (asyncio.create_task(sleeper(n)) for n in ("first", "second", "third"))
    await asyncio.sleep(0.005)
    second.cancel()
    await asyncio.gather(first, third)
    assert sorted(done) == ["first", "third"]
    assert second.cancelled()
    assert not beat._due, "a beat kept its sleepers after waking them"


async def test_a_sleeper_woken_late_says_how_late() -> None:
    beat = Beat()
    task = asyncio.create_task(beat.sleep(0.005))
    await asyncio.sleep(0)  # the sleeper has taken its beat
    time.sleep(0.06)  # noqa: ASYNC251 -- the event loop held up on purpose, as on an overloaded server
    late = await task
    assert late >= 0.04
    assert 0 <= await beat.sleep(0.005) < 0.25  # and about on time when nothing holds the loop up


async def test_no_delay_asked_is_no_beat_but_still_says_how_late_the_loop_is() -> None:
    beat = Beat()
    loop = asyncio.get_running_loop()
    start = loop.time()
    for _ in range(200):  # whole games in the tests run with no bot delay: a beat each would be seconds
        assert 0 <= await beat.sleep(0) < 0.25
    assert loop.time() - start < BEAT_SECONDS * 20
    # A bot with no delay on an overloaded server must still notice the loop is behind, and give way.
    task = asyncio.create_task(beat.sleep(0))
    await asyncio.sleep(0)  # the sleeper has started its turn
    time.sleep(0.05)  # noqa: ASYNC251 -- the event loop held up on purpose
    assert await task >= 0.04


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
        table._touch()
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


def behind_backlog(clock: Clock | None = None) -> tuple[Backlog, list[int]]:
    """A backlog with most of its streams still sending: the server is behind."""
    backlog = Backlog(open=100, clock=clock or time.monotonic)
    sends = [backlog.start_sending() for _ in range(60)]
    assert backlog.behind()
    return backlog, sends


async def test_a_beat_that_comes_while_the_server_is_behind_waits_for_it_to_catch_up() -> None:
    backlog, sends = behind_backlog()
    beat = Beat(backlog)
    sleepers = [asyncio.create_task(beat.sleep(delay)) for delay in (0.001, 0.004, 0.0)]
    free = [asyncio.create_task(beat.sleep(delay, hold=False)) for delay in (0.001, 0.0)]
    await asyncio.sleep(0.1)  # many beats
    assert not any(s.done() for s in sleepers), "a bot moved while the server was behind"
    # A bot's second wait (its delay ended late) is never held: one move waits for the backlog only once.
    assert all(s.done() for s in free), "a sleeper that must not be held was held"
    for period in sends[:9]:  # 51 of 100 still sending: behind
        backlog.done_sending(period)
    await asyncio.sleep(0.02)
    assert not any(s.done() for s in sleepers)
    backlog.done_sending(sends[9])  # 50 of 100: no longer behind
    for _ in range(3):  # woken by that send itself, not by a timer: within a turn or two of the loop
        await asyncio.sleep(0)
    assert all(s.done() for s in sleepers), "the sleepers were not woken when the server caught up"
    # How late a sleeper ran counts from when it was let go, not from its beat (0.12 s before): being held
    # is not the event loop being behind, and would make the bot wait as long again.
    lates = [s.result() for s in sleepers]
    assert all(0 <= late < 0.1 for late in lates), lates
    assert not beat._held
    # Caught up, beats come on time again.
    assert 0 <= await asyncio.wait_for(beat.sleep(0.002), 1) < 0.25


async def test_a_held_beat_is_let_go_when_stuck_sends_stop_counting() -> None:
    # A client that stopped reading: its sends never finish, so no finished send says the server caught up.
    clock = Clock()
    backlog, _ = behind_backlog(clock)
    beat = Beat(backlog)
    sleeper = asyncio.create_task(beat.sleep(0.001))
    await asyncio.sleep(0.05)
    assert not sleeper.done()
    clock.now += 2 * STUCK_AFTER + 0.01  # those sends are a stalled client's now, not a busy server's
    await asyncio.wait_for(sleeper, BACKLOG_RECHECK + 0.5)


async def test_a_bot_never_waits_for_the_backlog_longer_than_its_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pacing, "MAX_BOT_WAIT", 0.6)
    backlog, _ = behind_backlog(Clock())  # and it stays behind: its clock never lets the sends age out
    beat = Beat(backlog)
    loop = asyncio.get_running_loop()
    start = loop.time()
    first = asyncio.create_task(beat.sleep(0.001))
    await asyncio.sleep(0.45)
    second = asyncio.create_task(beat.sleep(0.001))
    await asyncio.wait_for(first, 2)
    assert 0.6 <= loop.time() - start < 0.6 + BACKLOG_RECHECK + 0.4
    assert not second.done(), "a beat held for less than the limit was let go with an older one"
    await asyncio.wait_for(second, 2)
    assert not beat._held


async def test_a_cancelled_held_sleeper_does_not_stop_the_others_and_is_not_kept() -> None:
    backlog, sends = behind_backlog()
    beat = Beat(backlog)
    sleepers = [asyncio.create_task(beat.sleep(0.001)) for _ in range(3)]
    await asyncio.sleep(0.02)
    sleepers[1].cancel()
    await asyncio.sleep(0)
    assert sum(len(s.sleepers) for s in beat._held) == 2
    for period in sends:
        backlog.done_sending(period)
    await asyncio.wait_for(asyncio.gather(sleepers[0], sleepers[2]), 1)
    assert sleepers[1].cancelled()
    assert not beat._held
