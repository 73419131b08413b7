"""The contract's constants that the server and every client share, written once: the metadata keys that
carry tokens, the default port, HTTP/2 keepalive, the device's one action, and the mDNS service type and
TXT keys. With the generated code of proto/ beside it (`toadstool.api.v1`, written by scripts/gen-proto),
this is all of the server package that clients import.

Nothing here runs or imports anything of the server: clients can import it without loading the server.
"""

from __future__ import annotations

#: gRPC metadata keys: the seat token (Act, LeaveTable; Watch and GetHistory as that seat), the host token
#: (AddBot, StartTable, KickSeat, IssueDeviceToken) and a hardware button's device token (Act "roll").
SEAT_TOKEN_KEY = "x-seat-token"
HOST_TOKEN_KEY = "x-host-token"
DEVICE_TOKEN_KEY = "x-device-token"

#: The port `toadstool serve` listens on unless told otherwise.
DEFAULT_PORT = 50051

#: What a device token's Act names (a physical roll button): the roll, whatever the game calls it.
DEVICE_ACTION = "roll"

#: HTTP/2 keepalive, the same on both ends: a silent peer (a laptop whose lid closed) is dropped in ~20 s.
KEEPALIVE: tuple[tuple[str, int], ...] = (
    ("grpc.keepalive_time_ms", 10_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.http2.ping_timeout_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
)

#: The DNS-SD service type a server announces itself under on the LAN (`toadstool discover` browses it).
MDNS_SERVICE_TYPE = "_toadstool._tcp.local."
#: The TXT keys of that announcement: the server's version, its games (comma-separated registry keys),
#: whether it speaks TLS ("yes"/"no"), how many tables it has and how many seats are open.
TXT_VERSION, TXT_GAMES, TXT_TLS, TXT_TABLES, TXT_OPEN = "version", "games", "tls", "tables", "open"

__all__ = [
    "DEFAULT_PORT",
    "DEVICE_ACTION",
    "DEVICE_TOKEN_KEY",
    "HOST_TOKEN_KEY",
    "KEEPALIVE",
    "MDNS_SERVICE_TYPE",
    "SEAT_TOKEN_KEY",
    "TXT_GAMES",
    "TXT_OPEN",
    "TXT_TABLES",
    "TXT_TLS",
    "TXT_VERSION",
]
