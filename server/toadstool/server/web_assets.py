"""The web client's built files, served as they are, under a strict Content-Security-Policy.

The browser client is built once (scripts/build-web) into clients/toadstool_clients/web/dist/, which ships in
the Python package, so a server needs no Node. The files are read at start-up into memory: a request can name
only a file that was there (no path ever reaches the file system), and every answer carries the policy that
lets the page run only its own script and talk only to this server. Not for the API (web_transport).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
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


def load(root: Path | None) -> dict[str, tuple[bytes, str]]:
    """Every servable file under `root` by URL path, with its content type ("/" is index.html)."""
    files: dict[str, tuple[bytes, str]] = {}
    if root is None or not root.is_dir():
        return files
    for path in sorted(root.rglob("*")):
        content_type = CONTENT_TYPES.get(path.suffix)
        if path.is_file() and content_type is not None:
            files["/" + path.relative_to(root).as_posix()] = (path.read_bytes(), content_type)
    if "/index.html" in files:
        files["/"] = files["/index.html"]
    return files


class AssetsApp:
    """ASGI: GET or HEAD of a built file; anything else is 404 or 405."""

    def __init__(self, files: Mapping[str, tuple[bytes, str]]) -> None:
        self.files = dict(files)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        method = scope["method"]
        found = self.files.get(scope["path"])
        if method not in ("GET", "HEAD"):
            status, body, content_type = 405, b"method not allowed", "text/plain; charset=utf-8"
        elif found is not None:
            status, (body, content_type) = 200, found
        elif scope["path"] == "/" and not self.files:
            status, body, content_type = 503, NOT_BUILT, "text/html; charset=utf-8"
        else:
            status, body, content_type = 404, b"not found", "text/plain; charset=utf-8"
        headers: list[Any] = [
            (b"content-type", content_type.encode()),
            (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"no-cache"),
            *SECURITY_HEADERS,
        ]
        if method not in ("GET", "HEAD"):
            headers.append((b"allow", b"GET, HEAD"))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if method == "HEAD" else body})
