"""Keyboard shortcuts at the table: number keys for the action bar's entries, Return for the focused (or
only) one, Escape to go back, put the result card away or say no to the host's question, and d / u / r to
draw, call UNO and roll.

It is for playing without the mouse. It knows no rules: "d" takes whichever offered action is of a draw
kind, by its typed payload, in any game.
"""

from __future__ import annotations

import tkinter as tk
from tkinter import ttk
from typing import TYPE_CHECKING, Any

from toadstool.api.v1 import table_pb2

if TYPE_CHECKING:
    from toadstool_clients.tk.shell import TableFace

#: Keys that take an action of a kind, whatever the game ("d" draws, "u" calls UNO, "r" rolls).
KIND_KEYS = {"d": ("draw", "pass_turn"), "u": ("call_uno",), "r": ("roll",)}


def table_key(screen: TableFace, event: tk.Event[Any]) -> str | None:
    """Keys at the table: 1-9 choose the bar's entries, Left / Right move between them, Return takes the
    focused (or only) one, Escape goes back (or puts a held card away), d / u / r draw, call UNO, roll."""
    if screen.left or screen.app.screen is not screen:
        return None
    if isinstance(event.widget, tk.Entry | ttk.Entry):
        return None
    char, key = event.char, event.keysym
    if key == "Escape":
        if screen.held is not None:
            screen.release_held()
        if screen.latest is not None and screen.latest.status == table_pb2.TABLE_STATUS_FINISHED:
            screen.close_outcome()
        screen.host.cancel()  # a host's question not answered is a no
        screen.bar.back()
        return "break"
    if key in ("Return", "KP_Enter"):
        focused = screen.app.root.focus_get()
        if isinstance(focused, ttk.Button) and str(focused).startswith(str(screen.bar.row)):
            focused.invoke()
        elif (only := screen.bar.only_entry()) is not None:
            screen.bar.choose(1)
        elif only is None and screen.bar.buttons:
            screen.bar.buttons[0].focus_set()
        return "break"
    if key in ("Left", "Right") and screen.bar.buttons:
        buttons = screen.bar.buttons
        focused = screen.app.root.focus_get()
        at = buttons.index(focused) if focused in buttons else (-1 if key == "Right" else 0)
        buttons[(at + (1 if key == "Right" else -1)) % len(buttons)].focus_set()
        return "break"
    if char.isdigit() and char != "0":
        screen.bar.choose(int(char))
        return "break"
    kinds = KIND_KEYS.get(char.lower())
    if kinds:
        for legal in screen.offered_actions():
            if action_kind(legal) in kinds:
                screen.act(legal)
                return "break"
    return None


def action_kind(legal: table_pb2.LegalAction) -> str:
    """The kind of a legal action ("draw", "roll", ...), from its typed payload."""
    member = legal.action.WhichOneof("game")
    if member is None:
        return ""
    game_action = getattr(legal.action, member)
    if isinstance(game_action, table_pb2.GenericAction):
        return str(game_action.kind)
    oneofs = game_action.DESCRIPTOR.oneofs
    return (game_action.WhichOneof(oneofs[0].name) or "") if oneofs else ""
