"""Display names shared by the clients: seats (terminal and MQTT bridge), and enum values that views carry
as numbers (terminal and Tk screens).

Presentation data only (what a person reads for a seat, a Kart item or a Level Up! Power Up card); the rules
never look here. One place, so the clients always name things alike.
"""

from __future__ import annotations

import re

from toadstool.api.v1 import kart_pb2, levelup_pb2, table_pb2

_SEAT_REF = re.compile(r"\{p(\d+)\}")


def seat_name(update: table_pb2.Update, seat: int) -> str:
    """A seat's name as the update gives it, or "Player N" for an unnamed seat."""
    for entry in update.seats:
        if entry.index == seat:
            return entry.name or f"Player {seat + 1}"
    return f"Player {seat + 1}"


def seat_names(update: table_pb2.Update, players: int) -> list[str]:
    """The names of seats 0..players-1 (see `seat_name`)."""
    return [seat_name(update, seat) for seat in range(players)]


def with_seat_names(text: str, names: list[str]) -> str:
    """`text` with any seat reference `{pN}` replaced by that seat's name. The server names seats itself;
    this only keeps a reference it left (a newer server, a custom one) from reaching the screen raw."""

    def name(match: re.Match[str]) -> str:
        seat = int(match.group(1))
        return names[seat] if seat < len(names) else f"Player {seat + 1}"

    return _SEAT_REF.sub(name, text)


def counted(count: int, singular: str, plural: str | None = None) -> str:
    """`count` and its noun in the right number: "1 open seat", "2 open seats", "0 coin points"."""
    return f"{count} {singular if count == 1 else (plural or singular + 's')}"


#: "1 <noun>s" after an opening bracket or a lower-case word ("adds 1 coin points", "(1 open seats)"), for
#: the counted nouns server texts use. A seat name that ends in a 1 ("Bot 1 points") is left alone.
_ONE_PLURAL = re.compile(r"(\(|\b[a-z]+ )1 (open seat|coin point|point|lap|coin|card)s\b")


def with_singular_counts(text: str) -> str:
    """`text` with a count of one in the singular ("(1 open seats)" -> "(1 open seat)", "adds 1 coin points"
    -> "adds 1 coin point"), so a text a server built without `counted` still reads right on screen."""
    return _ONE_PLURAL.sub(r"\g<1>1 \g<2>", text)


#: Kart items by KartItem number.
KART_ITEM_NAMES: dict[int, str] = {
    kart_pb2.KART_ITEM_BANANA: "Banana",
    kart_pb2.KART_ITEM_MUSHROOM: "Mushroom",
    kart_pb2.KART_ITEM_FEATHER: "Feather",
    kart_pb2.KART_ITEM_GREEN_SHELL: "Green Shell",
    kart_pb2.KART_ITEM_RED_SHELL: "Red Shell",
    kart_pb2.KART_ITEM_BLUE_SHELL: "Blue Shell",
    kart_pb2.KART_ITEM_LIGHTNING: "Lightning",
    kart_pb2.KART_ITEM_GHOST: "Ghost",
    kart_pb2.KART_ITEM_DUD: "Dud",
}

#: Level Up! Power Up cards by LevelUpPowerKind number.
LEVEL_UP_POWER_NAMES: dict[int, str] = {
    levelup_pb2.LEVEL_UP_POWER_KIND_THWOMP_VOTE: "Thwomp Vote",
    levelup_pb2.LEVEL_UP_POWER_KIND_ONE_UP_MUSHROOM: "1-Up Mushroom",
    levelup_pb2.LEVEL_UP_POWER_KIND_WARP_PIPE: "Warp Pipe",
    levelup_pb2.LEVEL_UP_POWER_KIND_GOOMBA_STOMP: "Goomba Stomp",
    levelup_pb2.LEVEL_UP_POWER_KIND_BOO: "Boo",
    levelup_pb2.LEVEL_UP_POWER_KIND_MEGA_POW: "Mega POW",
    levelup_pb2.LEVEL_UP_POWER_KIND_GOLDEN_MUSHROOM: "Golden Mushroom",
}
