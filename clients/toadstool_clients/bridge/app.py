"""`toadstool bridge`: follow tables as a spectator and mirror their public state to an MQTT broker.

It is for the running bridge: which tables to follow (ListTables polling for `--tables all`), one
spectator stream per table, clearing finished or deleted tables, which table the displays configured
for every table ("*") show, Home Assistant re-announcement and hardware roll buttons. It is not for
payloads (`formats`), topic names (`topics`), reading button presses (`presses`) or the broker
connection (`publisher`). It is a client like any other: the server knows nothing of MQTT, and a broker
outage only delays what the bridge publishes (the game never waits for it).

Displays for "*" show one table at a time: the first table that plays, until its topics are cleared
(it finished and lingered, or it vanished); then the playing table that started playing first, and so
on. A display that follows whichever table changed last would flip between tables several times a
second, and its text would be unreadable. Which table they show is retained on the broker, so a
restarted bridge goes on with it (a finished table's result included) instead of jumping to another.

Hardware input is off unless a table's host gave the bridge that table's device token. A press then
sends "roll" for whoever must roll; a retained press, a repeated delivery of a press, or a payload asking
for anything else never causes a roll.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import logging
import signal
import sys
import time
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import aiomqtt
import grpc

from toadstool.api.v1 import table_pb2
from toadstool_clients.backoff import backoff
from toadstool_clients.bridge import formats
from toadstool_clients.bridge.config import (
    ALL_TABLES,
    BridgeConfig,
    ConfigError,
    add_arguments,
    build_parser,
    config_from_options,
)
from toadstool_clients.bridge.presses import Press, PressRefused, parse_press, request_id_for
from toadstool_clients.bridge.publisher import BrokerLink, Outbox, cancel_and_wait
from toadstool_clients.bridge.topics import Topics, safe_level
from toadstool_clients.connection import Client, StreamState, describe_rpc_error

log = logging.getLogger(__name__)

#: Table listings in a row that may show a table ahead of its stream before the stream is started again.
STUCK_AFTER = 2
#: Seconds after connecting to the broker by which it has handed out the retained `clears_at` topics (the
#: bridge waits this long before deciding whether a finished table it finds still lingers).
SETTLE = 0.5
#: The most seats any game has (UNO): how many seats' topics to clear for a table whose seats are unknown.
MAX_SEATS = 10


@dataclass
class TableMirror:
    """What the bridge knows of one followed table: its latest spectator update and what it published."""

    table_id: str
    update: table_pb2.Update | None = None
    roll: formats.Roll | None = None
    topics: set[str] = field(default_factory=set)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    last_press: tuple[float, str] | None = None
    #: The version the previous table listing showed, and how many listings in a row found the stream
    #: still short of the version listed the time before.
    listed_version: int | None = None
    behind: int = 0

    def lags(self, info: table_pb2.TableInfo) -> bool:
        """Whether the stream seems stuck: `STUCK_AFTER` listings in a row, it had not yet delivered the
        version the listing before showed (a healthy stream is milliseconds behind, not a poll interval).

        A stream whose server died silently (power cut, cable pulled) waits for ever; the listing, a fresh
        call each time, notices the server moving on without it.
        """
        if self.update is not None and self.listed_version is not None and self.update.version < self.listed_version:
            self.behind += 1
        else:
            self.behind = 0
        self.listed_version = info.version
        return self.behind >= STUCK_AFTER


class Bridge:
    """One running bridge: a spectator of the game server and a publisher to the broker."""

    def __init__(self, config: BridgeConfig) -> None:
        self.config = config
        self.topics = Topics(config.prefix, config.ha_prefix)
        self.outbox = Outbox(config.min_interval)
        self.mirrors: dict[str, TableMirror] = {}
        self.watchers: dict[str, asyncio.Task[None]] = {}
        #: Tables finished or gone: cleared once and never followed again.
        self.done: set[str] = set()
        self.press_topics: dict[str, str] = {
            topic: table_id for table_id, settings in config.per_table.items() for topic in settings.press_topics
        }
        #: Displays for every table, and the one table they show now (None: none plays).
        shared = config.per_table.get(ALL_TABLES)
        self.shared: formats.Devices | None = shared.devices if shared and shared.devices else None
        self.spotlight: str | None = None
        #: Whether the bridge knows what the shared displays show: not until a listing after the broker
        #: handed out the retained spotlight an earlier run left (it is the earlier run's until then).
        self.spotlight_known = False
        #: The order in which the bridge saw tables start playing (who is next on the shared displays).
        self.started: dict[str, int] = {}
        self._start_order = itertools.count()
        #: When finished tables are cleared (Unix ms), by topic level: ours, or an earlier run's from the broker.
        self.clears_at: dict[str, int] = {}
        self._broker_since: float | None = None
        self._old_commands_cleared = False
        subscriptions = [self.topics.press_wildcard, self.topics.clears_at_wildcard, *self.press_topics]
        if self.shared is not None:
            subscriptions.append(self.topics.spotlight)
        if config.homeassistant:
            subscriptions.append(self.topics.ha_status)
        self.link = BrokerLink(
            config.broker, self.outbox, self.topics.status, subscriptions, self.on_message, self.on_broker_connect
        )
        # Whether the bridge reaches the game server goes over a second connection, whose last will deletes
        # it: one connection has one will (the status), and a dead bridge knows nothing of the server.
        self.server_outbox = Outbox(config.min_interval)
        self.server_link = BrokerLink(
            config.broker,
            self.server_outbox,
            self.topics.server,
            [],
            self._ignore_message,
            birth=None,
            last_will=b"",
            farewell=b"",
            identifier=f"{self.link.identifier}-server",
        )
        self.client: Client | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        #: Tables with a press being handled right now.
        self._pressing: set[str] = set()

    # -- running ------------------------------------------------------------------------------------------

    async def run(self, stop: asyncio.Event) -> None:
        """Run until `stop` is set; then say "offline" and end every task."""
        async with Client(self.config.server, tls_ca=self.config.server_tls_ca) as client:
            self.client = client
            link = asyncio.create_task(self.link.run(stop), name="bridge-broker")
            server_link = asyncio.create_task(self.server_link.run(stop), name="bridge-broker-server")
            poll = asyncio.create_task(self.poll_tables(stop), name="bridge-poll")
            try:
                await stop.wait()
                await asyncio.wait([link, server_link], timeout=5)  # saying goodbye and disconnecting is bounded
            finally:
                await cancel_and_wait([link, server_link, poll, *self.watchers.values(), *self._tasks])

    def _spawn(self, coroutine: Any, name: str) -> None:
        task = asyncio.create_task(coroutine, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def poll_tables(self, stop: asyncio.Event) -> None:
        """Follow the wanted tables as they appear; clear those that finished before we saw them or vanished."""
        assert self.client is not None
        retries = backoff(first=self.config.poll, cap=self.config.max_backoff)
        while not stop.is_set():
            try:
                listed = {t.table_id: t for t in await self.client.list_tables()}
            except grpc.aio.AioRpcError as error:
                # Said once per outage: a server that is down for an hour should not fill the log.
                unreachable = self.server_outbox.retained.get(self.topics.server) == b"unreachable"
                level = logging.INFO if unreachable else logging.WARNING
                log.log(level, "cannot list tables: %s", describe_rpc_error(error))
                self.server_outbox.put(self.topics.server, b"unreachable")
                delay = next(retries)
            else:
                self.server_outbox.put(self.topics.server, b"connected")
                retries = backoff(first=self.config.poll, cap=self.config.max_backoff)
                delay = self.config.poll
                self.follow_listed(listed)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):
                    await stop.wait()

    def follow_listed(self, listed: dict[str, table_pb2.TableInfo]) -> None:
        """Start following wanted tables that appeared; clear tables that finished unseen or vanished."""
        wanted = list(listed) if self.config.tables is None else self.config.tables
        for table_id, info in listed.items():  # in the server's order: who started first, as far as we know
            if info.status == table_pb2.TABLE_STATUS_PLAYING:
                self.note_started(table_id)
        for table_id in wanted:
            info = listed.get(table_id)
            mirror = self.mirrors.get(table_id)
            watcher = self.watchers.get(table_id)
            if watcher is not None and mirror is not None and info is not None and mirror.lags(info):
                log.warning("the stream of table %s is stuck behind the table; following it afresh", table_id)
                watcher.cancel()
                del self.watchers[table_id]
                mirror.behind, mirror.listed_version = 0, None
            if table_id in self.done or table_id in self.watchers:
                continue
            if info is None:
                log.warning("table %s is not on the server; clearing its topics", table_id)
                self.clear_table(table_id)
            elif info.status == table_pb2.TABLE_STATUS_FINISHED:
                # Finished before we saw it: left over from an earlier run. Its result stays for the rest of
                # the linger time that run announced on `clears_at`; without one it is cleared at once.
                if not self.broker_settled():
                    continue  # decided at a later listing, once the broker has handed out `clears_at`
                if self.clear_time_ms(table_id, 0) > time.time() * 1000:
                    self.watchers[table_id] = asyncio.create_task(self.watch_table(table_id), name=f"watch-{table_id}")
                else:
                    self.clear_table(table_id, len(info.seats))
            else:
                self.watchers[table_id] = asyncio.create_task(self.watch_table(table_id), name=f"watch-{table_id}")
        for table_id in list(self.mirrors):
            if table_id not in listed:
                log.info("table %s is gone; clearing its topics", table_id)
                watcher = self.watchers.pop(table_id, None)
                if watcher is not None:
                    watcher.cancel()
                self.clear_table(table_id)
        if self.broker_settled():
            # A finished table an earlier run was lingering on, which the server no longer has: clear it.
            levels = {safe_level(table_id) for table_id in listed}
            mine = None if self.config.tables is None else {safe_level(t) for t in self.config.tables}
            for level in sorted(self.clears_at.keys() - levels):
                if level not in self.mirrors and (mine is None or level in mine):
                    log.info("table %s is gone; clearing what an earlier run left of it", level)
                    self.clear_table(level, MAX_SEATS)
        # Forget finished tables the server forgot too (explicitly named tables stay done, so they are not
        # cleared again at every listing).
        keep = listed.keys() | self.watchers.keys()
        if self.config.tables is not None:
            keep |= set(self.config.tables)
        self.done &= keep
        for table_id in self.started.keys() - listed.keys() - self.mirrors.keys():
            del self.started[table_id]
        if self.shared is not None and not self.spotlight_known and self.broker_settled():
            # Every listed table is decided now (followed, or cleared): go on with what an earlier run showed
            # if we follow it, else clear what it left on the displays.
            self.spotlight_known = True
            earlier = self.spotlight
            if earlier is not None and earlier not in self.mirrors and earlier not in self.watchers:
                log.info("the displays for every table showed table %s, which is not followed; clearing them", earlier)
                self.spotlight = None
                self.clear_shared_displays(earlier)
        if self.spotlight is None or self.spotlight not in self.mirrors:
            self.follow_spotlight(None)

    async def watch_table(self, table_id: str) -> None:
        """Mirror one table from its spectator stream until it finishes (then linger and clear) or vanishes."""
        assert self.client is not None
        mirror = self.mirrors.setdefault(table_id, TableMirror(table_id))
        stream = cast(
            AsyncGenerator[table_pb2.Update | StreamState, None],
            self.client.follow(table_id, max_backoff=self.config.max_backoff),
        )
        try:
            async with contextlib.aclosing(stream):
                async for item in stream:
                    if isinstance(item, StreamState):
                        self.server_outbox.put(self.topics.server, b"connected" if item.connected else b"unreachable")
                        continue
                    self.publish_update(mirror, item)
                    if item.status == table_pb2.TABLE_STATUS_FINISHED:
                        break
            if mirror.update is not None and mirror.update.status == table_pb2.TABLE_STATUS_FINISHED:
                self.done.add(table_id)
                await self.linger(mirror)
                self.clear_table(table_id)
        except grpc.aio.AioRpcError as error:
            if error.code() == grpc.StatusCode.NOT_FOUND:
                log.info("table %s is gone; clearing its topics", table_id)
                self.clear_table(table_id)
            else:
                log.warning("following table %s: %s", table_id, describe_rpc_error(error))
        finally:
            if self.watchers.get(table_id) is asyncio.current_task():
                del self.watchers[table_id]

    def broker_settled(self) -> bool:
        """Whether the broker connection is up long enough to have handed out its retained `clears_at`."""
        since = self._broker_since
        return self.link.connected.is_set() and since is not None and time.monotonic() - since >= SETTLE

    def clear_time_ms(self, table_id: str, linger: float) -> int:
        """When a finished table's topics are cleared (Unix ms): as announced already (by us or an earlier
        run), else `linger` seconds from now."""
        known = self.clears_at.get(safe_level(table_id))
        return known if known is not None else int((time.time() + linger) * 1000)

    async def linger(self, mirror: TableMirror) -> None:
        """Keep a finished table's result until its clearing time, announced retained on `clears_at` so that a
        restarted bridge keeps it for the rest of that time too (not longer, and not less)."""
        table_id = mirror.table_id
        clears_at = self.clear_time_ms(table_id, self.config.linger)
        self.clears_at[safe_level(table_id)] = clears_at
        topic = self.topics.clears_at(table_id)
        self.outbox.put(topic, str(clears_at).encode())
        mirror.topics.add(topic)
        await asyncio.sleep(max(0.0, clears_at / 1000 - time.time()))

    # -- publishing ---------------------------------------------------------------------------------------

    def note_started(self, table_id: str) -> None:
        """Remember that a table plays: the shared displays take tables in the order they started."""
        if table_id not in self.started:
            self.started[table_id] = next(self._start_order)

    def publish_update(self, mirror: TableMirror, update: table_pb2.Update) -> None:
        """Turn one spectator update into the table's retained topics (coalesced by the outbox)."""
        mirror.update = update
        mirror.roll = formats.last_roll(update, mirror.roll)
        mirror.changed.set()
        mirror.changed = asyncio.Event()
        if update.status == table_pb2.TABLE_STATUS_PLAYING:
            self.note_started(mirror.table_id)
        messages = formats.table_messages(update, self.topics, mirror.roll)
        if self.config.homeassistant:
            messages.update(formats.ha_discovery(update, self.topics))
        own = self.config.settings(mirror.table_id).devices
        messages.update(formats.device_messages(update, own))
        for topic, payload in messages.items():
            self.outbox.put(topic, payload)
        mirror.topics |= messages.keys()
        for topic, payload in formats.device_commands(update, mirror.roll, own).items():
            self.outbox.put(topic, payload, retain=False)
        self.follow_spotlight(mirror)

    def follow_spotlight(self, changed: TableMirror | None) -> None:
        """Show the spotlit table on the displays for every table, picking the next one when there is none."""
        if self.shared is None or not self.spotlight_known:
            return
        if self.spotlight is None:
            chosen = self.next_spotlight()
            if chosen is not None:
                self.spotlight = chosen.table_id
                log.info("the displays for every table now show table %s", chosen.table_id)
            changed = chosen
        elif changed is None:
            changed = self.mirrors.get(self.spotlight)  # an earlier run's, once its first update is here
        elif changed.table_id != self.spotlight:
            return
        self.outbox.put(self.topics.spotlight, (self.spotlight or formats.NOBODY).encode())
        if changed is None or changed.update is None:
            return
        messages = formats.device_messages(changed.update, self.shared)
        for topic, payload in messages.items():
            self.outbox.put(topic, payload)
        changed.topics |= messages.keys()
        for topic, payload in formats.device_commands(changed.update, changed.roll, self.shared).items():
            self.outbox.put(topic, payload, retain=False)

    def next_spotlight(self) -> TableMirror | None:
        """The playing table that started first, or None: none plays, or the first to start has yet to
        deliver its first update (then it is picked when that arrives, not a table whose stream was quicker)."""
        order = sorted((n, t) for t, n in self.started.items() if t in self.mirrors or t in self.watchers)
        for _, table_id in order:
            mirror = self.mirrors.get(table_id)
            if mirror is None or mirror.update is None:
                if table_id in self.watchers:
                    return None
                continue
            if mirror.update.status == table_pb2.TABLE_STATUS_PLAYING:
                return mirror
        return None

    def clear_shared_displays(self, table_id: str) -> None:
        """Clear what the displays for every table show of `table_id`: WLED's text, TM1637 numbers (DisplayClear)
        and the table's AWTRIX app."""
        assert self.shared is not None
        topics = set(formats.device_topics(table_id, self.shared))
        for topic in sorted(topics):
            self.outbox.clear(topic)
        for device, _ in self.shared.tasmota:
            self.outbox.forget(formats.tasmota_topic(device))  # after DisplayClear, the same number must go again
            self.outbox.put(formats.tasmota_clear_topic(device), b"", retain=False, force=True)

    def clear_table(self, table_id: str, seats: int = 0) -> None:
        """Delete every retained topic of a table (finished, deleted, or left over from an earlier run)."""
        mirror = self.mirrors.pop(table_id, None)
        self.done.add(table_id)
        self.started.pop(table_id, None)
        self.clears_at.pop(safe_level(table_id), None)
        topics = set(mirror.topics) if mirror else set()
        if mirror is not None and mirror.update is not None:
            seats = max(seats, len(mirror.update.seats))
        topics |= set(self.topics.table_topics(table_id, seats))
        if self.config.homeassistant:
            topics |= set(self.topics.ha_topics(table_id, seats))
        own = self.config.settings(table_id).devices
        topics |= set(formats.device_topics(table_id, own))
        spotlit = self.spotlight == table_id
        if self.shared is not None:
            # An AWTRIX app is the table's own (one per table): delete it, even one an earlier run left.
            topics |= {formats.awtrix_topic(prefix, table_id) for prefix in self.shared.awtrix}
        for topic in sorted(topics):
            self.outbox.clear(topic)
        for device, _ in own.tasmota:
            self.outbox.forget(formats.tasmota_topic(device))  # after DisplayClear, the same number must go again
            self.outbox.put(formats.tasmota_clear_topic(device), b"", retain=False, force=True)
        if self.shared is not None and (spotlit or self.spotlight is None):
            self.clear_shared_displays(table_id)  # otherwise the shared displays show another table
        if spotlit:
            self.spotlight = None
            self.follow_spotlight(None)

    def on_broker_connect(self) -> None:
        """A new broker connection: announce discovery again (the broker may be a fresh one)."""
        self._broker_since = time.monotonic()
        if self.config.homeassistant:
            self.announce_discovery()
        if not self._old_commands_cleared:
            self._spawn(self.clear_old_commands(), name="clear-old-commands")

    async def clear_old_commands(self) -> None:
        """Delete Tasmota commands that older bridges published retained (a broker replays a retained command
        to the device whenever it reconnects); once per run."""
        devices = {device for settings in self.config.per_table.values() for device, _ in settings.devices.tasmota}
        for device in sorted(devices):
            if not await self.link.publish_now(formats.tasmota_topic(device), b"", retain=True):
                return  # not connected any more: next time
        self._old_commands_cleared = True

    async def _ignore_message(self, message: aiomqtt.Message) -> None:
        """The server-state connection subscribes to nothing."""

    def announce_discovery(self) -> None:
        """Publish every table's discovery config again (Home Assistant restarted and forgot them)."""
        for mirror in self.mirrors.values():
            if mirror.update is not None:
                for topic, payload in formats.ha_discovery(mirror.update, self.topics).items():
                    self.outbox.put(topic, payload, force=True)

    # -- incoming messages: Home Assistant's birth message and roll buttons ---------------------------------

    async def on_message(self, message: aiomqtt.Message) -> None:
        """Home Assistant's birth message, or a button press (never acted on when retained)."""
        topic = message.topic.value
        payload = message.payload if isinstance(message.payload, bytes) else str(message.payload or "").encode()
        if self.config.homeassistant and topic == self.topics.ha_status:
            if payload.strip() == b"online":
                self.announce_discovery()
            return
        if topic == self.topics.spotlight:
            if not self.spotlight_known:  # what an earlier run showed (later: our own, echoed back)
                shown = payload.decode("utf-8", "replace").strip()
                self.spotlight = shown if shown and shown != formats.NOBODY else None
            return
        lingering = self.topics.table_of_clears_at(topic)
        if lingering is not None:
            text = payload.decode("ascii", "replace").strip()
            if text.isdigit():
                self.clears_at[lingering] = int(text)
            elif not text:
                self.clears_at.pop(lingering, None)
            return
        table_id = self.press_topics.get(topic) or self.topics.table_of_press(topic)
        if table_id is None:
            return
        if message.retain:
            if payload.strip() and topic == self.topics.press(table_id):
                self.outbox.clear(topic)  # a stale press on our own topic would be handed out on every connect
            if payload.strip():
                await self.press_result(
                    table_id, {"ok": False, "error": "retained press ignored (publish presses without retain)"}
                )
            return
        if table_id in self._pressing:  # one press at a time per table: a flood of presses is not a flood of calls
            log.info("press at table %s dropped: the previous one is still being handled", table_id)
            return
        self._pressing.add(table_id)
        self._spawn(self.handle_press(table_id, payload), name=f"press-{table_id}")

    async def press_result(self, table_id: str, result: dict[str, Any]) -> None:
        """Tell the device (and its owner) what became of a press; not retained: it is an event."""
        await self.link.publish_now(self.topics.press_result(table_id), formats.encode(result))

    async def handle_press(self, table_id: str, payload: bytes) -> None:
        """Roll for whoever must roll at `table_id`, if its host gave us its device token."""
        try:
            press = parse_press(payload)
            if press is None:
                return
            result = await self.roll_for_press(table_id, press)
        except PressRefused as refusal:
            log.info("press at table %s refused: %s", table_id, refusal)
            result = {"ok": False, "error": str(refusal)}
        except Exception:  # a press must always end with a result, never with an unretrieved exception
            log.warning("press at table %s failed", table_id, exc_info=True)
            result = {"ok": False, "error": "the press could not be handled"}
        finally:
            self._pressing.discard(table_id)
        await self.press_result(table_id, result)

    async def roll_for_press(self, table_id: str, press: Press) -> dict[str, Any]:
        """Send the roll with the table's device token; PressRefused when it must not or cannot roll."""
        token = self.config.settings(table_id).device_token
        if not token:
            raise PressRefused("hardware input is off at this table (the bridge has no device token for it)")
        mirror = self.mirrors.get(table_id)
        if mirror is None or mirror.update is None:
            raise PressRefused("the bridge is not following this table")
        loop = asyncio.get_running_loop()
        press_id = press.press_id
        if press_id is None:
            # No id from the device: a press within the debounce window is the same press (a device's
            # retry or a bouncing contact), and a press at a version already pressed is the same press too.
            now = loop.time()
            last = mirror.last_press
            if last is not None and now - last[0] < self.config.press_debounce:
                press_id = last[1]
            else:
                press_id = f"v{mirror.update.version}"
            mirror.last_press = (now, press_id)
        request_id = request_id_for(table_id, press_id)
        assert self.client is not None
        for attempt in range(2):
            version = mirror.update.version
            try:
                response = await self.client.device_roll(table_id, token, version, request_id)
            except grpc.aio.AioRpcError as error:
                if error.code() == grpc.StatusCode.ABORTED and attempt == 0:
                    # Our view was a step behind: wait for the next update, then try again (never applied twice:
                    # the request id is the same).
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(1.0):
                            await mirror.changed.wait()
                    continue
                raise PressRefused(f"{error.details()} [{error.code().name}]") from None
            return {
                "ok": True,
                "press_id": press_id,
                "request_id": request_id,
                "version": response.version,
                "replayed": response.replayed,
            }
        raise PressRefused("the table kept changing; press again")


async def run_bridge(config: BridgeConfig, stop: asyncio.Event) -> None:
    """The whole bridge, until `stop` is set (tests run it in-process with their own stop event)."""
    await Bridge(config).run(stop)


async def _main(config: BridgeConfig) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    tables = "all tables" if config.tables is None else ", ".join(config.tables)
    print(
        f"toadstool bridge: {tables} on {config.server} -> mqtt://{config.broker.host}:{config.broker.port}"
        f" under {config.prefix}/ (Ctrl+C to stop)",
        file=sys.stderr,
        flush=True,
    )
    await run_bridge(config, stop)
    return 0


def main(argv: Sequence[str]) -> int:
    """`toadstool bridge ARGS` on its own: run the bridge until interrupted."""
    return run(build_parser().parse_args(list(argv)))


def run(args: argparse.Namespace) -> int:
    """`toadstool bridge` with its parsed options: run the bridge until interrupted."""
    try:
        config = config_from_options(args)
    except ConfigError as error:
        print(f"toadstool bridge: {error}", file=sys.stderr)
        return 2
    verbose = bool(getattr(args, "verbose", False))
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(message)s")
    logging.getLogger("toadstool_clients.bridge.mqtt").setLevel(logging.INFO if verbose else logging.WARNING)
    try:
        return asyncio.run(_main(config))
    except KeyboardInterrupt:
        return 130


__all__ = ["Bridge", "PressRefused", "add_arguments", "main", "parse_press", "request_id_for", "run", "run_bridge"]
