"""Finding Toadstool servers on the LAN (mDNS/DNS-SD), and the `toadstool discover` command.

`browse` listens for `_toadstool._tcp.local.` services for a few seconds and returns what it heard;
`follow` reports servers as they appear and go; `offer` lets a person pick one in a terminal. What a
server announces is an untrusted hint from the network: names and TXT values are cleaned of control
characters and bounded in size here, and a client still only trusts what the gRPC server itself says.
This module announces nothing (the server does that: `toadstool.discovery`) and speaks no gRPC.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import re
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import asdict, dataclass, field

from zeroconf import InterfaceChoice, IPVersion, ServiceStateChange, Zeroconf
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from toadstool.api import MDNS_SERVICE_TYPE, TXT_GAMES, TXT_OPEN, TXT_TABLES, TXT_TLS, TXT_VERSION

SERVICE_TYPE = MDNS_SERVICE_TYPE
#: How long a browse listens by default: mDNS answers arrive within a second or two on a quiet LAN.
DEFAULT_SECONDS = 3.0
_MAX_TEXT = 120
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069]")


def clean_text(value: str | bytes | None, limit: int = _MAX_TEXT) -> str:
    """Untrusted network text made safe to print: decoded, control/bidi characters removed, bounded."""
    if value is None:
        return ""
    text = value.decode(errors="replace") if isinstance(value, bytes) else value
    return _CONTROL.sub("", text)[:limit]


def _count(value: str) -> int | None:
    return int(value) if value.isdigit() and len(value) < 10 else None


@dataclass(frozen=True)
class Found:
    """One server heard on the LAN, as it described itself."""

    name: str
    addresses: tuple[str, ...]
    port: int
    version: str = ""
    games: tuple[str, ...] = ()
    tls: bool = False
    tables: int | None = None
    open_tables: int | None = None
    #: The service's full DNS-SD name; what identifies it when it goes away.
    service: str = field(default="", compare=False)

    @property
    def address(self) -> str:
        """HOST:PORT to connect to, preferring an IPv4 address (IPv6 in brackets)."""
        ordered = sorted(self.addresses, key=lambda a: ":" in a)
        host = ordered[0] if ordered else "127.0.0.1"
        return f"[{host}]:{self.port}" if ":" in host else f"{host}:{self.port}"

    def describe(self) -> str:
        """One line for a person: name, address, games, tables, TLS."""
        games = ", ".join(self.games) or "?"
        tables = "?" if self.tables is None else str(self.tables)
        open_tables = "?" if self.open_tables is None else str(self.open_tables)
        lock = " (TLS)" if self.tls else ""
        return f"{self.name} at {self.address}{lock}: games {games}; {tables} tables, {open_tables} open"


def found_from_info(info: AsyncServiceInfo) -> Found | None:
    """A `Found` from a resolved service, or None if it is incomplete or malformed."""
    if not info.port or not 0 < info.port < 65536:
        return None
    addresses: list[str] = []
    for raw in info.parsed_scoped_addresses():
        try:
            address = ipaddress.ip_address(raw.split("%", 1)[0])
        except ValueError:
            continue
        if not (address.is_multicast or address.is_unspecified) and str(address) not in addresses:
            addresses.append(str(address) if "%" not in raw else raw)
    if not addresses:
        return None
    properties = {clean_text(key, 32): clean_text(value, 300) for key, value in (info.properties or {}).items() if key}
    games = tuple(g for g in (clean_text(g.strip(), 32) for g in properties.get(TXT_GAMES, "").split(",")) if g)[:16]
    name = info.name.removesuffix("." + SERVICE_TYPE)
    return Found(
        name=clean_text(name, 63) or "?",
        addresses=tuple(addresses),
        port=int(info.port),
        version=clean_text(properties.get(TXT_VERSION, ""), 32),
        games=games,
        tls=properties.get(TXT_TLS, "").lower() in {"yes", "true", "1"},
        tables=_count(properties.get(TXT_TABLES, "")),
        open_tables=_count(properties.get(TXT_OPEN, "")),
        service=info.name,
    )


def _interfaces(interfaces: Sequence[str] | None) -> InterfaceChoice | list[str]:
    return list(interfaces) if interfaces else InterfaceChoice.All


def _listening(interfaces: Sequence[str] | None) -> AsyncZeroconf:
    """A zeroconf listener on IPv4 and IPv6, or on IPv4 alone where the machine has no IPv6 (its sockets are
    refused: a kernel without IPv6), so that discovery works there too instead of failing."""
    try:
        return AsyncZeroconf(interfaces=_interfaces(interfaces), ip_version=IPVersion.All)
    except OSError:
        return AsyncZeroconf(interfaces=_interfaces(interfaces), ip_version=IPVersion.V4Only)


@dataclass(frozen=True)
class Change:
    """A server that appeared (or changed its description) or went away."""

    kind: str  # "added", "updated" or "removed"
    found: Found


async def follow(
    seconds: float | None = None, interfaces: Sequence[str] | None = None, resolve_timeout: float = 3.0
) -> AsyncIterator[Change]:
    """Servers as they appear, change and go, for `seconds` (forever if None).

    `interfaces` restricts listening to the given local addresses (e.g. ["127.0.0.1"] for tests); by
    default every interface listens. A server that leaves sends an mDNS goodbye, reported as "removed".
    """
    queue: asyncio.Queue[tuple[str, ServiceStateChange]] = asyncio.Queue(maxsize=1000)

    def on_change(zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange) -> None:
        if not queue.full():
            queue.put_nowait((name, state_change))

    loop = asyncio.get_running_loop()
    deadline = None if seconds is None else loop.time() + seconds
    known: dict[str, Found] = {}
    async with _listening(interfaces) as aiozc:
        browser = AsyncServiceBrowser(aiozc.zeroconf, SERVICE_TYPE, handlers=[on_change])
        try:
            while True:
                remaining = None if deadline is None else deadline - loop.time()
                if remaining is not None and remaining <= 0:
                    return
                try:
                    name, state = await asyncio.wait_for(queue.get(), remaining)
                except TimeoutError:
                    return
                if state is ServiceStateChange.Removed:
                    gone = known.pop(name, None)
                    if gone is not None:
                        yield Change("removed", gone)
                    continue
                info = AsyncServiceInfo(SERVICE_TYPE, name)
                if not await info.async_request(aiozc.zeroconf, int(resolve_timeout * 1000)):
                    continue
                found = found_from_info(info)
                if found is None or known.get(name) == found:
                    continue
                kind = "updated" if name in known else "added"
                known[name] = found
                yield Change(kind, found)
        finally:
            await browser.async_cancel()


async def browse_async(seconds: float = DEFAULT_SECONDS, interfaces: Sequence[str] | None = None) -> list[Found]:
    """The servers heard within `seconds` and still there at the end, sorted by name."""
    servers: dict[str, Found] = {}
    async for change in follow(seconds, interfaces):
        if change.kind == "removed":
            servers.pop(change.found.service, None)
        else:
            servers[change.found.service] = change.found
    return sorted(servers.values(), key=lambda f: (f.name.lower(), f.address))


def browse(seconds: float = DEFAULT_SECONDS, interfaces: Sequence[str] | None = None) -> list[Found]:
    """`browse_async` for code without a running event loop (a Tk callback's worker thread, a script)."""
    return asyncio.run(browse_async(seconds, interfaces))


def _say(text: str) -> None:
    print(text, file=sys.stderr)


def _ask(prompt: str) -> str:
    print(prompt, end="", file=sys.stderr, flush=True)
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line


def offer(
    servers: Sequence[Found], ask: Callable[[str], str] = _ask, say: Callable[[str], object] = _say
) -> Found | None:
    """Let a person pick one of the servers heard (Enter picks the first); None if there are none or on
    quit. Used by the terminal client when no address is given. The menu goes to stderr so that a
    command's own output (`toadstool tables`) stays clean on stdout."""
    if not servers:
        return None
    say("Toadstool servers on this network:")
    for number, found in enumerate(servers, 1):
        say(f"  {number}. {found.describe()}")
    while True:
        try:
            answer = ask(f"Server [1-{len(servers)}, Enter for 1, q to quit]: ").strip().lower()
        except EOFError:
            return None
        if answer in {"q", "quit"}:
            return None
        if not answer:
            return servers[0]
        if answer.isdigit() and 1 <= int(answer) <= len(servers):
            return servers[int(answer) - 1]
        say(f"Type a number from 1 to {len(servers)}.")


def _json_line(change_kind: str | None, found: Found) -> str:
    data = asdict(found)
    data["address"] = found.address
    if change_kind:
        data = {"change": change_kind, **data}
    return json.dumps(data)


async def _run(args: argparse.Namespace) -> int:
    interfaces = args.interface or None
    if args.watch:
        async for change in follow(args.seconds, interfaces):
            if args.json:
                print(_json_line(change.kind, change.found), flush=True)
            else:
                sign = {"added": "+", "updated": "~", "removed": "-"}[change.kind]
                print(f"{sign} {change.found.describe()}", flush=True)
        return 0
    servers = await browse_async(args.seconds or DEFAULT_SECONDS, interfaces)
    if args.json:
        for found in servers:
            print(_json_line(None, found))
        return 0
    if not servers:
        print(f"No Toadstool servers heard in {args.seconds or DEFAULT_SECONDS:g} s.", file=sys.stderr)
        print("(Is the server running with announcing on, and on this network segment?)", file=sys.stderr)
        return 1
    rows = [
        (
            f.name,
            f.address,
            ",".join(f.games) or "?",
            "?" if f.tables is None else str(f.tables),
            "?" if f.open_tables is None else str(f.open_tables),
            "yes" if f.tls else "no",
        )
        for f in servers
    ]
    header = ("NAME", "ADDRESS", "GAMES", "TABLES", "OPEN", "TLS")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
    return 0


def _positive_seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, not {text!r}") from None
    if not seconds > 0:
        raise argparse.ArgumentTypeError("must be positive")
    return seconds


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `toadstool discover`."""
    parser.add_argument(
        "--seconds",
        type=_positive_seconds,
        default=None,
        help=f"how long to listen (default {DEFAULT_SECONDS:g}; with --watch: until Ctrl+C)",
    )
    parser.add_argument("--watch", action="store_true", help="keep listening and print servers as they come and go")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument(
        "--interface", action="append", metavar="ADDRESS", help="listen only on this local address (repeatable)"
    )


def run(args: argparse.Namespace) -> int:
    """`toadstool discover`: list the servers announced on the LAN."""
    try:
        return asyncio.run(_run(args))
    except KeyboardInterrupt:
        return 130
    except OSError as error:
        print(f"toadstool discover: cannot listen for mDNS: {error}", file=sys.stderr)
        return 1


def main(argv: list[str] | None = None) -> int:
    """`python -m toadstool_clients.discovery`: the same as `toadstool discover`."""
    parser = argparse.ArgumentParser(
        prog="toadstool discover", description="List Toadstool servers announced on the LAN (mDNS/DNS-SD)."
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
