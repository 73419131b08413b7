"""The host's controls in the Tk client (#25): start now, add a bot, remove a seat, let a bot play a seat and
end the table, from the Host menu and a seat's right-click menu; removing and ending are asked about
first; a refusal shows the server's own message; a window that is not the host is offered none of it.

A real window under Xvfb against a real server on a loopback port; the friends at the table are real
clients of that server; the pointer is xdotool's (the Host menu button, its entries, right-clicks on
seats, the confirmation's buttons).
"""

from __future__ import annotations

import subprocess
import tkinter as tk
from collections.abc import Callable

import pytest

import tk_helpers
from tk_helpers import TkDriver
from toadstool.api.v1 import table_pb2
from toadstool.server.app import RunningServer
from toadstool_clients.connection import Client
from toadstool_clients.tk.lobby import LobbyScreen
from toadstool_clients.tk.motion import Motion
from toadstool_clients.tk.table import TableScreen

display = tk_helpers.display
driver = tk_helpers.driver


@pytest.fixture(autouse=True)
def still(monkeypatch: pytest.MonkeyPatch) -> None:
    """Animations end at once."""
    monkeypatch.setattr(Motion, "frame_ms", 0)


def labels(menu: tk.Menu) -> list[str]:
    last = menu.index("end")
    return [] if last is None else [str(menu.entrycget(i, "label")) for i in range(last + 1)]


async def click_entry(driver: TkDriver, menu: tk.Menu, label: str) -> None:
    """Click a posted menu's entry with the real pointer, as a person picks it."""
    await driver.pump(menu.winfo_ismapped, 5, "the menu to open")
    index = labels(menu).index(label)
    y = menu.yposition(index) + 8
    driver.click(menu, 30, y)
    await driver.pump(lambda: not menu.winfo_ismapped(), 5, "the menu to close")


def assert_inside_the_window(driver: TkDriver, menu: tk.Menu) -> None:
    """A posted menu lies wholly inside the window (one running past its edge reads as cut off)."""
    root = driver.root
    window = (root.winfo_rootx(), root.winfo_rooty(), root.winfo_rootx() + root.winfo_width(),
              root.winfo_rooty() + root.winfo_height())  # fmt: skip
    box = (menu.winfo_rootx(), menu.winfo_rooty(), menu.winfo_rootx() + menu.winfo_width(),
           menu.winfo_rooty() + menu.winfo_height())  # fmt: skip
    assert window[0] <= box[0], f"the menu {box} starts left of the window {window}"
    assert window[1] <= box[1], f"the menu {box} starts above the window {window}"
    assert box[2] <= window[2], f"the menu {box} runs past the window's right edge {window}"
    assert box[3] <= window[3], f"the menu {box} runs past the window's bottom {window}"


async def host_menu(driver: TkDriver, table: TableScreen) -> list[str]:
    """Open the Host menu with a real click; its entries (left open for `click_entry`)."""
    driver.click(table.host.button)
    await driver.pump(table.host.menu.winfo_ismapped, 5, "the Host menu")
    assert_inside_the_window(driver, table.host.menu)
    return labels(table.host.menu)


async def choose_from_host_menu(driver: TkDriver, table: TableScreen, label: str) -> None:
    entries = await host_menu(driver, table)
    assert label in entries, entries
    await click_entry(driver, table.host.menu, label)


def right_click(driver: TkDriver, table: TableScreen, seat: int) -> None:
    """A real right-click (xdotool) on a seat's row."""
    driver.root.update_idletasks()
    x, y, width, height = table.seats.bbox(f"seat{seat}")
    px, py = table.seats.winfo_rootx() + x + width // 2, table.seats.winfo_rooty() + y + height // 2
    subprocess.run(["xdotool", "mousemove", str(px), str(py), "click", "3"], check=True, timeout=10)


async def seat_menu(driver: TkDriver, table: TableScreen, seat: int) -> list[str]:
    """Right-click a seat's row with the real pointer; the entries of the menu that opens there."""
    await driver.pump(lambda: bool(table.seats.bbox(f"seat{seat}")), 5, "the seat's row")
    right_click(driver, table, seat)
    await driver.pump(table.host.seat_menu.winfo_ismapped, 5, "the seat's menu")
    assert_inside_the_window(driver, table.host.seat_menu)
    return labels(table.host.seat_menu)


async def answer_yes(driver: TkDriver, table: TableScreen, question: str, shot: str) -> None:
    """The control asks first: the question is shown (and nothing sent yet); the real pointer says yes."""
    await driver.pump(lambda: question in table.host.asking, 5, f"the question {question!r}")
    await driver.settle(0.1)
    driver.screenshot(shot, tk_helpers.TK_SCREENSHOTS)
    driver.click(table.host.yes)


async def until(driver: TkDriver, table: TableScreen, test: Callable[[table_pb2.Update], bool], what: str) -> None:
    await driver.pump(lambda: table.latest is not None and test(table.latest), 15, what)


def seat(update: table_pb2.Update | table_pb2.TableInfo, index: int) -> table_pb2.Seat:
    return next(s for s in update.seats if s.index == index)


async def test_the_host_removes_a_friend_adds_a_bot_and_starts_now_from_the_host_menu(
    driver: TkDriver, server: RunningServer, client: Client
) -> None:
    await driver.connect(server.address)
    table = await driver.create_table("uno", 4, 0, seed=3, options={"target": "30"})
    assert table.host.button.winfo_ismapped(), "the host sees the Host menu"
    await client.join(table.table_id, "Luigi")
    await until(driver, table, lambda u: seat(u, 1).kind == table_pb2.SEAT_KIND_HUMAN, "Luigi to sit down")
    entries = await host_menu(driver, table)
    driver.screenshot("host-menu-lobby", tk_helpers.TK_SCREENSHOTS)
    assert entries == ["Start now (bots take the 2 open seats)", "Add a bot", "Remove Luigi", "End the table"]
    await click_entry(driver, table.host.menu, "Remove Luigi")
    await answer_yes(driver, table, "Remove Luigi from the table?", "host-confirm-remove")
    await until(driver, table, lambda u: seat(u, 1).kind == table_pb2.SEAT_KIND_EMPTY, "Luigi's seat to be open")
    assert not table.host.asking
    await choose_from_host_menu(driver, table, "Add a bot")
    await until(driver, table, lambda u: sum(s.kind == table_pb2.SEAT_KIND_BOT for s in u.seats) == 1, "a bot")
    await choose_from_host_menu(driver, table, "Start now (bots take the 2 open seats)")
    await until(driver, table, lambda u: u.status == table_pb2.TABLE_STATUS_PLAYING, "the game to start")
    assert table.latest is not None
    assert [s.kind for s in table.latest.seats if s.index] == [table_pb2.SEAT_KIND_BOT] * 3
    assert "Not" not in table.status.cget("text")


async def test_the_host_changes_a_bots_level_from_its_seat_in_the_lobby_and_in_play(
    driver: TkDriver, server: RunningServer
) -> None:
    await driver.connect(server.address)
    table = await driver.create_table("uno", 3, 2, seed=3, options={"target": "30"})
    await until(driver, table, lambda u: u.status == table_pb2.TABLE_STATUS_PLAYING, "the game to start")
    entries = await seat_menu(driver, table, 1)
    driver.screenshot("host-bot-level-menu", tk_helpers.TK_SCREENSHOTS)
    assert entries[:2] == ["Make Bot 1 easy (now normal)", "Make Bot 1 hard (now normal)"], entries
    await click_entry(driver, table.host.seat_menu, "Make Bot 1 hard (now normal)")
    await until(driver, table, lambda u: seat(u, 1).bot_level == 3, "Bot 1 to play hard")
    assert server.registry.tables[table.table_id].seats[1].bot_level == 3
    await driver.pump(lambda: table.seats.set("seat1", "state") == "hard bot", 5, "the seats to say so")
    assert table.seats.set("seat2", "state") == "bot"  # the other bot plays normal, as it did
    driver.screenshot("host-bot-level-hard", tk_helpers.TK_SCREENSHOTS)
    entries = await seat_menu(driver, table, 1)
    assert entries[:2] == ["Make Bot 1 easy (now hard)", "Make Bot 1 normal (now hard)"], entries
    table.host.seat_menu.unpost()


async def test_escape_or_cancel_says_no_to_the_question_and_nothing_is_sent(
    driver: TkDriver, server: RunningServer, client: Client
) -> None:
    await driver.connect(server.address)
    table = await driver.create_table("uno", 3, 0, seed=3, options={"target": "30"})
    await client.join(table.table_id, "Luigi")
    await until(driver, table, lambda u: seat(u, 1).kind == table_pb2.SEAT_KIND_HUMAN, "Luigi to sit down")
    await choose_from_host_menu(driver, table, "End the table")
    await driver.pump(lambda: "End the table for everyone?" in table.host.asking, 5, "the question")
    driver.key("Escape")
    await driver.pump(lambda: not table.host.asking, 5, "the question to go")
    await choose_from_host_menu(driver, table, "Remove Luigi")
    await driver.pump(lambda: "Remove Luigi" in table.host.asking, 5, "the question")
    driver.click(table.host.no)
    await driver.pump(lambda: not table.host.asking, 5, "the question to go")
    await driver.settle(0.3)
    info = await client.get_table(table.table_id)
    assert info.status == table_pb2.TABLE_STATUS_LOBBY
    assert seat(info, 1).name == "Luigi"


async def test_in_play_the_host_hands_a_seat_to_a_bot_removes_a_friend_and_ends_the_table(
    driver: TkDriver, server: RunningServer, client: Client
) -> None:
    """A seat's right-click menu offers that seat's controls; a removed friend's seat is played by a bot
    for good; ending the table shows why it ended on the result card, with no winner."""
    await driver.connect(server.address)
    table = await driver.create_table("uno", 3, 0, seed=3, options={"target": "30"})
    await client.join(table.table_id, "Luigi")
    await client.join(table.table_id, "Daisy")
    await until(driver, table, lambda u: u.status == table_pb2.TABLE_STATUS_PLAYING, "the game to start")
    entries = await seat_menu(driver, table, 2)
    driver.screenshot("host-seat-menu", tk_helpers.TK_SCREENSHOTS)
    assert entries == ["Remove Daisy (a bot plays on)", "Let a bot play Daisy's seat"]
    await click_entry(driver, table.host.seat_menu, "Let a bot play Daisy's seat")
    await until(driver, table, lambda u: seat(u, 2).bot_controlled, "a bot to play Daisy's seat")
    assert table.seats.item("seat2", "values")[3] == "by bot"
    assert "Let a bot play Daisy's seat" not in await host_menu(driver, table)
    await click_entry(driver, table.host.menu, "Remove Luigi (a bot plays on)")
    await answer_yes(driver, table, "Remove Luigi?", "host-confirm-remove-in-play")
    await until(driver, table, lambda u: seat(u, 1).kind == table_pb2.SEAT_KIND_BOT, "a bot in Luigi's seat")
    assert table.latest is not None
    assert table.latest.status == table_pb2.TABLE_STATUS_PLAYING, "the game goes on"
    await choose_from_host_menu(driver, table, "End the table")
    await answer_yes(driver, table, "End the table for everyone?", "host-confirm-end")
    await until(driver, table, lambda u: u.status == table_pb2.TABLE_STATUS_FINISHED, "the table to end")
    await driver.pump(lambda: table.redraw_pending is None, 5, "the result card")
    await driver.settle(0.2)
    assert table.latest is not None
    ended = table.latest.outcome.ended
    assert ended
    card = [table.canvas.itemcget(i, "text") for i in table.canvas.find_withtag("outcome")
            if table.canvas.type(i) == "text"]  # fmt: skip
    assert ended in card, card
    assert not any("won" in text for text in card), card
    driver.screenshot("host-ended-result-card", tk_helpers.TK_SCREENSHOTS)
    assert not table.host.table_controls(), "nothing to host at a finished table"


async def test_a_window_that_is_not_the_host_is_offered_no_host_control_and_a_forged_one_is_refused(
    driver: TkDriver, server: RunningServer, client: Client
) -> None:
    created = await client.create_table("uno", 3, bots=0, options={"target": "30"}, name="Mario's table")
    await client.join(created.table.table_id, "Mario")
    lobby = await driver.connect(server.address)
    assert isinstance(lobby, LobbyScreen)
    await driver.pump(lambda: created.table.table_id in lobby.tree.get_children(), 10, "the table in the list")
    lobby.tree.selection_set(created.table.table_id)
    await driver.settle(0.1)
    driver.click(lobby.join_button)
    await driver.pump(lambda: isinstance(driver.app.screen, TableScreen), 10, "the table")
    table = driver.table
    await driver.pump(lambda: table.latest is not None and table.redraw_pending is None, 10, "the first update")
    await driver.settle(0.1)
    assert table.host_token is None
    assert not table.host.button.winfo_ismapped(), "no Host menu"
    assert not table.host.table_controls()
    assert table.bar_button("Add a bot") is None
    shown = [str(b.cget("text")) for b in table.bar.row.winfo_children() if b.winfo_class() == "TButton"]
    assert not [text for text in shown if text.startswith("Start")]
    await driver.pump(lambda: bool(table.seats.bbox("seat0")), 5, "the seats")
    right_click(driver, table, 0)
    await driver.settle(0.3)
    assert not table.host.seat_menu.winfo_ismapped(), "a right-click on a seat offers nothing"
    # A window holding a wrong host token (a forged one) is offered the controls, and the server says no.
    table.host_token = "forged-token"
    table.host.show_button()
    await choose_from_host_menu(driver, table, "End the table")
    await answer_yes(driver, table, "End the table for everyone?", "host-forged-end")
    await driver.pump(lambda: "only the host" in table.status.cget("text"), 10, "the refusal")
    assert table.status.cget("text").startswith("The table goes on: ")
    driver.screenshot("host-forged-refused", tk_helpers.TK_SCREENSHOTS)
    info = await client.get_table(created.table.table_id)
    assert info.status == table_pb2.TABLE_STATUS_LOBBY, "nothing changed"


async def test_the_host_controls_are_back_when_the_host_returns_to_the_table_after_a_restart(
    driver: TkDriver, server: RunningServer
) -> None:
    await driver.connect(server.address)
    table = await driver.create_table("uno", 3, 0, seed=3, options={"target": "30"})
    table_id = table.table_id
    table.back_to_lobby()
    driver.app.host_tokens.clear()  # what a new window knows: only what this machine remembered
    lobby = driver.app.screen
    assert isinstance(lobby, LobbyScreen)
    await driver.pump(lambda: table_id in lobby.tree.get_children(), 10, "the table in the list")
    lobby.tree.selection_set(table_id)
    await driver.settle(0.1)
    driver.click(lobby.join_button)
    await driver.pump(lambda: isinstance(driver.app.screen, TableScreen), 10, "back at the table")
    again = driver.table
    assert again.seat == 0, "the same seat"
    assert again.host_token, "and the host's token"
    await driver.pump(lambda: again.latest is not None, 10, "the first update")
    await driver.settle(0.1)
    assert again.host.button.winfo_ismapped()
    assert "End the table" in [label for label, _ in again.host.table_controls()]
