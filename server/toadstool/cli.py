"""The `toadstool` command: host a server, play or watch in the terminal, manage tables, run bot games, and
the other clients (Tk, the MQTT bridge) and tools, each as a subcommand.

It is the one composition root that imports both the server and the clients, and it does so lazily: a
subcommand's options are added to the parser only when that subcommand is asked for, and its modules are
imported only then (the server for `serve`, `play` and `selfplay`; Tk for `tk`; MQTT for `bridge`), so
`toadstool --help` loads none of them. `toadstool --help` lists the subcommands; `toadstool COMMAND
--help` shows every option of one. Game rules, rendering and the connection live elsewhere.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import logging
import os
import shlex
import sys
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import grpc

    from toadstool.api.v1 import table_pb2
    from toadstool_clients.connection import Client
    from toadstool_clients.host_feed import HostFeed


def N_(message: str) -> str:
    """Mark a help text for the server's catalogue (toadstool.i18n); `HelpInLanguage` says it."""
    return message


#: argparse's own words on a help page, for the catalogue: argparse has no German of its own.
ARGPARSE_WORDS = (N_("usage: "), N_("options"), N_("positional arguments"), N_("show this help message and exit"))


def _say(text: str) -> str:
    """`text` in the language of the person running the command (LANGUAGE, LC_ALL, LC_MESSAGES, LANG) where
    the catalogue has it (toadstool.i18n, imported only when a help page or an error is shown)."""
    from toadstool.i18n import environment_language, translate

    return translate(environment_language(), text) if text else text


class HelpInLanguage(argparse.HelpFormatter):
    """A help page in its reader's language: each help text, heading, description and argparse's own words
    through the catalogue (`_say`); a text it does not have stays as written."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        return _say(action.help) if action.help else action.help

    def start_section(self, heading: str | None) -> None:
        super().start_section(_say(heading) if heading else heading)

    def add_text(self, text: str | None) -> None:
        super().add_text(_say(text) if text and text != argparse.SUPPRESS else text)

    def add_usage(self, usage: str | None, actions: Any, groups: Any, prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups, _say("usage: ") if prefix is None else prefix)


class RawDescriptionInLanguage(HelpInLanguage, argparse.RawDescriptionHelpFormatter):
    """`HelpInLanguage` for a page whose description and epilog keep their own lines (a list of games)."""


@dataclass(frozen=True)
class Command:
    """A subcommand: its line in `toadstool --help`, what adds its options, and what runs it."""

    summary: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


def _in_module(summary: str, module: str, extra: tuple[str, str] | None = None) -> Command:
    """A subcommand whose options and body live in `module` (its `add_arguments(parser)` and `run(args)`),
    imported only when the subcommand is asked for. With `extra` (what the subcommand is, the name of the
    optional extra it needs), a dependency that is not installed stops it with a message saying which extra
    to install, not a traceback."""

    def load() -> ModuleType:
        try:
            return importlib.import_module(module)
        except ModuleNotFoundError as error:
            ours = (error.name or "").partition(".")[0] in ("toadstool", "toadstool_clients")
            if extra is None or ours:
                raise
            what, name = extra
            raise SystemExit(
                f"toadstool: {what} needs its extra: pip install 'toadstool[{name}]' (no module named {error.name!r})"
            ) from None

    return Command(summary, lambda parser: load().add_arguments(parser), lambda args: int(load().run(args)))


def _options(pairs: Sequence[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for pair in pairs:
        if "=" not in pair:
            raise SystemExit(f"--option takes NAME=VALUE, not {pair!r}")
        name, value = pair.split("=", 1)
        options[name.strip()] = value
    return options


def _default_name() -> str:
    """The name every client offers when a person gave none (`names.default_player_name`: one for all)."""
    from toadstool_clients.names import default_player_name

    return default_player_name()


def _matching_game(typed: str, names: Iterable[str]) -> str:
    """The game of `names` that `typed` names, letter case aside (`play UNO` is uno); else `typed` as it is,
    for the server to refuse with the list of what it hosts."""
    return next((name for name in names if name.casefold() == typed.strip().casefold()), typed)


# The options of each subcommand defined here.


def _server_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--server", help=N_("HOST[:PORT] of the server (default: $TOADSTOOL_SERVER or 127.0.0.1:50051)")
    )
    parser.add_argument(
        "--tls-ca", help=N_("PEM certificate of a TLS server (default: $TOADSTOOL_TLS_CA; none: plaintext)")
    )
    _lang_option(parser)


#: Where `--lang` is kept for the clients of this process (toadstool_clients.language.LANG_VARIABLE).
LANG_VARIABLE = "TOADSTOOL_LANG"


def _lang_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lang",
        metavar="LANGUAGE",
        help=N_("the language of the server's texts, such as de or en (default: your locale, as in $LANG)"),
    )


def _option_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help=N_("a game option (repeatable; `toadstool games` lists each game's options and defaults)"),
    )


def _game_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help=N_("the game to play, by the name `toadstool games` lists (uno, kart, ...)"))
    _option_flag(parser)
    parser.add_argument("--seed", type=int, help=N_("seed of the shuffles and dice, to play the same game again"))


def _with_games_listed(parser: argparse.ArgumentParser) -> None:
    """Show the installed games and their options below the flags of `parser` (`toadstool play --help`)."""
    from toadstool_clients.game_list import describe_games

    parser.formatter_class = RawDescriptionInLanguage
    parser.epilog = (
        _say(N_("games (in any letter case), with their options:")) + "\n" + describe_games(_installed_games())
    )


def _installed_games() -> list[table_pb2.GameInfo]:
    """Every game installed here (toadstool.games) as the contract describes a game, its title and its
    options' help in the language of whoever runs the command (as ListGames says them): no server needed."""
    from toadstool.games import GAMES
    from toadstool.i18n import environment_language
    from toadstool.server.messages import game_info

    language = environment_language()
    return [game_info(spec.engine, language) for spec in GAMES.values()]


def _play_options(parser: argparse.ArgumentParser) -> None:
    _game_options(parser)
    _with_games_listed(parser)
    parser.add_argument("--bots", type=int, default=3, help=N_("number of bot opponents (default %(default)s)"))
    parser.add_argument("--name", default=_default_name(), help=N_("your name at the table (default %(default)s)"))
    parser.add_argument(
        "--bot-delay", type=float, default=0.8, help=N_("seconds before each bot action (default %(default)s)")
    )
    parser.add_argument(
        "--players", type=int, help=N_("seats in all (default: you plus the bots); open seats wait for friends")
    )
    _bot_level_option(parser)
    parser.add_argument(
        "--lan",
        action="store_true",
        help=N_("let friends join: bind 0.0.0.0:50051, serve the web client and announce it on the LAN"),
    )
    parser.add_argument("--quiet", action="store_true", help=N_("with --lan: do not show who joins, leaves or drops"))
    parser.add_argument(
        "--bind",
        default="0.0.0.0",
        help=N_("with --lan: the address to listen on (default %(default)s: every interface)"),
    )
    parser.add_argument(
        "--port", type=int, default=50051, help=N_("with --lan: the port (default %(default)s; 0: any)")
    )
    _clock_options(parser)
    _auto_option(parser)
    _server_options(parser)


def _bot_level_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bot-level",
        choices=("easy", "normal", "hard"),
        default="normal",
        help=N_("how strong the bots play (default %(default)s)"),
    )


def _bot_level(args: argparse.Namespace) -> int:
    """The --bot-level as service.proto's BotLevel number."""
    from toadstool.api.v1 import service_pb2

    return int(service_pb2.BotLevel.Value(f"BOT_LEVEL_{args.bot_level.upper()}"))


def _clock_options(parser: argparse.ArgumentParser) -> None:
    from toadstool_clients.connection import DEFAULT_TAKEOVER_SECONDS

    parser.add_argument(
        "--turn-seconds", type=int, default=0, help=N_("turn clock: seconds per decision (default off)")
    )
    parser.add_argument(
        "--takeover-seconds",
        type=int,
        default=DEFAULT_TAKEOVER_SECONDS,
        help=N_(
            "a bot plays a disconnected person's seat after this many seconds, until they return "
            "(default %(default)s; 0: never)"
        ),
    )


def _auto_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--auto",
        action="store_true",
        help=N_("play single forced choices (a roll, a forced draw) by yourself after a short pause"),
    )


def _join_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("table", help=N_("id of the table (`toadstool tables` lists them)"))
    parser.add_argument(
        "--name",
        default=_default_name(),
        help=N_("your name at the table, under which this computer keeps your seat (default %(default)s)"),
    )
    parser.add_argument("--seat", type=int, help=N_("the seat to take (default: the first open one)"))
    _auto_option(parser)
    _server_options(parser)


def _watch_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("table", help=N_("id of the table (`toadstool tables` lists them)"))
    _server_options(parser)


def _new_options(parser: argparse.ArgumentParser) -> None:
    _game_options(parser)
    parser.add_argument("--players", type=int, required=True, help=N_("seats in all, bots included"))
    parser.add_argument("--bots", type=int, default=0, help=N_("how many of the seats bots play (default %(default)s)"))
    parser.add_argument("--name", default="", help=N_("name of the table (default: the game's title and the table id)"))
    parser.add_argument("--manual-start", action="store_true", help=N_("wait for the host to start the table"))
    _bot_level_option(parser)
    _clock_options(parser)
    _server_options(parser)


def _selfplay_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help=N_("the game, by the name `toadstool games` lists"))
    _with_games_listed(parser)
    _option_flag(parser)
    parser.add_argument("--games", type=int, default=10, help=N_("how many games to play (default %(default)s)"))
    parser.add_argument(
        "--seed", type=int, default=1, help=N_("seed of the first game; each next game adds one (default %(default)s)")
    )
    parser.add_argument("--players", type=int, help=N_("seats per game (default: the game's smallest table)"))
    parser.add_argument("--smart-seats", default="", help=N_("comma-separated seats played by the sensible bot"))
    parser.add_argument(
        "--levels",
        default="",
        help=N_("comma-separated bot level per seat: easy, normal, hard (instead of --smart-seats)"),
    )
    parser.add_argument(
        "--budget-ms",
        type=float,
        default=150.0,
        help=N_("a hard bot's thinking per move, CPU ms (default %(default)s)"),
    )


def _games_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--server", help=N_("HOST[:PORT]: list the games that server hosts (default: the games installed here)")
    )
    parser.add_argument("--tls-ca", help=N_("PEM certificate of a TLS --server (default: $TOADSTOOL_TLS_CA)"))


def _no_options(parser: argparse.ArgumentParser) -> None:
    """A subcommand with no options of its own."""


# What each subcommand defined here does.


async def _with_client(address: str, body: Callable[[Client], Awaitable[int]], tls_ca: str | None = None) -> int:
    import grpc

    from toadstool_clients.connection import Client

    async with Client(address, tls_ca=tls_ca) as client:
        try:
            return await body(client)
        except grpc.aio.AioRpcError as error:
            print(f"toadstool: {await _explain(error, address, tls_ca)}", file=sys.stderr)
            return 1


async def _explain(error: grpc.aio.AioRpcError, address: str, tls_ca: str | None) -> str:
    """describe_rpc_error, or the TLS mismatch behind an UNAVAILABLE (gRPC only says "Socket closed")."""
    import grpc

    from toadstool_clients.connection import describe_rpc_error

    if error.code() == grpc.StatusCode.UNAVAILABLE:
        from toadstool_clients.certs import tls_mismatch

        tls_ca = tls_ca or os.environ.get("TOADSTOOL_TLS_CA") or None
        hint = await asyncio.to_thread(tls_mismatch, address, tls_ca)
        if hint:
            return hint
    return describe_rpc_error(error)


def _with_server(body: Callable[[Client, argparse.Namespace], Awaitable[int]]) -> Callable[[argparse.Namespace], int]:
    """A subcommand that talks to a running server: --server, else $TOADSTOOL_SERVER, else one announced on
    the LAN (at a terminal), else this machine."""

    def run(args: argparse.Namespace) -> int:
        from toadstool_clients.connection import server_address

        address = server_address(args.server or _discovered_server(args))
        return asyncio.run(_with_client(address, lambda client: body(client, args), args.tls_ca))

    return run


def cmd_games(args: argparse.Namespace) -> int:
    """The games installed here, or with --server those that server hosts, each with its options."""
    from toadstool_clients.game_list import describe_games

    if not args.server:
        print(describe_games(_installed_games()))
        return 0
    from toadstool_clients.connection import server_address

    async def listed(client: Client) -> int:
        print(describe_games(await client.list_games()))
        return 0

    return asyncio.run(_with_client(server_address(args.server), listed, args.tls_ca))


async def cmd_tables(client: Client, args: argparse.Namespace) -> int:
    from toadstool_clients.terminal.app import STATUS_NAMES

    tables = await client.list_tables()
    if not tables:
        print("no tables yet: create one with `toadstool new GAME --players N`")
    for table in tables:
        seats = ", ".join(s.name or "(open)" for s in table.seats)
        print(f"{table.table_id}  {table.game:8} {STATUS_NAMES.get(table.status, '?'):20} {table.name}  [{seats}]")
    return 0


async def play_at_table(
    client: Client,
    table_id: str,
    token: str | None,
    host_token: str | None = None,
    host_feed: HostFeed | None = None,
    auto: bool = False,
    come_back: str = "",
) -> int:
    """The terminal table: with the host token (given, or kept when this machine created the table), its
    host controls too; with a feed, the host's lines; `come_back`, the command said to one who leaves."""
    from toadstool_clients.seats import remembered_host_token
    from toadstool_clients.terminal.app import TerminalClient

    host_token = host_token or remembered_host_token(client.address, table_id)
    client_screen = TerminalClient(
        client, table_id, token, auto=auto, host_token=host_token, host_feed=host_feed, come_back=come_back
    )
    return await client_screen.run()


async def _nobody_there(address: str) -> bool:
    """Say at once that no server listens at `address` (a refused connection), and return True."""
    from toadstool_clients.terminal.reach import nobody_listening

    said = await nobody_listening(address)
    if said:
        print(f"toadstool: {said}", file=sys.stderr)
    return said is not None


def _join_command(table_id: str, address: str, name: str) -> str:
    return shlex.join(["toadstool", "join", table_id, "--server", address, "--name", name])


async def cmd_join(client: Client, args: argparse.Namespace) -> int:
    """Take a seat, or go back to the one saved under this name; another name's saved seat is asked about."""
    from toadstool_clients.seat_choice import seat_to_resume
    from toadstool_clients.seats import remember_seat

    if await _nobody_there(client.address):
        return 2
    name = args.name.strip() or _default_name()
    mine = await seat_to_resume(client, args.table, name, args.seat)
    if mine is not None:
        print(f"Back in your seat at table {args.table}, as {mine.name}")
        remember_seat(client.address, args.table, mine.seat, mine.token, mine.name)
        back = _join_command(args.table, client.address, mine.name or name)
        return await play_at_table(client, args.table, mine.token, auto=args.auto, come_back=back)
    joined = await client.join(args.table, name, args.seat)
    remember_seat(client.address, args.table, joined.seat, joined.seat_token, name)
    back = _join_command(args.table, client.address, name)
    return await play_at_table(client, args.table, joined.seat_token, auto=args.auto, come_back=back)


async def cmd_watch(client: Client, args: argparse.Namespace) -> int:
    if await _nobody_there(client.address):
        return 2
    again = shlex.join(["toadstool", "watch", args.table, "--server", client.address])
    return await play_at_table(client, args.table, None, come_back=again)


async def cmd_new(client: Client, args: argparse.Namespace) -> int:
    from toadstool_clients.seats import remember_host_token

    created = await client.create_table(
        _matching_game(args.game, [game.name for game in await client.list_games()]),
        args.players,
        args.bots,
        _options(args.option),
        seed=args.seed,
        name=args.name,
        manual_start=args.manual_start,
        turn_seconds=args.turn_seconds,
        takeover_seconds=args.takeover_seconds,
        bot_level=_bot_level(args),
    )
    remember_host_token(client.address, created.table.table_id, created.host_token)
    print(created.table.table_id)
    print(
        f"created {created.table.name}; join with: toadstool join {created.table.table_id} --server {client.address}",
        file=sys.stderr,
    )
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_play(args))
    finally:
        _drop_leftover_rpcs()


def _drop_leftover_rpcs() -> None:
    """Say nothing of the embedded server's calls still pending when `play` ends (Ctrl+C mid-game).

    grpc.aio starts each incoming call as a task of its own; one that arrives while asyncio.run is cancelling
    the others is left pending, and when Python destroys it at exit, closing its coroutine raises
    CancelledError, which Python prints as "Exception ignored in" with a traceback. A person leaving is not
    an error, so those (and only those) are dropped; anything else unraisable is printed as before.
    """
    previous = sys.unraisablehook

    def hook(unraisable: sys.UnraisableHookArgs) -> None:
        if not isinstance(unraisable.exc_value, asyncio.CancelledError):
            previous(unraisable)

    sys.unraisablehook = hook


#: The server key under which `toadstool play` saves the seats it takes at its own server (whose port
#: changes from run to run), so the next `toadstool play` finds them.
LOCAL_PLAY = "local-play"


async def _play(args: argparse.Namespace) -> int:
    from toadstool_clients.connection import server_address

    if args.server:
        return await _play_remote(server_address(args.server), args, saved_under=None)
    from toadstool.server.app import ServerConfig, announced, join_lines, running_server
    from toadstool.server.discovery import announced_addresses
    from toadstool.server.store import StoreError
    from toadstool.server.web import DEFAULT_WEB_PORT

    with _play_store() as db:
        config = ServerConfig(
            host=args.bind if args.lan else "127.0.0.1",
            port=args.port if args.lan else 0,
            bot_delay=args.bot_delay,
            announce=args.lan,
            db=db,
            web_port=DEFAULT_WEB_PORT if args.lan else None,  # phones join a LAN game; a game alone needs none
        )
        logging.getLogger("grpc").setLevel(logging.CRITICAL)
        feed = _host_feed() if args.lan and not args.quiet else None
        try:
            async with running_server(config) as running, announced(config, running):
                addresses = announced_addresses(config.host)

                def how_to_join(table_id: str) -> list[str]:
                    return join_lines(running, addresses, table_id) if args.lan else []

                return await _play_remote(
                    f"127.0.0.1:{running.port}", args, LOCAL_PLAY if db else None, how_to_join, feed
                )
        except StoreError as error:
            print(f"toadstool: {error}", file=sys.stderr)
            return 2


def _host_feed() -> HostFeed:
    """A feed the embedded server's host lines (`toadstool.host`) go to, for the full-screen client to show
    (printed, they would be drawn over)."""
    from toadstool.server.tables.host_log import HOST_LOG
    from toadstool_clients.host_feed import HostFeed

    feed = HostFeed()

    class ToFeed(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            feed.add(time.strftime("%H:%M ") + record.getMessage())

    HOST_LOG.addHandler(ToFeed())
    HOST_LOG.setLevel(logging.INFO)
    HOST_LOG.propagate = False
    return feed


@contextlib.contextmanager
def _play_store() -> Iterator[str | None]:
    """The SQLite file that keeps `toadstool play`'s own tables, so an unfinished game is there to go back
    to (`play.db` beside the server's database); held by one `play` at a time (a lock file). None when
    another `play` holds it or there is no home: that game lives in memory only."""
    from toadstool.paths import state_dir

    try:
        path = state_dir() / "play.db"
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = path.with_suffix(".lock").open("w")
    except (RuntimeError, OSError):
        yield None
        return
    with lock:
        try:
            import fcntl

            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except ImportError:  # not POSIX: no lock to take
            pass
        except OSError:
            print("Another `toadstool play` is running: this game will not be kept to come back to.", file=sys.stderr)
            yield None
            return
        yield str(path)


async def _play_remote(
    address: str,
    args: argparse.Namespace,
    saved_under: str | None,
    how_to_join: Callable[[str], list[str]] | None = None,
    feed: HostFeed | None = None,
) -> int:
    """Play at the server: a new table with the bots and you in seat 0, or the unfinished game saved under
    `saved_under` (`toadstool play`'s own server) if the person wants to go back to it. With `how_to_join`
    (`play --lan`), the commands friends join with are printed and put first in the host's feed."""
    import grpc

    from toadstool_clients.connection import Client
    from toadstool_clients.seats import remembered_host_token

    if args.server and await _nobody_there(address):
        return 2
    async with Client(address, tls_ca=args.tls_ca) as client:
        try:
            table_id, token = await _seat_to_play(client, args, saved_under)
        except grpc.aio.AioRpcError as error:
            print(f"toadstool: {await _explain(error, address, args.tls_ca)}", file=sys.stderr)
            return 2
        for line in how_to_join(table_id) if how_to_join else []:
            print(line, flush=True)
            if feed is not None:
                feed.add(line)
        host_token = remembered_host_token(saved_under or address, table_id)
        if saved_under is not None:  # `toadstool play` offers the unfinished game kept under its name
            again = ["toadstool", "play", args.game, "--name", args.name.strip() or _default_name()]
            back = shlex.join([*again, "--lan"] if args.lan else again)
        else:
            back = _join_command(table_id, address, args.name.strip() or _default_name()) if args.server else ""
        return await play_at_table(
            client, table_id, token, host_token=host_token, host_feed=feed, auto=args.auto, come_back=back
        )


async def _seat_to_play(client: Client, args: argparse.Namespace, saved_under: str | None) -> tuple[str, str]:
    """(table id, seat token) of the game `toadstool play` is asked for: the unfinished one kept under
    `saved_under` when the person goes back to it, else a new table, whose seat is kept there."""
    from toadstool_clients.seat_choice import unfinished_game
    from toadstool_clients.seats import remember_host_token, remember_seat

    name = args.name.strip() or _default_name()
    games = await client.list_games()
    game = _matching_game(args.game, [g.name for g in games])
    if saved_under is not None and sys.stdin.isatty():
        back = await unfinished_game(client, saved_under, game, name)
        if back is not None:
            return back
    options = _options(args.option)
    if sys.stdin.isatty():  # a choice the command line left out (Kart's track) is offered
        from toadstool_clients.terminal.ask_options import ask_choice_options

        info = next(g for g in games if g.name == game)
        options = await asyncio.to_thread(ask_choice_options, info, options, _track_lengths())
    players = args.players or args.bots + 1
    created = await client.create_table(
        game,
        players,
        args.bots,
        options,
        seed=args.seed,
        turn_seconds=args.turn_seconds,
        takeover_seconds=args.takeover_seconds,
        bot_level=_bot_level(args),
    )
    remember_host_token(saved_under or client.address, created.table.table_id, created.host_token)
    joined = await client.join(created.table.table_id, name, 0)
    if saved_under is not None:
        remember_seat(saved_under, created.table.table_id, joined.seat, joined.seat_token, name)
    return created.table.table_id, joined.seat_token


def cmd_selfplay(args: argparse.Namespace) -> int:
    import json

    from toadstool.bots import Budget
    from toadstool.engine import BadOptions
    from toadstool.games import GAMES
    from toadstool.selfplay import selfplay_summary

    smart = tuple(int(s) for s in args.smart_seats.split(",") if s.strip())
    levels = [level for level in args.levels.split(",") if level.strip()]
    game = _matching_game(args.game, GAMES)
    try:
        summary = selfplay_summary(
            game, args.games, args.seed, args.players, smart, _options(args.option), levels, Budget(ms=args.budget_ms)
        )
    except KeyError as error:
        print(f"toadstool: {error.args[0]}", file=sys.stderr)
        return 2
    except BadOptions as error:
        print(f"toadstool: {error}", file=sys.stderr)
        return 2
    print(json.dumps(summary))
    return 0


def _track_lengths() -> dict[str, int]:
    """Each installed Kart track's number of fields by its name, shown beside its title (the server's label)
    in the question `toadstool play kart` asks; empty without the Kart game."""
    try:
        from toadstool.games.kart.tracks import list_tracks
    except ImportError:
        return {}
    return {t.name: t.length for t in list_tracks() if not t.error}


def cmd_tracks(args: argparse.Namespace) -> int:
    try:
        from toadstool.games.kart.tracks import list_tracks
    except ImportError:
        print("toadstool: the Kart game is not installed", file=sys.stderr)
        return 2
    for track in list_tracks():
        if track.error:
            print(f"{track.name:16} BROKEN: {track.error}  {track.source}")
        else:
            print(f"{track.name:16} {track.title:24} {track.length} fields  {track.source}")
    return 0


def _discovered_server(args: argparse.Namespace) -> str | None:
    """With no --server and no $TOADSTOOL_SERVER, at a terminal: offer the servers announced on the LAN."""
    if os.environ.get("TOADSTOOL_SERVER") or not sys.stdin.isatty():
        return None
    from toadstool_clients.discovery import browse, offer

    print("No --server given: looking for Toadstool servers on the LAN...", file=sys.stderr)
    servers = browse(2.0)
    if not servers:
        print("None heard; trying this machine.", file=sys.stderr)
        return None
    found = offer(servers)
    if found is None:
        return None
    if found.tls and not (args.tls_ca or os.environ.get("TOADSTOOL_TLS_CA")):
        print(f"{found.name} speaks TLS: pass --tls-ca with its certificate", file=sys.stderr)
    return found.address


#: Every subcommand, in the order `toadstool --help` lists them.
COMMANDS: dict[str, Command] = {
    "serve": _in_module(N_("host tables for the LAN"), "toadstool.server.serve_command"),
    "play": Command(
        N_("play a game in the terminal against bots (its own server keeps an unfinished game to come back to)"),
        _play_options,
        cmd_play,
    ),
    "join": Command(N_("take a seat at a table and play"), _join_options, _with_server(cmd_join)),
    "watch": Command(N_("spectate a table"), _watch_options, _with_server(cmd_watch)),
    "games": Command(N_("list the games and their options (no server needed)"), _games_options, cmd_games),
    "tables": Command(N_("list the server's tables"), _server_options, _with_server(cmd_tables)),
    "new": Command(N_("create a table and print its id"), _new_options, _with_server(cmd_new)),
    "selfplay": Command(N_("play bot-only games in-process and print a JSON summary"), _selfplay_options, cmd_selfplay),
    "tracks": Command(N_("list the installed Kart tracks"), _no_options, cmd_tracks),
    "db": _in_module(
        N_("check a server's database file, or salvage its readable tables into a new one"),
        "toadstool.server.db_command",
    ),
    "tk": _in_module(N_("the Tk desktop client"), "toadstool_clients.tk.app"),
    "bridge": _in_module(
        N_("mirror public table state to MQTT (LED dice, displays, Home Assistant)"),
        "toadstool_clients.bridge.app",
        extra=("the MQTT bridge", "bridge"),
    ),
    "discover": _in_module(N_("list Toadstool servers announced on the LAN"), "toadstool_clients.discovery"),
    "cert": _in_module(N_("make a self-signed TLS certificate and key for a home LAN"), "toadstool_clients.certs"),
    "replay": _in_module(N_("replay a finished game step by step"), "toadstool_clients.replay"),
}


def build_parser(with_options: Iterable[str] | None = None) -> argparse.ArgumentParser:
    """The `toadstool` parser: every subcommand, with the options of those in `with_options` (default:
    all of them, which imports every client; `main` adds only the one asked for)."""
    chosen = set(COMMANDS if with_options is None else with_options)
    parser = argparse.ArgumentParser(
        prog="toadstool", description=N_("Mario tabletop games over the LAN."), formatter_class=HelpInLanguage
    )
    parser.add_argument("-v", "--verbose", action="store_true", help=N_("log more"))
    sub = parser.add_subparsers(
        dest="command",
        required=True,
        metavar="COMMAND",
        title=N_("commands"),
        help=N_("`toadstool COMMAND --help` for its options"),
    )
    for name, command in COMMANDS.items():
        # Its own page's description: its summary, in its reader's language, as a sentence.
        summary = _say(command.summary) if name in chosen else command.summary
        p = sub.add_parser(
            name,
            help=command.summary,
            description=summary[0].upper() + summary[1:] + ".",
            formatter_class=HelpInLanguage,
        )
        if name in chosen:
            command.add_arguments(p)
            # -v works after the subcommand too; SUPPRESS keeps a -v given before it.
            p.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help=N_("log more"))
    return parser


def _command_in(arguments: Sequence[str]) -> str | None:
    """The subcommand named in `arguments` (the first word that is not an option), if it is one."""
    word = next((argument for argument in arguments if not argument.startswith("-")), None)
    return word if word in COMMANDS else None


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    chosen = _command_in(arguments)
    args = build_parser([chosen] if chosen else []).parse_args(arguments)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(message)s")
    if getattr(args, "lang", None) and args.command != "serve":  # a client's --lang: every call it makes asks so
        os.environ[LANG_VARIABLE] = args.lang
    try:
        return COMMANDS[args.command].run(args)
    except KeyboardInterrupt:  # Ctrl+C (or q) at any prompt: a person leaving, not a failure
        print("\nbye", file=sys.stderr)
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
