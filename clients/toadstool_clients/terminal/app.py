"""The terminal client: a full-screen prompt_toolkit Application that plays (or watches) one table.

prompt_toolkit's full-screen Application rather than Textual: it is already a pinned dependency, it draws
in the terminal's alternate screen (so nothing scrolls and the scrollback never grows), it redraws on
resize by itself, and rich (which already draws each game) renders into it as ANSI text. The screen is a
pure function of the latest update, the event log and the menu (screen.py), redrawn in place whenever one
changes. Keys: arrows and Enter (or space), numbers then Enter, one-key shortcuts (d draw, r roll, u UNO),
Esc or Backspace to go back a level, a to switch "auto" (it plays a single forced choice after a short
visible pause, never one whose speed would tell a secret), q to leave (it asks), Ctrl+C to leave at once,
and for the table's host, h for the host's controls (host.py). The lines a server in this process tells
its host (a `HostFeed`: who joins, drops, comes back) join the event log, marked as the host's. It renders
views and sends action ids; it knows no rules.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import os
import sys
import time
from collections import deque
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

import grpc
from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import ANSI
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from rich.console import Console
from rich.text import Text

from toadstool.api.scopes import TaskScope, logged
from toadstool.api.v1 import table_pb2
from toadstool_clients.connection import Client, StreamState, describe_rpc_error
from toadstool_clients.host_feed import HostFeed
from toadstool_clients.i18n import _
from toadstool_clients.terminal.events import in_your_words, with_named_scores
from toadstool_clients.terminal.host import HostCall, HostMenu, controls, perform
from toadstool_clients.terminal.menu import Menu
from toadstool_clients.terminal.pause import round_ended
from toadstool_clients.terminal.screen import (
    ROOMY_HEIGHT,
    STATUS_NAMES,
    fitted_keys,
    printable,
    render_update,
    screen_lines,
    scrubbed,
)
from toadstool_clients.terminal.track_pick import TrackPick

__all__ = ["STATUS_NAMES", "TerminalClient", "render_update"]

log = logging.getLogger(__name__)

#: What a person reads when the table moved on before their action arrived and it is no longer offered.
MOVED_ON = "The table moved on before your move arrived: look, and choose again."
#: Seconds "auto" waits, visibly, before it plays a forced choice.
AUTO_DELAY = 0.8


class TerminalClient:
    """Plays (or watches) one table in the terminal until the game ends or the person leaves."""

    def __init__(
        self,
        client: Client,
        table_id: str,
        seat_token: str | None,
        console: Console | None = None,
        give_up_after: float = 120.0,
        auto: bool = False,
        auto_delay: float = AUTO_DELAY,
        clock: Callable[[], float] = time.time,
        host_token: str | None = None,
        host_feed: HostFeed | None = None,
        come_back: str = "",
    ) -> None:
        """`come_back`: the command that brings the person back to this table, said when they leave it
        before the end (empty: nothing to come back to)."""
        self.client = client
        self.give_up_after = give_up_after
        self.table_id = table_id
        self.seat_token = seat_token
        self.console = console or Console(highlight=False)
        self.latest: table_pb2.Update | None = None
        self.menu: Menu | None = None
        self.banner = ""
        self.note = ""
        self.asking_to_leave = False
        self.auto = auto
        self.auto_delay = auto_delay
        self.clock = clock
        self.sent_version: int | None = None
        self.log_lines: deque[str | Text] = deque(maxlen=60)
        self.host_token = host_token
        self.host_menu: HostMenu | None = None
        self.host_feed = host_feed
        for line in host_feed.lines if host_feed is not None else ():
            self.log_lines.append(_host_line(line))
        self.exit_code = 0
        self.stopped = ""
        self.come_back = come_back
        #: What the viewer's own last action did (events naming their seat), kept on screen until they act
        #: again; and the hand or round just ended, shown until a key is pressed (pause.py).
        self.mine: deque[str] = deque(maxlen=3)
        self.pause: list[Text] | None = None
        self._updated = asyncio.Event()
        self.app: Application[int] = self._application()
        #: The session's scope (`run`): the stream's reader and each act, host call and auto-play.
        self._scope: TaskScope | None = None

    # ---- the screen -------------------------------------------------------------------------------------

    def _size(self) -> tuple[int, int]:
        size = self.app.output.get_size()
        return max(20, size.columns), max(8, size.rows)

    def _footer(self, width: int = 80) -> Text:
        if self.asking_to_leave:
            return Text(_("Leave the table? y: leave   n: stay"), style="bold white on red")
        if self.note:
            return Text(self.note, style="bold red")
        if self.pause is not None:
            return Text(_("Enter (or any key): back to the game   q: leave"), style="bold")
        host = [_("h: host")] if self._host_offered() else []
        if self.seat_token is None:  # a spectator chooses nothing
            keys = [*host, _("q: leave"), _("Ctrl+C: leave at once")]
        else:
            auto = _("a: auto on") if self.auto else _("a: auto off")
            keys = [_("↑↓ Enter: choose"), _("1-9: choose"), _("Esc: back"), auto, *host, _("q: leave")]
        return Text(fitted_keys(keys, width), style="dim")

    def _menu_lines(self, width: int, height: int) -> list[Text]:
        update = self.latest
        if update is None or update.status == table_pb2.TABLE_STATUS_FINISHED or self.pause is not None:
            return []
        if self.host_menu is not None:
            return self.host_menu.lines(width)
        if self.menu is not None and update.legal_actions:
            if self.sent_version == update.version:
                return [Text("Sent. Waiting for the table…", style="dim")]
            roomy = height >= ROOMY_HEIGHT
            lines = self.menu.lines(width, one_per_line=roomy, most=None if roomy else 5)
            auto = self.menu.auto_playable() if self.auto else None
            if auto is not None:
                lines.append(Text(f"auto: playing “{self.menu.label(auto)}” in a moment…", style="yellow"))
            return lines
        if update.status == table_pb2.TABLE_STATUS_PLAYING:
            if not update.HasField("viewer_seat"):
                return [Text("Watching.", style="dim")]
            return [Text("Waiting for the other players…", style="dim")]
        if update.status == table_pb2.TABLE_STATUS_LOBBY:
            if self._host_offered():
                hint = Text("The game starts when every seat is taken. ", style="dim")
                hint.append("Press h", style="bold yellow")
                hint.append(" to start now (a bot takes each open seat) or to add a bot.", style="dim")
                return [hint]
            return [Text("The game starts when every seat is taken, or when the host starts it.", style="dim")]
        return []

    def screen(self) -> list[str]:
        """The screen now, as lines of ANSI text that fit the terminal."""
        width, height = self._size()
        if self.latest is None:
            return [self.banner or "Connecting…"]
        return screen_lines(
            self.latest,
            list(self.log_lines),
            self._menu_lines(width, height),
            self._footer(width),
            width,
            height,
            self.banner,
            now_ms=self.clock() * 1000,
            pick=self._track_pick(),
            mine=list(self.mine),
            pause=self.pause,
        )

    def _track_pick(self) -> TrackPick | None:
        """The Kart fields the menu's level stands for, to mark on the track (none while the host menu is
        open or a choice was sent)."""
        update = self.latest
        if self.menu is None or update is None or self.host_menu is not None or self.sent_version == update.version:
            return None
        return self.menu.track_pick()

    def _formatted(self) -> ANSI:
        return ANSI("\n".join(self.screen()))

    # ---- keys ------------------------------------------------------------------------------------------

    def _application(self) -> Application[int]:
        keys = KeyBindings()
        control = FormattedTextControl(self._formatted, focusable=True, show_cursor=False)
        window = Window(control, wrap_lines=False, always_hide_cursor=True)

        @keys.add("c-c")
        @keys.add("c-d")
        def _quit(event: KeyPressEvent) -> None:
            self._leave(0)

        @keys.add("q")
        def _ask(event: KeyPressEvent) -> None:
            self.asking_to_leave = True

        @keys.add("<any>")
        def _key(event: KeyPressEvent) -> None:
            self._on_key(event.key_sequence[0].key)

        # Redrawn every second too, for the turn clock (prompt_toolkit sends only the cells that changed).
        return Application(
            layout=Layout(window), key_bindings=keys, full_screen=True, mouse_support=False, refresh_interval=1.0
        )

    def _on_key(self, key: str) -> None:
        self.note = ""
        if self.asking_to_leave:
            self.asking_to_leave = False
            if key in ("y", "Y"):
                self._leave(0)
            return
        if self.pause is not None:  # the hand or round just ended: any key goes back to the game
            self.pause = None
            return
        if self.host_menu is not None or (key == "h" and self._host_offered()):
            self._on_host_key(key)
            return
        menu, update = self.menu, self.latest
        if menu is None or update is None or not update.legal_actions or self.sent_version == update.version:
            if key == "a":
                self.auto = not self.auto
            return
        if key in ("up", "left"):
            menu.move(-1)
        elif key in ("down", "right", "tab"):
            menu.move(1)
        elif key.isdigit():
            if menu.type_digit(key):  # a whole number: chosen at once, as Enter would
                chosen = menu.choose()
                if chosen is not None:
                    self._send(update, chosen)
        elif key in ("escape", "c-h", "backspace"):
            menu.back()
        elif key in ("c-m", "enter", " ", "c-j"):
            chosen = menu.choose()
            if chosen is not None:
                self._send(update, chosen)
        elif key == "a":
            self.auto = not self.auto
            self._maybe_auto()
        else:
            chosen = menu.shortcut(key)
            if chosen is not None:
                self._send(update, chosen)

    # ---- the host's controls -----------------------------------------------------------------------------

    def _host_offered(self) -> bool:
        """The host's controls are offered: this client holds the host token and the table is not over."""
        return self.host_token is not None and self.latest is not None and bool(controls(self.latest))

    def _on_host_key(self, key: str) -> None:
        """A key while the host menu is open (h opens and closes it)."""
        if self.host_menu is None:
            assert self.latest is not None
            self.host_menu = HostMenu(self.latest)
            return
        menu = self.host_menu
        if menu.asking is not None:
            call = menu.answer(key in ("y", "Y"))
            if call is not None:
                self._host_call(call)
            return
        if key == "h":
            self.host_menu = None
        elif key in ("up", "left"):
            menu.move(-1)
        elif key in ("down", "right", "tab"):
            menu.move(1)
        elif key.isdigit():
            menu.type_digit(key)
        elif key in ("escape", "c-h", "backspace"):
            if not menu.back():
                self.host_menu = None
        elif key in ("c-m", "enter", " ", "c-j"):
            call = menu.choose()
            if call is not None:
                self._host_call(call)

    def _host_call(self, call: HostCall) -> None:
        self.host_menu = None
        self.note = f"Host: {call.control.value}…"
        self._spawn("host", self._perform, call)

    async def _perform(self, call: HostCall) -> None:
        try:
            assert self.host_token is not None
            await perform(self.client, self.table_id, self.host_token, call)
            self.note = ""
        except grpc.aio.AioRpcError as error:
            self.note = f"Not done: {describe_rpc_error(error)}"
        except (ConnectionError, OSError) as error:
            self.note = f"Not sent: {error}"
        self.app.invalidate()

    def _on_host_line(self, line: str) -> None:
        """A new line of the host's feed (said on this loop's thread, by the server in this process)."""
        self.log_lines.append(_host_line(line))
        self.app.invalidate()

    def _leave(self, code: int) -> None:
        self.exit_code = code
        if self.app.is_running and not self.app.future.done():  # type: ignore[union-attr]
            self.app.exit(result=code)

    # ---- acting ----------------------------------------------------------------------------------------

    def _spawn(self, name: str, run: Callable[..., Coroutine[Any, Any, None]], *args: Any) -> None:
        """Run `run(*args)` in the session's scope; a failure is logged (kept back until the screen is gone)
        and ends only that task, never the session."""
        if self._scope is not None:
            self._scope.create_task(logged(log, name, run, *args), name=name)

    def _send(self, update: table_pb2.Update, action_id: str) -> None:
        self.sent_version = update.version
        self.mine.clear()
        self._spawn("act", self._act, update, action_id)

    async def _act(self, update: table_pb2.Update, action_id: str, again: int = 3) -> None:
        """Send the action; one the table refuses as stale (it moved on meanwhile: another seat's vote, a
        bot) is sent again on the newest version while that version still offers the same action id, else
        the newest state is shown with a plain sentence (never the server's version message)."""
        try:
            assert self.seat_token is not None
            await self.client.act(self.table_id, self.seat_token, update.version, action_id)
        except grpc.aio.AioRpcError as error:
            if error.code() == grpc.StatusCode.ABORTED:
                newest = await self._newer_than(update.version)
                if again and newest is not None and action_id in {a.id for a in newest.legal_actions}:
                    self.sent_version = newest.version
                    await self._act(newest, action_id, again - 1)
                    return
                self.note = MOVED_ON
            elif self.latest is not None and self.latest.version > update.version:  # refused as moved on
                self.note = MOVED_ON
            else:
                self.note = f"Not accepted: {describe_rpc_error(error)}"
            self.sent_version = None
        except (ConnectionError, OSError) as error:  # the stream's reconnect will say more
            self.note = f"Not sent: {error}"
            self.sent_version = None
        self.app.invalidate()

    async def _newer_than(self, version: int, seconds: float = 5.0) -> table_pb2.Update | None:
        """The newest update once it is past `version` (the stream brings it), or None after `seconds`."""
        deadline = asyncio.get_running_loop().time() + seconds
        while self.latest is None or self.latest.version <= version:
            self._updated.clear()
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                return None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._updated.wait(), left)
        return self.latest

    def _maybe_auto(self) -> None:
        if not self.auto or self.menu is None or self.latest is None:
            return
        leaf = self.menu.auto_playable()
        if leaf is not None and leaf.action is not None and self.sent_version != self.latest.version:
            self._spawn("auto", self._auto_play, self.latest.version, leaf.action.id)

    async def _auto_play(self, version: int, action_id: str) -> None:
        await asyncio.sleep(self.auto_delay)
        update = self.latest
        if self.auto and update is not None and update.version == version and self.sent_version != version:
            self._send(update, action_id)

    # ---- the stream ------------------------------------------------------------------------------------

    async def _read_stream(self) -> None:
        try:
            async for item in self.client.follow(self.table_id, self.seat_token, give_up_after=self.give_up_after):
                if isinstance(item, StreamState):
                    self.banner = "" if item.connected else f"Connection lost: {item.message}. Reconnecting…"
                else:
                    self._on_update(scrubbed(item))  # type: ignore[arg-type]
                self.app.invalidate()
                if self.latest is not None and self.latest.status == table_pb2.TABLE_STATUS_FINISHED:
                    self._leave(0)
                    return
        except grpc.aio.AioRpcError as error:
            self.stopped = f"Stopped: {describe_rpc_error(error)}"
            self._leave(1)
        except ConnectionError as error:
            self.stopped = f"Stopped: the server went away and did not come back ({error})"
            self._leave(1)

    def _on_update(self, update: table_pb2.Update) -> None:
        previous_update = self.latest
        for event in update.events:
            said = with_named_scores(update, event, in_your_words(update, event))
            self.log_lines.append(said)
            if update.HasField("viewer_seat") and event.HasField("seat") and event.seat == update.viewer_seat:
                self.mine.append(said)
        if previous_update is not None and update.status == table_pb2.TABLE_STATUS_PLAYING:
            ended = round_ended(previous_update, update)
            if ended is not None:
                self.pause = ended
        previous = self.menu
        self.latest = update
        self._updated.set()
        if self.host_menu is not None:
            self.host_menu = self.host_menu.refreshed(update) if controls(update) else None
        self.menu = Menu.for_update(update, previous) if update.legal_actions else None
        if self.sent_version is not None and update.version != self.sent_version:
            self.sent_version = None
        self._maybe_auto()

    async def run(self) -> int:
        """Plays until the game ends (0), the person leaves (0) or the connection is lost for good (1)."""
        if not (sys.stdin.isatty() and sys.stdout.isatty()) or os.environ.get("TERM", "dumb") == "dumb":
            return await self._run_without_screen()
        stop_listening = self.host_feed.listen(self._on_host_line) if self.host_feed is not None else None
        with _log_held_back() as held:
            try:
                # The session's scope: leaving it (the screen gone) cancels the reader and every act.
                async with TaskScope() as self._scope:
                    try:
                        code = await self.app.run_async(pre_run=lambda: self._spawn("stream", self._read_stream))
                    except (KeyboardInterrupt, EOFError):
                        code = 0
            finally:
                self._scope = None
                if stop_listening is not None:
                    stop_listening()
        self._print_last_screen()
        if held.getvalue():
            sys.stderr.write(held.getvalue())
        return self.exit_code if code is None else code

    def _print_last_screen(self) -> None:
        """After leaving the full screen: the final board and result stay in the terminal, once."""
        if self.latest is not None and self.latest.status == table_pb2.TABLE_STATUS_FINISHED:
            width, height = self._size()
            lines = screen_lines(self.latest, list(self.log_lines)[-4:], [], Text(""), width, min(height, 40))
            print("\n".join(line for line in lines if line.strip()))
        if self.stopped:
            self.console.print(Text(self.stopped, style="bold red"))
        elif self.latest is None or self.latest.status != table_pb2.TABLE_STATUS_FINISHED:
            self.console.print(Text(self._leaving_words(), style="bold"), soft_wrap=True)

    def _leaving_words(self) -> str:
        """What a person who left before the end reads: how to come back (their seat waits; a bot may play
        it meanwhile, as the table's settings say)."""
        if self.seat_token is None:
            how = f" with:\n  {self.come_back}" if self.come_back else "."
            return f"You stopped watching table {self.table_id}. Watch again{how}"
        if not self.come_back:
            return f"You left table {self.table_id}. This game was not kept: there is no coming back to it."
        return f"You left table {self.table_id}; your seat is kept for you. Come back with:\n  {self.come_back}"

    async def _run_without_screen(self) -> int:
        """No terminal to draw on (input from a pipe, TERM=dumb): follow the table, printing its events,
        until it ends; nothing is chosen here (a turn clock or a bot takeover plays a seat left alone)."""
        print("No terminal to play in: following the table's events only.", file=sys.stderr)
        try:
            async for item in self.client.follow(self.table_id, self.seat_token, give_up_after=self.give_up_after):
                if isinstance(item, table_pb2.Update):
                    for event in item.events:
                        print(in_your_words(item, scrubbed(event)))  # type: ignore[arg-type]
                    if item.status == table_pb2.TABLE_STATUS_FINISHED:
                        return 0
        except (grpc.aio.AioRpcError, ConnectionError) as error:
            print(f"Stopped: {error}", file=sys.stderr)
            return 1
        return 0


def _host_line(line: str) -> Text:
    """A line of the host's feed as the event log shows it: marked as the host's, apart from the game's."""
    text = Text("host: ", style="bold cyan")
    text.append(printable(line), style="cyan")
    return text


@contextlib.contextmanager
def _log_held_back() -> Iterator[io.StringIO]:
    """While the full screen is up, log lines meant for the terminal (the embedded server's warnings) are
    kept back, not written across the screen; they are printed once it is gone."""
    held = io.StringIO()
    moved: list[tuple[logging.StreamHandler[Any], Any]] = []
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.StreamHandler) and handler.stream in (sys.stderr, sys.stdout):
            moved.append((handler, handler.setStream(held)))
    try:
        yield held
    finally:
        for handler, stream in moved:
            handler.setStream(stream)
