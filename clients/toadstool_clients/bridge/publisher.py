"""The broker side of the bridge: a coalescing outbox and the MQTT connection that drains it.

It is for getting the latest value of every topic to the broker without flooding anyone: a burst of
updates to one topic keeps only the newest payload, each topic is published at most once per
`min_interval`, a payload equal to the one last published on its topic (or on its way there) is never
sent again, and after every (re)connection the whole retained state is published again (a restarted
broker without persistence has forgotten it). It also owns availability: a retained last will, a birth
message on connect and a farewell on clean shutdown ("offline" / "online" / "offline" for the bridge's
status). It knows nothing about tables or games.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import math
import ssl
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import aiomqtt
from paho.mqtt.subscribeoptions import SubscribeOptions

from toadstool.api.scopes import TaskScope
from toadstool_clients.backoff import backoff

log = logging.getLogger(__name__)

#: The logger aiomqtt/paho write to. Their errors are lost connections, which the bridge handles by
#: reconnecting, so they are logged as warnings.
MQTT_LOG = logging.getLogger("toadstool_clients.bridge.mqtt")


class _ConnectionErrorsAreWarnings(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.WARNING:
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


MQTT_LOG.addFilter(_ConnectionErrorsAreWarnings())

#: The most events kept while they cannot be published (a broker outage).
MAX_EVENTS = 1000

#: Seconds a publish may wait for the broker's acknowledgement before the connection counts as broken.
PUBLISH_SECONDS = 10.0

ONLINE = b"online"
OFFLINE = b"offline"


class Outbox:
    """The latest payload of every topic, waiting to be published at a bounded rate per topic."""

    def __init__(self, min_interval: float = 0.2) -> None:
        self.min_interval = min_interval
        #: Retained topics and their current payload: published again after every reconnect.
        self.retained: dict[str, bytes] = {}
        #: Topics with a payload not yet published (insertion-ordered: oldest change first).
        self.pending: dict[str, tuple[bytes, bool]] = {}
        #: What was last published per topic (so an unchanged value is not sent again): for retained
        #: topics on this connection, for commands (not retained) ever, since a device acts on each one.
        self.sent: dict[str, bytes] = {}
        #: Payloads being published right now (what the broker will hold once they arrive).
        self.inflight: dict[str, bytes] = {}
        self.last_sent: dict[str, float] = {}
        #: A message to publish right after the pending one of its topic (clearing a WLED display: the
        #: retained text is deleted, then the state that clears it is sent); dropped if the topic changes.
        self.followups: dict[str, bytes] = {}
        #: Events (not retained): each one published, in order, never coalesced, an equal one too (every
        #: die roll, a repeated value included). Bounded: the oldest go first when a dead broker lets them pile up.
        self.events: collections.deque[tuple[str, bytes, bool]] = collections.deque(maxlen=MAX_EVENTS)
        self.changed = asyncio.Event()

    def put(self, topic: str, payload: bytes, retain: bool = True, force: bool = False) -> None:
        """Publish `payload` on `topic` soon; replaces any unsent payload of the same topic.

        A payload equal to the last one published (or being published) on the topic is not sent again,
        and it cancels an unsent one in between: the topic already says it. `force` sends it anyway.
        """
        if retain:
            if payload:
                self.retained[topic] = payload
            else:
                self.retained.pop(topic, None)
        current = self.inflight[topic] if topic in self.inflight else self.sent.get(topic)
        if not force and current == payload:
            self.pending.pop(topic, None)
            return
        if force:
            self.sent.pop(topic, None)
        self.pending.pop(topic, None)
        self.followups.pop(topic, None)
        self.pending[topic] = (payload, retain)
        self.changed.set()

    def clear(self, topic: str, then: bytes | None = None) -> None:
        """Delete a retained topic (an empty retained payload), even one left by an earlier run; `then`, when
        given, is published (not retained) right after it on the same topic, unless the topic changes first."""
        self.put(topic, b"", retain=True, force=True)
        if then is not None:
            self.followups[topic] = then

    def event(self, topic: str, payload: bytes, retain: bool = False) -> None:
        """Publish `payload` on `topic` after every event put before it, whatever it repeats; not retained
        (an empty retained one deletes what the broker holds there)."""
        self.events.append((topic, payload, retain))
        self.changed.set()

    def forget(self, topic: str) -> None:
        """Drop what the outbox holds for `topic` (a command made moot, e.g. by clearing the display), so
        that the next payload is sent whatever it is, even one equal to a payload being published right now
        (that one arrives before anything put from now on, and no longer counts as what the topic says)."""
        self.pending.pop(topic, None)
        self.followups.pop(topic, None)
        self.sent.pop(topic, None)
        self.retained.pop(topic, None)
        self.inflight.pop(topic, None)

    def reconnected(self) -> None:
        """A new connection: the broker may have lost everything, so everything retained goes again
        (commands do not: they were not retained, and the device already acted on them)."""
        for topic in list(self.sent):
            if topic in self.retained:
                del self.sent[topic]
        for topic, payload in self.retained.items():
            if topic not in self.pending:
                self.pending[topic] = (payload, True)
        self.changed.set()

    def due(self, now: float) -> tuple[list[str], float | None]:
        """Topics that may be published now, and how long until the next one may (None: nothing waits)."""
        ready: list[str] = []
        wait: float | None = None
        for topic in self.pending:
            free_at = self.last_sent.get(topic, -1e9) + self.min_interval
            if free_at <= now:
                ready.append(topic)
            else:
                wait = free_at - now if wait is None else min(wait, free_at - now)
        return ready, wait

    async def drain(self, publish: Callable[[str, bytes, bool], Awaitable[None]]) -> None:
        """Publish pending payloads forever, each topic at most once per `min_interval`."""
        loop = asyncio.get_running_loop()

        async def publish_events() -> None:
            """Every event put so far, before any other payload is published."""
            while self.events:
                event = self.events[0]
                await publish(*event)  # an event not published stays first, for the next connection
                if self.events and self.events[0] is event:
                    self.events.popleft()

        while True:
            self.changed.clear()
            await publish_events()
            ready, wait = self.due(loop.time())
            if not ready:
                with contextlib.suppress(TimeoutError):
                    # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancellation that
                    # arrives as the event is set, and the drain would then never stop.
                    async with asyncio.timeout(wait):
                        await self.changed.wait()
                continue
            # One topic at a time, the oldest due change first (computed afresh each time): topics free to go
            # reach the broker in the order they were last put, so with no rate limit in the way a display never
            # gets what was decided after a change before that change.
            topic = ready[0]
            entry = self.pending.pop(topic)
            payload, retain = entry
            # In flight: the broker will hold this payload, so a change put meanwhile (even back to the
            # value sent before) is queued, and only the same payload again is taken for a repeat.
            self.sent.pop(topic, None)
            self.inflight[topic] = payload
            try:
                await publish(topic, payload, retain)
            except BaseException:
                if topic in self.inflight and topic not in self.pending:
                    self.pending[topic] = entry  # neither superseded nor forgotten: again on the next connection
                raise
            finally:
                forgotten = self.inflight.pop(topic, None) is None  # `forget` was called meanwhile
            then = self.followups.pop(topic, None)
            if then is not None and not forgotten and topic not in self.pending:
                try:
                    await publish(topic, then, False)
                except BaseException:
                    self.pending[topic], self.followups[topic] = entry, then  # both again, in order
                    raise
                payload, retain = then, False
            if forgotten:
                self.last_sent[topic] = loop.time()
            elif payload or not retain:
                self.sent[topic] = payload
                self.last_sent[topic] = loop.time()
            else:  # a cleared topic is forgotten, so a long-running bridge does not grow without bound
                self.sent.pop(topic, None)
                self.last_sent.pop(topic, None)


@dataclass(frozen=True)
class BrokerConfig:
    host: str = "127.0.0.1"
    port: int = 1883
    username: str | None = None
    password: str | None = None
    tls: bool = False
    tls_ca: str | None = None
    keepalive: int = 30
    max_backoff: float = 10.0


def parse_broker(address: str, tls: bool = False) -> tuple[str, int]:
    """HOST[:PORT] of a broker (port 1883, or 8883 with TLS, when left out)."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or host.endswith(":"):
        return address.strip("[]"), 8883 if tls else 1883
    return host.strip("[]"), int(port)


MessageHandler = Callable[[aiomqtt.Message], Awaitable[None]]


class BrokerLink:
    """One logical connection to the broker that survives outages: reconnects with jittered backoff.

    On every connect it publishes its birth message `birth` on `status_topic` (retained; "online" unless
    told otherwise), subscribes to `subscriptions`, calls `on_connect` and then publishes the whole retained
    state again; `on_message` gets every incoming message. The broker publishes `last_will` (retained) on
    `status_topic` when the connection dies; a clean stop publishes `farewell` there itself. An empty
    `last_will` or `farewell` deletes the retained message of `status_topic`.
    """

    def __init__(
        self,
        config: BrokerConfig,
        outbox: Outbox,
        status_topic: str,
        subscriptions: list[str],
        on_message: MessageHandler,
        on_connect: Callable[[], None] | None = None,
        *,
        birth: bytes | None = ONLINE,
        last_will: bytes = OFFLINE,
        farewell: bytes = OFFLINE,
        identifier: str | None = None,
    ) -> None:
        self.config = config
        self.outbox = outbox
        self.status_topic = status_topic
        self.subscriptions = subscriptions
        self.on_message = on_message
        self.on_connect = on_connect
        self.birth, self.last_will, self.farewell = birth, last_will, farewell
        self.connected = asyncio.Event()
        self.identifier = identifier or f"toadstool-bridge-{uuid.uuid4().hex[:12]}"
        self._client: aiomqtt.Client | None = None

    def _client_for(self) -> aiomqtt.Client:
        config = self.config
        tls_context = None
        if config.tls or config.tls_ca:
            tls_context = ssl.create_default_context(cafile=config.tls_ca)
        return aiomqtt.Client(
            config.host,
            config.port,
            username=config.username,
            password=config.password,
            identifier=self.identifier,
            will=aiomqtt.Will(self.status_topic, self.last_will, qos=1, retain=True),
            keepalive=config.keepalive,
            tls_context=tls_context,
            timeout=10,
            logger=MQTT_LOG,
            # MQTT 5, so that subscriptions can ask for the retain flag as published (below): MQTT 3.1.1
            # clears it on live delivery, and a retained press must never roll.
            protocol=aiomqtt.ProtocolVersion.V5,
        )

    async def publish_now(self, topic: str, payload: bytes, retain: bool = False) -> bool:
        """Publish outside the outbox (press results); False when not connected."""
        client = self._client
        if client is None:
            return False
        try:
            await client.publish(topic, payload, qos=1, retain=retain, timeout=5)
        except aiomqtt.MqttError:
            return False
        return True

    async def run(self, stop: asyncio.Event) -> None:
        """Stay connected until `stop` is set; then publish "offline" and disconnect cleanly."""
        delays = backoff(cap=self.config.max_backoff)
        failures = 0
        while not stop.is_set():
            try:
                async with self._client_for() as client:
                    delays = backoff(cap=self.config.max_backoff)
                    failures = 0
                    self._client = client
                    if self.birth is not None:
                        await client.publish(self.status_topic, self.birth, qos=1, retain=True, timeout=10)
                    for topic in self.subscriptions:
                        await client.subscribe(
                            topic, options=SubscribeOptions(qos=1, retainAsPublished=True), timeout=10
                        )
                    if self.on_connect is not None:
                        self.on_connect()
                    self.outbox.reconnected()
                    self.connected.set()
                    log.info("connected to MQTT broker %s:%s", self.config.host, self.config.port)
                    await self._serve(client, stop)
                    if stop.is_set():
                        with contextlib.suppress(aiomqtt.MqttError, TimeoutError):
                            await client.publish(self.status_topic, self.farewell, qos=1, retain=True, timeout=3)
                    return
            except aiomqtt.MqttError as error:
                # Said once per outage (then quietly at each retry).
                failures += 1
                level = logging.WARNING if failures == 1 else logging.INFO
                log.log(level, "MQTT broker %s:%s: %s", self.config.host, self.config.port, error)
            finally:
                self._client = None
                self.connected.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(next(delays)):
                    await stop.wait()

    async def _serve(self, client: aiomqtt.Client, stop: asyncio.Event) -> None:
        """One connection's scope: the outbox's drain, the receiver and the wait for `stop`. The first to end
        ends the connection: `stop` set (a clean end), or a failure of either of the others (MqttError:
        the connection broke), which cancels its siblings, as a TaskGroup does, and is raised."""

        async def publish(topic: str, payload: bytes, retain: bool) -> None:
            # asyncio.timeout, not aiomqtt's `timeout`: that is asyncio.wait_for, which on 3.11 can swallow a
            # cancellation racing with the acknowledgement, and the drain would then outlive its scope.
            try:
                async with asyncio.timeout(PUBLISH_SECONDS):
                    await client.publish(topic, payload, qos=1, retain=retain, timeout=math.inf)
            except TimeoutError:
                raise aiomqtt.MqttError("publishing timed out") from None

        async def receive() -> None:
            async for message in client.messages:
                try:
                    await self.on_message(message)
                except aiomqtt.MqttError:
                    raise
                except Exception:
                    log.exception("handling an MQTT message on %s failed", message.topic)

        try:
            async with TaskScope() as tasks:
                children = [
                    tasks.create_task(self.outbox.drain(publish), name="mqtt-drain"),
                    tasks.create_task(receive(), name="mqtt-receive"),
                    tasks.create_task(stop.wait(), name="mqtt-stop"),
                ]
                await asyncio.wait(children, return_when=asyncio.FIRST_COMPLETED)
        except* Exception as failed:
            raise failed.exceptions[0] from None
        if not stop.is_set():
            raise aiomqtt.MqttError("the connection ended")
