"""The UNO Super Mario screen: opponents' hands as card backs, the draw and discard piles, the active
colour and direction, and the viewer's hand as cards that can be clicked to play them.

It draws what the UnoView says and offers the legal actions whose payload names a card, a colour or the
draw pile; it knows no rules (a card is raised because an action plays it, not because it matches).
"""

from __future__ import annotations

from typing import Any

from toadstool.api.v1 import uno_pb2
from toadstool_clients.tk.games import Board, safe_text

COLOURS = {
    uno_pb2.UNO_COLOR_RED: "#d72600",
    uno_pb2.UNO_COLOR_YELLOW: "#e8c400",
    uno_pb2.UNO_COLOR_GREEN: "#2f9a1a",
    uno_pb2.UNO_COLOR_BLUE: "#0956bf",
}
COLOUR_NAMES = {
    uno_pb2.UNO_COLOR_RED: "red",
    uno_pb2.UNO_COLOR_YELLOW: "yellow",
    uno_pb2.UNO_COLOR_GREEN: "green",
    uno_pb2.UNO_COLOR_BLUE: "blue",
}
SYMBOLS = {
    uno_pb2.UNO_KIND_SKIP: "⊘",
    uno_pb2.UNO_KIND_REVERSE: "⇄",
    uno_pb2.UNO_KIND_DRAW_TWO: "+2",
    uno_pb2.UNO_KIND_WILD: "W",
    uno_pb2.UNO_KIND_WILD_DRAW_FOUR: "+4",
    uno_pb2.UNO_KIND_WILD_CUSTOMIZABLE: "✎",
    uno_pb2.UNO_KIND_SUPER_STAR: "★",
}
FELT = "#1f6f43"
TABLE = "#185c37"
GOLD = "#ffd54a"


def card_symbol(card: uno_pb2.UnoCard) -> str:
    if card.kind == uno_pb2.UNO_KIND_NUMBER:
        return str(card.number) if card.HasField("number") else "?"
    return SYMBOLS.get(card.kind, "?")


def draw_card(board: Board, x: float, y: float, w: float, card: uno_pb2.UnoCard, ring: str = "") -> list[int]:
    """One card face, `w` wide, top-left at (x, y); `ring` outlines it (playable, just drawn)."""
    h = w * 1.5
    c = board.canvas
    items = []
    if ring:
        items.append(board.rounded(x - 4, y - 4, x + w + 4, y + h + 4, w / 6, fill=ring, outline=""))
    items.append(board.rounded(x + 2, y + 3, x + w + 2, y + h + 3, w / 7, fill="#0b2a18", outline=""))
    items.append(board.rounded(x, y, x + w, y + h, w / 7, fill="white", outline="#444444"))
    inset = w * 0.07
    super_star = card.kind == uno_pb2.UNO_KIND_SUPER_STAR
    fill = COLOURS.get(card.color, "#f0b400" if super_star else "#151515")
    items.append(board.rounded(x + inset, y + inset, x + w - inset, y + h - inset, w / 9, fill=fill, outline=""))
    cx, cy = x + w / 2, y + h / 2
    rx, ry = w * 0.36, h * 0.33
    symbol = card_symbol(card)
    wild = card.color == uno_pb2.UNO_COLOR_UNSPECIFIED and not super_star
    if wild:
        for index, colour in enumerate(COLOURS.values()):
            items.append(c.create_arc(cx - rx, cy - ry, cx + rx, cy + ry, start=index * 90, extent=90, fill=colour,
                                      outline="white", width=2))  # fmt: skip
        text_fill = "white"
    else:
        items.append(c.create_oval(cx - rx, cy - ry, cx + rx, cy + ry, fill="white", outline=""))
        text_fill = fill
    size = int(w * (0.42 if len(symbol) == 1 else 0.32))
    if wild:
        items.append(board.text(cx + 1, cy + 2, symbol, size, "bold", fill="#111111"))
    items.append(board.text(cx, cy, symbol, size, "bold", fill=text_fill))
    corner = max(7, int(w * (0.15 if len(symbol) == 1 else 0.12)))
    items.append(board.text(x + inset + w * 0.1, y + inset + w * 0.13, symbol, corner, "bold", fill="white"))
    items.append(board.text(x + w - inset - w * 0.1, y + h - inset - w * 0.13, symbol, corner, "bold",
                            fill="white"))  # fmt: skip
    return items


def draw_back(board: Board, x: float, y: float, w: float) -> list[int]:
    """The back of a card: black with a red UNO oval."""
    h = w * 1.5
    items = [board.rounded(x, y, x + w, y + h, w / 7, fill="#151515", outline="white", width=max(1, int(w / 25)))]
    cx, cy = x + w / 2, y + h / 2
    items.append(board.canvas.create_oval(cx - w * 0.34, cy - h * 0.22, cx + w * 0.34, cy + h * 0.22,
                                          fill="#d72600", outline=""))  # fmt: skip
    if w >= 40:
        items.append(board.text(cx, cy, "UNO", max(6, int(w * 0.2)), "bold", fill=GOLD))
    return items


def draw(board: Board, view: uno_pb2.UnoView) -> None:
    w, h = board.width, board.height
    c = board.canvas
    c.configure(background=FELT)
    board.rounded(14, 14, w - 14, h - 14, 60, fill=TABLE, outline="#2e8b57", width=3)
    you = view.you if view.HasField("you") else None
    seats = [s for s in range(len(view.hand_counts)) if s != you]
    top = _draw_opponents(board, view, seats)
    _draw_centre(board, view, top)
    if you is not None:
        _draw_hand(board, view, you)
    else:
        board.text(w / 2, h - 40, "Watching: hands are hidden", 13, "bold", fill="#c8e6c9")


def _draw_opponents(board: Board, view: uno_pb2.UnoView, seats: list[int]) -> float:
    """The other seats as plates along the top (two rows when there are many); returns their bottom."""
    w = board.width
    if not seats:
        return 26.0
    per_row = min(len(seats), 5)
    rows = (len(seats) + per_row - 1) // per_row
    plate_h = 124.0 if rows == 1 else 84.0
    slot = (w - 40) / per_row
    catch = {payload.seat: legal for legal, payload in board.actions("uno", "catch")}
    for position, seat in enumerate(seats):
        row, column = divmod(position, per_row)
        x0 = 20 + column * slot + 5
        x1 = x0 + slot - 10
        y0 = 26 + row * (plate_h + 8)
        current = seat == view.current and view.stage != uno_pb2.UNO_STAGE_GAME_OVER
        board.rounded(x0, y0, x1, y0 + plate_h, 14, fill="#0f4a2a", outline=GOLD if current else "#2e8b57",
                      width=4 if current else 2)  # fmt: skip
        board.canvas.create_oval(x0 + 10, y0 + 10, x0 + 26, y0 + 26, fill=board.seat_colour(seat), outline="white",
                                 width=2)  # fmt: skip
        name = safe_text(board.seat_name(seat), max(5, int((x1 - x0 - 40) / 9)))
        board.text(x0 + 32, y0 + 18, name, 11, "bold", anchor="w", fill=GOLD if current else "white")
        score = view.scores[seat] if seat < len(view.scores) else 0
        state = "" if board.connected(seat) else " · offline"
        board.text(x0 + 12, y0 + plate_h - 12, f"{score} pts{state}", 8, anchor="w", fill="#c8e6c9")
        count = view.hand_counts[seat] if seat < len(view.hand_counts) else 0
        shown = min(count, 12)
        card_w = 40.0 if rows == 1 else 22.0
        room = x1 - x0 - 70 - card_w
        step = min(card_w * 0.5, room / max(shown - 1, 1))
        for index in range(shown):
            draw_back(board, x0 + 12 + index * step, y0 + 34, card_w)
        board.text(x1 - 28, y0 + 34 + card_w * 0.75, str(count), 18 if rows == 1 else 14, "bold", fill="white")
        if count == 1:
            board.text(x1 - 12, y0 + plate_h - 12, "UNO!", 10, "bold", fill="#ff5252", anchor="e")
        if seat in catch:
            bubble = board.rounded(x1 - 96, y0 + plate_h - 22, x1 - 6, y0 + plate_h - 2, 10, fill="#ff5252",
                                   outline="white")  # fmt: skip
            label = board.text(x1 - 51, y0 + plate_h - 12, "Catch! (+2)", 9, "bold")
            board.clickable([bubble, label], [catch[seat]], f"catch seat {seat}")
    return 26 + rows * (plate_h + 8)


def _draw_centre(board: Board, view: uno_pb2.UnoView, top: float) -> None:
    w, h = board.width, board.height
    bottom = h - 214
    card_w = max(44.0, min(84.0, (bottom - top - 40) / 1.5))
    card_h = card_w * 1.5
    cy = (top + bottom) / 2 - 8
    ct = cy - card_h / 2
    label_y = cy + card_h / 2 + 14
    cx = w / 2
    # the draw pile
    px = cx - 190
    items: list[int] = []
    for offset in (6, 3, 0):
        items = draw_back(board, px + offset, ct + offset, card_w)
    draws = [legal for legal, _ in board.actions("uno", "draw")] + [
        legal for legal, _ in board.actions("uno", "pass_turn")
    ]
    board.clickable(items, draws, "draw pile")
    board.text(px + card_w / 2 + 3, label_y, f"Draw pile · {view.draw_pile_count}", 10, fill="#c8e6c9")
    # the discard pile
    dx = cx - 60
    if view.HasField("top_card"):
        if view.discard_count > 1:
            draw_back(board, dx + 5, ct + 5, card_w)
        draw_card(board, dx, ct, card_w, view.top_card)
    board.text(dx + card_w / 2, label_y, f"Discard · {view.discard_count}", 10, fill="#c8e6c9")
    # the active colour, direction, what is pending
    ix = cx + 110
    colour = COLOURS.get(view.color)
    if colour:
        board.canvas.create_oval(ix - 28, cy - 56, ix + 28, cy, fill=colour, outline="white", width=3)
        board.text(ix, cy + 14, f"Colour: {COLOUR_NAMES[view.color]}", 11, "bold")
    else:
        board.text(ix, cy - 30, "Colour\nto choose", 11, "bold", justify="center")
    clockwise = view.direction != uno_pb2.UNO_DIRECTION_COUNTER_CLOCKWISE
    board.text(ix, cy + 36, ("↻ clockwise" if clockwise else "↺ counter-clockwise"), 10, fill="#c8e6c9")
    if view.pending_penalty:
        attacker = board.seat_name(view.attacker) if view.HasField("attacker") else "someone"
        board.rounded(ix + 60, cy - 60, ix + 250, cy - 14, 12, fill="#b71c1c", outline="white", width=2)
        board.text(ix + 155, cy - 37, f"+{view.pending_penalty} from {attacker}", 12, "bold")
    choices = board.actions("uno", "choose_color")
    if choices:
        board.text(ix + 160, cy + 8, "Choose the colour:", 11, "bold", fill=GOLD)
        for index, (legal, payload) in enumerate(choices):
            fill = COLOURS.get(payload.color, "#888888")
            x = ix + 80 + index * 44
            disc = board.canvas.create_oval(x, cy + 22, x + 36, cy + 58, fill=fill, outline="white", width=3)
            board.clickable([disc], [legal], f"colour {COLOUR_NAMES.get(payload.color, '?')}")
    info = f"Hand {view.hand_number} · first to {view.target} points" + (" (lowest wins)" if view.lowest_wins else "")
    if view.house_rule:
        info += f" · house rule: {safe_text(view.house_rule, 60)}"
    board.text(w - 30, h - 196 if view.HasField("you") else h - 80, info, 9, fill="#a5d6a7", anchor="e")
    if view.HasField("reveal") and view.reveal.cards:
        _draw_reveal(board, view.reveal, cy)


def _draw_reveal(board: Board, reveal: uno_pb2.UnoReveal, cy: float) -> None:
    x = board.width - 40 - min(len(reveal.cards), 10) * 20 - 12
    verdict = "held" if reveal.held_prior_color else "did not hold"
    board.text(board.width - 36, cy + 4, f"{board.seat_name(reveal.attacker)}'s hand ({verdict} the colour)", 9,
               anchor="e")  # fmt: skip
    for index, card in enumerate(reveal.cards[:10]):
        draw_card(board, x + index * 20, cy + 16, 30, card)


def _draw_hand(board: Board, view: uno_pb2.UnoView, you: int) -> None:
    w, h = board.width, board.height
    cards = list(view.hand)
    plays: dict[int, list[Any]] = {}
    for legal, payload in board.actions("uno", "play_card"):
        plays.setdefault(payload.card_id, []).append(legal)
    drawn = view.drawn_card.id if view.HasField("drawn_card") else None
    current = view.current == you
    label = f"Your hand · {len(cards)} cards · {view.scores[you] if you < len(view.scores) else 0} pts"
    board.text(30, h - 196, label, 12, "bold", anchor="w", fill=GOLD if current else "white")
    if not cards:
        return
    card_w = max(48.0, min(86.0, (w - 80) / 7.5))
    step = min(card_w + 10, (w - 80 - card_w) / max(len(cards) - 1, 1))
    total = step * (len(cards) - 1) + card_w
    left = (w - total) / 2
    base = h - 30 - card_w * 1.5
    for index, card in enumerate(cards):
        playable = card.id in plays
        y = base - (18 if playable else 0)
        ring = GOLD if card.id == drawn else ("#ffffff" if playable else "")
        items = draw_card(board, left + index * step, y, card_w, card, ring)
        if playable:
            visible = min(step, card_w)
            board.clickable(items, plays[card.id], f"card {card.id}", at=(left + index * step + visible / 2, y + 24))
