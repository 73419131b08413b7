"""Where the clients keep their files on this machine (saved seats, host tokens, the Tk settings), found
by platformdirs.

On Linux that is `$XDG_CONFIG_HOME/toadstool`, else `~/.config/toadstool`; macOS and Windows get their
own platform's place. This module only names the files: reading and writing them belongs to the modules
that own them (`seats`, `tk.app`). The server has its own copy (`toadstool.paths`), since clients do not
import it.
"""

from __future__ import annotations

from pathlib import Path

from platformdirs import user_config_path

APP = "toadstool"


def config_dir() -> Path:
    """The directory of the person's client files (created by whoever first writes into it)."""
    return user_config_path(APP, appauthor=False)


def seats_file() -> Path:
    """The seat tokens this machine holds (`toadstool join` and the Tk lobby resume with them)."""
    return config_dir() / "seats.json"


def hosted_file() -> Path:
    """The host tokens of the tables created from this machine (`toadstool new`)."""
    return config_dir() / "hosted.json"


def tk_settings_file() -> Path:
    """What the Tk client remembers between runs (the last address and name)."""
    return config_dir() / "tk.json"
