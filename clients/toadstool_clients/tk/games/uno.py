"""The UNO Super Mario screen: opponents' hands as card backs, the draw and discard piles, the active
colour and direction, and the viewer's hand as cards that can be clicked to play them.

It draws what the UnoView says and offers the legal actions whose payload names a card, a colour or the
draw pile; it knows no rules (a card is raised because an action plays it, not because it matches).
"""

from __future__ import annotations

from typing import Any

from toadstool.v1 import uno_pb2
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
    _draw_opponents(board, view, seats, you)
    _draw_centre(board, view)
    if you is not None:
        _draw_hand(board, view, you)
    else:
        board.text(w / 2, h - 40, "Watching: hands are hidden", 13, "bold", fill="#c8e6c9")


def _draw_opponents(board: Board, view: uno_pb2.UnoView, seats: list[int], you: int | None) -> None:
    w = board.width
    if not seats:
        return
    slot = (w - 40) / len(seats)
    catch = {payload.seat: legal for legal, payload in board.actions("uno", "catch")}
    for position, seat in enumerate(seats):
        x0 = 20 + position * slot + 6
        x1 = x0 + slot - 12
        current = seat == view.current and view.stage != uno_pb2.UNO_STAGE_GAME_OVER
        board.rounded(x0, 26, x1, 150, 16, fill="#0f4a2a", outline=GOLD if current else "#2e8b57",
                      width=4 if current else 2)  # fmt: skip
        colour = board.seat_colour(seat)
        board.canvas.create_oval(x0 + 12, 36, x0 + 30, 54, fill=colour, outline="white", width=2)
        name = board.seat_name(seat)
        board.text(x0 + 38, 45, name, 12, "bold", anchor="w", fill=GOLD if current else "white")
        score = view.scores[seat] if seat < len(view.scores) else 0
        state = "" if board.connected(seat) else "  · offline"
        board.text(x1 - 10, 45, f"{score} pts{state}", 10, anchor="e", fill="#c8e6c9")
        count = view.hand_counts[seat]
        shown = min(count, 12)
        card_w = 34.0
        room = x1 - x0 - 90
        step = min(card_w * 0.55, room / max(shown, 1))
        left = x0 + 16
        for index in range(shown):
            draw_back(board, left + index * step, 66, card_w)
        board.text(x1 - 26, 100, str(count), 20, "bold", fill="white")
        board.text(x1 - 26, 124, "cards", 9, fill="#c8e6c9")
        if count == 1:
            board.text(x0 + 40, 132, "UNO!", 11, "bold", fill="#ff5252")
        if seat in catch:
            bubble = board.rounded(x1 - 120, 128, x1 - 10, 148, 10, fill="#ff5252", outline="white")
            label = board.text(x1 - 65, 138, "Catch! (+2)", 9, "bold")
            board.clickable([bubble, label], [catch[seat]], f"catch seat {seat}")


def _draw_centre(board: Board, view: uno_pb2.UnoView) -> None:
    w, h = board.width, board.height
    cy = 170 + (h - 170 - 200) / 2
    cx = w / 2
    card_w = 84.0
    # the draw pile
    px = cx - 190
    for offset in (6, 3, 0):
        items = draw_back(board, px + offset, cy - 63 + offset, card_w)
    draws = [legal for legal, _ in board.actions("uno", "draw")] + [
        legal for legal, _ in board.actions("uno", "pass_turn")
    ]
    board.clickable(items, draws, "draw pile")
    board.text(px + card_w / 2 + 3, cy + 78, f"Draw pile · {view.draw_pile_count}", 10, fill="#c8e6c9")
    # the discard pile
    dx = cx - 60
    if view.HasField("top_card"):
        if view.discard_count > 1:
            draw_back(board, dx + 5, cy - 58, card_w)
        draw_card(board, dx, cy - 63, card_w, view.top_card)
    board.text(dx + card_w / 2, cy + 78, f"Discard · {view.discard_count}", 10, fill="#c8e6c9")
    # the active colour, direction, what is pending
    ix = cx + 110
    colour = COLOURS.get(view.color)
    if colour:
        board.canvas.create_oval(ix - 30, cy - 60, ix + 30, cy, fill=colour, outline="white", width=3)
        board.text(ix, cy + 14, f"Colour: {COLOUR_NAMES[view.color]}", 11, "bold")
    else:
        board.text(ix, cy - 30, "Colour\nto choose", 11, "bold", justify="center")
    clockwise = view.direction != uno_pb2.UNO_DIRECTION_COUNTER_CLOCKWISE
    board.text(ix, cy + 44, ("↻ clockwise" if clockwise else "↺ counter-clockwise"), 11, fill="#c8e6c9")
    if view.pending_penalty:
        attacker = board.seat_name(view.attacker) if view.HasField("attacker") else "someone"
        board.rounded(ix + 60, cy - 60, ix + 250, cy - 10, 12, fill="#b71c1c", outline="white", width=2)
        board.text(ix + 155, cy - 35, f"+{view.pending_penalty} from {attacker}", 12, "bold")
    choices = board.actions("uno", "choose_color")
    if choices:
        board.text(ix + 160, cy + 12, "Choose the colour:", 11, "bold", fill=GOLD)
        for index, (legal, payload) in enumerate(choices):
            fill = COLOURS.get(payload.color, "#888888")
            x = ix + 80 + index * 44
            disc = board.canvas.create_oval(x, cy + 28, x + 36, cy + 64, fill=fill, outline="white", width=3)
            board.clickable([disc], [legal], f"colour {COLOUR_NAMES.get(payload.color, '?')}")
    info = f"Hand {view.hand_number} · first to {view.target} points" + (" (lowest wins)" if view.lowest_wins else "")
    board.text(cx, cy + 104, info, 10, fill="#a5d6a7")
    if view.house_rule:
        board.text(cx, cy + 122, f"House rule: {safe_text(view.house_rule, 80)}", 9, fill="#a5d6a7")
    if view.HasField("reveal") and view.reveal.cards:
        _draw_reveal(board, view.reveal, cy)


def _draw_reveal(board: Board, reveal: uno_pb2.UnoReveal, cy: float) -> None:
    x = board.width - 40 - min(len(reveal.cards), 10) * 24
    verdict = "held" if reveal.held_prior_color else "did not hold"
    board.text(x, cy + 140, f"{board.seat_name(reveal.attacker)}'s hand ({verdict} the colour)", 9, anchor="w")
    for index, card in enumerate(reveal.cards[:10]):
        draw_card(board, x + index * 24, cy + 152, 30, card)


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
