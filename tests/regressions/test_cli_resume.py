"""Regressions of coming back with `toadstool join` and `toadstool play`.

`toadstool join` resumed a remembered seat token without checking it still works; once the
person was kicked (or left), every later `toadstool join TABLE` stops with UNAUTHENTICATED and never
asks for a fresh seat (the user must find and edit ~/.config/toadstool/seats.json)."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from terminal_helpers import Terminal
from timing import wait_until

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


# `toadstool play` run again: it offers to go back to the unfinished game on its own server (kept in its
# play.db) instead of silently starting a new one; no starts a new one and leaves the old seat to a bot;
# Ctrl+C at the question, or in the game, exits 0 with no traceback. Driven in a real terminal (tmux).


def _play_env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_STATE_HOME": str(tmp_path / "state")}


def _local_tables(tmp_path: Path) -> list[str]:
    """The tables of `toadstool play`'s own server where this machine keeps a seat, oldest first."""
    try:
        saved = json.loads((tmp_path / "config" / "toadstool" / "seats.json").read_text())
    except (OSError, ValueError):
        return []
    return [key.split("/", 1)[1] for key in saved if key.startswith("local-play/")]


def _play(tmp_path: Path) -> Terminal:
    command = toadstool_command("play", "UNO", "--bots", "1", "--bot-delay", "0.01", "--seed", "7")
    return Terminal(command, _play_env(tmp_path), columns=100, lines=30)


def test_play_again_offers_to_go_back_to_the_unfinished_game_and_no_starts_a_new_one(tmp_path: Path) -> None:
    first = _play(tmp_path)
    try:
        wait_until(lambda: len(_local_tables(tmp_path)) == 1, "the first game saved to come back to", 30)
        [unfinished] = _local_tables(tmp_path)
        first.wait_for("UNO Super Mario")
        first.keys("C-c")  # leave the game at once, unfinished
        assert first.exit_status() == 0
    finally:
        first.close()

    again = _play(tmp_path)
    try:
        shown = again.wait_for("is not finished. Go back to it? [Y/n]")
        assert unfinished in shown
        again.save("play-go-back-question")
        again.keys("Enter")
        again.wait_for("UNO Super Mario", without="Go back to it?")
        again.keys("C-c")
        assert again.exit_status() == 0
        assert "Traceback" not in again.screen()
    finally:
        again.close()
    assert _local_tables(tmp_path) == [unfinished], "going back started a new game instead"

    fresh = _play(tmp_path)
    try:
        fresh.wait_for("Go back to it? [Y/n]")
        fresh.keys("n")
        fresh.keys("Enter")
        wait_until(lambda: _local_tables(tmp_path) not in ([unfinished], []), "a new game started", 30)
        fresh.wait_for("UNO Super Mario", without="Go back to it?")
        fresh.keys("C-c")
        assert fresh.exit_status() == 0
        shown = fresh.screen()
        assert "A bot plays out the old game; here is a new one." in shown
        assert "Traceback" not in shown
    finally:
        fresh.close()
    [new] = _local_tables(tmp_path)
    assert new != unfinished


def test_ctrl_c_at_the_go_back_question_exits_0_and_starts_nothing(tmp_path: Path) -> None:
    first = _play(tmp_path)
    try:
        wait_until(lambda: len(_local_tables(tmp_path)) == 1, "the first game saved to come back to", 30)
        first.wait_for("UNO Super Mario")
        first.keys("C-c")
        assert first.exit_status() == 0
    finally:
        first.close()
    saved = _local_tables(tmp_path)
    again = _play(tmp_path)
    try:
        again.wait_for("Go back to it? [Y/n]")
        again.keys("C-c")
        assert again.exit_status() == 0
        assert "Traceback" not in again.screen()
    finally:
        again.close()
    assert _local_tables(tmp_path) == saved


def test_a_second_play_at_the_same_time_keeps_its_game_in_memory_and_says_so(tmp_path: Path) -> None:
    """Two `toadstool play` at once never share the kept tables (both would run the same tables' bots):
    the second plays in memory only, and says its game will not be kept to come back to."""
    first = _play(tmp_path)
    second: Terminal | None = None
    try:
        wait_until(lambda: len(_local_tables(tmp_path)) == 1, "the first game saved to come back to", 30)
        first.wait_for("UNO Super Mario")
        second = _play(tmp_path)
        second.wait_for("UNO Super Mario", without="Go back to it?")
        second.keys("C-c")
        assert second.exit_status() == 0
        assert "Another `toadstool play` is running: this game will not be kept" in second.screen()
        assert len(_local_tables(tmp_path)) == 1
    finally:
        first.close()
        if second is not None:
            second.close()
