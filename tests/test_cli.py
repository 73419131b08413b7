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

CAPTURES = Path(__file__).resolve().parents[1] / "test-output" / "commands"


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
    }


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


def _play_to_the_end(child: pexpect.spawn, max_moves: int = 2000) -> int:
    """Take the highlighted choice (Enter: the first one) whenever one is offered, until the game is over
    and the client has left (it leaves by itself at the end); returns the keys sent. Bounded by
    `max_moves` keys."""
    for moves in range(max_moves):
        if child.expect([pexpect.EOF, pexpect.TIMEOUT], timeout=0.2) == 0:
            return moves
        child.send("\r")
    raise AssertionError(f"no end after {max_moves} keys")


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


def _save(name: str, text: str) -> None:
    CAPTURES.mkdir(parents=True, exist_ok=True)
    (CAPTURES / f"{name}.txt").write_text(text)


def test_games_lists_every_installed_game_with_each_option_described_without_a_server(tmp_path: Path) -> None:
    from toadstool.games import GAMES

    result = subprocess.run(
        toadstool_command("games"),
        env={**_env(tmp_path), "COLUMNS": "80", "TOADSTOOL_SERVER": f"127.0.0.1:{_unused_port()}"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    _save("games", result.stdout)
    assert max(len(line) for line in result.stdout.splitlines()) <= 80
    for spec in GAMES.values():
        engine = spec.engine
        assert re.search(rf"^{engine.name}\s+{re.escape(engine.title)} \({engine.min_players}-", result.stdout, re.M)
        for option in engine.options:
            assert f"--option {option.name}=" in result.stdout
            assert option.help.split("(")[0].strip() in " ".join(result.stdout.split())
    assert "one of: mini-loop, mushroom-loop; default mushroom-loop" in result.stdout
    assert "a whole number from 1 to 100000; default 500" in result.stdout


def test_games_with_a_server_lists_what_that_server_hosts(tmp_path: Path, server_process: tuple[object, str]) -> None:
    _, address = server_process
    result = _run(tmp_path, "games", "--server", address)
    assert result.returncode == 0, result.stderr
    assert re.search(r"^pig\s", result.stdout, re.M)  # the test-only game that server has registered
    assert "--option target=500" in result.stdout


def test_play_help_lists_the_games_and_their_options_without_a_server(tmp_path: Path) -> None:
    result = subprocess.run(
        toadstool_command("play", "--help"),
        env={**_env(tmp_path), "COLUMNS": "80"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    _save("play-help", result.stdout)
    listed = result.stdout.split("games (in any letter case), with their options:", 1)[1]
    for game in ("uno", "powerup", "levelup", "kart"):
        assert re.search(rf"^{game}\s", listed, re.M), game
    assert "--option track=mushroom-loop" in listed
    assert "--option lowest_wins=false" in listed


def test_game_names_are_taken_in_any_letter_case(tmp_path: Path, server_process: tuple[object, str]) -> None:
    _, address = server_process
    created = _run(tmp_path, "new", "UNO", "--players", "2", "--server", address)
    assert created.returncode == 0, created.stderr
    assert re.search(rf"^{created.stdout.strip()}\s+uno\s", _run(tmp_path, "tables", "--server", address).stdout, re.M)
    selfplay = _run(tmp_path, "selfplay", "Kart", "--games", "1", "--option", "track=mini-loop")
    assert selfplay.returncode == 0, selfplay.stderr
    assert json.loads(selfplay.stdout)["game"] == "kart"


def _unused_port() -> int:
    from conftest import free_port

    return free_port()


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
    assert _play_to_the_end(player) > 0
    watcher.expect(pexpect.EOF, timeout=30)
    for child in (player, watcher):
        child.close()
        assert child.exitstatus == 0


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


TINY_RING = 'title = "Tiny Ring"\nlength = 20\n[fields]\nitem = [3, 9]\nbooster = [5]\n'
#: A track whose length is text, not a number: the wrong type, not a missing length.
QUOTED_LENGTH = 'title = "Quoted"\nlength = "30"\n'


def _tracks(tmp_path: Path) -> Path:
    tracks = tmp_path / "tracks"
    tracks.mkdir(exist_ok=True)
    (tracks / "tiny-ring.toml").write_text(TINY_RING)
    (tracks / "quoted.toml").write_text(QUOTED_LENGTH)
    return tracks


def test_selfplay_takes_options_like_new_and_races_on_a_user_track(tmp_path: Path) -> None:
    env = {**_env(tmp_path), "TOADSTOOL_TRACKS": str(_tracks(tmp_path))}
    result = subprocess.run(
        toadstool_command("selfplay", "kart", "--games", "2", "--players", "3", "--option", "track=tiny-ring"),
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["options"] == {"track": "tiny-ring"}
    assert sum(summary["wins_by_seat"]) >= 2
    bad = subprocess.run(
        toadstool_command("selfplay", "uno", "--games", "1", "--option", "target=0"),
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2
    assert "option 'target' must be at least 1" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_asking_for_a_broken_user_track_says_the_tracks_own_error(tmp_path: Path) -> None:
    from conftest import TEST_LIMIT_FLAGS, start_serve, stop_process

    tracks = _tracks(tmp_path)
    env = {**_env(tmp_path), "TOADSTOOL_TRACKS": str(tracks)}
    wrong_type = "length must be a whole number of fields without quotes (e.g. length = 60), not the text '30'"
    process, address = start_serve(
        "--no-db", "--no-announce", *TEST_LIMIT_FLAGS, output=tmp_path / "serve.log", env=env
    )
    try:
        for command in (
            ("new", "kart", "--players", "2", "--option", "track=quoted", "--server", address),
            ("play", "kart", "--bots", "1", "--option", "track=quoted"),
            ("selfplay", "kart", "--games", "1", "--option", "track=quoted"),
        ):
            result = subprocess.run(
                toadstool_command(*command),
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            assert result.returncode != 0, command
            assert f"option 'track': {tracks / 'quoted.toml'}: {wrong_type}" in result.stderr, (command, result.stderr)
            assert "missing length" not in result.stderr
        fine = _run(tmp_path, "new", "kart", "--players", "2", "--option", "track=mini-loop", "--server", address)
        assert fine.returncode == 0, fine.stderr
    finally:
        stop_process(process)


@pytest.mark.parametrize(("flags", "on_uvloop"), [((), True), (("--asyncio-loop",), False)])
def test_serve_runs_on_uvloop_unless_asked_for_asyncios_own_loop_and_serves_either_way(
    tmp_path: Path, flags: tuple[str, ...], on_uvloop: bool
) -> None:
    from conftest import TEST_LIMIT_FLAGS, start_serve, stop_process

    process, address = start_serve(
        "--no-db", "--no-announce", "--no-web", *TEST_LIMIT_FLAGS, *flags, output=tmp_path / "serve.log"
    )
    try:
        # Which loop the process runs on, seen from outside: uvloop's C module is loaded only when it is used.
        maps = Path(f"/proc/{process.pid}/maps").read_text()
        assert ("uvloop/loop." in maps) is on_uvloop
        created = _run(tmp_path, "new", "uno", "--players", "2", "--server", address)
        assert created.returncode == 0, created.stderr
        listed = _run(tmp_path, "tables", "--server", address)
        assert listed.returncode == 0, listed.stderr
        assert "uno" in listed.stdout
    finally:
        stop_process(process)


LEFTOVER_CALLS = """
import asyncio, sys, types
from toadstool.cli import _drop_leftover_rpcs

@types.coroutine
def suspend():
    yield

async def call(raised):  # a call's coroutine, suspended, whose close raises (as grpc.aio's do at exit)
    try:
        await suspend()
    except GeneratorExit:
        raise raised

pending = [call(asyncio.CancelledError()), call(ValueError("a real fault"))]
for coroutine in pending:
    coroutine.send(None)
if sys.argv[1:] == ["play"]:
    _drop_leftover_rpcs()
del pending, coroutine
"""


@pytest.mark.parametrize("after_play", [False, True])
def test_after_play_a_call_cancelled_at_exit_prints_nothing_and_any_other_fault_still_prints(after_play: bool) -> None:
    # What a Ctrl+C mid-game can leave: the embedded server's newest call, pending as Python exits.
    ran = subprocess.run(
        [sys.executable, "-c", LEFTOVER_CALLS, *(["play"] if after_play else [])],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert ran.returncode == 0
    assert "ValueError: a real fault" in ran.stderr
    assert ("CancelledError" in ran.stderr) is not after_play
