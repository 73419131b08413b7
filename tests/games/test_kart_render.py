"""The terminal rendering of a Kart view draws any view of a race and never interprets names as markup."""

from __future__ import annotations

from typing import Any

from kart_helpers import E
from rich.console import Console

from toadstool.api.v1 import table_pb2
from toadstool.bots import RandomBot
from toadstool.selfplay import play
from toadstool.server.messages import game_view_message
from toadstool_clients.terminal.games.kart import render_view


def test_every_view_of_a_race_renders_with_escaped_names() -> None:
    states: list[Any] = []
    play(E, [RandomBot() for _ in range(3)], 11, observe=lambda state, seat, action: states.append(state))
    for state in [*states[:: max(1, len(states) // 25)], states[-1]]:
        for viewer in (0, None):
            update = table_pb2.Update(phase=E.view(state, viewer).phase)
            update.view.CopyFrom(game_view_message(E, E.view(state, viewer)))
            if viewer is not None:
                update.viewer_seat = viewer
            for index, name in enumerate(["[red]Ann[/red]", "Bob", ""]):
                update.seats.add(index=index, name=name)
            console = Console(width=110, record=True, color_system=None)
            console.print(render_view(update))
            text = console.export_text()
            assert "[red]Ann[/red]" in text
            assert "Mushroom Loop" in text


def test_the_compact_drawing_of_every_view_fits_its_lines_at_80_columns() -> None:
    from toadstool_clients.terminal.games.kart import render_compact

    states: list[Any] = []
    play(E, [RandomBot() for _ in range(4)], 12, observe=lambda state, seat, action: states.append(state))
    for state in states[:: max(1, len(states) // 60)]:
        for viewer in (1, None):
            update = table_pb2.Update()
            update.view.CopyFrom(game_view_message(E, E.view(state, viewer)))
            if viewer is not None:
                update.viewer_seat = viewer
            for index, name in enumerate(["[red]Ann[/red]", "Bob", "Cy", "Dee"]):
                update.seats.add(index=index, name=name)
            console = Console(width=80, record=True, color_system=None)
            console.print(render_compact(update))
            lines = console.export_text().rstrip("\n").split("\n")
            assert len(lines) <= 12, "\n".join(lines)
            assert all(len(line) <= 80 for line in lines)
            if viewer is not None:
                assert "(you)" in "\n".join(lines)
