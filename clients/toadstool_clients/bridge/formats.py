"""Payloads of the bridge: pure functions from a spectator `Update` to MQTT topics and bytes.

It is for what each topic carries (state JSON, whose turn, scores, the last die roll, Home Assistant
discovery, WLED / AWTRIX 3 / Tasmota TM1637 display commands). It is not for connections or timing
(`publisher`, `app`), nor for which table a display shows (`app`). Every function here takes only
spectator updates, which are the public view, so nothing private can reach MQTT through it; it knows no
game rules (scores, phase and whose turn are the generic fields every game fills in). Names come from the
network: they are JSON-encoded in JSON payloads and stripped of control characters in display text.
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.json_format import MessageToDict

from toadstool.api.v1 import table_pb2
from toadstool_clients.bridge.topics import Topics, safe_level
from toadstool_clients.names import seat_name, with_singular_counts

STATUS_NAMES = {
    table_pb2.TABLE_STATUS_LOBBY: "lobby",
    table_pb2.TABLE_STATUS_PLAYING: "playing",
    table_pb2.TABLE_STATUS_FINISHED: "finished",
}
KIND_NAMES = {table_pb2.SEAT_KIND_EMPTY: "empty", table_pb2.SEAT_KIND_HUMAN: "human", table_pb2.SEAT_KIND_BOT: "bot"}
#: Payload of the turn topic when the game waits for nobody (an empty retained payload would delete it).
NOBODY = "-"
#: WLED's "Scrolling Text" effect (FX_MODE_2DSCROLLTEXT in wled00/FX.h) scrolls the segment name.
WLED_SCROLLING_TEXT_FX = 122
#: WLED keeps at most WLED_MAX_SEGNAME_LEN bytes of a segment name (wled00/const.h: 32 on ESP8266, 64 on
#: ESP32, and never less than 32 in a custom build), so 32 ASCII characters fit on every device.
WLED_TEXT_LIMIT = 32
DISPLAY_TEXT_LIMIT = 200
#: Who supplies the discovery configs (Home Assistant's `origin` block; it logs it when it discovers them).
ORIGIN_NAME = "Toadstool bridge"


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
            "summary": with_singular_counts(update.outcome.summary),
            # Why a table ended before its game did (its host ended it, or nobody was at it); "" otherwise.
            "ended": update.outcome.ended,
        }
    return {
        "table": update.table_id,
        "name": update.table_name,
        "game": update.game,
        "status": STATUS_NAMES.get(update.status, "unknown"),
        "version": update.version,
        "phase": with_singular_counts(update.phase),
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


def _head(update: table_pb2.Update) -> str:
    """The phase, or once the game is over its result."""
    if update.status == table_pb2.TABLE_STATUS_FINISHED and update.outcome.summary:
        return with_singular_counts(update.outcome.summary)
    return with_singular_counts(update.phase)


def display_text(update: table_pb2.Update) -> str:
    """One line for a scrolling display: the phase (or the result) and every seat's score."""
    head = _head(update)
    parts = [clean_text(head, 80)] if head else []
    for entry, score in zip(update.seats, update.scores, strict=False):
        parts.append(f"{clean_text(seat_name(update, entry.index), 16)} {score}")
    return " | ".join(parts)[:DISPLAY_TEXT_LIMIT]


def ascii_text(text: str) -> str:
    """`text` as printable ASCII for a device font: accents dropped ("Zoë" -> "Zoe"), other letters left
    out, and no `#` (WLED's scrolling text reads `#TIME`, `#DD` and the like as clock tokens)."""
    plain = unicodedata.normalize("NFKD", clean_text(text)).encode("ascii", "ignore").decode()
    return " ".join(plain.replace("#", " ").split())


def abbreviated(name: str, limit: int | None) -> str:
    """A name cut to `limit` characters, keeping a trailing number ("Bot 12" -> "Bo12", not "Bot ")."""
    if limit is None or len(name) <= limit:
        return name
    words = name.split()
    if len(words) > 1 and words[-1].isdigit() and len(words[-1]) < limit:
        number = words[-1]
        return "".join(words[:-1])[: limit - len(number)] + number
    return name.replace(" ", "")[:limit]


def fitted_text(update: table_pb2.Update, limit: int = WLED_TEXT_LIMIT) -> str:
    """The display line in at most `limit` ASCII characters, dropping the least useful parts first.

    Whose turn (or who won) and every score stay as long as anything can: first the phase gives way to
    "Turn: Ann" (or "Winner: Ann"), then the separators shrink, then the turn is marked on the score list
    instead (">Ann 3|Bot 1 5"; winners are marked "*"), then names are shortened, and only then is the
    line cut.
    """
    scores = list(update.scores)
    seats = [
        (entry.index, ascii_text(seat_name(update, entry.index)) or f"P{entry.index + 1}", scores[entry.index])
        for entry in update.seats
        if entry.index < len(scores)
    ]
    names = {index: name for index, name, _ in seats}
    finished = update.status == table_pb2.TABLE_STATUS_FINISHED
    if finished:
        marked, mark = set(update.outcome.winners), "*"
    elif update.status == table_pb2.TABLE_STATUS_PLAYING:
        marked, mark = set(update.to_act), ">"
    else:
        marked, mark = set(), ""

    def short_head() -> str:
        who = ", ".join(names.get(s, f"P{s + 1}") for s in sorted(marked))
        if finished:
            return f"{'Winners' if len(marked) > 1 else 'Winner'}: {who}" if who else "Game over"
        if who:
            return f"Turn: {who}"
        return "Waiting" if update.status == table_pb2.TABLE_STATUS_LOBBY else ""

    def line(head: str, separator: str, limit_names: int | None, marks: bool) -> str:
        parts = [head] if head else []
        for index, name, score in seats:
            flag = mark if marks and index in marked else ""
            parts.append(f"{flag}{abbreviated(name, limit_names)} {score}")
        return separator.join(parts)

    candidates = [
        line(ascii_text(_head(update)), " | ", None, False),
        line(short_head(), " | ", None, False),
        line(short_head(), "|", None, False),
        *(line("", "|", cap, True) for cap in (None, 10, 8, 6, 5, 4, 3, 2, 1)),
    ]
    for text in candidates:
        if len(text) <= limit:
            return text
    return candidates[-1][:limit]


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


@functools.cache
def ha_origin() -> dict[str, str]:
    """Home Assistant's `origin` block: this application's name, version and (when the installed package
    declares one) support URL."""
    origin = {"name": ORIGIN_NAME}
    try:
        origin["sw_version"] = importlib.metadata.version("toadstool")
        meta = importlib.metadata.metadata("toadstool")
    except importlib.metadata.PackageNotFoundError:
        return origin
    urls = [entry.partition(",")[2].strip() for entry in meta.get_all("Project-URL") or []]
    urls += [meta.get("Home-page") or ""]
    for url in urls:
        if url.startswith(("https://", "http://")):
            origin["support_url"] = url
            break
    return origin


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
        "origin": ha_origin(),
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

    def command_topics(self) -> list[tuple[str, str]]:
        """The command topic each WLED or Tasmota display writes to, and how the configuration names it
        (to refuse two tables, or two values, on one display)."""
        found = [(f"{topic}/api", f"WLED {topic}") for topic in self.wled]
        return found + [(tasmota_topic(device), f"Tasmota {device}:{what}") for device, what in self.tasmota]


def wled_payload(text: str) -> dict[str, Any]:
    """WLED JSON API state: segment 0 scrolls `text` (effect "Scrolling Text" shows the segment name).

    It never says `"on"`: whether the lamp is lit stays its owner's choice.
    """
    return {"seg": [{"id": 0, "fx": WLED_SCROLLING_TEXT_FX, "n": text[:WLED_TEXT_LIMIT]}]}


def awtrix_payload(text: str) -> dict[str, Any]:
    """An AWTRIX 3 custom app showing `text` for 10 s in each app cycle."""
    return {"text": clean_text(text), "duration": 10}


def awtrix_topic(prefix: str, table_id: str) -> str:
    return f"{prefix}/custom/toadstool_{safe_level(table_id)}"


def tasmota_topic(device: str) -> str:
    return f"cmnd/{device}/DisplayNumber"


def device_messages(update: table_pb2.Update, devices: Devices) -> dict[str, bytes]:
    """Ready-made retained display states for the WLED and AWTRIX 3 devices configured for this table."""
    text = display_text(update)
    messages: dict[str, bytes] = {}
    if devices.wled:
        wled = encode(wled_payload(fitted_text(update)))
        for topic in devices.wled:
            messages[f"{topic}/api"] = wled
    for prefix in devices.awtrix:
        messages[awtrix_topic(prefix, update.table_id)] = encode(awtrix_payload(text))
    return messages


def device_commands(update: table_pb2.Update, roll: Roll | None, devices: Devices) -> dict[str, bytes]:
    """Tasmota commands for the TM1637 displays configured for this table: published without retain,
    because a broker replays a retained command to the device on every reconnect."""
    commands: dict[str, bytes] = {}
    scores = list(update.scores)
    for device, what in devices.tasmota:
        if what == "roll":
            if roll is not None:
                commands[tasmota_topic(device)] = str(roll.value).encode()
        elif what.isdigit() and int(what) < len(scores):
            commands[tasmota_topic(device)] = str(scores[int(what)]).encode()
    return commands


def device_topics(table_id: str, devices: Devices) -> list[str]:
    """Every retained display topic the bridge may hold for a table's devices (to clear them); Tasmota
    commands are not retained, so there is nothing to clear there (the bridge sends DisplayClear)."""
    return [f"{topic}/api" for topic in devices.wled] + [awtrix_topic(prefix, table_id) for prefix in devices.awtrix]


def tasmota_clear_topic(device: str) -> str:
    return f"cmnd/{device}/DisplayClear"


def parse_tasmota(spec: str) -> tuple[str, str]:
    """ "TOPIC:SEAT" or "TOPIC:roll" (a bare TOPIC shows seat 0's score)."""
    device, _, what = spec.partition(":")
    what = what.strip() or "0"
    if not device or not (what == "roll" or what.isdigit()):
        raise ValueError(f"a Tasmota display is TOPIC:SEAT or TOPIC:roll, not {spec!r}")
    return device, what
