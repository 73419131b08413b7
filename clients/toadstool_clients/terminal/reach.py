"""Whether a server is there at all, asked before the terminal client's first call: a refused connection
is said at once, with the address and how to start a server, instead of after gRPC's wait.

gRPC keeps retrying a refused address until the call's deadline (ten seconds and more), then reports only
that the server "did not answer in time". A plain TCP connect is refused at once when nothing listens, so
`toadstool join`, `watch` and `play --server` try one first. Anything but a refusal (a slow network, a
host that does not answer) is left to gRPC, which waits and explains as before.
"""

from __future__ import annotations

import asyncio
import contextlib

#: How long the TCP connect may take before the question is left to gRPC.
PROBE_SECONDS = 3.0


def _host_port(address: str) -> tuple[str, int] | None:
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        return None
    return host.strip("[]"), int(port)


async def nobody_listening(address: str, seconds: float = PROBE_SECONDS) -> str | None:
    """A sentence for a person when nothing accepts connections at `address` (HOST:PORT), else None."""
    parts = _host_port(address)
    if parts is None:
        return None
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(*parts), seconds)
    except ConnectionRefusedError:
        return (
            f"no Toadstool server is running at {address} (the connection was refused). "
            "Start one with `toadstool serve` (or check the address), then try again."
        )
    except (OSError, TimeoutError):  # an unknown host, no route, a slow network: gRPC says more
        return None
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return None
