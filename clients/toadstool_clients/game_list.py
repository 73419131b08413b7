"""The games as a person reads them in `toadstool games` and below `toadstool play --help`: each game's
name, title and player count, then every option as the flag to give, what it does, what it takes and its
default.

It formats the contract's GameInfo (what a server's ListGames answers, or what the command builds from the
games installed here), so the two lists read the same. Not for choosing or validating options: the server
does that when a table is created.
"""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Iterable

from toadstool.api.v1 import table_pb2


def option_lines(option: table_pb2.GameOption, width: int = 80) -> list[str]:
    """One option: `--option name=default`, then what it does, then what it takes and its default, the
    text wrapped to `width` columns."""
    if option.kind == "int":
        takes = "a whole number"
        if option.HasField("minimum"):
            takes += f" from {option.minimum}"
        if option.HasField("maximum"):
            takes += f" to {option.maximum}"
    elif option.kind == "bool":
        takes = "true or false"
    elif option.kind == "choice":
        takes = "one of: " + ", ".join(option.choices)
    elif option.kind == "text":
        takes = "any text"
    else:
        takes = option.kind
    value = option.default_value or ("TEXT" if option.kind == "text" else "")
    default = f"default {option.default_value}" if option.default_value else "empty by default"
    indent = " " * 6
    return [
        f"  --option {option.name}={value}",
        *textwrap.wrap(option.help, width, initial_indent=indent, subsequent_indent=indent),
        *textwrap.wrap(f"{takes}; {default}", width, initial_indent=indent, subsequent_indent=indent),
    ]


def describe_games(games: Iterable[table_pb2.GameInfo], width: int | None = None) -> str:
    """Every game, each followed by its options ("no options" for a game without any), fitted to `width`
    columns (default: the terminal's, at most 100)."""
    width = width or min(shutil.get_terminal_size().columns, 100)
    lines: list[str] = []
    for game in games:
        lines.append(f"{game.name:9} {game.title} ({game.min_players}-{game.max_players} players)")
        for option in game.options:
            lines.extend(option_lines(option, width))
        if not game.options:
            lines.append("  no options")
    return "\n".join(lines)
