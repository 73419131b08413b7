"""The table screen's action bar: the legal actions as one row of buttons, walked through the shared choice
tree (a card, then its colour; a character, then its level), with number keys for its entries.

It is for offering the update's legal actions without a wall of buttons: the row shows one level of the
tree (entries that look the same to a person once), toggles such as "and call UNO" as check buttons, a
Back button below the top, and what does not fit in the width behind a "More" menu. It knows no rules:
the tree is built from the typed actions (toadstool_clients.choices) and named by names.step_label.
"""

from __future__ import annotations

import functools
import tkinter as tk
from collections.abc import Callable
from tkinter import ttk

from toadstool.api.v1 import table_pb2
from toadstool_clients.choices import Choice, choice_tree, entry_label
from toadstool_clients.i18n import _
from toadstool_clients.names import step_label
from toadstool_clients.tk.games import FONT, safe_text

BAR_BG = "#263046"
#: Room kept for the "More" menu button when the entries do not all fit.
MORE_W = 90
TOGGLE_NAMES = {"uno": "and call UNO"}


class ActionBar:
    """One row of buttons for the current level of the choice tree; `act` is called with the action (and
    the id to send, which a toggle may change)."""

    def __init__(self, parent: tk.Misc, act: Callable[[table_pb2.LegalAction, str], None],
                 opened: Callable[[], None] = lambda: None) -> None:  # fmt: skip
        self.act = act
        #: Called when the level shown changes (an entry opened, Back), so the board can show the same
        #: choice on itself (a wild's colour swatches at the card).
        self.opened = opened
        self.frame = tk.Frame(parent, background=BAR_BG, height=40)
        self.frame.pack_propagate(False)
        self.row = tk.Frame(self.frame, background=BAR_BG)
        self.row.pack(side="left", fill="y", padx=4, pady=3)
        self.frame.bind("<Configure>", lambda _e: self._layout_soon())
        self.update: table_pb2.Update | None = None
        self.root: Choice | None = None
        self.path: list[Choice] = []
        #: The entries shown, in order (what the number keys choose), and their buttons.
        self.entries: list[Choice] = []
        self.buttons: list[ttk.Button] = []
        #: Buttons of leaves by the action id they send (for people and for tests).
        self.by_id: dict[str, ttk.Button] = {}
        self.toggles: dict[str, tk.BooleanVar] = {}
        self.note = ""
        self.extra: list[tuple[str, Callable[[], None]]] = []
        self._pending: str | None = None

    # --- what is offered ------------------------------------------------------------------------------
    def show(self, update: table_pb2.Update | None, actions: list[table_pb2.LegalAction], note: str = "",
             extra: list[tuple[str, Callable[[], None]]] | None = None) -> None:  # fmt: skip
        """Offer `actions` (the update's legal actions, or none); with none, `note` is shown instead, and
        `extra` buttons (a host's "Add a bot", "Rematch") are offered either way."""
        self.update = update
        self.note = note
        self.extra = list(extra or [])
        self.root = choice_tree(actions) if actions else None
        self.path = []
        self._build()

    def open(self, action_ids: set[str]) -> bool:
        """Show the smallest entry of the tree whose actions are exactly `action_ids` (a piece clicked on
        the board that offers several: a wild card opens its colours); False when there is none."""
        if self.root is None:
            return False
        found = _find(self.root, action_ids, [])
        if found is None:
            return False
        self.path = found
        self._build()
        self.opened()
        return True

    def back(self) -> None:
        if self.path:
            self.path.pop()
            self._build()
            self.opened()

    def picking(self) -> frozenset[str]:
        """The ids (toggled twins included) of the entry open now, for the board to offer the same choice
        on itself; empty at the top of the tree."""
        node = self.node if self.path else None
        if node is None:
            return frozenset()
        return frozenset(_ids(node))

    def pick(self, action_ids: set[str]) -> bool:
        """Take the entry shown now whose actions are exactly `action_ids` (a colour swatch on the board is
        that colour's entry, with the bar's toggles applied); False when none is (the piece that opened the
        choice, clicked again, leaves it open)."""
        for entry in self.entries:
            if _ids(entry) == action_ids:
                self._pick(entry)
                return True
        return False

    def choose(self, number: int) -> bool:
        """The entry with this number (1 is the first); False when there is none."""
        if 1 <= number <= len(self.entries):
            self._pick(self.entries[number - 1])
            return True
        return False

    def only_entry(self) -> Choice | None:
        return self.entries[0] if len(self.entries) == 1 else None

    # --- drawing the row ------------------------------------------------------------------------------
    @property
    def node(self) -> Choice | None:
        return self.path[-1] if self.path else self.root

    def _build(self) -> None:
        for child in self.row.winfo_children():
            child.destroy()
        self.entries, self.buttons, self.by_id = [], [], {}
        node = self.node
        if node is not None:
            seen: set[str] = set()
            for entry in node.children:
                label = self._label(entry)
                if label in seen:  # two identical cards are one choice to a person
                    continue
                seen.add(label)
                self.entries.append(entry)
        self._layout_soon(0)

    def _label(self, entry: Choice) -> str:
        update = self.update
        text = entry_label(
            entry, not self.path, lambda kind, field, value: step_label(update, kind, field, value) if update else ""
        )
        return safe_text(text, 48) + ("" if entry.is_leaf else " ▸")

    def _layout_soon(self, delay: int = 30) -> None:
        if self._pending is not None:
            self.frame.after_cancel(self._pending)
        self._pending = self.frame.after(delay, self._layout)

    def _layout(self) -> None:
        """Pack the row's buttons left to right while they fit; the rest go behind "More"."""
        self._pending = None
        for child in self.row.winfo_children():
            child.destroy()
        self.buttons, self.by_id = [], {}
        width = self.frame.winfo_width()
        used = 0
        widgets: list[tk.Widget] = []
        if self.path:
            widgets.append(ttk.Button(self.row, text=_("← Back"), style="Action.TButton", command=self.back))
        for name in self.node.toggle_names() if self.node is not None else []:
            var = self.toggles.setdefault(name, tk.BooleanVar(self.row, value=False))
            widgets.append(ttk.Checkbutton(self.row, text=TOGGLE_NAMES.get(name, name), variable=var))
        for text, command in self.extra:
            widgets.append(ttk.Button(self.row, text=text, style="Action.TButton", command=command))
        if self.node is None and self.note:
            widgets.append(tk.Label(self.row, text=self.note, background=BAR_BG, foreground="#cfd8dc",
                                    font=(FONT, 10, "italic")))  # fmt: skip
        for widget in widgets:
            widget.pack(side="left", padx=3)
            used += widget.winfo_reqwidth() + 6
        overflow: list[tuple[int, Choice]] = []
        for index, entry in enumerate(self.entries):
            number = f"{index + 1} " if index < 9 else ""
            button = ttk.Button(self.row, text=number + self._label(entry), style="Action.TButton",
                                command=functools.partial(self._pick, entry))  # fmt: skip
            need = button.winfo_reqwidth() + 6
            last = index == len(self.entries) - 1
            if overflow or (width > 1 and used + need > width - (0 if last else MORE_W)):
                button.destroy()
                overflow.append((index, entry))
                continue
            button.pack(side="left", padx=3)
            used += need
            self.buttons.append(button)
            if entry.is_leaf and entry.action is not None:
                self.by_id[entry.action.id] = button
        if overflow:
            more = ttk.Menubutton(self.row, text=_("More ({n}) ▾", n=len(overflow)), style="Action.TButton")
            menu = tk.Menu(more, tearoff=False, font=(FONT, 10))
            for index, entry in overflow:
                number = f"{index + 1}  " if index < 9 else ""
                menu.add_command(label=number + self._label(entry), command=functools.partial(self._pick, entry))
            more["menu"] = menu
            more.pack(side="left", padx=3)

    def _pick(self, entry: Choice) -> None:
        if entry.is_leaf and entry.action is not None:
            on = [name for name, var in self.toggles.items() if var.get()]
            self.act(entry.action, entry.action_id(on))
            return
        self.path.append(entry)
        self._build()
        self.opened()

    def shown_labels(self) -> list[str]:
        """The labels of the entries offered now, in order (including any behind "More")."""
        return [self._label(entry) for entry in self.entries]

    def disable(self, note: str) -> None:
        """Nothing may be chosen any more (the table is gone): every button off, and why."""
        self.root = None
        self.path = []
        self.note = note
        self.extra = []
        self._build()


def _ids(entry: Choice) -> set[str]:
    """The ids of every action at or below an entry, toggled twins included."""
    leaves = entry.leaves()
    ids = {leaf.action.id for leaf in leaves if leaf.action is not None}
    return ids | {toggled for leaf in leaves for toggled in leaf.toggles.values()}


def _find(node: Choice, wanted: set[str], path: list[Choice]) -> list[Choice] | None:
    """The path to the deepest inner entry whose actions (toggled twins included) hold all of `wanted`."""
    for child in node.children:
        if child.is_leaf:
            continue
        if wanted <= _ids(child):
            return _find(child, wanted, [*path, child]) or [*path, child]
    return None
