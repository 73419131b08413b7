"""QR codes of this server's own pages, drawn as SVG, so a phone's camera opens a table from the TV.

The browser client shows them on the TV screen and on the host's waiting screen as an image from this
server (`/qr.svg?page=#/t/ID`), drawn by segno, the library `toadstool serve` already prints its QR code
with; so the page's script carries no QR encoder. Only a page of this client can be asked for (its URL
fragment, checked against the client's routes): the image can never be made to point anywhere else.
"""

from __future__ import annotations

import functools
import re
from typing import Any
from urllib.parse import parse_qs

from toadstool.server.web_assets import SECURITY_HEADERS
from toadstool.server.web_transport import Receive, Scope, Send

PATH = "/qr.svg"
#: The client's pages a QR code may open: the lobby, or a table (to sit or watch).
PAGES = re.compile(r"#/(?:t/[A-Za-z0-9_-]{1,64}(?:/watch)?)?")
HOST = re.compile(r"^[A-Za-z0-9.\-]{1,253}(:\d{1,5})?$|^\[[0-9A-Fa-f:.]{2,45}\](:\d{1,5})?$")


@functools.lru_cache(maxsize=256)
def qr_svg(url: str) -> bytes:
    """The QR code of `url` as a small SVG (dark modules on white, a quiet zone of 2), scaled by the page."""
    import io

    import segno

    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", border=2, xmldecl=False, svgns=True, nl=False, omitsize=True)
    return out.getvalue()


def page_url(scope: Scope, page: str) -> str | None:
    """The address a phone opens for `page` of this server, or None when it is not one of the client's pages
    or the request's Host is not a plain host name."""
    if not PAGES.fullmatch(page):
        return None
    host = b"".join(value for key, value in scope.get("headers", ()) if key.lower() == b"host").decode("latin-1")
    if not HOST.fullmatch(host):
        return None
    scheme = "https" if scope.get("scheme") == "https" else "http"
    return f"{scheme}://{host}/{page}"


class QrApp:
    """ASGI: GET or HEAD of /qr.svg?page=FRAGMENT; 400 for any other page."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        url = page_url(scope, (query.get("page") or [""])[0])
        if scope["method"] not in ("GET", "HEAD"):
            status, body, content_type = 405, b"method not allowed", b"text/plain; charset=utf-8"
        elif url is None:
            status, body, content_type = 400, b"not a page of this client", b"text/plain; charset=utf-8"
        else:
            status, body, content_type = 200, qr_svg(url), b"image/svg+xml"
        headers: list[Any] = [
            (b"content-type", content_type),
            (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"max-age=3600"),
            *SECURITY_HEADERS,
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})
