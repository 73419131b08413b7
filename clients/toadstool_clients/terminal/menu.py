"""The terminal's menu: where the person is in the choice tree of the current update, and its keys.

It walks `toadstool_clients.choices` (the tree every client shares): a level's entries, the highlighted
one, the toggles switched on ("call UNO") and the one-key shortcuts. It decides nothing about the game;
choosing a leaf only yields the action id to send. Drawing the menu is here too (short lines of rich Text).
A Kart level of fields is chosen on the drawn track (track_pick.py): the menu is then one line, the
highlighted field, and a typed number is the field's number.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.text import Text

from toadstool.api.v1 import table_pb2
from toadstool_clients.choices import (
    Choice,
    choice_tree,
    entry_label,
    forced_choice,
    may_play_for_you,
    steps_label,
)
from toadstool_clients.i18n import N_, _
from toadstool_clients.names import step_label
from toadstool_clients.terminal.track_pick import (
    TrackGroups,
    TrackPick,
    entry_place,
    fields_only,
    merge_field_runs,
    pick_for,
)

#: One-key shortcuts: key -> the kind of the leaf it chooses (presentation data; a key whose kind is not
#: offered now does nothing). "u" also switches the "uno" toggle when a play offers one.
SHORTCUTS: dict[str, str] = {"d": "draw", "r": "roll", "u": "call_uno", "k": "keep", "e": "end_turn"}
#: Toggles in words, by their field name.
TOGGLE_LABELS: dict[str, str] = {"uno": N_("call UNO with this play")}
TOGGLE_KEYS: dict[str, str] = {"uno": "u"}
#: A level of more fields than this, all on the track, is shown as one line (the track shows them all).
TRACK_LINE_FROM = 6


@dataclass
class Menu:
    """The menu for one update: the tree, the path taken into it, the highlighted entry and toggles."""

    update: table_pb2.Update
    root: Choice
    path: list[Choice] = field(default_factory=list)
    highlighted: int = 0
    typed: str = ""
    toggles_on: set[str] = field(default_factory=set)
    track_groups: TrackGroups = field(default_factory=TrackGroups)

    @classmethod
    def for_update(cls, update: table_pb2.Update, previous: Menu | None = None) -> Menu:
        """A menu for `update`; the place in the previous menu is kept while the same actions are offered."""
        root = choice_tree(update.legal_actions)
        menu = cls(update, root, track_groups=merge_field_runs(update, root))
        if previous is not None and _ids(previous.update) == _ids(update):
            menu.root, menu.path, menu.track_groups = previous.root, previous.path, previous.track_groups
            menu.highlighted, menu.toggles_on = previous.highlighted, previous.toggles_on
        return menu

    @property
    def level(self) -> Choice:
        return self.path[-1] if self.path else self.root

    @property
    def entries(self) -> list[Choice]:
        return self.level.children

    def label(self, entry: Choice) -> str:
        if self.track_groups.is_merged(entry):
            return self._track_group_label(entry)
        return entry_label(entry, not self.path, lambda kind, name, value: step_label(self.update, kind, name, value))

    def _track_group_label(self, entry: Choice) -> str:
        words = steps_label(entry.steps, lambda kind, name, value: step_label(self.update, kind, name, value))
        return f"{words} a field of the track" if words else "A field of the track"

    def track_pick(self) -> TrackPick | None:
        """What the drawn track marks for this level: its entries' fields, the highlighted one apart."""
        return pick_for(self.update, self.entries, self.highlighted)

    def on_track(self) -> bool:
        """This level is many fields of the track, chosen on it (one menu line; typed numbers are fields)."""
        return len(self.entries) >= TRACK_LINE_FROM and fields_only(self.update, self.entries)

    def forced(self) -> Choice | None:
        """The single forced choice of this update (one key: Enter or space), if it is one: the table waits
        for this seat and it has one thing to do. (An optional action offered out of turn, such as a Power
        Up any-time card or catching a player who did not call UNO, is never forced.)"""
        update = self.update
        if not update.HasField("viewer_seat") or update.viewer_seat not in update.to_act:
            return None
        return forced_choice(self.root)

    def auto_playable(self) -> Choice | None:
        """The forced choice an "auto" option may play by itself (never one whose speed tells a secret)."""
        leaf = self.forced()
        return leaf if leaf is not None and may_play_for_you(leaf) else None

    def move(self, delta: int) -> None:
        if self.entries:
            self.highlighted = (self.highlighted + delta) % len(self.entries)
        self.typed = ""

    def type_digit(self, digit: str) -> bool:
        """Digits pick an entry by its number; a number too big starts again. On the track, the number is a
        field's: the highlight goes to the field typed so far. True when the number typed is whole (no
        further digit could make another entry's number): the caller then chooses it at once, so "3" picks
        the third of up to nine entries without Enter, and "1" of twelve waits for a second digit or Enter."""
        if fields_only(self.update, self.entries):
            return self._type_field(digit)
        typed = self.typed + digit
        if not typed.lstrip("0") or int(typed) > len(self.entries):
            typed = digit
        self.typed = typed
        if typed.lstrip("0") and 1 <= int(typed) <= len(self.entries):
            self.highlighted = int(typed) - 1
            return int(typed) * 10 > len(self.entries)
        return False

    def _type_field(self, digit: str) -> bool:
        fields = [place.field for place in (entry_place(self.update, e) for e in self.entries) if place is not None]
        typed = self.typed + digit
        if int(typed) not in fields and not any(str(f).startswith(typed) for f in fields):
            typed = digit
        self.typed = typed
        if int(typed) in fields:
            self.highlighted = fields.index(int(typed))
            return not any(str(f).startswith(typed) and str(f) != typed for f in fields)
        return False

    def back(self) -> bool:
        """Up one level; False when already at the top."""
        self.typed = ""
        if not self.path:
            return False
        left = self.path.pop()
        self.highlighted = max(0, self.entries.index(left)) if left in self.entries else 0
        return True

    def choose(self) -> str | None:
        """Enter on the highlighted entry: into a group (None), or the action id of a leaf."""
        self.typed = ""
        if not self.entries:
            return None
        entry = self.entries[min(self.highlighted, len(self.entries) - 1)]
        if entry.is_leaf:
            return entry.action_id(sorted(self.toggles_on))
        self.path.append(entry)
        self.highlighted = 0
        return None

    def toggles(self) -> list[str]:
        return self.root.toggle_names()

    def shortcut(self, key: str) -> str | None:
        """The action id a one-key shortcut sends now, or None (a toggle key switches its toggle)."""
        for name, toggle_key in TOGGLE_KEYS.items():
            if key == toggle_key and name in self.toggles():
                self.toggles_on ^= {name}
                return None
        kind = SHORTCUTS.get(key)
        for leaf in self.root.leaves():
            if kind is not None and leaf.steps and leaf.steps[0][0] == kind and leaf.action is not None:
                return leaf.action.id
        return None

    def keys_for(self, entry: Choice) -> str:
        for key, kind in SHORTCUTS.items():
            if entry.is_leaf and entry.steps and entry.steps[0][0] == kind:
                return key
        return ""

    def lines(self, width: int, one_per_line: bool, most: int | None = None) -> list[Text]:
        """The menu as lines no wider than `width`: one entry per line, or entries in columns. With `most`
        lines at most, entries at the top read by their typed steps ("Move Mario") rather than the
        server's whole sentence ("Move Mario up to level 4") when the sentences would not fit."""
        if self.on_track():
            return self._track_lines(width)
        lines = self._lines(width, one_per_line, short=False)
        if most is not None and len(lines) > most:
            lines = self._lines(width, one_per_line, short=True)
        return lines

    def _lines(self, width: int, one_per_line: bool, short: bool) -> list[Text]:
        # Every level reads "Your choice", a level below in another colour and with its path: so each
        # redraw rewrites the whole heading (prompt_toolkit redraws only the cells that change), and a
        # program reading the terminal (pexpect) sees "Your choice" whenever a choice is asked.
        heading = Text(_("Your choice"), style="bold cyan")
        if self.path:
            path = " ▸ ".join(self._root_label(p) for p in self.path)
            heading = Text(_("Your choice: {path}", path=path), style="bold magenta")
            heading.append("  " + _("(Esc: back)"), style="dim")
        forced = self.forced()
        if forced is not None:
            heading.append("  " + _("(Enter or space: the only choice)"), style="dim")
        for name in self.toggles():
            mark = "x" if name in self.toggles_on else " "
            label = _(TOGGLE_LABELS[name]) if name in TOGGLE_LABELS else name
            heading.append(f"  [{mark}] {TOGGLE_KEYS.get(name, '')}: {label}", style="yellow")
        cells: list[Text] = []
        wide = len(self.entries) > 9
        for number, entry in enumerate(self.entries, start=1):
            mark = "›" if number - 1 == self.highlighted else " "  # noqa: RUF001 (a pointer, seen in text captures)
            cell = Text(mark + (f"{number:>2} " if wide else f"{number} "), style="bold cyan")
            label = self._root_label(entry) if short and not self.path and entry.is_leaf else self.label(entry)
            cell.append(
                label + ("" if entry.is_leaf else " ▸"), style="reverse" if number - 1 == self.highlighted else ""
            )
            key = self.keys_for(entry)
            if key:
                cell.append(f" ({key})", style="dim")
            cell.truncate(width, overflow="ellipsis")
            cells.append(cell)
        heading.truncate(width, overflow="ellipsis")
        if one_per_line or not cells:
            return [heading, *cells]
        return [heading, *_laid_out(cells, width)]

    def _track_lines(self, width: int) -> list[Text]:
        """A level of fields chosen on the track: where it is, the highlighted field and the keys."""
        heading = Text(_("Your choice"), style="bold cyan")
        if self.path:
            path = " ▸ ".join(self.label(p) for p in self.path)
            heading = Text(_("Your choice: {path}", path=path), style="bold magenta")
        heading.append("  " + _("(Esc: back)"), style="dim")
        entry = self.entries[min(self.highlighted, len(self.entries) - 1)]
        line = Text("›", style="bold cyan")  # noqa: RUF001 (a pointer, seen in text captures)
        line.append(f" {self.label(entry)} ", style="reverse")
        line.append(f"  ▲ on the track ({self.highlighted + 1} of {len(self.entries)})", style="yellow")
        keys = Text("←→: along the track   or type the field's number   Enter: choose", style="dim")
        for text in (heading, line, keys):
            text.truncate(width, overflow="ellipsis")
        return [heading, line, keys]

    def _root_label(self, entry: Choice) -> str:
        if self.track_groups.is_merged(entry):
            return self._track_group_label(entry)
        return entry_label(entry, False, lambda kind, name, value: step_label(self.update, kind, name, value))


def _laid_out(cells: list[Text], width: int) -> list[Text]:
    """Entries in aligned columns, or flowing along lines when one long entry would make the columns
    take more lines than flowing does."""
    column = max(cell.cell_len for cell in cells) + 2
    per_line = max(1, (width + 2) // column)
    grid: list[Text] = []
    for start in range(0, len(cells), per_line):
        line = Text()
        for cell in cells[start : start + per_line]:
            line.append(" " * (-line.cell_len % column))  # to the next column
            line.append_text(cell)
        grid.append(line)
    flow: list[Text] = []
    line = Text()
    for cell in cells:
        if line.cell_len and line.cell_len + 3 + cell.cell_len > width:
            flow.append(line)
            line = Text()
        if line.cell_len:
            line.append("   ")
        line.append_text(cell)
    flow.append(line)
    return grid if len(grid) <= len(flow) else flow


def _ids(update: table_pb2.Update) -> list[str]:
    return [action.id for action in update.legal_actions]
