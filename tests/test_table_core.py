"""The table's core is plain synchronous state (issue #42): it plays a table without an event loop or a
store, says what each change must write (`take_writes`) and tell (`revision`), checks an action without
changing anything, and its shell puts it back exactly as it was when the disk refuses a request.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toadstool.bots import game_options, table_options
from toadstool.engine import action_id, creation_record, parse_options
from toadstool.games import GAMES
from toadstool.i18n import tr
from toadstool.server.records import StoredSeat
from toadstool.server.store import Store
from toadstool.server.tables import Seat, SeatKind, Status, TableCore, TableError, TableRegistry, hosting
from toadstool.server.tables.errors import ErrorKind
from toadstool.server.tables.table import Table
from toadstool.server.tables.writes import FinishWrite, NoteWrite, SeatWrite, StartWrite

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "server"


def _module_imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _source(module: str) -> Path | None:
    base = SERVER / Path(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


def test_the_core_and_everything_it_imports_use_no_event_loop_store_or_protobuf() -> None:
    seen: set[str] = set()
    todo = ["toadstool.server.tables.core"]
    imported: dict[str, set[str]] = {}
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        path = _source(module)
        if path is None:
            continue
        imported[module] = _module_imports(path)
        todo += [name for name in imported[module] if name.startswith("toadstool.") and "api.v1" not in name]
    forbidden = ("asyncio", "sqlite3", "grpc", "google.protobuf", "toadstool.api.v1", "toadstool.server.store")
    wrong = {
        module: sorted(name for name in names if name.startswith(forbidden) or name == "toadstool.server.memory_store")
        for module, names in imported.items()
    }
    assert "toadstool.server.tables.core" in imported
    assert "toadstool.engine" in imported
    assert not {module: names for module, names in wrong.items() if names}, wrong


def _core(players: int = 2, manual_start: bool = False, options: dict[str, str] | None = None) -> TableCore:
    spec = GAMES["uno"]
    record = creation_record(spec.engine, game_options(parse_options(table_options(spec.engine), options or {})))
    return TableCore(
        table_id="core01",
        spec=spec,
        players=players,
        raw_options={},
        options=record,
        seed=7,
        name="Kitchen",
        manual_start=manual_start,
        bot_delay=0.0,
        host_token_hash=b"h" * 32,
        seats=[Seat(index=i) for i in range(players)],
    )


def test_a_core_alone_says_what_each_request_must_write_and_raises_its_revision() -> None:
    core = _core()
    revision = core.revision
    assert core.add_bot(1) == 1
    assert core.take_writes() == [SeatWrite(StoredSeat(1, "Bot 1", SeatKind.BOT, None, 0))]
    assert core.revision > revision
    assert core.take_writes() == []
    seat, token = core.join("Ann", None)
    writes = core.take_writes()
    assert seat == 0
    assert core.seat_of_token(token) == 0
    assert [type(w) for w in writes] == [SeatWrite, StartWrite]  # her seat filled the table: it started
    assert isinstance(writes[0], SeatWrite)
    assert writes[0].seat.name == "Ann"
    assert core.status is Status.PLAYING
    assert core.state is not None


def test_the_ladder_refuses_and_answers_without_changing_the_core() -> None:
    core = _core()
    core.add_bot(1)
    core.join("Ann", 0)
    core.take_writes()
    core.bot_plays_for(0, tr("{seat} is away", seat="Ann"), tr("Ann is away"))
    assert [type(w) for w in core.take_writes()] == [NoteWrite]
    before = core.saved()
    with pytest.raises(TableError) as refused:
        core.check(0, "no-such-action", core.version, "r-1")
    assert refused.value.kind is ErrorKind.NOT_LEGAL
    seat = core.engine.to_act(core.state)[0]
    legal = core.engine.legal_actions(core.state, seat)
    with pytest.raises(TableError) as stale:
        core.check(seat, action_id(legal[0]), core.version + 5, "r-2")
    assert stale.value.kind is ErrorKind.STALE_VERSION
    assert core.check(seat, action_id(legal[0]), core.version, "r-3") == legal[0]
    assert core.saved() == before  # and a person whose seat a bot plays is not given it back by a check
    assert core.seats[0].bot_controlled


def test_a_core_plays_a_game_to_its_end_and_asks_once_for_the_end_to_be_written() -> None:
    core = _core(options={"target": "1"})  # one hand decides it
    core.add_bot(0)
    core.add_bot(1)
    core.take_writes()
    writes = []
    while core.status is Status.PLAYING:
        seat = core.engine.to_act(core.state)[0]
        action = core.engine.legal_actions(core.state, seat)[0]
        core.advance(seat, action, core.engine.apply(core.state, seat, action), f"r{core.version}", "")
        writes += core.take_writes()
    assert writes == [FinishWrite(core.version, core.finished_at)]  # type: ignore[arg-type]
    assert core.version == len(core.actions)
    assert len(core.requests) == min(core.version, 512)


class Refused(Exception):
    pass


def _refuse_commits(store: Store) -> None:
    def fault(statement: str) -> None:
        if statement == "COMMIT":
            raise Refused(statement)

    store.fault = fault


def _seen(table: Table) -> dict[str, Any]:
    """All the core holds, as values that compare."""
    kept = table.saved()
    kept.update(
        seats=[(s.stored(), s.bot_controlled, s.connections, s.away_since) for s in table.seats],
        events=list(table.events),
        actions=list(table.actions),
        rng=table.rng.getstate(),
    )
    return kept


REQUESTS: dict[str, Callable[[Table], object]] = {
    "join": lambda t: t.join("Cy", None),
    "add a bot": lambda t: t.add_bot(None, 2),
    "change a bot's level": lambda t: t.set_bot_level(2, 2),
    "leave": lambda t: t.leave(0),
    "kick": lambda t: hosting.kick(t, 0),
    "end": lambda t: hosting.end(t, hosting.ENDED_BY_HOST),
    "issue a device token": hosting.issue_device_token,
    "start": lambda t: t.start(),
}


@pytest.mark.parametrize("playing", [False, True], ids=["lobby", "playing"])
@pytest.mark.parametrize("request_name", sorted(REQUESTS))
def test_a_request_the_disk_refuses_leaves_the_table_and_its_file_as_they_were(
    tmp_path: Path, request_name: str, playing: bool
) -> None:
    store = Store(tmp_path / "t.db")
    registry = TableRegistry(store=store)
    table, _ = registry.create("uno", 3, bots=1, seed=3, manual_start=True)
    table.join("Ann", 0)
    if playing:
        table.add_bot(1)
        table.start()
    before = _seen(table)
    _refuse_commits(store)
    try:
        REQUESTS[request_name](table)
    except TableError:  # refused before anything was written (a join once the game runs...)
        pass
    except Refused:
        pass
    else:
        pytest.fail(f"{request_name} was not written in a transaction")
    assert _seen(table) == before
    store.fault = None
    again = TableRegistry(store=store)
    again.load()
    restored = again.get(table.table_id)
    assert (restored.status, restored.version, restored.names()) == (table.status, table.version, table.names())
    store.close()
