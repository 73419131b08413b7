"""The full-screen terminal client driven as a person would, in a real terminal (tmux) at 80x24 and 160x50:
`toadstool play GAME --bots 2` to the end of the game by keys, with the turn line, the player's hand or
pieces and the choices on every screen where a choice is asked, and nothing ever scrolled into the
terminal's scrollback. Captures of every game at both sizes go to test-output/terminal/.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

import pytest
from rich.text import Text
from terminal_helpers import Tmux, save, terminal_env
from test_choices import GAMES, real_updates

from conftest import TEST_LIMIT_FLAGS, start_serve, stop_process, toadstool_command
from toadstool.api.v1 import table_pb2
from toadstool_clients.terminal.menu import Menu
from toadstool_clients.terminal.screen import screen_lines

#: What shows the player's own hand or pieces, per game.
MINE = {"uno": "Your hand", "kart": "(you)", "levelup": "Your favourites", "powerup": "Your ? cards"}
#: Options that make a whole game short enough for a test.
QUICK = {"uno": ["--option", "target=1"], "kart": ["--option", "track=mini-loop"], "levelup": [], "powerup": []}
SIZES = [(80, 24), (160, 50)]
#: What the pause screen between hands or rounds says at its foot.
PAUSED = "back to the game"


ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _plain(lines: list[str]) -> list[str]:
    return [ANSI.sub("", line) for line in lines]


@pytest.mark.parametrize(("width", "height"), SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_screen_of_a_real_game_fits_the_terminal_with_turn_hand_and_choices(
    game: str, width: int, height: int
) -> None:
    updates = real_updates(game, 2)
    for update in updates[:: max(1, len(updates) // 150)]:
        update = _mine(update)  # a copy, as if the table waited for the viewer: the turn line says so
        update.status = table_pb2.TABLE_STATUS_PLAYING
        menu = Menu.for_update(update).lines(width, one_per_line=height >= 40)
        log = [f"event {n}" for n in range(40)]
        lines = _plain(screen_lines(update, log, menu, Text("keys"), width, height))
        text = "\n".join(lines)
        assert len(lines) <= height
        assert all(len(line) <= width for line in lines), text
        assert "your turn" in lines[0].lower(), text
        assert MINE[game] in text, text
        assert "Your choice" in text, text
        assert "…" not in [line.strip() for line in lines], f"the game was cut short:\n{text}"
        assert "event 39" in text, "the newest event is not shown"


def _play(terminal: list[Tmux], tmp_path: Path, game: str, width: int, height: int) -> Tmux:
    command = toadstool_command("play", game, "--bots", "2", "--seed", "5", "--bot-delay", "0.01", *QUICK[game])
    tmux = Tmux(tmp_path / "tmux.sock", command, width, height, terminal_env(tmp_path))
    terminal.append(tmux)
    return tmux


def _finished(screen: str) -> bool:
    return "EXIT=" in screen


@pytest.mark.timeout(400)
@pytest.mark.parametrize(("width", "height"), SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("game", sorted(MINE))
def test_a_whole_game_is_played_to_the_end_by_keys_on_one_screen_that_never_scrolls(
    terminal: list[Tmux], tmp_path: Path, game: str, width: int, height: int
) -> None:
    tmux = _play(terminal, tmp_path, game, width, height)
    started = time.monotonic()
    moves, screens, pauses = 0, [], []
    last = ""
    while moves < 600 and time.monotonic() - started < 300:
        screen = tmux.wait_for(lambda s: "Your choice" in s or PAUSED in s or _finished(s), timeout=60)
        if _finished(screen):
            break
        if screen == last:  # the same screen as before our key: let the table answer first
            time.sleep(0.05)
            continue
        if PAUSED in screen:  # a hand or round ended: its result waits for a key
            pauses.append(screen)
            tmux.send("Enter")
            last = screen
            continue
        lines = screen.splitlines()
        assert len(lines) <= height
        assert all(len(line) <= width for line in lines)
        assert lines[0].strip(), f"no turn line:\n{screen}"
        if "Your choice" in screen and "your turn" in lines[0].lower():
            assert MINE[game] in screen, f"the hand or pieces are not on the screen:\n{screen}"
            numbered = re.search(r"^[ \u203a]{1,2}\d+ ", screen, re.M)
            assert numbered or "▲ on the track" in screen, f"no choices on the screen:\n{screen}"
        assert tmux.history_size() == 0, "the screen scrolled into the terminal's scrollback"
        if len(screens) < 3 or moves % 25 == 0:
            screens.append(screen)
        tmux.send("Enter")
        last = screen
        moves += 1
    final = tmux.wait_for(_finished, timeout=30)
    assert moves > 0
    assert "Game over" in final, final
    assert "EXIT=0" in final
    assert "Traceback" not in final
    if game in ("levelup", "powerup"):  # rounds (UNO here plays one hand of 1 point, Kart one race)
        assert pauses, "no pause screen at the end of a hand or round"
        assert " is over" in pauses[0], pauses[0]
    for index, screen in enumerate(screens + pauses[:2]):
        save(f"{game}-{width}x{height}-{index}", screen)
    save(f"{game}-{width}x{height}-end", final)


def test_ctrl_c_at_the_table_leaves_at_once_with_exit_status_0_and_no_traceback(
    terminal: list[Tmux], tmp_path: Path
) -> None:
    tmux = _play(terminal, tmp_path, "uno", 80, 24)
    tmux.wait_for(lambda s: "Your choice" in s, timeout=60)
    tmux.send("C-c")
    screen = tmux.wait_for(_finished, timeout=20)
    assert "EXIT=0" in screen
    assert "Traceback" not in screen


def test_q_asks_before_leaving_and_n_stays_at_the_table(terminal: list[Tmux], tmp_path: Path) -> None:
    tmux = _play(terminal, tmp_path, "uno", 80, 24)
    tmux.wait_for(lambda s: "Your choice" in s, timeout=60)
    tmux.send("q")
    asked = tmux.wait_for(lambda s: "Leave the table?" in s, timeout=10)
    save("uno-80x24-leave", asked)
    tmux.send("n")
    tmux.wait_for(lambda s: "Leave the table?" not in s and "Your choice" in s, timeout=10)
    tmux.send("q")
    tmux.wait_for(lambda s: "Leave the table?" in s, timeout=10)
    tmux.send("y")
    screen = tmux.wait_for(_finished, timeout=20)
    assert "EXIT=0" in screen


def test_a_wild_is_chosen_in_two_short_menus_a_card_then_its_colour(terminal: list[Tmux], tmp_path: Path) -> None:
    tmux = _play(terminal, tmp_path, "uno", 80, 24)
    for _ in range(200):
        screen = tmux.wait_for(lambda s: "Your choice" in s or _finished(s), timeout=60)
        wild = re.search(r"(\d+) Play Wild[^▸\n]*▸", screen)
        if wild or _finished(screen):
            break
        tmux.send("Enter")
        tmux.wait_for(lambda s, before=screen: s != before, timeout=30)
    assert wild, "no wild card was offered in this seeded game"
    tmux.send(wild.group(1))  # a whole number chooses at once: no Enter
    colours = tmux.wait_for(lambda s: "Your choice:" in s, timeout=10)
    save("uno-80x24-wild-colour", colours)
    assert re.search(r"1 red\s+.*2 yellow\s+.*3 green\s+.*4 blue", colours)


@pytest.mark.timeout(300)
def test_auto_plays_single_forced_choices_by_itself_after_a_visible_pause(terminal: list[Tmux], tmp_path: Path) -> None:
    tmux = _play(terminal, tmp_path, "kart", 80, 24)
    tmux.wait_for(lambda s: "Your choice" in s, timeout=60)
    tmux.send("a")
    tmux.wait_for(lambda s: "a: auto on" in s, timeout=10)
    auto_seen, keys = 0, 0
    started = time.monotonic()
    screen = ""
    while keys < 400 and time.monotonic() - started < 240:
        screen = tmux.wait_for(lambda s, before=screen: s != before or _finished(s), timeout=60)
        if _finished(screen):
            break
        if "auto: playing" in screen:
            auto_seen += 1
            if auto_seen == 1:
                save("kart-80x24-auto", screen)
            continue  # auto plays it: no key
        if "Your choice" in screen:
            tmux.send("Enter")
            keys += 1
    final = tmux.wait_for(_finished, timeout=60)
    assert "Game over" in final
    assert "EXIT=0" in final
    assert auto_seen > 0, "auto never played a forced roll"


@pytest.mark.parametrize("where", ["in a submenu", "at the leave question"])
def test_ctrl_c_leaves_from_a_submenu_and_from_the_leave_question_with_status_0(
    terminal: list[Tmux], tmp_path: Path, where: str
) -> None:
    tmux = _play(terminal, tmp_path, "levelup", 80, 24)
    tmux.wait_for(lambda s: "Your choice" in s and "Place" in s, timeout=60)
    if where == "in a submenu":
        tmux.send("Enter")
        tmux.wait_for(lambda s: "Your choice: Place" in s, timeout=10)
    else:
        tmux.send("q")
        tmux.wait_for(lambda s: "Leave the table?" in s, timeout=10)
    tmux.send("C-c")
    screen = tmux.wait_for(_finished, timeout=20)
    assert "EXIT=0" in screen
    assert "Traceback" not in screen


def test_resizing_the_terminal_redraws_the_screen_for_the_new_size(terminal: list[Tmux], tmp_path: Path) -> None:
    tmux = _play(terminal, tmp_path, "levelup", 80, 24)
    small = tmux.wait_for(lambda s: "Your choice" in s and "Place" in s, timeout=60)
    assert "Players" not in small  # the compact board
    tmux.resize(160, 50)
    large = tmux.wait_for(lambda s: "q: leave" in s.splitlines()[-1] if len(s.splitlines()) > 40 else False)
    save("levelup-resized-160x50", large)
    assert "Players" in large, "the larger terminal does not get the fuller board"
    assert "Your choice" in large
    assert tmux.history_size() == 0
    tmux.resize(80, 24)
    again = tmux.wait_for(lambda s: len(s.rstrip("\n").splitlines()) <= 24 and "Your choice" in s and "q: leave" in s)
    assert "Players" not in again


def test_a_spectator_sees_the_game_and_is_never_told_to_wait_for_the_other_players(
    terminal: list[Tmux], tmp_path: Path
) -> None:
    flags = ("--bot-delay", "0.3", "--no-db", "--no-announce", *TEST_LIMIT_FLAGS)
    process, address = start_serve(*flags, output=tmp_path / "serve.log", env={**os.environ, **terminal_env(tmp_path)})
    try:
        created = subprocess.run(
            toadstool_command(
                "new", "uno", "--players", "2", "--bots", "2", "--option", "target=1", "--server", address
            ),
            env={**os.environ, **terminal_env(tmp_path)},
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        watch = toadstool_command("watch", created.stdout.strip(), "--server", address)
        tmux = Tmux(tmp_path / "tmux.sock", watch, 80, 24, terminal_env(tmp_path))
        terminal.append(tmux)
        watching = tmux.wait_for(lambda s: "Watching" in s or _finished(s), timeout=60)
        save("uno-80x24-spectator", watching)
        assert "Watching" in watching, watching
        assert "Your hand" not in watching
        assert "Top card" in watching
        final = tmux.wait_for(_finished, timeout=120)
    finally:
        stop_process(process)
    assert "Waiting for the other players" not in watching + final
    assert "Game over" in final
    assert "EXIT=0" in final


# ---- the menu's keys, on real updates (no terminal needed) ------------------------------------------------


def _mine(update: table_pb2.Update, waited_for: bool = True) -> table_pb2.Update:
    """A copy of `update` in which the table waits (or, with `waited_for` False, does not) for its viewer."""
    copy = table_pb2.Update.FromString(update.SerializeToString())
    others = [seat for seat in copy.to_act if seat != copy.viewer_seat]
    copy.ClearField("to_act")
    copy.to_act.extend([*others, copy.viewer_seat] if waited_for else others)
    return copy


def test_u_switches_call_uno_on_so_the_chosen_play_is_the_one_that_calls_it() -> None:
    update = next(u for u in real_updates("uno", 1) if any(a.action.uno.play_card.uno for a in u.legal_actions))
    menu = Menu.for_update(_mine(update))
    leaf_number = next(n for n, entry in enumerate(menu.entries) if entry.is_leaf and entry.toggles)
    assert "[ ] u: call UNO" in "".join(line.plain for line in menu.lines(200, one_per_line=True))
    assert menu.shortcut("u") is None  # a toggle, not an action
    assert "[x] u: call UNO" in "".join(line.plain for line in menu.lines(200, one_per_line=True))
    menu.type_digit(str(leaf_number + 1))
    chosen = menu.choose()
    assert chosen is not None
    assert next(a for a in update.legal_actions if a.id == chosen).action.uno.play_card.uno


def test_numbers_then_enter_open_a_group_and_escape_goes_back() -> None:
    update = next(u for u in real_updates("levelup", 1) if len(u.legal_actions) == 52)
    menu = Menu.for_update(_mine(update))
    menu.type_digit("1")
    menu.type_digit("2")
    assert menu.highlighted == 11
    assert menu.choose() is None  # into "Place <the 12th character>"
    assert [menu.label(e) for e in menu.entries] == ["level 1", "level 2", "level 3", "level 4"]
    assert menu.back()
    assert menu.highlighted == 11
    assert not menu.back()


def test_d_draws_and_r_rolls_when_those_are_offered() -> None:
    uno = next(u for u in real_updates("uno", 1) if any(a.action.uno.HasField("draw") for a in u.legal_actions))
    assert Menu.for_update(_mine(uno)).shortcut("d") == next(a.id for a in uno.legal_actions if "draw" in a.id)
    assert Menu.for_update(_mine(uno)).shortcut("r") is None
    kart = next(u for u in real_updates("kart", 1) if any(a.action.kart.HasField("roll") for a in u.legal_actions))
    assert Menu.for_update(_mine(kart)).shortcut("r") == "roll"


def test_auto_plays_a_forced_roll_but_never_a_secret_forced_choice_nor_an_optional_one_out_of_turn() -> None:
    def only(game: str, kind: str) -> table_pb2.Update:
        return next(
            u
            for seed in (1, 2, 3)
            for u in real_updates(game, seed)
            if len(u.legal_actions) == 1 and getattr(u.legal_actions[0].action, game).HasField(kind)
        )

    assert Menu.for_update(_mine(only("kart", "roll"))).auto_playable() is not None
    assert Menu.for_update(_mine(only("uno", "accept_penalty"))).forced() is not None
    assert Menu.for_update(_mine(only("uno", "accept_penalty"))).auto_playable() is None
    assert Menu.for_update(_mine(only("powerup", "pass"))).auto_playable() is None
    assert Menu.for_update(_mine(only("kart", "roll"), waited_for=False)).forced() is None
