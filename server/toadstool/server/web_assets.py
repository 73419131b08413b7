"""The web client's built files, served compressed and revalidated, under a strict Content-Security-Policy.

The browser client is built once (scripts/build-web) into clients/toadstool_clients/web/dist/, which ships in
the Python package, so a server needs no Node. The files are read at start-up into memory: a request can name
only a file that was there (no path ever reaches the file system), and every answer carries the policy that
lets the page run only its own script and talk only to this server. On a weak Wi-Fi every byte counts: each
file is gzipped once at start-up (sent to browsers that accept it, about a third of its size) and carries an
ETag, so a browser that has it asks "still this?" and is answered 304 with no body. Not for the API
(web_transport).
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toadstool.server.web_transport import Receive, Scope, Send

#: The page may load only its own files and call only this server; nothing may frame it, no inline script.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
)
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
    ".ico": "image/x-icon",
    ".txt": "text/plain; charset=utf-8",
}
NOT_BUILT = (
    b"<!doctype html><title>Toadstool</title><p>The web client is not built into this installation: "
    b"run scripts/build-web in a source checkout.</p>"
)


def default_root() -> Path | None:
    """Where the installed client package keeps the built web client, found without importing the client
    package (the server never imports a client: tests/test_layout.py)."""
    spec = importlib.util.find_spec("toadstool_clients")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "web" / "dist"


#: Smaller files go as they are: gzip's header and a round of inflating would cost more than they save.
COMPRESS_FROM = 512


@dataclass(frozen=True)
class Asset:
    """One built file: its bytes, their gzip (None when not worth it), its content type and ETag."""

    body: bytes
    content_type: str
    gzipped: bytes | None = None

    @property
    def etag(self) -> bytes:
        return b'"' + hashlib.sha256(self.body).hexdigest()[:32].encode() + b'"'


def asset(body: bytes, content_type: str) -> Asset:
    """A file as served: gzipped once here (mtime 0, so the same file always gives the same bytes)."""
    packed = gzip.compress(body, compresslevel=9, mtime=0) if len(body) >= COMPRESS_FROM else None
    return Asset(body, content_type, packed if packed is not None and len(packed) < len(body) else None)


def load(root: Path | None) -> dict[str, Asset]:
    """Every servable file under `root` by URL path, with its content type ("/" is index.html)."""
    files: dict[str, Asset] = {}
    if root is None or not root.is_dir():
        return files
    for path in sorted(root.rglob("*")):
        content_type = CONTENT_TYPES.get(path.suffix)
        if path.is_file() and content_type is not None:
            files["/" + path.relative_to(root).as_posix()] = asset(path.read_bytes(), content_type)
    if "/index.html" in files:
        files["/"] = files["/index.html"]
    return files


def _header(scope: Scope, name: bytes) -> bytes:
    return b",".join(value for key, value in scope.get("headers", ()) if key.lower() == name)


def _accepts_gzip(scope: Scope) -> bool:
    for part in _header(scope, b"accept-encoding").split(b","):
        coding, _, params = part.strip().partition(b";")
        if coding.strip().lower() in (b"gzip", b"*"):
            return params.replace(b" ", b"").lower() not in (b"q=0", b"q=0.0", b"q=0.00", b"q=0.000")
    return False


class AssetsApp:
    """ASGI: GET or HEAD of a built file (gzipped when the browser accepts it, 304 when its ETag is still
    the browser's); anything else is 404 or 405."""

    def __init__(self, files: Mapping[str, Asset]) -> None:
        self.files = dict(files)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        method = scope["method"]
        found = self.files.get(scope["path"])
        extra: list[Any] = []
        if method not in ("GET", "HEAD"):
            status, body, content_type = 405, b"method not allowed", "text/plain; charset=utf-8"
            extra.append((b"allow", b"GET, HEAD"))
        elif found is not None:
            status, body, content_type = 200, found.body, found.content_type
            extra.append((b"etag", found.etag))
            if found.gzipped is not None:
                extra.append((b"vary", b"Accept-Encoding"))
                if _accepts_gzip(scope):
                    body = found.gzipped
                    extra.append((b"content-encoding", b"gzip"))
            if found.etag in [tag.strip() for tag in _header(scope, b"if-none-match").split(b",")]:
                status, body = 304, b""
        elif scope["path"] == "/" and not self.files:
            status, body, content_type = 503, NOT_BUILT, "text/html; charset=utf-8"
        else:
            status, body, content_type = 404, b"not found", "text/plain; charset=utf-8"
        headers: list[Any] = [
            (b"content-type", content_type.encode()),
            (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"no-cache"),
            *SECURITY_HEADERS,
            *extra,
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if method == "HEAD" else body})
