"""Where Toadstool keeps its files (toadstool.paths for the server, toadstool_clients.paths for the clients):
the XDG directories when they are set, else ~/.config/toadstool and ~/.local/state/toadstool, as before
platformdirs found them. Each case runs in a fresh interpreter with its own HOME and environment."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

#: Prints every place both sides name, as JSON.
REPORT = """
import json
from toadstool import paths
from toadstool.games.kart.tracks import user_tracks_dir
from toadstool.server.store import default_db_path
from toadstool_clients import paths as client_paths
from toadstool_clients.tk.app import settings_path
print(json.dumps({
    "server_config": str(paths.config_dir()),
    "server_state": str(paths.state_dir()),
    "db": str(default_db_path()),
    "tracks": str(user_tracks_dir()),
    "client_config": str(client_paths.config_dir()),
    "seats": str(client_paths.seats_file()),
    "hosted": str(client_paths.hosted_file()),
    "tk": str(settings_path()),
}))
"""


def _places(home: Path, **env: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("XDG_") and k != "TOADSTOOL_TRACKS"}
    result = subprocess.run(
        [sys.executable, "-c", REPORT],
        env={**clean, "HOME": str(home), **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    places: dict[str, str] = json.loads(result.stdout)
    return places


@pytest.mark.skipif(sys.platform != "linux", reason="the XDG layout is Linux's")
def test_without_xdg_variables_files_live_in_dot_config_and_dot_local_state(tmp_path: Path) -> None:
    home = tmp_path / "home"
    places = _places(home)
    assert places == {
        "server_config": str(home / ".config" / "toadstool"),
        "server_state": str(home / ".local" / "state" / "toadstool"),
        "db": str(home / ".local" / "state" / "toadstool" / "toadstool.db"),
        "tracks": str(home / ".config" / "toadstool" / "tracks"),
        "client_config": str(home / ".config" / "toadstool"),
        "seats": str(home / ".config" / "toadstool" / "seats.json"),
        "hosted": str(home / ".config" / "toadstool" / "hosted.json"),
        "tk": str(home / ".config" / "toadstool" / "tk.json"),
    }


def test_xdg_config_home_and_xdg_state_home_are_honoured(tmp_path: Path) -> None:
    config, state = tmp_path / "config", tmp_path / "state"
    places = _places(tmp_path / "home", XDG_CONFIG_HOME=str(config), XDG_STATE_HOME=str(state))
    assert places["server_config"] == places["client_config"] == str(config / "toadstool")
    assert places["db"] == str(state / "toadstool" / "toadstool.db")
    assert places["tracks"] == str(config / "toadstool" / "tracks")
    assert places["seats"] == str(config / "toadstool" / "seats.json")
    assert places["tk"] == str(config / "toadstool" / "tk.json")


def test_toadstool_tracks_still_names_the_user_tracks_directory(tmp_path: Path) -> None:
    tracks = tmp_path / "my-tracks"
    places = _places(tmp_path / "home", XDG_CONFIG_HOME=str(tmp_path / "config"), TOADSTOOL_TRACKS=str(tracks))
    assert places["tracks"] == str(tracks)


def test_a_remembered_seat_is_written_where_the_paths_say_and_only_its_owner_reads_it(tmp_path: Path) -> None:
    code = (
        "from toadstool_clients.seats import remember_seat, remembered_seat;"
        "remember_seat('127.0.0.1:50051', 'k7m2qx', 2, 'tok');"
        "print(remembered_seat('127.0.0.1:50051', 'k7m2qx'), remembered_seat('127.0.0.1:50051', 'other'))"
    )
    config = tmp_path / "config"
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(config)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["(2,", "'tok')", "None"]
    seats = config / "toadstool" / "seats.json"
    assert json.loads(seats.read_text()) == {"127.0.0.1:50051/k7m2qx": [{"seat": 2, "token": "tok"}]}
    assert stat.S_IMODE(seats.stat().st_mode) == 0o600
