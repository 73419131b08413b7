"""A damaged database never takes every table offline: with any one page of a real database zeroed, the
server starts with every table it can read, names those it cannot, and never writes to the damaged file
(it is kept, byte for byte, beside the new one); `toadstool db check` says what is wrong and `toadstool db
salvage OUT` copies every readable table into a new file that serves them."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import TEST_LIMIT_FLAGS, start_serve, stop_process, toadstool_command
from toadstool.engine import action_id
from toadstool.server import repair
from toadstool.server.store import Store
from toadstool.server.tables import Status, TableRegistry
from toadstool_clients.connection import Client

PAGE = 4096


async def _play(table_id: str, registry: TableRegistry, moves: int) -> None:
    """`moves` of the first legal action, whoever must act (a real game's actions, through `Table.act`)."""
    table = registry.get(table_id)
    tokens = [table.join(name, None)[1] for name in ("Ann", "Bob")]
    for _ in range(moves):
        if table.status is not Status.PLAYING:
            return
        seat = table.engine.to_act(table.state)[0]
        wanted = action_id(table.engine.legal_actions(table.state, seat)[0])
        await table.act(table.seat_of_token(tokens[seat]), wanted, table.version, f"r{table.version}")


@pytest.fixture(scope="module")
def good_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    """A real database of 24 tables with their seats, actions and notes; returns it and each table's version."""
    path = tmp_path_factory.mktemp("good") / "toadstool.db"
    store = Store(path)
    registry = TableRegistry(store=store)
    versions = {}
    for seed in range(24):
        table, _ = registry.create("uno", 2, seed=seed, name=f"table {seed}")
        asyncio.run(_play(table.table_id, registry, 30 + seed))
        versions[table.table_id] = table.version
    store.close()  # the log is checkpointed into the file: the file alone holds everything
    assert not path.with_name("toadstool.db-wal").exists()
    return path, versions


def _zero_page(path: Path, page: int) -> None:
    with path.open("r+b") as handle:
        handle.seek((page - 1) * PAGE)
        handle.write(b"\0" * PAGE)


def test_a_zeroed_page_anywhere_costs_only_the_tables_on_it_and_the_damaged_file_is_never_written(
    good_db: tuple[Path, dict[str, int]], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    source, versions = good_db
    pages = source.stat().st_size // PAGE
    assert pages > 20
    served_in_all, cut_short = [], []
    for page in range(2, pages + 1):  # page 1 is the header: without it the file is not SQLite at all
        db = tmp_path / f"page{page}" / "toadstool.db"
        db.parent.mkdir()
        shutil.copy(source, db)
        _zero_page(db, page)
        damaged = db.read_bytes()
        caplog.clear()
        store, health = repair.open_store(db)
        registry = TableRegistry(store=store)
        registry.load()
        restored = {t.table_id: t.version for t in registry.tables.values()}
        store.close()
        if health is None:  # a page nothing used (free) or whose loss SQLite does not notice: all is there
            assert restored == versions, f"page {page}"
            served_in_all.append(page)
            continue
        kept = list(db.parent.glob("toadstool.db.damaged-*"))
        assert [k.name for k in kept if not k.name.endswith(("-wal", "-shm"))], f"page {page}: not kept"
        assert next(k for k in kept if not k.name.endswith(("-wal", "-shm"))).read_bytes() == damaged
        for table_id, version in restored.items():  # every table back is its true self, or said to be cut short
            assert version == health.cut_short.get(table_id, versions[table_id]), f"page {page}: {table_id}"
        cut_short += health.cut_short
        missing = set(versions) - set(restored)
        assert missing <= set(health.unreadable) | {None}, f"page {page}: unnamed tables lost: {missing}"
        assert len(restored) >= len(versions) - 8, f"page {page} cost {len(missing)} tables"
        said = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
        assert len(said) == 1, said
        assert "is damaged" in said[0]
        for table_id in health.unreadable:
            assert table_id in said[0]
        caplog.clear()  # the damage was the point of this test
    assert len(served_in_all) < pages - 1, "no zeroed page was ever noticed: the test says nothing"
    assert cut_short, "no zeroed page ever held actions: the test says nothing about them"


def _run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(toadstool_command(*args), capture_output=True, text=True, timeout=120, env=env)


async def test_db_check_and_salvage_and_a_server_on_a_damaged_file(
    good_db: tuple[Path, dict[str, int]], tmp_path: Path
) -> None:
    source, versions = good_db
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_STATE_HOME": str(tmp_path / "state")}
    db = tmp_path / "toadstool.db"
    shutil.copy(source, db)
    healthy = _run("db", "check", "--db", str(db), env=env)
    assert healthy.returncode == 0, healthy.stderr
    assert "healthy; 24 tables" in healthy.stdout
    damaged = _damage_a_page_of_actions(db, tmp_path / "trial.db")

    checked = _run("db", "check", "--db", str(db), env=env)
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert "damaged" in checked.stdout
    assert "tables can be restored" in checked.stdout
    out = tmp_path / "saved.db"
    salvaged = _run("db", "salvage", str(out), "--db", str(db), env=env)
    assert salvaged.returncode == 0, salvaged.stderr
    assert f"copied into {out}" in salvaged.stdout
    assert db.read_bytes() == damaged, "check or salvage wrote to the damaged file"
    again = _run("db", "salvage", str(out), "--db", str(db), env=env)
    assert again.returncode == 2
    assert "exists already" in again.stderr
    assert repair.check(out).ok
    health = repair.check(db)  # what was found in the damaged file (read only, again)
    assert len(health.readable) >= 16
    assert health.cut_short
    for table_id in health.cut_short:
        assert f"table {table_id} can be restored only up to version" in checked.stdout

    log = tmp_path / "serve.log"
    flags = ("--db", str(db), "--no-announce", "--bot-delay", "60", *TEST_LIMIT_FLAGS)
    process, address = start_serve(*flags, output=log, env=env)
    try:
        async with Client(address) as client:
            served = {t.table_id: t.version for t in await client.list_tables()}
    finally:
        stop_process(process)
    assert set(served) == set(health.readable)
    for table_id, version in served.items():
        assert version == health.cut_short.get(table_id, versions[table_id])
    said = log.read_text()
    assert "is damaged" in said
    assert "kept untouched as" in said
    assert _kept(tmp_path) == [damaged]
    _capture(
        "damaged-db.txt",
        "$ toadstool db check\n" + checked.stdout + "\n$ toadstool db salvage OUT\n" + salvaged.stdout
        + "\nThe server's log:\n" + "\n".join(line for line in said.splitlines() if "ERROR" in line) + "\n",
    )  # fmt: skip


def _damage_a_page_of_actions(db: Path, trial: Path) -> bytes:
    """Zero the first page from the middle of `db` on whose loss some table is cut short; returns the file."""
    pages = db.stat().st_size // PAGE
    for page in range(pages // 2, pages + 1):
        shutil.copy(db, trial)
        _zero_page(trial, page)
        if repair.check(trial).cut_short:
            shutil.copy(trial, db)
            return db.read_bytes()
    raise AssertionError("no page of the database holds actions")


def _kept(folder: Path) -> list[bytes]:
    """The damaged files a server set aside in `folder`, as they are now."""
    return [p.read_bytes() for p in folder.glob("toadstool.db.damaged-*") if not p.name.endswith(("-wal", "-shm"))]


def _capture(name: str, text: str) -> None:
    captures = Path(__file__).resolve().parents[1] / "test-output" / "durability"
    captures.mkdir(parents=True, exist_ok=True)
    (captures / name).write_text(text)
