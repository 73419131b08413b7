"""Display names shared by the clients: seats (terminal and MQTT bridge), and enum values that views carry
as numbers (terminal and Tk screens).

Presentation data only (what a person reads for a seat, a Kart item or a Level Up! Power Up card); the rules
never look here. One place, so the clients always name things alike.
"""

from __future__ import annotations

import re

from toadstool.api.v1 import kart_pb2, levelup_pb2, table_pb2, uno_pb2
from toadstool_clients.i18n import N_, _, n_

_SEAT_REF = re.compile(r"\{p(\d+)\}")


def default_player_name() -> str:
    """The name a client offers when a person gave none: the login name (getpass.getuser()), capitalised,
    or "Player" where there is none. Every client uses this one, as `toadstool join` does, so one person
    is called alike at every table whichever client they sit down with."""
    import getpass

    try:
        user = getpass.getuser().strip()
    except (OSError, KeyError):  # no $USER and no passwd entry (some containers)
        user = ""
    return user.capitalize() if user else "Player"


#: Bot levels by service.proto's BotLevel number (Seat.bot_level), as a person reads them.
BOT_LEVELS = {1: N_("easy"), 2: N_("normal"), 3: N_("hard")}


def bot_level_name(level: int) -> str:
    """A bot level's word; 0 (unspecified) and any number no BotLevel has read "normal", as the server
    plays them."""
    return BOT_LEVELS.get(level, "normal")


#: How a Power Up seat made its keep-or-trade decision (powerup.proto's PowerUpDecision), as the log says it.
POWERUP_DECISIONS = {
    1: N_("kept"),
    2: N_("traded"),
    3: N_("drew a new card"),
    4: N_("played Vine"),
    5: N_("played Warp Pipe"),
    6: N_("trade blocked"),
}


def powerup_decision(decision: int) -> str:
    """A Power Up seat's decision this round in the person's words; "decided" for a number this client does
    not know (a newer server's)."""
    words = POWERUP_DECISIONS.get(decision)
    return _(words) if words is not None else _("decided")


def seat_name(update: table_pb2.Update, seat: int) -> str:
    """A seat's name as the update gives it, or "Player N" for an unnamed seat."""
    for entry in update.seats:
        if entry.index == seat:
            return entry.name or _("Player {number}", number=seat + 1)
    return _("Player {number}", number=seat + 1)


def seat_names(update: table_pb2.Update, players: int) -> list[str]:
    """The names of seats 0..players-1 (see `seat_name`)."""
    return [seat_name(update, seat) for seat in range(players)]


def with_seat_names(text: str, names: list[str]) -> str:
    """`text` with any seat reference `{pN}` replaced by that seat's name. The server names seats itself;
    this only keeps a reference it left (a newer server, a custom one) from reaching the screen raw."""

    def name(match: re.Match[str]) -> str:
        seat = int(match.group(1))
        return names[seat] if seat < len(names) else _("Player {number}", number=seat + 1)

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
    kart_pb2.KART_ITEM_BANANA: N_("Banana"),
    kart_pb2.KART_ITEM_MUSHROOM: N_("Mushroom"),
    kart_pb2.KART_ITEM_FEATHER: N_("Feather"),
    kart_pb2.KART_ITEM_GREEN_SHELL: N_("Green Shell"),
    kart_pb2.KART_ITEM_RED_SHELL: N_("Red Shell"),
    kart_pb2.KART_ITEM_BLUE_SHELL: N_("Blue Shell"),
    kart_pb2.KART_ITEM_LIGHTNING: N_("Lightning"),
    kart_pb2.KART_ITEM_GHOST: N_("Ghost"),
    kart_pb2.KART_ITEM_DUD: N_("Dud"),
}

#: What a Kart die roll was for (KartRoll.purpose, an identifier), in a word.
KART_ROLL_PURPOSES: dict[str, str] = {
    "start_order": N_("start order"),
    "move": N_("move"),
    "booster": N_("booster"),
    "thwomp": N_("Thwomp"),
}

#: Level Up! Power Up cards by LevelUpPowerKind number.
LEVEL_UP_POWER_NAMES: dict[int, str] = {
    levelup_pb2.LEVEL_UP_POWER_KIND_THWOMP_VOTE: N_("Thwomp Vote"),
    levelup_pb2.LEVEL_UP_POWER_KIND_ONE_UP_MUSHROOM: N_("1-Up Mushroom"),
    levelup_pb2.LEVEL_UP_POWER_KIND_WARP_PIPE: N_("Warp Pipe"),
    levelup_pb2.LEVEL_UP_POWER_KIND_GOOMBA_STOMP: N_("Goomba Stomp"),
    levelup_pb2.LEVEL_UP_POWER_KIND_BOO: N_("Boo"),
    levelup_pb2.LEVEL_UP_POWER_KIND_MEGA_POW: N_("Mega POW"),
    levelup_pb2.LEVEL_UP_POWER_KIND_GOLDEN_MUSHROOM: N_("Golden Mushroom"),
}


#: Level Up! ? blocks by LevelUpBlockKind number.
LEVEL_UP_BLOCK_NAMES: dict[int, str] = {
    levelup_pb2.LEVEL_UP_BLOCK_KIND_COIN: N_("Coin"),
    levelup_pb2.LEVEL_UP_BLOCK_KIND_COIN_X2: N_("Coin x2"),
    levelup_pb2.LEVEL_UP_BLOCK_KIND_SUPER_MUSHROOM: N_("Super Mushroom"),
    levelup_pb2.LEVEL_UP_BLOCK_KIND_FEATHER: N_("Feather"),
    levelup_pb2.LEVEL_UP_BLOCK_KIND_GOOMBA: N_("Goomba"),
    levelup_pb2.LEVEL_UP_BLOCK_KIND_GREEN_SHELL: N_("Green Shell"),
    levelup_pb2.LEVEL_UP_BLOCK_KIND_DOUBLE_CHERRY: N_("Double Cherry"),
    levelup_pb2.LEVEL_UP_BLOCK_KIND_THWOMP: N_("Thwomp"),
    levelup_pb2.LEVEL_UP_BLOCK_KIND_POW_BLOCK: N_("POW Block"),
    levelup_pb2.LEVEL_UP_BLOCK_KIND_SUPER_STAR: N_("Super Star"),
}

#: UNO card faces by UnoKind number (number cards are named by their number).
UNO_KIND_NAMES: dict[int, str] = {
    uno_pb2.UNO_KIND_SKIP: N_("Skip"),
    uno_pb2.UNO_KIND_REVERSE: N_("Reverse"),
    uno_pb2.UNO_KIND_DRAW_TWO: N_("Draw Two"),
    uno_pb2.UNO_KIND_WILD: N_("Wild"),
    uno_pb2.UNO_KIND_WILD_DRAW_FOUR: N_("Wild Draw Four"),
    uno_pb2.UNO_KIND_WILD_CUSTOMIZABLE: N_("Wild Customizable"),
    uno_pb2.UNO_KIND_SUPER_STAR: N_("Super Star"),
}
#: UNO colours by UnoColor number.
UNO_COLOR_NAMES: dict[int, str] = {
    uno_pb2.UNO_COLOR_RED: N_("red"),
    uno_pb2.UNO_COLOR_YELLOW: N_("yellow"),
    uno_pb2.UNO_COLOR_GREEN: N_("green"),
    uno_pb2.UNO_COLOR_BLUE: N_("blue"),
}
#: Level Up! vote cards by LevelUpVote number.
LEVEL_UP_VOTE_NAMES: dict[int, str] = {
    levelup_pb2.LEVEL_UP_VOTE_YES: N_("Yes!"),
    levelup_pb2.LEVEL_UP_VOTE_NO: N_("No!"),
    levelup_pb2.LEVEL_UP_VOTE_THWOMP_VOTE: N_("Thwomp Vote"),
}


def uno_card_name(card: uno_pb2.UnoCard) -> str:
    """ "red 5", "blue Skip", "Wild Draw Four", in the person's language ("Rot 5", "Aussetzen Blau", as the
    server names the cards: each language orders colour and kind)."""
    colour = UNO_COLOR_NAMES.get(card.color)
    if card.HasField("number"):
        return _("{colour} {number}", colour=_(colour), number=card.number) if colour else str(card.number)
    kind = _(UNO_KIND_NAMES.get(card.kind, N_("card")))
    return _("{colour} {kind}", colour=_(colour), kind=kind) if colour else kind


#: A menu step's kind in words (the choice tree's inner entries: "Boo ▸", "Place Mario ▸").
KIND_LABELS: dict[str, str] = {
    "play_card": N_("Play"),
    "place": N_("Place"),
    "move": N_("Move"),
    "play_feather": N_("Feather"),
    "play_green_shell": N_("Green Shell"),
    "play_warp_pipe": N_("Warp Pipe"),
    "play_goomba_stomp": N_("Goomba Stomp"),
    "play_boo": N_("Boo"),
    "play_mega_pow": N_("Mega POW"),
    "play_one_up": N_("1-Up Mushroom on"),
    "cast_vote": N_("Vote"),
    "reveal_block": N_("Reveal"),
    "place_banana": N_("Banana on"),
    "move_banana": N_("Move the banana from"),
    "use_item": N_("Use the item on"),
    "pay_coins": N_("Pay"),
    "take_shortcut": N_("Take"),
    "trade": N_("Trade with"),
    "catch": N_("Catch"),
    "choose_color": N_("Choose"),
}

_SEAT_FIELDS = {"seat", "target"}


def step_label(update: table_pb2.Update, kind: str, field: str, value: object) -> str:
    """One step of the choice tree in words, named from the update's view (a card in the hand, a character,
    a seat, a field of the track); `field` "" names the kind itself. Presentation only."""
    if not field:
        return _(KIND_LABELS[kind]) if kind in KIND_LABELS else kind.replace("_", " ").capitalize()
    member = update.view.WhichOneof("game")
    number = value if isinstance(value, int) and not isinstance(value, bool) else None
    if number is not None and field in _SEAT_FIELDS:
        return you_or_name(update, number)
    if number is not None and member == "uno":
        uno = update.view.uno
        if field == "card_id":
            cards = [*uno.hand, uno.drawn_card] if uno.HasField("drawn_card") else list(uno.hand)
            card = next((c for c in cards if c.id == number), None)
            return uno_card_name(card) if card is not None else _("card {number}", number=number)
        if field == "color":
            return _(UNO_COLOR_NAMES.get(number, N_("no colour")))
    if number is not None and member == "levelup":
        names = update.view.levelup.character_names
        if field in ("character", "first", "second"):
            return names[number] if 0 <= number < len(names) else _("character {number}", number=number)
        if field == "level":
            return _("level {number}", number=number)
        if field == "slot":
            return _("block {number}", number=number + 1)
        if field == "choice":
            return _(LEVEL_UP_VOTE_NAMES.get(number, N_("no vote")))
    if number is not None and member == "kart":
        kart = update.view.kart
        if field in ("field", "from_field"):
            return _("field {number}", number=number)
        if field == "coins":
            return n_("{n} coin", "{n} coins", number)
        if field == "shortcut":
            cuts = kart.track.shortcuts
            label = cuts[number].label if 0 <= number < len(cuts) else str(number + 1)
            return _("shortcut {label}", label=label)
    if number is not None and member == "powerup" and field == "card":
        named: dict[int, str] = {card.kind: card.name for card in update.view.powerup.hand}
        return named.get(number, _("card {number}", number=number))
    if isinstance(value, bool):
        return field.replace("_", " ") if value else f"no {field.replace('_', ' ')}"
    return f"{field.replace('_', ' ')} {value}"


def you_or_name(update: table_pb2.Update, seat: int) -> str:
    """ "you" for the viewer's own seat, else the seat's name."""
    if update.HasField("viewer_seat") and seat == update.viewer_seat:
        return _("you")
    return seat_name(update, seat)
