"""The terminal client's UNO rendering: it draws any view without error and shows names literally."""

from __future__ import annotations

import random

from rich.console import Console
from uno_support import YELLOW, card, play, table

from toadstool.api.v1 import table_pb2
from toadstool.engine import parse_options
from toadstool.games.uno.engine import ENGINE, Challenge
from toadstool.server.messages import game_view_message
from toadstool_clients.terminal.games.uno import render_view

NAMES = ["[bold]Mario[/bold]", "Luigi", "Peach"]


def _render(state, viewer: int | None) -> str:  # type: ignore[no-untyped-def]
    update = table_pb2.Update(
        view=game_view_message(ENGINE, ENGINE.view(state, viewer)),
        seats=[table_pb2.Seat(index=i, name=n) for i, n in enumerate(NAMES[: len(state.hands)])],
        phase=ENGINE.view(state, viewer).phase,
    )
    if viewer is not None:
        update.viewer_seat = viewer
    console = Console(record=True, width=120, color_system="truecolor")
    console.print(render_view(update))
    return console.export_text()


def test_the_view_renders_for_every_seat_and_a_spectator_through_a_random_game() -> None:
    rng = random.Random(3)
    state = ENGINE.new(3, parse_options(ENGINE.options, {"house_rule": "[red]hop[/red]"}), 3)
    for step in range(300):
        if step % 20 == 0:
            for viewer in (0, 1, 2, None):
                assert "UNO Super Mario" in _render(state, viewer)
        seat = ENGINE.to_act(state)[0]
        state = ENGINE.apply(state, seat, rng.choice(list(ENGINE.legal_actions(state, seat))))
    assert "[red]hop[/red]" in _render(state, 0)


def test_names_from_the_network_are_shown_literally_never_as_markup() -> None:
    state = table([[card("red 1"), card("red 2"), card("red 3")], [card("blue 9")], [card("green 8")]], card("red 5"))
    text = _render(state, 1)
    assert "[bold]Mario[/bold] to play" in text
    assert "Luigi (you)" in text


def test_the_challenger_sees_the_reveal_panel() -> None:
    hands = [[card("Wild Draw Four"), card("red 1"), card("red 2")], [card("blue 9")], [card("green 8")]]
    state = play(table(hands, card("red 5")), 0, "Wild Draw Four", YELLOW)
    assert "draw-4" in _render(state, 1)
    state = ENGINE.apply(state, 1, Challenge())
    assert "Challenge reveal" in _render(state, 1)
    assert "Challenge reveal" not in _render(state, 2)


def test_the_compact_drawing_names_card_counts_in_the_right_number_and_fits_80_columns() -> None:
    from toadstool_clients.terminal.games.uno import render_compact

    state = table([[card("red 1"), card("red 2")], [card("blue 9")], [card("green 8"), card("green 7")]], card("red 5"))
    update = table_pb2.Update(
        view=game_view_message(ENGINE, ENGINE.view(state, 0)),
        seats=[table_pb2.Seat(index=i, name=n) for i, n in enumerate(NAMES)],
        viewer_seat=0,
    )
    console = Console(record=True, width=80, color_system=None)
    console.print(render_compact(update))
    text = console.export_text()
    assert "Luigi 1 card UNO!" in text
    assert "you 2 cards" in text
    assert "Your hand:" in text
    assert all(len(line) <= 80 for line in text.splitlines())
