"""One presentation module per game, each with `render_view(update) -> RenderableType` and, to fit 80x24
beside the menu and the log, `render_compact(update)` (a module without one is drawn in full); a module may add
`render_medium(update)`, tried at 120x40 when the full drawing does not fit.

A module that draws choices on the board (the Kart track: `pick`, the fields a choice stands for) takes a
`pick` keyword. Looked up by the game's registry key; a game without a module (or whose module fails) falls back to a
plain rendering of the view message so the client never crashes on a new game.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any

from google.protobuf import text_format
from rich.console import RenderableType
from rich.text import Text

from toadstool.api.v1 import table_pb2

log = logging.getLogger(__name__)


def has_medium(update: table_pb2.Update) -> bool:
    """Whether the game has a drawing between its full and compact ones (`render_medium`, for 120x40)."""
    member = update.view.WhichOneof("game")
    try:
        return member is not None and hasattr(importlib.import_module(f"{__name__}.{member}"), "render_medium")
    except ImportError:
        return False


def render_game(
    update: table_pb2.Update, compact: bool = False, pick: Any = None, medium: bool = False
) -> RenderableType:
    """The game part of the screen for this update (its compact drawing, with `compact`; its medium one,
    with `medium`, for a game that has one; with `pick`, the places of the choice being made marked on the
    board, for a game that marks them)."""
    member = update.view.WhichOneof("game")
    if member is None:
        return Text("")
    try:
        module = importlib.import_module(f"{__name__}.{member}")
        draw = getattr(module, "render_compact", module.render_view) if compact else module.render_view
        if medium:
            draw = getattr(module, "render_medium", draw)
        renderable: RenderableType = draw(update) if pick is None else draw(update, pick=pick)
        return renderable
    except Exception:  # a rendering bug must not end the player's game
        log.warning("no rendering for %s; showing the raw view", member, exc_info=True)
        return Text(text_format.MessageToString(getattr(update.view, member)))
