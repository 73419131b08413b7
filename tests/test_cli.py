"""The `toadstool` command as a person uses it: real processes, a real server, the terminal client driven
through a pseudo-terminal with pexpect."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

from conftest import toadstool_command
from toadstool.cli import COMMANDS, build_parser

PROMPT = "Your choice"


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "TERM": "xterm-256color", "LANG": "C.UTF-8"}


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        toadstool_command(*args), env=_env(tmp_path), capture_output=True, text=True, timeout=60, check=False
    )


def _spawn(tmp_path: Path, *args: str) -> pexpect.spawn:
    command = toadstool_command(*args)
    return pexpect.spawn(
        command[0],
        command[1:],
        env=_env(tmp_path),
        encoding="utf-8",
        codec_errors="replace",
        timeout=30,
        dimensions=(60, 140),
    )


def _play_to_the_end(child: pexpect.spawn, max_moves: int = 400) -> int:
    """Answer every prompt with the first offered action until the game is over; returns moves made."""
    for moves in range(max_moves):
        index = child.expect([PROMPT, "Game over", pexpect.EOF])
        if index == 0:
            child.sendline("1")
        else:
            return moves
    raise AssertionError(f"no end after {max_moves} moves")


def test_games_new_and_tables_manage_tables(tmp_path: Path, server_process: tuple[object, str]) -> None:
    _, address = server_process
    games = _run(tmp_path, "games", "--server", address)
    assert games.returncode == 0, games.stderr
    assert re.search(r"^uno\s+UNO Super Mario", games.stdout, re.M)
    created = _run(tmp_path, "new", "uno", "--players", "3", "--bots", "1", "--server", address, "--name", "Friday")
    assert created.returncode == 0, created.stderr
    table_id = created.stdout.strip()
    assert re.fullmatch(r"[a-z2-9]{6}", table_id)
    assert f"toadstool join {table_id}" in created.stderr
    tables = _run(tmp_path, "tables", "--server", address)
    assert table_id in tables.stdout
    assert "Friday" in tables.stdout
    bad = _run(tmp_path, "new", "uno", "--players", "30", "--server", address)
    assert bad.returncode == 1
    assert "2 to 10 players" in bad.stderr


def test_the_server_address_may_come_from_the_environment(tmp_path: Path, server_process: tuple[object, str]) -> None:
    _, address = server_process
    result = subprocess.run(
        toadstool_command("games"),
        env={**_env(tmp_path), "TOADSTOOL_SERVER": address},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0
    assert "uno" in result.stdout


def test_an_unreachable_server_gets_a_clear_message(tmp_path: Path) -> None:
    from conftest import free_port

    result = _run(tmp_path, "tables", "--server", f"127.0.0.1:{free_port()}")
    assert result.returncode == 1
    assert "cannot be reached" in result.stderr


def test_selfplay_prints_a_json_summary(tmp_path: Path) -> None:
    result = _run(tmp_path, "selfplay", "uno", "--games", "3", "--seed", "4", "--players", "3")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["games"] == 3
    assert sum(summary["wins_by_seat"]) >= 3
    assert summary["games_per_second"] > 0


def test_play_runs_a_whole_game_against_bots_in_the_terminal(tmp_path: Path) -> None:
    child = _spawn(tmp_path, "play", "uno", "--bots", "2", "--seed", "3", "--bot-delay", "0.01", "--option", "target=1")
    moves = _play_to_the_end(child)
    assert moves > 0
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_join_and_watch_from_other_processes(tmp_path: Path, server_process: tuple[object, str]) -> None:
    _, address = server_process
    created = _run(tmp_path, "new", "uno", "--players", "2", "--bots", "1", "--option", "target=1", "--server", address)
    table_id = created.stdout.strip()
    watcher = _spawn(tmp_path, "watch", table_id, "--server", address)
    player = _spawn(tmp_path, "join", table_id, "--server", address, "--name", "Ann")
    player.expect("Ann")
    _play_to_the_end(player)
    watcher.expect("Game over", timeout=30)
    watcher.expect(pexpect.EOF)
    player.expect(pexpect.EOF)


def test_a_server_that_goes_away_is_reported(
    tmp_path: Path, server_process: tuple[subprocess.Popen[bytes], str]
) -> None:
    process, address = server_process
    created = _run(tmp_path, "new", "uno", "--players", "2", "--server", address)
    table_id = created.stdout.strip()
    player = _spawn(tmp_path, "join", table_id, "--server", address, "--name", "Ann")
    player.expect("Waiting for players")
    process.kill()
    player.expect("Connection lost", timeout=20)
    player.sendcontrol("c")
    player.expect(pexpect.EOF, timeout=30)


@pytest.mark.parametrize("name", ["\x1b[2J\x1b[31mEvil", "\u202eevil"])
def test_hostile_names_are_refused_or_cleaned(tmp_path: Path, server_process: tuple[object, str], name: str) -> None:
    _, address = server_process
    created = _run(tmp_path, "new", "uno", "--players", "2", "--server", address)
    table_id = created.stdout.strip()
    player = _spawn(tmp_path, "join", table_id, "--server", address, "--name", name)
    player.expect("Waiting for players")
    tables = _run(tmp_path, "tables", "--server", address)
    assert "\x1b" not in tables.stdout
    assert "\u202e" not in tables.stdout
    assert "evil" in tables.stdout.lower()
    player.terminate(force=True)


def test_tracks_lists_built_in_and_user_tracks_and_says_what_is_wrong_with_a_broken_one(tmp_path: Path) -> None:
    tracks = tmp_path / "tracks"
    tracks.mkdir()
    (tracks / "tiny-ring.toml").write_text('title = "Tiny Ring"\nlength = 20\n[fields]\nitem = [3, 9]\nbooster = [5]\n')
    (tracks / "broken.toml").write_text('title = "Broken"\nlength = 20\n[fields]\nlava = [4]\n')
    result = subprocess.run(
        toadstool_command("tracks"),
        env={**_env(tmp_path), "TOADSTOOL_TRACKS": str(tracks)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert re.search(r"^mushroom-loop\s+Mushroom Loop\s+60 fields", result.stdout, re.M)
    assert re.search(r"^mini-loop\s+Mini Loop\s+40 fields", result.stdout, re.M)
    assert re.search(r"^tiny-ring\s+Tiny Ring\s+20 fields", result.stdout, re.M)
    broken = next(line for line in result.stdout.splitlines() if line.startswith("broken"))
    assert "BROKEN" in broken
    assert "lava" in broken


def _commands() -> dict[str, argparse.ArgumentParser]:
    """Every subcommand's parser with all its options (this imports every client, which tests may)."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def test_toadstool_help_lists_every_subcommand_with_a_line_saying_what_it_does(tmp_path: Path) -> None:
    result = _run(tmp_path, "--help")
    assert result.returncode == 0, result.stderr
    for name, command in COMMANDS.items():
        assert re.search(rf"^\s+{name}\s+{re.escape(command.summary.split()[0])}", result.stdout, re.M), name


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_subcommand_help_shows_each_of_its_options_with_its_help(tmp_path: Path, name: str) -> None:
    result = subprocess.run(
        toadstool_command(name, "--help"),
        env={**_env(tmp_path), "COLUMNS": "200"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"usage: toadstool {name} ")
    for action in _commands()[name]._actions:
        assert action.help, f"toadstool {name}: {action.dest} has no help text"
        shown = action.option_strings[0] if action.option_strings else action.dest
        line = next((line for line in result.stdout.splitlines() if line.strip().startswith(shown)), None)
        assert line is not None, f"toadstool {name} --help does not show {shown}"
        assert str(action.help).split("%")[0].split("(")[0].strip()[:20] in result.stdout


def test_the_help_and_light_subcommands_load_neither_the_server_nor_a_heavy_client() -> None:
    """The command imports what a subcommand needs when it runs: `toadstool --help` needs no gRPC, no
    server, no Tk and no MQTT; `toadstool tracks` only the Kart game."""
    code = (
        "import sys, contextlib; from toadstool import cli\n"
        "for argv in (['--help'], ['tracks', '--help'], ['cert', '--help']):\n"
        "    with contextlib.suppress(SystemExit), contextlib.redirect_stdout(None): cli.main(argv)\n"
        "heavy = ('grpc', 'tkinter', 'aiomqtt', 'toadstool.server', 'toadstool_clients.tk')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_verbose_may_come_before_or_after_the_subcommand() -> None:
    for argv in (["-v", "tracks"], ["tracks", "-v"], ["tracks"]):
        args = build_parser(["tracks"]).parse_args(argv)
        assert args.command == "tracks"
        assert args.verbose is (argv != ["tracks"])
