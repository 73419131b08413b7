"""`toadstool play GAME --lan` as a host sees it, in a real terminal (tmux): the exact command friends join
with is on the screen, and then one line per join, connection and drop of a friend who joins over a real
connection, marked as the host's, while the host plays. It listens on 127.0.0.1 (`--bind`), any free port.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from terminal_helpers import Tmux, save, terminal_env

from conftest import toadstool_command
from toadstool_clients.connection import Client

JOIN = re.compile(r"Friends join with: toadstool join (\w+) --server 127\.0\.0\.1:(\d+)")


async def _friend_joins_watches_and_drops(address: str, table_id: str, tmux: Tmux) -> None:
    async with Client(address) as friend:
        joined = await friend.join(table_id, "Cat")
        stream = friend.watch(table_id, joined.seat_token)
        await stream.read()
        await asyncio.to_thread(tmux.wait_for, lambda s: "Cat connected" in s, 30)
        stream.cancel()


@pytest.mark.timeout(120)
def test_play_lan_shows_the_join_command_then_each_friend_who_joins_connects_and_drops(
    terminal: list[Tmux], tmp_path: Path
) -> None:
    command = toadstool_command(
        "play", "uno", "--players", "3", "--bots", "1", "--name", "Host", "--lan", "--bind", "127.0.0.1", "--port", "0"
    )
    tmux = Tmux(tmp_path / "tmux.sock", command, 160, 50, terminal_env(tmp_path))
    terminal.append(tmux)
    shown = tmux.wait_for(lambda s: JOIN.search(s) is not None, timeout=60)
    found = JOIN.search(shown)
    assert found is not None
    table_id, port = found.group(1), found.group(2)
    assert "or in a browser: http://127.0.0.1:" in shown, "the browser's page is not named"
    asyncio.run(_friend_joins_watches_and_drops(f"127.0.0.1:{port}", table_id, tmux))
    screen = tmux.wait_for(lambda s: "Cat lost their connection" in s, timeout=30)
    save("play-lan-160x50-host-lines", screen)
    for line in ("Cat joined (seat 1)", "the game started", "Cat connected", "Cat lost their connection"):
        assert re.search(rf"host: .*{re.escape(line)}", screen), f"no host line {line!r} on the screen"
    assert "Traceback" not in screen
    tmux.send("C-c")
    assert "EXIT=0" in tmux.wait_for(lambda s: "EXIT=" in s, timeout=20)
