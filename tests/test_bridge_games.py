"""Whole bot games of every registered game through the bridge, against a real server and Mosquitto.

The no-leak proof: every payload the bridge published for a table is recomputed from the spectator update
of the version it names (replaying the table's seed and actions), so nothing else can have reached MQTT;
and no field that only seated views carry (hands, face-down cards, objectives, votes) appears in any of it.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from google.protobuf.json_format import MessageToDict

from mqtt_helpers import Broker, Received, bridge_args, broker_fixture, recording, retained, running_bridge  # noqa: F401
from toadstool.api.v1 import table_pb2
from toadstool.games import GAMES
from toadstool.server import messages
from toadstool.server.app import RunningServer
from toadstool.server.tables import Status, Table
from toadstool_clients.bridge import formats
from toadstool_clients.bridge.topics import Topics
from toadstool_clients.connection import Client

TOPICS = Topics()


def replayed_updates(table: Table) -> list[tuple[table_pb2.Update, dict[int, table_pb2.Update]]]:
    """For every version of a finished table: its spectator update and each seat's update."""
    engine = table.engine
    lobby = dataclasses.replace(table, state=None, version=0, status=Status.LOBBY, events=[])
    steps = [(messages.update_for(lobby, None, None), {})]
    state = engine.new(table.players, table.options, table.seed)
    for version in range(len(table.actions) + 1):
        if version:
            seat, action = table.actions[version - 1]
            state = engine.apply(state, seat, action)
        status = Status.FINISHED if engine.outcome(state) is not None else Status.PLAYING
        events = [(v, e) for v, e in table.events if v <= version]
        shadow = dataclasses.replace(table, state=state, version=version, status=status, events=events)
        seated = {seat: messages.update_for(shadow, seat, None) for seat in range(table.players)}
        steps.append((messages.update_for(shadow, None, None), seated))
    return steps


def key_paths(value: Any, prefix: str = "") -> set[str]:
    """Every key path of a JSON value ("view.uno.hand[].id"), list positions folded."""
    paths: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{prefix}.{key}" if prefix else key
            paths.add(path)
            paths |= key_paths(item, path)
    elif isinstance(value, list):
        for item in value:
            paths |= key_paths(item, f"{prefix}[]")
    return paths


def assert_only_public(table: Table, published: list[Received]) -> None:
    """Every published payload of the table equals one computed from a spectator update."""
    steps = replayed_updates(table)
    table_id = table.table_id
    by_version: dict[int, list[table_pb2.Update]] = {}
    for spectator, _ in steps:
        by_version.setdefault(spectator.version, []).append(spectator)
    allowed: dict[str, set[bytes]] = {}
    for spectator, _ in steps:
        for topic, payload in formats.table_messages(spectator, TOPICS, None).items():
            allowed.setdefault(topic, set()).add(payload)
        for topic, payload in formats.ha_discovery(spectator, TOPICS).items():
            allowed.setdefault(topic, set()).add(payload)
    rolls = {}
    counts: dict[int, int] = {}
    for version, event in table.events:
        if event.roll is not None:
            n = counts.get(version, 0)
            counts[version] = n + 1
            rolls[f"{version}.{n}"] = (event.roll.roller, event.roll.purpose, event.roll.value)
    public_paths: set[str] = set()
    seated_paths: set[str] = set()
    for spectator, seated in steps:
        public_paths |= key_paths(MessageToDict(spectator.view, preserving_proto_field_name=True))
        for update in seated.values():
            seated_paths |= key_paths(MessageToDict(update.view, preserving_proto_field_name=True))
    seated_only = {f"view.{path}" for path in seated_paths - public_paths}
    for spectator, _ in steps:  # and whatever the bridge could have published at any version
        for payload in formats.table_messages(spectator, TOPICS, None).values():
            if payload.startswith(b"{"):
                assert not key_paths(json.loads(payload)) & seated_only

    checked = 0
    for message in published:
        if table_id not in message.topic or not message.payload:
            continue
        checked += 1
        topic, payload = message.topic, message.payload
        if topic in (TOPICS.state(table_id), TOPICS.view(table_id)):
            version = json.loads(payload)["version"]
            make = formats.state_payload if topic.endswith("/state") else formats.view_payload
            candidates = [formats.encode(make(u)) for u in by_version[version]]
            assert payload in candidates, f"{topic} at version {version} is not the spectator's"
            assert not key_paths(json.loads(payload)) & seated_only, "a seated-only field reached MQTT"
        elif topic in (TOPICS.roll(table_id), TOPICS.roll_event(table_id)):
            roll = json.loads(payload)
            assert rolls[roll["roll_id"]] == (roll["roller"], roll["purpose"], roll["value"])
            assert roll.pop("event_type", "roll") == "roll"
            assert set(roll) == {"table", "roll_id", "version", "roller", "roller_name", "purpose", "value"}
        elif topic == TOPICS.clears_at(table_id):
            # Not from a view: when the bridge clears the finished table (Unix ms), a moment from now.
            assert payload.isdigit()
            assert abs(int(payload) / 1000 - message.at_unix) < 30
        else:
            assert payload in allowed.get(topic, set()), f"{topic} carried {payload[:80]!r}"
    assert checked > 0
    if table.engine.name == "uno":
        assert any(path.startswith("view.uno.hand") for path in seated_only), "UNO hands are seated-only"


@pytest.mark.parametrize("game", list(GAMES))
async def test_a_whole_bot_game_reaches_mqtt_from_spectator_updates_only(
    game: str, server: RunningServer, client: Client, broker: Broker
) -> None:
    engine = GAMES[game].engine
    players = max(engine.min_players, 3) if engine.max_players >= 3 else engine.min_players
    created = await client.create_table(
        game, players, bots=players, options=dict(engine.quick_options), seed=11, manual_start=True, bot_delay_ms=0
    )
    table_id = created.table.table_id
    state_topic = TOPICS.state(table_id)

    def states(recorder: Any) -> list[dict[str, Any]]:
        return [json.loads(m.payload) for m in recorder.on(state_topic) if m.payload]

    async with (
        recording(broker.address) as recorder,
        running_bridge(
            *bridge_args(server.address, broker, "--tables", table_id, "--homeassistant", "--min-interval", "0")
        ),
    ):
        await recorder.wait_for(lambda r: states(r) and states(r)[-1]["status"] == "lobby")
        await client.start(table_id, created.host_token)
        await recorder.wait_for(lambda r: states(r) and states(r)[-1]["status"] == "finished", 60)
        final = states(recorder)[-1]
        table = server.registry.tables[table_id]
        outcome = engine.outcome(table.state)
        assert final["outcome"]["winners"] == list(outcome.winners)
        # Kart states each seat's place; a game that only names its winners publishes none.
        assert final["outcome"]["places"] == list(outcome.places)
        assert bool(final["outcome"]["places"]) == (game == "kart")
        assert final["game"] == game
        assert final["turn"] == []
        assert len(final["seats"]) == players
        # Every topic reaches the final value (each at its own bounded rate).
        final_scores = {TOPICS.seat_score(table_id, s): str(final["scores"][s]).encode() for s in range(players)}
        await recorder.wait_for(lambda r: all(r.latest(t) == p for t, p in final_scores.items()))
        await recorder.wait_for(lambda r: r.latest(TOPICS.turn(table_id)) == formats.NOBODY.encode())
        # Finished tables clear their retained topics once the linger time is over.
        await recorder.wait_for(lambda r: r.latest(state_topic) == b"", 10)
        await recorder.wait_for(
            lambda r: all(
                r.latest(m.topic) == b""
                for m in r.messages
                if table_id in m.topic and "/press" not in m.topic and m.topic != TOPICS.roll_event(table_id)
            ),
            10,
        )
        left = await retained(broker.address, "#")
        assert [topic for topic in left if table_id in topic] == []
    assert_only_public(table, recorder.messages)
    # Home Assistant's event entity fired once for every roll of the table's history, in order.
    counts: dict[int, int] = {}
    had = []
    for version, event in table.events:
        if event.roll is not None:
            had.append(f"{version}.{counts.get(version, 0)}")
            counts[version] = counts.get(version, 0) + 1
    assert [json.loads(m.payload)["roll_id"] for m in recorder.on(TOPICS.roll_event(table_id))] == had
    if game == "kart":
        assert had, "Kart rolls dice"
        assert recorder.on(TOPICS.roll(table_id)), "the roll topic saw them"
