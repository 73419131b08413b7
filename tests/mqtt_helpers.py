"""A real Mosquitto broker for tests, MQTT subscribers that record what the bridge published, and the
bridge itself running in the test's event loop.

The broker listens on a free loopback port with persistence off (so a restart forgets retained
messages, the hardest case for the bridge) and is stopped at the end of the test.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import aiomqtt
import pytest

from conftest import free_port, stop_process
from toadstool.api.v1 import table_pb2
from toadstool_clients.bridge.app import Bridge, Clock
from toadstool_clients.bridge.config import config_from_args
from toadstool_clients.connection import Client


def mosquitto_path() -> str:
    found = shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None)
    if found is None:
        raise RuntimeError("mosquitto is not installed (apt-get install mosquitto)")
    return found


class _Exited(Exception):
    """The broker's process ended before it listened."""


def wait_for_port(port: int, timeout: float, alive: subprocess.Popen[bytes]) -> None:
    """Wait until 127.0.0.1:`port` accepts a connection while `alive` runs (so the listener is its own)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if alive.poll() is not None:
            raise _Exited
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0 and alive.poll() is None:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port} after {timeout} s")


class Broker:
    """One Mosquitto process on 127.0.0.1:`port`; `restart` keeps the port (clients reconnect to it)."""

    def __init__(
        self, directory: Path, users: dict[str, str] | None = None, tls: tuple[Path, Path] | None = None
    ) -> None:
        """`users` (name -> password) makes the broker refuse anonymous clients; `tls` (certificate, key)
        adds a TLS listener on `tls_port` beside the plain one."""
        self.directory = directory
        self.users = users
        self.tls = tls
        self.conf = directory / "mosquitto.conf"
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.tls_port: int | None = None
        self._started = False
        if users:
            password_file = directory / "mosquitto.passwd"
            for n, (name, password) in enumerate(users.items()):
                flags = ["-b", "-c"] if n == 0 else ["-b"]
                subprocess.run(["mosquitto_passwd", *flags, str(password_file), name, password], check=True, timeout=10)
        self._choose_ports()

    def _choose_ports(self) -> None:
        """Mosquitto cannot listen on port 0 and report the port it got, so the broker takes ports that are
        free now and `start` picks others if another process bound one first (the race of a free port)."""
        self.port = free_port()
        self.tls_port = free_port() if self.tls else None
        lines = ["per_listener_settings false", "persistence false", "log_dest stderr", "log_type error"]
        lines.append(f"listener {self.port} 127.0.0.1")
        if self.tls:
            lines += [f"listener {self.tls_port} 127.0.0.1", f"certfile {self.tls[0]}", f"keyfile {self.tls[1]}"]
        if os.geteuid() == 0:
            lines.append("user root")  # as root, mosquitto would switch to a user that cannot read tmp_path
        if self.users:
            lines += ["allow_anonymous false", f"password_file {self.directory / 'mosquitto.passwd'}"]
        else:
            lines.append("allow_anonymous true")
        self.conf.write_text("\n".join(lines) + "\n")

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def tls_address(self) -> str:
        return f"127.0.0.1:{self.tls_port}"

    def start(self, attempts: int = 5) -> None:
        """Start the broker and wait until it listens. On its first start, a port another process took
        meanwhile means new ports (up to `attempts`); a restart keeps its ports, as clients expect."""
        first = not self._started
        for _ in range(attempts if first else 1):
            self.process = subprocess.Popen(
                [mosquitto_path(), "-c", str(self.conf)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
            )
            try:
                wait_for_port(self.port, 10, alive=self.process)
                if self.tls_port:
                    wait_for_port(self.tls_port, 10, alive=self.process)
            except _Exited:
                error = self.process.stderr.read().decode(errors="replace") if self.process.stderr else ""
                self.process = None
                if first and "in use" in error:
                    self._choose_ports()
                    continue
                raise RuntimeError(f"mosquitto did not start: {error.strip()}") from None
            except TimeoutError:
                self.stop()
                raise
            self._started = True
            return
        raise RuntimeError(f"mosquitto found no free port in {attempts} tries")

    def stop(self) -> None:
        if self.process is None:
            return
        stop_process(self.process, 5)
        self.process = None

    def restart(self, down_for: float = 0.5) -> None:
        self.stop()
        time.sleep(down_for)
        self.start()


@pytest.fixture(name="broker")
def broker_fixture(tmp_path: Path) -> Iterator[Broker]:
    """A real Mosquitto broker on a free loopback port, stopped after the test."""
    running = Broker(tmp_path)
    running.start()
    try:
        yield running
    finally:
        running.stop()


@dataclass
class Received:
    topic: str
    payload: bytes
    retain: bool
    at: float
    #: Wall-clock time of arrival (Unix seconds), to compare with times the bridge publishes.
    at_unix: float = 0.0


@dataclass
class Recorder:
    """Every message seen on the subscribed filter, in order; survives nothing (tests restart it)."""

    messages: list[Received] = field(default_factory=list)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)

    def on(self, topic: str) -> list[Received]:
        return [m for m in self.messages if m.topic == topic]

    def latest(self, topic: str) -> bytes | None:
        found = self.on(topic)
        return found[-1].payload if found else None

    async def wait_for(self, predicate: Callable[[Recorder], object], seconds: float = 20.0) -> object:
        """Wait until `predicate(self)` is truthy (checked after every message); TimeoutError otherwise."""
        deadline = asyncio.get_running_loop().time() + seconds
        while True:
            result = predicate(self)
            if result:
                return result
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                raise TimeoutError(f"condition not met after {seconds} s ({len(self.messages)} messages seen)")
            self.arrived.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(min(remaining, 0.5)):
                    await self.arrived.wait()


def _host_port(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    return host, int(port)


@contextlib.asynccontextmanager
async def recording(address: str, topic_filter: str = "#") -> AsyncIterator[Recorder]:
    """Subscribe to `topic_filter` and record every message until the block ends (reconnecting if the
    broker restarts)."""
    recorder = Recorder()
    host, port = _host_port(address)
    subscribed = asyncio.Event()

    async def listen() -> None:
        while True:
            try:
                async with aiomqtt.Client(host, port, timeout=5) as client:
                    await client.subscribe(topic_filter, qos=1)
                    subscribed.set()
                    async for message in client.messages:
                        payload = message.payload if isinstance(message.payload, bytes) else b""
                        recorder.messages.append(
                            Received(message.topic.value, payload, message.retain, time.monotonic(), time.time())
                        )
                        recorder.arrived.set()
            except aiomqtt.MqttError:
                await asyncio.sleep(0.2)

    task = asyncio.create_task(listen())
    try:
        async with asyncio.timeout(10):
            await subscribed.wait()
        yield recorder
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def retained(
    address: str,
    topic_filter: str = "#",
    quiet: float = 0.5,
    seconds: float = 10.0,
    login: tuple[str, str] | None = None,
) -> dict[str, bytes]:
    """What a late subscriber sees at once: the retained messages on `topic_filter` (topic -> payload)."""
    host, port = _host_port(address)
    found: dict[str, bytes] = {}
    username, password = login or (None, None)
    async with aiomqtt.Client(host, port, timeout=5, username=username, password=password) as client:
        await client.subscribe(topic_filter, qos=1)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                message = await asyncio.wait_for(anext(client.messages), quiet)
            except TimeoutError:
                break
            if message.retain and isinstance(message.payload, bytes):
                found[message.topic.value] = message.payload
    return found


async def publish(address: str, topic: str, payload: bytes, retain: bool = False) -> None:
    """Publish one message as a device would (QoS 1)."""
    host, port = _host_port(address)
    async with aiomqtt.Client(host, port, timeout=5) as client:
        await client.publish(topic, payload, qos=1, retain=retain)


def bridge_args(server: str, broker: Broker, *more: str) -> list[str]:
    """Command-line arguments for a quick bridge: fast polling, short linger, small per-topic interval."""
    return [
        "--server", server, "--broker", broker.address, "--poll", "0.2", "--linger", "1",
        "--min-interval", "0.05", "--max-backoff", "1", "--roll-pace", "0.05", *more,
    ]  # fmt: skip


@contextlib.asynccontextmanager
async def running_bridge(*argv: str, wait_connected: bool = True, clock: Clock | None = None) -> AsyncIterator[Bridge]:
    """A bridge running in this loop until the block ends (then stopped cleanly, bounded in time); `clock`
    paces its displays (real time when not given)."""
    config, _ = config_from_args(argv)
    bridge = Bridge(config, clock)
    stop = asyncio.Event()
    task = asyncio.create_task(bridge.run(stop), name="bridge")
    try:
        if wait_connected:
            await asyncio.wait_for(bridge.link.connected.wait(), 10)
        yield bridge
    finally:
        stop.set()
        async with asyncio.timeout(20):  # the bridge bounds its own shutdown to about 10 s
            await task


class ManualClock:
    """The bridge's display clock moved by the test: `sleep` returns only once `advance` has moved the clock
    past its end, so a test decides when a die may show its next roll."""

    def __init__(self) -> None:
        self.now = 0.0
        self._sleepers: list[tuple[float, asyncio.Future[None]]] = []

    async def sleep(self, seconds: float) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._sleepers.append((self.now + seconds, future))
        await future

    def sleeping(self, seconds: float | None = None) -> int:
        """How many sleeps wait (of `seconds` from now, when given)."""
        return sum(1 for end, f in self._sleepers if not f.done() and (seconds is None or end == self.now + seconds))

    def advance(self, seconds: float) -> None:
        """Move the clock on; every sleep that has ended returns."""
        self.now += seconds
        for end, future in self._sleepers:
            if end <= self.now and not future.done():
                future.set_result(None)
        self._sleepers = [(end, f) for end, f in self._sleepers if not f.done()]


@dataclass
class WaitingTable:
    """A Kart table whose human seat 0 (Ann) must roll: the game waits there until someone rolls."""

    table_id: str
    host_token: str
    seat_token: str


async def kart_waiting_for_ann(client: Client, seed: int = 3, turn_seconds: int = 0) -> WaitingTable:
    created = await client.create_table(
        "kart",
        2,
        bots=1,
        options={"track": "mini-loop"},
        seed=seed,
        bot_delay_ms=0,
        name="Kart night",
        turn_seconds=turn_seconds,
    )
    table_id = created.table.table_id
    joined = await client.join(table_id, "Ann", 0)
    await wait_until_waiting(client, table_id)
    return WaitingTable(table_id, created.host_token, joined.seat_token)


async def wait_until_waiting(client: Client, table_id: str, seconds: float = 10.0) -> table_pb2.Update:
    """The first spectator update where the game waits for seat 0 alone."""

    async def first() -> table_pb2.Update:
        call = client.watch(table_id)
        try:
            async for response in call:
                if list(response.update.to_act) == [0]:
                    return response.update
        finally:
            call.cancel()
        raise AssertionError("the stream ended")

    return await asyncio.wait_for(first(), seconds)
