"""The Super Mario Bros. Power Up Card Game screen: every seat's Level card, modifier and Extra Lives
around the table, a pending trade as an arrow, the decks, and the viewer's ? cards with their text.

It draws what the PowerUpView says and offers the legal actions whose payload names a ? card or a seat;
it knows no rules.
"""

from __future__ import annotations

import math
from typing import Any

from toadstool.api.v1 import powerup_pb2
from toadstool_clients.tk.games import Board, safe_text

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
    powerup_pb2.POWER_UP_TIMING_MODIFY: "your modify turn",
    powerup_pb2.POWER_UP_TIMING_ANY_TIME: "any time",
    powerup_pb2.POWER_UP_TIMING_TRADE_ANSWER: "when traded with",
    powerup_pb2.POWER_UP_TIMING_BEFORE_DECISION: "before deciding",
    powerup_pb2.POWER_UP_TIMING_AS_DECISION: "as your decision",
}


def draw_level_card(board: Board, x: float, y: float, w: float, seat: powerup_pb2.PowerUpSeat) -> list[int]:
    """A seat's Level card: its value when the viewer knows it, a castle, or a face-down back."""
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
    if card.castle:
        items.append(board.rounded(x, y, x + w, y + h, 8, fill="#fff8e1", outline="#8d6e63", width=3))
        items.append(board.text(x + w / 2, y + h * 0.42, "♜", int(w * 0.45), "bold", fill="#6d4c41"))
        items.append(board.text(x + w / 2, y + h * 0.82, "Castle", max(7, int(w * 0.15)), "bold", fill="#6d4c41"))
        return items
    colour = SUIT_COLOURS[card.suit % 4] if card.suit >= 0 else "#888888"
    items.append(board.rounded(x, y, x + w, y + h, 8, fill="white", outline=colour, width=4))
    value = seat.value if seat.HasField("value") else card.value
    items.append(board.text(x + w / 2, y + h * 0.45, str(card.value), int(w * 0.42), "bold", fill=colour))
    items.append(board.text(x + w / 2, y + h * 0.83, "LEVEL", max(6, int(w * 0.13)), "bold", fill="#555555"))
    if value != card.value:
        items.append(board.canvas.create_oval(x + w - 18, y - 10, x + w + 14, y + 22, fill=GOLD, outline="white"))
        items.append(board.text(x + w - 2, y + 6, str(value), 11, "bold", fill="#222222"))
    if not seat.face_up:
        items.append(board.text(x + w / 2, y + h + 10, "face down", 8, fill="#9fa8da"))
    return items


def draw_question_card(board: Board, x: float, y: float, w: float, h: float, card: powerup_pb2.PowerUpCard,
                       ring: str = "") -> list[int]:  # fmt: skip
    """A ? card with its name, when it may be played, and its printed effect."""
    colour = KIND_COLOURS.get(card.kind, "#7e57c2")
    items = []
    if ring:
        items.append(board.rounded(x - 4, y - 4, x + w + 4, y + h + 4, 12, fill=ring, outline=""))
    items.append(board.rounded(x + 2, y + 3, x + w + 2, y + h + 3, 10, fill="#111a3a", outline=""))
    items.append(board.rounded(x, y, x + w, y + h, 10, fill="#fffdf5", outline=colour, width=3))
    items.append(board.rounded(x + 5, y + 5, x + w - 5, y + 30, 7, fill=colour, outline=""))
    items.append(board.text(x + w / 2, y + 17, safe_text(card.name, 18), 9, "bold", fill="white"))
    items.append(board.text(x + w / 2, y + 44, TIMING.get(card.timing, ""), 7, "bold", fill="#7e57c2"))
    items.append(board.text(x + w / 2, y + 56, safe_text(card.effect, 140), 8, fill="#333333", anchor="n",
                            width=w - 12, justify="center"))  # fmt: skip
    if h >= 130:  # a ? block, for the look of the printed card
        bx, by = x + w / 2, y + h - 26
        items.append(board.rounded(bx - 16, by - 16, bx + 16, by + 16, 4, fill="#f8b800", outline="#8a5a00", width=2))
        items.append(board.text(bx, by, "?", 14, "bold", fill="#8a3306"))
    return items


def _one_up(board: Board, x: float, y: float, r: float) -> None:
    """An Extra Life token drawn as a little green 1-Up mushroom."""
    c = board.canvas
    c.create_rectangle(x - r * 0.45, y - r * 0.1, x + r * 0.45, y + r * 0.9, fill="#fff3e0", outline="#5d4037")
    c.create_arc(x - r, y - r, x + r, y + r * 0.8, start=0, extent=180, fill="#43a047", outline="#1b5e20",
                 style="chord")  # fmt: skip
    c.create_oval(x - r * 0.3, y - r * 0.75, x + r * 0.3, y - r * 0.25, fill="white", outline="")
    c.create_oval(x - r * 0.95, y - r * 0.35, x - r * 0.55, y + r * 0.05, fill="white", outline="")
    c.create_oval(x + r * 0.55, y - r * 0.35, x + r * 0.95, y + r * 0.05, fill="white", outline="")
    c.create_oval(x - r * 0.25, y + r * 0.25, x - r * 0.08, y + r * 0.55, fill="black", outline="")
    c.create_oval(x + r * 0.08, y + r * 0.25, x + r * 0.25, y + r * 0.55, fill="black", outline="")


def seat_positions(board: Board, seats: list[int], you: int | None) -> dict[int, tuple[float, float]]:
    """Centres of the seat panels round the upper table, the viewer first at the bottom left."""
    w, h = board.width, board.height
    others = [s for s in seats if s != you]
    positions: dict[int, tuple[float, float]] = {}
    cx, cy = w / 2, h * 0.46
    rx, ry = w / 2 - 110, h * 0.34
    count = len(others)
    if count > 3:  # too many for an arc: two rows along the top
        per_row = (count + 1) // 2
        pitch = (w - 40) / per_row
        for index, seat in enumerate(others):
            row, column = divmod(index, per_row)
            positions[seat] = (20 + pitch * (column + 0.5), 26 + PANEL_H / 2 + row * (PANEL_H + 24))
        return _place_you(positions, you, h)
    for index, seat in enumerate(others):
        angle = math.pi * (1 - (index + 1) / (count + 1))
        positions[seat] = (cx + rx * math.cos(angle), cy - ry * math.sin(angle) + 40)
    return _place_you(positions, you, h)


def _place_you(positions: dict[int, tuple[float, float]], you: int | None, h: float) -> dict[int, tuple[float, float]]:
    if you is not None:
        positions[you] = (110, h - 100)
    return positions


def draw(board: Board, view: powerup_pb2.PowerUpView) -> None:
    w, h = board.width, board.height
    board.canvas.configure(background=FELT)
    board.rounded(14, 14, w - 14, h - 14, 60, fill=TABLE, outline="#3f51b5", width=3)
    you = view.you if view.HasField("you") else None
    seats = [s.seat for s in view.seats]
    positions = seat_positions(board, seats, you)
    targets: dict[int, list[Any]] = {}
    for legal, payload in board.actions("powerup", "trade"):
        targets.setdefault(payload.target, []).append(legal)
    for legal, payload in board.actions("powerup", "play_card"):
        if payload.HasField("target"):
            targets.setdefault(payload.target, []).append(legal)
    if view.HasField("pending") and view.pending.kind:
        _draw_pending(board, view.pending, positions)
    others = len(seats) - (you is not None)
    crowded = others > 3
    width = min(200.0, (w - 40) / ((others + 1) // 2) - 10) if crowded else 200.0
    for seat in view.seats:
        if seat.seat in positions:
            _draw_seat(board, view, seat, positions[seat.seat], targets.get(seat.seat, []), width)
    if crowded:  # the decks go to the bottom right, below the two rows of seats
        _draw_centre(board, view, w / 2 if you is None else w - 190, max(h - 110, 2 * (PANEL_H + 24) + 96))
    else:
        _draw_centre(board, view, w / 2, h * 0.52)
    if you is not None:
        _draw_hand(board, view, right=w - 270 if crowded else w - 30)


def _draw_pending(board: Board, pending: powerup_pb2.PowerUpPendingSwap, positions: dict[int, Any]) -> None:
    if pending.from_seat not in positions or pending.to_seat not in positions:
        return
    (x0, y0), (x1, y1) = positions[pending.from_seat], positions[pending.to_seat]
    board.canvas.create_line(x0, y0, x1, y1, fill=GOLD, width=5, arrow="last", arrowshape=(18, 22, 8), dash=(10, 6))
    what = "Warp Pipe" if pending.kind == powerup_pb2.POWER_UP_SWAP_KIND_WARP_PIPE else "Trade"
    board.text((x0 + x1) / 2, (y0 + y1) / 2 - 14, f"{what}?", 12, "bold", fill=GOLD)


def _draw_seat(board: Board, view: powerup_pb2.PowerUpView, seat: powerup_pb2.PowerUpSeat,
               centre: tuple[float, float], offers: list[Any], pw: float = 200.0) -> None:  # fmt: skip
    cx, cy = centre
    ph = PANEL_H
    x0, y0 = cx - pw / 2, cy - ph / 2
    turn = view.HasField("turn") and view.turn == seat.seat
    out = not seat.active
    outline = GOLD if turn else ("#5c6bc0" if not out else "#3a3f5c")
    panel = board.rounded(x0, y0, x0 + pw, y0 + ph, 16, fill="#1a2657" if not out else "#20243a", outline=outline,
                          width=4 if turn else 2)  # fmt: skip
    board.canvas.create_oval(x0 + 10, y0 + 10, x0 + 26, y0 + 26, fill=board.seat_colour(seat.seat), outline="white")
    name = board.seat_name(seat.seat) + (" (you)" if seat.seat == board.you else "")
    name = safe_text(name, max(5, int((pw - 60) / 9)))
    board.text(x0 + 32, y0 + 18, name, 11, "bold", anchor="w", fill=GOLD if turn else "white")
    if seat.seat == view.dealer:
        badge = 48 if pw >= 180 else 18
        board.rounded(x0 + pw - 8 - badge, y0 + 9, x0 + pw - 8, y0 + 27, 8, fill="#ffffff", outline="")
        board.text(x0 + pw - 8 - badge / 2, y0 + 18, "dealer" if pw >= 180 else "D", 8, "bold", fill="#1a2657")
    card_items = draw_level_card(board, x0 + 12, y0 + 36, 56, seat)
    # Extra Lives as green 1-Up tokens
    lives = seat.tokens
    per_line = max(1, min(4, int((pw - 94) // 26)))
    for index in range(min(lives, 2 * per_line)):
        tx = x0 + 84 + (index % per_line) * 26
        ty = y0 + 46 + (index // per_line) * 24
        _one_up(board, tx, ty, 10)
    if pw >= 180:
        label = f"{lives} Extra Li{'fe' if lives == 1 else 'ves'}" if not out else "out of the game"
    else:
        label = f"{lives} li{'fe' if lives == 1 else 'ves'}" if not out else "out"
    board.text(x0 + 84, y0 + 100, label, 9, "bold", anchor="w", fill="#c5cae9")
    narrow = pw < 180
    notes = [f"{seat.hand_count} ?" if narrow else f"{seat.hand_count} ? card{'s' if seat.hand_count != 1 else ''}"]
    if seat.decided and view.stage == powerup_pb2.POWER_UP_STAGE_KEEP_OR_TRADE:
        notes.append("✓" if narrow else "decided ✓")
    if seat.castle:
        notes.append("♜" if narrow else "castle ♜")
    if not board.connected(seat.seat):
        notes.append("offline")
    board.text(x0 + 84, y0 + 118, " · ".join(notes), 8, anchor="w", fill="#9fa8da")
    if seat.HasField("modifier") and seat.modifier.name:
        colour = KIND_COLOURS.get(seat.modifier.kind, "#7e57c2")
        board.rounded(x0 + 6, y0 + ph - 4, x0 + 96, y0 + ph + 16, 8, fill=colour, outline="white")
        board.text(x0 + 51, y0 + ph + 6, safe_text(seat.modifier.name, 14), 8, "bold")
    if offers:
        board.clickable([panel, *card_items], offers, f"seat {seat.seat}")


def _draw_centre(board: Board, view: powerup_pb2.PowerUpView, cx: float, cy: float) -> None:
    w = board.width
    for index, (title, count, fill) in enumerate(
        (("Level deck", view.level_deck_count, "#c62828"), ("? deck", view.question_deck_count, "#7e57c2"))
    ):
        x = cx - 90 + index * 110
        for offset in (4, 2, 0):
            board.rounded(x + offset, cy - 40 + offset, x + 60 + offset, cy + 44 + offset, 8, fill=fill,
                          outline="white", width=2)  # fmt: skip
        board.text(x + 30, cy + 2, "?" if index else "L", 22, "bold", fill=GOLD)
        board.text(x + 32, cy + 62, f"{title} · {count}", 9, fill="#c5cae9")
    board.text(cx, cy - 62, f"Round {view.round} · supply {view.supply} Extra Lives", 11, "bold", fill="#e8eaf6")
    if view.played:
        names = ", ".join(safe_text(card.name, 16) for card in view.played[-6:])
        board.text(cx, cy + 84, f"Played this round: {names}", 9, fill="#c5cae9", width=w * 0.45, justify="center")
    for index, peek in enumerate(view.peeks):
        card = peek.card
        seen = "Castle" if card.castle else str(card.value)
        board.text(cx, cy + 104 + 14 * index, f"Boo showed you {board.seat_name(peek.seat)}'s card: {seen}", 9,
                   fill=GOLD)  # fmt: skip


def _draw_hand(board: Board, view: powerup_pb2.PowerUpView, right: float) -> None:
    h = board.height
    plays: dict[int, list[Any]] = {}
    for legal, payload in board.actions("powerup", "play_card"):
        plays.setdefault(payload.card, []).append(legal)
    cards = list(view.hand)
    left = 230
    board.text(left, h - 214, f"Your ? cards · {len(cards)}", 11, "bold", anchor="w", fill=GOLD)
    if not cards:
        board.text(left, h - 190, "none yet", 10, anchor="w", fill="#9fa8da")
        return
    card_w, card_h = 124.0, 150.0
    step = min(card_w + 10, (right - left - card_w) / max(len(cards) - 1, 1))
    for index, card in enumerate(cards):
        playable = card.kind in plays
        x = left + index * step
        y = h - 180 - (14 if playable else 0)
        items = draw_question_card(board, x, y, card_w, card_h, card, ring="white" if playable else "")
        if playable:
            board.clickable(items, plays[card.kind], f"? card {card.id}", at=(x + min(step, card_w) / 2, y + 20))
