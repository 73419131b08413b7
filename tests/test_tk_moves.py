"""Your own moves at the Tk table: one sent on a view the table has since moved past is sent again while it
is still offered, or said in a plain sentence when it is not (never the server's raw version message); and
your last move with what came of it stays in view under the action bar until you move again.

A real window under Xvfb against a real server on a loopback port; the other seat is a second real client.
The window's loop is pumped by the test, so "the table moved on before the window saw it" is made exactly:
the other seat acts, and the window sends its move before it has drawn the newer update.
"""

from __future__ import annotations

import tk_helpers
from tk_helpers import TkDriver
from toadstool.api.v1 import table_pb2
from toadstool.server.app import RunningServer
from toadstool_clients.connection import Client
from toadstool_clients.tk.lobby import LobbyScreen
from toadstool_clients.tk.table import TableScreen

display = tk_helpers.display
driver = tk_helpers.driver

#: Power Up, two seats, seed 5: seat 1 decides first (keep or trade) while seat 0 may already play its
#: 1-Up Mushroom (an any-time card), and still may after seat 1 has kept.
ONE_UP = "play_card:card=one_up_mushroom"


async def seated_at_power_up(driver: TkDriver, server: RunningServer, client: Client) -> tuple[TableScreen, str]:
    """The window in seat 0 of a fresh two-seat Power Up table and the other seat's token (for `client`)."""
    created = await client.create_table("powerup", 2, 0, {}, 5, "Duel")
    table_id = created.table.table_id
    lobby = await driver.connect(server.address)
    assert isinstance(lobby, LobbyScreen)
    await driver.pump(lambda: table_id in lobby.tree.get_children(), 10, "the table in the list")
    lobby.tree.selection_set(table_id)
    await driver.settle(0.1)
    driver.click(lobby.join_button)
    await driver.pump(lambda: isinstance(driver.app.screen, TableScreen), 10, "the table screen")
    table = driver.table
    assert table.seat == 0
    other = await client.join(table_id, "Rival")
    await driver.pump(
        lambda: table.latest is not None and ONE_UP in {a.id for a in table.offered_actions()}, 10, "the 1-Up"
    )
    return table, other.seat_token


def offered(table: TableScreen, action_id: str) -> table_pb2.LegalAction:
    return next(a for a in table.offered_actions() if a.id == action_id)


def log_text(table: TableScreen) -> str:
    return table.log.get("1.0", "end")


async def test_a_move_sent_on_an_older_view_is_sent_again_while_it_is_still_offered(
    driver: TkDriver, server: RunningServer, client: Client
) -> None:
    table, rival = await seated_at_power_up(driver, server, client)
    assert table.latest is not None
    seen = table.latest.version
    await client.act(table.table_id, rival, seen, "keep")  # the table moves on; the window has not seen it
    table.act(offered(table, ONE_UP))  # sent on the older version: refused, then sent again
    await driver.pump(lambda: "1-Up" in table.last_move.cget("text"), 15, "the move to land")
    assert table.latest is not None
    assert table.latest.version > seen + 1, "both moves were made"
    status = table.status.cget("text")
    assert "version" not in status
    assert "too late" not in status
    assert ONE_UP not in {a.id for a in table.offered_actions()}, "the card was played"


async def test_a_move_no_longer_offered_is_said_in_a_plain_sentence(
    driver: TkDriver, server: RunningServer, client: Client
) -> None:
    table, rival = await seated_at_power_up(driver, server, client)
    assert table.latest is not None
    assert table.token is not None
    seen = table.latest.version
    card = offered(table, ONE_UP)
    await client.act(table.table_id, rival, seen, "keep")
    await client.act(table.table_id, table.token, seen + 1, ONE_UP)  # played meanwhile (the same seat elsewhere)
    table.act(card)
    await driver.pump(lambda: "too late" in table.status.cget("text"), 15, "the refusal")
    status = table.status.cget("text")
    assert status.startswith("“Play 1-Up Mushroom")
    assert "the table had moved on, so it was not made" in status
    assert "version" not in status
    assert table.acting is None


async def test_your_last_move_and_its_result_stay_in_view_while_the_others_play(
    driver: TkDriver, server: RunningServer, client: Client
) -> None:
    table, rival = await seated_at_power_up(driver, server, client)
    assert table.latest is not None
    table.act(offered(table, ONE_UP))
    await driver.pump(lambda: "→" in table.last_move.cget("text"), 15, "the move and its result")
    shown = table.last_move.cget("text")
    assert shown.startswith("Your last move: Play 1-Up Mushroom")
    assert table.latest is not None
    await client.act(table.table_id, rival, table.latest.version, "keep")  # the other seat plays on
    await driver.pump(lambda: table.seat in table.latest.to_act, 10, "the window's turn")  # type: ignore[union-attr]
    await driver.settle(0.2)
    assert table.last_move.cget("text") == shown, "the others' moves do not push yours out of view"
    driver.screenshot("last-move", tk_helpers.ROOT / "shots")
