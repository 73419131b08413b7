"""Terminal rendering of a game this client has no screen for (GameView.generic): its phase and its view's
fields as a table. The seat list, event log and action menu around it belong to the generic terminal shell.
Names and texts from the network are always escaped (rich Text, never markup)."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from toadstool.api.v1 import table_pb2
from toadstool_clients.generic_view import generic_lines


def render_view(update: table_pb2.Update) -> RenderableType:
    view = update.view.generic
    table = Table(show_header=False, box=None, padding=(0, 1))
    table.add_column(style="bold")
    table.add_column()
    for label, value in generic_lines(view):
        table.add_row(Text(label), Text(value))
    return Group(Text(f"{view.game}: {view.phase}", style="bold"), table)
