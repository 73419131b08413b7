"""The host's controls and the host's feed in the terminal client (issue #25), in a real terminal (tmux)
with a real server (`toadstool serve` on 127.0.0.1): the host adds a bot, removes a seat (asked first),
starts the table, lets a bot play a person's seat, removes a person in play (a bot plays on) and ends the
table (asked first), each checked through the server; the server's refusal to a client holding a wrong
host token is shown as its message; a client without one is offered no host controls; the feed's lines
(what a server in the host's process says) are on the screen, marked as the host's, at 80x24 and 160x50.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from terminal_helpers import Tmux, save, terminal_client_command, terminal_env
from timing import wait_until

from conftest import TEST_LIMIT_FLAGS, start_serve, stop_process
from toadstool.api.v1 import table_pb2
from toadstool_clients.connection import Client

SIZES = [(80, 24), (160, 50)]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    """A real server on a loopback port; its address."""
    flags = ("--bot-delay", "0.5", "--no-db", "--no-announce", "--no-web", *TEST_LIMIT_FLAGS)
    process, address = start_serve(*flags, output=tmp_path / "serve.log", env={**os.environ, **terminal_env(tmp_path)})
    yield address
    stop_process(process)


def _call(address: str, method: str, *args: Any, **kwargs: Any) -> Any:
    """One call of the Python client on a connection of its own (the test's side of the table)."""

    async def call() -> Any:
        async with Client(address) as client:
            return await getattr(client, method)(*args, **kwargs)

    return asyncio.run(call())


def _seats(address: str, table_id: str) -> list[table_pb2.Seat]:
    return list(_call(address, "get_table", table_id).seats)


def _choose(tmux: Tmux, label: str) -> str:
    """Pick the host menu's entry that reads `label` by its number, then Enter."""
    screen = tmux.wait_for(lambda s: label in s, timeout=15)
    number = re.search(rf"^[ \u203a](\d) {re.escape(label)}", screen, re.M)
    assert number, f"{label!r} is not an entry:\n{screen}"
    tmux.send(number.group(1), "Enter")
    return screen


@pytest.mark.timeout(240)
@pytest.mark.parametrize(("width", "height"), SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_every_host_control_works_from_the_terminal_and_the_feed_is_on_the_screen(
    served: str, terminal: list[Tmux], tmp_path: Path, width: int, height: int
) -> None:
    address = served
    created = _call(address, "create_table", "uno", 3, 0, {"target": "1"}, manual_start=True)
    table_id, host_token = created.table.table_id, created.host_token
    ann = _call(address, "join", table_id, "Ann")
    feed = tmp_path / "feed.txt"
    feed.write_text(f"Friends join with: toadstool join {table_id} --server {address}\n")
    command = terminal_client_command(address, table_id, ann.seat_token, host_token, feed)
    tmux = Tmux(tmp_path / "tmux.sock", command, width, height, terminal_env(tmp_path))
    terminal.append(tmux)
    lobby = tmux.wait_for(lambda s: "h: host" in s and "Waiting for players" in s, timeout=30)
    assert f"host: Friends join with: toadstool join {table_id}" in lobby
    dan = _call(address, "join", table_id, "Dan")
    with feed.open("a") as out:
        out.write("Dan joined seat 2\n")
    tmux.wait_for(lambda s: "host: Dan joined seat 2" in s, timeout=15)

    tmux.send("h")
    menu = tmux.wait_for(lambda s: "Host controls" in s, timeout=10)
    save(f"host-{width}x{height}-lobby-menu", menu)
    for entry in ("Start now", "Add a bot ▸", "Remove a seat ▸", "End the table"):
        assert entry in menu
    _choose(tmux, "Add a bot ▸")
    _choose(tmux, "A bot in seat 3")
    wait_until(
        lambda: _seats(address, table_id)[2].kind == table_pb2.SEAT_KIND_BOT, "the server's state changed as asked", 15
    )

    tmux.wait_for(lambda s: "Host controls" not in s and "(bot)" in s, timeout=10)
    tmux.send("h")
    _choose(tmux, "Change a bot's level ▸")
    levels = tmux.wait_for(lambda s: "(normal) → hard" in s, timeout=10)
    save(f"host-{width}x{height}-bot-level", levels)
    _choose(tmux, "Bot 1 (normal) → hard")
    wait_until(lambda: _seats(address, table_id)[2].bot_level == 3, "the server's state changed as asked", 15)
    tmux.wait_for(lambda s: "Host controls" not in s and "Bot 1 (hard bot)" in s, timeout=10)
    tmux.send("h")
    _choose(tmux, "Change a bot's level ▸")
    tmux.wait_for(lambda s: "(hard) → easy" in s, timeout=10)  # the menu shows the level the server has now
    tmux.send("Escape")
    tmux.send("Escape")
    tmux.wait_for(lambda s: "Host controls" not in s, timeout=10)
    tmux.send("h")
    _choose(tmux, "Remove a seat ▸")
    _choose(tmux, "Remove Dan")
    asked = tmux.wait_for(lambda s: "Remove Dan from the table?" in s, timeout=10)
    save(f"host-{width}x{height}-remove-asked", asked)
    tmux.send("y")
    wait_until(
        lambda: _seats(address, table_id)[1].kind == table_pb2.SEAT_KIND_EMPTY,
        "the server's state changed as asked",
        15,
    )
    dan = _call(address, "join", table_id, "Dan")  # back, with a new seat token

    tmux.wait_for(lambda s: "Host controls" not in s, timeout=10)
    tmux.send("h")
    _choose(tmux, "Start now")
    wait_until(
        lambda: _call(address, "get_table", table_id).status == table_pb2.TABLE_STATUS_PLAYING,
        "the server's state changed as asked",
        15,
    )

    async def dan_connected() -> None:  # Dan's client follows the table, so his seat is a connected person's
        async with Client(address) as client:
            async for item in client.follow(table_id, dan.seat_token, give_up_after=5):
                if isinstance(item, table_pb2.Update):
                    return

    asyncio.run(dan_connected())
    tmux.wait_for(lambda s: "h: host" in s and "Waiting for players" not in s, timeout=20)
    tmux.send("h")
    playing = tmux.wait_for(lambda s: "Host controls" in s, timeout=10)
    save(f"host-{width}x{height}-playing-menu", playing)
    assert "Start now" not in playing
    _choose(tmux, "Let a bot play a seat ▸")
    _choose(tmux, "Let a bot play Dan's seat")
    wait_until(lambda: _seats(address, table_id)[1].bot_controlled, "the server's state changed as asked", 15)

    tmux.wait_for(lambda s: "Host controls" not in s, timeout=10)
    tmux.send("h")
    _choose(tmux, "Remove a seat ▸")
    _choose(tmux, "Remove Dan (a bot plays on)")
    tmux.wait_for(lambda s: "Remove Dan? A bot plays their seat from now on." in s, timeout=10)
    tmux.send("y")
    wait_until(
        lambda: _seats(address, table_id)[1].kind == table_pb2.SEAT_KIND_BOT, "the server's state changed as asked", 15
    )

    tmux.send("h")
    _choose(tmux, "End the table")
    ending = tmux.wait_for(lambda s: "End the table for everyone now?" in s, timeout=10)
    save(f"host-{width}x{height}-end-asked", ending)
    tmux.send("n")  # no: nothing happens, and the host menu is back
    tmux.wait_for(lambda s: "End the table for everyone now?" not in s and "Host controls" in s, timeout=10)
    assert _call(address, "get_table", table_id).status == table_pb2.TABLE_STATUS_PLAYING
    _choose(tmux, "End the table")
    tmux.wait_for(lambda s: "End the table for everyone now?" in s, timeout=10)
    tmux.send("y")
    final = tmux.wait_for(lambda s: "EXIT=" in s, timeout=20)
    save(f"host-{width}x{height}-ended", final)
    assert "Game ended: The host ended the game" in final
    assert "win" not in final.split("Game ended")[1].splitlines()[0]
    assert "EXIT=0" in final
    assert "Traceback" not in final


@pytest.mark.timeout(120)
def test_a_host_control_refused_by_the_server_shows_its_message_and_a_non_host_is_offered_none(
    served: str, terminal: list[Tmux], tmp_path: Path
) -> None:
    address = served
    created = _call(address, "create_table", "uno", 3, 0, {"target": "1"}, manual_start=True)
    table_id = created.table.table_id
    dan = _call(address, "join", table_id, "Dan")
    feed = tmp_path / "feed.txt"
    command = terminal_client_command(address, table_id, dan.seat_token, "not-the-host-token", feed)
    tmux = Tmux(tmp_path / "tmux.sock", command, 80, 24, terminal_env(tmp_path))
    terminal.append(tmux)
    tmux.wait_for(lambda s: "h: host" in s, timeout=30)
    tmux.send("h")
    _choose(tmux, "Start now")
    refused = tmux.wait_for(lambda s: "Not done:" in s, timeout=15)
    save("host-80x24-refused", refused)
    assert f"only the host of table {table_id} may do that" in refused
    assert _call(address, "get_table", table_id).status == table_pb2.TABLE_STATUS_LOBBY

    other = Tmux(
        tmp_path / "tmux2.sock",
        terminal_client_command(address, table_id, dan.seat_token, None, feed),
        80,
        24,
        terminal_env(tmp_path),
    )
    terminal.append(other)
    plain = other.wait_for(lambda s: "Waiting for players" in s and "q: leave" in s, timeout=30)
    assert "h: host" not in plain
    other.send("h")
    assert "Host controls" not in other.wait_for(lambda s: "q: leave" in s, timeout=5)
