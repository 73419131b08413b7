"""What a hardware button's MQTT message asks for: a roll press, something to ignore, or a refusal.

It is for reading press payloads (plain words such as `roll` or `single`, or JSON with an `action` and an
`id`) and for the request id that makes one press one roll. It is not for acting on a press (`app` sends
the roll with the table's device token) nor for topics (`topics`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from toadstool_clients.bridge import formats

#: Payloads that mean "the button was pressed" (plain, or as the "action" of a JSON object).
PRESS_WORDS = frozenset({"roll", "press", "pressed", "single", "click", "single_click", "1", "on", "toggle"})
MAX_PRESS_ID = 64


@dataclass(frozen=True)
class Press:
    """A button press as the bridge understood it: `press_id` is None when the device sent none."""

    press_id: str | None


class PressRefused(Exception):
    """A press that must not become a roll; the message says why (published on the result topic)."""


def parse_press(payload: bytes) -> Press | None:
    """What a press message asks for: None for messages to ignore (empty, or a device state without action).

    Raises PressRefused for anything other than a roll press.
    """
    text = payload.decode("utf-8", "replace").strip()
    if not text:
        return None
    press_id: str | None = None
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            raise PressRefused("the press is not valid JSON") from None
        if not isinstance(data, dict):
            raise PressRefused("a JSON press must be an object")
        if "action" not in data:
            if set(data) - {"id"}:
                return None  # a device reporting its state (battery, link quality), not a press
            action = "roll"  # {"id": "..."} alone: the documented default
        else:
            action = str(data["action"] or "").strip().lower()
        if not action:
            return None  # a device reporting its state (battery, link quality) without a press
        raw_id = data.get("id")
        if raw_id is not None:
            press_id = str(raw_id)[:MAX_PRESS_ID]
    else:
        action = text.lower()
    if action not in PRESS_WORDS:
        shown = formats.clean_text(action, 40)
        raise PressRefused(f"a device may only roll; {shown!r} is refused")
    return Press(press_id)


def request_id_for(table_id: str, press_id: str) -> str:
    """The Act request id of a press: the same press always gives the same id, so it is applied once."""
    digest = hashlib.sha256(f"{table_id}\0{press_id}".encode()).hexdigest()
    return f"press-{digest[:32]}"
