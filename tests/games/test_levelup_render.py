"""The terminal renderer draws Level Up! views for seats and spectators, with names shown literally."""

from __future__ import annotations

import random

from rich.console import Console

from toadstool.api.v1 import table_pb2
from toadstool.games.levelup.engine import ENGINE as E
from toadstool.server.messages import game_view_message
from toadstool_clients.terminal.games.levelup import render_view


def _update(state: object, viewer: int | None) -> table_pb2.Update:
    update = table_pb2.Update()
    update.view.CopyFrom(game_view_message(E, E.view(state, viewer)))
    if viewer is not None:
        update.viewer_seat = viewer
    for seat, name in enumerate(["[bold red]Ann", "Bob", "Cy"]):
        entry = update.seats.add()
        entry.index = seat
        entry.name = name
    return update


def test_views_render_for_seats_and_spectators_with_names_taken_literally() -> None:
    rng = random.Random(4)
    state = E.new(3, {}, 4)
    console = Console(width=120, record=True)
    for step in range(400):
        if E.outcome(state) is not None:
            break
        if step % 40 == 0:
            for viewer in (0, 1, None):
                console.print(render_view(_update(state, viewer)))
        seat = rng.choice(E.to_act(state))
        state = E.apply(state, seat, rng.choice(E.legal_actions(state, seat)))
    text = console.export_text()
    assert "[bold red]Ann" in text
    assert "Level Up!" in text


def test_the_compact_drawing_keeps_to_a_line_budget_at_80_columns_and_shows_your_favourites() -> None:
    from toadstool_clients.terminal.games.levelup import render_compact

    rng = random.Random(9)
    state = E.new(3, {}, 9)
    for step in range(600):
        if E.outcome(state) is not None:
            break
        if step % 10 == 0:
            for viewer in (0, None):
                console = Console(width=80, record=True, color_system=None)
                console.print(render_compact(_update(state, viewer)))
                lines = console.export_text().rstrip("\n").split("\n")
                assert len(lines) <= 13, "\n".join(lines)
                assert all(len(line) <= 80 for line in lines)
                assert ("Your favourites" in "\n".join(lines)) == (viewer is not None)
        seat = rng.choice(E.to_act(state))
        state = E.apply(state, seat, rng.choice(E.legal_actions(state, seat)))
