"""LAN discovery over real mDNS: a server announced in one process is heard by `toadstool discover` in
another (multicast on loopback), its TXT record follows its tables, and a withdrawn server is reported
gone. A server bound to every interface is found from a second network namespace over a veth pair and
played against at the address it announced (addresses 198.18.77.0/24, inside the test's namespaces only).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import textwrap
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from conftest import serve_command, stop_process, toadstool_command
from toadstool.games import GAMES
from toadstool.server.app import RunningServer
from toadstool.server.discovery import announce, announced_addresses, instance_name, registry_info
from toadstool_clients.connection import Client
from toadstool_clients.discovery import Found, browse_async, clean_text, offer

LOOPBACK = ["127.0.0.1"]


def _unique(prefix: str) -> str:
    """Tests in parallel share the loopback mDNS group, so each looks only for its own server's name."""
    return f"{prefix} {uuid.uuid4().hex[:8]}"


async def _next_change(process: asyncio.subprocess.Process, name: str, kind: str, seconds: float) -> dict[str, object]:
    """The next JSON line of `toadstool discover --watch --json` about server `name` with change `kind`."""
    assert process.stdout is not None
    deadline = time.monotonic() + seconds
    while (remaining := deadline - time.monotonic()) > 0:
        try:
            line = await asyncio.wait_for(process.stdout.readline(), remaining)
        except TimeoutError:
            break
        if not line:
            break
        change = json.loads(line)
        if change["name"] == name and change["change"] == kind:
            return dict(change)
    raise AssertionError(f"`toadstool discover` did not report {name!r} {kind} within {seconds} s")


async def test_discover_in_another_process_hears_a_server_its_tables_and_its_goodbye(server: RunningServer) -> None:
    name = _unique("Mushroom Kingdom")
    discover = await asyncio.create_subprocess_exec(
        *toadstool_command("discover", "--watch", "--json", "--seconds", "30", "--interface", "127.0.0.1"),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        await asyncio.sleep(0.5)  # let the browser join the group before the first announcement
        info = registry_info(server.registry, tls=False)
        async with announce("127.0.0.1", server.port, name, info, refresh_seconds=0.3) as announcement:
            assert announcement is not None
            added = await _next_change(discover, name, "added", 15)
            assert added["address"] == server.address
            assert added["games"] == list(GAMES)
            assert (added["tables"], added["open_tables"], added["tls"]) == (0, 0, False)
            assert added["version"]

            # The announced address is a working server address.
            async with Client(str(added["address"])) as client:
                await client.create_table("uno", players=2, bots=1)
            updated = await _next_change(discover, name, "updated", 10)
            assert (updated["tables"], updated["open_tables"]) == (1, 1)

        removed = await _next_change(discover, name, "removed", 10)
        assert removed["address"] == server.address
    finally:
        if discover.returncode is None:
            discover.terminate()
        await asyncio.wait_for(discover.wait(), 10)


async def test_browse_and_discover_list_an_announced_server_and_forget_it_once_withdrawn(
    server: RunningServer,
) -> None:
    name = _unique("Toad Town")
    async with announce("127.0.0.1", server.port, name, registry_info(server.registry, tls=True)):
        listing = await asyncio.create_subprocess_exec(
            *toadstool_command("discover", "--seconds", "2.5", "--interface", "127.0.0.1"),
            stdout=asyncio.subprocess.PIPE,
        )
        found, (out, _) = await asyncio.gather(browse_async(2.5, LOOPBACK), asyncio.wait_for(listing.communicate(), 30))
        lines = out.decode().splitlines()
        assert lines[0].split() == ["NAME", "ADDRESS", "GAMES", "TABLES", "OPEN", "TLS"]
        row = next(line for line in lines if line.startswith(name))
        assert row.removeprefix(name).split() == [server.address, ",".join(GAMES), "0", "0", "yes"]
        heard = [f for f in found if f.name == name]
        assert len(heard) == 1
        assert heard[0].address == server.address
        assert heard[0].tls is True
        assert heard[0].tables == 0
    heard_after = [f for f in await browse_async(2.0, LOOPBACK) if f.name == name]
    assert heard_after == []


def test_a_wildcard_bind_announces_the_non_loopback_addresses_and_a_specific_bind_only_itself() -> None:
    assert announced_addresses("127.0.0.1") == ["127.0.0.1"]
    everywhere = announced_addresses("0.0.0.0")
    assert "127.0.0.1" not in everywhere
    assert all(":" not in address for address in everywhere)


def test_hostile_names_are_cleaned_before_announcing_and_before_printing() -> None:
    assert instance_name("Evil\x1b[2J.server\n") == "Evil [2J server"
    assert len(instance_name("Ü" * 100).encode()) <= 63
    assert instance_name("\x00\x01") == "Toadstool"
    assert clean_text("Luigi\x1b]0;pwned\x07\u202e") == "Luigi]0;pwned"


def test_offer_lets_a_person_pick_a_server_or_quit() -> None:
    servers = [
        Found(name="Alpha", addresses=("192.0.2.10",), port=50051, games=("uno",), tables=2, open_tables=1),
        Found(name="Beta", addresses=("2001:db8::1",), port=50052, tls=True),
    ]
    said: list[str] = []
    answers = iter(["7", "2"])
    chosen = offer(servers, ask=lambda _prompt: next(answers), say=said.append)
    assert chosen is servers[1]
    assert chosen.address == "[2001:db8::1]:50052"
    assert "Type a number from 1 to 2." in said
    assert any("Alpha at 192.0.2.10:50051" in line and "2 tables, 1 open" in line for line in said)
    assert offer(servers, ask=lambda _prompt: "", say=said.append) is servers[0]
    assert offer(servers, ask=lambda _prompt: "q", say=said.append) is None
    assert offer([], ask=lambda _prompt: "1", say=said.append) is None


# --- Between network namespaces: the wildcard bind, as on a real LAN -----------------------------------

SERVER_SCRIPT = textwrap.dedent(
    """
    import asyncio, sys
    from toadstool.server.discovery import announce, registry_info
    from toadstool.server.app import ServerConfig, running_server

    async def main() -> None:
        config = ServerConfig(host="0.0.0.0", port=int(sys.argv[1]), bot_delay=0.0, grace=0.5)
        async with running_server(config) as running:
            async with announce("0.0.0.0", running.port, sys.argv[2], registry_info(running.registry, False)):
                print("ready", flush=True)
                await asyncio.sleep(float(sys.argv[3]))

    asyncio.run(main())
    """
)


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=10)


@pytest.fixture
def two_namespaces() -> Iterator[tuple[str, str]]:
    """Two fresh network namespaces joined by a veth pair: 198.18.77.1/24 and 198.18.77.2/24."""
    tag = f"{os.getpid() % 100000}{uuid.uuid4().hex[:4]}"
    server_ns, client_ns = f"ts-s{tag}", f"ts-c{tag}"
    _ip("netns", "add", server_ns)
    try:
        _ip("netns", "add", client_ns)
        _ip("link", "add", f"tsv{tag}", "netns", server_ns, "type", "veth", "peer", "name", "tsp", "netns", client_ns)
        for ns, link, address in ((server_ns, f"tsv{tag}", "198.18.77.1/24"), (client_ns, "tsp", "198.18.77.2/24")):
            _ip("-n", ns, "link", "set", "lo", "up")
            _ip("-n", ns, "addr", "add", address, "dev", link)
            _ip("-n", ns, "link", "set", link, "up", "multicast", "on")
        yield server_ns, client_ns
    finally:
        for ns in (server_ns, client_ns):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=10, check=False)


def test_a_server_bound_to_every_interface_is_found_and_played_from_another_network_namespace(
    two_namespaces: tuple[str, str], tmp_path: Path
) -> None:
    server_ns, client_ns = two_namespaces
    name = _unique("Star Road")
    script = tmp_path / "serve_and_announce.py"
    script.write_text(SERVER_SCRIPT)
    server = subprocess.Popen(
        ["ip", "netns", "exec", server_ns, sys.executable, str(script), "50051", name, "40"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        assert server.stdout.readline().strip() == "ready"
        discovered = subprocess.run(
            ["ip", "netns", "exec", client_ns, *toadstool_command("discover", "--json", "--seconds", "3")],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert discovered.returncode == 0, discovered.stderr
        found = [json.loads(line) for line in discovered.stdout.splitlines()]
        assert [(f["name"], f["addresses"], f["port"]) for f in found] == [(name, ["198.18.77.1"], 50051)]

        games = subprocess.run(
            ["ip", "netns", "exec", client_ns, *toadstool_command("games", "--server", found[0]["address"])],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert games.returncode == 0, games.stderr
        assert "uno" in games.stdout
    finally:
        stop_process(server)


@pytest.fixture
def empty_namespace() -> Iterator[str]:
    """A fresh network namespace with only its own loopback: nobody else announces there."""
    ns = f"ts-e{os.getpid() % 100000}{uuid.uuid4().hex[:4]}"
    _ip("netns", "add", ns)
    try:
        _ip("-n", ns, "link", "set", "lo", "up", "multicast", "on")
        yield ns
    finally:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=10, check=False)


def test_discover_says_so_when_no_server_answers(empty_namespace: str) -> None:
    result = subprocess.run(
        ["ip", "netns", "exec", empty_namespace, *toadstool_command("discover", "--seconds", "1")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 1
    assert result.stdout == ""
    assert "No Toadstool servers heard in 1 s" in result.stderr


def test_toadstool_serve_announces_itself_and_the_terminal_client_offers_it_when_no_address_is_given(
    empty_namespace: str, tmp_path: Path
) -> None:
    """`toadstool serve` (announcing by default) and `toadstool tables` without --server, at a terminal,
    both inside a namespace of their own so the client's browse on every interface stays there."""
    name = _unique("Yoshi Island")
    env = {k: v for k, v in os.environ.items() if k not in {"TOADSTOOL_SERVER", "TOADSTOOL_TLS_CA"}}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    in_ns = ["ip", "netns", "exec", empty_namespace]
    serve = serve_command(50051, "--no-db", "--bot-delay", "0", "--min-bot-delay", "0", "--name", name)
    server = subprocess.Popen([*in_ns, *serve], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        assert "listening on 127.0.0.1:50051" in server.stdout.readline()
        new = subprocess.run(
            [*in_ns, *toadstool_command("new", "uno", "--players", "2", "--server", "127.0.0.1:50051")],
            env=env,
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert new.returncode == 0, new.stderr
        table_id = new.stdout.split()[0]

        child = pexpect.spawn(in_ns[0], [*in_ns[1:], *toadstool_command("tables")], env=env, timeout=20)
        try:
            child.expect_exact("Toadstool servers on this network:")
            child.expect_exact(f"1. {name} at 127.0.0.1:50051: games {', '.join(GAMES)};")
            child.expect_exact("Server [1-1, Enter for 1, q to quit]: ")
            child.sendline("1")
            child.expect_exact(table_id)
            child.expect(pexpect.EOF, timeout=60)
        finally:
            child.close(force=True)
        assert child.exitstatus == 0
    finally:
        stop_process(server)


def test_toadstool_serve_on_uvloop_is_announced_and_heard_with_its_web_page(tmp_path: Path) -> None:
    # The real command, on its default loop (uvloop): zeroconf's multicast, grpc.aio and uvicorn all on it.
    from conftest import TEST_LIMIT_FLAGS, start_serve

    name = _unique("Uvloop Castle")
    process, address = start_serve(
        "--host",
        "127.0.0.1",
        "--no-db",
        "--web-port",
        "0",
        "--name",
        name,
        *TEST_LIMIT_FLAGS,
        output=tmp_path / "serve.log",
    )
    try:
        assert "uvloop/loop." in Path(f"/proc/{process.pid}/maps").read_text()
        found: list[dict[str, object]] = []
        for _ in range(3):  # a few tries: other tests' servers share the loopback group
            discovered = subprocess.run(
                toadstool_command("discover", "--json", "--seconds", "3"),
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
            )
            assert discovered.returncode == 0, discovered.stderr
            found = [f for f in map(json.loads, discovered.stdout.splitlines()) if f["name"] == name]
            if found:
                break
        assert [f["address"] for f in found] == [address]
        web = re.search(r"https?://127\.0\.0\.1:(\d+)/", (tmp_path / "serve.log").read_text())
        assert web is not None
        with urllib.request.urlopen(f"http://127.0.0.1:{web.group(1)}/", timeout=10) as page:
            assert page.status == 200
            assert b"<html" in page.read().lower()
    finally:
        stop_process(process)
