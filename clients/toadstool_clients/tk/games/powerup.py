"""The Super Mario Bros. Power Up Card Game screen: every seat's Level card, modifier and Extra Lives
around the table, a pending trade as an arrow, the decks, and the viewer's ? cards with their text.

It draws what the PowerUpView says and offers the legal actions whose payload names a ? card or a seat;
it knows no rules.
"""

from __future__ import annotations

import math
from typing import Any

from toadstool.api.v1 import powerup_pb2, table_pb2
from toadstool_clients.i18n import N_, _, n_
from toadstool_clients.names import powerup_decision
from toadstool_clients.tk.games import Board, event_line, safe_text, text_colour_on, text_width

FELT = "#2b3f8c"
PANEL_H = 132
TABLE = "#22336f"
GOLD = "#ffd54a"
SUIT_COLOURS = ("#e52521", "#2e9e3e", "#2f7be0", "#f3b21b")
KIND_COLOURS = {
    powerup_pb2.POWER_UP_CARD_KIND_SUPER_STAR: "#f5c518",
    powerup_pb2.POWER_UP_CARD_KIND_KOOPA_TROOPA: "#4caf50",
    powerup_pb2.POWER_UP_CARD_KIND_BOWSER: "#e67e22",
    powerup_pb2.POWER_UP_CARD_KIND_FIRE_FLOWER: "#ff5722",
    powerup_pb2.POWER_UP_CARD_KIND_SUPER_MUSHROOM: "#e52521",
    powerup_pb2.POWER_UP_CARD_KIND_GOOMBA: "#8d5524",
    powerup_pb2.POWER_UP_CARD_KIND_GREEN_SHELL: "#2e9e3e",
    powerup_pb2.POWER_UP_CARD_KIND_RED_SHELL: "#c62828",
    powerup_pb2.POWER_UP_CARD_KIND_HAMMER_BROS: "#1e88e5",
    powerup_pb2.POWER_UP_CARD_KIND_BOO: "#b0bec5",
    powerup_pb2.POWER_UP_CARD_KIND_WARP_PIPE: "#1b8a3a",
    powerup_pb2.POWER_UP_CARD_KIND_VINE: "#7cb342",
    powerup_pb2.POWER_UP_CARD_KIND_ONE_UP_MUSHROOM: "#43a047",
    powerup_pb2.POWER_UP_CARD_KIND_BULLET_BILL: "#37474f",
}
TIMING = {
    powerup_pb2.POWER_UP_TIMING_MODIFY: N_("your modify turn"),
    powerup_pb2.POWER_UP_TIMING_ANY_TIME: N_("any time"),
    powerup_pb2.POWER_UP_TIMING_TRADE_ANSWER: N_("when traded with"),
    powerup_pb2.POWER_UP_TIMING_BEFORE_DECISION: N_("before deciding"),
    powerup_pb2.POWER_UP_TIMING_AS_DECISION: N_("as your decision"),
}


def fit(text: str, room: float, size: int = 8) -> str:
    """`text` cut to what `room` pixels hold at `size` points (DejaVu Sans averages ~0.75 of the size)."""
    return safe_text(text, max(3, int(room / (size * 0.78))))


def draw_level_card(board: Board, x: float, y: float, w: float, seat: powerup_pb2.PowerUpSeat) -> list[int]:
    """A seat's Level card: its value when the viewer knows it (a modified value below it), a castle, or a
    face-down back."""
    h = w * 1.4
    items = [board.rounded(x + 2, y + 3, x + w + 2, y + h + 3, 8, fill="#111a3a", outline="")]
    if not seat.has_level:
        items.append(board.rounded(x, y, x + w, y + h, 8, fill="", outline="#5c6bc0", dash=(4, 3), width=2))
        return items
    known = seat.HasField("level")
    if not known:
        items.append(board.rounded(x, y, x + w, y + h, 8, fill="#c62828", outline="white", width=2))
        items.append(board.text(x + w / 2, y + h / 2, "?", int(w * 0.45), "bold", fill=GOLD))
        return items
    card = seat.level
    small = max(6, int(w * 0.13))
    if card.castle:
        items.append(board.rounded(x, y, x + w, y + h, 8, fill="#fff8e1", outline="#8d6e63", width=3))
        items.append(board.text(x + w / 2, y + h * 0.42, "♜", int(w * 0.42), "bold", fill="#6d4c41"))
        items.append(board.text(x + w / 2, y + h * 0.84, _("Castle"), small, "bold", fill="#6d4c41"))
        return items
    colour = SUIT_COLOURS[card.suit % 4] if card.suit >= 0 else "#888888"
    items.append(board.rounded(x, y, x + w, y + h, 8, fill="white", outline=colour, width=4))
    value = seat.value if seat.HasField("value") else card.value
    items.append(board.text(x + w / 2, y + h * 0.42, str(card.value), int(w * 0.4), "bold", fill=colour))
    if value != card.value:  # a ? card changed it: the value that counts, where "LEVEL" would be
        items.append(board.rounded(x + 4, y + h * 0.72, x + w - 4, y + h - 4, 5, fill=GOLD, outline=""))
        items.append(board.text(x + w / 2, y + h * 0.84, _("now {value}", value=value), small, "bold", fill="#222222"))
    else:
        items.append(board.text(x + w / 2, y + h * 0.84, _("LEVEL"), small, "bold", fill="#555555"))
    return items


def draw_question_card(board: Board, x: float, y: float, w: float, h: float, card: powerup_pb2.PowerUpCard,
                       ring: str = "") -> list[int]:  # fmt: skip
    """A ? card with its name, when it may be played, and as much of its printed effect as fits."""
    colour = KIND_COLOURS.get(card.kind, "#7e57c2")
    items = []
    if ring:
        items.append(board.rounded(x - 4, y - 4, x + w + 4, y + h + 4, 12, fill=ring, outline=""))
    items.append(board.rounded(x + 2, y + 3, x + w + 2, y + h + 3, 10, fill="#111a3a", outline=""))
    items.append(board.rounded(x, y, x + w, y + h, 10, fill="#fffdf5", outline=colour, width=3))
    name = safe_text(card.name, 40)
    size = next((size for size in (9, 8) if text_width(board.canvas, name, size, "bold") <= w - 12), 0)
    # a name too long for one line at 8 points takes two lines of the band (the effect starts lower)
    band = 22 if size else 34
    items.append(board.rounded(x + 5, y + 5, x + w - 5, y + 5 + band, 7, fill=colour, outline=""))
    if size:
        items.append(board.text(x + w / 2, y + 16, name, size, "bold", fill="white"))
    else:
        items.append(board.text(x + w / 2, y + 5 + band / 2, name, 8, "bold", fill="white", width=w - 12,
                                justify="center"))  # fmt: skip
    top = y + band - 22
    timing = _(TIMING[card.timing]) if card.timing in TIMING else ""
    items.append(board.text(x + w / 2, top + 38, fit(timing, w - 10, 7), 7, "bold",
                            fill="#7e57c2"))  # fmt: skip
    icon = h >= 150 + (band - 22)
    per_line = max(6, int((w - 14) / 5.6))
    lines = max(1, int((h - 56 - (band - 22) - (40 if icon else 6)) / 12))
    items.append(board.text(x + w / 2, top + 48, safe_text(card.effect, per_line * lines), 7, fill="#333333",
                            anchor="n", width=w - 14, justify="center"))  # fmt: skip
    if icon:  # a ? block, for the look of the printed card
        bx, by = x + w / 2, y + h - 20
        items.append(board.rounded(bx - 14, by - 14, bx + 14, by + 14, 4, fill="#f8b800", outline="#8a5a00", width=2))
        items.append(board.text(bx, by, "?", 12, "bold", fill="#8a3306"))
    return items


def _one_up(board: Board, x: float, y: float, r: float) -> None:
    """An Extra Life token drawn as a little green 1-Up mushroom."""
    c = board.canvas
    c.create_rectangle(x - r * 0.45, y - r * 0.1, x + r * 0.45, y + r * 0.9, fill="#fff3e0", outline="#5d4037")
    c.create_arc(x - r, y - r, x + r, y + r * 0.8, start=0, extent=180, fill="#43a047", outline="#1b5e20",
                 style="chord")  # fmt: skip
    c.create_oval(x - r * 0.3, y - r * 0.75, x + r * 0.3, y - r * 0.25, fill="white", outline="")
    c.create_oval(x - r * 0.25, y + r * 0.25, x - r * 0.08, y + r * 0.55, fill="black", outline="")
    c.create_oval(x + r * 0.08, y + r * 0.25, x + r * 0.25, y + r * 0.55, fill="black", outline="")


def bottom_band(board: Board) -> float:
    """The height of the viewer's row (their panel and ? cards) at the bottom."""
    return 176.0 if board.height >= 600 else 148.0


def seat_grid(board: Board, others: list[int], top: float, bottom: float) -> tuple[dict[int, tuple[float, float]],
                                                                                  float, float]:  # fmt: skip
    """The other seats' panels in even rows across the top, each row centred: (centres, width, height)."""
    w = board.width
    count = max(1, len(others))
    columns = count if count <= 4 else -(-count // 2)
    rows = -(-count // columns)
    pw = min(220.0, (w - 40 - (columns - 1) * 10) / columns)
    ph = max(84.0, min(PANEL_H, (bottom - top - (rows - 1) * 10) / rows))
    centres: dict[int, tuple[float, float]] = {}
    for index, seat in enumerate(others):
        row, column = divmod(index, columns)
        in_row = min(columns, count - row * columns)
        left = (w - in_row * pw - (in_row - 1) * 10) / 2
        centres[seat] = (left + column * (pw + 10) + pw / 2, top + row * (ph + 10) + ph / 2)
    return centres, pw, ph


def draw(board: Board, view: powerup_pb2.PowerUpView) -> None:
    w, h = board.width, board.height
    board.canvas.configure(background=FELT)
    felt = board.rounded(8, 8, w - 8, h - 8, 40, fill=TABLE, outline="#3f51b5", width=3)
    you = view.you if view.HasField("you") else None
    others = [s.seat for s in view.seats if s.seat != you]
    band = bottom_band(board) if you is not None else 0.0
    rows = 1 if len(others) <= 4 else 2
    seats_bottom = min(20 + rows * PANEL_H + (rows - 1) * 10, h - band - 100)
    positions, pw, ph = seat_grid(board, others, 18, seats_bottom)
    seats_bottom = max(y for _x, y in positions.values()) + ph / 2 if positions else 18
    if you is not None:
        positions[you] = (16 + 95, h - band / 2 - 4)
    targets: dict[int, list[Any]] = {}
    for legal, payload in board.actions("powerup", "trade"):
        targets.setdefault(payload.target, []).append(legal)
    for legal, payload in board.actions("powerup", "play_card"):
        if payload.HasField("target"):
            targets.setdefault(payload.target, []).append(legal)
    boxes: dict[int, tuple[float, float, float, float]] = {}
    for seat in view.seats:
        if seat.seat in positions:
            mine = seat.seat == you
            sw, sh = (190.0, min(PANEL_H, band - 16)) if mine else (pw, ph)
            _draw_seat(board, view, seat, positions[seat.seat], targets.get(seat.seat, []), sw, sh)
            cx, cy = positions[seat.seat]
            boxes[seat.seat] = (cx - sw / 2, cy - sh / 2, cx + sw / 2, cy + sh / 2)
    if view.HasField("pending") and view.pending.kind:
        _draw_pending(board, view.pending, boxes, felt)
    _draw_centre(board, view, seats_bottom + 8, h - band - 6)
    if you is not None:
        _draw_hand(board, view, h - band)


def _border_point(box: tuple[float, float, float, float], towards: tuple[float, float]) -> tuple[float, float]:
    """Where the line from the box's centre towards a point leaves the box."""
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    dx, dy = towards[0] - cx, towards[1] - cy
    scale = min((x1 - cx) / abs(dx) if dx else float("inf"), (y1 - cy) / abs(dy) if dy else float("inf"))
    return (cx + dx * scale, cy + dy * scale) if scale != float("inf") else (cx, cy)


def _draw_pending(board: Board, pending: powerup_pb2.PowerUpPendingSwap,
                  boxes: dict[int, tuple[float, float, float, float]], felt: int) -> None:  # fmt: skip
    """A trade or Warp Pipe waiting for its answer: both seats' panels ringed in gold and an arrow from
    one to the other (its names are in the centre). The arrow runs between the panels, under every panel,
    so it never covers a seat's Extra Lives or the dealer badge."""
    if pending.from_seat not in boxes or pending.to_seat not in boxes:
        return
    start, end = boxes[pending.from_seat], boxes[pending.to_seat]
    c = board.canvas
    for x0, y0, x1, y1 in (start, end):
        ring = board.rounded(x0 - 5, y0 - 5, x1 + 5, y1 + 5, 18, fill="", outline=GOLD, width=3, dash=(8, 5))
        c.itemconfigure(ring, state="disabled")
        c.tag_raise(ring, felt)
    centres = [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in (start, end)]
    a, b = _border_point(start, centres[1]), _border_point(end, centres[0])
    if math.hypot(b[0] - a[0], b[1] - a[1]) >= 36:
        points = [*a, *b]
    else:  # neighbours: an arc under the two panels, from one's bottom edge to the other's
        low = max(start[3], end[3]) + 26
        points = [centres[0][0], start[3], (centres[0][0] + centres[1][0]) / 2, low, centres[1][0], end[3]]
    # disabled: a click on the arrow goes to the seat under it
    arrow = c.create_line(*points, fill=GOLD, width=5, arrow="last", arrowshape=(18, 22, 8), smooth=True,
                          dash=(10, 6), state="disabled")  # fmt: skip
    c.tag_raise(arrow, felt)


def _draw_seat(board: Board, view: powerup_pb2.PowerUpView, seat: powerup_pb2.PowerUpSeat,
               centre: tuple[float, float], offers: list[Any], pw: float, ph: float) -> None:  # fmt: skip
    cx, cy = centre
    x0, y0, x1 = cx - pw / 2, cy - ph / 2, cx + pw / 2
    first = board.mark()
    turn = view.HasField("turn") and view.turn == seat.seat
    out = not seat.active
    outline = GOLD if turn else ("#5c6bc0" if not out else "#3a3f5c")
    board.panel(x0, y0, x1, y0 + ph, 14, fill="#1a2657" if not out else "#20243a", outline=outline,
                width=4 if turn else 2)  # fmt: skip
    board.canvas.create_oval(x0 + 8, y0 + 9, x0 + 22, y0 + 23, fill=board.seat_colour(seat.seat), outline="white")
    dealer = seat.seat == view.dealer
    badge = 0.0
    if dealer:
        badge = 44 if pw >= 150 else 16
        board.rounded(x1 - 6 - badge, y0 + 8, x1 - 6, y0 + 24, 7, fill="#ffffff", outline="")
        board.text(x1 - 6 - badge / 2, y0 + 16, _("dealer") if pw >= 150 else _("D"), 7, "bold", fill="#1a2657")
    name = _("{name} (you)", name=board.seat_name(seat.seat)) if seat.seat == board.you else board.seat_name(seat.seat)
    board.text(x0 + 28, y0 + 16, fit(name, x1 - x0 - 40 - badge, 10), 10, "bold", anchor="w",
               fill=GOLD if turn else "white")  # fmt: skip
    card_h = min(78.0, ph - 36)
    card_w = card_h / 1.4
    draw_level_card(board, x0 + 9, y0 + 29, card_w, seat)
    # the right-hand column: Extra Lives as 1-Up tokens, then their count, the notes and any modifier
    lx = x0 + 9 + card_w + 10
    room = x1 - lx - 6
    lives = seat.tokens
    base = y0 + ph - 12
    label = n_("{n} Extra Life", "{n} Extra Lives", lives) if not out else _("out of the game")
    if ph >= 110:  # room for a row of 1-Up tokens, and their count below
        per_line = max(1, int(room // 21))
        for index in range(min(lives, 2 * per_line if ph >= 124 else per_line)):
            _one_up(board, lx + 9 + (index % per_line) * 21, y0 + 40 + (index // per_line) * 20, 8)
        board.text(lx, base - 30, fit(label, room, 8), 8, "bold", anchor="w", fill="#c5cae9")
    else:  # a small panel: one token and the count beside it
        _one_up(board, lx + 9, y0 + 40, 8)
        count = f"\u00d7 {lives}" if not out else _("out")
        board.text(lx + 22, y0 + 42, fit(count, room - 22, 9), 9, "bold", anchor="w", fill="#c5cae9")
    notes = [f"{seat.hand_count} ?"]
    if seat.decided and view.stage != powerup_pb2.POWER_UP_STAGE_GAME_OVER:
        notes.append(powerup_decision(seat.decision))
    if seat.castle:
        notes.append(_("castle ♜"))
    if not board.connected(seat.seat):
        notes.append(_("offline"))
    board.text(lx, base - 15, fit(" · ".join(notes), room, 8), 8, anchor="w", fill="#9fa8da")
    if seat.HasField("modifier") and seat.modifier.name:
        colour = KIND_COLOURS.get(seat.modifier.kind, "#7e57c2")
        text = board.text(lx + 4, base, fit(seat.modifier.name, room - 8, 7), 7, "bold", anchor="w",
                          fill=text_colour_on(colour))  # fmt: skip
        bx0, by0, bx1, by1 = board.canvas.bbox(text)
        back = board.rounded(bx0 - 4, by0 - 1, bx1 + 4, by1 + 1, 6, fill=colour, outline="white")
        board.canvas.tag_raise(text, back)
    if offers:  # the whole panel, the 1-Ups and notes on it too
        board.clickable(board.since(first), offers, f"seat {seat.seat}")


def _draw_centre(board: Board, view: powerup_pb2.PowerUpView, top: float, bottom: float) -> None:
    """Between the seats and the viewer's row: the decks on the left, the round and what was played."""
    w = board.width
    room = bottom - top
    deck_h = max(30.0, min(84.0, room - 26))
    deck_w = deck_h * 0.7
    x = 24.0
    cy = top + (room - 16) / 2
    for title, count, fill, mark in ((_("Level deck"), view.level_deck_count, "#c62828", "L"),
                                     ("?", view.question_deck_count, "#7e57c2", "?")):  # fmt: skip
        for offset in (4, 2, 0):
            board.rounded(x + offset, cy - deck_h / 2 + offset, x + deck_w + offset, cy + deck_h / 2 + offset, 7,
                          fill=fill, outline="white", width=2)  # fmt: skip
        board.text(x + deck_w / 2 + 2, cy + 2, mark, max(10, int(deck_h * 0.26)), "bold", fill=GOLD)
        label = board.text(x + deck_w / 2 + 2, cy + deck_h / 2 + 14, f"{title} · {count}", 8, fill="#c5cae9")
        box = board.canvas.bbox(label)
        if box[0] < 4:  # a name wider than its deck stays inside the drawing
            board.canvas.move(label, 4 - box[0], 0)
            box = board.canvas.bbox(label)
        # the next deck starts clear of this one's words, however long
        x = max(x + max(deck_w + 20, 62), box[2] + 14 - (deck_w / 2 + 2 - (box[2] - box[0]) / 2))
    tx = x + 10
    width = w - tx - 24
    supply = n_("Round {round} · supply {n} Extra Life", "Round {round} · supply {n} Extra Lives", view.supply,
                round=view.round)  # fmt: skip
    lines = [(supply, 10, "bold", "#e8eaf6")]
    pending = view.pending if view.HasField("pending") and view.pending.kind else None
    if pending is not None:
        who, whom = board.seat_name(pending.from_seat), board.seat_name(pending.to_seat)
        if pending.kind == powerup_pb2.POWER_UP_SWAP_KIND_WARP_PIPE:
            said = _("Warp Pipe? {name} → {target}", name=who, target=whom)
        else:
            said = _("Trade? {name} → {target}", name=who, target=whom)
        lines.append((said, 10, "bold", GOLD))
    if view.played:
        names = ", ".join(safe_text(card.name, 16) for card in view.played[-6:])
        lines.append((_("Played this round: {cards}", cards=names), 8, "normal", "#c5cae9"))
    for peek in view.peeks:
        seen = _("Castle") if peek.card.castle else str(peek.card.value)
        said = _("Boo showed you {name}'s card: {card}", name=board.seat_name(peek.seat), card=seen)
        lines.append((said, 8, "normal", GOLD))
    y = top + 4
    for text, size, weight, colour in lines:
        if y + size * 1.7 > bottom:
            break
        item = board.text(tx, y, fit(text, width * 2, size), size, weight, anchor="nw", fill=colour, width=width)
        if board.canvas.bbox(item)[3] > bottom:  # two lines do not fit here: one, cut short
            board.canvas.delete(item)
            item = board.text(tx, y, fit(text, width, size), size, weight, anchor="nw", fill=colour)
        box = board.canvas.bbox(item)
        # on a patch of the table's own colour: a trade arrow passing under the centre never crosses its words
        back = board.canvas.create_rectangle(box[0] - 2, box[1], box[2] + 2, box[3], fill=TABLE, outline="")
        board.canvas.tag_lower(back, item)
        y = box[3] + 4


def _draw_hand(board: Board, view: powerup_pb2.PowerUpView, top: float) -> None:
    """The viewer's ? cards, right of their panel; the playable ones raised and ringed."""
    w, h = board.width, board.height
    plays: dict[int, list[Any]] = {}
    for legal, payload in board.actions("powerup", "play_card"):
        plays.setdefault(payload.card, []).append(legal)
    cards = list(view.hand)
    left, right = 16 + 190 + 16, w - 20
    said = _("Your ? cards · {n}", n=len(cards)) if cards else _("Your ? cards · 0 (none yet)")
    board.text(left, top + 8, said, 10, "bold",
               anchor="w", fill=GOLD)  # fmt: skip
    if not cards:
        return
    card_h = h - top - 44
    card_w = min(124.0, card_h * 0.83)
    step = min(card_w + 8, (right - left - card_w) / max(len(cards) - 1, 1))
    for index, card in enumerate(cards):
        playable = card.kind in plays
        x = left + index * step
        y = top + 28 - (6 if playable else 0)
        items = draw_question_card(board, x, y + 6, card_w, card_h, card, ring="white" if playable else "")
        board.moving(f"? card {card.id}", items)
        if playable:
            board.clickable(items, plays[card.kind], f"? card {card.id}", at=(x + min(step, card_w) / 2, y + 26))


def recap(previous: powerup_pb2.PowerUpView, view: powerup_pb2.PowerUpView, events: list[table_pb2.Event],
          names: list[str]) -> tuple[str, list[str]] | None:  # fmt: skip
    """When a round was just scored: its result, to hold on screen a moment (the next round is dealt in the
    same instant, so otherwise the reveal and "lowest" would exist only in the log). The result's lines are
    the events the server marks as the round's result, in whatever language they are said."""
    if view.round == previous.round and view.stage == previous.stage:
        return None
    if view.round == previous.round and view.stage != powerup_pb2.POWER_UP_STAGE_GAME_OVER:
        return None
    result = [event_line(e) for e in events if e.round_result]
    shown = result[:6] if result else [event_line(e) for e in events][-6:]
    return _("Round {number}: the result", number=previous.round), shown
