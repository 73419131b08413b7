"""Where the server keeps its files on this machine: its config (user Kart tracks) and its state (the
database), found by platformdirs.

On Linux these are `$XDG_CONFIG_HOME/toadstool` (else `~/.config/toadstool`) and `$XDG_STATE_HOME/toadstool`
(else `~/.local/state/toadstool`); macOS and Windows get their own platform's places. This module only
names the places: it creates nothing, and what lives in them belongs to the modules that write them
(`store`, `games.kart.tracks`). The clients have their own copy (`toadstool_clients.paths`), since they do
not import the server.
"""

from __future__ import annotations

from pathlib import Path

from platformdirs import user_config_path, user_state_path

APP = "toadstool"


def config_dir() -> Path:
    """The directory of the person's own settings and files (user Kart tracks live in `tracks/` here).

    Raises RuntimeError when the account has no home directory (and no $XDG_CONFIG_HOME)."""
    return user_config_path(APP, appauthor=False)


def state_dir() -> Path:
    """The directory of what the server keeps between runs (the tables' database).

    Raises RuntimeError when the account has no home directory (and no $XDG_STATE_HOME)."""
    return user_state_path(APP, appauthor=False)
