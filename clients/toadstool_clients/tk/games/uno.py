"""The UNO Super Mario screen: opponents' hands as card backs, the draw and discard piles, the active
colour and direction, and the viewer's hand as cards that can be clicked to play them.

It draws what the UnoView says and offers the legal actions whose payload names a card, a colour or the
draw pile; it knows no rules (a card is raised because an action plays it, not because it matches).
"""

from __future__ import annotations

from typing import Any

from toadstool.api.v1 import table_pb2, uno_pb2
from toadstool_clients.i18n import _, n_
from toadstool_clients.names import UNO_COLOR_NAMES
from toadstool_clients.tk.games import Board, event_line, fitted, safe_text, score_lines, text_width

COLOURS = {
    uno_pb2.UNO_COLOR_RED: "#d72600",
    uno_pb2.UNO_COLOR_YELLOW: "#e8c400",
    uno_pb2.UNO_COLOR_GREEN: "#2f9a1a",
    uno_pb2.UNO_COLOR_BLUE: "#0956bf",
}
#: The colours' names as identifiers of the clickable swatches (English, never shown: `_` of names.py's
#: UNO_COLOR_NAMES is what a person reads).
COLOUR_NAMES = UNO_COLOR_NAMES
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
#: The tag of the captions above the hand (hidden where a wild's colour tab covers them).
HAND_NOTE = "hand-note"
TABLE = "#185c37"
GOLD = "#ffd54a"


def card_symbol(card: uno_pb2.UnoCard) -> str:
    if card.kind == uno_pb2.UNO_KIND_NUMBER:
        return str(card.number) if card.HasField("number") else "?"
    return SYMBOLS.get(card.kind, "?")


def draw_card(board: Board, x: float, y: float, w: float, card: uno_pb2.UnoCard, ring: str = "",
              fanned: bool = False) -> list[int]:  # fmt: skip
    """One card face, `w` wide, top-left at (x, y); `ring` outlines it (playable, just drawn). A `fanned`
    card lies under the next one, which covers all but its left edge: only its top-left symbol must show."""
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
    covered = []
    if wild:
        covered.append(board.text(cx + 1, cy + 2, symbol, size, "bold", fill="#111111"))
    covered.append(board.text(cx, cy, symbol, size, "bold", fill=text_fill))
    corner = max(7, int(w * (0.15 if len(symbol) == 1 else 0.12)))
    items.append(board.text(x + inset + w * 0.1, y + inset + w * 0.13, symbol, corner, "bold", fill="white"))
    covered.append(board.text(x + w - inset - w * 0.1, y + h - inset - w * 0.13, symbol, corner, "bold",
                              fill="white"))  # fmt: skip
    if fanned:
        board.stack(covered)
    return items + covered


def draw_back(board: Board, x: float, y: float, w: float, stacked: bool = False) -> list[int]:
    """The back of a card: black with a red UNO oval (`stacked`: under another card of a pile or fan)."""
    h = w * 1.5
    items = [board.rounded(x, y, x + w, y + h, w / 7, fill="#151515", outline="white", width=max(1, int(w / 25)))]
    cx, cy = x + w / 2, y + h / 2
    items.append(board.canvas.create_oval(cx - w * 0.34, cy - h * 0.22, cx + w * 0.34, cy + h * 0.22,
                                          fill="#d72600", outline=""))  # fmt: skip
    if w >= 40:
        items.append(board.text(cx, cy, "UNO", max(6, int(w * 0.2)), "bold", fill=GOLD))
    return board.stack(items) if stacked else items


def draw(board: Board, view: uno_pb2.UnoView) -> None:
    w, h = board.width, board.height
    c = board.canvas
    c.configure(background=FELT)
    board.rounded(14, 14, w - 14, h - 14, 60 if h > 500 else 30, fill=TABLE, outline="#2e8b57", width=3)
    you = view.you if view.HasField("you") else None
    seats = [s for s in range(len(view.hand_counts)) if s != you]
    top = _draw_opponents(board, view, seats)
    bottom = _draw_hand(board, view, you) if you is not None else h - 40
    if you is None:
        board.text(w / 2, h - 30, _("Watching: hands are hidden"), 12, "bold", fill="#c8e6c9")
    _draw_centre(board, view, top, bottom)


def hand_card_width(board: Board) -> float:
    """The viewer's cards: as wide as the window allows, and no taller than a third of the board."""
    return max(36.0, min(86.0, (board.width - 80) / 7.5, (board.height * 0.3 - 24) / 1.5))


def _draw_opponents(board: Board, view: uno_pb2.UnoView, seats: list[int]) -> float:
    """The other seats as plates along the top (two rows when there are many); returns their bottom."""
    w = board.width
    if not seats:
        return 26.0
    per_row = min(len(seats), 5 if w >= 700 else 4)
    rows = (len(seats) + per_row - 1) // per_row
    roomy = rows == 1 and board.height >= 600
    plate_h = 124.0 if roomy else 74.0
    # many seats in a small window: low plates (name, count and a small fan; points and offline on hover),
    # so that the piles keep their room between the plates and the hand
    hand_top = board.height - 62 - hand_card_width(board) * 1.5 if view.HasField("you") else board.height - 40
    compact = 22 + rows * (plate_h + 6) > hand_top - 96
    if compact:
        plate_h = 46.0
    slot = (w - 40) / per_row
    catch = {payload.seat: legal for legal, payload in board.actions("uno", "catch")}
    for position, seat in enumerate(seats):
        row, column = divmod(position, per_row)
        x0 = 20 + column * slot + 4
        x1 = x0 + slot - 8
        y0 = 22 + row * (plate_h + 6)
        current = seat == view.current and view.stage != uno_pb2.UNO_STAGE_GAME_OVER
        first = board.mark()
        board.panel(x0, y0, x1, y0 + plate_h, 14 if not compact else 10, fill="#0f4a2a",
                    outline=GOLD if current else "#2e8b57", width=4 if current else 2)  # fmt: skip
        board.place(f"seat {seat}", (x0 + x1) / 2, y0 + plate_h / 2)
        name_y = y0 + (15 if not compact else 12)
        board.canvas.create_oval(x0 + 8, name_y - 7, x0 + 22, name_y + 7, fill=board.seat_colour(seat),
                                 outline="white", width=2)  # fmt: skip
        count = view.hand_counts[seat] if seat < len(view.hand_counts) else 0
        size = 14 if roomy else 11
        count_w = text_width(board.canvas, str(count), size, "bold")
        name = fitted(board.canvas, board.seat_name(seat), x1 - 10 - count_w - 8 - (x0 + 28), 10 if not roomy else 11,
                      "bold")  # fmt: skip
        board.text(x0 + 28, name_y, name, 10 if not roomy else 11, "bold", anchor="w",
                   fill=GOLD if current else "white")  # fmt: skip
        board.text(x1 - 10, name_y, str(count), size, "bold", anchor="e", fill="white")
        score = view.scores[seat] if seat < len(view.scores) else 0
        points = n_("{n} pt", "{n} pts", score)
        state = points if board.connected(seat) else _("{points} · offline", points=points)
        if not compact:
            board.text(x0 + 10, y0 + plate_h - 10, state, 8, anchor="w", fill="#c8e6c9")
        shown = min(count, 12)
        card_w = 40.0 if roomy else 20.0 if not compact else 14.0
        flag = compact and (count == 1 or seat in catch)  # UNO! or Catch! beside the fan in a low plate
        room = x1 - x0 - 24 - card_w - (62 if flag else 0)
        step = max(0.0, min(card_w * 0.5, room / max(shown - 1, 1)))
        for index in range(shown):
            draw_back(board, x0 + 10 + index * step, y0 + (28 if not compact else 21), card_w,
                      stacked=index < shown - 1)  # fmt: skip
        flag_y = y0 + plate_h - (10 if not compact else 13)
        if count == 1 and seat not in catch:
            board.text(x1 - 8, flag_y, "UNO!", 9, "bold", fill="#ff5252", anchor="e")
        if seat in catch:
            bubble_w = 82 if not compact else 58
            bubble = board.rounded(x1 - 4 - bubble_w, flag_y - 9, x1 - 4, flag_y + 9, 9, fill="#ff5252",
                                   outline="white")  # fmt: skip
            label = board.text(x1 - 4 - bubble_w / 2, flag_y, _("Catch! (+2)") if not compact else _("Catch!"), 8,
                               "bold")  # fmt: skip
            board.clickable([bubble, label], [catch[seat]], f"catch seat {seat}")
        if compact:
            cards = n_("{n} card", "{n} cards", count)
            board.tip(board.since(first), _("{name}: {cards} · {state}", name=board.seat_name(seat), cards=cards,
                                            state=state))  # fmt: skip
    return 22 + rows * (plate_h + 6)


def _draw_centre(board: Board, view: uno_pb2.UnoView, top: float, bottom: float) -> None:
    """The draw pile, the discard pile and, to their right, the colour, direction and what is pending."""
    w = board.width
    room = bottom - top
    card_w = max(30.0, min(84.0, (room - 34) / 1.5))
    card_h = card_w * 1.5
    cy = top + (room - 16) / 2
    ct = cy - card_h / 2
    label_y = ct + card_h + 14
    # the draw pile
    px = max(30.0, w * 0.07)
    items: list[int] = []
    for offset in (6, 3, 0):
        items = draw_back(board, px + offset, ct + offset, card_w, stacked=offset > 0)
    draws = [legal for legal, _ in board.actions("uno", "draw")] + [
        legal for legal, _ in board.actions("uno", "pass_turn")
    ]
    board.clickable(items, draws, "draw pile")
    board.text(px + card_w / 2 + 3, label_y, _("Draw · {n}", n=view.draw_pile_count), 9, fill="#c8e6c9")
    # the discard pile: the card just played slides in from the hand or seat that played it
    dx = px + max(card_w + 34, 84.0, card_w + w * 0.06)
    if view.HasField("top_card"):
        if view.discard_count > 1:
            draw_back(board, dx + 5, ct + 5, card_w, stacked=True)
        played = draw_card(board, dx, ct, card_w, view.top_card)
        actor = next((e.seat for e in board.update.events if e.HasField("seat")), None)
        board.moving(f"card {view.top_card.id}", played, f"seat {actor}" if actor is not None else None)
    board.text(dx + card_w / 2, label_y, _("Discard · {n}", n=view.discard_count), 9, fill="#c8e6c9")
    # the active colour, the direction, a pending penalty, the colour to choose
    rx = dx + max(card_w + 30, 84.0, card_w + w * 0.05)
    right = w - 26
    colour = COLOURS.get(view.color)
    r = max(10.0, min(22.0, card_h * 0.2))
    line = cy - card_h / 2 + r
    if colour:
        board.canvas.create_oval(rx, line - r, rx + 2 * r, line + r, fill=colour, outline="white", width=3)
    text = _("Colour: {colour}", colour=_(COLOUR_NAMES[view.color])) if colour else _("Colour to choose")
    board.text(rx + 2 * r + 8, line - 8, text, 10, "bold", anchor="w")
    clockwise = view.direction != uno_pb2.UNO_DIRECTION_COUNTER_CLOCKWISE
    board.text(rx + 2 * r + 8, line + 10, _("↻ clockwise") if clockwise else _("↺ counter-clockwise"), 9, anchor="w",
               fill="#c8e6c9")  # fmt: skip
    y = line + r + 10
    if view.pending_penalty:
        if view.HasField("attacker"):
            said = _("+{n} from {name}", n=view.pending_penalty, name=board.seat_name(view.attacker))
        else:
            said = _("+{n} to draw", n=view.pending_penalty)
        board.panel(rx, y, min(right, rx + 200), y + 26, 10, fill="#b71c1c", outline="white", width=2)
        board.text(rx + 8, y + 13, safe_text(said, 22), 10, "bold", anchor="w")
        y += 34
    choices = board.actions("uno", "choose_color")
    if choices:
        size = max(18.0, min(34.0, (right - rx) / len(choices) - 8))
        for index, (legal, payload) in enumerate(choices):
            fill = COLOURS.get(payload.color, "#888888")
            x = rx + index * (size + 8)
            disc = board.canvas.create_oval(x, y, x + size, y + size, fill=fill, outline="white", width=3)
            board.clickable([disc], [legal], f"colour {COLOUR_NAMES.get(payload.color, '?')}")
        y += size + 8
    if view.HasField("reveal") and view.reveal.cards and y + 40 < bottom:
        _draw_reveal(board, view.reveal, rx, y, right)


def _draw_reveal(board: Board, reveal: uno_pb2.UnoReveal, x: float, y: float, right: float) -> None:
    name = board.seat_name(reveal.attacker)
    if reveal.held_prior_color:
        said = _("{name} held the colour", name=name)
    else:
        said = _("{name} did not hold the colour", name=name)
    board.text(x, y + 6, safe_text(said, 34), 8, anchor="w")
    step = min(20.0, (right - x - 30) / max(len(reveal.cards), 1))
    for index, card in enumerate(reveal.cards[:10]):
        draw_card(board, x + index * step, y + 16, 24, card, fanned=step < 24 and index < len(reveal.cards[:10]) - 1)


def _draw_hand(board: Board, view: uno_pb2.UnoView, you: int) -> float:
    """The viewer's hand along the bottom, playable cards raised; returns the top of the hand area."""
    w, h = board.width, board.height
    cards = list(view.hand)
    plays: dict[int, list[Any]] = {}
    for legal, payload in board.actions("uno", "play_card"):
        plays.setdefault(payload.card_id, []).append(legal)
    drawn = view.drawn_card.id if view.HasField("drawn_card") else None
    current = view.current == you
    card_w = hand_card_width(board)
    base = h - 22 - card_w * 1.5
    label_y = base - 28
    score = view.scores[you] if you < len(view.scores) else 0
    label = _("Your hand · {cards} · {points}", cards=n_("{n} card", "{n} cards", len(cards)),
              points=n_("{n} pt", "{n} pts", score))  # fmt: skip
    board.text(30, label_y, label, 11, "bold", anchor="w", fill=GOLD if current else "white", tags=(HAND_NOTE,))
    if view.lowest_wins:
        info = _("Hand {hand} · to {target} (lowest wins)", hand=view.hand_number, target=view.target)
    else:
        info = _("Hand {hand} · to {target}", hand=view.hand_number, target=view.target)
    if view.house_rule:
        info = _("{info} · {rule}", info=info, rule=safe_text(view.house_rule, 30))
    board.text(w - 30, label_y, info, 8, fill="#a5d6a7", anchor="e", width=max(80, w - 300), tags=(HAND_NOTE,))
    if cards:
        step = min(card_w + 10, (w - 80 - card_w) / max(len(cards) - 1, 1))
        total = step * (len(cards) - 1) + card_w
        left = (w - total) / 2
        picked: tuple[float, float, list[Any]] | None = None
        for index, card in enumerate(cards):
            playable = card.id in plays
            y = base - (14 if playable else 0)
            ring = GOLD if card.id == drawn else ("#ffffff" if playable else "")
            items = draw_card(
                board, left + index * step, y, card_w, card, ring, fanned=step < card_w and index < len(cards) - 1
            )
            board.moving(f"card {card.id}", items)
            if playable:
                visible = min(step, card_w)
                board.clickable(items, plays[card.id], f"card {card.id}",
                                at=(left + index * step + visible / 2, y + 24))  # fmt: skip
                if picked is None and board.picked(plays[card.id]):
                    picked = (left + index * step + visible / 2, y, plays[card.id])
        if picked is not None:  # over every card, so that the next cards never cover it
            _draw_swatches(board, *picked)
    return label_y - 12


def _draw_swatches(board: Board, cx: float, card_top: float, plays: list[Any]) -> None:
    """The colours of the wild card being played, as swatches on a dark tab just above it: a click on one
    takes that colour, as its entry in the action bar would (with the bar's "and call UNO")."""
    by_colour: dict[int, list[Any]] = {}
    for legal in plays:
        payload = legal.action.uno.play_card
        by_colour.setdefault(payload.color, []).append(legal)
    colours = [c for c in COLOURS if c in by_colour]
    if not colours:
        return
    size = 28.0 if board.width >= 700 else 22.0
    gap = 6.0
    width = len(colours) * (size + gap) + gap
    x0 = min(max(16.0, cx - width / 2), board.width - 16 - width)
    y1 = card_top - 8
    y0 = y1 - size - 2 * gap
    tab = board.rounded(x0, y0, x0 + width, y1, 10, fill="#102a1a", outline=GOLD, width=2)
    box = board.canvas.bbox(tab)
    for note in board.canvas.find_overlapping(*box):  # the hand's caption makes way while the tab is up
        if HAND_NOTE in board.canvas.gettags(note):
            board.canvas.itemconfigure(note, state="hidden")
    tip = min(max(cx, x0 + 14), x0 + width - 14)
    board.canvas.create_polygon(tip - 7, y1 - 1, tip + 7, y1 - 1, tip, y1 + 7, fill=GOLD, outline="")
    for index, colour in enumerate(colours):
        x = x0 + gap + index * (size + gap)
        disc = board.canvas.create_oval(x, y0 + gap, x + size, y0 + gap + size, fill=COLOURS[colour], outline="white",
                                        width=2)  # fmt: skip
        board.clickable([disc], by_colour[colour], f"swatch {COLOUR_NAMES.get(colour, '?')}")


def recap(previous: uno_pb2.UnoView, view: uno_pb2.UnoView, events: list[table_pb2.Event], names: list[str]) -> \
        tuple[str, list[str]] | None:  # fmt: skip
    """When a hand has just been won (the next is dealt in the same instant): who went out and what every
    seat scored, held on screen a moment so that the end of a hand never scrolls past unseen. The hand's
    lines end with the one the server marks as its result (`round_result`: who went out and the points),
    in whatever language it is said; what follows it is the next hand's deal."""
    if view.hand_number == previous.hand_number or not previous.hand_number:
        return None
    texts = [event_line(e) for e in events]
    result = [index for index, event in enumerate(events) if event.round_result]
    said = texts[: result[-1] + 1] if result else texts
    return _("Hand {number}: the result", number=previous.hand_number), [
        *said[-3:],
        *score_lines(previous.scores, view.scores, names),
    ]
