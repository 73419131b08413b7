"""Registers the test-only games (tests/plugin_games/*.py) the way another package would: an installed
distribution whose entry points name them under `toadstool.games`. `install()` writes that distribution's
metadata into a temporary folder and puts it, and this folder, on sys.path (and PYTHONPATH, so a
`toadstool serve` the tests start finds them too); the registry is then reloaded.

Not for: anything a real game needs. A real game is a folder in server/toadstool/games with an entry in
pyproject.toml (and, for clients that draw it, its .proto message and one line in table.proto's oneofs).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: The games registered, by registry key and module.
PLUGIN_GAMES = {"pig": "pig"}


def install() -> Path:
    """Register the plugin games for this process and its children; return the metadata folder."""
    site = Path(tempfile.mkdtemp(prefix="toadstool-plugin-games-"))
    info = site / "toadstool_test_games-0.0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toadstool-test-games\nVersion: 0.0.0\n")
    entries = "\n".join(f"{key} = {module}" for key, module in PLUGIN_GAMES.items())
    (info / "entry_points.txt").write_text(f"[toadstool.games]\n{entries}\n")
    for path in (str(site), str(HERE)):
        if path not in sys.path:
            sys.path.insert(0, path)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(site), str(HERE), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    )
    from toadstool import games

    games.reload()
    return site
