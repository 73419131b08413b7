"""The browser's HTTP/1.1 protocol: uvicorn's httptools one, with a cap on the size of a request's head.

httptools (llhttp, in C) parses a request in a tenth of h11's time: with h11, uvicorn and its parser took a
quarter of the server's CPU per move over Connect (docs/benchmarks.md, issue #24). But uvicorn puts no limit
on a request's line and headers under httptools (a 50 MB header was read whole in a trial), while h11 has one.
`GuardedHttpTools` adds it: a request whose line and headers (or a chunked body's trailers) are over
`max_head` bytes is answered 431 and its connection closed, and one whose head or trailer is still coming
is cut off one socket read past the limit.
Without httptools (a platform with no wheel for it), `protocol` falls back to h11 and its own limit.
Not for routing or answering calls: that is toadstool.server.web and toadstool.server.web_transport.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

log = logging.getLogger(__name__)

#: The answer to a head over the limit (RFC 6585): said once, then the connection is closed.
TOO_LARGE = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
    b"content-type: text/plain; charset=utf-8\r\n"
    b"content-length: 44\r\n"
    b"connection: close\r\n"
    b"\r\n"
    b"The request's line and headers are too long."  # (its trailers count as headers)
)


def protocol(max_head: int) -> type[asyncio.Protocol] | str:
    """What uvicorn's `http` setting should be: the guarded httptools protocol, or "h11" without httptools."""
    try:
        import httptools  # noqa: F401  (uvicorn's protocol below parses with it)
    except ImportError:
        return "h11"
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class GuardedHttpTools(HttpToolsProtocol):  # type: ignore[misc]
        """uvicorn's httptools protocol, refusing a request whose head (or trailers) is over `max_head` bytes.

        Two counts, because httptools reports a header (or a trailer) only once it is whole. The parsed
        count: the request's line, headers and trailers as parsed, however the bytes were split into reads.
        The read count: for a request under way, the bytes of each read that are not its body (a head or a
        trailer still coming, chunk framing), so one endless header or trailer is cut off one read past the
        limit. A read in which a request began is left out of the read count: its bytes may belong to the
        requests before it (pipelined), and the parsed count already bounds what is kept of it.
        """

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.in_request = False  # between a request's first byte and its end
            self.began_in_read = False
            self.body_in_read = 0
            self.head_bytes = 0  # parsed: the line, headers and trailers of the request under way
            self.other_bytes = 0  # read: what was not body in the reads of the request under way

        def _count(self, size: int) -> None:
            self.head_bytes += size
            if self.head_bytes > max_head:
                raise ValueError("head over the limit")  # httptools stops; uvicorn calls send_400_response

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self.in_request = self.began_in_read = True
            self.head_bytes = self.other_bytes = 0

        def on_url(self, url: bytes) -> None:
            self._count(len(url))
            super().on_url(url)

        def on_header(self, name: bytes, value: bytes) -> None:  # headers, and trailers after a chunked body
            self._count(len(name) + len(value) + 4)  # ": " and the line's end
            super().on_header(name, value)

        def on_body(self, body: bytes) -> None:
            self.body_in_read += len(body)
            super().on_body(body)

        def on_message_complete(self) -> None:
            self.in_request = False
            super().on_message_complete()

        def data_received(self, data: bytes) -> None:
            self.began_in_read, self.body_in_read = False, 0
            super().data_received(data)
            if not self.in_request or self.began_in_read or self.transport.is_closing():
                return
            self.other_bytes += len(data) - self.body_in_read
            if self.other_bytes > max_head:
                self._refuse()

        def send_400_response(self, msg: str) -> None:
            if self.head_bytes > max_head:  # the parse stopped at the cap (`_count`)
                self._refuse()
            else:
                super().send_400_response(msg)

        def _refuse(self) -> None:
            log.warning("refused a request whose line and headers are over %d bytes", max_head)
            self.transport.write(TOO_LARGE)
            self.transport.close()

    return GuardedHttpTools
