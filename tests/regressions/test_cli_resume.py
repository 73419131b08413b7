"""Regression: `toadstool join` resumes a remembered seat token without checking it still works; once the
person was kicked (or left), every later `toadstool join TABLE` stops with UNAUTHENTICATED and never
asks for a fresh seat (the user must find and edit ~/.config/toadstool/seats.json)."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from conftest import toadstool_command
from toadstool.server.app import RunningServer
from toadstool_clients.connection import Client


async def test_join_takes_a_fresh_seat_when_the_remembered_token_was_revoked(
    server: RunningServer, tmp_path: Path
) -> None:
    async with Client(server.address) as client:
        created = await client.create_table("uno", 3, seed=61, manual_start=True)
        table_id, host = created.table.table_id, created.host_token
        old = await client.join(table_id, "Zed", 0)
        await client.kick(table_id, host, 0)
        config = tmp_path / "config" / "toadstool"
        config.mkdir(parents=True)
        (config / "seats.json").write_text(
            json.dumps({f"{server.address}/{table_id}": {"seat": 0, "token": old.seat_token}})
        )
        process = await asyncio.create_subprocess_exec(
            *toadstool_command("join", table_id, "--server", server.address, "--name", "Zed"),
            env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "TERM": "dumb"},
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        try:
            seated = False
            for _ in range(100):
                info = await client.get_table(table_id)
                if any(s.name == "Zed" for s in info.seats) or process.returncode is not None:
                    seated = any(s.name == "Zed" for s in info.seats)
                    break
                await asyncio.sleep(0.1)
        finally:
            if process.returncode is None:
                process.kill()
            output = (await asyncio.wait_for(process.communicate(), 10))[0].decode(errors="replace")
    assert seated, f"`toadstool join` gave up on the revoked token instead of joining again:\n{output[-600:]}"
