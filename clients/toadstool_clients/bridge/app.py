"""`toadstool bridge`: follow tables as a spectator and mirror their public state to an MQTT broker.

It is for the running bridge: which tables to follow (ListTables polling for `--tables all`), one
spectator stream per table, clearing finished or deleted tables, which table the displays configured
for every table ("*") show, pacing die rolls, keeping AWTRIX apps alive, Home Assistant re-announcement
and hardware roll buttons. It is not for payloads (`formats`), topic names (`topics`), reading button
presses (`presses`) or the broker connection (`publisher`). It is a client like any other: the server
knows nothing of MQTT, and a broker outage only delays what the bridge publishes (the game never waits
for it).

Displays for "*" show one table at a time (the spotlight): the first table that plays, until it has
finished and another table plays, or its topics are cleared (it lingered, or it vanished); then the
playing table that started playing first, and so on. A display that follows whichever table changed last
would flip between tables several times a second, and its text would be unreadable. Which table they
show is retained on the broker, so a restarted bridge goes on with it (a finished table's result
included, while nothing else plays) instead of jumping to another. Home Assistant's spotlight entities
follow the same table.

Each table's die rolls are queued and shown one by one, `--roll-pace` apart on a `Clock` (real time, or a
test's), so a start order's rolls all reach the die and a repeated value is sent again.

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
from collections import deque
from collections.abc import AsyncGenerator, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

import aiomqtt
import grpc

from toadstool.api.scopes import TaskScope, logged
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
from toadstool_clients.bridge.publisher import BrokerLink, Outbox
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
#: The most rolls of one table waiting for the die (a table rolling faster than `--roll-pace` for long:
#: the oldest waiting roll is skipped).
MAX_QUEUED_ROLLS = 24


class Clock(Protocol):
    """What paces the bridge's displays (a die's rolls, AWTRIX apps sent again): real time, or in a test a
    clock the test moves."""

    async def sleep(self, seconds: float) -> None: ...


class RealClock:
    """Real time: asyncio's sleep."""

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


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
    #: Rolls waiting to be shown on the die, the newest queued ((version, n) of its roll id), and the task
    #: showing them one by one.
    rolls: deque[formats.Roll] = field(default_factory=lambda: deque(maxlen=MAX_QUEUED_ROLLS))
    queued: tuple[int, int] | None = None
    player: asyncio.Task[None] | None = None
    #: Whether an update has arrived: the first carries recent history (the server's HISTORY_ON_JOIN events).
    primed: bool = False

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

    def __init__(self, config: BridgeConfig, clock: Clock | None = None) -> None:
        self.config = config
        self.clock: Clock = clock or RealClock()
        self.topics = Topics(config.prefix, config.ha_prefix)
        self.outbox = Outbox(config.min_interval)
        self.mirrors: dict[str, TableMirror] = {}
        self.watchers: dict[str, asyncio.Task[None]] = {}
        #: Tables finished or gone: cleared once and never followed again.
        self.done: set[str] = set()
        self.press_topics: dict[str, str] = {
            topic: table_id for table_id, settings in config.per_table.items() for topic in settings.press_topics
        }
        #: Displays for every table, and the one table they show now (None: none plays). Home Assistant's
        #: spotlight entities follow the same table, so with --homeassistant there is a spotlight even when
        #: no display is given for "*".
        shared = config.per_table.get(ALL_TABLES)
        self.shared: formats.Devices | None = shared.devices if shared and shared.devices else None
        if self.shared is None and config.homeassistant:
            self.shared = formats.Devices()
        #: The most seats a spotlit table had: how many seats Home Assistant's spotlight entities cover.
        self.spotlight_seats = 0
        #: Tasmota displays' command topics, watched for retained commands an older bridge left.
        self.tasmota_commands = {
            formats.tasmota_topic(device) for s in config.per_table.values() for device, _ in s.devices.tasmota
        }
        self.awtrix_prefixes = sorted({prefix for s in config.per_table.values() for prefix in s.devices.awtrix})
        self.spotlight: str | None = None
        #: Whether the bridge knows what the shared displays show: not until a listing after the broker
        #: handed out the retained spotlight an earlier run left (it is the earlier run's until then).
        self.spotlight_known = False
        #: The version at which a listing first showed each followed table: rolls up to it are history.
        self.listed_at: dict[str, int] = {}
        #: The order in which the bridge saw tables start playing (who is next on the shared displays).
        self.started: dict[str, int] = {}
        self._start_order = itertools.count()
        #: When finished tables are cleared (Unix ms), by topic level: ours, or an earlier run's from the broker.
        self.clears_at: dict[str, int] = {}
        self._broker_since: float | None = None
        subscriptions = [self.topics.press_wildcard, self.topics.clears_at_wildcard, *self.press_topics]
        subscriptions += sorted(self.tasmota_commands)
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
        #: The bridge's scope, while it runs (`run`).
        self._scope: TaskScope | None = None
        #: Tables with a press being handled right now.
        self._pressing: set[str] = set()

    # -- running ------------------------------------------------------------------------------------------

    async def run(self, stop: asyncio.Event) -> None:
        """Run until `stop` is set; then say "offline" and end every task.

        The bridge's scope holds its broker connections, the table listing's poll and the AWTRIX refresh,
        and per table a watcher, a roll player and a press being handled; leaving it cancels what still
        runs. A failure of one table's task is logged and ends only that task (the next listing follows
        the table afresh); a failure of the bridge's own tasks ends the bridge with that error, rather
        than leaving it running without its broker or its listing."""
        async with Client(self.config.server, tls_ca=self.config.server_tls_ca) as client, TaskScope() as tasks:
            self.client, self._scope = client, tasks
            link = tasks.create_task(self.link.run(stop), name="bridge-broker")
            server_link = tasks.create_task(self.server_link.run(stop), name="bridge-broker-server")
            tasks.create_task(self.poll_tables(stop), name="bridge-poll")
            tasks.create_task(self.refresh_awtrix(), name="bridge-awtrix-refresh")
            try:
                await stop.wait()
                await asyncio.wait([link, server_link], timeout=5)  # saying goodbye and disconnecting is bounded
            finally:
                # However the bridge ends, its links see `stop` too: a link whose cancellation aiomqtt's
                # asyncio.wait_for swallowed (Python 3.11) then still ends, and the scope with it.
                stop.set()

    async def refresh_awtrix(self) -> None:
        """Send every AWTRIX 3 app again every AWTRIX_REFRESH seconds: an app has a `lifetime` (so that a dead
        bridge's apps leave the clock), and a table waiting long for a move must not lose its app meanwhile."""
        if not self.awtrix_prefixes:
            return
        heads = tuple(f"{prefix}/custom/toadstool_" for prefix in self.awtrix_prefixes)
        while True:
            await self.clock.sleep(formats.AWTRIX_REFRESH)
            for topic, payload in list(self.outbox.retained.items()):
                if topic.startswith(heads):
                    self.outbox.put(topic, payload, force=True)

    def _spawn(self, name: str, run: Callable[..., Coroutine[Any, Any, None]], *args: Any) -> asyncio.Task[None]:
        """Run one table's `run(*args)` in the bridge's scope; its failure is logged and ends only it."""
        assert self._scope is not None, "the bridge runs (run)"
        return self._scope.create_task(logged(log, name, run, *args), name=name)

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
            found = listed.get(table_id)
            if found is not None and table_id not in self.done:
                self.listed_at.setdefault(table_id, found.version)
            mirror = self.mirrors.get(table_id)
            watcher = self.watchers.get(table_id)
            if watcher is not None and mirror is not None and found is not None and mirror.lags(found):
                log.warning("the stream of table %s is stuck behind the table; following it afresh", table_id)
                watcher.cancel()
                del self.watchers[table_id]
                mirror.behind, mirror.listed_version = 0, None
            if table_id in self.done or table_id in self.watchers:
                continue
            if found is None:
                log.warning("table %s is not on the server; clearing its topics", table_id)
                self.clear_table(table_id)
            elif found.status == table_pb2.TABLE_STATUS_FINISHED:
                # Finished before we saw it: left over from an earlier run. Its result stays for the rest of
                # the linger time that run announced on `clears_at`; without one it is cleared at once.
                if not self.broker_settled():
                    continue  # decided at a later listing, once the broker has handed out `clears_at`
                if self.clear_time_ms(table_id, 0) > time.time() * 1000:
                    self.watchers[table_id] = self._spawn(f"watch-{table_id}", self.watch_table, table_id)
                else:
                    self.clear_table(table_id, len(found.seats))
            else:
                self.watchers[table_id] = self._spawn(f"watch-{table_id}", self.watch_table, table_id)
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
        except Exception:  # a bug, said where it happened (the next listing follows the table afresh)
            log.exception("following table %s failed", table_id)
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
        for topic, payload in formats.device_commands(update, own).items():
            self.outbox.put(topic, payload, retain=False)
        self.follow_spotlight(mirror)
        self.queue_rolls(mirror, update)

    def queue_rolls(self, mirror: TableMirror, update: table_pb2.Update) -> None:
        """Queue the update's new rolls for the die, in order, and fire Home Assistant's roll events now.

        A first update carries the table's recent events: its rolls up to the version the bridge first
        listed the table at were rolled before the bridge knew of it. They are history: no event fires for
        them, and the die shows the last of them (the table's current roll) unless newer rolls follow.
        """
        table_id = mirror.table_id
        rolls = formats.rolls(update)
        history = False
        if not mirror.primed:
            mirror.primed = True
            since = self.listed_at.get(table_id)
            fresh = [roll for roll in rolls if since is not None and roll.version > since]
            rolls, history = (fresh, False) if fresh else (rolls[-1:], True)
        for roll in rolls:
            version, _, n = roll.roll_id.partition(".")
            key = (int(version), int(n))
            if mirror.queued is not None and key <= mirror.queued:
                continue  # seen already (a stream followed afresh may deliver its last update again)
            mirror.queued = key
            mirror.rolls.append(roll)
            if self.config.homeassistant and not history:
                self.outbox.event(self.topics.roll_event(table_id), formats.roll_event(roll, table_id))
                if self.spotlight == table_id:
                    self.outbox.event(self.topics.spotlight_roll_event, formats.roll_event(roll, table_id))
        if mirror.rolls and (mirror.player is None or mirror.player.done()):
            mirror.player = self._spawn(f"rolls-{table_id}", self.play_rolls, mirror)

    async def play_rolls(self, mirror: TableMirror) -> None:
        """Show a table's rolls one by one, `--roll-pace` apart: a start order's rolls, which arrive in one
        update, each reach the die, and a value equal to the last is sent again (the die shows a new roll)."""
        while mirror.rolls:
            self.show_roll(mirror, mirror.rolls.popleft())
            await self.clock.sleep(self.config.roll_pace)

    def show_roll(self, mirror: TableMirror, roll: formats.Roll) -> None:
        """One roll on the table's `roll` topic and its dice (and the spotlight's, if it shows this table)."""
        table_id = mirror.table_id
        mirror.roll = roll
        payload = formats.encode(roll.payload(table_id))
        topic = self.topics.roll(table_id)
        self.outbox.put(topic, payload)
        mirror.topics.add(topic)
        for command, number in formats.roll_commands(roll, self.config.settings(table_id).devices).items():
            self.outbox.event(command, number)
        if self.shared is not None and self.spotlight == table_id:
            self.outbox.put(self.topics.spotlight_roll, payload)
            for command, number in formats.roll_commands(roll, self.shared).items():
                self.outbox.event(command, number)

    def follow_spotlight(self, changed: TableMirror | None) -> None:
        """Show the spotlit table on the displays for every table, picking the next one when there is none,
        or when the one shown has finished and another table plays (its result gives way to a game)."""
        if self.shared is None or not self.spotlight_known:
            return
        shown = self.mirrors.get(self.spotlight) if self.spotlight is not None else None
        if shown is not None and shown.update is not None and shown.update.status == table_pb2.TABLE_STATUS_FINISHED:
            successor = self.next_spotlight()
            if successor is not None:
                log.info("table %s has finished; the displays for every table go to table %s", shown.table_id,
                         successor.table_id)  # fmt: skip
                self.clear_shared_displays(shown.table_id)
                self.spotlight = None
        if self.spotlight is None:
            chosen = self.next_spotlight()
            if chosen is not None:
                self.spotlight = chosen.table_id
                log.info("the displays for every table now show table %s", chosen.table_id)
                if chosen.roll is not None:  # the die shows the new table's last roll
                    self.outbox.put(self.topics.spotlight_roll, formats.encode(chosen.roll.payload(chosen.table_id)))
                    for command, number in formats.roll_commands(chosen.roll, self.shared).items():
                        self.outbox.event(command, number)
            changed = chosen
        elif changed is None:
            changed = self.mirrors.get(self.spotlight)  # an earlier run's, once its first update is here
        elif changed.table_id != self.spotlight:
            return
        self.outbox.put(self.topics.spotlight, (self.spotlight or formats.NOBODY).encode())
        if self.spotlight is None:
            self.publish_spotlight(None)
        if changed is None or changed.update is None:
            return
        self.publish_spotlight(changed.update)
        messages = formats.device_messages(changed.update, self.shared)
        for topic, payload in messages.items():
            self.outbox.put(topic, payload)
        changed.topics |= messages.keys()
        for topic, payload in formats.device_commands(changed.update, self.shared).items():
            self.outbox.put(topic, payload, retain=False)

    def publish_spotlight(self, update: table_pb2.Update | None) -> None:
        """The spotlight's own topics (what Home Assistant's spotlight entities read): the shown table's
        state, or "none"; the discovery grows when a table with more seats than any before is shown."""
        for topic, payload in formats.spotlight_messages(update, self.topics).items():
            self.outbox.put(topic, payload)
        if update is None:
            self.outbox.put(self.topics.spotlight_roll, formats.encode({"table": None, "value": formats.NOBODY}))
        elif len(update.seats) > self.spotlight_seats:
            self.spotlight_seats = len(update.seats)
            if self.config.homeassistant:
                self.announce_spotlight()

    def announce_spotlight(self) -> None:
        for topic, payload in formats.ha_spotlight_discovery(self.topics, self.spotlight_seats).items():
            self.outbox.put(topic, payload, force=True)

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
        """Clear what the displays for every table show of `table_id`: WLED's text (its retained state deleted,
        then WLED_CLEAR), TM1637 numbers (DisplayClear) and the table's AWTRIX app."""
        assert self.shared is not None
        self.clear_displays(table_id, self.shared)

    def clear_displays(self, table_id: str, devices: formats.Devices) -> None:
        """Clear `devices` of what they show of `table_id` (see clear_shared_displays)."""
        wled = formats.encode(formats.WLED_CLEAR)
        for topic in formats.wled_topics(devices):
            self.outbox.clear(topic, then=wled)
        for prefix in devices.awtrix:
            self.outbox.clear(formats.awtrix_topic(prefix, table_id))
        for device, _ in devices.tasmota:
            self.outbox.forget(formats.tasmota_topic(device))  # after DisplayClear, the same number must go again
            # An event: after every roll the die was given, before any roll of the next table.
            self.outbox.event(formats.tasmota_clear_topic(device), b"")

    def clear_table(self, table_id: str, seats: int = 0) -> None:
        """Delete every retained topic of a table (finished, deleted, or left over from an earlier run)."""
        mirror = self.mirrors.pop(table_id, None)
        self.done.add(table_id)
        self.started.pop(table_id, None)
        self.listed_at.pop(table_id, None)
        self.clears_at.pop(safe_level(table_id), None)
        topics = set(mirror.topics) if mirror else set()
        if mirror is not None and mirror.player is not None:
            mirror.player.cancel()
        if mirror is not None and mirror.update is not None:
            seats = max(seats, len(mirror.update.seats))
        topics |= set(self.topics.table_topics(table_id, seats))
        if self.config.homeassistant:
            topics |= set(self.topics.ha_topics(table_id, seats))
        own = self.config.settings(table_id).devices
        shared_topics = set(formats.device_topics(table_id, self.shared)) if self.shared is not None else set()
        display_topics = set(formats.device_topics(table_id, own)) | shared_topics
        for topic in sorted(topics - display_topics):
            self.outbox.clear(topic)
        self.clear_displays(table_id, own)
        spotlit = self.spotlight == table_id
        if self.shared is not None:
            # An AWTRIX app is the table's own (one per table): delete it, even one an earlier run left.
            for prefix in self.shared.awtrix:
                self.outbox.clear(formats.awtrix_topic(prefix, table_id))
            if spotlit or self.spotlight is None:
                self.clear_shared_displays(table_id)  # otherwise the shared displays show another table
        if spotlit:
            self.spotlight = None
            self.follow_spotlight(None)

    def on_broker_connect(self) -> None:
        """A new broker connection: announce discovery again (the broker may be a fresh one)."""
        self._broker_since = time.monotonic()
        if self.config.homeassistant:
            self.announce_discovery()

    def on_tasmota_command(self, topic: str, payload: bytes, retain: bool) -> None:
        """A retained command on a Tasmota display's topic, which an older bridge left: the broker would hand
        it to the device at every reconnect. It is deleted (which the device hears as an empty command, so
        the number it should show follows at once, or DisplayClear when there is none). The bridge's own
        commands are never retained, so a broker without such a leftover sends the device nothing at start."""
        if not retain or not payload:
            return
        log.info("deleting a retained %s that an older bridge left", topic)
        outbox = self.outbox
        outbox.event(topic, b"", retain=True)
        if topic in outbox.pending:
            return  # the number it should show is on its way, after the deletion (events go first)
        current = outbox.inflight.get(topic) or outbox.sent.get(topic)
        if current is not None:
            outbox.event(topic, current)
        else:
            outbox.event(formats.tasmota_clear_topic(topic.split("/")[1]), b"")

    async def _ignore_message(self, message: aiomqtt.Message) -> None:
        """The server-state connection subscribes to nothing."""

    def announce_discovery(self) -> None:
        """Publish every table's discovery config again (Home Assistant restarted and forgot them), and the
        spotlight's."""
        for mirror in self.mirrors.values():
            if mirror.update is not None:
                for topic, payload in formats.ha_discovery(mirror.update, self.topics).items():
                    self.outbox.put(topic, payload, force=True)
        self.announce_spotlight()

    # -- incoming messages: Home Assistant's birth message and roll buttons ---------------------------------

    async def on_message(self, message: aiomqtt.Message) -> None:
        """Home Assistant's birth message, or a button press (never acted on when retained)."""
        topic = message.topic.value
        payload = message.payload if isinstance(message.payload, bytes) else str(message.payload or "").encode()
        if self.config.homeassistant and topic == self.topics.ha_status:
            if payload.strip() == b"online":
                self.announce_discovery()
            return
        if topic in self.tasmota_commands:
            self.on_tasmota_command(topic, payload, message.retain)
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
        self._spawn(f"press-{table_id}", self.handle_press, table_id, payload)

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
