"""The Tk client's lobby and its fields as a person uses them: readable columns, live tables first and
finished ones hidden, a create form that remembers its values and says when you will only watch, Return
to create, Ctrl+A in a text field. A real window under Xvfb, a real server on a loopback port, real keys.
"""

from __future__ import annotations

import asyncio

import tk_helpers
from tk_helpers import TkDriver, widget_layout_problems
from toadstool.api.v1 import table_pb2
from toadstool.server.app import RunningServer
from toadstool_clients.connection import Client
from toadstool_clients.tk.connect import ConnectScreen
from toadstool_clients.tk.lobby import LobbyScreen
from toadstool_clients.tk.table import TableScreen

display = tk_helpers.display
driver = tk_helpers.driver


async def finished_table(client: Client, name: str) -> str:
    """A table of bots only, played to its end by the server (Pig to 10 ends in a few moves)."""
    created = await client.create_table("pig", 2, bots=2, options={"target": "10"}, name=name)
    table_id = created.table.table_id
    for _ in range(200):
        tables = {t.table_id: t for t in await client.list_tables()}
        if tables[table_id].status == table_pb2.TABLE_STATUS_FINISHED:
            return table_id
        await asyncio.sleep(0.05)
    raise TimeoutError("the bots' table did not finish")


async def test_the_lobby_lists_open_tables_first_and_shows_finished_ones_only_when_asked(
    driver: TkDriver, server: RunningServer, client: Client
) -> None:
    done = await finished_table(client, "Yesterday's game")
    playing = (await client.create_table("uno", 2, bots=1, name="A game on")).table
    await client.join(playing.table_id, "Luigi")  # the last seat taken: the game starts
    waiting = (await client.create_table("uno", 3, bots=1, name="Zelda's table")).table
    lobby = await driver.connect(server.address)
    await driver.pump(lambda: waiting.table_id in lobby.tree.get_children(), 10, "the tables")
    rows = list(lobby.tree.get_children())
    assert done not in rows, "finished tables are hidden"
    assert rows.index(waiting.table_id) < rows.index(playing.table_id), "tables with open seats come first"
    driver.root.geometry("760x520")
    await driver.settle(0.3)
    assert not widget_layout_problems(driver.root)
    width = lobby.tree.winfo_width()
    columns = sum(int(lobby.tree.column(c, "width")) for c in lobby.tree["columns"])
    assert columns <= width, f"the columns ({columns} px) are cut off in a {width} px list"
    driver.screenshot("lobby-760x520", tk_helpers.TK_SCREENSHOTS)
    lobby.finished_box.invoke()  # as its click does (an xdotool click missed it twice in loaded CI runs)
    await driver.pump(lambda: done in lobby.tree.get_children(), 20, "the finished table")
    assert list(lobby.tree.get_children())[-1] == done, "finished tables come last"


async def test_the_create_form_remembers_its_values_and_says_when_every_seat_is_a_bot(
    driver: TkDriver, server: RunningServer
) -> None:
    lobby = await driver.connect(server.address)
    lobby.select_game("kart")
    lobby.players_var.set("3")
    lobby.bots_var.set("3")
    lobby.level_var.set("hard")
    lobby.set_option("track", "mini-loop")
    await driver.settle(0.1)
    assert lobby.create_button.cget("text") == "Create and watch"
    assert "watch" in lobby.seat_note.cget("text")
    driver.click(lobby.create_button)
    await driver.pump(lambda: isinstance(driver.app.screen, TableScreen), 10, "watching")
    assert driver.table.seat is None
    table = server.registry.tables[driver.table.table_id]
    assert [seat.bot_level for seat in table.seats] == [3, 3, 3]  # the form's level: every bot plays hard
    driver.table.back_to_lobby()
    again = driver.app.screen
    assert isinstance(again, LobbyScreen)
    assert again.selected_game() is not None
    assert again.selected_game().name == "kart"  # type: ignore[union-attr]
    assert (again.players_var.get(), again.bots_var.get(), again.level_var.get()) == ("3", "3", "hard")
    assert again.option_values()["track"] == "mini-loop"
    shown = [str(label.cget("text")) for label in again.help_labels]
    assert shown, "the track's help is in the form"
    assert not any("`" in text or "toadstool tracks" in text for text in shown), shown
    assert again.option_vars["track"].get() == "Mini Loop"  # type: ignore[no-untyped-call]
    again.bots_var.set("2")
    await driver.settle(0.05)
    assert again.create_button.cget("text") == "Create and sit down"
    assert not again.seat_note.cget("text")


async def test_return_in_the_create_form_creates_the_table(driver: TkDriver, server: RunningServer) -> None:
    lobby = await driver.connect(server.address)
    lobby.select_game("uno")
    lobby.name_var.set("Quick game")
    entry = next(w for w in lobby.form.winfo_children() if "Entry" in w.winfo_class() and w.cget("width") == 20)
    driver.key("Return", widget=entry)
    await driver.pump(lambda: isinstance(driver.app.screen, TableScreen), 10, "the table screen")
    assert driver.table.window_title == "Quick game"


async def test_ctrl_a_in_a_text_field_selects_all_of_it(driver: TkDriver) -> None:
    screen = driver.app.screen
    assert isinstance(screen, ConnectScreen)
    screen.address.set("192.168.1.20:50051")
    screen.address_entry.icursor("end")
    driver.key("ctrl+a", widget=screen.address_entry)
    await driver.pump(lambda: screen.address_entry.selection_present(), 5, "the selection")
    assert screen.address_entry.index("sel.first") == 0
    assert screen.address_entry.index("sel.last") == len("192.168.1.20:50051")
    driver.key("BackSpace", widget=screen.address_entry)
    await driver.pump(lambda: screen.address.get() == "", 5, "the field to be emptied")


async def test_leaving_a_game_says_when_a_bot_takes_the_seat_and_the_lobby_tells_the_truth_about_it(
    driver: TkDriver, server: RunningServer, client: Client
) -> None:
    # slow bots (a second a move): the game is still on when the bot has taken the seat over
    created = await client.create_table("uno", 2, bots=1, name="Quick", takeover_seconds=2, bot_delay_ms=1000)
    table_id = created.table.table_id
    lobby = await driver.connect(server.address)
    await driver.pump(lambda: table_id in lobby.tree.get_children(), 10, "the table in the list")
    lobby.tree.selection_set(table_id)
    await driver.settle(0.1)
    driver.click(lobby.join_button)
    await driver.pump(lambda: isinstance(driver.app.screen, TableScreen), 10, "the table screen")
    table = driver.table
    await driver.pump(
        lambda: table.latest is not None and table.latest.status == table_pb2.TABLE_STATUS_PLAYING, 10, "the game"
    )
    driver.hover(table.back_button, 10, 10)  # the pointer on the button says what leaving does
    await driver.pump(lambda: "Back to lobby: a bot plays your seat after 2 s" in table.status.cget("text"), 5, "hint")
    driver.screenshot("back-to-lobby-hint", tk_helpers.ROOT / "shots")
    driver.click(table.back_button)
    await driver.pump(lambda: isinstance(driver.app.screen, LobbyScreen), 10, "the lobby")
    lobby = driver.app.screen
    assert isinstance(lobby, LobbyScreen)
    note = lobby.status.cget("text")
    assert "if you are not back within 2 s, a bot plays your seat 1 until you are" in note
    assert "choose the table and Join" in note
    await driver.pump(lambda: table_id in lobby.cells, 10, "the table in the list")
    assert lobby.tree.selection() == (table_id,), "the table just left is chosen"
    await driver.pump(
        lambda: "a bot plays it until you are back" in lobby.cells.get(table_id, ("",) * 4)[3],
        20,
        "the bot to take the seat",
    )
    assert "a bot plays it until you are back" in lobby.detail.cget("text")
    driver.click(lobby.join_button)  # back to the seat: the person plays it again
    await driver.pump(lambda: isinstance(driver.app.screen, TableScreen), 10, "the table again")
    assert driver.table.seat == 0
