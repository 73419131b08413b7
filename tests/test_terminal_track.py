"""A Kart field chosen on the drawn track, and the events in the player's own words ("You roll 5"), in a
real terminal (tmux) at 80x24 and 160x50 with `toadstool play kart`; and the same rules on real updates
(no terminal). Captures go to test-output/terminal/.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rich.text import Text
from terminal_helpers import Tmux, save, terminal_env
from test_choices import real_updates

from conftest import toadstool_command
from toadstool.api.v1 import table_pb2
from toadstool_clients.terminal.menu import Menu
from toadstool_clients.terminal.screen import screen_lines
from toadstool_clients.terminal.track_pick import TrackPick

SIZES = [(80, 24), (160, 50)]
#: The menu's pointer before the highlighted entry.
POINTER = "\u203a"
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _banana_update() -> table_pb2.Update:
    update = next(
        u for u in real_updates("kart", 1) if any(a.action.kart.HasField("place_banana") for a in u.legal_actions)
    )
    update.ClearField("to_act")
    update.to_act.append(update.viewer_seat)
    return update


def _fields(update: table_pb2.Update) -> list[int]:
    return [a.action.kart.place_banana.field for a in update.legal_actions if a.action.kart.HasField("place_banana")]


def _screen(update: table_pb2.Update, menu: Menu, pick: TrackPick | None) -> list[str]:
    """The 80x24 screen for `update` with `menu` and the track's marks."""
    return screen_lines(update, [], menu.lines(80, one_per_line=False), Text(""), 80, 24, pick=pick)


def _pick_row(lines: list[str]) -> str:
    """The compact track's row of marks (^ for a candidate, ▲ for the highlighted one)."""
    return next(line for line in lines if "▲" in line and set(line.strip()) <= {"^", "▲", " "})


def test_a_banana_is_one_entry_whose_level_is_every_free_field_marked_on_the_track() -> None:
    update = _banana_update()
    fields = _fields(update)
    menu = Menu.for_update(update)
    assert [menu.label(e) for e in menu.entries] == ["Banana on a field of the track", "Throw the Banana away"]
    assert menu.choose() is None
    assert len(menu.entries) == len(fields)
    lines = [
        ANSI.sub("", line)
        for line in screen_lines(
            update, [], menu.lines(80, one_per_line=False), Text(""), 80, 24, pick=menu.track_pick()
        )
    ]
    row = _pick_row(lines)
    assert row.index("▲") == fields[0], "the highlighted field is not marked under its field"
    assert {i for i, ch in enumerate(row) if ch in "^▲"} == set(fields), "not every free field is marked"
    assert f"{POINTER} field {fields[0]} " in "\n".join(lines)
    assert len(lines) <= 24
    assert all(len(line) <= 80 for line in lines)


def test_arrows_walk_along_the_track_and_a_typed_number_picks_that_field() -> None:
    update = _banana_update()
    fields = _fields(update)
    menu = Menu.for_update(update)
    menu.choose()
    menu.move(1)
    pick = menu.track_pick()
    assert pick is not None
    assert pick.chosen == fields[1]
    menu.move(-2)
    pick = menu.track_pick()
    assert pick is not None
    assert pick.chosen == fields[-1]
    target = fields[len(fields) // 2]
    for digit in str(target):
        menu.type_digit(digit)
    chosen = menu.choose()
    assert chosen is not None
    assert next(a for a in update.legal_actions if a.id == chosen).action.kart.place_banana.field == target


def test_a_shell_target_is_marked_at_its_kart_on_the_track_and_in_the_karts_lines() -> None:
    update = next(
        u
        for seed in (1, 2, 3)
        for u in real_updates("kart", seed)
        if any(a.action.kart.use_item.HasField("target") for a in u.legal_actions)
    )
    menu = Menu.for_update(update)
    number = next(n for n, e in enumerate(menu.entries) if any(step[1] == "target" for step in e.steps))
    menu.highlighted = number
    pick = menu.track_pick()
    assert pick is not None
    assert pick.chosen_seat is not None
    lines = [ANSI.sub("", line) for line in _screen(update, menu, pick)]
    assert "◀ target" in "\n".join(lines)


@pytest.mark.timeout(200)
@pytest.mark.parametrize(("width", "height"), SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_a_banana_field_is_picked_on_the_drawn_track_by_arrows_and_its_number_and_the_log_says_you(
    terminal: list[Tmux], tmp_path: Path, width: int, height: int
) -> None:
    command = toadstool_command("play", "kart", "--bots", "2", "--seed", "1", "--bot-delay", "0.4")
    tmux = Tmux(
        tmp_path / "tmux.sock", [*command, "--option", "track=mini-loop"], width, height, terminal_env(tmp_path)
    )
    terminal.append(tmux)
    screen, last = "", ""
    for _ in range(100):  # seed 1: Enter on the first choice draws a Banana within a few turns
        screen = tmux.wait_for(lambda s: "Your choice" in s or "EXIT=" in s, timeout=60)
        if "a field of the track ▸" in screen or "EXIT=" in screen:
            break
        if screen != last:
            tmux.send("Enter")
            last = screen
    assert "a field of the track ▸" in screen, screen
    assert "You roll" in screen, f"the player's own roll does not read 'You roll':\n{screen}"
    assert "Player 1 rolls" not in screen
    save(f"kart-{width}x{height}-banana-menu", screen)
    tmux.send("1")  # a whole number chooses at once: no Enter
    first = tmux.wait_for(lambda s: "▲ on the track (1 of" in s, timeout=10)
    candidates = int(re.search(r"\(1 of (\d+)\)", first).group(1))  # type: ignore[union-attr]
    first_field = int(re.search(POINTER + r" field (\d+) ", first).group(1))  # type: ignore[union-attr]
    if width == 80:
        assert _pick_row(first.splitlines()).index("▲") == first_field
    tmux.send("Right")
    second = tmux.wait_for(lambda s: "▲ on the track (2 of" in s, timeout=10)
    second_field = int(re.search(POINTER + r" field (\d+) ", second).group(1))  # type: ignore[union-attr]
    assert second_field > first_field
    if width == 80:
        row = _pick_row(second.splitlines())
        assert row.index("▲") == second_field
        assert len([ch for ch in row if ch in "^▲"]) == candidates, "not every candidate is marked"
    tmux.send("Left", "Left")  # back past the first: round to the last field
    last = tmux.wait_for(lambda s: f"▲ on the track ({candidates} of {candidates})" in s, timeout=10)
    assert int(re.search(POINTER + r" field (\d+) ", last).group(1)) > second_field  # type: ignore[union-attr]
    target = second_field
    tmux.send(*str(target))  # its number, as the track shows it
    typed = tmux.wait_for(lambda s: f"{POINTER} field {target} " in s and "(2 of" in s, timeout=10)
    save(f"kart-{width}x{height}-banana-on-the-track", typed)
    if width == 80:
        assert _pick_row(typed.splitlines()).index("▲") == target
    tmux.send("Enter")
    placed = tmux.wait_for(lambda s: f"You put a banana chip on field {target}" in s, timeout=20)
    save(f"kart-{width}x{height}-banana-placed", placed)
    assert "puts a banana" not in placed.split(f"You put a banana chip on field {target}")[0].splitlines()[-1]
    assert tmux.history_size() == 0
