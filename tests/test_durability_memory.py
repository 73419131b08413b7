"""Memory that does not grow for ever: a table with a store keeps only its recent events and actions in
memory, whatever the length of its game, while streams, history and restarts see exactly what they saw
when everything was kept; and the memory benchmark runs end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from toadstool.api.v1 import service_pb2
from toadstool.server import messages
from toadstool.server.store import Store
from toadstool.server.tables import Status, Table, TableRegistry
from toadstool.server.tables import table as table_module
from toadstool.server.tables.history import Window

ROOT = Path(__file__).resolve().parents[1]


def test_a_window_counts_the_whole_log_and_reads_what_it_dropped_back_from_its_source() -> None:
    log = list(range(100))
    window: Window[int] = Window(10, whole=lambda: list(log))
    window.extend(log)
    assert len(window) == 100
    assert window.start >= 80  # dropped the oldest, kept at least 10
    assert window[-1] == 99
    assert window[95:] == [95, 96, 97, 98, 99]
    assert window[-3:] == [97, 98, 99]
    assert window[0:] == list(range(window.start, 100))  # a slice from before the window starts at it
    assert list(window) == log  # the whole log, read back
    del window[98:]
    assert len(window) == 98
    assert window[-1] == 97


def test_a_window_with_nowhere_to_read_back_from_keeps_everything() -> None:
    window: Window[int] = Window(10, whole=list, droppable=lambda: False)
    window.extend(range(100))
    assert window.start == 0
    assert list(window) == list(range(100))


def _seen(table: Table, viewer: int, since_version: int | None, since_event: int | None) -> service_pb2.WatchResponse:
    """What a stream of `viewer` is sent, but for the table's id and name (two tables are compared)."""
    response = service_pb2.WatchResponse.FromString(messages.watch_response(table, viewer, since_version, since_event))
    response.update.ClearField("table_id")
    response.update.ClearField("table_name")
    return response


def _long_game(registry: TableRegistry, moves: int) -> str:
    table, _ = registry.create("uno", 4, bots=4, seed=5, options={"target": "100000"})
    for _ in range(moves):
        choice = table.bot_choice()
        assert choice is not None
        table.apply_now(*choice)
    return table.table_id


def test_a_long_game_keeps_a_window_in_memory_and_the_same_history_streams_and_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    everything = TableRegistry()  # windows of the usual size: none of this game is dropped from memory
    whole = everything.get(_long_game(everything, 1500))
    monkeypatch.setattr(table_module, "KEEP_EVENTS", 100)
    monkeypatch.setattr(table_module, "KEEP_ACTIONS", 50)
    store = Store(tmp_path / "t.db")
    kept = TableRegistry(store=store)
    windowed = kept.get(_long_game(kept, 1500))
    assert windowed.status is Status.PLAYING
    assert len(windowed.events) - windowed.events.start <= 200
    assert len(windowed.actions) - windowed.actions.start <= 100
    assert whole.events.start == 0
    assert len(windowed.events) == len(whole.events)
    # What a first update, a resume and a live stream are sent is built from memory, and the same.
    for since_version, since_event in ((None, None), (1480, None), (None, len(whole.events) - 7)):
        assert _seen(windowed, 0, since_version, since_event) == _seen(whole, 0, since_version, since_event)
    # The whole history is read back from the store: step for step what a table that kept everything gives.
    assert list(messages.history_for(windowed, 1)) == list(messages.history_for(whole, 1))
    store.close()
    restored = TableRegistry(store=Store(tmp_path / "t.db"))
    restored.load()
    again = restored.get(windowed.table_id)
    assert again.version == whole.version
    assert len(again.events) - again.events.start <= 200  # the replay kept a window too
    assert _seen(again, 2, None, None) == _seen(whole, 2, None, None)


def test_a_restart_replays_no_finished_table_until_someone_looks_and_then_shows_it_as_before(tmp_path: Path) -> None:
    store = Store(tmp_path / "t.db")
    registry = TableRegistry(store=store)
    table, _ = registry.create("uno", 2, bots=2, seed=3, options={"target": "1"})
    while table.status is Status.PLAYING:
        choice = table.bot_choice()
        assert choice is not None
        table.apply_now(*choice)
    before = (_seen(table, 0, None, None), list(messages.history_for(table, None)))
    store.close()
    restored = TableRegistry(store=Store(tmp_path / "t.db"))
    restored.load()
    again = restored.get(table.table_id)
    assert again.unreplayed, "the finished table was replayed at the restart"
    assert again.status is Status.FINISHED
    assert again.version == table.version
    assert (_seen(again, 0, None, None), list(messages.history_for(again, None))) == before
    assert not again.unreplayed


def test_the_memory_benchmark_prints_every_figure_as_one_json_line(tmp_path: Path) -> None:
    completed = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "memory.py"), "--smoke", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=ROOT,
        env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")},
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    figures = json.loads(completed.stdout.strip().splitlines()[-1])
    assert figures["benchmark"] == "memory"
    assert figures["long_game"]["actions"] > 0
    assert isinstance(figures["long_game"]["bytes_per_action"], float)
    assert isinstance(figures["long_game_baseline"]["bytes_per_action"], float)
    assert isinstance(figures["bytes_per_action_ratio"], float)
    assert figures["start"]["tables"] > 0
    assert {"load_seconds", "baseline_replay_all_seconds"} <= set(figures["start"])
    assert (tmp_path / "memory.csv").read_text().startswith("setting,actions,bytes_traced")
