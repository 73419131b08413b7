"""One presentation module per game, each with `render_view(update) -> RenderableType`.

Looked up by the game's registry key; a game without a module (or whose module fails) falls back to a
plain rendering of the view message so the client never crashes on a new game.
"""

from __future__ import annotations

import importlib
import logging

from google.protobuf import text_format
from rich.console import RenderableType
from rich.text import Text

from toadstool.api.v1 import table_pb2

log = logging.getLogger(__name__)


def render_game(update: table_pb2.Update) -> RenderableType:
    """The game part of the screen for this update."""
    member = update.view.WhichOneof("game")
    if member is None:
        return Text("")
    try:
        module = importlib.import_module(f"{__name__}.{member}")
        renderable: RenderableType = module.render_view(update)
        return renderable
    except Exception:  # a rendering bug must not end the player's game
        log.warning("no rendering for %s; showing the raw view", member, exc_info=True)
        return Text(text_format.MessageToString(getattr(update.view, member)))
