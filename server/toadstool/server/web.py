"""The HTTP side of `toadstool serve`: one listener, in the server's own event loop, for the browser.

It routes the API's paths to the Connect adapter (toadstool.server.web_transport) and everything else to the
built web client (toadstool.server.web_assets), served by uvicorn on a socket bound here (so port 0 works and
the bound port is known before anyone is told the URL). `web_listener` is its lifetime; `url_banner` is what
the terminal prints so a phone can scan its way in. Not for deciding anything about tables: that is the
service's, reached through the adapter exactly as gRPC reaches it.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import uvicorn

from toadstool.api.scopes import TaskScope
from toadstool.i18n import ENGLISH, tr
from toadstool.server import web_accept, web_assets, web_http, web_qr, web_socket
from toadstool.server.service import ToadstoolService
from toadstool.server.web_transport import PREFIX, ConnectApp, Receive, Scope, Send

log = logging.getLogger(__name__)

#: The port the browser's side listens on unless told otherwise (`toadstool serve --web-port`).
DEFAULT_WEB_PORT = 8080
#: The most a request's line and headers may take (then it is answered 431, or 400 by h11): a browser's
#: are under 2 KiB, gRPC's metadata limit is 8 KiB.
MAX_HEADER_BYTES = 16 * 1024


class WebApp:
    """ASGI: the API under /toadstool.v1.ToadstoolService/, the web client's files everywhere else."""

    def __init__(self, service: ToadstoolService, assets_root: Path | None) -> None:
        self.api = ConnectApp(service)
        self.assets = web_assets.AssetsApp(web_assets.load(assets_root))
        self.qr = web_qr.QrApp()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            if scope["path"] == web_socket.SOCKET_PATH:
                await web_socket.serve_socket(self.api.procedures, scope, receive, send, self.api.service.language_of)
            else:  # closed before it is accepted: uvicorn answers 403
                await send({"type": "websocket.close", "code": web_socket.POLICY_VIOLATION})
            return
        if scope["type"] != "http":
            return  # no lifespan: uvicorn runs with lifespan="off" and answers it itself
        if scope["path"].startswith(PREFIX):
            await self.api(scope, receive, send)
        elif scope["path"] == web_qr.PATH:
            await self.qr(scope, receive, send)
        else:
            await self.assets(scope, receive, send)


@dataclass
class WebListener:
    """The bound HTTP listener: where a browser reaches it."""

    host: str
    port: int
    tls: bool
    #: The port asked for, when it was taken and the listener fell back to a free one.
    instead_of: int | None = None

    @property
    def scheme(self) -> str:
        return "https" if self.tls else "http"


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host.strip("[]"), port))
    sock.listen(512)
    sock.setblocking(False)
    return sock


@contextlib.asynccontextmanager
async def web_listener(
    service: ToadstoolService,
    host: str,
    port: int,
    *,
    grace: float,
    any_port_if_taken: bool = False,
    assets_root: Path | None = None,
    tls_cert: str | None = None,
    tls_key: str | None = None,
) -> AsyncIterator[WebListener]:
    """Serve the browser's HTTP side on `host:port` (0: a free port) while the block runs.

    With `any_port_if_taken`, a port already in use (another server on this machine) gives way to a free one,
    with a warning; the listener says which it got. Stop it only after the tables are shutting down: its open
    Watch streams then end with UNAVAILABLE (the service's own goodbye), and what still runs after `grace`
    seconds is cancelled.
    """
    config = uvicorn.Config(
        WebApp(service, assets_root if assets_root is not None else web_assets.default_root()),
        lifespan="off",
        access_log=False,  # the access log would be the one place a URL could leak; tokens are headers anyway
        log_level="warning",
        log_config=None,
        server_header=False,
        timeout_graceful_shutdown=max(1, round(grace)),
        # httptools with a cap on a request's head (uvicorn has none under httptools), or h11 with its own.
        http=web_http.protocol(MAX_HEADER_BYTES),
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
        # A seat's socket (web_socket.py): websockets' sans-I/O protocol under flow control, a frame at most
        # a request's size and its kind byte (a larger one closes the socket, 1009), uvicorn's pings every
        # 20 s, and no compression (zlib per frame and per socket would undo the views' shared bytes, and
        # compressing a hand beside names others choose invites a compression side channel).
        ws=web_socket.socket_protocol(),
        ws_max_size=service.guard.limits.max_request_bytes + 1,
        ws_per_message_deflate=False,
        # Nobody stands in front: a peer is its socket's address, never an X-Forwarded-For header (which
        # uvicorn would believe from 127.0.0.1, letting a local program pick the address limits count).
        proxy_headers=False,
        ssl_certfile=tls_cert,
        ssl_keyfile=tls_key,
    )
    config.load()
    server = uvicorn.Server(config)
    server.lifespan = config.lifespan_class(config)
    try:
        sock = _bind(host, port)
    except OSError as error:
        if not any_port_if_taken or port == 0:
            raise
        # Said where the URL is printed (serve), not logged before the server's first line.
        log.info("web port %d is taken (%s): the web client takes a free port instead", port, error)
        sock = _bind(host, 0)
    loop = asyncio.get_running_loop()
    # The web side's scope: each accepted connection's hand-over (web_accept); left after the port closes.
    async with TaskScope() as tasks:
        acceptor: web_accept.BatchAcceptor | None = None
        try:
            if web_accept.batch_accept_works(loop):  # connections accepted in batches (web_accept), not one a turn
                await server.startup(sockets=[])
                sock.listen(config.backlog)  # as uvicorn's own server does: room for a burst in the kernel's queue
                acceptor = web_accept.BatchAcceptor(sock, _protocol_factory(server), config.ssl, loop, tasks)
                acceptor.start()
            else:
                await server.startup(sockets=[sock])
            bound = sock.getsockname()[1]
            yield WebListener(
                host=host, port=bound, tls=bool(tls_cert), instead_of=port if port not in (0, bound) else None
            )
        finally:
            try:
                if acceptor is not None:
                    await acceptor.close()
            finally:
                if server.started:
                    await server.shutdown(sockets=[sock])
                sock.close()


def _protocol_factory(server: uvicorn.Server) -> Callable[[], asyncio.Protocol]:
    """What uvicorn's own server makes for each connection: its HTTP protocol, sharing the server's state
    (its open connections, which its shutdown closes) and the app's."""
    config = server.config

    def protocol() -> asyncio.Protocol:
        # Typed as asyncio.Protocol in uvicorn's Config, hence the ignore (uvicorn's own call has it too).
        made: asyncio.Protocol = config.http_protocol_class(
            config=config,  # type: ignore[call-arg]
            server_state=server.server_state,
            app_state=server.lifespan.state,
        )
        return made

    return protocol


def web_urls(listener: WebListener, addresses: list[str]) -> list[str]:
    """The URLs a browser on the LAN opens: one per address the server is reachable at."""
    hosts = addresses or [listener.host]
    return [f"{listener.scheme}://{f'[{h}]' if ':' in h else h}:{listener.port}/" for h in hosts]


def url_banner(url: str, language: str = ENGLISH) -> str:
    """The URL and a QR code of it, drawn with text for a terminal, so a phone's camera opens the page; then
    the TV screen's address (the browser client's #/tv: the server's newest game, large, for the room)."""
    import segno  # only when printing the banner: tests and embedded servers never need it

    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    play = tr("Play from a browser: {url}", url=url).said_in(language)
    tv = tr("On the TV (open in its browser): {url}#/tv", url=url).said_in(language)
    return f"{play}\n{out.getvalue()}{tv}"
