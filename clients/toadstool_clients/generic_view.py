"""What the clients show of a game they have no screen for: a GenericView's fields as short lines of text.

A game from another installed package travels as GameView.generic (its view as structured data); the
terminal and Tk clients draw it with their generic screens, which both take their lines from here so they
read alike. Presentation only: the rules never look here, and the legal actions are offered by the clients'
usual action menus, by their labels.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format

from toadstool.api.v1 import table_pb2
from toadstool_clients.i18n import _

#: How long one value may run on a line before it is cut (a long list, a nested object).
MAX_VALUE_LENGTH = 80


def _text(value: Any) -> str:
    if value is None:
        return _("(hidden)")
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return ", ".join(_text(item) for item in value) or _("(none)")
    if isinstance(value, dict):
        return "; ".join(f"{key}: {_text(item)}" for key, item in value.items()) or _("(none)")
    return str(value)


def _label(key: str) -> str:
    return key.replace("_", " ").capitalize()


def generic_lines(view: table_pb2.GenericView) -> list[tuple[str, str]]:
    """(label, value) per field of the view's state, in a stable order, values cut to a line."""
    state = json_format.MessageToDict(view.state)
    lines = []
    for key in sorted(state):
        value = _text(state[key])
        if len(value) > MAX_VALUE_LENGTH:
            value = value[: MAX_VALUE_LENGTH - 1] + "…"
        lines.append((_label(key), value))
    return lines
