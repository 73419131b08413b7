"""The Tk client in a real window under Xvfb, against a real server on a loopback port.

Each game test creates a table with bots from the lobby, plays it to the end by clicking what the window
offers (drawn pieces with the real mouse, action buttons), and saves a screenshot of the game screen under
test-output/screenshots/ for a person to look at.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import random
from collections.abc import Callable
from pathlib import Path

import tk_helpers
from conftest import toadstool_command
from tk_helpers import TkDriver, close_app, open_app
from toadstool.api.v1 import table_pb2
from toadstool.api.v1.levelup_pb2 import LEVEL_UP_STAGE_TURN
from toadstool.server.app import RunningServer, ServerConfig, running_server
from toadstool_clients.connection import Client
from toadstool_clients.names import default_player_name
from toadstool_clients.tk.connect import ConnectScreen
from toadstool_clients.tk.table import TableScreen

#: The window's fixtures (tests/tk_helpers.py).
display = tk_helpers.display
driver = tk_helpers.driver


async def play_game(
    driver: TkDriver,
    server: RunningServer,
    game: str,
    players: int,
    seed: int,
    options: dict[str, str] | None = None,
    worth_a_picture: Callable[[table_pb2.Update], bool] = lambda _update: True,
) -> None:
    await driver.connect(server.address)
    table = await driver.create_table(game, players, players - 1, seed, options)
    assert table.seat == 0
    counts = await driver.play_to_the_end(random.Random(seed), 70, game, worth_a_picture=worth_a_picture)
    update = table.latest
    assert update is not None
    assert update.status == table_pb2.TABLE_STATUS_FINISHED
    assert update.view.WhichOneof("game") == game
    assert table.fallback_note == "", f"the {game} screen fell back to the raw view"
    assert counts["piece_clicks"] > 0, f"nothing drawn was clicked: {counts}"
    driver.assert_never_waited_for_the_network()  # the window kept answering: it never waited for the server
    assert driver.app.root.title().startswith("Toadstool — ")


async def test_uno_is_played_to_the_end_by_clicking_cards_and_buttons(driver: TkDriver, server: RunningServer) -> None:
    await play_game(driver, server, "uno", 3, seed=11, options={"target": "40"})


async def test_power_up_is_played_to_the_end_from_the_window(driver: TkDriver, server: RunningServer) -> None:
    await play_game(driver, server, "powerup", 4, seed=5, worth_a_picture=lambda u: len(u.view.powerup.hand) >= 1)


async def test_level_up_is_played_to_the_end_from_the_window(driver: TkDriver, server: RunningServer) -> None:
    await play_game(
        driver, server, "levelup", 4, seed=3, worth_a_picture=lambda u: u.view.levelup.stage == LEVEL_UP_STAGE_TURN
    )


async def test_kart_race_is_driven_to_the_end_from_the_window(driver: TkDriver, server: RunningServer) -> None:
    await play_game(driver, server, "kart", 4, seed=9)


async def test_a_game_this_client_has_no_screen_for_is_played_on_its_generic_screen(
    driver: TkDriver, server: RunningServer
) -> None:
    """Pig (tests/plugin_games) has no message and no screen of its own: the generic screen shows its
    view's fields and the action bar its legal actions, to the end of the game."""
    await driver.connect(server.address)
    table = await driver.create_table("pig", 2, 1, seed=4, options={"target": "10"})
    counts = await driver.play_to_the_end(random.Random(4), 70, "pig")
    update = table.latest
    assert update is not None
    assert update.status == table_pb2.TABLE_STATUS_FINISHED
    assert update.view.WhichOneof("game") == "generic"
    assert table.fallback_note == "", "the generic screen fell back to the raw view"
    assert counts["button_presses"] > 0
    drawn = [
        table.canvas.itemcget(item, "text") for item in table.canvas.find_all() if table.canvas.type(item) == "text"
    ]
    assert any("Turn total" in text for text in drawn), drawn
    assert not any("fields {" in text for text in drawn), "raw protobuf on screen"


async def test_the_server_address_is_remembered_between_runs(driver: TkDriver, server: RunningServer) -> None:
    await driver.connect(server.address)
    saved = json.loads((Path(os.environ["XDG_CONFIG_HOME"]) / "toadstool" / "tk.json").read_text())
    assert saved["address"] == server.address
    close_app(driver.app)
    again = open_app()
    try:
        assert again.screen.address.get() == server.address
        TkDriver(again).screenshot("connect")
        assert again.root.title() == "Toadstool"
    finally:
        close_app(again)


async def test_a_lost_server_shows_a_banner_and_the_table_comes_back_when_the_server_does(
    driver: TkDriver, tmp_path: Path
) -> None:
    config = ServerConfig(host="127.0.0.1", port=0, bot_delay=0.0, grace=0.2, db=str(tmp_path / "t.db"))
    async with running_server(config) as first:
        await driver.connect(first.address)
        table = await driver.create_table("uno", 2, 1, seed=4, options={"target": "30"})
        await driver.pump(lambda: bool(table.action_buttons), 15, "my first turn")
        version = table.latest.version if table.latest else 0
    await driver.pump(lambda: driver.app.banner.winfo_ismapped(), 15, "the lost-server banner")
    banner = driver.app.banner.cget("text")
    assert "lost" in banner.lower()
    assert "))" not in banner, "brackets inside brackets"
    assert banner.endswith("Reconnecting…")
    for _ in range(40):  # the window keeps answering while the server is away: it never waits for it
        driver.turn()
        await asyncio.sleep(0.01)
    driver.assert_never_waited_for_the_network()
    async with running_server(dataclasses.replace(config, port=first.port)):  # back at the same address
        await driver.pump(
            lambda: not driver.app.banner.winfo_ismapped() and table.connected, 20, "the banner to go away"
        )
        assert table.latest is not None
        assert table.latest.version >= version
        assert "Reconnected" in table.status.cget("text")
        before = table.latest.version
        next(iter(table.action_buttons.values())).invoke()
        await driver.pump(lambda: table.latest is not None and table.latest.version > before, 15, "a move after")


async def test_a_spectator_sees_the_table_without_actions_and_a_resize_redraws_it(
    driver: TkDriver, server: RunningServer
) -> None:
    lobby = await driver.connect(server.address)
    lobby.select_game("kart")
    lobby.players_var.set("3")
    lobby.bots_var.set("3")
    lobby.set_option("track", "mini-loop")
    lobby.create_button.invoke()
    await driver.pump(lambda: isinstance(driver.app.screen, TableScreen), 15, "watching the bots' table")
    table = driver.table
    await driver.pump(
        lambda: table.latest is not None and table.latest.status == table_pb2.TABLE_STATUS_FINISHED, 30, "the end"
    )
    await driver.settle(0.2)
    assert table.token is None
    assert not table.action_buttons
    offered = table.bar.note
    assert "Watching" in offered or "over" in offered, offered
    assert table.fallback_note == ""
    drawn = table.draw_count
    driver.root.geometry("1000x660")
    await driver.pump(lambda: table.draw_count > drawn and table.redraw_pending is None, 10, "a redraw")
    await driver.settle(0.1)
    width = table.canvas.winfo_width()
    assert width < 800, f"the canvas is still {width} px wide"
    canvas = table.canvas
    pieces = [item for item in canvas.find_all() if canvas.type(item) in ("text", "oval", "polygon")]
    assert max(canvas.bbox(item)[2] for item in pieces) <= width + 10, "the redraw fits the smaller window"
    driver.screenshot("kart-spectator-small")


async def test_a_view_with_fields_this_client_does_not_know_is_shown_as_raw_text(
    driver: TkDriver, server: RunningServer
) -> None:
    await driver.connect(server.address)
    table = await driver.create_table("uno", 2, 1, seed=8, options={"target": "30"})
    await driver.pump(lambda: table.redraw_pending is None and table.draw_count > 0, 10, "the first drawing")
    assert table.latest is not None
    newer = table_pb2.Update()
    newer.CopyFrom(table.latest)
    # field 99 of UnoView, as a newer server might send it: tag (99 << 3 | 0) as a varint, then the value 1
    extra = newer.view.uno.SerializeToString() + bytes([0x98, 0x06, 0x01])
    newer.view.uno.ParseFromString(extra)
    newer.version += 1
    table.receive(newer)
    await driver.pump(lambda: table.redraw_pending is None, 10, "the redraw")
    assert table.fallback_note == "unknown fields"
    texts = " ".join(
        table.canvas.itemcget(i, "text") for i in table.canvas.find_all() if table.canvas.type(i) == "text"
    )
    assert "hand_counts" in texts
    assert "does not know" in texts
    assert table.action_buttons, "the legal actions are still offered"


async def test_toadstool_tk_opens_a_window_titled_toadstool_and_connects_to_the_named_server(
    display: str, tmp_path: Path, server: RunningServer
) -> None:
    config = tmp_path / "config"
    env = {**os.environ, "XDG_CONFIG_HOME": str(config), "DISPLAY": display}
    process = await asyncio.create_subprocess_exec(
        *toadstool_command("tk", "--server", server.address),
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        search = await asyncio.create_subprocess_exec(
            *["xdotool", "search", "--sync", "--onlyvisible", "--pid", str(process.pid), "--name", "^Toadstool$"],
            env=env,
            stdout=asyncio.subprocess.PIPE,
        )
        found, _ = await asyncio.wait_for(search.communicate(), 20)
        assert found.strip(), "no window titled Toadstool"
        settings = config / "toadstool" / "tk.json"
        for _ in range(300):  # written once the window has connected (and reached the lobby)
            if settings.exists():
                break
            await asyncio.sleep(0.05)
        assert json.loads(settings.read_text())["address"] == server.address
        assert process.returncode is None
    finally:
        process.terminate()
        await asyncio.wait_for(process.wait(), 10)


async def test_names_from_the_network_are_drawn_as_plain_text(driver: TkDriver, server: RunningServer) -> None:
    screen = driver.app.screen
    screen.name.set("Bowser [destroy .] {😀}")
    lobby = await driver.connect(server.address)
    lobby.name_var.set("$env(HOME) [exit]")
    table = await driver.create_table("uno", 2, 1, seed=2, options={"target": "30"})
    await driver.pump(lambda: table.redraw_pending is None and table.draw_count > 0, 10, "the first drawing")
    assert driver.app.root.title() == "Toadstool — $env(HOME) [exit]"
    players = [driver.table.seats.item(row, "values")[1] for row in driver.table.seats.get_children()]
    full = "Bowser [destroy .] {\ufffd}"  # as typed, or cut to the column with "…"; "(you)" always whole
    shown = players[0].removesuffix(" (you)")
    assert players[0].endswith(" (you)")
    assert shown == full or (shown.endswith("…") and full.startswith(shown[:-1])), players[0]
    canvas = table.canvas
    texts = [canvas.itemcget(i, "text") for i in canvas.find_all() if canvas.type(i) == "text"]
    assert any("Bot 1" in text for text in texts)
    assert table.fallback_note == ""


async def test_the_lobby_lists_tables_and_joins_the_chosen_seat_or_watches(
    driver: TkDriver, server: RunningServer, client: Client
) -> None:
    created = await client.create_table("levelup", 3, bots=1, name="Peach's castle")
    table_id = created.table.table_id
    lobby = await driver.connect(server.address)
    await driver.pump(lambda: table_id in lobby.tree.get_children(), 10, "the table in the list")
    name, game, seats, status = lobby.cells[table_id]  # whole (the list shows them cut to its columns)
    assert (name, game) == ("Peach's castle", "Super Mario: Level Up!")
    assert seats.startswith("1/3")
    assert status.startswith("waiting for players")
    lobby.tree.selection_set(table_id)
    await driver.settle(0.1)
    assert lobby.seat_box["values"] == ("any open", "1", "2")
    lobby.seat_choice.set("2")
    driver.screenshot("lobby")
    driver.click(lobby.join_button)
    await driver.pump(lambda: isinstance(driver.app.screen, TableScreen), 10, "the table screen")
    assert driver.table.seat == 1
    await driver.pump(lambda: driver.table.latest is not None, 10, "the first update")
    assert driver.table.latest.status == table_pb2.TABLE_STATUS_LOBBY
    driver.table.back_to_lobby()
    lobby = driver.app.screen
    await driver.pump(lambda: table_id in lobby.tree.get_children(), 10, "the list again")
    assert lobby.cells[table_id][3].endswith("your seat 2")
    lobby.tree.selection_set(table_id)
    await driver.settle(0.1)
    driver.click(lobby.join_button)  # back to the same seat, not a second one
    await driver.pump(lambda: isinstance(driver.app.screen, TableScreen), 10, "the table again")
    assert driver.table.seat == 1
    await driver.pump(lambda: driver.table.latest is not None, 10, "the first update again")
    assert [s.kind for s in driver.table.latest.seats].count(table_pb2.SEAT_KIND_HUMAN) == 1
    driver.table.back_to_lobby()
    lobby = driver.app.screen
    await driver.pump(lambda: table_id in lobby.tree.get_children(), 10, "the list once more")
    lobby.tree.selection_set(table_id)
    await driver.settle(0.1)
    driver.click(lobby.watch_button)
    await driver.pump(lambda: isinstance(driver.app.screen, TableScreen), 10, "watching")
    assert driver.table.seat is None
    assert driver.table.role.cget("text") == "spectator"


async def test_the_host_waits_for_players_and_can_fill_a_seat_with_a_bot(
    driver: TkDriver, server: RunningServer
) -> None:
    await driver.connect(server.address)
    table = await driver.create_table("uno", 3, 1, seed=6, options={"target": "30"})
    await driver.pump(lambda: table.host_button is not None and table.redraw_pending is None, 10, "the waiting room")
    assert table.latest is not None
    assert table.latest.status == table_pb2.TABLE_STATUS_LOBBY
    driver.screenshot("waiting-room")
    driver.click(table.host_button)
    await driver.pump(
        lambda: table.latest is not None and table.latest.status == table_pb2.TABLE_STATUS_PLAYING, 10, "the start"
    )
    assert [s.kind for s in table.latest.seats].count(table_pb2.SEAT_KIND_BOT) == 2


async def test_a_refused_move_is_explained_in_the_status_line(driver: TkDriver, server: RunningServer) -> None:
    await driver.connect(server.address)
    table = await driver.create_table("uno", 2, 1, seed=12, options={"target": "30"})
    # A card played leaves the hand, so playing it again is refused whoever moved in between (a draw could
    # be offered again once the bot has moved, and would be accepted): draw until a card can be played.
    taken = None
    for _ in range(20):
        await driver.pump(lambda: bool(table.action_buttons) and table.acting is None, 15, "my turn")
        assert table.latest is not None
        taken = next((a for a in table.latest.legal_actions if a.id.startswith("play_card:")), None)
        if taken is not None:
            break
        drawn_at = table.latest.version
        table.act(table.latest.legal_actions[0])
        await driver.pump(
            lambda at=drawn_at: table.latest is not None and table.latest.version > at,
            15,
            "the draw",
        )
    assert taken is not None, "no card to play in 20 turns"
    version = table.latest.version
    table.act(taken)
    await driver.pump(lambda: table.latest is not None and table.latest.version > version, 15, "the move")
    table.act(taken)  # the same card again: no longer legal
    refusals = ("Not accepted", "came too late")  # not legal now, or a bot moved first (stale version)
    await driver.pump(
        lambda: table.acting is None and any(r in table.status.cget("text") for r in refusals), 15, "the refusal"
    )
    assert driver.app.screen is table


async def test_the_connect_screen_offers_servers_announced_on_the_lan(driver: TkDriver, server: RunningServer) -> None:
    from toadstool.server.discovery import announce, registry_info
    from toadstool_clients.tk.connect import ConnectScreen

    name = f"Game night {random.randrange(10**6)}"
    async with announce("127.0.0.1", server.port, name, registry_info(server.registry, tls=False)):
        screen = driver.app.screen
        assert isinstance(screen, ConnectScreen)
        await driver.pump(lambda: screen.finding is None, 15, "the first search")

        def heard() -> bool:
            return screen.finding is None and any(f.name == name for f in screen.found)

        # A search listens for a few seconds; on a busy machine (another test announcing and browsing at the
        # same time) the answer can miss one, so search again as a person would, up to three times.
        for _ in range(3):
            driver.click(screen.find_button)
            await driver.pump(lambda: screen.finding is not None, 15, "the click to start a search")
            await driver.pump(lambda: screen.finding is None, 20, "a search to end")
            if heard():
                break
        assert heard(), f"the announced server {name!r} was not in the list after three searches: {screen.found}"
        index = next(i for i, f in enumerate(screen.found) if f.name == name)
        assert name in screen.servers.get(index)
        screen.servers.selection_set(index)
        screen.servers.event_generate("<<ListboxSelect>>")
        await driver.settle(0.1)
        assert screen.address.get() == f"127.0.0.1:{server.port}"
        driver.click(screen.connect_button)
        await driver.pump(lambda: type(driver.app.screen).__name__ == "LobbyScreen", 15, "the lobby")


async def test_the_name_offered_is_the_login_name_as_every_client_offers_it(driver: TkDriver) -> None:
    """One default for every client: the Tk window offers what `toadstool join` takes without --name."""
    from toadstool.cli import _default_name

    screen = driver.app.screen
    assert isinstance(screen, ConnectScreen)
    assert screen.name.get() == default_player_name() == _default_name() == "Tester"
