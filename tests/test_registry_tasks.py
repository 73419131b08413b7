"""The registry owns its tables' tasks (docs/design.md, principle 7): a table made before any event loop ran
gets its bots once the registry is entered, and closing the registry cancels and awaits every task."""

from __future__ import annotations

import asyncio

from toadstool.server.tables import Status, TableRegistry


def test_a_table_created_before_the_loop_ran_is_played_by_its_bots_once_the_registry_is_entered() -> None:
    registry = TableRegistry(bot_delay=0.0)
    table, _ = registry.create("uno", 2, bots=2, seed=3, options={"target": "1"})
    assert table.status is Status.PLAYING
    assert table.version == 0

    async def enter_and_watch() -> int:
        async with registry:
            for _ in range(10_000):  # a bounded number of loop turns, not a time window
                if table.version > 0:
                    break
                await asyncio.sleep(0)
            tasks = {task for task in asyncio.all_tasks() if task.get_name().endswith(table.table_id)}
        assert all(task.done() for task in tasks), "closing the registry awaits every task it started"
        return table.version

    assert asyncio.run(enter_and_watch()) > 0
