"""Payloads of the bridge: pure functions from a spectator `Update` to MQTT topics and bytes.

It is for what each topic carries (state JSON, whose turn, scores, the last die roll, Home Assistant
discovery, WLED / AWTRIX 3 / Tasmota TM1637 display commands). It is not for connections or timing
(`publisher`, `app`). Every function here takes only spectator updates, which are the public view, so
nothing private can reach MQTT through it; it knows no game rules (scores, phase and whose turn are the
generic fields every game fills in). Names come from the network: they are JSON-encoded in JSON payloads
and stripped of control characters in display text.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.json_format import MessageToDict

from toadstool.v1 import table_pb2
from toadstool_clients.bridge.topics import Topics, safe_level
from toadstool_clients.names import seat_name

STATUS_NAMES = {
    table_pb2.TABLE_STATUS_LOBBY: "lobby",
    table_pb2.TABLE_STATUS_PLAYING: "playing",
    table_pb2.TABLE_STATUS_FINISHED: "finished",
}
KIND_NAMES = {table_pb2.SEAT_KIND_EMPTY: "empty", table_pb2.SEAT_KIND_HUMAN: "human", table_pb2.SEAT_KIND_BOT: "bot"}
#: Payload of the turn topic when the game waits for nobody (an empty retained payload would delete it).
NOBODY = "-"
#: WLED's "Scrolling Text" effect (2D matrices) shows the segment name; 64 characters fit on an ESP32.
WLED_SCROLLING_TEXT_FX = 122
WLED_TEXT_LIMIT = 64
DISPLAY_TEXT_LIMIT = 200


def encode(value: Any) -> bytes:
    """Compact, deterministic JSON (UTF-8): the same state always gives the same bytes."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()


def clean_text(text: str, limit: int = DISPLAY_TEXT_LIMIT) -> str:
    """A name or phrase from the network made safe to draw on a display: no control characters, one line."""
    kept = "".join(" " if unicodedata.category(ch)[0] in "CZ" else ch for ch in text)
    return " ".join(kept.split())[:limit]


def state_payload(update: table_pb2.Update) -> dict[str, Any]:
    """The public state of a table (the `state` topic): what any display needs, for every game alike."""
    scores = list(update.scores)
    seats = []
    for entry in update.seats:
        seat: dict[str, Any] = {
            "seat": entry.index,
            "name": entry.name,
            "kind": KIND_NAMES.get(entry.kind, "unknown"),
            "connected": entry.connected,
            "bot_controlled": entry.bot_controlled,
        }
        if entry.index < len(scores):
            seat["score"] = scores[entry.index]
        seats.append(seat)
    outcome: dict[str, Any] | None = None
    if update.HasField("outcome"):
        outcome = {
            "winners": list(update.outcome.winners),
            "winner_names": [seat_name(update, w) for w in update.outcome.winners],
            "scores": list(update.outcome.scores),
            "summary": update.outcome.summary,
        }
    return {
        "table": update.table_id,
        "name": update.table_name,
        "game": update.game,
        "status": STATUS_NAMES.get(update.status, "unknown"),
        "version": update.version,
        "phase": update.phase,
        "to_act": list(update.to_act),
        "turn": [seat_name(update, s) for s in update.to_act],
        "score_label": update.score_label,
        "scores": scores,
        "seats": seats,
        "outcome": outcome,
        "turn_seconds": update.turn_seconds,
        # To the second: the server derives it anew for each update, and a millisecond of jitter must not
        # make an unchanged state a new payload.
        "turn_deadline_unix_ms": (
            round(update.turn_deadline_unix_ms / 1000) * 1000 if update.HasField("turn_deadline_unix_ms") else None
        ),
    }


def view_payload(update: table_pb2.Update) -> dict[str, Any]:
    """The spectator view of the game (the `view` topic): the game's own public fields, e.g. levels, laps."""
    view = MessageToDict(update.view, preserving_proto_field_name=True)
    return {"table": update.table_id, "game": update.game, "version": update.version, "view": view}


def turn_text(update: table_pb2.Update) -> str:
    """The `turn` topic: who the game waits for, or NOBODY."""
    if not update.to_act or update.status != table_pb2.TABLE_STATUS_PLAYING:
        return NOBODY
    return ", ".join(clean_text(seat_name(update, s), 40) for s in update.to_act)


def display_text(update: table_pb2.Update) -> str:
    """One line for a scrolling display: the phase (or the result) and every seat's score."""
    if update.status == table_pb2.TABLE_STATUS_FINISHED and update.outcome.summary:
        head = update.outcome.summary
    else:
        head = update.phase
    parts = [clean_text(head, 80)] if head else []
    for entry, score in zip(update.seats, update.scores, strict=False):
        parts.append(f"{clean_text(seat_name(update, entry.index), 16)} {score}")
    return " | ".join(parts)[:DISPLAY_TEXT_LIMIT]


@dataclass(frozen=True)
class Roll:
    """The last die roll at a table; `roll_id` ("<version>.<n>") is stable across reconnects and restarts."""

    roll_id: str
    version: int
    roller: int
    roller_name: str
    purpose: str
    value: int

    def payload(self, table_id: str) -> dict[str, Any]:
        return {
            "table": table_id,
            "roll_id": self.roll_id,
            "version": self.version,
            "roller": self.roller,
            "roller_name": self.roller_name,
            "purpose": self.purpose,
            "value": self.value,
        }


def last_roll(update: table_pb2.Update, previous: Roll | None) -> Roll | None:
    """The latest roll among the update's events, else `previous` (events carry only what is new)."""
    latest = previous
    counts: dict[int, int] = {}
    for event in update.events:
        if not event.HasField("roll"):
            continue
        n = counts.get(event.version, 0)
        counts[event.version] = n + 1
        roll = event.roll
        latest = Roll(
            roll_id=f"{event.version}.{n}",
            version=event.version,
            roller=roll.roller,
            roller_name=seat_name(update, roll.roller),
            purpose=roll.purpose,
            value=roll.value,
        )
    return latest


def table_messages(update: table_pb2.Update, topics: Topics, roll: Roll | None) -> dict[str, bytes]:
    """Every retained state topic of one table and its payload."""
    table_id = update.table_id
    messages = {
        topics.state(table_id): encode(state_payload(update)),
        topics.view(table_id): encode(view_payload(update)),
        topics.turn(table_id): turn_text(update).encode(),
        topics.text(table_id): (display_text(update) or NOBODY).encode(),
    }
    scores = list(update.scores)
    for entry in update.seats:
        messages[topics.seat_name(table_id, entry.index)] = (clean_text(entry.name, 40) or NOBODY).encode()
        if entry.index < len(scores):
            messages[topics.seat_score(table_id, entry.index)] = str(scores[entry.index]).encode()
    if roll is not None:
        messages[topics.roll(table_id)] = encode(roll.payload(table_id))
    return messages


def ha_discovery(update: table_pb2.Update, topics: Topics) -> dict[str, bytes]:
    """Home Assistant MQTT discovery: one device per table, sensors for whose turn, the phase and each score."""
    table_id = update.table_id
    device_id = topics.ha_device_id(table_id)
    device = {
        "identifiers": [device_id],
        "name": clean_text(update.table_name or table_id, 80),
        "manufacturer": "Toadstool",
        "model": update.game,
    }
    common = {
        "availability_topic": topics.status,
        "payload_available": "online",
        "payload_not_available": "offline",
        "device": device,
    }
    messages = {
        topics.ha_config(table_id, "turn"): encode(
            {
                **common,
                "name": "Whose turn",
                "unique_id": f"{device_id}_turn",
                "state_topic": topics.turn(table_id),
                "icon": "mdi:account-clock",
            }
        ),
        topics.ha_config(table_id, "phase"): encode(
            {
                **common,
                "name": "Phase",
                "unique_id": f"{device_id}_phase",
                "state_topic": topics.state(table_id),
                "value_template": "{{ value_json.phase }}",
                "icon": "mdi:information-outline",
            }
        ),
    }
    label = update.score_label or "points"
    for entry in update.seats:
        name = clean_text(seat_name(update, entry.index), 40)
        messages[topics.ha_config(table_id, f"seat{entry.index}_score")] = encode(
            {
                **common,
                "name": f"{name} {label}",
                "unique_id": f"{device_id}_seat{entry.index}_score",
                "state_topic": topics.seat_score(table_id, entry.index),
                "unit_of_measurement": label,
                "state_class": "measurement",
                "icon": "mdi:trophy-outline",
            }
        )
    return messages


@dataclass
class Devices:
    """Displays people own that should show a table: the command topics the bridge writes to.

    `wled`: WLED device topics (the bridge writes `<topic>/api`). `awtrix`: AWTRIX 3 prefixes (the bridge
    writes `<prefix>/custom/toadstool_<table>`). `tasmota`: (Tasmota topic, what) pairs where what is a
    seat number or "roll"; the bridge writes `cmnd/<topic>/DisplayNumber`.
    """

    wled: list[str] = field(default_factory=list)
    awtrix: list[str] = field(default_factory=list)
    tasmota: list[tuple[str, str]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.wled or self.awtrix or self.tasmota)

    def merged(self, other: Devices) -> Devices:
        return Devices(self.wled + other.wled, self.awtrix + other.awtrix, self.tasmota + other.tasmota)


def wled_payload(text: str) -> dict[str, Any]:
    """WLED JSON API state: segment 0 scrolls `text` (effect "Scrolling Text" shows the segment name)."""
    return {"on": True, "seg": [{"id": 0, "fx": WLED_SCROLLING_TEXT_FX, "n": clean_text(text, WLED_TEXT_LIMIT)}]}


def awtrix_payload(text: str) -> dict[str, Any]:
    """An AWTRIX 3 custom app showing `text` for 10 s in each app cycle."""
    return {"text": clean_text(text), "duration": 10}


def awtrix_topic(prefix: str, table_id: str) -> str:
    return f"{prefix}/custom/toadstool_{safe_level(table_id)}"


def tasmota_topic(device: str) -> str:
    return f"cmnd/{device}/DisplayNumber"


def device_messages(update: table_pb2.Update, roll: Roll | None, devices: Devices) -> dict[str, bytes]:
    """Ready-made display commands for the devices configured for this table."""
    text = display_text(update)
    messages: dict[str, bytes] = {}
    for topic in devices.wled:
        messages[f"{topic}/api"] = encode(wled_payload(text))
    for prefix in devices.awtrix:
        messages[awtrix_topic(prefix, update.table_id)] = encode(awtrix_payload(text))
    scores = list(update.scores)
    for device, what in devices.tasmota:
        if what == "roll":
            if roll is not None:
                messages[tasmota_topic(device)] = str(roll.value).encode()
        elif what.isdigit() and int(what) < len(scores):
            messages[tasmota_topic(device)] = str(scores[int(what)]).encode()
    return messages


def device_topics(table_id: str, devices: Devices) -> list[str]:
    """Every command topic the bridge may hold for a table's devices (to clear them)."""
    return (
        [f"{topic}/api" for topic in devices.wled]
        + [awtrix_topic(prefix, table_id) for prefix in devices.awtrix]
        + [tasmota_topic(device) for device, _ in devices.tasmota]
    )


def parse_tasmota(spec: str) -> tuple[str, str]:
    """ "TOPIC:SEAT" or "TOPIC:roll" (a bare TOPIC shows seat 0's score)."""
    device, _, what = spec.partition(":")
    what = what.strip() or "0"
    if not device or not (what == "roll" or what.isdigit()):
        raise ValueError(f"a Tasmota display is TOPIC:SEAT or TOPIC:roll, not {spec!r}")
    return device, what
