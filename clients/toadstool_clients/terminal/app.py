"""The terminal client's screen and input loop.

Each update redraws the screen (header, seats, the game, recent events, a numbered menu of the viewer's
legal actions). Input is read with prompt_toolkit while updates keep arriving: an update that lands while
the prompt is open redraws the screen and reopens the prompt with what was typed so far. It renders views
and sends action ids; it knows no rules.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import unicodedata
from collections import deque

import grpc
from google.protobuf.message import Message
from prompt_toolkit import PromptSession
from rich.columns import Columns
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table as RichTable
from rich.text import Text

from toadstool.api.v1 import table_pb2
from toadstool_clients.connection import Client, StreamState, describe_rpc_error
from toadstool_clients.terminal.games import render_game

STATUS_NAMES = {
    table_pb2.TABLE_STATUS_LOBBY: "waiting for players",
    table_pb2.TABLE_STATUS_PLAYING: "playing",
    table_pb2.TABLE_STATUS_FINISHED: "finished",
}
KIND_NAMES = {
    table_pb2.SEAT_KIND_EMPTY: "open",
    table_pb2.SEAT_KIND_HUMAN: "",
    table_pb2.SEAT_KIND_BOT: "bot",
}


def seats_table(update: table_pb2.Update) -> RichTable:
    """Who sits where, their connection, the scoreboard, and whose move it is."""
    grid = RichTable(box=None, padding=(0, 1), show_header=True, header_style="bold")
    grid.add_column("")
    grid.add_column("Seat")
    grid.add_column("Player")
    grid.add_column(update.score_label.capitalize() or "Score", justify="right")
    grid.add_column("")
    to_act = set(update.to_act)
    for seat in update.seats:
        marker = Text("▶", style="bold yellow") if seat.index in to_act else Text(" ")
        name = Text(
            seat.name or "(open)",
            style="bold" if update.HasField("viewer_seat") and seat.index == update.viewer_seat else "",
        )
        if update.HasField("viewer_seat") and seat.index == update.viewer_seat:
            name.append(" (you)", style="cyan")
        score = str(update.scores[seat.index]) if seat.index < len(update.scores) else ""
        notes = [KIND_NAMES.get(seat.kind, "")]
        if seat.bot_controlled:
            notes.append("away: a bot plays for them")
        elif seat.kind == table_pb2.SEAT_KIND_HUMAN and not seat.connected:
            notes.append("disconnected")
        grid.add_row(marker, str(seat.index), name, score, Text(", ".join(n for n in notes if n), style="dim"))
    return grid


#: Longer menus are laid out in columns so the game stays on screen.
MENU_ROWS = 12


def action_menu(update: table_pb2.Update) -> RenderableType:
    """The numbered legal actions: one column for a short menu, several for a long one."""
    entries = []
    for number, action in enumerate(update.legal_actions, start=1):
        entry = Text(f"{number:>2} ", style="bold cyan")
        entry.append(action.label)
        entries.append(entry)
    if len(entries) <= MENU_ROWS:
        return Group(*entries)
    return Columns(entries, column_first=True, padding=(0, 3))


def _printable(text: str) -> str:
    return "".join(ch for ch in text if ch == "\n" or unicodedata.category(ch)[0] != "C")


def scrubbed(message: Message) -> Message:
    """A copy of `message` whose every string has lost its control, escape and bidi characters.

    The server cleans names already; this is the client's own defence, so nothing a server sends (a
    hostile one included) can move the cursor, retitle the terminal or reverse text on this screen.
    """
    clean = type(message)()
    clean.CopyFrom(message)
    _scrub(clean)
    return clean


def _scrub(message: Message) -> None:
    for field, value in message.ListFields():
        if field.type == field.TYPE_STRING:
            if isinstance(value, str):
                setattr(message, field.name, _printable(value))
            elif field.message_type is None:
                repeated = getattr(message, field.name)
                repeated[:] = [_printable(v) for v in value]
        elif field.type == field.TYPE_MESSAGE:
            if isinstance(value, Message):
                _scrub(value)
            elif hasattr(value, "items"):  # a map: scrub its values
                for key in list(value):
                    item = value[key]
                    if isinstance(item, str):
                        value[key] = _printable(item)
                    else:
                        _scrub(item)
            else:
                for item in value:
                    _scrub(item)


def render_update(update: table_pb2.Update, log_lines: deque[Text], banner: str = "") -> Group:
    """The whole screen for one update (every string in it scrubbed of escape sequences first)."""
    update = scrubbed(update)  # type: ignore[assignment]
    log_lines = deque((Text(_printable(line.plain)) for line in log_lines), maxlen=log_lines.maxlen)
    title = Text(update.table_name or update.table_id, style="bold")
    title.append(f"  ·  {update.game}  ·  table {update.table_id}  ·  v{update.version}", style="dim")
    header = Text(update.phase or STATUS_NAMES.get(update.status, ""), style="bold magenta")
    if update.HasField("turn_deadline_unix_ms"):
        left = max(0, round((update.turn_deadline_unix_ms - time.time() * 1000) / 1000))
        header.append(f"   ⏱ {left} s to decide", style="yellow")
    parts: list[object] = [title, header]
    if banner:
        parts.append(Text(banner, style="bold white on red"))
    parts.append(seats_table(update))
    parts.append(render_game(update))
    if log_lines:
        parts.append(Panel(Group(*log_lines), title="Events", title_align="left", border_style="dim"))
    if update.status == table_pb2.TABLE_STATUS_FINISHED and update.HasField("outcome"):
        names = {s.index: s.name for s in update.seats}
        winners = ", ".join(names.get(w, str(w)) for w in update.outcome.winners)
        result = Text(f"Game over. Winner: {winners}", style="bold green")
        if update.outcome.summary:
            result.append(f"  ({update.outcome.summary})")
        parts.append(result)
    elif update.legal_actions:
        parts.append(Panel(action_menu(update), title="Your move", title_align="left", border_style="cyan"))
    elif update.status == table_pb2.TABLE_STATUS_PLAYING:
        parts.append(Text("Waiting for the other players…", style="dim"))
    return Group(*parts)  # type: ignore[arg-type]


class TerminalClient:
    """Plays (or watches) one table in the terminal until the game ends or the user quits."""

    def __init__(
        self,
        client: Client,
        table_id: str,
        seat_token: str | None,
        console: Console | None = None,
        give_up_after: float = 120.0,
    ) -> None:
        self.client = client
        self.give_up_after = give_up_after
        self.table_id = table_id
        self.seat_token = seat_token
        self.console = console or Console(highlight=False)
        self.latest: table_pb2.Update | None = None
        self.banner = ""
        self.error = ""
        self.log_lines: deque[Text] = deque(maxlen=8)
        self.changed = asyncio.Event()
        self.session: PromptSession[str] = PromptSession()

    async def _read_stream(self) -> None:
        async for item in self.client.follow(self.table_id, self.seat_token, give_up_after=self.give_up_after):
            if isinstance(item, StreamState):
                self.banner = "" if item.connected else f"Connection lost: {item.message}. Reconnecting…"
            else:
                for event in item.events:
                    self.log_lines.append(Text(event.text))
                self.latest = item
            self.changed.set()

    def _draw(self) -> None:
        if self.latest is None:
            return
        self.console.clear()
        self.console.print(render_update(self.latest, self.log_lines, self.banner))
        if self.error:
            self.console.print(Text(self.error, style="bold red"))

    async def run(self) -> int:
        """The main loop; returns a process exit code."""
        reader = asyncio.create_task(self._read_stream(), name="stream")
        typed = ""
        try:
            while True:
                changed = asyncio.create_task(self.changed.wait())
                done, _ = await asyncio.wait({changed, reader}, return_when=asyncio.FIRST_COMPLETED)
                if reader in done:
                    changed.cancel()
                    reader.result()  # raises what ended the stream
                    return 1
                self.changed.clear()
                self._draw()
                update = self.latest
                if update is None:
                    continue
                if update.status == table_pb2.TABLE_STATUS_FINISHED:
                    return 0
                if not update.legal_actions or self.banner:
                    continue
                prompt = asyncio.create_task(
                    self.session.prompt_async("Your choice (number, q to quit): ", default=typed)
                )
                waiter = asyncio.create_task(self.changed.wait())
                done, _ = await asyncio.wait({prompt, waiter, reader}, return_when=asyncio.FIRST_COMPLETED)
                if prompt not in done:
                    waiter.cancel()
                    typed = self.session.default_buffer.text
                    prompt.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await prompt
                    continue
                waiter.cancel()
                typed = ""
                try:
                    answer = prompt.result().strip()
                except (EOFError, KeyboardInterrupt):
                    return 0
                if answer.lower() in ("q", "quit", "exit"):
                    return 0
                await self._choose(update, answer)
                self.changed.set()
        except grpc.aio.AioRpcError as error:
            self.console.print(Text(f"Stopped: {describe_rpc_error(error)}", style="bold red"))
            return 1
        except ConnectionError as error:
            self.console.print(Text(f"Stopped: the server went away and did not come back ({error})", style="bold red"))
            return 1
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await reader

    async def _choose(self, update: table_pb2.Update, answer: str) -> None:
        self.error = ""
        if not answer.isdigit() or not 1 <= int(answer) <= len(update.legal_actions):
            self.error = f"Type a number from 1 to {len(update.legal_actions)}, or q to quit."
            return
        action = update.legal_actions[int(answer) - 1]
        try:
            assert self.seat_token is not None
            await self.client.act(self.table_id, self.seat_token, update.version, action.id)
        except grpc.aio.AioRpcError as error:
            self.error = f"Not accepted: {describe_rpc_error(error)}"
