"""`toadstool replay TABLE`: step through a table's history in the terminal.

The server sends the history as this machine's seat may know it (its remembered seat token, if any) or as
a spectator; this module only renders the steps with the terminal client's game screens.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

import grpc
from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from toadstool.api.v1 import table_pb2
from toadstool_clients.connection import Client, describe_rpc_error, server_address
from toadstool_clients.seats import remembered_seat
from toadstool_clients.terminal.games import render_game


def step_update(table: table_pb2.TableInfo, step: table_pb2.HistoryStep, viewer: int | None) -> table_pb2.Update:
    """An Update carrying one history step, so the live game screens can draw it."""
    update = table_pb2.Update(
        table_id=table.table_id, version=step.version, game=table.game, table_name=table.name, seats=table.seats
    )
    update.view.CopyFrom(step.view)
    if viewer is not None:
        update.viewer_seat = viewer
    return update


async def replay(address: str, table_id: str, tls_ca: str | None, delay: float, interactive: bool) -> int:
    console = Console(highlight=False)
    async with Client(address, tls_ca=tls_ca) as client:
        try:
            table = await client.get_table(table_id)
            saved = remembered_seat(client.address, table_id)
            steps = await client.history(table_id, saved[1] if saved else None)
        except grpc.aio.AioRpcError as error:
            print(f"toadstool: {describe_rpc_error(error)}", file=sys.stderr)
            return 1
    viewer = saved[0] if saved else None
    names = {seat.index: seat.name for seat in table.seats}
    for step in steps:
        who = names.get(step.seat, "") if step.HasField("seat") else "setup"
        console.print(Rule(Text(f"version {step.version}  ·  {who}  {step.label}".rstrip(), style="bold")))
        for event in step.events:
            console.print(Text(f"  {event.text}"))
        console.print(render_game(step_update(table, step, viewer)))
        if interactive:
            try:
                await asyncio.to_thread(input, "Enter for the next step, Ctrl+C to stop ")
            except EOFError:
                interactive = False
        elif delay:
            await asyncio.sleep(delay)
    console.print(Text(f"{len(steps)} steps", style="dim"))
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `toadstool replay`."""
    parser.add_argument("table", help="id of the table to replay")
    parser.add_argument("--server", help="HOST[:PORT] (default: $TOADSTOOL_SERVER or 127.0.0.1:50051)")
    parser.add_argument("--tls-ca", help="PEM certificate of a TLS server")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds between steps instead of waiting for Enter")
    parser.add_argument("--all", action="store_true", help="print every step at once")


def run(args: argparse.Namespace) -> int:
    """`toadstool replay` with its parsed options."""
    interactive = not args.all and not args.delay and sys.stdin.isatty()
    return asyncio.run(replay(server_address(args.server), args.table, args.tls_ca, args.delay, interactive))
