"""`toadstool replay TABLE`: step through a table's history in the terminal, one step per screen.

At a terminal it is a full-screen stepper (prompt_toolkit): "Step N of M", the step's events and the game
as it stood then, drawn by the terminal client's game screens (`terminal.games.render_game`, read only);
keys move to the next, previous, first or last step, ten at a time, or to a typed step number, and q quits
at once. Not at a terminal (or with --all/--delay) every step is printed in turn.

The server sends the history as this machine's seat may know it (a saved seat token, if any) or as a
spectator; this module only shows the steps. It holds no rules.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import dataclass, field

import grpc
from prompt_toolkit.application import Application, get_app
from prompt_toolkit.formatted_text import ANSI, StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from rich.console import Console, Group, RenderableType
from rich.rule import Rule
from rich.text import Text

from toadstool.api.v1 import table_pb2
from toadstool_clients.connection import Client, describe_rpc_error, server_address
from toadstool_clients.seats import remembered_seat
from toadstool_clients.terminal.games import render_game

#: What the bottom line says the keys do.
KEYS = "→/n next  ←/p back  Home/End  PgUp/PgDn ±10  ↑↓ scroll  7 Enter: step 7  q quit"


def step_update(table: table_pb2.TableInfo, step: table_pb2.HistoryStep, viewer: int | None) -> table_pb2.Update:
    """An Update carrying one history step, so the live game screens can draw it."""
    update = table_pb2.Update(
        table_id=table.table_id, version=step.version, game=table.game, table_name=table.name, seats=table.seats
    )
    update.view.CopyFrom(step.view)
    if viewer is not None:
        update.viewer_seat = viewer
    return update


@dataclass
class Replay:
    """A table's history and where the stepper stands in it (0-based `index`; `typed`: a step number being
    typed). Moving past either end stays at that end."""

    table: table_pb2.TableInfo
    steps: list[table_pb2.HistoryStep]
    viewer: int | None
    index: int = 0
    typed: str = ""
    #: Lines of the step scrolled off the top (a step taller than the terminal); a new step starts at 0.
    scroll: int = 0
    _drawn: dict[tuple[int, int], str] = field(default_factory=dict)

    def go(self, index: int) -> None:
        self.index = max(0, min(len(self.steps) - 1, index))
        self.typed = ""
        self.scroll = 0

    def title(self, index: int) -> str:
        """ "Step 3 of 57: Luigi played the red 5" (who acted, and the label where this seat may know it)."""
        step = self.steps[index]
        names = {seat.index: seat.name for seat in self.table.seats}
        who = names.get(step.seat, f"seat {step.seat + 1}") if step.HasField("seat") else "the start"
        what = f"{who}: {step.label}" if step.label else who
        return f"Step {index + 1} of {len(self.steps)} · {what}"

    def body(self, index: int) -> RenderableType:
        """What happened at the step, then the game as it stood after it."""
        step = self.steps[index]
        events = [Text(f"  {event.text}") for event in step.events]
        return Group(*events, render_game(step_update(self.table, step, self.viewer)))

    def drawn(self, width: int) -> str:
        """The current step drawn by rich as ANSI text `width` columns wide (kept: redrawing is per key)."""
        key = (self.index, width)
        if key not in self._drawn:
            console = Console(width=width, force_terminal=True, color_system="256", highlight=False)
            with console.capture() as capture:
                console.print(self.body(self.index))
            self._drawn[key] = capture.get()
        return self._drawn[key]


def stepper(replay: Replay) -> Application[int]:
    """The full-screen stepper: the step's title on top, the step below, the keys at the bottom."""
    keys = KeyBindings()

    def move(by: int) -> None:
        replay.go(replay.index + by)

    @keys.add("q")
    @keys.add("Q")
    @keys.add("c-c")
    @keys.add("c-d")
    def _quit(event: KeyPressEvent) -> None:
        event.app.exit(result=0)

    for key, by in (("right", 1), ("n", 1), ("space", 1), ("left", -1), ("p", -1), ("pagedown", 10), ("pageup", -10)):
        keys.add(key)(lambda event, by=by: move(by))
    keys.add("home")(lambda event: replay.go(0))
    keys.add("up")(lambda event: setattr(replay, "scroll", max(0, replay.scroll - 1)))
    keys.add("down")(lambda event: setattr(replay, "scroll", replay.scroll + 1))
    keys.add("end")(lambda event: replay.go(len(replay.steps) - 1))

    for digit in "0123456789":

        @keys.add(digit)
        def _digit(event: KeyPressEvent) -> None:
            replay.typed = (replay.typed + event.data)[-6:]

    @keys.add("backspace")
    def _erase(event: KeyPressEvent) -> None:
        if replay.typed:
            replay.typed = replay.typed[:-1]
        else:
            move(-1)

    @keys.add("enter")
    def _enter(event: KeyPressEvent) -> None:
        if replay.typed:
            replay.go(int(replay.typed) - 1)
        else:
            move(1)

    def title() -> StyleAndTextTuples:
        typed = f"   go to step {replay.typed}_" if replay.typed else ""
        return [("bold", replay.title(replay.index)), ("", typed)]

    def body() -> ANSI:
        lines = replay.drawn(get_app().output.get_size().columns).splitlines()
        replay.scroll = min(replay.scroll, max(0, len(lines) - 1))
        return ANSI("\n".join(lines[replay.scroll :]))

    layout = Layout(
        HSplit(
            [
                Window(FormattedTextControl(title), height=1, style="reverse"),
                Window(FormattedTextControl(body), wrap_lines=False),
                Window(FormattedTextControl([("", KEYS)]), height=1, style="reverse"),
            ]
        )
    )
    return Application(layout=layout, key_bindings=keys, full_screen=True)


def print_all(replay: Replay, delay: float) -> None:
    """Every step in turn, each under its title (not at a terminal, or with --all/--delay)."""
    console = Console(highlight=False)
    for index in range(len(replay.steps)):
        console.print(Rule(Text(replay.title(index), style="bold")))
        console.print(replay.body(index))
        if delay:
            import time

            time.sleep(delay)


async def load(address: str, table_id: str, tls_ca: str | None) -> Replay | None:
    """The table and its history, as this machine's saved seat there may know it; None (said) on an error."""
    async with Client(address, tls_ca=tls_ca) as client:
        try:
            table = await client.get_table(table_id)
            saved = remembered_seat(client.address, table_id)
            steps = await client.history(table_id, saved[1] if saved else None)
        except grpc.aio.AioRpcError as error:
            print(f"toadstool: {describe_rpc_error(error)}", file=sys.stderr)
            return None
    return Replay(table, steps, saved[0] if saved else None)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `toadstool replay`."""
    parser.add_argument("table", help="id of the table to replay")
    parser.add_argument("--server", help="HOST[:PORT] (default: $TOADSTOOL_SERVER or 127.0.0.1:50051)")
    parser.add_argument("--tls-ca", help="PEM certificate of a TLS server")
    parser.add_argument(
        "--delay", type=float, default=0.0, help="print the steps one after another, this many seconds apart"
    )
    parser.add_argument("--all", action="store_true", help="print every step at once instead of stepping")


def run(args: argparse.Namespace) -> int:
    """`toadstool replay` with its parsed options: the stepper at a terminal, else every step printed."""
    replay = asyncio.run(load(server_address(args.server), args.table, args.tls_ca))
    if replay is None:
        return 1
    if not replay.steps:
        print(f"table {args.table} has no history yet")
        return 0
    if args.all or args.delay or not (sys.stdin.isatty() and sys.stdout.isatty()):
        print_all(replay, args.delay)
        return 0
    return stepper(replay).run()
