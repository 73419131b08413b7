"""Running the gRPC server: the listening socket, reflection, health, limits and graceful shutdown.

`serve` is `toadstool serve`; `running_server` is the same server embedded in another program (the
`toadstool play` command and the tests), bound to loopback on a free port. Beside the gRPC listener it starts
the browser's HTTP side (toadstool.server.web) onto the same service, unless the config turns it off.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import signal
import socket
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from toadstool.api import DEFAULT_PORT, KEEPALIVE
from toadstool.api.v1 import service_pb2, service_pb2_grpc
from toadstool.i18n import ENGLISH, tr
from toadstool.server.hardening import RefuseUndecodable, quiet_client_garbage
from toadstool.server.limits import Limits
from toadstool.server.listener import Listener
from toadstool.server.memory_store import MemoryStore
from toadstool.server.records import TableStore
from toadstool.server.reflection import enable_reflection
from toadstool.server.repair import open_store
from toadstool.server.service import SerialisedWatch, ToadstoolService
from toadstool.server.tables import TableRegistry
from toadstool.server.tables.hosting import DEFAULT_ABANDON_SECONDS
from toadstool.server.tables.thinking import default_processes
from toadstool.server.web import DEFAULT_WEB_PORT, WebListener, web_listener, web_urls

log = logging.getLogger(__name__)

SERVICE_NAME = service_pb2.DESCRIPTOR.services_by_name["ToadstoolService"].full_name


#: The garbage collector's thresholds while serving: a collection after this many new container objects, and
#: of the older generations after this many collections of the younger. Python's defaults (700, 10, 10) suit
#: short programs; a server playing hundreds of tables allocates a container per few microseconds (states,
#: views, futures) while its heap of table histories keeps growing, and the defaults had it rescanning that
#: heap for up to a tenth of its time (bench/load.py, bots at 250 tables: 7-10 % more views/s with these).
#: A young collection stops the server while it examines what is still alive of the containers made since the
#: last one (mostly work in flight: each stream's wait, each connection's last request), at 0.6 to 0.9 us an
#: object. At 50,000 that was 33-55 ms, four times in 12 s at 250 tables, and the largest part of the paced
#: p99 (docs/benchmarks.md, rounds 3 and 4). At 10,000 the pauses are shorter and more frequent; the middle
#: generation, collected after 100 of them instead of 20, is still collected once per million allocations.
GC_THRESHOLDS = (10_000, 100, 20)


@dataclass(frozen=True)
class ServerConfig:
    host: str = "0.0.0.0"
    port: int = DEFAULT_PORT
    bot_delay: float = 0.6
    limits: Limits = field(default_factory=Limits)
    grace: float = 3.0
    #: The SQLite file that keeps tables durable; None keeps them in memory only (`toadstool play`).
    db: str | None = None
    #: "normal" survives a killed process; "full" also a power cut (an fsync per action).
    db_sync: str = "normal"
    #: PEM files; with both set the server speaks TLS only (plaintext clients are refused).
    tls_cert: str | None = None
    tls_key: str | None = None
    #: Announce the server on the LAN with mDNS/DNS-SD (`toadstool discover`); off with --no-announce.
    announce: bool = True
    #: The name `toadstool discover` shows; empty: "Toadstool on HOSTNAME".
    name: str = ""
    #: The port of the browser's HTTP side (the web client and the Connect API); None turns it off (--no-web).
    web_port: int | None = DEFAULT_WEB_PORT
    #: Whether `web_port` must be exactly that port. When it was not asked for (the default), a port already
    #: taken (another server on this machine) falls back to any free one, and the printed URL says which.
    web_port_strict: bool = False
    #: The built web client's folder; None: the one installed with the client package.
    web_assets: Path | None = None
    #: Seconds an unfinished table waits once every person has gone before it is ended as abandoned (0: never).
    abandon_seconds: float = DEFAULT_ABANDON_SECONDS
    #: The language of a caller that asks for none this server has (`--lang`), and of `serve`'s own lines.
    language: str = ENGLISH
    #: The wall clock (Unix seconds) a table's finish time is told by: the listing leaves out tables finished
    #: a day ago or more (tests give a clock they move by hand).
    wall_clock: Callable[[], float] = time.time
    #: Worker processes the hard bots think in (toadstool.server.tables.thinking); None: one per core but one;
    #: 0: none, they think in threads of the server's process (which slows the event loop while they do).
    bot_processes: int | None = None


@dataclass
class RunningServer:
    """A started server: its bound address, its listener and its tables."""

    listener: Listener
    registry: TableRegistry
    host: str
    port: int
    #: The browser's HTTP side, or None when the config turned it off.
    web: WebListener | None = None

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def web_address(self) -> str:
        """host:port of the HTTP side ("" when it is off)."""
        return f"{self.host}:{self.web.port}" if self.web is not None else ""


def server_credentials(config: ServerConfig) -> grpc.ServerCredentials | None:
    """TLS credentials from the configured PEM files (read once, at start-up), or None for plaintext."""
    if config.tls_cert and config.tls_key:
        key, cert = Path(config.tls_key).read_bytes(), Path(config.tls_cert).read_bytes()
        return grpc.ssl_server_credentials([(key, cert)])
    if config.tls_cert or config.tls_key:
        raise ValueError("TLS needs both a certificate (--tls-cert) and its key (--tls-key)")
    return None


def _grpc_server(config: ServerConfig, service: ToadstoolService, health_servicer: Any) -> grpc.aio.Server:
    server = grpc.aio.server(
        # SerialisedWatch innermost: RefuseUndecodable keeps the serialiser of the handler it wraps.
        interceptors=[RefuseUndecodable(service.language_of), SerialisedWatch()],
        options=[
            ("grpc.max_receive_message_length", config.limits.max_request_bytes),
            # No SO_REUSEPORT: a second program on this port is refused instead of getting half the clients.
            ("grpc.so_reuseport", 0),
            # A reconnect storm after a restart: thousands of streams re-open at once. gRPC's defaults
            # (1,000 pending, hard limit 3,000) would refuse many of them.
            ("grpc.server.max_pending_requests", 100_000),
            ("grpc.server.max_pending_requests_hard_limit", 200_000),
            # Notice a laptop whose lid closed (no FIN ever arrives): ping idle connections, drop the dead
            # ones, so the seat shows disconnected and takeover can start.
            *KEEPALIVE,
            ("grpc.http2.min_recv_ping_interval_without_data_ms", 5_000),
            ("grpc.http2.max_ping_strikes", 0),
            # Requests are a few hundred bytes: the default receive window (64 KiB a stream) is ample, so
            # gRPC need not probe each connection's bandwidth with pings to grow it (the pings were about 4 %
            # of the server's sendmsg and recvmsg calls under people acting: bench/ab_server.py, strace).
            ("grpc.http2.bdp_probe", 0),
        ],
    )
    service_pb2_grpc.add_ToadstoolServiceServicer_to_server(service, server)
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    enable_reflection((SERVICE_NAME, health.SERVICE_NAME), server)
    return server


@contextlib.asynccontextmanager
async def running_server(config: ServerConfig) -> AsyncIterator[RunningServer]:
    """Start the server, yield it, and stop it gracefully.

    Tables come back from the store before the port opens, so no client ever sees a half-loaded server.
    """
    quiet_client_garbage()
    # Without a file (`serve --no-db`) the log is kept in memory: the same tables code, nothing on disk.
    store: TableStore = open_store(config.db, config.db_sync)[0] if config.db else MemoryStore()
    try:
        registry = TableRegistry(
            bot_delay=config.bot_delay,
            max_tables=config.limits.max_tables,
            store=store,
            abandon_seconds=config.abandon_seconds,
            wall_clock=config.wall_clock,
            bot_processes=default_processes() if config.bot_processes is None else config.bot_processes,
        )
        async with registry:
            service = ToadstoolService(registry, config.limits, config.language)
            health_servicer = health.aio.HealthServicer()
            listener = Listener(
                lambda: _grpc_server(config, service, health_servicer), config.host, server_credentials(config)
            )
            port = await listener.start(config.port)
            try:
                async with _web_side(config, service) as web:
                    try:
                        await health_servicer.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
                        await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
                        yield RunningServer(listener=listener, registry=registry, host=config.host, port=port, web=web)
                    finally:
                        # Stop taking new calls, tell watchers (on both sides), then let in-flight calls finish.
                        await health_servicer.enter_graceful_shutdown()
                        registry.shutting_down()
            finally:
                registry.shutting_down()  # again, for when the web side failed to start (it is idempotent)
                await listener.stop(config.grace)
    finally:
        store.close()


@contextlib.asynccontextmanager
async def _web_side(config: ServerConfig, service: ToadstoolService) -> AsyncIterator[WebListener | None]:
    """The browser's HTTP side on the config's web port, or nothing when it is off."""
    if config.web_port is None:
        yield None
        return
    async with web_listener(
        service,
        config.host,
        config.web_port,
        grace=config.grace,
        any_port_if_taken=not config.web_port_strict,
        assets_root=config.web_assets,
        tls_cert=config.tls_cert,
        tls_key=config.tls_key,
    ) as web:
        yield web


@contextlib.asynccontextmanager
async def announced(config: ServerConfig, running: RunningServer) -> AsyncIterator[None]:
    """Announce a running server on the LAN (mDNS/DNS-SD) while the block runs, if the config asks to."""
    async with contextlib.AsyncExitStack() as stack:
        if config.announce:
            from toadstool.server.discovery import announce, registry_info

            name = config.name or f"Toadstool on {socket.gethostname()}"
            info = registry_info(running.registry, tls=bool(config.tls_cert))
            await stack.enter_async_context(announce(config.host, running.port, name, info))
        yield


def join_lines(running: RunningServer, addresses: list[str], table_id: str = "", language: str = ENGLISH) -> list[str]:
    """How friends on the LAN reach this server (or one of its tables): the exact commands, one per address
    it is reachable at, and the browser's page, said in `language`."""
    hosts = [f"[{a}]" if ":" in a else a for a in addresses] or [running.host]
    what = f"join {table_id}" if table_id else "tables"
    commands = [f"toadstool {what} --server {host}:{running.port}" for host in hosts]
    lines = [tr("Friends join with: {command}", command=command).said_in(language) for command in commands]
    if running.web is not None:
        page = f"#/t/{table_id}" if table_id else ""
        pages = [url + page for url in web_urls(running.web, addresses)]
        lines += [tr("or in a browser: {url}", url=url).said_in(language) for url in pages]
    return lines


async def serve(config: ServerConfig) -> None:
    """Run until SIGINT or SIGTERM, then shut down gracefully."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    gc.set_threshold(*GC_THRESHOLDS)
    async with running_server(config) as running, announced(config, running):
        log.info("Toadstool serving on %s", running.address)
        language = config.language
        if config.tls_cert:
            listening = tr("Toadstool server listening on {address} (TLS; Ctrl+C to stop)", address=running.address)
        else:
            listening = tr(
                "Toadstool server listening on {address} (plaintext; Ctrl+C to stop)", address=running.address
            )
        print(listening.said_in(language), flush=True)
        from toadstool.server.discovery import announced_addresses

        addresses = announced_addresses(config.host)
        for line in join_lines(running, addresses, language=language):
            print(line, flush=True)
        if running.web is not None:
            from toadstool.server.web import url_banner

            urls = web_urls(running.web, addresses)
            if running.web.instead_of:
                web_line = tr(
                    "Web client listening on {address} (port {port} was taken)",
                    address=running.web_address,
                    port=running.web.instead_of,
                )
            else:
                web_line = tr("Web client listening on {address}", address=running.web_address)
            print(web_line.said_in(language), flush=True)
            print(url_banner(urls[0], language), flush=True)
        await stop.wait()
        print(tr("Shutting down…").said_in(language), flush=True)
