"""A client's own files are written whole or not at all, 0600 from the start: a failed write leaves the old
file as it was and no temporary file beside it, a file that cannot be saved is said and the game goes on,
and two programs saving seats at once lose none of them (toadstool_clients.files, .seats)."""

from __future__ import annotations

import json
import logging
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from toadstool_clients.files import replace_private
from toadstool_clients.seats import remember_host_token, remember_seat, remembered_seat


def test_a_new_file_is_made_in_a_new_directory_readable_by_its_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "config" / "toadstool" / "seats.json"
    replace_private(path, '{"a": 1}')
    assert path.read_text() == '{"a": 1}'
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["seats.json"]


def test_an_old_file_is_replaced_whole_and_made_private(tmp_path: Path) -> None:
    path = tmp_path / "tk.json"
    path.write_text("x" * 10_000)
    path.chmod(0o644)
    replace_private(path, "short")
    assert path.read_text() == "short"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_write_that_fails_leaves_the_old_file_and_nothing_else(tmp_path: Path) -> None:
    path = tmp_path / "seats.json"
    path.write_text('{"held": "every seat"}')
    with pytest.raises(UnicodeEncodeError):
        replace_private(path, '{"name": "\ud800"}')  # fails halfway: a lone surrogate has no UTF-8
    assert path.read_text() == '{"held": "every seat"}'
    assert [p.name for p in tmp_path.iterdir()] == ["seats.json"]


def test_a_file_that_is_a_symbolic_link_has_its_target_replaced(tmp_path: Path) -> None:
    (tmp_path / "dotfiles").mkdir()
    target = tmp_path / "dotfiles" / "tk.json"
    target.write_text("old")
    link = tmp_path / "tk.json"
    link.symlink_to(target)
    replace_private(link, "new")
    assert link.is_symlink()
    assert target.read_text() == "new"


def test_a_seat_that_cannot_be_saved_is_said_and_the_game_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "config").write_text("a file where the config directory should be")  # even root cannot
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    caplog.set_level(logging.WARNING, logger="toadstool_clients.seats")
    remember_seat("127.0.0.1:50051", "t1", 0, "a-token", "Ann")  # no exception: the join it follows stands
    remember_host_token("127.0.0.1:50051", "t1", "a-host-token")
    assert remembered_seat("127.0.0.1:50051", "t1", "Ann") is None
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 2
    assert all("could not save" in line and "will not remember it after a restart" in line for line in said)


SAVER = """
import sys
from toadstool_clients.seats import remember_seat
who, count = sys.argv[1], int(sys.argv[2])
for n in range(count):
    remember_seat("127.0.0.1:50051", f"{who}-{n}", 0, f"token-{who}-{n}", who)
"""


def test_two_clients_saving_seats_at_once_keep_every_seat(tmp_path: Path) -> None:
    # Two people at one laptop, each in a terminal, joining tables at the same moments: every seat saved by
    # either is there after (each change reads, changes and writes back the file while the other waits).
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    savers = [
        subprocess.Popen([sys.executable, "-c", SAVER, who, "60"], env=env, stderr=subprocess.PIPE)
        for who in ("Ann", "Bea")
    ]
    for saver in savers:
        _, errors = saver.communicate(timeout=120)
        assert saver.returncode == 0, errors.decode()
        assert not errors, errors.decode()  # nothing failed to save
    saved = json.loads((tmp_path / "config" / "toadstool" / "seats.json").read_text())
    missing = {f"127.0.0.1:50051/{who}-{n}" for who in ("Ann", "Bea") for n in range(60)} - set(saved)
    assert not missing, f"{len(missing)} of 120 seats lost: {sorted(missing)[:5]}"
