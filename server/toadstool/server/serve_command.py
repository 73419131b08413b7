"""`toadstool serve`: its options and what it runs (the composition root, toadstool/cli.py, loads this module
only when `serve` is asked for). It imports only the server side, so a server-only install can run it.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Callable

from toadstool.i18n import ENGLISH, LANGUAGES, N_, Text, supported
from toadstool.server.app import ServerConfig, serve
from toadstool.server.limits import Limits
from toadstool.server.store import StoreError, default_db_path
from toadstool.server.tables.host_log import HOST_LOG
from toadstool.server.tables.hosting import DEFAULT_ABANDON_SECONDS
from toadstool.server.web import DEFAULT_WEB_PORT


def add_arguments(parser: argparse.ArgumentParser) -> None:

    defaults = Limits()
    parser.add_argument("--host", default="0.0.0.0", help=N_("address to bind (default 0.0.0.0: every interface)"))
    parser.add_argument("--port", type=int, default=50051, help=N_("port to listen on (default %(default)s)"))
    parser.add_argument(
        "--web-port",
        type=int,
        default=None,
        help=N_("port of the web client for browsers (default 8080; if taken and not given, any free port)"),
    )
    parser.add_argument("--no-web", action="store_true", help=N_("do not serve the web client over HTTP"))
    parser.add_argument(
        "--bot-delay", type=float, default=0.6, help=N_("seconds before each bot action (default %(default)s)")
    )
    parser.add_argument(
        "--bot-processes",
        type=int,
        default=None,
        metavar="N",
        help=N_(
            "processes the hard bots think in, beside the server's own (default: one per core but one; 0: "
            "they think in the server's process, which slows every other table while they do)"
        ),
    )
    parser.add_argument(
        "--max-tables", type=int, default=defaults.max_tables, help=N_("tables in total (default %(default)s)")
    )
    parser.add_argument(
        "--max-tables-per-client",
        type=int,
        default=defaults.max_tables_per_client,
        help=N_("tables one machine may have created at once (default %(default)s)"),
    )
    parser.add_argument(
        "--max-streams-per-client",
        type=int,
        default=defaults.max_streams_per_client,
        help=N_("streams (players and watchers) one machine may hold open (default %(default)s)"),
    )
    parser.add_argument(
        "--actions-per-second",
        type=float,
        default=defaults.actions_per_second,
        help=N_("actions per second per seat, with bursts of twice that (default %(default)s)"),
    )
    parser.add_argument(
        "--max-request-bytes",
        type=int,
        default=defaults.max_request_bytes,
        help=N_("largest request the server reads (default %(default)s)"),
    )
    parser.add_argument(
        "--min-bot-delay",
        type=float,
        default=0.05,
        help=N_("shortest bot delay a client may ask for, in seconds (default %(default)s)"),
    )
    parser.add_argument(
        "--db",
        help=N_("SQLite file that keeps every table across restarts (default: ~/.local/state/toadstool/toadstool.db)"),
    )
    parser.add_argument("--no-db", action="store_true", help=N_("keep tables in memory only: a restart loses them"))
    parser.add_argument(
        "--db-sync", choices=("normal", "full"), default="normal", help=N_("full: also survive a power cut (slower)")
    )
    parser.add_argument("--tls-cert", help=N_("PEM certificate: serve over TLS (make one with `toadstool cert`)"))
    parser.add_argument("--tls-key", help=N_("PEM private key of --tls-cert"))
    parser.add_argument("--no-announce", action="store_true", help=N_("do not announce this server on the LAN (mDNS)"))
    parser.add_argument(
        "--name", default="", help=N_("name `toadstool discover` shows (default: Toadstool on HOSTNAME)")
    )
    parser.add_argument(
        "--abandon-hours",
        type=float,
        default=DEFAULT_ABANDON_SECONDS / 3600,
        help=N_("end an unfinished table once every person has been gone this long (default %(default)s; 0: never)"),
    )
    parser.add_argument(
        "--quiet", action="store_true", help=N_("do not print a line when someone joins, leaves, drops or comes back")
    )
    parser.add_argument(
        "--lang",
        type=_language,
        default=ENGLISH,
        metavar="|".join(LANGUAGES),
        help=N_(
            "language of a caller that asks for none this server has texts in (its accept-language), and of "
            "these lines (default %(default)s)"
        ),
    )
    parser.add_argument(
        "--asyncio-loop",
        action="store_true",
        help=N_("run on asyncio's own event loop instead of uvloop's (uvloop is used wherever it is installed)"),
    )


def _language(value: str) -> str:
    try:
        return supported(value)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def loop_factory(asyncio_loop: bool = False) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop (libuv, in C), or None for asyncio's own: without it or when asked (`--asyncio-loop`).

    Why: the loop's own Python (the selector, its handles, its socket transports) was a fifth of the server's
    CPU per move (docs/benchmarks.md, issue #24); uvloop runs the same asyncio API in C, and grpc.aio's
    poller and uvicorn both run on it. Everything stays on one loop, so nothing else changes.
    """
    if asyncio_loop:
        return None
    try:
        import uvloop
    except ImportError:  # not installed (it has no Windows build): asyncio's loop does the same, slower
        return None
    return uvloop.new_event_loop


class _SaidIn(logging.Filter):
    """Says the texts of a host's line (`toadstool.i18n.Text`, English unless said otherwise) in `language`."""

    def __init__(self, language: str) -> None:
        super().__init__()
        self.language = language

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(a.said_in(self.language) if isinstance(a, Text) else a for a in record.args)
        return True


def show_host_lines(stream: object = None, language: str = ENGLISH) -> logging.Handler:
    """Print the host's lines (`toadstool.host`) on the terminal, one per event, with the time of day, in
    `language`; only there (not also through the root logger's handlers)."""
    handler = logging.StreamHandler(stream or sys.stdout)  # type: ignore[arg-type]
    handler.setFormatter(logging.Formatter("%(asctime)s  %(message)s", datefmt="%H:%M:%S"))
    handler.addFilter(_SaidIn(language))
    HOST_LOG.addHandler(handler)
    HOST_LOG.setLevel(logging.INFO)
    HOST_LOG.propagate = False
    return handler


def run(args: argparse.Namespace) -> int:

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
        web_port=None if args.no_web else (DEFAULT_WEB_PORT if args.web_port is None else args.web_port),
        web_port_strict=args.web_port is not None,
        abandon_seconds=max(0.0, args.abandon_hours) * 3600,
        language=args.lang,
        bot_processes=None if args.bot_processes is None else max(0, args.bot_processes),
    )
    if not args.quiet:
        show_host_lines(language=args.lang)
    try:
        with asyncio.Runner(loop_factory=loop_factory(args.asyncio_loop)) as runner:
            runner.run(serve(config))
    except StoreError as error:
        print(f"toadstool: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"toadstool: {error}", file=sys.stderr)
        return 2
    return 0
