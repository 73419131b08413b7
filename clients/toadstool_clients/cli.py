"""The `toadstool` command: host a server, play or watch in the terminal, manage tables, run bot games.

Each subcommand is a thin layer over the server package or the client connection; run
`toadstool COMMAND --help` for its options.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import grpc

from toadstool.limits import Limits
from toadstool_clients.connection import Client, describe_rpc_error, server_address


def _options(pairs: Sequence[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for pair in pairs:
        if "=" not in pair:
            raise SystemExit(f"--option takes NAME=VALUE, not {pair!r}")
        name, value = pair.split("=", 1)
        options[name.strip()] = value
    return options


def _config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "toadstool"


def _seats_file() -> Path:
    return _config_dir() / "seats.json"


def remember_seat(address: str, table_id: str, seat: int, token: str) -> None:
    """Keep the seat token on this machine so `toadstool join` can resume after a crash or reboot."""
    path = _seats_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        data = {}
    data[f"{address}/{table_id}"] = {"seat": seat, "token": token}
    path.write_text(json.dumps(data, indent=1))
    path.chmod(0o600)


def remembered_seat(address: str, table_id: str) -> tuple[int, str] | None:
    try:
        entry = json.loads(_seats_file().read_text()).get(f"{address}/{table_id}")
    except (OSError, ValueError):
        return None
    if not entry:
        return None
    return int(entry["seat"]), str(entry["token"])


def _default_name() -> str:
    """The login name, capitalised, as a display name; "Player" where there is none (or it is root)."""
    user = os.environ.get("USER") or os.environ.get("USERNAME") or ""
    return user.capitalize() if user and user != "root" else "Player"


def _add_server_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--server", help="HOST[:PORT] of the server (default: $TOADSTOOL_SERVER or 127.0.0.1:50051)")
    parser.add_argument(
        "--tls-ca", help="PEM certificate of a TLS server (default: $TOADSTOOL_TLS_CA; none: plaintext)"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="toadstool", description="Mario tabletop games over the LAN.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log more")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("serve", help="host tables for the LAN")
    p.add_argument("--host", default="0.0.0.0", help="address to bind (default 0.0.0.0: every interface)")
    p.add_argument("--port", type=int, default=50051)
    p.add_argument("--bot-delay", type=float, default=0.6, help="seconds before each bot action (default 0.6)")
    defaults = Limits()
    p.add_argument("--max-tables", type=int, default=defaults.max_tables, help="tables in total")
    p.add_argument("--max-tables-per-client", type=int, default=defaults.max_tables_per_client)
    p.add_argument("--max-streams-per-client", type=int, default=defaults.max_streams_per_client)
    p.add_argument("--actions-per-second", type=float, default=defaults.actions_per_second, help="per seat")
    p.add_argument("--max-request-bytes", type=int, default=defaults.max_request_bytes)
    p.add_argument(
        "--min-bot-delay", type=float, default=0.05, help="shortest bot delay a client may ask for (seconds)"
    )
    p.add_argument(
        "--db",
        help="SQLite file that keeps every table across restarts (default: ~/.local/state/toadstool/toadstool.db)",
    )
    p.add_argument("--no-db", action="store_true", help="keep tables in memory only: a restart loses them")
    p.add_argument(
        "--db-sync", choices=("normal", "full"), default="normal", help="full: also survive a power cut (slower)"
    )
    p.add_argument("--tls-cert", help="PEM certificate: serve over TLS (make one with `toadstool cert`)")
    p.add_argument("--tls-key", help="PEM private key of --tls-cert")
    p.add_argument("--no-announce", action="store_true", help="do not announce this server on the LAN (mDNS)")
    p.add_argument("--name", default="", help="name `toadstool discover` shows (default: Toadstool on HOSTNAME)")

    p = sub.add_parser("play", help="play a game in the terminal against bots (starts its own server)")
    p.add_argument("game")
    p.add_argument("--bots", type=int, default=3, help="number of bot opponents (default 3)")
    p.add_argument("--name", default=_default_name())
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--seed", type=int)
    p.add_argument("--bot-delay", type=float, default=0.8)
    p.add_argument("--players", type=int, help="seats in all (default: you plus the bots); open seats wait for friends")
    p.add_argument("--lan", action="store_true", help="let friends join: bind 0.0.0.0:50051 and announce it on the LAN")
    _add_server_arg(p)

    p = sub.add_parser("join", help="take a seat at a table and play")
    p.add_argument("table")
    p.add_argument("--name", default=_default_name())
    p.add_argument("--seat", type=int)
    _add_server_arg(p)

    p = sub.add_parser("watch", help="spectate a table")
    p.add_argument("table")
    _add_server_arg(p)

    p = sub.add_parser("games", help="list the games the server hosts")
    _add_server_arg(p)

    p = sub.add_parser("tables", help="list the server's tables")
    _add_server_arg(p)

    p = sub.add_parser("new", help="create a table and print its id")
    p.add_argument("game")
    p.add_argument("--players", type=int, required=True)
    p.add_argument("--bots", type=int, default=0)
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--seed", type=int)
    p.add_argument("--name", default="")
    p.add_argument("--manual-start", action="store_true", help="wait for the host to start the table")
    p.add_argument("--turn-seconds", type=int, default=0, help="turn clock: seconds per decision (default off)")
    p.add_argument(
        "--takeover-seconds", type=int, default=0, help="a bot plays a disconnected seat after this many seconds"
    )
    _add_server_arg(p)

    p = sub.add_parser("selfplay", help="play bot-only games in-process and print a JSON summary")
    p.add_argument("game")
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--players", type=int)
    p.add_argument("--smart-seats", default="", help="comma-separated seats played by the sensible bot")

    sub.add_parser("tracks", help="list the installed Kart tracks")
    for name, (_, help_text) in PASSTHROUGH.items():
        p = sub.add_parser(name, help=help_text, add_help=False)
        p.add_argument("rest", nargs=argparse.REMAINDER)
    return parser


#: Subcommands with options of their own: `toadstool NAME ARGS...` calls `MODULE.main(ARGS)`.
PASSTHROUGH: dict[str, tuple[str, str]] = {
    "tk": ("toadstool_clients.tk.app", "the Tk desktop client"),
    "bridge": (
        "toadstool_clients.bridge.app",
        "mirror public table state to MQTT (LED dice, displays, Home Assistant)",
    ),
    "discover": ("toadstool_clients.discovery", "list Toadstool servers announced on the LAN"),
    "cert": ("toadstool_clients.certs", "make a self-signed TLS certificate and key for a home LAN"),
    "replay": ("toadstool_clients.replay", "replay a finished game step by step"),
}


async def _with_client(address: str, body: Any, tls_ca: str | None = None) -> int:
    async with Client(address, tls_ca=tls_ca) as client:
        try:
            result: int = await body(client)
            return result
        except grpc.aio.AioRpcError as error:
            print(f"toadstool: {await _explain(error, address, tls_ca)}", file=sys.stderr)
            return 1


async def _explain(error: grpc.aio.AioRpcError, address: str, tls_ca: str | None) -> str:
    """describe_rpc_error, or the TLS mismatch behind an UNAVAILABLE (gRPC only says "Socket closed")."""
    if error.code() == grpc.StatusCode.UNAVAILABLE:
        from toadstool_clients.certs import tls_mismatch

        tls_ca = tls_ca or os.environ.get("TOADSTOOL_TLS_CA") or None
        hint = await asyncio.to_thread(tls_mismatch, address, tls_ca)
        if hint:
            return hint
    return describe_rpc_error(error)


async def cmd_games(client: Client) -> int:
    for game in await client.list_games():
        print(f"{game.name:10} {game.title}  ({game.min_players}-{game.max_players} players)")
        for option in game.options:
            print(f"{'':12}--option {option.name}={option.default_value}  {option.help}")
    return 0


async def cmd_tables(client: Client) -> int:
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
    saved = remembered_seat(client.address, args.table)
    if saved is not None and args.seat in (None, saved[0]) and await _token_still_valid(client, args.table, saved[1]):
        print(f"Resuming your seat {saved[0]} at table {args.table}")
        return await play_at_table(client, args.table, saved[1])
    joined = await client.join(args.table, args.name, args.seat)
    remember_seat(client.address, args.table, joined.seat, joined.seat_token)
    return await play_at_table(client, args.table, joined.seat_token)


async def _token_still_valid(client: Client, table_id: str, token: str) -> bool:
    """Whether a remembered seat token still holds its seat (it does not after leaving or being kicked)."""
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
    host_file = _config_dir() / "hosted.json"
    host_file.parent.mkdir(parents=True, exist_ok=True)
    try:
        hosted = json.loads(host_file.read_text())
    except (OSError, ValueError):
        hosted = {}
    hosted[f"{client.address}/{created.table.table_id}"] = created.host_token
    host_file.write_text(json.dumps(hosted, indent=1))
    host_file.chmod(0o600)
    print(created.table.table_id)
    print(
        f"created {created.table.name}; join with: toadstool join {created.table.table_id} --server {client.address}",
        file=sys.stderr,
    )
    return 0


async def cmd_play(args: argparse.Namespace) -> int:
    from toadstool.server import ServerConfig, announced, running_server

    if args.server:
        return await _play_remote(server_address(args.server), args)
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
    async with Client(address, tls_ca=getattr(args, "tls_ca", None)) as client:
        try:
            players = args.players or args.bots + 1
            created = await client.create_table(
                args.game, players, args.bots, _options(args.option), seed=args.seed, name=""
            )
            joined = await client.join(created.table.table_id, args.name, 0)
        except grpc.aio.AioRpcError as error:
            print(f"toadstool: {await _explain(error, address, getattr(args, 'tls_ca', None))}", file=sys.stderr)
            return 2
        return await play_at_table(client, created.table.table_id, joined.seat_token)


def cmd_selfplay(args: argparse.Namespace) -> int:
    from toadstool.selfplay import selfplay_summary

    smart = tuple(int(s) for s in args.smart_seats.split(",") if s.strip())
    try:
        summary = selfplay_summary(args.game, args.games, args.seed, args.players, smart)
    except KeyError as error:
        print(f"toadstool: {error.args[0]}", file=sys.stderr)
        return 2
    print(json.dumps(summary))
    return 0


def cmd_tracks() -> int:
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


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments and arguments[0] in PASSTHROUGH:
        import importlib

        module = importlib.import_module(PASSTHROUGH[arguments[0]][0])
        try:
            result: int = module.main(arguments[1:])
            return result
        except KeyboardInterrupt:
            return 130
    args = build_parser().parse_args(arguments)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(message)s")
    try:
        return _dispatch(args)
    except KeyboardInterrupt:
        print("\nbye", file=sys.stderr)
        return 130


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


def _dispatch(args: argparse.Namespace) -> int:
    command = args.command
    if command == "serve":
        from toadstool.server import ServerConfig, serve
        from toadstool.store import StoreError, default_db_path

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
    if command == "selfplay":
        return cmd_selfplay(args)
    if command == "tracks":
        return cmd_tracks()
    if command == "play":
        return asyncio.run(cmd_play(args))
    address = server_address(args.server or _discovered_server(args))
    bodies = {
        "games": cmd_games,
        "tables": cmd_tables,
        "join": lambda c: cmd_join(c, args),
        "watch": lambda c: play_at_table(c, args.table, None),
        "new": lambda c: cmd_new(c, args),
    }
    return asyncio.run(_with_client(address, bodies[command], args.tls_ca))


if __name__ == "__main__":
    raise SystemExit(main())
