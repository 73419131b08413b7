"""Regression: the bridge's hardware roll buttons against a real server and a real Mosquitto broker."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json

from mqtt_helpers import (  # noqa: F401
    Broker,
    bridge_args,
    broker_fixture,
    kart_waiting_for_ann,
    publish,
    recording,
    running_bridge,
)
from toadstool.server.app import RunningServer
from toadstool_clients.bridge.app import Bridge
from toadstool_clients.bridge.topics import Topics
from toadstool_clients.connection import Client

TOPICS = Topics("toadstool", "homeassistant")


async def _until_mirrored(bridge: Bridge, table_id: str) -> None:
    """Wait until the bridge follows the table (a press before that is refused for another reason)."""
    async with asyncio.timeout(10):
        while table_id not in bridge.mirrors or bridge.mirrors[table_id].update is None:
            await asyncio.sleep(0.05)


async def test_a_press_published_retained_while_the_bridge_listens_never_rolls(
    server: RunningServer, client: Client, broker: Broker
) -> None:
    """docs/mqtt.md: a retained press is never acted on. MQTT 3.1.1 clears the retain flag on delivery to an
    already-established subscription, so a device that publishes its press *retained* while the bridge is
    running is seen as a fresh press: it rolls, and the press then stays retained on the broker."""
    table = await kart_waiting_for_ann(client)
    tid = table.table_id
    token = await client.issue_device_token(tid, table.host_token)
    live = server.registry.tables[tid]
    version = live.version
    args = bridge_args(server.address, broker, "--device-token", f"{tid}={token}")
    async with recording(broker.address, TOPICS.press_result(tid)) as recorder, running_bridge(*args) as bridge:
        await _until_mirrored(bridge, tid)
        await publish(broker.address, TOPICS.press(tid), b'{"action":"single","id":"kept"}', retain=True)
        await recorder.wait_for(lambda r: r.on(TOPICS.press_result(tid)), 10)
        result = json.loads(recorder.on(TOPICS.press_result(tid))[0].payload)
        assert live.version == version, f"a retained press rolled: {result}"
        assert result["ok"] is False


async def test_a_deeply_nested_json_press_is_refused_with_a_result(
    server: RunningServer, client: Client, broker: Broker
) -> None:
    """A malformed press must be refused on the result topic. A deeply nested JSON object makes
    json.loads raise RecursionError (not ValueError): handle_press dies with it, no result is published and
    asyncio logs "Task exception was never retrieved" at ERROR."""
    table = await kart_waiting_for_ann(client)
    tid = table.table_id
    token = await client.issue_device_token(tid, table.host_token)
    args = bridge_args(server.address, broker, "--device-token", f"{tid}={token}")
    nested = b'{"a":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    async with recording(broker.address, TOPICS.press_result(tid)) as recorder, running_bridge(*args):
        await publish(broker.address, TOPICS.press(tid), nested)
        await recorder.wait_for(lambda r: r.on(TOPICS.press_result(tid)), 10)
        result = json.loads(recorder.on(TOPICS.press_result(tid))[0].payload)
        assert result["ok"] is False
        gc.collect()


async def test_a_json_device_report_without_an_action_never_rolls(
    server: RunningServer, client: Client, broker: Broker
) -> None:
    """docs/mqtt.md: "Empty messages and JSON without an `action` (a device reporting its battery) are
    ignored". parse_press defaults a missing "action" to "roll", so a Zigbee2MQTT-style state report such as
    {"battery":97,"linkquality":120} on a press topic rolls for the waiting seat."""
    table = await kart_waiting_for_ann(client)
    tid = table.table_id
    token = await client.issue_device_token(tid, table.host_token)
    live = server.registry.tables[tid]
    version = live.version
    args = bridge_args(server.address, broker, "--device-token", f"{tid}={token}")
    async with recording(broker.address, TOPICS.press_result(tid)) as recorder, running_bridge(*args) as bridge:
        await _until_mirrored(bridge, tid)
        await publish(broker.address, TOPICS.press(tid), b'{"battery":97,"linkquality":120,"voltage":3000}')
        with contextlib.suppress(TimeoutError):  # ignored, as documented: no result
            await recorder.wait_for(lambda r: r.on(TOPICS.press_result(tid)), 3)
        results = [json.loads(m.payload) for m in recorder.on(TOPICS.press_result(tid))]
        assert live.version == version, f"a battery report rolled: {results}"
