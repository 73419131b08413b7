"""The terminal's ways in and out, driven in a real terminal (tmux): leaving with q or Ctrl+C says how to
come back; the open-seat wait screen says that h starts the table; `toadstool play kart` asks for the track;
a server that is not running is said at once with its address and `toadstool serve`; at 60x20 the footer
keeps "q: leave"; a number key chooses without Enter.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from terminal_helpers import Tmux, save, terminal_env

from conftest import free_port, toadstool_command


def _finished(screen: str) -> bool:
    return "EXIT=" in screen


def _tmux(terminal: list[Tmux], tmp_path: Path, args: list[str], width: int = 80, height: int = 24) -> Tmux:
    tmux = Tmux(tmp_path / "tmux.sock", toadstool_command(*args), width, height, terminal_env(tmp_path))
    terminal.append(tmux)
    return tmux


UNO = ["play", "uno", "--bots", "2", "--seed", "5", "--bot-delay", "0.01", "--option", "target=1", "--name", "Ann"]


@pytest.mark.parametrize("keys", [("q", "y"), ("C-c",)], ids=["q", "ctrl-c"])
def test_leaving_says_how_to_come_back_and_that_command_brings_you_back(
    terminal: list[Tmux], tmp_path: Path, keys: tuple[str, ...]
) -> None:
    tmux = _tmux(terminal, tmp_path, UNO)
    tmux.wait_for(lambda s: "Your choice" in s, timeout=60)
    tmux.send(*keys)
    left = tmux.wait_for(_finished, timeout=30)
    save(f"uno-80x24-left-{keys[0]}", left)
    assert "EXIT=0" in left
    assert "Come back with:\n  toadstool play uno --name Ann\n" in left, left
    assert "Traceback" not in left
    tmux.close()
    terminal.remove(tmux)
    again = _tmux(terminal, tmp_path, ["play", "uno", "--name", "Ann"])
    asked = again.wait_for(lambda s: "is not finished" in s or "Your choice" in s, timeout=60)
    save("uno-80x24-come-back", asked)
    assert "is not finished. Go back to it?" in asked, asked  # the kept game is offered


def test_the_open_seat_wait_screen_says_that_h_starts_the_table(terminal: list[Tmux], tmp_path: Path) -> None:
    tmux = _tmux(terminal, tmp_path, ["play", "uno", "--players", "3", "--bots", "1", "--bot-delay", "0.01"])
    waiting = tmux.wait_for(lambda s: "Waiting for players" in s, timeout=60)
    save("uno-80x24-lobby", waiting)
    assert "Press h to start now" in waiting, waiting
    tmux.send("h")
    tmux.wait_for(lambda s: "Start now" in s, timeout=10)
    tmux.send("Enter")
    tmux.wait_for(lambda s: "Your choice" in s or "Waiting for the other players" in s, timeout=30)


def test_play_kart_asks_which_track_and_races_on_the_one_chosen(terminal: list[Tmux], tmp_path: Path) -> None:
    tmux = _tmux(terminal, tmp_path, ["play", "kart", "--bots", "1", "--bot-delay", "0.01"])
    asked = tmux.wait_for(lambda s: "Choose 1-2" in s, timeout=60)
    save("kart-80x24-track-question", asked)
    assert "mini-loop  Mini Loop, 40 fields" in asked
    assert "mushroom-loop  Mushroom Loop, 60 fields (default)" in asked
    tmux.send("1", "Enter")
    racing = tmux.wait_for(lambda s: "Your choice" in s, timeout=60)
    assert "Mini Loop" in racing, racing


def test_play_kart_asks_which_track_in_german_with_the_servers_titles(terminal: list[Tmux], tmp_path: Path) -> None:
    tmux = _tmux(terminal, tmp_path, ["play", "kart", "--bots", "1", "--bot-delay", "0.01", "--lang", "de"])
    asked = tmux.wait_for(lambda s: "Wähle 1-2" in s, timeout=60)
    save("kart-80x24-track-question-de", asked)
    assert "Strecke: " in asked
    assert "mini-loop  Mini-Rundkurs, 40 Felder" in asked
    assert "mushroom-loop  Pilz-Rundkurs, 60 Felder (Standard)" in asked
    assert "fields" not in asked
    tmux.send("1", "Enter")
    racing = tmux.wait_for(lambda s: "Mini-Rundkurs" in s, timeout=60)
    assert "Mini Loop" not in racing, racing


def test_a_server_that_is_not_running_is_said_at_once_with_its_address(tmp_path: Path) -> None:
    port = free_port()  # nothing listens there
    for command in (["join", "abc123"], ["watch", "abc123"], ["play", "uno"]):
        done = subprocess.run(
            toadstool_command(*command, "--server", f"127.0.0.1:{port}"),
            env={**terminal_env(tmp_path)},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 2, done.stderr
        assert f"no Toadstool server is running at 127.0.0.1:{port}" in done.stderr, done.stderr
        assert "`toadstool serve`" in done.stderr
        assert "did not answer in time" not in done.stderr


def test_at_60x20_the_footer_keeps_q_leave_and_a_number_key_chooses_without_enter(
    terminal: list[Tmux], tmp_path: Path
) -> None:
    tmux = _tmux(terminal, tmp_path, [*UNO[:3], "9", *UNO[4:]], 60, 20)
    screen = tmux.wait_for(lambda s: "Your choice" in s, timeout=60)
    save("uno-60x20-ten-seats", screen)
    lines = screen.rstrip("\n").splitlines()
    assert lines[-1].rstrip().endswith("q: leave"), screen
    for bot in range(1, 10):
        assert f"Bot {bot} " in screen, screen
    entries = dict(re.findall(r"^[ \u203a](\d) (.+?)(?:\s{2,}|$)", screen, re.M))
    leaf, label = next((number, label) for number, label in entries.items() if not label.endswith("▸"))
    tmux.send(leaf)  # no Enter
    sent = tmux.wait_for(lambda s: f"{leaf} {label}" not in s, timeout=30)
    assert "Your choice:" not in sent, f"the number opened a level instead of choosing:\n{sent}"
    save("uno-60x20-chosen-by-number", sent)


def test_your_kart_roll_stays_on_the_screen_after_six_bots_have_moved(terminal: list[Tmux], tmp_path: Path) -> None:
    kart = ["play", "kart", "--bots", "6", "--seed", "5", "--bot-delay", "0.01", "--option", "track=mushroom-loop"]
    tmux = _tmux(terminal, tmp_path, kart)
    first = tmux.wait_for(lambda s: "1 Roll the die" in s, timeout=60)
    tmux.send("1")
    again = tmux.wait_for(
        lambda s: "1 Roll the die" in s and s != first and "Your last move: You roll" in s, timeout=60
    )
    save("kart-80x24-your-last-roll", again)
    assert "Bot 6" in again
