"""Coming back to a seat: which saved seat a person sits in when they run `toadstool join` or `toadstool
play` again (their own, someone else's only when they say so, or a new one), asked at the terminal.

Two people may share one computer account, so a saved seat belongs to the name it was taken under: a
different name is asked about, never silently handed that seat. The saved-seat file itself is `seats`;
whether a token still holds its seat the server says (a Watch refused as UNAUTHENTICATED). Not for
taking seats or drawing the game: the commands and the terminal client do that.
"""

from __future__ import annotations

import asyncio
import sys

import grpc
from prompt_toolkit import PromptSession

from toadstool.api.v1 import table_pb2
from toadstool_clients.connection import Client
from toadstool_clients.seats import SavedSeat, forget_seat, saved_seats, saved_tables


async def ask(question: str, answers: str, default: str) -> str:
    """Ask the person at the terminal until the reply starts with one of the letters `answers` (Enter:
    `default`). Ctrl+C and Ctrl+D raise KeyboardInterrupt: the command's caller turns that into a quiet
    exit, whatever prompt it came from."""
    session: PromptSession[str] = PromptSession()
    while True:
        try:
            reply = (await session.prompt_async(question)).strip().lower()
        except EOFError:
            raise KeyboardInterrupt from None
        if not reply:
            return default
        if reply[0] in answers:
            return reply[0]
        print(f"Type {' or '.join(answers)} (Ctrl+C quits).")


async def token_still_valid(client: Client, table_id: str, token: str) -> bool:
    """Whether a saved seat token still holds its seat (it does not after leaving or being kicked)."""
    call = client.watch(table_id, token)
    try:
        await asyncio.wait_for(call.read(), client.timeout)
        return True
    except grpc.aio.AioRpcError as error:
        if error.code() == grpc.StatusCode.UNAUTHENTICATED:
            print(f"A seat saved here for table {table_id} is no longer held; it is forgotten.", file=sys.stderr)
            return False
        raise
    finally:
        call.cancel()


async def held_seats(client: Client, table_id: str) -> list[SavedSeat]:
    """The seats saved on this machine for the table that still hold their places, each with its name (a
    seat saved before names were kept gets the name the table shows for it); the others are forgotten."""
    saved = saved_seats(client.address, table_id)
    if not saved:
        return []
    shown = {seat.index: seat.name for seat in (await client.get_table(table_id)).seats}
    held = []
    for seat in saved:
        if await token_still_valid(client, table_id, seat.token):
            held.append(SavedSeat(seat.name or shown.get(seat.seat, ""), seat.seat, seat.token))
        else:
            forget_seat(client.address, table_id, seat.seat)
    return held


async def seat_to_resume(client: Client, table_id: str, name: str, seat: int | None) -> SavedSeat | None:
    """The saved seat `name` sits in at the table (limited to `seat` if one is asked for), or None for a new
    seat. Another name's saved seat is offered only by asking; not at a terminal it is left alone, said so."""
    held = [s for s in await held_seats(client, table_id) if seat in (None, s.seat)]
    mine = next((s for s in held if s.is_for(name)), None)
    if mine is not None or not held:
        return mine
    others = held[:9]
    if not sys.stdin.isatty():
        named = " and ".join(f"{s.name}'s" for s in others)
        print(
            f"This computer also holds {named} seat at table {table_id}; taking a new seat as {name} "
            f"(give --name {others[0].name} to go back to {others[0].name}'s).",
            file=sys.stderr,
        )
        return None
    named = " and ".join(f"{s.name}'s" for s in others)
    print(f"This computer already holds {named} seat at table {table_id}; you are joining as {name}.")
    if len(others) == 1:
        answer = await ask(
            f"Take a new seat as {name} (n), sit in {others[0].name}'s (1), or quit (q)? [n] ", "n1q", "n"
        )
    else:
        seats = ", ".join(f"{s.name}'s ({number})" for number, s in enumerate(others, 1))
        numbers = "".join(str(number) for number in range(1, len(others) + 1))
        answer = await ask(
            f"Take a new seat as {name} (n), sit in {seats}, or quit (q)? [n] ", "n" + numbers + "q", "n"
        )
    if answer == "q":
        raise KeyboardInterrupt
    return None if answer == "n" else others[int(answer) - 1]


async def unfinished_game(client: Client, saved_under: str, game: str, name: str) -> tuple[str, str] | None:
    """The newest unfinished table of `game` where `name` holds a seat saved under the server key
    `saved_under`, if the person wants to go back to it: (table id, seat token). Saying no leaves that seat
    to a bot, which plays the old game out, so it is not offered again. Finished and vanished tables are
    forgotten on the way."""
    for table_id in reversed(saved_tables(saved_under)):
        for saved in saved_seats(saved_under, table_id):
            if not saved.is_for(name):
                continue
            table = await _table_or_none(client, table_id)
            if table is None or table.status == table_pb2.TABLE_STATUS_FINISHED:
                forget_seat(saved_under, table_id, saved.seat)
                continue
            if table.game != game:
                continue
            if not await token_still_valid(client, table_id, saved.token):
                forget_seat(saved_under, table_id, saved.seat)
                continue
            answer = await ask(f"Your game {table.name} is not finished. Go back to it? [Y/n] ", "yn", "y")
            if answer == "y":
                return table_id, saved.token
            await client.leave(table_id, saved.token)
            forget_seat(saved_under, table_id, saved.seat)
            print("A bot plays out the old game; here is a new one.")
            return None
    return None


async def _table_or_none(client: Client, table_id: str) -> table_pb2.TableInfo | None:
    try:
        return await client.get_table(table_id)
    except grpc.aio.AioRpcError as error:
        if error.code() == grpc.StatusCode.NOT_FOUND:
            return None
        raise
