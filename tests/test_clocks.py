"""The turn clock and the takeover of a seat whose person is away, on a clock the test moves by hand: each
acts at its deadline and never before it, whatever the machine's load (the real server's, over gRPC, are in
tests/test_durability.py)."""

from __future__ import annotations

from timing import Clock, turns, until

from toadstool.server.tables import Status, Table, TableRegistry
from toadstool.server.tables.action_ids import id_of


def texts(table: Table) -> list[str]:
    return [event.text for _, event in table.events]


async def test_a_turn_clock_makes_a_default_move_at_its_deadline_and_not_before() -> None:
    clock = Clock()
    async with TableRegistry(bot_delay=0.0, clock=clock) as registry:
        table, _ = registry.create("uno", 2, seed=6, turn_seconds=30)
        for name in ("Ann", "Bob"):
            table.join(name, None)
        assert table.status is Status.PLAYING
        for move in range(1, 3):  # each decision has a clock of its own, from the move before
            version, waiting = table.version, table.engine.to_act(table.state)
            deadline = table.turn_deadline()
            assert deadline == clock.now + 30
            await until(lambda deadline=deadline: clock.pending() == [deadline])  # the clock task waits for it
            clock.advance(29.9)
            table.set_connected(table.seats[move % 2], +1)  # a stream opens: the clock task looks again
            await turns()
            assert table.version == version, "the turn clock ran out early"
            clock.advance(0.1)
            await until(lambda version=version: table.version == version + 1)
            assert sum("ran out of time" in text for text in texts(table)) == move
            assert table.actions[-1][0] in waiting, "the default move was not made for the seat that ran out of time"


async def test_a_bot_plays_the_seat_of_a_person_away_for_the_grace_and_gives_it_back() -> None:
    clock = Clock()
    async with TableRegistry(bot_delay=0.0, clock=clock) as registry:
        table, _ = registry.create("uno", 2, bots=1, seed=7, takeover_seconds=60)
        index, _ = table.join("Ann", None)
        ann = table.seats[index]
        table.set_connected(ann, +1)
        await turns()
        clock.advance(600)  # someone connected is never taken over, however long they take
        await turns()
        assert not ann.bot_controlled
        table.set_connected(ann, -1)  # gone from now on
        await until(lambda: clock.pending() == [clock.now + 60])
        clock.advance(59.9)
        table.set_connected(table.seats[1 - index], +1)  # a stream opens: the clock task looks again
        await turns()
        assert not ann.bot_controlled, "taken over before the grace was over"
        clock.advance(0.1)
        await until(lambda: ann.bot_controlled)
        assert any("is away" in text for text in texts(table))
        version = table.version
        await until(lambda: table.version > version or table.status is Status.FINISHED)  # the bot plays for her
        table.set_connected(ann, +1)
        assert not ann.bot_controlled
        assert any("is back" in text for text in texts(table))


async def test_at_a_table_of_people_no_task_wakes_at_a_move_yet_a_bot_takes_over_an_away_seat() -> None:
    clock = Clock()
    async with TableRegistry(bot_delay=0.0, clock=clock) as registry:
        table, _ = registry.create("uno", 2, seed=8, takeover_seconds=60)
        seats = [table.seats[table.join(name, None)[0]] for name in ("Ann", "Bob")]
        for seat in seats:
            table.set_connected(seat, +1)
        await turns()
        # Its bots' and clocks' tasks wait for a change of who plays, not for every move (each move wakes
        # whatever waits for a change: the streams, here none).
        assert len(table._changed) == 0
        ann = seats[0]
        table.set_connected(ann, -1)
        await until(lambda: clock.pending() == [clock.now + 60])
        clock.advance(60)
        await until(lambda: ann.bot_controlled)
        # Now a bot plays her seat: it is woken by the moves (Bob's, here), and plays hers.
        while table.status is not Status.FINISHED and ann.index not in table.engine.to_act(table.state):
            seat = table.engine.to_act(table.state)[0]
            action = table.engine.legal_actions(table.state, seat)[0]
            await table.act(seat, id_of(action), table.version, f"move-{table.version}")
        if table.status is not Status.FINISHED:
            version = table.version
            await until(lambda: table.version > version)
            assert table.actions[-1][0] == ann.index, "the bot did not play the away seat"
