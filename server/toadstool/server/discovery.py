"""Announcing a running server on the LAN with mDNS/DNS-SD, so players find it without typing an address.

`announce` registers one `_toadstool._tcp.local.` service (name, addresses, port, and TXT properties:
version, games, tls, tables, open) for as long as its `async with` block runs, refreshes the TXT record when
the server's tables change, and withdraws the service (mDNS "goodbye") on the way out. Browsing is the
clients' business (`toadstool_clients.discovery`). This module is not a security boundary: anyone on the
LAN can announce anything, so clients treat what they hear as untrusted hints.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import ipaddress
import logging
import re
import socket
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from typing import TYPE_CHECKING

import ifaddr
from zeroconf import InterfaceChoice, IPVersion, NonUniqueNameException
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

from toadstool.api import MDNS_SERVICE_TYPE, TXT_GAMES, TXT_OPEN, TXT_TABLES, TXT_TLS, TXT_VERSION
from toadstool.api.scopes import TaskScope

if TYPE_CHECKING:
    from toadstool.server.tables import TableRegistry

log = logging.getLogger(__name__)

SERVICE_TYPE = MDNS_SERVICE_TYPE
#: DNS-SD instance names are one DNS label: at most 63 bytes of UTF-8.
MAX_NAME_BYTES = 63
#: A TXT string holds at most 255 bytes, "key=value" included; longer values are cut.
MAX_TXT_VALUE_BYTES = 200
#: How often `info()` is asked for fresh TXT properties (cheap; only a change goes out on the network).
DEFAULT_REFRESH_SECONDS = 1.0

_WILDCARDS = {"", "0.0.0.0", "::", "[::]"}


@functools.cache
def package_version() -> str:
    """The installed package's version, read once: reading it walks sys.path and parses the package's
    METADATA (about half a millisecond, more on a busy server), and the announcement's refresh asks for it
    every second on the event loop, where it stalled the moves in flight (docs/benchmarks.md, round 7)."""
    try:
        return metadata.version("toadstool")
    except metadata.PackageNotFoundError:  # running from a source tree that is not installed
        return "0"


def announced_addresses(host: str) -> list[str]:
    """The addresses to put in the A/AAAA records for a server bound to `host`.

    A wildcard bind (0.0.0.0, ::) is reachable on every interface, so it announces the machine's
    non-loopback addresses (loopback ones would send LAN players to their own machine; link-local IPv6
    needs a scope id that DNS-SD cannot carry). A specific bind, 127.0.0.1 included (the tests use it),
    announces exactly that address.
    """
    if host not in _WILDCARDS:
        try:
            return [str(ipaddress.ip_address(host.strip("[]")))]
        except ValueError:  # a host name such as "localhost": announce what it resolves to
            infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
            return list(dict.fromkeys(str(info[4][0]) for info in infos))
    found: list[str] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            raw = ip.ip if isinstance(ip.ip, str) else ip.ip[0]
            address = ipaddress.ip_address(raw)
            if address.is_loopback or address.is_link_local or address.is_multicast or address.is_unspecified:
                continue
            if host == "0.0.0.0" and address.version != 4:
                continue
            if str(address) not in found:
                found.append(str(address))
    return found


def instance_name(name: str) -> str:
    """A DNS-SD instance label from a display name: no control characters or dots, at most 63 bytes."""
    cleaned = re.sub(r"[\x00-\x1f\x7f.]+", " ", name).strip() or "Toadstool"
    encoded = cleaned.encode()[:MAX_NAME_BYTES]
    return encoded.decode(errors="ignore").strip() or "Toadstool"


def _host_label() -> str:
    label = re.sub(r"[^A-Za-z0-9-]+", "-", socket.gethostname().split(".")[0]).strip("-")
    return (label or "toadstool")[:40]


def txt_properties(info: Mapping[str, str]) -> dict[str, str]:
    """The TXT record: the package version plus what `info()` says, each value cut to fit a TXT string."""
    properties = {TXT_VERSION: package_version()}
    properties.update(info)
    return {key: value.encode()[:MAX_TXT_VALUE_BYTES].decode(errors="ignore") for key, value in properties.items()}


def registry_info(registry: TableRegistry, tls: bool) -> Callable[[], dict[str, str]]:
    """The `info` callable for a server's registry: its games, whether it needs TLS, how many tables it
    has and how many of those are open to join (in the lobby with a free seat)."""
    from toadstool.games import GAMES
    from toadstool.server.tables import Status

    def info() -> dict[str, str]:
        tables = list(registry.tables.values())
        open_tables = sum(1 for t in tables if t.status == Status.LOBBY and t.open_seats())
        return {
            TXT_GAMES: ",".join(GAMES),
            TXT_TLS: "yes" if tls else "no",
            TXT_TABLES: str(len(tables)),
            TXT_OPEN: str(open_tables),
        }

    return info


@dataclass
class Announcement:
    """A live announcement: the name it won on the LAN and a way to push fresh TXT properties now."""

    name: str
    addresses: list[str]
    port: int
    _zeroconf: AsyncZeroconf = field(repr=False)
    _service: AsyncServiceInfo = field(repr=False)
    _info: Callable[[], dict[str, str]] | None = field(repr=False, default=None)
    _published: dict[str, str] = field(default_factory=dict)

    @property
    def properties(self) -> dict[str, str]:
        """The TXT properties as last published."""
        return dict(self._published)

    async def goodbye(self, seconds: float = 3.0) -> None:
        """Withdraw the announcement (a TTL-0 record): browsers learn now that the server is gone, not when
        the record expires. A network that fails or is slow is not waited for past `seconds`."""
        with contextlib.suppress(OSError, asyncio.TimeoutError):
            await asyncio.wait_for(await self._zeroconf.async_unregister_service(self._service), seconds)

    async def refresh(self) -> bool:
        """Rebuild the TXT record from `info()` and re-announce it if it changed; True if it did."""
        if self._info is None:
            return False
        properties = txt_properties(self._info())
        if properties == self._published:
            return False
        self._service = service_info(self._service.name, self.addresses, self.port, self._service.server, properties)
        await self._zeroconf.async_update_service(self._service)
        self._published = properties
        return True


def service_info(
    full_name: str, addresses: list[str], port: int, server: str | None, properties: Mapping[str, str]
) -> AsyncServiceInfo:
    return AsyncServiceInfo(
        SERVICE_TYPE,
        full_name,
        parsed_addresses=addresses,
        port=port,
        properties=dict(properties),
        server=server,
    )


@contextlib.asynccontextmanager
async def announce(
    host: str,
    port: int,
    name: str,
    info: Callable[[], dict[str, str]] | None = None,
    *,
    refresh_seconds: float = DEFAULT_REFRESH_SECONDS,
) -> AsyncIterator[Announcement | None]:
    """Announce a server bound to `host:port` as `name` for the duration of the block.

    `info` is called now and every `refresh_seconds` for TXT properties (games, tls, tables, open); a
    change is re-announced. A name already taken on the LAN gets a suffix rather than failing. If the
    LAN cannot be reached (no multicast, no addresses) the server still runs: this yields None and logs a
    warning, because discovery is a convenience and never a reason to refuse to serve.
    """
    try:
        addresses = announced_addresses(host)
    except OSError as error:
        log.warning("not announcing on the LAN: cannot resolve %s: %s", host, error)
        addresses = []
    if not addresses:
        log.warning("not announcing on the LAN: no non-loopback address found for %s", host)
        yield None
        return
    ip_version = IPVersion.V4Only if all(":" not in a for a in addresses) else IPVersion.All
    interfaces: InterfaceChoice | list[str] = InterfaceChoice.All if host in _WILDCARDS else addresses
    server = f"{_host_label()}-toadstool-{port}.local."
    properties = txt_properties(info() if info else {})
    full_name = f"{instance_name(name)}.{SERVICE_TYPE}"
    try:
        zeroconf = AsyncZeroconf(interfaces=interfaces, ip_version=ip_version)
    except OSError as error:
        log.warning("not announcing on the LAN: %s", error)
        yield None
        return
    announcement: Announcement | None = None
    try:
        # The announcement's scope: its refresher, which ends (cancelled) when the block does.
        async with TaskScope() as tasks:
            announcement = await _register(zeroconf, full_name, addresses, port, server, properties, info)
            if announcement is not None and info is not None:
                tasks.create_task(_keep_fresh(announcement, refresh_seconds), name="announce-refresh")
            yield announcement
    finally:
        if announcement is not None:
            await announcement.goodbye()
        await zeroconf.async_close()


async def _register(
    zeroconf: AsyncZeroconf,
    full_name: str,
    addresses: list[str],
    port: int,
    server: str,
    properties: dict[str, str],
    info: Callable[[], dict[str, str]] | None,
) -> Announcement | None:
    """Probe for the name (taking a suffix if it is in use) and announce; None if the LAN refused."""
    service = service_info(full_name, addresses, port, server, properties)
    try:
        await (await zeroconf.async_register_service(service, allow_name_change=True))
    except (OSError, NonUniqueNameException) as error:
        log.warning("not announcing on the LAN: %s", error)
        return None
    announcement = Announcement(
        name=service.name.removesuffix("." + SERVICE_TYPE),
        addresses=addresses,
        port=port,
        _zeroconf=zeroconf,
        _service=service,
        _info=info,
        _published=properties,
    )
    log.info("announced %r on the LAN at %s port %d", announcement.name, ", ".join(addresses), port)
    return announcement


async def _keep_fresh(announcement: Announcement, every: float) -> None:
    """Re-announce the TXT record when `info()` changes; a failed refresh is retried next time."""
    while True:
        await asyncio.sleep(every)
        try:
            await announcement.refresh()
        except Exception as error:  # the announcement must never take the server down
            log.warning("could not refresh the LAN announcement: %s", error)
