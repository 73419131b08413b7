"""Listening for servers on the LAN from the Tk window where it cannot be done as usual: a machine without
IPv6, and a network interface that is not there. Discovery then works on IPv4 alone, or fails quietly with
one plain line in the window; never a traceback.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
from pathlib import Path
from typing import Any

import pytest

import tk_helpers
from conftest import toadstool_command
from tk_helpers import TkDriver, close_app, open_app
from toadstool.server.app import RunningServer
from toadstool_clients.discovery import browse_async
from toadstool_clients.tk.connect import ConnectScreen

display = tk_helpers.display
driver = tk_helpers.driver

#: A socket class that refuses IPv6 as a kernel without IPv6 does (socket(AF_INET6) fails with EAFNOSUPPORT).
NO_IPV6_SOCKET = """
import errno, socket


class NoIPv6Socket(socket.socket):
    def __init__(self, family=-1, *args, **kwargs):
        if family == socket.AF_INET6:
            raise OSError(errno.EAFNOSUPPORT, "Address family not supported by protocol")
        super().__init__(family, *args, **kwargs)
"""
#: Loaded by the `toadstool tk` process of the test (PYTHONPATH): every socket of that process refuses IPv6.
NO_IPV6 = NO_IPV6_SOCKET + "\nsocket.socket = NoIPv6Socket\n"


async def test_toadstool_tk_on_a_machine_without_ipv6_connects_and_prints_no_traceback(
    display: str, tmp_path: Path, server: RunningServer
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(NO_IPV6)
    config = tmp_path / "config"
    env = {**os.environ, "XDG_CONFIG_HOME": str(config), "DISPLAY": display, "PYTHONPATH": str(site)}
    process = await asyncio.create_subprocess_exec(
        *toadstool_command("tk", "--server", server.address),
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        settings = config / "toadstool" / "tk.json"
        for _ in range(400):  # written once the window has connected (and reached the lobby)
            if settings.exists():
                break
            await asyncio.sleep(0.05)
        assert json.loads(settings.read_text())["address"] == server.address
        await asyncio.sleep(3)  # the LAN is listened to for two seconds after the window opens
        assert process.returncode is None
    finally:
        process.terminate()
        out, err = await asyncio.wait_for(process.communicate(), 10)
    assert b"Traceback" not in err, err.decode(errors="replace")
    assert b"Traceback" not in out, out.decode(errors="replace")
    assert b"zeroconf" not in err.lower(), err.decode(errors="replace")


async def test_discovery_that_cannot_listen_says_so_in_one_plain_line(driver: TkDriver) -> None:
    close_app(driver.app)
    app = driver.app = open_app(discovery_interfaces=["203.0.113.1"])  # an interface this machine lacks
    driver.root = app.root
    screen = app.screen
    assert isinstance(screen, ConnectScreen)
    await driver.pump(lambda: screen.finding is None, 15, "the listening to end")
    lines = list(screen.servers.get(0, "end"))
    assert lines == ["Cannot listen for servers here; type an address above."]
    assert str(screen.find_button.state()) in ("()", "''") or "disabled" not in screen.find_button.state()


async def test_discovery_on_a_machine_without_ipv6_listens_on_ipv4(monkeypatch: pytest.MonkeyPatch) -> None:
    """The window's discovery (browse_async) where IPv6 sockets are refused: it listens on IPv4 alone and
    hears only IPv4 servers, instead of failing (before: OSError EAFNOSUPPORT from its dual-stack socket).
    Another test may be announcing a server on loopback at the same moment, so what it hears is not fixed."""
    made: dict[str, Any] = {}
    exec(NO_IPV6_SOCKET, made)
    monkeypatch.setattr(socket, "socket", made["NoIPv6Socket"])
    found = await browse_async(1.0, ["127.0.0.1"])
    assert isinstance(found, list)
    assert all(":" not in address for server in found for address in server.addresses), found
