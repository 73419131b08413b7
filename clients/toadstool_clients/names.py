"""Display names of enum values that views carry as numbers, shared by the terminal and Tk screens.

Presentation data only (what a person reads for a Kart item or a Level Up! Power Up card); the rules never
look here. One place, so both clients always name things alike.
"""

from __future__ import annotations

from toadstool.v1 import kart_pb2, levelup_pb2

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
