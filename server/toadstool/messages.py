"""Wraps a game's view and action values in the table-level `GameView` and `Action` messages.

The game-specific message lives in the oneof member named like the game's registry key; this module is
the one place that maps between them, for the service, golden playthroughs and tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toadstool import wire
from toadstool.engine import Engine, name_seats
from toadstool.v1 import table_pb2


def game_view_message(
    engine: Engine[Any, Any],
    view: Any,
    names: Sequence[str] | None = None,
    into: table_pb2.GameView | None = None,
) -> table_pb2.GameView:
    """The GameView message carrying `view` (a game's view dataclass), built in `into` when given.

    With the seats' `names`, the view's `phase` names the seats too (as `Update.phase` does), so a custom
    client that reads only the game view never shows a raw `{p1}`. Building in place (`into`: a field of
    the update being built) saves copying the message after every move for every viewer.
    """
    message = table_pb2.GameView() if into is None else into
    member = getattr(message, engine.name)
    wire.to_message(view, member)
    if names is not None:
        member.phase = name_seats(view.phase, names)
    return message


def action_message(engine: Engine[Any, Any], action: Any, into: table_pb2.Action | None = None) -> table_pb2.Action:
    """The Action message carrying `action` (one of the game's action dataclasses), built in `into` when
    given (as `game_view_message`)."""
    message = table_pb2.Action() if into is None else into
    wire.action_to_message(action, getattr(message, engine.name))
    return message


def action_from_message(engine: Engine[Any, Any], message: table_pb2.Action) -> Any:
    """The action dataclass in `message`; ValueError when it is for another game or malformed."""
    member = message.WhichOneof("game")
    if member is None:
        raise ValueError("the action names no game (set the member for this table's game)")
    if member != engine.name:
        raise ValueError(f"this table plays {engine.name!r}, but the action is for {member!r}")
    return wire.action_from_message(getattr(message, member), engine.action_types)
