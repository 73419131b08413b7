"""The terminal renderer draws every Power Up view of a random game, and shows names literally."""

from __future__ import annotations

import random

from rich.console import Console

from toadstool.api.v1 import table_pb2
from toadstool.games.powerup.engine import ENGINE, new_game
from toadstool.server.messages import game_view_message
from toadstool_clients.terminal.games.powerup import render_view


def _update(state: object, viewer: int | None) -> table_pb2.Update:
    update = table_pb2.Update(view=game_view_message(ENGINE, ENGINE.view(state, viewer)))  # type: ignore[arg-type]
    if viewer is not None:
        update.viewer_seat = viewer
    update.seats.add(index=0, name="[bold red]Bowser[/]")
    return update


def test_every_view_of_a_random_game_renders_and_names_are_not_markup() -> None:
    state = new_game(4, 11)
    rng = random.Random(11)
    console = Console(width=120, record=True, color_system=None)
    while ENGINE.outcome(state) is None:
        for viewer in (0, 2, None):
            console.print(render_view(_update(state, viewer)))
        seat = ENGINE.to_act(state)[0]
        state = ENGINE.apply(state, seat, rng.choice(list(ENGINE.legal_actions(state, seat))))
    console.print(render_view(_update(state, 1)))
    text = console.export_text()
    assert "[bold red]Bowser[/]" in text
    assert "winner" in text


def test_the_compact_drawing_is_one_line_per_seat_and_your_cards_at_80_columns() -> None:
    from toadstool_clients.terminal.games.powerup import render_compact

    state = new_game(5, 13)
    rng = random.Random(13)
    while ENGINE.outcome(state) is None:
        for viewer in (0, None):
            console = Console(width=80, record=True, color_system=None)
            console.print(render_compact(_update(state, viewer)))
            lines = console.export_text().rstrip("\n").split("\n")
            assert len(lines) <= 5 + 4, "\n".join(lines)
            assert all(len(line) <= 80 for line in lines)
            assert ("Your ? cards" in "\n".join(lines)) == (viewer is not None)
        seat = ENGINE.to_act(state)[0]
        state = ENGINE.apply(state, seat, rng.choice(list(ENGINE.legal_actions(state, seat))))
