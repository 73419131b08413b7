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
import importlib
import logging
import os
import sys
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import grpc

    from toadstool_clients.connection import Client


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
    """The login name, capitalised, as a display name; "Player" where there is none (or it is root)."""
    user = os.environ.get("USER") or os.environ.get("USERNAME") or ""
    return user.capitalize() if user and user != "root" else "Player"


# The options of each subcommand defined here.


def _server_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--server", help="HOST[:PORT] of the server (default: $TOADSTOOL_SERVER or 127.0.0.1:50051)")
    parser.add_argument(
        "--tls-ca", help="PEM certificate of a TLS server (default: $TOADSTOOL_TLS_CA; none: plaintext)"
    )


def _game_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="the game to play, by the name `toadstool games` lists (uno, kart, ...)")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a game option (repeatable; `toadstool games` lists each game's options and defaults)",
    )
    parser.add_argument("--seed", type=int, help="seed of the shuffles and dice, to play the same game again")


def _serve_options(parser: argparse.ArgumentParser) -> None:
    from toadstool.server.limits import Limits  # the server's own defaults, shown by --help

    defaults = Limits()
    parser.add_argument("--host", default="0.0.0.0", help="address to bind (default 0.0.0.0: every interface)")
    parser.add_argument("--port", type=int, default=50051, help="port to listen on (default %(default)s)")
    parser.add_argument(
        "--bot-delay", type=float, default=0.6, help="seconds before each bot action (default %(default)s)"
    )
    parser.add_argument(
        "--max-tables", type=int, default=defaults.max_tables, help="tables in total (default %(default)s)"
    )
    parser.add_argument(
        "--max-tables-per-client",
        type=int,
        default=defaults.max_tables_per_client,
        help="tables one machine may have created at once (default %(default)s)",
    )
    parser.add_argument(
        "--max-streams-per-client",
        type=int,
        default=defaults.max_streams_per_client,
        help="streams (players and watchers) one machine may hold open (default %(default)s)",
    )
    parser.add_argument(
        "--actions-per-second",
        type=float,
        default=defaults.actions_per_second,
        help="actions per second per seat, with bursts of twice that (default %(default)s)",
    )
    parser.add_argument(
        "--max-request-bytes",
        type=int,
        default=defaults.max_request_bytes,
        help="largest request the server reads (default %(default)s)",
    )
    parser.add_argument(
        "--min-bot-delay",
        type=float,
        default=0.05,
        help="shortest bot delay a client may ask for, in seconds (default %(default)s)",
    )
    parser.add_argument(
        "--db",
        help="SQLite file that keeps every table across restarts (default: ~/.local/state/toadstool/toadstool.db)",
    )
    parser.add_argument("--no-db", action="store_true", help="keep tables in memory only: a restart loses them")
    parser.add_argument(
        "--db-sync", choices=("normal", "full"), default="normal", help="full: also survive a power cut (slower)"
    )
    parser.add_argument("--tls-cert", help="PEM certificate: serve over TLS (make one with `toadstool cert`)")
    parser.add_argument("--tls-key", help="PEM private key of --tls-cert")
    parser.add_argument("--no-announce", action="store_true", help="do not announce this server on the LAN (mDNS)")
    parser.add_argument("--name", default="", help="name `toadstool discover` shows (default: Toadstool on HOSTNAME)")


def _play_options(parser: argparse.ArgumentParser) -> None:
    _game_options(parser)
    parser.add_argument("--bots", type=int, default=3, help="number of bot opponents (default %(default)s)")
    parser.add_argument("--name", default=_default_name(), help="your name at the table (default %(default)s)")
    parser.add_argument(
        "--bot-delay", type=float, default=0.8, help="seconds before each bot action (default %(default)s)"
    )
    parser.add_argument(
        "--players", type=int, help="seats in all (default: you plus the bots); open seats wait for friends"
    )
    parser.add_argument(
        "--lan", action="store_true", help="let friends join: bind 0.0.0.0:50051 and announce it on the LAN"
    )
    _server_options(parser)


def _join_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("table", help="id of the table (`toadstool tables` lists them)")
    parser.add_argument("--name", default=_default_name(), help="your name at the table (default %(default)s)")
    parser.add_argument("--seat", type=int, help="the seat to take (default: the first open one)")
    _server_options(parser)


def _watch_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("table", help="id of the table (`toadstool tables` lists them)")
    _server_options(parser)


def _new_options(parser: argparse.ArgumentParser) -> None:
    _game_options(parser)
    parser.add_argument("--players", type=int, required=True, help="seats in all, bots included")
    parser.add_argument("--bots", type=int, default=0, help="how many of the seats bots play (default %(default)s)")
    parser.add_argument("--name", default="", help="name of the table (default: the game's title and the table id)")
    parser.add_argument("--manual-start", action="store_true", help="wait for the host to start the table")
    parser.add_argument("--turn-seconds", type=int, default=0, help="turn clock: seconds per decision (default off)")
    parser.add_argument(
        "--takeover-seconds", type=int, default=0, help="a bot plays a disconnected seat after this many seconds"
    )
    _server_options(parser)


def _selfplay_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="the game, by the name `toadstool games` lists")
    parser.add_argument("--games", type=int, default=10, help="how many games to play (default %(default)s)")
    parser.add_argument(
        "--seed", type=int, default=1, help="seed of the first game; each next game adds one (default %(default)s)"
    )
    parser.add_argument("--players", type=int, help="seats per game (default: the game's smallest table)")
    parser.add_argument("--smart-seats", default="", help="comma-separated seats played by the sensible bot")


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


async def cmd_games(client: Client, args: argparse.Namespace) -> int:
    for game in await client.list_games():
        print(f"{game.name:10} {game.title}  ({game.min_players}-{game.max_players} players)")
        for option in game.options:
            print(f"{'':12}--option {option.name}={option.default_value}  {option.help}")
    return 0


async def cmd_tables(client: Client, args: argparse.Namespace) -> int:
    from toadstool_clients.terminal.app import STATUS_NAMES

    tables = await client.list_tables()
    if not tables:
        print("no tables yet: create one with `toadstool new GAME --players N`")
    for table in tables:
        seats = ", ".join(s.name or "(open)" for s in table.seats)
        print(f"{table.table_id}  {table.game:8} {STATUS_NAMES.get(table.status, '?'):20} {table.name}  [{seats}]")
    return 0


async def play_at_table(client: Client, table_id: str, token: str | None) -> int:
    from toadstool_clients.terminal.app import TerminalClient

    return await TerminalClient(client, table_id, token).run()


async def cmd_join(client: Client, args: argparse.Namespace) -> int:
    from toadstool_clients.seats import remember_seat, remembered_seat

    saved = remembered_seat(client.address, args.table)
    if saved is not None and args.seat in (None, saved[0]) and await _token_still_valid(client, args.table, saved[1]):
        print(f"Resuming your seat {saved[0]} at table {args.table}")
        return await play_at_table(client, args.table, saved[1])
    joined = await client.join(args.table, args.name, args.seat)
    remember_seat(client.address, args.table, joined.seat, joined.seat_token)
    return await play_at_table(client, args.table, joined.seat_token)


async def cmd_watch(client: Client, args: argparse.Namespace) -> int:
    return await play_at_table(client, args.table, None)


async def _token_still_valid(client: Client, table_id: str, token: str) -> bool:
    """Whether a remembered seat token still holds its seat (it does not after leaving or being kicked)."""
    import grpc

    call = client.watch(table_id, token)
    try:
        await asyncio.wait_for(call.read(), client.timeout)
        return True
    except grpc.aio.AioRpcError as error:
        if error.code() == grpc.StatusCode.UNAUTHENTICATED:
            print("Your remembered seat is no longer yours; taking a new one.", file=sys.stderr)
            return False
        raise
    finally:
        call.cancel()


async def cmd_new(client: Client, args: argparse.Namespace) -> int:
    from toadstool_clients.seats import remember_host_token

    created = await client.create_table(
        args.game,
        args.players,
        args.bots,
        _options(args.option),
        seed=args.seed,
        name=args.name,
        manual_start=args.manual_start,
        turn_seconds=args.turn_seconds,
        takeover_seconds=args.takeover_seconds,
    )
    remember_host_token(client.address, created.table.table_id, created.host_token)
    print(created.table.table_id)
    print(
        f"created {created.table.name}; join with: toadstool join {created.table.table_id} --server {client.address}",
        file=sys.stderr,
    )
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from toadstool.server.app import ServerConfig, serve
    from toadstool.server.limits import Limits
    from toadstool.server.store import StoreError, default_db_path

    limits = Limits(
        max_request_bytes=args.max_request_bytes,
        max_tables=args.max_tables,
        max_tables_per_client=args.max_tables_per_client,
        max_streams_per_client=args.max_streams_per_client,
        actions_per_second=args.actions_per_second,
        action_burst=max(1, int(args.actions_per_second * 2)),
        min_bot_delay=args.min_bot_delay,
    )
    config = ServerConfig(
        args.host,
        args.port,
        args.bot_delay,
        limits,
        db=None if args.no_db else str(args.db or default_db_path()),
        db_sync=args.db_sync,
        tls_cert=args.tls_cert,
        tls_key=args.tls_key,
        announce=not args.no_announce,
        name=args.name,
    )
    try:
        asyncio.run(serve(config))
    except StoreError as error:
        print(f"toadstool: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"toadstool: {error}", file=sys.stderr)
        return 2
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    return asyncio.run(_play(args))


async def _play(args: argparse.Namespace) -> int:
    from toadstool_clients.connection import server_address

    if args.server:
        return await _play_remote(server_address(args.server), args)
    from toadstool.server.app import ServerConfig, announced, running_server

    config = ServerConfig(
        host="0.0.0.0" if args.lan else "127.0.0.1",
        port=50051 if args.lan else 0,
        bot_delay=args.bot_delay,
        announce=args.lan,
    )
    logging.getLogger("grpc").setLevel(logging.CRITICAL)
    async with running_server(config) as running, announced(config, running):
        return await _play_remote(f"127.0.0.1:{running.port}", args)


async def _play_remote(address: str, args: argparse.Namespace) -> int:
    import grpc

    from toadstool_clients.connection import Client

    async with Client(address, tls_ca=args.tls_ca) as client:
        try:
            players = args.players or args.bots + 1
            created = await client.create_table(
                args.game, players, args.bots, _options(args.option), seed=args.seed, name=""
            )
            joined = await client.join(created.table.table_id, args.name, 0)
        except grpc.aio.AioRpcError as error:
            print(f"toadstool: {await _explain(error, address, args.tls_ca)}", file=sys.stderr)
            return 2
        return await play_at_table(client, created.table.table_id, joined.seat_token)


def cmd_selfplay(args: argparse.Namespace) -> int:
    import json

    from toadstool.selfplay import selfplay_summary

    smart = tuple(int(s) for s in args.smart_seats.split(",") if s.strip())
    try:
        summary = selfplay_summary(args.game, args.games, args.seed, args.players, smart)
    except KeyError as error:
        print(f"toadstool: {error.args[0]}", file=sys.stderr)
        return 2
    print(json.dumps(summary))
    return 0


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
    "serve": Command("host tables for the LAN", _serve_options, cmd_serve),
    "play": Command("play a game in the terminal against bots (starts its own server)", _play_options, cmd_play),
    "join": Command("take a seat at a table and play", _join_options, _with_server(cmd_join)),
    "watch": Command("spectate a table", _watch_options, _with_server(cmd_watch)),
    "games": Command("list the games the server hosts", _server_options, _with_server(cmd_games)),
    "tables": Command("list the server's tables", _server_options, _with_server(cmd_tables)),
    "new": Command("create a table and print its id", _new_options, _with_server(cmd_new)),
    "selfplay": Command("play bot-only games in-process and print a JSON summary", _selfplay_options, cmd_selfplay),
    "tracks": Command("list the installed Kart tracks", _no_options, cmd_tracks),
    "tk": _in_module("the Tk desktop client", "toadstool_clients.tk.app"),
    "bridge": _in_module(
        "mirror public table state to MQTT (LED dice, displays, Home Assistant)",
        "toadstool_clients.bridge.app",
        extra=("the MQTT bridge", "bridge"),
    ),
    "discover": _in_module("list Toadstool servers announced on the LAN", "toadstool_clients.discovery"),
    "cert": _in_module("make a self-signed TLS certificate and key for a home LAN", "toadstool_clients.certs"),
    "replay": _in_module("replay a finished game step by step", "toadstool_clients.replay"),
}


def build_parser(with_options: Iterable[str] | None = None) -> argparse.ArgumentParser:
    """The `toadstool` parser: every subcommand, with the options of those in `with_options` (default:
    all of them, which imports every client; `main` adds only the one asked for)."""
    chosen = set(COMMANDS if with_options is None else with_options)
    parser = argparse.ArgumentParser(prog="toadstool", description="Mario tabletop games over the LAN.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log more")
    sub = parser.add_subparsers(
        dest="command",
        required=True,
        metavar="COMMAND",
        title="commands",
        help="`toadstool COMMAND --help` for its options",
    )
    for name, command in COMMANDS.items():
        p = sub.add_parser(
            name, help=command.summary, description=command.summary[0].upper() + command.summary[1:] + "."
        )
        if name in chosen:
            command.add_arguments(p)
            # -v works after the subcommand too; SUPPRESS keeps a -v given before it.
            p.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help="log more")
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
    try:
        return COMMANDS[args.command].run(args)
    except KeyboardInterrupt:
        print("\nbye", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
