"""A full disk is named and waited out: on a real 2 MiB filesystem that fills up, Act and CreateTable answer
UNAVAILABLE with a message that says so, every stopped table says why in an event, the server's log says
it once (and once when it is over), the bots wait quietly and play on when space is freed, and nothing
acknowledged is lost."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import grpc
import pytest

from conftest import TEST_LIMIT_FLAGS, start_serve, stop_process
from toadstool_clients.connection import Client, describe_rpc_error

#: Where the test leaves what the host and a player saw, for a person to read.
CAPTURES = Path(__file__).resolve().parents[1] / "test-output" / "durability"

FULL = "the server's disk is full; nothing was saved; try again when the host has freed space"


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 2 MiB filesystem (tmpfs), unmounted afterwards."""
    mount = tmp_path / "disk"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)], check=True, timeout=30)
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False, timeout=30)


def _fill(disk: Path) -> Path:
    """Write a file until the filesystem has no room left; returns it (delete it to free the space)."""
    filler = disk / "filler"
    with contextlib.suppress(OSError), filler.open("wb", buffering=0) as out:
        while True:
            out.write(b"\0" * 4096)
    return filler


async def _events(client: Client, table_id: str) -> list[str]:
    call = client.watch(table_id)
    try:
        update = (await asyncio.wait_for(call.read(), 10)).update
    finally:
        call.cancel()
    return [e.text for e in update.events]


async def test_a_full_disk_is_named_shown_at_every_table_logged_once_and_waited_out(
    tmp_path: Path, small_disk: Path
) -> None:
    log = tmp_path / "serve.log"
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    flags = ("--db", str(small_disk / "toadstool.db"), "--bot-delay", "0.005", "--no-announce", *TEST_LIMIT_FLAGS)
    process, address = start_serve(*flags, output=log, env=env)
    try:
        async with Client(address, timeout=10) as client:
            bots = [
                (await client.create_table("uno", 4, bots=4, seed=s, bot_delay_ms=5)).table.table_id for s in (1, 2)
            ]
            person = (await client.create_table("uno", 2, bots=1, seed=3, bot_delay_ms=5)).table.table_id
            ann = await client.join(person, "Ann")
            call = client.watch(person, ann.seat_token)
            update = (await asyncio.wait_for(call.read(), 10)).update
            while ann.seat not in update.to_act:  # her turn: the bot waits for her, nothing is written meanwhile
                update = (await asyncio.wait_for(call.read(), 10)).update
            call.cancel()

            filler = _fill(small_disk)
            seen: dict[str, list[str]] = {}
            for table_id in bots:  # every bot table stops, and says why

                async def paused(table_id: str = table_id) -> bool:
                    seen[table_id] = await _events(client, table_id)
                    return any(FULL in text for text in seen[table_id])

                await _eventually(paused)
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await client.act(person, ann.seat_token, update.version, update.legal_actions[0].id)
            assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
            assert caught.value.details() == FULL
            assert describe_rpc_error(caught.value) == FULL  # what a client shows the person
            assert any(FULL in text for text in await _events(client, person))
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await client.create_table("uno", 2, seed=4)
            assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
            assert caught.value.details() == FULL
            held = {t: (await client.get_table(t)).version for t in bots}
            await asyncio.sleep(1.5)  # the bots try again meanwhile (once a second), quietly
            assert {t: (await client.get_table(t)).version for t in bots} == held, "a move applied unwritten"

            filler.unlink()  # the host frees space: the games go on by themselves
            for table_id in bots:

                async def resumed(table_id: str = table_id) -> bool:
                    texts = await _events(client, table_id)
                    moved = (await client.get_table(table_id)).version > held[table_id]
                    return moved and any("can save again" in text for text in texts)

                await _eventually(resumed)
            acted = await client.act(person, ann.seat_token, update.version, update.legal_actions[0].id)
            assert acted.version == update.version + 1
            assert not any("Traceback" in line for line in log.read_text().splitlines())
            said = [line for line in log.read_text().splitlines() if "disk is full" in line]
            assert len(said) == 1, said  # once, not once per attempt
            assert sum("writing works again" in line for line in log.read_text().splitlines()) == 1
            versions = {t: (await client.get_table(t)).version for t in [*bots, person]}
            shown = [
                "What the host's terminal said:",
                *(line for line in log.read_text().splitlines() if line.startswith(("WARNING", "ERROR"))),
                "",
                f"What Ann saw when she acted: {describe_rpc_error(caught.value)}",
                "",
                "The last events a bot table showed while the disk was full:",
                *seen[bots[0]][-4:],
                "and once space was freed:",
                *(t for t in await _events(client, bots[0]) if "save again" in t),
            ]
            CAPTURES.mkdir(parents=True, exist_ok=True)
            (CAPTURES / "full-disk.txt").write_text("\n".join(shown) + "\n")
    finally:
        stop_process(process)
    process, address = start_serve(*flags, output=log, env=env)  # nothing acknowledged was lost
    try:
        async with Client(address, timeout=10) as client:
            for table_id, version in versions.items():
                assert (await client.get_table(table_id)).version >= version
    finally:
        stop_process(process)


async def _eventually(check: Callable[[], Awaitable[bool]], seconds: float = 30.0) -> None:
    """Return once `await check()` holds; fail the test if it has not within `seconds`."""
    for _ in range(int(seconds / 0.1)):
        if await check():
            return
        await asyncio.sleep(0.1)
    raise AssertionError("the condition did not hold in time")
