"""The MQTT bridge against a real server and a real Mosquitto broker: retained state for late
subscribers, availability, broker and server restarts, deleted tables, Home Assistant discovery, display
payloads, bounded publishing rates, and hardware roll buttons."""

from __future__ import annotations

import asyncio
import importlib.metadata
import itertools
import json
import os
import signal
import subprocess
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

from conftest import start_serve, toadstool_command
from mqtt_helpers import (  # noqa: F401
    Broker,
    Recorder,
    bridge_args,
    broker_fixture,
    kart_waiting_for_ann,
    publish,
    recording,
    retained,
    running_bridge,
    wait_until_waiting,
)
from toadstool.api.v1 import table_pb2
from toadstool.server.app import RunningServer
from toadstool_clients.bridge import formats
from toadstool_clients.bridge.topics import Topics
from toadstool_clients.certs import make_certificate
from toadstool_clients.connection import Client

TOPICS = Topics()
#: Where payloads a person may want to read are kept.
SHOWN = Path(__file__).resolve().parent.parent / "test-output" / "mqtt"


async def retained_until(
    address: str, check: object, seconds: float = 15.0, login: tuple[str, str] | None = None
) -> dict[str, bytes]:
    """Poll what a late subscriber sees until `check(found)` holds (bounded in time): one read may end before
    a busy broker has delivered every retained message."""
    deadline = asyncio.get_running_loop().time() + seconds
    while True:
        found = await retained(address, "#", quiet=0.3, login=login)
        if check(found):  # type: ignore[operator]
            return found
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError(f"retained state never matched; last seen: {sorted(found)}")
        await asyncio.sleep(0.2)


async def wait_finished(client: Client, table_id: str, seconds: float = 30.0) -> None:
    """Watch a table until its game is over (bounded in time)."""
    call = client.watch(table_id)
    try:
        async with asyncio.timeout(seconds):
            async for response in call:
                if response.update.status == table_pb2.TABLE_STATUS_FINISHED:
                    return
    finally:
        call.cancel()


async def test_a_late_subscriber_sees_the_current_state_of_a_table_at_once(
    server: RunningServer, client: Client, broker: Broker
) -> None:
    table = await kart_waiting_for_ann(client, turn_seconds=600)
    tid = table.table_id
    async with running_bridge(*bridge_args(server.address, broker)):
        wanted = [TOPICS.roll(tid), TOPICS.view(tid), TOPICS.seat_name(tid, 0), TOPICS.seat_score(tid, 1)]
        found = await retained_until(broker.address, lambda f: all(t in f for t in [TOPICS.turn(tid), *wanted]))
    state = json.loads(found[TOPICS.state(tid)])
    assert state["game"] == "kart"
    assert state["name"] == "Kart night"
    assert state["status"] == "playing"
    assert state["to_act"] == [0]
    assert state["turn"] == ["Ann"]
    assert state["score_label"] == "laps"
    assert state["turn_seconds"] == 600
    assert abs(state["turn_deadline_unix_ms"] / 1000 - (time.time() + 600)) < 30
    assert [seat["name"] for seat in state["seats"]] == ["Ann", "Bot 1"]
    assert found[TOPICS.turn(tid)] == b"Ann"
    assert found[TOPICS.seat_name(tid, 0)] == b"Ann"
    assert found[TOPICS.seat_score(tid, 1)] == str(state["scores"][1]).encode()
    assert json.loads(found[TOPICS.view(tid)])["view"]["kart"]["karts"]
    roll = json.loads(found[TOPICS.roll(tid)])
    assert roll["roller"] == 1
    assert roll["roller_name"] == "Bot 1"
    assert 1 <= roll["value"] <= 6
    assert set(roll) == {"table", "roll_id", "version", "roller", "roller_name", "purpose", "value"}
    # The bridge said goodbye when it stopped; the table state stays for displays.
    after = await retained_until(broker.address, lambda f: TOPICS.status in f and TOPICS.state(tid) in f)
    assert after[TOPICS.status] == b"offline"
    assert after[TOPICS.state(tid)] == found[TOPICS.state(tid)]


def ha_available(config: dict[str, Any], found: dict[str, bytes]) -> bool:
    """Whether Home Assistant takes an entity for available, given the retained payloads `found`: with
    `availability_mode: all`, every availability topic must carry its `payload_available`."""
    assert config["availability_mode"] == "all"
    return all(
        found.get(entry["topic"]) == entry.get("payload_available", "online").encode()
        for entry in config["availability"]
    )


def _bridge_process(server: str, broker: Broker, tmp_path: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    return subprocess.Popen(
        toadstool_command("bridge", *bridge_args(server, broker)),
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


async def test_a_killed_bridge_leaves_its_last_will_offline_and_no_stale_server_state(
    server: RunningServer, broker: Broker, tmp_path: Path
) -> None:
    """SIGKILL: the broker's last wills say "offline" and delete `bridge/server`, which would otherwise
    claim "connected" for a bridge that is gone."""
    process = _bridge_process(server.address, broker, tmp_path)
    try:
        await retained_until(
            broker.address, lambda f: f.get(TOPICS.status) == b"online" and f.get(TOPICS.server) == b"connected"
        )
        process.kill()
        await asyncio.to_thread(process.wait, 10)
        found = await retained_until(broker.address, lambda f: f.get(TOPICS.status) == b"offline", 10)
        found = await retained_until(broker.address, lambda f: TOPICS.server not in f, 5)
        assert found[TOPICS.status] == b"offline"
    finally:
        process.kill()
        process.wait(10)


async def test_a_bridge_stopped_cleanly_publishes_offline_and_exits_with_success(
    server: RunningServer, broker: Broker, tmp_path: Path
) -> None:
    process = _bridge_process(server.address, broker, tmp_path)
    try:
        async with recording(broker.address, TOPICS.status) as recorder:
            await recorder.wait_for(lambda r: r.latest(TOPICS.status) == b"online")
            process.send_signal(signal.SIGTERM)
            assert await asyncio.to_thread(process.wait, 10) == 0
            await recorder.wait_for(lambda r: r.latest(TOPICS.status) == b"offline", 5)
        assert TOPICS.server not in await retained(broker.address), "a stopped bridge reaches no server"
    finally:
        process.kill()
        process.wait(10)


async def test_after_a_broker_restart_mid_game_the_bridge_publishes_the_retained_state_again(
    server: RunningServer, client: Client, broker: Broker
) -> None:
    table = await kart_waiting_for_ann(client)
    tid = table.table_id
    async with running_bridge(*bridge_args(server.address, broker)) as bridge:
        before = await retained_until(broker.address, lambda f: TOPICS.roll(tid) in f and TOPICS.turn(tid) in f)
        await asyncio.to_thread(broker.restart)  # persistence is off: the broker forgets every retained message
        again = await retained_until(broker.address, lambda f: set(before) <= set(f))
        assert {topic: again[topic] for topic in before} == before, "every retained topic is back, unchanged"
        # The game goes on, and the bridge follows it on the new connection.
        update = await wait_until_waiting(client, tid)
        await client.act(tid, table.seat_token, update.version, "roll")
        moved = await retained_until(
            broker.address,
            lambda f: (
                min(json.loads(f[TOPICS.roll(tid)])["version"], json.loads(f[TOPICS.state(tid)])["version"])
                > update.version
            ),
        )
        assert json.loads(moved[TOPICS.view(tid)])["game"] == "kart"
        assert bridge.link.connected.is_set()


async def test_with_tables_all_new_tables_are_followed_and_a_table_that_vanishes_is_cleared(
    server: RunningServer, client: Client, broker: Broker
) -> None:
    table = await kart_waiting_for_ann(client)
    tid = table.table_id
    async with recording(broker.address) as recorder, running_bridge(*bridge_args(server.address, broker)):
        await recorder.wait_for(lambda r: r.latest(TOPICS.turn(tid)) == b"Ann")
        later = (await kart_waiting_for_ann(client, seed=8)).table_id
        await recorder.wait_for(lambda r: r.latest(TOPICS.turn(later)) == b"Ann")
        del server.registry.tables[tid]
        await recorder.wait_for(lambda r: r.latest(TOPICS.state(tid)) == b"")
        found = await retained_until(broker.address, lambda f: not any(tid in topic for topic in f))
        assert found[TOPICS.status] == b"online"
        assert found[TOPICS.turn(later)] == b"Ann", "the other table stays"


async def test_the_bridge_rides_out_a_server_restart_and_follows_the_table_where_it_left_off(
    broker: Broker, tmp_path: Path
) -> None:
    db = str(tmp_path / "tables.db")
    flags = ("--bot-delay", "0", "--min-bot-delay", "0", "--db", db)
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_STATE_HOME": str(tmp_path / "state")}
    output = tmp_path / "serve.log"
    first, address = await asyncio.to_thread(start_serve, *flags, output=output, env=env)
    port = int(address.rsplit(":", 1)[1])

    def start() -> subprocess.Popen[bytes]:  # the restart comes back at the port the first start got
        return start_serve(*flags, output=output, env=env, port=port)[0]

    processes = [first]
    try:
        async with Client(address) as client:
            table = await kart_waiting_for_ann(client)
        tid = table.table_id
        args = bridge_args(address, broker, "--homeassistant")
        async with recording(broker.address) as recorder, running_bridge(*args):
            await recorder.wait_for(lambda r: r.latest(TOPICS.turn(tid)) == b"Ann")
            announced = [TOPICS.ha_config(tid, "seat1_score"), TOPICS.ha_config(tid, "roll", "event")]
            announced += [TOPICS.ha_spotlight_config("seat1_name"), TOPICS.ha_spotlight_config("roll", "event")]
            await recorder.wait_for(lambda r: all(r.latest(topic) for topic in announced))
            assert recorder.latest(TOPICS.server) == b"connected"
            # Home Assistant's entities are available while the bridge is online and reaches the server.
            configs = [
                json.loads(m.payload) for m in recorder.messages if m.topic.startswith("homeassistant/") and m.payload
            ]
            assert len(configs) > 5

            def available(r: Recorder) -> set[bool]:
                latest = {topic: r.latest(topic) or b"" for topic in (TOPICS.status, TOPICS.server)}
                return {ha_available(config, latest) for config in configs}

            assert available(recorder) == {True}
            before = json.loads(recorder.latest(TOPICS.state(tid)) or b"")
            processes[0].terminate()
            await asyncio.to_thread(processes[0].wait, 10)
            await recorder.wait_for(lambda r: r.latest(TOPICS.server) == b"unreachable")
            assert recorder.latest(TOPICS.turn(tid)) == b"Ann", "a server outage clears nothing"
            assert available(recorder) == {False}, "no entity shows a stale value as current"
            processes.append(await asyncio.to_thread(start))
            await recorder.wait_for(lambda r: r.latest(TOPICS.server) == b"connected")
            assert available(recorder) == {True}
            async with Client(address) as client:
                update = await wait_until_waiting(client, tid)
                await client.act(tid, table.seat_token, update.version, "roll")
            await recorder.wait_for(
                lambda r: json.loads(r.latest(TOPICS.state(tid)) or b"{}").get("version", 0) > before["version"]
            )
    finally:
        for process in processes:
            process.terminate()
            process.wait(10)


async def test_home_assistant_discovery_has_a_device_per_table_and_is_announced_again_when_it_returns(
    server: RunningServer, client: Client, broker: Broker
) -> None:
    table = await kart_waiting_for_ann(client)
    tid = table.table_id
    configs = [TOPICS.ha_config(tid, entity) for entity in ("turn", "phase", "seat0_score", "seat1_score")]
    async with (
        recording(broker.address) as recorder,
        running_bridge(*bridge_args(server.address, broker, "--homeassistant")),
    ):
        await recorder.wait_for(lambda r: all(r.latest(topic) for topic in configs))
        payloads = {topic: json.loads(recorder.latest(topic) or b"") for topic in configs}
        devices = {json.dumps(p["device"], sort_keys=True) for p in payloads.values()}
        assert len(devices) == 1, "one device per table"
        device = payloads[configs[0]]["device"]
        assert device["identifiers"] == [f"toadstool_toadstool_{tid}"]
        assert device["name"] == "Kart night"
        assert device["model"] == "kart"
        turn = payloads[TOPICS.ha_config(tid, "turn")]
        assert turn["state_topic"] == TOPICS.turn(tid)
        assert turn["availability_mode"] == "all"
        assert ha_available(turn, await retained(broker.address, f"{TOPICS.prefix}/bridge/#"))
        score = payloads[TOPICS.ha_config(tid, "seat0_score")]
        assert score["name"] == "Ann laps"
        assert score["state_topic"] == TOPICS.seat_score(tid, 0)
        assert score["unit_of_measurement"] == "laps"
        assert score["unique_id"] == f"toadstool_toadstool_{tid}_seat0_score"
        assert len({p["unique_id"] for p in payloads.values()}) == len(configs)
        phase = payloads[TOPICS.ha_config(tid, "phase")]
        assert phase["state_topic"] == TOPICS.state(tid)
        assert phase["value_template"] == "{{ value_json.phase }}"
        # Home Assistant restarts: its birth message makes the bridge announce everything again.
        seen = len(recorder.on(configs[2]))
        await publish(broker.address, "homeassistant/status", b"online")
        await recorder.wait_for(lambda r: len(r.on(configs[2])) > seen)


async def test_wled_awtrix_and_tasmota_displays_get_ready_made_payloads_and_are_cleared_with_the_table(
    server: RunningServer, client: Client, broker: Broker
) -> None:
    table = await kart_waiting_for_ann(client)
    tid = table.table_id
    args = bridge_args(server.address, broker)
    args += ["--wled", f"{tid}=wled/matrix", "--awtrix", f"{tid}=awtrix_1a2b", "--tasmota", f"{tid}=tm1637:1"]
    args += ["--tasmota", f"{tid}=dice:roll"]
    awtrix = f"awtrix_1a2b/custom/toadstool_{tid}"
    async with recording(broker.address) as recorder, running_bridge(*args):
        await recorder.wait_for(lambda r: r.latest(TOPICS.turn(tid)) == b"Ann" and r.latest(awtrix))
        devices = ["wled/matrix/api", awtrix, "cmnd/tm1637/DisplayNumber", "cmnd/dice/DisplayNumber"]
        await recorder.wait_for(lambda r: all(r.latest(topic) for topic in [*devices, TOPICS.roll(tid)]))
        state = json.loads(recorder.latest(TOPICS.state(tid)) or b"")
        scores = state["scores"]
        # WLED JSON API: segment 0 scrolls its name ("n"), which WLED keeps to 32 bytes on an ESP8266; the
        # bridge never says the top-level "on" (whether the lamp is lit is its owner's choice).
        wled = json.loads(recorder.latest("wled/matrix/api") or b"")
        assert wled == {"seg": [{"fx": formats.WLED_SCROLLING_TEXT_FX, "id": 0, "n": wled["seg"][0]["n"], "on": True}]}
        assert wled["seg"][0]["n"] == f">Ann {scores[0]}|Bot 1 {scores[1]}"
        assert len(wled["seg"][0]["n"].encode()) <= formats.WLED_TEXT_LIMIT == 32
        app = json.loads(recorder.latest(awtrix) or b"")
        assert app["text"] == f"Ann to roll | Ann {scores[0]} | Bot 1 {scores[1]}"
        assert app["duration"] == 10
        assert (app["lifetime"], app["lifetimeMode"]) == (formats.AWTRIX_LIFETIME, 0), "a dead bridge's app expires"
        assert recorder.latest("cmnd/tm1637/DisplayNumber") == str(scores[1]).encode()
        await recorder.wait_for(
            lambda r: (
                r.latest("cmnd/dice/DisplayNumber")
                == str(json.loads(r.latest(TOPICS.roll(tid)) or b"{}")["value"]).encode()
            )
        )
        # Tasmota commands are not retained: a broker would replay them to the device on every reconnect.
        assert await retained(broker.address, "cmnd/#") == {}
        del server.registry.tables[tid]
        await recorder.wait_for(lambda r: r.latest(awtrix) == b"" and r.on("cmnd/tm1637/DisplayClear"))
        # WLED applies JSON alone: its retained text is deleted, then a state that clears it is sent.
        await recorder.wait_for(lambda r: r.latest("wled/matrix/api") == formats.encode(formats.WLED_CLEAR))
        cleared = recorder.on("wled/matrix/api")[-2:]
        assert [(m.payload, m.retain) for m in cleared] == [(b"", False), (formats.encode(formats.WLED_CLEAR), False)]
        assert "wled/matrix/api" not in await retained(broker.address, "wled/#")


def _roll_values(steps: list[table_pb2.HistoryStep]) -> list[int]:
    """Every die roll of a table's history, in order."""
    return [event.roll.value for step in steps for event in step.events if event.HasField("roll")]


def _kart_laps_of_seat_0(steps: list[table_pb2.HistoryStep]) -> list[int]:
    """Seat 0's score (laps completed) at every step of a Kart table's history, as the engine counts it."""
    kart_views = [step.view.kart for step in steps if step.view.HasField("kart") and step.view.kart.track.length]
    return [min(kart.karts[0].progress // kart.track.length, kart.laps) for kart in kart_views]


def _is_subsequence(shown: list[bytes], had: list[bytes]) -> bool:
    """Whether `shown` is `had` with some entries left out (in order)."""
    remaining = iter(had)
    return all(value in remaining for value in shown)


def _runs(labels: list[str]) -> list[str]:
    """["A", "A", "B", "A"] -> ["A", "B", "A"]: who a display showed, one entry per uninterrupted run."""
    return [label for label, _ in itertools.groupby(labels)]


async def test_displays_for_every_table_show_one_table_until_it_is_cleared_then_the_next_to_start(
    server: RunningServer, client: Client, broker: Broker
) -> None:
    """Three tables play at once. The `*` displays show the first that started for as long as it plays, then
    (as soon as it has finished, while its result lingers) the next playing table in the order they started:
    never two tables interleaved, never the same text twice in a row, and nothing of a table left on the
    broker once it is cleared."""
    humans, delays = ["Ann", "Bea", "Cid"], [20, 60, 150]  # Ann's table ends first, Cid's last
    hall = ["--wled", "*=wled/hall", "--awtrix", "*=awtrix_hall", "--tasmota", "*=tm_hall:0"]
    hall += ["--tasmota", "*=dice_hall:roll"]
    # Every topic unthrottled, so that the broker gets messages in the order the bridge decided them (a
    # table's finished state before the next table's text), which the hand-over is checked against.
    args = bridge_args(server.address, broker, "--homeassistant", "--min-interval", "0", *hall)
    tables: dict[str, str] = {}  # human name -> table id
    async with recording(broker.address) as recorder, running_bridge(*args):
        for seed, (human, delay) in enumerate(zip(humans, delays, strict=True), start=1):
            created = await client.create_table(
                "kart", 2, bots=1, options={"track": "mini-loop"}, seed=seed, bot_delay_ms=delay, takeover_seconds=1
            )
            tables[human] = created.table.table_id
            await client.join(created.table.table_id, human, 0)  # never connects: a bot plays the seat after 1 s
        await recorder.wait_for(lambda r: r.latest("cmnd/tm_hall/DisplayNumber"))
        assert await retained(broker.address, "cmnd/#") == {}, "Tasmota commands are never retained"
        await recorder.wait_for(lambda r: all(r.latest(TOPICS.state(t)) == b"" for t in tables.values()), 90)
        # Each table's other topics (and the hall's displays, after the last) are cleared after its state.
        # (The bridge's own status, retained, shows the read saw the broker's retained messages at all.)
        left = await retained_until(
            broker.address, lambda found: TOPICS.status in found and not _stale(found, tables.values()), 30
        )
    # What the server really did at each table, step by step (its spectator history, which skips nothing):
    # what the Tasmota displays showed is checked against this, not against the table's own topics, which
    # are coalesced too (two quick rolls may leave the `roll` topic with the second alone, while the display,
    # a topic of its own published at its own moments, took the first).
    history = {human: await client.history(table_id) for human, table_id in tables.items()}
    messages = recorder.messages
    index_of = {id(m): n for n, m in enumerate(messages)}

    def cleared(table_id: str) -> int:
        return index_of[id(next(m for m in messages if m.topic == TOPICS.state(table_id) and not m.payload))]

    def finished(table_id: str) -> int:
        return index_of[
            id(next(m for m in messages if m.topic == TOPICS.state(table_id) and b'"finished"' in m.payload))
        ]

    def table_of_text(text: str) -> str:
        owners = [human for human in humans if human in text]
        assert len(owners) == 1, f"{text!r} names {owners}"
        return owners[0]

    # WLED: one table's text until that table is cleared; then the next that started, never back.
    clear = formats.encode(formats.WLED_CLEAR)
    wled = [m for m in messages if m.topic == "wled/hall/api" and m.payload and m.payload != clear]
    texts = [json.loads(m.payload)["seg"][0]["n"] for m in wled]
    assert all(len(text) <= formats.WLED_TEXT_LIMIT and text.isascii() for text in texts)
    shown = [table_of_text(text) for text in texts]
    runs = _runs(shown)
    assert runs[0] == "Ann", "the first table to start playing is shown first"
    assert len(runs) == len(set(runs)), f"the display came back to a table it had left: {runs}"
    assert runs == [human for human in humans if human in runs], "tables follow in the order they started"
    for earlier, later in itertools.pairwise(runs):
        first_later = index_of[id(wled[shown.index(later)])]
        assert first_later > finished(tables[earlier]), f"{later} was shown before {earlier}'s table finished"
        # Handed over at once: the finished table's result gave way to a game while it still lingered.
        assert first_later < cleared(tables[earlier]), f"{later} waited for {earlier}'s linger"
    # ... while the other tables were playing and changing all along (interleaving was possible).
    first, last = index_of[id(wled[0])], finished(tables["Ann"])
    for human in ("Bea", "Cid"):
        assert any(m.topic == TOPICS.state(tables[human]) for m in messages[first:last])
    # AWTRIX 3: the shown table's own app, deleted (empty payload) before the next table's app appears.
    apps = {human: f"awtrix_hall/custom/toadstool_{table_id}" for human, table_id in tables.items()}
    app_owners = _runs([h for m in messages for h, topic in apps.items() if m.topic == topic and m.payload])
    assert app_owners == runs
    for earlier, later in itertools.pairwise(runs):
        last_shown = max(n for n, m in enumerate(messages) if m.topic == apps[earlier] and m.payload)
        deleted = min(
            n for n, m in enumerate(messages) if m.topic == apps[earlier] and not m.payload and n > last_shown
        )
        created_at = min(n for n, m in enumerate(messages) if m.topic == apps[later] and m.payload)
        assert deleted < created_at
    # Tasmota TM1637: seat 0's laps and the last roll of the shown table only, cleared between tables. Each
    # display shows, between two DisplayClear, numbers of one table in the order that table had them (a
    # subsequence: quick changes are coalesced, and a number equal to the one shown is not sent again), so
    # a number of another table mixed in, or one out of order, fails.
    values = {"tm_hall": _kart_laps_of_seat_0, "dice_hall": _roll_values}
    for device, values_of in values.items():
        runs_shown: list[list[bytes]] = [[]]
        for m in messages:
            if m.topic == f"cmnd/{device}/DisplayClear":
                runs_shown.append([])
            elif m.topic == f"cmnd/{device}/DisplayNumber" and m.payload:  # empty: deleting an old retained one
                runs_shown[-1].append(m.payload)
        while runs_shown and not runs_shown[0]:  # cleared before any table played
            runs_shown.pop(0)
        assert not any(runs_shown[len(runs) :]), f"{device} showed numbers after the last shown table: {runs_shown}"
        for human, numbers in zip(runs, runs_shown, strict=False):
            had = [str(value).encode() for value in values_of(history[human])]
            assert _is_subsequence(numbers, had), f"{device} showed {numbers} while {human}'s table had {had}"
    # No display topic ever got the same payload twice in a row (a cleared display is a change), but for
    # the die, which shows every roll (the same value twice is two rolls).
    displays = {m.topic for m in messages if not m.topic.startswith((TOPICS.prefix + "/", "homeassistant/"))}
    for topic in displays - {"cmnd/dice_hall/DisplayNumber"}:
        device = topic.rsplit("/", 1)[0] if topic.startswith("cmnd/") else topic
        sequence = [m.payload for m in messages if m.topic == topic or m.topic == f"{device}/DisplayClear"]
        repeats = [a for a, b in itertools.pairwise(sequence) if a == b and a]
        assert not repeats, f"{topic} got {repeats[0]!r} twice in a row"
    # Discovery says who supplies it (Home Assistant logs the origin of what it discovers).
    config = json.loads(next(m.payload for m in messages if m.topic == TOPICS.ha_config(tables["Ann"], "turn")))
    assert config["origin"]["name"] == "Toadstool bridge"
    assert config["origin"]["sw_version"] == importlib.metadata.version("toadstool")
    # Every retained topic of every table is gone, apps and display states included.
    assert _stale(left, tables.values()) == []


def _stale(retained: dict[str, bytes], table_ids: Iterable[str]) -> list[str]:
    """The retained topics still left of `table_ids`, or of a display (not under the bridge's own prefix,
    nor Home Assistant's spotlight entities, which stay from table to table)."""
    return [
        t
        for t in retained
        if any(tid in t for tid in table_ids)
        or not t.startswith(
            (
                TOPICS.prefix + "/",
                f"homeassistant/sensor/{TOPICS.ha_spotlight_id}/",
                f"homeassistant/event/{TOPICS.ha_spotlight_id}/",
            )
        )
    ]


async def test_a_restarted_bridge_keeps_a_finished_tables_result_for_the_rest_of_its_linger_time(
    server: RunningServer, client: Client, broker: Broker
) -> None:
    """The first bridge announces when it will clear the finished table (`clears_at`); a bridge started
    before then keeps the result until that time, neither clearing it at once nor lingering afresh."""
    created = await client.create_table("uno", 2, bots=2, options={"target": "1"}, seed=2, manual_start=True)
    tid = created.table.table_id
    args = bridge_args(server.address, broker, "--linger", "10")
    async with recording(broker.address, f"toadstool/tables/{tid}/#") as recorder:
        async with running_bridge(*args):
            await recorder.wait_for(lambda r: r.latest(TOPICS.state(tid)))
            await client.start(tid, created.host_token)
            await recorder.wait_for(lambda r: r.latest(TOPICS.clears_at(tid)))
        clears_at = int(recorder.latest(TOPICS.clears_at(tid)) or b"0") / 1000
        assert clears_at <= time.time() + 10, "announced to linger longer than --linger"
        async with running_bridge(*args):
            await asyncio.sleep(1.5)  # long enough to decide (listing every 0.2 s, the broker settled in 0.5 s)
            found = await retained_until(broker.address, lambda f: TOPICS.state(tid) in f)
            assert json.loads(found[TOPICS.state(tid)])["status"] == "finished", "the result is still shown"
            await recorder.wait_for(lambda r: r.latest(TOPICS.state(tid)) == b"", clears_at - time.time() + 5)
            assert time.time() > clears_at - 0.5, "cleared at the announced time, not before"
            await recorder.wait_for(lambda r: r.latest(TOPICS.clears_at(tid)) == b"")


async def test_a_restarted_bridge_keeps_the_displays_for_every_table_on_a_result_until_another_table_plays(
    server: RunningServer, client: Client, broker: Broker
) -> None:
    """The `*` displays show a finished table's result while it lingers and no other table plays; a bridge
    restarted meanwhile keeps them on it (`P/bridge/spotlight` says which table they show), even while an
    old finished table is cleared at start. When a table starts playing, the result gives way to it at once,
    long before its linger is over."""
    old = await client.create_table("uno", 2, bots=2, options={"target": "1"}, seed=4)
    await wait_finished(client, old.table.table_id)  # finished while no bridge ran: cleared at start
    hall = ["--wled", "*=wled/hall", "--awtrix", "*=awtrix_hall", "--tasmota", "*=tm_hall:0"]
    args = bridge_args(server.address, broker, "--linger", "60", *hall)
    shown = await client.create_table(
        "uno", 2, bots=2, options={"target": "1"}, seed=2, manual_start=True, bot_delay_ms=50
    )
    tid = shown.table.table_id
    async with recording(broker.address) as recorder:
        async with running_bridge(*args):
            await recorder.wait_for(lambda r: r.latest(TOPICS.state(tid)))
            await client.start(tid, shown.host_token)
            await recorder.wait_for(lambda r: r.latest(TOPICS.clears_at(tid)))
            await recorder.wait_for(lambda r: b"Game over|" in (r.latest("wled/hall/api") or b""))
        restarted = len(recorder.messages)
        async with running_bridge(*args):
            await recorder.wait_for(lambda r: r.latest(TOPICS.state(old.table.table_id)) == b"")
            await asyncio.sleep(1.0)  # listing every 0.2 s: long enough to have jumped or cleared, were it wrong
            meanwhile = recorder.messages[restarted:]
            playing = await kart_waiting_for_ann(client)
            await recorder.wait_for(lambda r: b"Ann" in (r.latest("wled/hall/api") or b""))
            assert recorder.latest(TOPICS.state(tid)) != b"", "handed over while the result still lingered"
            assert recorder.latest(formats.awtrix_topic("awtrix_hall", tid)) == b"", "the result's app is gone"
            await recorder.wait_for(lambda r: r.latest(formats.awtrix_topic("awtrix_hall", playing.table_id)))
    wled = [m.payload for m in meanwhile if m.topic == "wled/hall/api"]
    assert wled, "the restarted bridge shows the result again (the broker may have forgotten it)"
    assert all(b"Game over|" in payload for payload in wled), f"WLED showed {wled} while the result lingered"
    assert not [m for m in meanwhile if m.topic == "cmnd/tm_hall/DisplayClear"], "the TM1637 was cleared early"
    apps = {m.topic for m in meanwhile if m.topic.startswith("awtrix_hall/custom/") and m.payload}
    assert apps <= {formats.awtrix_topic("awtrix_hall", tid)}, "one AWTRIX app at a time"


async def test_bursts_reach_each_topic_at_a_bounded_rate_and_end_on_the_latest_value(
    server: RunningServer, client: Client, broker: Broker, monkeypatch: pytest.MonkeyPatch
) -> None:
    # When the bridge hands each message to its MQTT client, on the loop's clock: the bound is on what the
    # bridge sends, and timing it at a subscriber sharing this loop would add any stall of the loop's to a gap.
    handed: list[tuple[str, float]] = []
    publish = aiomqtt.Client.publish

    async def timed_publish(self: aiomqtt.Client, topic: str, *args: Any, **kwargs: Any) -> None:
        handed.append((str(topic), asyncio.get_running_loop().time()))
        await publish(self, topic, *args, **kwargs)

    monkeypatch.setattr(aiomqtt.Client, "publish", timed_publish)
    created = await client.create_table(
        "uno", 3, bots=3, options={"target": "400"}, seed=5, manual_start=True, bot_delay_ms=1
    )
    tid = created.table.table_id
    interval = 0.4
    args = bridge_args(server.address, broker, "--tables", tid, "--min-interval", str(interval), "--linger", "30")
    async with recording(broker.address, f"toadstool/tables/{tid}/#") as recorder, running_bridge(*args):
        await recorder.wait_for(lambda r: r.latest(TOPICS.state(tid)))
        await client.start(tid, created.host_token)
        await recorder.wait_for(lambda r: json.loads(r.latest(TOPICS.state(tid)) or b"{}").get("outcome"), 60)
        await asyncio.sleep(interval * 2)
    versions = server.registry.tables[tid].version
    states = recorder.on(TOPICS.state(tid))
    assert len(states) < versions / 2, "a burst of updates is coalesced"
    topics = {m.topic for m in recorder.messages}
    # (What was handed over last may not have reached the recorder before it stopped.)
    assert topics <= {topic for topic, _ in handed}
    for topic in topics:
        times = [at for sent, at in handed if sent == topic]
        assert len(times) > 1 or topic != TOPICS.state(tid)
        gaps = [b - a for a, b in itertools.pairwise(times)]
        # Each topic's next message waits `interval` from when the last one was acknowledged (after it was
        # handed over): a burst would be ~0 apart.
        assert all(gap >= interval for gap in gaps), f"{topic} was published faster than its bound: {min(gaps)}"
    assert json.loads(states[-1].payload)["version"] == versions


async def _result(recorder: Recorder, topic: str, count: int) -> dict[str, object]:
    await recorder.wait_for(lambda r: len(r.on(topic)) >= count, 10)
    return dict(json.loads(recorder.on(topic)[count - 1].payload))


async def test_a_button_rolls_for_the_waiting_seat_only_with_the_tables_device_token(
    server: RunningServer, client: Client, broker: Broker
) -> None:
    """Hardware input: a fresh press with the host's device token rolls; a retained press, a repeated
    press, another action, a table without a token and a wrong token never roll."""
    table = await kart_waiting_for_ann(client)
    tid = table.table_id
    other = await kart_waiting_for_ann(client, seed=4)
    wrong = await kart_waiting_for_ann(client, seed=5)
    token = await client.issue_device_token(tid, table.host_token)
    await client.issue_device_token(wrong.table_id, wrong.host_token)
    live = server.registry.tables[tid]
    press, result = TOPICS.press(tid), TOPICS.press_result(tid)
    # A press left retained on the broker (a device misconfigured, or an old message) before the bridge starts.
    await publish(broker.address, press, b'{"action":"single","id":"stale"}', retain=True)
    version = live.version
    args = bridge_args(server.address, broker, "--device-token", f"{tid}={token}")
    args += ["--device-token", f"{wrong.table_id}=not-the-token"]
    async with recording(broker.address, "toadstool/tables/+/press/result") as recorder, running_bridge(*args):
        refused = await _result(recorder, result, 1)
        assert refused["ok"] is False
        assert "retained" in str(refused["error"])
        # The bridge deletes the stale retained press, so it is not handed out again.
        await retained_until(broker.address, lambda f: press not in f and f.get(TOPICS.status) == b"online")
        assert live.version == version, "a retained press never rolls"
        assert len(recorder.on(result)) == 1, "deleting it was not taken for a press"

        await publish(broker.address, press, b"play_card:card_id=3")
        refused = await _result(recorder, result, 2)
        assert "may only roll" in str(refused["error"])

        await publish(broker.address, TOPICS.press(other.table_id), b"roll")
        refused = await _result(recorder, TOPICS.press_result(other.table_id), 1)
        assert "no device token" in str(refused["error"])

        await publish(broker.address, TOPICS.press(wrong.table_id), b"roll")
        refused = await _result(recorder, TOPICS.press_result(wrong.table_id), 1)
        assert "UNAUTHENTICATED" in str(refused["error"])
        assert live.version == version

        await publish(broker.address, press, b'{"action":"single","id":"press-1"}')
        accepted = await _result(recorder, result, 3)
        assert accepted["ok"] is True
        assert accepted["replayed"] is False
        rolled = accepted["version"]
        assert isinstance(rolled, int)
        assert rolled > version
        assert any(e.roll is not None and e.roll.roller == 0 for v, e in live.events if v == rolled)

        # The same press delivered again (a device's retry) is answered, not applied again.
        await publish(broker.address, press, b'{"action":"single","id":"press-1"}')
        again = await _result(recorder, result, 4)
        assert again["ok"] is True
        assert again["replayed"] is True
        assert again["version"] == accepted["version"]
    assert server.registry.tables[other.table_id].version == other_version(server, other.table_id)


def other_version(server: RunningServer, table_id: str) -> int:
    return server.registry.tables[table_id].version


async def test_a_broker_that_requires_a_login_lets_the_bridge_in_only_with_the_right_password(
    server: RunningServer, tmp_path: Path
) -> None:
    locked = Broker(tmp_path, users={"toadstool": "s3cret", "display": "d1spl4y"})
    await asyncio.to_thread(locked.start)
    display = ("display", "d1spl4y")
    try:
        config = tmp_path / "bridge.toml"
        config.write_text('username = "toadstool"\npassword = "s3cret"\n')
        async with running_bridge(*bridge_args(server.address, locked, "--config", str(config))):
            found = await retained_until(locked.address, lambda f: TOPICS.status in f, login=display)
            assert found[TOPICS.status] == b"online"
        async with running_bridge(
            *bridge_args(server.address, locked, "--username", "toadstool", "--password", "wrong"),
            wait_connected=False,
        ) as bridge:
            await asyncio.sleep(1.0)
            assert not bridge.link.connected.is_set()
        found = await retained_until(locked.address, lambda f: TOPICS.status in f, login=display)
        assert found[TOPICS.status] == b"offline"
    finally:
        await asyncio.to_thread(locked.stop)


async def test_topics_left_by_an_earlier_run_for_a_table_that_finished_meanwhile_are_cleared_at_start(
    server: RunningServer, client: Client, broker: Broker
) -> None:
    created = await client.create_table("uno", 2, bots=2, options={"target": "30"}, seed=2, bot_delay_ms=0)
    tid = created.table.table_id
    call = client.watch(tid)
    async with asyncio.timeout(30):
        async for response in call:
            if response.update.status == table_pb2.TABLE_STATUS_FINISHED:
                break
    call.cancel()
    # What a bridge that died mid-game would have left behind.
    for topic in (TOPICS.state(tid), TOPICS.turn(tid), TOPICS.seat_score(tid, 1)):
        await publish(broker.address, topic, b"stale", retain=True)
    async with running_bridge(*bridge_args(server.address, broker)):
        found = await retained_until(broker.address, lambda f: not any(tid in topic for topic in f))
        assert found[TOPICS.status] == b"online"


async def test_the_bridge_reaches_a_tls_broker_that_its_ca_certifies_and_no_other(
    server: RunningServer, tmp_path: Path
) -> None:
    pair = make_certificate(tmp_path / "tls", ["127.0.0.1"])
    secure = Broker(tmp_path, tls=(pair.cert, pair.key))
    await asyncio.to_thread(secure.start)
    try:
        trusting = bridge_args(server.address, secure, "--tls-ca", str(pair.cert))
        trusting[trusting.index("--broker") + 1] = secure.tls_address
        async with running_bridge(*trusting):
            found = await retained_until(secure.address, lambda f: TOPICS.status in f)  # on the plain listener
            assert found[TOPICS.status] == b"online"
        doubting = bridge_args(server.address, secure, "--tls")  # the system CAs do not know this certificate
        doubting[doubting.index("--broker") + 1] = secure.tls_address
        async with running_bridge(*doubting, wait_connected=False) as bridge:
            await asyncio.sleep(1.0)
            assert not bridge.link.connected.is_set()
    finally:
        await asyncio.to_thread(secure.stop)


async def test_a_table_its_host_ended_is_published_finished_with_why_and_no_winner(
    server: RunningServer, client: Client, broker: Broker
) -> None:
    created = await client.create_table("uno", 3, bots=2, seed=3, manual_start=True)
    tid = created.table.table_id
    await client.join(tid, "Ann")
    args = bridge_args(server.address, broker, "--linger", "30", "--wled", f"{tid}=wled/m")
    async with recording(broker.address) as recorder, running_bridge(*args):
        await recorder.wait_for(lambda r: r.latest(TOPICS.state(tid)))
        await client.end_table(tid, created.host_token)
        await recorder.wait_for(lambda r: b'"finished"' in (r.latest(TOPICS.state(tid)) or b""))
        # The end is said on a WLED, in its 32 bytes, a host-ended game too.
        await recorder.wait_for(lambda r: b"Game over" in (r.latest("wled/m/api") or b""))
    text = json.loads(recorder.latest("wled/m/api") or b"")["seg"][0]["n"]
    assert text == "Game over", "ended in its lobby: no scores to show"
    assert len(text) <= formats.WLED_TEXT_LIMIT
    state = json.loads(recorder.latest(TOPICS.state(tid)) or b"{}")
    assert state["outcome"]["ended"] == "The host ended the game"
    assert state["outcome"]["winners"] == []
    assert state["outcome"]["winner_names"] == []


async def test_a_finished_kart_race_publishes_each_seats_place_in_its_outcome(
    server: RunningServer, client: Client, broker: Broker
) -> None:
    """A Kart race of four bots run to its end: the retained `state` a late subscriber reads has the outcome's
    places (Outcome.places), one a seat in seat order, the very places the server gives a spectator, the
    winner's 1, in the order the summary names them; the existing outcome fields stay as they were."""
    created = await client.create_table(
        "kart", 4, bots=4, options={"track": "mini-loop"}, seed=6, manual_start=True, bot_delay_ms=0
    )
    tid = created.table.table_id
    args = bridge_args(server.address, broker, "--tables", tid, "--linger", "60")
    async with running_bridge(*args):
        await retained_until(broker.address, lambda f: TOPICS.state(tid) in f)
        await client.start(tid, created.host_token)
        await wait_finished(client, tid, 60)
        found = await retained_until(
            broker.address, lambda f: b'"status":"finished"' in f.get(TOPICS.state(tid), b""), 30
        )
    call = client.watch(tid)
    try:
        async with asyncio.timeout(10):
            final = (await anext(aiter(call))).update
    finally:
        call.cancel()
    SHOWN.mkdir(parents=True, exist_ok=True)  # the payload as published, for a person to read
    (SHOWN / "kart-finished-state.json").write_bytes(found[TOPICS.state(tid)])
    outcome = json.loads(found[TOPICS.state(tid)])["outcome"]
    places = list(final.outcome.places)
    assert len(places) == 4, "Kart states a place for every seat"
    assert outcome["places"] == places
    assert set(outcome) == {"ended", "places", "scores", "summary", "winner_names", "winners"}
    assert outcome["winners"] == list(final.outcome.winners)
    assert outcome["scores"] == list(final.outcome.scores)
    assert [places[w] for w in outcome["winners"]] == [1]
    names = [seat.name for seat in final.seats]
    in_order = sorted(range(4), key=lambda seat: (places[seat], outcome["summary"].index(names[seat])))
    assert outcome["summary"].endswith("(" + ", ".join(f"{places[s]}. {names[s]}" for s in in_order) + ")")
