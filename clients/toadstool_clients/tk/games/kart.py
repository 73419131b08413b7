"""The Super Mario Kart board game screen: the track as a loop of coloured fields (item, booster,
mushroom, Thwomp), shortcuts as red arrows, banana chips, the karts as coloured discs, the standings with
laps, coins and items, and the latest dice.

It draws what the KartView says and offers the legal actions whose payload names a field (bananas) or a
seat (item targets); it knows no rules.
"""

from __future__ import annotations

import math
from typing import Any

from toadstool.api.v1 import kart_pb2
from toadstool_clients.i18n import N_, _, n_
from toadstool_clients.names import KART_ITEM_NAMES
from toadstool_clients.tk.games import Board, fitted, safe_text, text_colour_on, text_width

GRASS = "#3c9a3c"
GOLD = "#ffd54a"
KART_COLOURS = {
    kart_pb2.KART_COLOR_RED: "#e52521",
    kart_pb2.KART_COLOR_BLUE: "#2f5fe0",
    kart_pb2.KART_COLOR_GREEN: "#35b04a",
    kart_pb2.KART_COLOR_PURPLE: "#8e44ad",
    kart_pb2.KART_COLOR_WHITE: "#f5f5f5",
    kart_pb2.KART_COLOR_YELLOW: "#f3d02a",
    kart_pb2.KART_COLOR_BLACK: "#222222",
}
FIELDS = {
    kart_pb2.KART_FIELD_TYPE_PLAIN: ("#8d8d8d", ""),
    kart_pb2.KART_FIELD_TYPE_ITEM: ("#ffb300", "?"),
    kart_pb2.KART_FIELD_TYPE_BOOSTER: ("#29b6f6", "»"),
    kart_pb2.KART_FIELD_TYPE_MUSHROOM: ("#e53935", "M"),
    kart_pb2.KART_FIELD_TYPE_THWOMP: ("#37474f", "▼"),
}
BANANA = "#ffe135"
SHORT = {"donkey kong": "DK", "bowser jr.": "BJ", "toadette": "Tt", "waluigi": "Wa"}


class Loop:
    """A stadium-shaped loop: field i's centre and the direction out of the loop there."""

    def __init__(self, cx: float, cy: float, straight: float, radius: float, length: int) -> None:
        self.cx, self.cy, self.straight, self.radius = cx, cy, straight, radius
        self.length = max(1, length)
        self.perimeter = 2 * straight + 2 * math.pi * radius

    def at(self, s: float) -> tuple[float, float, float, float]:
        """Point and outward normal at distance s along the loop (clockwise from the bottom middle)."""
        s %= self.perimeter
        half, r, arc = self.straight / 2, self.radius, math.pi * self.radius
        if s < half:  # bottom straight, moving left from the middle
            return self.cx - s, self.cy + r, 0.0, 1.0
        s -= half
        if s < arc:  # left bend, bottom to top
            t = s / r
            return self.cx - half - r * math.sin(t), self.cy + r * math.cos(t), -math.sin(t), math.cos(t)
        s -= arc
        if s < self.straight:  # top straight, moving right
            return self.cx - half + s, self.cy - r, 0.0, -1.0
        s -= self.straight
        if s < arc:  # right bend, top to bottom
            t = s / r
            return self.cx + half + r * math.sin(t), self.cy - r * math.cos(t), math.sin(t), -math.cos(t)
        s -= arc
        return self.cx + half - s, self.cy + r, 0.0, 1.0

    def field(self, index: int) -> tuple[float, float, float, float]:
        return self.at((index + 0.5) * self.perimeter / self.length)


def short_label(name: str) -> str:
    return SHORT.get(name.lower(), name[:1] or "?")


#: Field kinds in the legend, with their names.
LEGEND = (
    (kart_pb2.KART_FIELD_TYPE_ITEM, N_("item")),
    (kart_pb2.KART_FIELD_TYPE_BOOSTER, N_("booster")),
    (kart_pb2.KART_FIELD_TYPE_MUSHROOM, N_("mushroom")),
    (kart_pb2.KART_FIELD_TYPE_THWOMP, N_("Thwomp")),
)


def banana_chip(board: Board, x: float, y: float, r: float) -> list[int]:
    """A banana chip: a yellow disc with a dark rim and a banana's curve on it."""
    c = board.canvas
    items = [c.create_oval(x - r, y - r, x + r, y + r, fill=BANANA, outline="#4e342e", width=2)]
    inner = r * 0.62
    items.append(c.create_arc(x - inner, y - inner * 1.25, x + inner, y + inner * 0.75, start=200, extent=140,
                              style="arc", outline="#6d4c00", width=max(2, int(r / 4))))  # fmt: skip
    return items


def panel_width(board: Board) -> float:
    """The race panel (standings, dice, legend) at the right of the track."""
    return max(180.0, min(250.0, board.width * 0.3))


def draw(board: Board, view: kart_pb2.KartView) -> None:
    w, h = board.width, board.height
    c = board.canvas
    c.configure(background=GRASS)
    for stripe in range(0, int(w) + int(h), 60):  # mown-grass stripes
        c.create_line(stripe, 0, stripe - h, h, fill="#379037", width=24)
    track = view.track
    length = max(1, track.length or len(track.fields))
    track_w = w - panel_width(board) - 20
    radius = max(60.0, min(h * 0.36, track_w * 0.3))
    straight = max(30.0, track_w - 2 * radius - 60)
    loop = Loop(10 + track_w / 2, h / 2 + 10, straight, radius, length)
    tile = min(30.0, loop.perimeter / length * 0.86)
    # the road under the fields
    points = []
    for step in range(181):
        x, y, _nx, _ny = loop.at(loop.perimeter * step / 180)
        points += [x, y]
    c.create_line(*points, fill="#5d5d5d", width=tile * 1.9, capstyle="round", joinstyle="round", smooth=True)
    c.create_line(*points, fill="#ffffff", width=tile * 1.9 + 6, capstyle="round", dash=(12, 12))
    c.create_line(*points, fill="#5d5d5d", width=tile * 1.9, capstyle="round", smooth=True)
    # the FINISH label goes under the finish line, unless the latest roll's card would cover it there
    x, y, _nx, _ny = loop.at(0)
    below = (x - 24, y + tile * 0.95 + 4, x + 24, y + tile * 0.95 + 20)
    spot = die_spot(track_w, h, below)
    _draw_finish(board, loop, tile, inside=spot is None)
    _draw_direction(board, loop, tile)
    _draw_infield(board, view, loop)
    _draw_shortcuts(board, view, loop)
    _draw_fields(board, view, loop, tile, track_w + 10)
    _draw_karts(board, view, loop, tile)
    _draw_race_panel(board, view, w - panel_width(board) - 8, 8, w - 8, h - 8)
    board.die_spot = spot or (min(track_w, 230.0), h - 70)


#: The card of the latest roll (tk/overlays.py draw_roll): how far it reaches left of, above and below its spot.
ROLL_CARD_LEFT, ROLL_CARD_TOP, ROLL_CARD_BOTTOM = 174.0, 6.0, 54.0


def die_spot(track_w: float, h: float, finish: tuple[float, float, float, float]) -> tuple[float, float] | None:
    """Where the latest roll's card goes: on the grass below the track and off the FINISH label's box (left
    of it, else under it, else right of it); None when there is no such place."""
    right, top = min(track_w, 230.0), h - 70

    def clear(r: float, t: float) -> bool:
        box = (r - ROLL_CARD_LEFT, t - ROLL_CARD_TOP, r + 8, t + ROLL_CARD_BOTTOM)
        apart = box[2] < finish[0] or finish[2] < box[0] or box[3] < finish[1] or finish[3] < box[1]
        return apart and box[0] >= 4 and box[2] <= track_w + 10 and box[3] <= h

    for r, t in ((right, top), (finish[0] - 14.0, top), (right, finish[3] + 8.0),
                 (finish[2] + 14 + ROLL_CARD_LEFT, top)):  # fmt: skip
        if clear(r, t):
            return r, t
    return None


def _draw_direction(board: Board, loop: Loop, tile: float) -> None:
    """An arrow beside the top straight: the way the karts drive (the field numbers grow that way)."""
    y = loop.cy - loop.radius - tile - 12
    half = min(60.0, loop.straight / 2)
    if y < 8 or half < 20:
        return
    board.canvas.create_line(loop.cx - half, y, loop.cx + half, y, fill="white", width=4, arrow="last",
                             arrowshape=(12, 14, 6))  # fmt: skip


def _draw_finish(board: Board, loop: Loop, tile: float, inside: bool = False) -> None:
    """The chequered finish line across field 0 and its label, under the line (or `inside` the loop)."""
    x, y, _nx, _ny = loop.at(0)
    half = tile * 0.95
    squares = 6
    for row in range(squares):
        for col in range(2):
            fill = "white" if (row + col) % 2 else "black"
            y0 = y - half + row * 2 * half / squares
            board.canvas.create_rectangle(x - 6 + col * 6, y0, x + col * 6, y0 + 2 * half / squares, fill=fill,
                                          outline="")  # fmt: skip
    board.text(x, y - half - 12 if inside else y + half + 12, _("FINISH"), 8, "bold", fill="white")


def _draw_shortcuts(board: Board, view: kart_pb2.KartView, loop: Loop) -> None:
    takes = {payload.shortcut: legal for legal, payload in board.actions("kart", "take_shortcut")}
    for index, shortcut in enumerate(view.track.shortcuts):
        x0, y0, _a, _b = loop.field(shortcut.start)
        x1, y1, _c, _d = loop.field(shortcut.exit)
        mx = (x0 + x1) / 2 + (loop.cx - (x0 + x1) / 2) * 0.35
        my = (y0 + y1) / 2 + (loop.cy - (y0 + y1) / 2) * 0.35
        line = board.canvas.create_line([x0, y0, mx, my, x1, y1], smooth=True, fill="#d50000", width=6, arrow="last",
                                        arrowshape=(16, 20, 7))  # fmt: skip
        label = board.text(mx, my, safe_text(shortcut.label, 4), 10, "bold", fill="white")
        if index in takes:
            board.clickable([line, label], [takes[index]], f"shortcut {index}")


def _draw_fields(board: Board, view: kart_pb2.KartView, loop: Loop, tile: float, right: float) -> None:
    """The fields round the loop (marked by kind), every tenth numbered outside the road, or inside it where
    the outside would leave the track's area (`right`: where the race panel starts)."""
    c = board.canvas
    bananas = set(view.banana_fields)
    field_offers: dict[int, list[Any]] = {}
    for legal, payload in board.actions("kart", "place_banana"):
        field_offers.setdefault(payload.field, []).append(legal)
    for legal, payload in board.actions("kart", "move_banana"):
        field_offers.setdefault(payload.field, []).append(legal)
    half = tile / 2
    for index in range(loop.length):
        kind = view.track.fields[index] if index < len(view.track.fields) else kart_pb2.KART_FIELD_TYPE_PLAIN
        fill, mark = FIELDS.get(kind, ("#8d8d8d", "·"))
        x, y, nx, ny = loop.field(index)
        items = [board.rounded(x - half, y - half, x + half, y + half, tile / 4, fill=fill, outline="#e0e0e0",
                               width=2 if index not in field_offers else 3)]  # fmt: skip
        if index in field_offers:
            items.append(board.rounded(x - half - 3, y - half - 3, x + half + 3, y + half + 3, tile / 4, fill="",
                                       outline=GOLD, width=3))  # fmt: skip
        if kind == kart_pb2.KART_FIELD_TYPE_MUSHROOM:
            items.append(c.create_oval(x - half * 0.6, y - half * 0.6, x + half * 0.6, y + half * 0.3, fill="white",
                                       outline=""))  # fmt: skip
            items.append(c.create_oval(x - half * 0.3, y - half * 0.35, x + half * 0.3, y + half * 0.1, fill=fill,
                                       outline=""))  # fmt: skip
        elif mark:
            # a kart standing on the field covers its mark, as on the printed board
            items += board.stack([board.text(x, y, mark, max(7, int(tile * 0.42)), "bold", fill=text_colour_on(fill))])
        if index % 10 == 0 and index:  # field 0 is the finish line
            lx, ly = x + nx * (tile + 6), y + ny * (tile + 6)
            if not (12 <= lx <= right - 12 and 8 <= ly <= board.height - 8):
                lx, ly = x - nx * (tile + 6), y - ny * (tile + 6)
            board.text(lx, ly, str(index), 7, fill="#e8f5e9")
        if index in bananas:  # a banana chip lies on the field, over its mark (the colour still says its kind)
            items += banana_chip(board, x, y, half * 0.82)
        if index in field_offers:
            board.clickable(items, field_offers[index], f"field {index}")


def _draw_karts(board: Board, view: kart_pb2.KartView, loop: Loop, tile: float) -> None:
    on_field: dict[int, list[kart_pb2.KartRacer]] = {}
    in_start: list[kart_pb2.KartRacer] = []
    for racer in view.karts:
        (in_start if racer.in_start_area else on_field.setdefault(racer.field, [])).append(racer)
    targets: dict[int, list[Any]] = {}
    for legal, payload in board.actions("kart", "use_item"):
        if payload.HasField("target"):
            targets.setdefault(payload.target, []).append(legal)
    radius = max(8.0, tile * 0.45)
    # where fields are closer than two karts are wide, karts on neighbouring fields take turns to stand at
    # the inner edge of the road, so that no kart covers the next one's initials
    spacing = loop.perimeter / loop.length
    shift = math.sqrt(max(0.0, (2 * radius + 4) ** 2 - spacing**2))
    inward: set[int] = set()
    for field_index in sorted(on_field):
        if (field_index - 1) % loop.length in on_field and (field_index - 1) % loop.length not in inward:
            inward.add(field_index)
    for field_index, racers in on_field.items():
        x, y, nx, ny = loop.field(field_index)
        if field_index in inward:
            x, y = x - nx * shift, y - ny * shift
        count = len(racers)
        # karts sharing a field sit round its middle, a little smaller
        size = radius if count == 1 else max(7.0, radius * 0.8)
        spread = 0.0 if count == 1 else tile * 0.55
        for order, racer in enumerate(racers):
            angle = 2 * math.pi * order / count - math.pi / 2
            kx, ky = x + spread * math.cos(angle), y + spread * math.sin(angle)
            _draw_kart(board, view, racer, kx, ky, size, targets.get(racer.seat, []))
    if in_start:
        x, y, _nx, _ny = loop.at(0)
        for order, racer in enumerate(sorted(in_start, key=lambda r: r.start_place)):
            kx = x + 24 + (order // 2) * radius * 2.3
            ky = y - radius * 1.1 + (order % 2) * radius * 2.2
            _draw_kart(board, view, racer, kx, ky, radius, targets.get(racer.seat, []))


def _draw_kart(board: Board, view: kart_pb2.KartView, racer: kart_pb2.KartRacer, x: float, y: float,
               radius: float, offers: list[Any]) -> None:  # fmt: skip
    fill = KART_COLOURS.get(racer.color, "#9e9e9e")
    items = []
    if view.HasField("turn") and view.turn == racer.seat:
        items.append(board.canvas.create_oval(x - radius - 5, y - radius - 5, x + radius + 5, y + radius + 5,
                                              fill=GOLD, outline="white", width=2))  # fmt: skip
    items += board.token(x, y, radius, fill, short_label(racer.character),
                         outline="#ffeb3b" if racer.seat == board.you else "white")  # fmt: skip
    board.tip(items, f"{safe_text(racer.character, 16)} ({board.seat_name(racer.seat)})")
    board.moving(f"kart {racer.seat}", items)
    board.clickable(items, offers, f"kart {racer.seat}")


def _draw_infield(board: Board, view: kart_pb2.KartView, loop: Loop) -> None:
    """The infield: the track's name and laps, the bank and piles, and what this move is about."""
    x0 = loop.cx - loop.straight / 2 - loop.radius * 0.3
    x1 = loop.cx + loop.straight / 2 + loop.radius * 0.3
    y0 = loop.cy - loop.radius * 0.55
    y1 = loop.cy + loop.radius * 0.55
    board.panel(x0, y0, x1, y1, 20, fill="#1b5e20", outline="#a5d6a7", width=2)
    room = x1 - x0 - 20
    cx = (x0 + x1) / 2
    title = n_("{track} · {n} lap", "{track} · {n} laps", view.laps, track=view.track.title or view.track.name)
    title = safe_text(title, 60)  # measured: a smaller size before any cut
    size = next((size for size in (11, 10, 9) if text_width(board.canvas, title, size, "bold") <= room), 9)
    board.text(cx, y0 + 16, fitted(board.canvas, title, room, size, "bold"), size, "bold", fill=GOLD)
    facts = _("Bank ● {bank} · items {deck} · bananas {chips}", bank=view.bank, deck=view.deck_count,
              chips=view.banana_chips_left)  # fmt: skip
    board.text(cx, y0 + 36, safe_text(facts, max(6, int(room / 5.6))), 8, fill="#c8e6c9")
    notes = []
    if view.bundle_paid:
        notes.append(n_("paid {n} coin for +{bonus}", "paid {n} coins for +{bonus}", view.bundle_paid,
                        bonus=view.bundle_bonus))  # fmt: skip
    if view.mushroom:
        notes.append(_("Mushroom: the roll is doubled"))
    if view.lightning:
        notes.append(_("Lightning!"))
    if view.stage == kart_pb2.KART_STAGE_SHORTCUT:
        notes.append(n_("{n} field to drive: take a shortcut?", "{n} fields to drive: take a shortcut?",
                        view.pending_move))  # fmt: skip
    if notes and y1 - y0 > 64:
        board.text(cx, (y0 + 46 + y1) / 2, safe_text(" · ".join(notes), max(10, int(room / 3.2))), 9, "bold",
                   fill=GOLD, width=room, justify="center")  # fmt: skip


def laps_done(board: Board, racer: kart_pb2.KartRacer, view: kart_pb2.KartView) -> int:
    """The laps a kart has completed: the number the seats' "Laps" column shows (the update's score), so
    that the standings and the seats never read as two different things ("Laps 0" beside "lap 1/3")."""
    scores = board.update.scores
    if racer.seat < len(scores):
        return int(scores[racer.seat])
    return max(0, min(racer.lap, view.laps) - 1)


def _draw_race_panel(board: Board, view: kart_pb2.KartView, x0: float, y0: float, x1: float, y1: float) -> None:
    """Right of the track: the standings, the latest rolls, the die to roll, and the legend of fields."""
    c = board.canvas
    board.panel(x0, y0, x1, y1, 14, fill="#1b3d1b", outline="#a5d6a7", width=2)
    room = x1 - x0 - 20
    racers = sorted(view.karts, key=lambda r: (-r.progress, r.start_place))
    ranked = bool(view.ranking)
    legend_h = 56.0
    die_h = 80.0 if board.actions("kart", "roll") else 0.0
    rolls_h = 54.0 if view.last_rolls else 0.0
    row_h = max(14.0, min(30.0, (y1 - y0 - 30 - legend_h - die_h - rolls_h) / max(len(racers), 1)))
    two_lines = row_h >= 28
    board.text(x0 + 10, y0 + 14, _("Standings"), 10, "bold", anchor="w", fill=GOLD)
    y = y0 + 30 + (row_h / 2 if not two_lines else 8)
    for place, racer in enumerate(racers, start=1):
        shown_place = view.ranking[racer.seat] if ranked and racer.seat < len(view.ranking) else place
        turn = view.HasField("turn") and view.turn == racer.seat
        colour = KART_COLOURS.get(racer.color, "#9e9e9e")
        fill = GOLD if turn else "white"
        details = [_("{done}/{laps} laps", done=laps_done(board, racer, view), laps=view.laps), f"● {racer.coins}"]
        extras = []
        if racer.HasField("item"):
            extras.append(_(KART_ITEM_NAMES.get(racer.item, "item")))
        if racer.skips:
            extras.append(_("skips {n}", n=racer.skips))
        if racer.halving:
            extras.append(_("½ move"))
        board.text(x0 + 10, y, f"{shown_place}.", 9, "bold", anchor="w", fill=fill)
        c.create_oval(x0 + 28, y - 6, x0 + 40, y + 6, fill=colour, outline="white")
        right = "  ".join(details)
        dot = extras and not two_lines
        if x1 - 10 - text_width(c, right, 8) - (20 if dot else 8) - (x0 + 46) < 56:  # a narrow panel: short facts
            right = f"{laps_done(board, racer, view)}/{view.laps}  ●{racer.coins}"
        board.text(x1 - 10, y, right, 8, anchor="e", fill="#e8f5e9")
        # the name ends a gap before the details (or before the dot that stands for the extras)
        details_left = x1 - 10 - text_width(c, right, 8)
        name_end = details_left - (20 if dot else 8)
        who = safe_text(f"{racer.character} ({board.seat_name(racer.seat)})" if two_lines else racer.character, 40)
        if text_width(c, who, 9, "bold") > name_end - x0 - 46:  # no room for the seat's name: the character's
            who = safe_text(racer.character, 20)
        name = board.text(x0 + 46, y, fitted(c, who, name_end - x0 - 46, 9, "bold"), 9, "bold", anchor="w", fill=fill)
        board.tip([name], f"{safe_text(racer.character, 20)} ({board.seat_name(racer.seat)})")
        if extras and two_lines:
            board.text(x0 + 46, y + 13, fitted(c, " · ".join(extras), x1 - x0 - 56, 7), 7, anchor="w", fill="#fff59d")
        elif extras:
            board.tip([c.create_oval(details_left - 14, y - 4, details_left - 6, y + 4, fill="#fff59d", outline="")],
                      " · ".join(extras))  # fmt: skip
        y += row_h
    y = max(y, y0 + 30) + 6 - (row_h / 2 if not two_lines else 8)
    rolls = list(view.last_rolls)[-max(1, int((room - 36) / 40)) :]
    if rolls:
        label = board.text(x0 + 10, y + 12, _("Rolls"), 8, "bold", anchor="w", fill="#c8e6c9")
        first = max(x0 + 44, board.canvas.bbox(label)[2] + 8)  # the dice start after the word, however long
        rolls = rolls[-max(1, int((x1 - 4 - first) / 40)) :]
        for index, roll in enumerate(rolls):
            rx = first + index * 40
            board.die(rx, y, 24, roll.value)
            board.text(rx + 12, y + 34, safe_text(board.seat_name(roll.roller), 6), 7, fill="#c8e6c9")
        y += rolls_h
    rolls_offered = [legal for legal, _payload in board.actions("kart", "roll")]
    if rolls_offered:  # the die itself is the roll button
        size = 40.0
        rx = (x0 + x1) / 2 - size / 2
        items = board.die(rx, y + 4, size, 5, highlight=True)
        items.append(board.text(rx + size / 2, y + size + 20, _("Click to roll (r)"), 9, "bold", fill=GOLD))
        board.clickable(items, rolls_offered, "the die")
    # the legend of field kinds, in two columns at the bottom
    ly = y1 - legend_h + 4
    # the second column starts after the first column's longest name (the names are never cut)
    first = max(text_width(c, _(title), 8) for index, (_kind, title) in enumerate(LEGEND) if index % 2 == 0)
    column_w = max(room / 2, 17 + first + 8)
    for index, (field_kind, field_name) in enumerate(LEGEND):
        fill, mark = FIELDS[field_kind]
        lx = x0 + 10 + (index % 2) * column_w
        yy = ly + (index // 2) * 16
        board.rounded(lx, yy - 6, lx + 12, yy + 6, 3, fill=fill, outline="white")
        if mark and field_kind != kart_pb2.KART_FIELD_TYPE_MUSHROOM:
            board.text(lx + 6, yy, mark, 7, "bold", fill=text_colour_on(fill))
        board.text(lx + 17, yy, _(field_name), 8, anchor="w", fill="#e8f5e9")
    yy = ly + (len(LEGEND) // 2) * 16  # the banana chip, on a line of its own below the fields
    banana_chip(board, x0 + 16, yy, 6)
    board.text(x0 + 27, yy, _("banana chip"), 8, anchor="w", fill="#e8f5e9")
