"""Topic names of the bridge, in one place so the code, the tests and docs/mqtt.md agree.

It is for building topic strings from a prefix, a table id and a seat; it is not for payloads
(`formats`) or for publishing (`publisher`). Table ids come from the network: `safe_level` keeps them to
one topic level without wildcards, so a hostile id can never address another table's topics.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")
#: Home Assistant takes a discovery topic's node and object ids from `[a-zA-Z0-9_-]` only (and ignores a
#: config whose topic has any other character).
_HA_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def safe_level(text: str) -> str:
    """`text` as a single MQTT topic level: no '/', '+', '#', spaces or control characters."""
    cleaned = _UNSAFE.sub("_", text)[:64]
    return cleaned or "_"


def ha_id(text: str) -> str:
    """`text` as a Home Assistant node or object id: every character outside `[a-zA-Z0-9_-]` becomes `_`."""
    return _HA_UNSAFE.sub("_", text)[:64] or "_"


@dataclass(frozen=True)
class Topics:
    """Every topic the bridge uses under one prefix (default "toadstool")."""

    prefix: str = "toadstool"
    ha_prefix: str = "homeassistant"

    @property
    def status(self) -> str:
        """Bridge availability: retained "online", and "offline" as last will and on clean shutdown."""
        return f"{self.prefix}/bridge/status"

    @property
    def server(self) -> str:
        """Whether the bridge reaches the game server: retained "connected" or "unreachable"."""
        return f"{self.prefix}/bridge/server"

    @property
    def spotlight(self) -> str:
        """Which table the displays for every table ("*") show: retained, its id or "-" (none), so that a
        restarted bridge goes on with the table its predecessor showed."""
        return f"{self.prefix}/bridge/spotlight"

    @property
    def press_wildcard(self) -> str:
        return f"{self.prefix}/tables/+/press"

    @property
    def clears_at_wildcard(self) -> str:
        return f"{self.prefix}/tables/+/clears_at"

    @property
    def ha_status(self) -> str:
        """Home Assistant's birth/last-will topic: "online" asks for discovery to be announced again."""
        return f"{self.ha_prefix}/status"

    def table(self, table_id: str) -> str:
        return f"{self.prefix}/tables/{safe_level(table_id)}"

    def state(self, table_id: str) -> str:
        return f"{self.table(table_id)}/state"

    def view(self, table_id: str) -> str:
        return f"{self.table(table_id)}/view"

    def turn(self, table_id: str) -> str:
        return f"{self.table(table_id)}/turn"

    def text(self, table_id: str) -> str:
        return f"{self.table(table_id)}/text"

    def roll(self, table_id: str) -> str:
        return f"{self.table(table_id)}/roll"

    def roll_event(self, table_id: str) -> str:
        """Every die roll of a table, one message each (not retained): Home Assistant's event entity."""
        return f"{self.table(table_id)}/roll/event"

    @property
    def spotlight_state(self) -> str:
        """The state of the table the spotlight shows (retained; `state`'s payload, or `none`'s when none
        plays): Home Assistant's entities for "the current game" read it, whichever table that is."""
        return f"{self.prefix}/spotlight/state"

    @property
    def spotlight_roll(self) -> str:
        """The last roll at the spotlit table (retained; `roll`'s payload)."""
        return f"{self.prefix}/spotlight/roll"

    @property
    def spotlight_roll_event(self) -> str:
        """Every die roll at the spotlit table, one message each (not retained)."""
        return f"{self.prefix}/spotlight/roll/event"

    def clears_at(self, table_id: str) -> str:
        """When a finished table's topics will be cleared (Unix ms): a restarted bridge keeps them till then."""
        return f"{self.table(table_id)}/clears_at"

    def seat_score(self, table_id: str, seat: int) -> str:
        return f"{self.table(table_id)}/seats/{seat}/score"

    def seat_name(self, table_id: str, seat: int) -> str:
        return f"{self.table(table_id)}/seats/{seat}/name"

    def press(self, table_id: str) -> str:
        return f"{self.table(table_id)}/press"

    def press_result(self, table_id: str) -> str:
        return f"{self.table(table_id)}/press/result"

    def table_of_press(self, topic: str) -> str | None:
        """The table id of a `.../tables/<id>/press` topic, else None."""
        return self._table_of(topic, "/press")

    def table_of_clears_at(self, topic: str) -> str | None:
        """The table id of a `.../tables/<id>/clears_at` topic, else None."""
        return self._table_of(topic, "/clears_at")

    def _table_of(self, topic: str, tail: str) -> str | None:
        head = f"{self.prefix}/tables/"
        if topic.startswith(head) and topic.endswith(tail):
            middle = topic[len(head) : -len(tail)]
            if middle and "/" not in middle:
                return middle
        return None

    def ha_device_id(self, table_id: str) -> str:
        """The Home Assistant device id of a table (unique per prefix, so two bridges do not collide), in the
        characters Home Assistant allows."""
        return f"toadstool_{ha_id(self.prefix)}_{ha_id(table_id)}"

    @property
    def ha_spotlight_id(self) -> str:
        """The Home Assistant device id of the spotlight: the same whichever table it shows."""
        return f"toadstool_{ha_id(self.prefix)}_spotlight"

    def ha_config(self, table_id: str, entity: str, component: str = "sensor") -> str:
        """The discovery config topic of one entity of a table."""
        return f"{self.ha_prefix}/{component}/{self.ha_device_id(table_id)}/{ha_id(entity)}/config"

    def ha_spotlight_config(self, entity: str, component: str = "sensor") -> str:
        """The discovery config topic of one entity of the spotlight."""
        return f"{self.ha_prefix}/{component}/{self.ha_spotlight_id}/{ha_id(entity)}/config"

    def table_topics(self, table_id: str, seats: int) -> list[str]:
        """Every retained topic the bridge may hold for a table with `seats` seats (to clear it)."""
        topics = [self.state(table_id), self.view(table_id), self.turn(table_id), self.text(table_id)]
        topics += [self.roll(table_id), self.clears_at(table_id)]
        for seat in range(seats):
            topics += [self.seat_score(table_id, seat), self.seat_name(table_id, seat)]
        return topics

    def ha_topics(self, table_id: str, seats: int) -> list[str]:
        """Every discovery config topic a table with `seats` seats may have (to clear them)."""
        topics = [self.ha_config(table_id, name) for name in ("turn", "phase", "roll")]
        topics.append(self.ha_config(table_id, "roll", "event"))
        return topics + [self.ha_config(table_id, f"seat{seat}_score") for seat in range(seats)]
