"""Payloads of the bridge: pure functions from a spectator `Update` to MQTT topics and bytes.

It is for what each topic carries (state JSON, whose turn, scores, the last die roll, Home Assistant
discovery, WLED / AWTRIX 3 / Tasmota TM1637 display commands). It is not for connections or timing
(`publisher`, `app`), nor for which table a display shows (`app`). Every function here takes only
spectator updates, which are the public view, so nothing private can reach MQTT through it; it knows no
game rules (scores, phase and whose turn are the generic fields every game fills in). Names come from the
network: they are JSON-encoded in JSON payloads and stripped of control characters in display text, and
each device's text is plain text for that device (`awtrix_text`, `ascii_text`, `tasmota_number`).
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from anyascii import anyascii
from google.protobuf.json_format import MessageToDict

from toadstool.api.v1 import table_pb2
from toadstool_clients.bridge.topics import Topics, safe_level
from toadstool_clients.i18n import N_, _
from toadstool_clients.names import seat_name, with_singular_counts

STATUS_NAMES = {
    table_pb2.TABLE_STATUS_LOBBY: "lobby",
    table_pb2.TABLE_STATUS_PLAYING: "playing",
    table_pb2.TABLE_STATUS_FINISHED: "finished",
}
KIND_NAMES = {table_pb2.SEAT_KIND_EMPTY: "empty", table_pb2.SEAT_KIND_HUMAN: "human", table_pb2.SEAT_KIND_BOT: "bot"}
#: The head of the WLED line in the lobby and once the game is over (in the bridge's language, as ASCII).
WAITING_HEAD = N_("Waiting")
GAME_OVER_HEAD = N_("Game over")
#: Payload of the turn topic when the game waits for nobody (an empty retained payload would delete it).
NOBODY = "-"
#: WLED's "Scrolling Text" effect (FX_MODE_2DSCROLLTEXT in wled00/FX.h) scrolls the segment name.
WLED_SCROLLING_TEXT_FX = 122
#: WLED keeps at most WLED_MAX_SEGNAME_LEN bytes of a segment name (wled00/const.h: 32 on ESP8266, 64 on
#: ESP32, and never less than 32 in a custom build), so 32 ASCII characters fit on every device.
WLED_TEXT_LIMIT = 32
DISPLAY_TEXT_LIMIT = 200
#: What clears a WLED display: segment 0 off, effect 0 ("Solid") and no name. WLED applies only payloads
#: starting with `{` on `<topic>/api` as JSON (wled00/mqtt.cpp); an empty message is not one. A name left
#: empty would make "Scrolling Text" scroll the date and time instead (wled00/FX.cpp, mode_2Dscrollingtext).
WLED_CLEAR: dict[str, Any] = {"seg": [{"id": 0, "on": False, "fx": 0, "n": ""}]}
#: Seconds an AWTRIX 3 app stays in the clock's loop without an update (its `lifetime`): a bridge killed
#: mid-game leaves no app behind for longer. The bridge sends each app again every AWTRIX_REFRESH seconds.
AWTRIX_LIFETIME = 120
AWTRIX_REFRESH = 30.0
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
            # Each seat's final place (1 = first; a tie shares its place), for a game that states places (Kart
            # ranks by progress on the track, which the laps in `scores` do not tell apart); [] otherwise.
            "places": list(update.outcome.places),
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
    """`text` as printable ASCII for a device font, letters kept: transliterated with anyascii ("Zoë" ->
    "Zoe", "Юля" -> "Yulya", "王" -> "Wang") and no `#` (WLED's scrolling text reads `#TIME`, `#DD` and the
    like as clock tokens: wled00/FX.cpp, mode_2Dscrollingtext)."""
    plain = anyascii(clean_text(text))
    return " ".join("".join(ch if " " <= ch <= "~" else " " for ch in plain).replace("#", " ").split())


#: The last code point AWTRIX 3's font maps from UTF-8 on its own (its utf8ascii() in src/Functions.cpp
#: maps Latin-1, U+00A0-U+00FF, to its glyphs, and drops most else).
_AWTRIX_KEPT = 0xFF


def awtrix_text(text: str) -> str:
    """`text` as plain text for an AWTRIX 3 app: no `{` or `}` (AWTRIX replaces `{{topic}}` in a text with
    that topic's payload and subscribes to it: src/Apps.cpp replacePlaceholders, src/DisplayManager.cpp
    subscribeToPlaceholders), so braces become parentheses; letters beyond Latin-1 are transliterated."""
    cleaned = clean_text(text)
    plain = "".join(ch if ord(ch) <= _AWTRIX_KEPT else anyascii(ch) for ch in cleaned)
    return clean_text(plain.replace("{", "(").replace("}", ")"))


def abbreviated(name: str, limit: int | None) -> str:
    """A name cut to `limit` characters from its first word, keeping a trailing number ("Bot 12" -> "Bo12",
    "Zoe the Magnificent 1" -> "Zoe1")."""
    if limit is None or len(name) <= limit:
        return name
    words = name.split()
    number = words[-1] if len(words) > 1 and words[-1].isdigit() and len(words[-1]) < limit else ""
    first = words[0] if len(words) > 1 else name
    return first[: limit - len(number)] + number


def _wled_name(update: table_pb2.Update, seat: int) -> str:
    """A seat's name in the WLED line: ASCII, and without the line's own marks (`|` between seats, `>` whose
    turn, `*` winners), so that no name can pass for another seat or for a turn."""
    name = ascii_text(seat_name(update, seat))
    return " ".join(name.translate(str.maketrans("|>*", "   ")).split()) or f"P{seat + 1}"


def fitted_text(update: table_pb2.Update, limit: int = WLED_TEXT_LIMIT) -> str:
    """The WLED line in at most `limit` ASCII characters, in one layout for the whole game.

    While a table plays the line is its scores with whose turn marked (">Ann 3|Bot 1 5"); names are
    shortened to one length, fitted for one mark (or as many as the seats marked at once) and two-digit
    scores, so the layout does not change from turn to turn. In the lobby it starts "Waiting|"; once the
    game is over, ended by its host included, "Game over|" with the winners marked "*". That head comes
    first and is never cut: only the scores' end can be, at 10 seats.
    """
    scores = list(update.scores)
    seats = [
        (entry.index, _wled_name(update, entry.index), scores[entry.index])
        for entry in update.seats
        if entry.index < len(scores)
    ]
    if update.status == table_pb2.TABLE_STATUS_FINISHED:
        head, marked, mark = _(GAME_OVER_HEAD), set(update.outcome.winners), "*"
    elif update.status == table_pb2.TABLE_STATUS_PLAYING:
        head, marked, mark = "", set(update.to_act), ">"
    else:
        head, marked, mark = _(WAITING_HEAD), set(), ""
    head = ascii_text(head).translate(str.maketrans("|>*", "   ")).strip()  # the line's own marks stay its own
    prefix = f"{head}|" if head else ""

    marks = max(1, len(marked)) if mark else 0

    def widest(cap: int | None) -> int:
        """The line's length with `marks` seats marked and every score at least two digits wide."""
        parts = [len(abbreviated(name, cap)) + 1 + max(2, len(str(score))) for _, name, score in seats]
        return len(prefix) + marks + sum(parts) + max(0, len(parts) - 1)

    cap = next((cap for cap in (None, 12, 10, 8, 6, 5, 4, 3, 2) if widest(cap) <= limit), 1)
    parts = [f"{mark if index in marked else ''}{abbreviated(name, cap)} {score}" for index, name, score in seats]
    return "|".join([head, *parts] if head else parts)[:limit]


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


def rolls(update: table_pb2.Update) -> list[Roll]:
    """Every die roll among the update's events, in order (a start order's rolls arrive in one update)."""
    found = []
    counts: dict[int, int] = {}
    for event in update.events:
        if not event.HasField("roll"):
            continue
        n = counts.get(event.version, 0)
        counts[event.version] = n + 1
        roll = event.roll
        found.append(
            Roll(
                roll_id=f"{event.version}.{n}",
                version=event.version,
                roller=roll.roller,
                roller_name=seat_name(update, roll.roller),
                purpose=roll.purpose,
                value=roll.value,
            )
        )
    return found


def roll_event(roll: Roll, table_id: str) -> bytes:
    """One die roll as Home Assistant's MQTT event entity takes it: `event_type` and the roll's fields as
    the event's attributes."""
    return encode({"event_type": "roll", **roll.payload(table_id)})


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
    urls += meta.get_all("Home-page") or []
    for url in urls:
        if url.startswith(("https://", "http://")):
            origin["support_url"] = url
            break
    return origin


def ha_availability(topics: Topics) -> dict[str, Any]:
    """Available only while the bridge is online and reaches the game server: both topics must say so
    (`availability_mode: all`), so that a dashboard shows no stale value as current."""
    return {
        "availability": [
            {"topic": topics.status, "payload_available": "online", "payload_not_available": "offline"},
            {"topic": topics.server, "payload_available": "connected", "payload_not_available": "unreachable"},
        ],
        "availability_mode": "all",
    }


def ha_discovery(update: table_pb2.Update, topics: Topics) -> dict[str, bytes]:
    """Home Assistant MQTT discovery: one device per table, sensors for whose turn, the phase, the last roll
    and each score, and an event entity that fires at every roll."""
    table_id = update.table_id
    device_id = topics.ha_device_id(table_id)
    device = {
        "identifiers": [device_id],
        "name": clean_text(update.table_name or table_id, 80),
        "manufacturer": "Toadstool",
        "model": update.game,
    }
    common = {**ha_availability(topics), "device": device, "origin": ha_origin()}
    messages = {
        topics.ha_config(table_id, "turn"): encode(
            {
                **common,
                "name": _("Whose turn"),
                "unique_id": f"{device_id}_turn",
                "state_topic": topics.turn(table_id),
                "icon": "mdi:account-clock",
            }
        ),
        topics.ha_config(table_id, "phase"): encode(
            {
                **common,
                "name": _("Phase"),
                "unique_id": f"{device_id}_phase",
                "state_topic": topics.state(table_id),
                "value_template": "{{ value_json.phase }}",
                "icon": "mdi:information-outline",
            }
        ),
        topics.ha_config(table_id, "roll"): encode(
            {
                **common,
                "name": _("Last roll"),
                "unique_id": f"{device_id}_roll",
                "state_topic": topics.roll(table_id),
                "value_template": "{{ value_json.value }}",
                "json_attributes_topic": topics.roll(table_id),
                "icon": "mdi:dice-multiple",
            }
        ),
        topics.ha_config(table_id, "roll", "event"): encode(
            {
                **common,
                "name": _("Roll"),
                "unique_id": f"{device_id}_roll_event",
                "state_topic": topics.roll_event(table_id),
                "event_types": ["roll"],
                "icon": "mdi:dice-multiple",
            }
        ),
    }
    label = update.score_label or _("points")
    for entry in update.seats:
        name = clean_text(seat_name(update, entry.index), 40)
        messages[topics.ha_config(table_id, f"seat{entry.index}_score")] = encode(
            {
                **common,
                "name": _("{name} {label}", name=name, label=label),
                "unique_id": f"{device_id}_seat{entry.index}_score",
                "state_topic": topics.seat_score(table_id, entry.index),
                "unit_of_measurement": label,
                "state_class": "measurement",
                "icon": "mdi:trophy-outline",
            }
        )
    return messages


#: The spotlight's `state` when no table plays: every entity reads "-".
SPOTLIGHT_NONE: dict[str, Any] = {
    "table": None,
    "name": NOBODY,
    "game": NOBODY,
    "status": "none",
    "phase": NOBODY,
    "turn": [],
    "seats": [],
    "scores": [],
}


def spotlight_messages(update: table_pb2.Update | None, topics: Topics) -> dict[str, bytes]:
    """The spotlight's retained state: the spotlit table's `state` payload, or SPOTLIGHT_NONE."""
    return {topics.spotlight_state: encode(state_payload(update) if update is not None else SPOTLIGHT_NONE)}


def ha_spotlight_discovery(topics: Topics, seats: int) -> dict[str, bytes]:
    """Home Assistant entities that follow the spotlight, whichever table it shows: their ids never change,
    so a dashboard keeps them from game to game (the game, the table, its phase, whose turn, the last roll
    and each seat's name and score, "-" for a seat the table does not have)."""
    device_id = topics.ha_spotlight_id
    device = {"identifiers": [device_id], "name": _("Toadstool spotlight"), "manufacturer": "Toadstool"}
    common = {**ha_availability(topics), "device": device, "origin": ha_origin()}
    state = topics.spotlight_state
    sensors = [
        ("game", _("Game"), state, "{{ value_json.game }}", "mdi:controller"),
        ("table", _("Table"), state, "{{ value_json.name }}", "mdi:table-furniture"),
        ("phase", _("Phase"), state, "{{ value_json.phase }}", "mdi:information-outline"),
        ("turn", _("Whose turn"), state, "{{ value_json.turn | join(', ') or '-' }}", "mdi:account-clock"),
        ("roll", _("Last roll"), topics.spotlight_roll, "{{ value_json.value }}", "mdi:dice-multiple"),
    ]
    for seat in range(seats):
        here = f"value_json.seats | length > {seat}"
        sensors.append(
            (
                f"seat{seat}_name",
                _("Seat {number} name", number=seat + 1),
                state,
                f"{{{{ value_json.seats[{seat}].name if {here} else '-' }}}}",
                "mdi:account",
            )
        )
        sensors.append(
            (
                f"seat{seat}_score",
                _("Seat {number} score", number=seat + 1),
                state,
                f"{{{{ value_json.seats[{seat}].score if {here} and 'score' in value_json.seats[{seat}] else '-' }}}}",
                "mdi:trophy-outline",
            )
        )
    messages = {
        topics.ha_spotlight_config(entity): encode(
            {
                **common,
                "name": name,
                "unique_id": f"{device_id}_{entity}",
                "state_topic": topic,
                "value_template": template,
                "icon": icon,
            }
        )
        for entity, name, topic, template, icon in sensors
    }
    messages[topics.ha_spotlight_config("roll", "event")] = encode(
        {
            **common,
            "name": _("Roll"),
            "unique_id": f"{device_id}_roll_event",
            "state_topic": topics.spotlight_roll_event,
            "event_types": ["roll"],
            "icon": "mdi:dice-multiple",
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
    """WLED JSON API state: segment 0 on, scrolling `text` (effect "Scrolling Text" shows the segment name).

    It never says the top-level `"on"`: whether the lamp is lit stays its owner's choice; segment 0 is
    switched on because clearing switches it off (WLED_CLEAR).
    """
    return {"seg": [{"id": 0, "on": True, "fx": WLED_SCROLLING_TEXT_FX, "n": ascii_text(text)[:WLED_TEXT_LIMIT]}]}


def awtrix_payload(text: str) -> dict[str, Any]:
    """An AWTRIX 3 custom app showing `text` for 10 s in each app cycle, removed by the clock itself after
    AWTRIX_LIFETIME seconds without an update (`lifetime`; `lifetimeMode` 0 deletes the app)."""
    return {"text": awtrix_text(text), "duration": 10, "lifetime": AWTRIX_LIFETIME, "lifetimeMode": 0}


def awtrix_topic(prefix: str, table_id: str) -> str:
    return f"{prefix}/custom/toadstool_{safe_level(table_id)}"


def tasmota_topic(device: str) -> str:
    return f"cmnd/{device}/DisplayNumber"


def tasmota_number(value: int) -> bytes:
    """A DisplayNumber payload: digits (and a sign) only, never anything Tasmota could read as another
    command or an empty one (an empty DisplayNumber shows 0)."""
    return str(int(value)).encode()


def device_messages(update: table_pb2.Update, devices: Devices) -> dict[str, bytes]:
    """Ready-made retained display states for the WLED and AWTRIX 3 devices configured for this table."""
    messages: dict[str, bytes] = {}
    if devices.wled:
        wled = encode(wled_payload(fitted_text(update)))
        for topic in devices.wled:
            messages[f"{topic}/api"] = wled
    text = display_text(update)
    for prefix in devices.awtrix:
        messages[awtrix_topic(prefix, update.table_id)] = encode(awtrix_payload(text))
    return messages


def device_commands(update: table_pb2.Update, devices: Devices) -> dict[str, bytes]:
    """Tasmota commands for the TM1637 displays of scores configured for this table: published without
    retain, because a broker replays a retained command to the device on every reconnect. (Displays of the
    roll are played roll by roll: `roll_commands`.)"""
    commands: dict[str, bytes] = {}
    scores = list(update.scores)
    for device, what in devices.tasmota:
        if what.isdigit() and int(what) < len(scores):
            commands[tasmota_topic(device)] = tasmota_number(scores[int(what)])
    return commands


def roll_commands(roll: Roll, devices: Devices) -> dict[str, bytes]:
    """The Tasmota command that shows `roll` on each TM1637 configured for the roll."""
    return {tasmota_topic(device): tasmota_number(roll.value) for device, what in devices.tasmota if what == "roll"}


def wled_topics(devices: Devices) -> list[str]:
    return [f"{topic}/api" for topic in devices.wled]


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
