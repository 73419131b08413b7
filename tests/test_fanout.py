"""How a table wakes what waits on it: streams between messages (`Table.wait_change`) and bots between
moves (`Beat`). Both replace per-waiter asyncio primitives for speed (bench/load.py), so these pin down
what the primitives gave for free: every waiter wakes, a cancelled waiter neither wakes nor stops the
others, and nothing is kept for waiters that went away."""

from __future__ import annotations

import asyncio
import time

import pytest

from toadstool.tables import BEAT_SECONDS, Beat, Table, TableRegistry


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
