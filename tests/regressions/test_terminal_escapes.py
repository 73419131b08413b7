"""Regression: text a LAN client controls reaches other players' terminals with its escape sequences intact.

UNO's `house_rule` option (OptionKind.TEXT) is stored and put in every view uncleaned, and the terminal
draws it with rich `Text`, which does not remove ESC: anyone who creates a table can clear, retitle or
rewrite the screen of everyone who plays or watches it.
"""

from __future__ import annotations

import asyncio
import io
from collections import deque

from rich.console import Console

from toadstool.api.v1 import table_pb2
from toadstool.server.app import RunningServer
from toadstool_clients.connection import Client
from toadstool_clients.terminal.app import render_update

HOSTILE = "\x1b]0;owned\x07\x1b[2J\x1b[31mfree cake"


def _screen(update: table_pb2.Update) -> str:
    out = io.StringIO()
    Console(file=out, force_terminal=True, width=120, color_system="standard").print(render_update(update, deque()))
    return out.getvalue()


async def test_a_text_option_cannot_put_escape_sequences_on_other_players_screens(server: RunningServer) -> None:
    async with Client(server.address) as client:
        created = await client.create_table("uno", 2, seed=31, options={"house_rule": HOSTILE}, bot_delay_ms=60_000)
        table_id = created.table.table_id
        bob = await client.join(table_id, "Bob", 0)
        await client.join(table_id, "Cy", 1)
        call = client.watch(table_id, bob.seat_token)
        update = (await asyncio.wait_for(call.read(), 10)).update
        call.cancel()
        info = await client.get_table(table_id)
    assert "\x1b" not in update.view.uno.house_rule, "the server sends the raw escape sequences in every view"
    assert "\x1b" not in "".join(info.options.values()), "TableInfo.options carries them too"
    screen = _screen(update)
    assert "\x1b]0;owned" not in screen
    assert "\x1b[2J" not in screen


def test_the_terminal_strips_escapes_from_anything_the_server_sends() -> None:
    """Defence in depth (SECURITY.md: "Clients escape them again when they draw them (rich Text...)")."""
    update = table_pb2.Update(
        table_id="t1", game="uno", table_name=HOSTILE, phase=HOSTILE, status=table_pb2.TABLE_STATUS_PLAYING
    )
    update.seats.add(index=0, name=HOSTILE, kind=table_pb2.SEAT_KIND_HUMAN)
    update.legal_actions.add(id="x", label=HOSTILE)
    screen = _screen(update)
    assert "\x1b]0;owned" not in screen
    assert "\x1b[2J" not in screen
