"""The Super Mario: Level Up! screen: the board's seven levels as shelves with character tokens and ? blocks,
the nominee, every seat's coins, blocks, cards and votes, and the viewer's secret favourites and Power Ups.

It draws what the LevelUpView says and offers the legal actions whose payload names a character, a level
or a ? block slot; it knows no rules.
"""

from __future__ import annotations

from typing import Any

from toadstool.api.v1 import levelup_pb2
from toadstool_clients.names import LEVEL_UP_POWER_NAMES
from toadstool_clients.tk.games import Board, character_colour, safe_text, text_colour_on

SKY = "#5c94fc"
GOLD = "#ffd54a"
BRICK = "#c84c0c"
SHORT = {
    "mario": "M",
    "luigi": "L",
    "peach": "P",
    "daisy": "D",
    "yoshi": "Y",
    "toad": "T",
    "toadette": "Tt",
    "rosalina": "R",
    "bowser": "B",
    "bowser jr.": "BJ",
    "wario": "W",
    "waluigi": "Wa",
    "donkey kong": "DK",
}
BLOCKS = {
    levelup_pb2.LEVEL_UP_BLOCK_KIND_COIN: ("Coin", "#f9a825"),
    levelup_pb2.LEVEL_UP_BLOCK_KIND_COIN_X2: ("2 Coins", "#f57f17"),
    levelup_pb2.LEVEL_UP_BLOCK_KIND_SUPER_MUSHROOM: ("Mushroom", "#e53935"),
    levelup_pb2.LEVEL_UP_BLOCK_KIND_FEATHER: ("Feather", "#8d6e63"),
    levelup_pb2.LEVEL_UP_BLOCK_KIND_GOOMBA: ("Goomba", "#795548"),
    levelup_pb2.LEVEL_UP_BLOCK_KIND_GREEN_SHELL: ("Shell", "#2e7d32"),
    levelup_pb2.LEVEL_UP_BLOCK_KIND_DOUBLE_CHERRY: ("Cherry", "#ad1457"),
    levelup_pb2.LEVEL_UP_BLOCK_KIND_THWOMP: ("Thwomp", "#546e7a"),
    levelup_pb2.LEVEL_UP_BLOCK_KIND_POW_BLOCK: ("POW", "#1565c0"),
    levelup_pb2.LEVEL_UP_BLOCK_KIND_SUPER_STAR: ("Star", "#fbc02d"),
}
VOTES = {
    levelup_pb2.LEVEL_UP_VOTE_YES: ("Yes!", "#2e7d32"),
    levelup_pb2.LEVEL_UP_VOTE_NO: ("No!", "#c62828"),
    levelup_pb2.LEVEL_UP_VOTE_THWOMP_VOTE: ("Thwomp!", "#455a64"),
}
CHARACTER_KINDS = ("move", "place", "play_feather", "play_green_shell", "play_warp_pipe", "play_goomba_stomp")


def character_name(view: levelup_pb2.LevelUpView, character: int) -> str:
    if 0 <= character < len(view.character_names):
        return safe_text(view.character_names[character], 16)
    return f"#{character}"


def short_label(name: str) -> str:
    return SHORT.get(name.lower(), name[:2])


def draw(board: Board, view: levelup_pb2.LevelUpView) -> None:
    board.canvas.configure(background=SKY)
    board_w = min(board.width * 0.64, board.width - 260)
    offers: dict[int, list[Any]] = {}
    for kind in CHARACTER_KINDS:
        for legal, payload in board.actions("levelup", kind):
            offers.setdefault(payload.character, []).append(legal)
    for legal, payload in board.actions("levelup", "play_boo"):
        offers.setdefault(payload.first, []).append(legal)
    _draw_levels(board, view, board_w, offers)
    _draw_waiting_row(board, view, board_w, offers)
    _draw_side(board, view, board_w)


def _draw_levels(board: Board, view: levelup_pb2.LevelUpView, board_w: float, offers: dict[int, list[Any]]) -> None:
    h = board.height
    c = board.canvas
    levels = list(view.levels)
    top, bottom = 44, h - 96
    # hills and clouds, for the feel of World 1-1
    c.create_oval(-60, h - 200, 260, h + 120, fill="#3fa43a", outline="#2b7a27", width=3)
    c.create_oval(board_w * 0.5, h - 160, board_w - 10, h + 160, fill="#4cb847", outline="#2b7a27", width=3)
    for cx, cy in ((board_w * 0.3, 26), (board_w * 0.8, 40)):
        for dx in (-26, 0, 26):
            c.create_oval(cx + dx - 22, cy - 14, cx + dx + 22, cy + 14, fill="white", outline="")
    board.text(16, 16, f"Round {view.round}", 12, "bold", anchor="w", fill="#0d2b6b")
    pitch = (bottom - top) / max(len(levels), 1)
    mega = {payload.level: legal for legal, payload in board.actions("levelup", "play_mega_pow")}
    reveals = [legal for legal, _payload in board.actions("levelup", "reveal_block")]
    reveal_slots = {payload.slot: legal for legal, payload in board.actions("levelup", "reveal_block")}
    # a character chosen (on the board or in the bar) lights the levels it may be placed on
    lit = {payload.level: legal for legal, payload in board.actions("levelup", "place") if legal.id in board.picking}
    for row, level in enumerate(levels):
        y = bottom - row * pitch
        top_level = row == len(levels) - 1
        revealing = view.HasField("reveal_level") and view.reveal_level == level.level
        x0, x1 = 60.0, board_w - 16
        glow: list[int] = []
        if level.level in lit:  # a bright rim round the shelf and its number, drawn under them
            glow = [board.rounded(x0 - 5, y - 15, x1 + 5, y + 11, 8, fill="#fff59d", outline="#ffffff", width=2),
                    c.create_oval(9, y - 31, 55, y + 15, fill="#fff59d", outline="#ffffff", width=2)]  # fmt: skip
        shelf = board.rounded(x0, y - 10, x1, y + 6, 5, fill=GOLD if top_level else BRICK,
                              outline="#ffffff" if revealing else "#5d2906", width=3 if revealing else 2)  # fmt: skip
        for joint in range(int(x0) + 24, int(x1), 24):
            c.create_line(joint, y - 9, joint, y + 5, fill="#8a3306" if not top_level else "#c9a227")
        badge = c.create_oval(14, y - 26, 50, y + 10, fill="#fff" if not top_level else GOLD, outline="#5d2906",
                              width=2)  # fmt: skip
        board.text(32, y - 8, str(level.level), 12, "bold", fill="#5d2906")
        if level.level in lit:
            board.clickable([*glow, shelf, badge], [lit[level.level]], f"place on level {level.level}")
        elif level.level in mega:
            board.clickable([shelf, badge], [mega[level.level]], f"level {level.level}")
        # ? blocks at the right end of the shelf
        for slot in range(level.face_down_blocks):
            bx = x1 - 30.0 - slot * 30
            block = board.rounded(bx, y - 40, bx + 26, y - 14, 4, fill="#f8b800", outline="#8a5a00", width=2)
            mark = board.text(bx + 13, y - 27, "?", 12, "bold", fill="#8a3306")
            if revealing and slot in reveal_slots:
                board.clickable([block, mark], [reveal_slots[slot]], f"block {slot}")
            elif revealing and reveals and not reveal_slots:
                board.clickable([block, mark], reveals, f"block {slot}")
        # characters standing on the shelf
        count = len(level.characters)
        room = x1 - x0 - 40 - level.face_down_blocks * 30
        step = min(70.0, room / max(count, 1))
        radius = min(19.0, pitch * 0.3, step * 0.45)
        for index, character in enumerate(level.characters):
            cx = x0 + 30 + index * step
            _draw_character(board, view, character, cx, y - 12 - radius, radius, offers.get(character, []), top_level,
                            step)  # fmt: skip


def _draw_waiting_row(
    board: Board, view: levelup_pb2.LevelUpView, board_w: float, offers: dict[int, list[Any]]
) -> None:
    """Characters not on the board: those still to be placed (clickable to place) and those off it."""
    groups = [("To place", list(view.unplaced), False), ("Off the board", list(view.off_board), True)]
    groups = [group for group in groups if group[1]]
    if not groups:
        return
    h = board.height
    y = h - 32
    board.rounded(10, y - 24, board_w - 10, y + 24, 14, fill="#1a237e", outline="#c5cae9", width=2)
    x = 22.0
    for title, characters, faded in groups:
        board.text(x, y, title, 9, "bold", anchor="w", fill="white")
        x += 8 + len(title) * 7
        step = min(40.0, (board_w - 40 - x) / max(len(characters), 1))
        for character in characters:
            name = character_name(view, character)
            colour = "#9e9e9e" if faded else character_colour(name, character)
            chosen = not faded and board.picked(offers.get(character, []))
            if chosen:  # the character whose levels are lit
                board.canvas.create_oval(x - 3, y - 17, x + 31, y + 17, fill="#fff59d", outline="white", width=2)
            items = board.token(x + 14, y, 13, colour, short_label(name))
            board.tip(items, name)
            board.moving(f"character {character}", items)
            board.clickable(items, offers.get(character, []) if not faded else [], name)
            x += step
        x += 16


def _draw_character(board: Board, view: levelup_pb2.LevelUpView, character: int, cx: float, cy: float,
                    radius: float, offers: list[Any], on_gold: bool = False, room: float = 70.0) -> None:  # fmt: skip
    name = character_name(view, character)
    colour = character_colour(name, character)
    items = []
    nominee = view.HasField("nominee") and view.nominee == character
    if nominee:
        items.append(board.canvas.create_oval(cx - radius - 6, cy - radius - 6, cx + radius + 6, cy + radius + 6,
                                              fill=GOLD, outline="white", width=2))  # fmt: skip
    if offers:
        items.append(board.canvas.create_oval(cx - radius - 4, cy - radius - 4, cx + radius + 4, cy + radius + 4,
                                              fill="", outline="white", width=3, dash=(4, 2)))  # fmt: skip
    items += board.token(cx, cy, radius, colour, short_label(name))
    if character in view.favourites:
        items.append(heart(board, cx + radius * 0.85, cy - radius * 0.85, max(3.5, radius * 0.3)))
    if nominee:
        items.append(board.text(cx, cy - radius - 14, "♛ nominee", 8, "bold", fill="#5d2906"))
    label = name if len(name) <= 10 else short_label(name) if " " not in name else name.split()[0]
    if radius >= 12 and len(label) * 5.6 + 6 <= room:  # a name under the token when it does not meet the next
        items.append(board.text(cx, cy + radius + 2, label, 7, "bold", fill="#5d2906" if on_gold else "white",
                                anchor="n"))  # fmt: skip
    board.tip(items, name)
    board.moving(f"character {character}", items)
    board.clickable(items, offers, name)


def heart(board: Board, x: float, y: float, size: float = 5.0) -> int:
    """A small red heart (a secret favourite) centred on (x, y): a shape, so it never covers a label."""
    r = size
    points = [x, y + r, x - r * 1.1, y - r * 0.1, x - r * 0.6, y - r, x, y - r * 0.5, x + r * 0.6, y - r,
              x + r * 1.1, y - r * 0.1]  # fmt: skip
    return int(board.canvas.create_polygon(points, smooth=True, fill="#ff1744", outline="white", width=1))


def _draw_side(board: Board, view: levelup_pb2.LevelUpView, board_w: float) -> None:
    """Every seat's coins, cards and votes, then the viewer's favourites and Power Ups, then the piles; rows
    shrink (their held blocks become a count) so that six seats fit a small window."""
    w, h = board.width, board.height
    x0 = board_w + 8
    x1 = w - 10
    board.panel(x0, 10, x1, h - 10, 14, fill="#1a237e", outline="#c5cae9", width=2)
    favourite_rows = -(-len(view.favourites) // 3) if view.favourites else 0
    reserved = (24 + 26 * favourite_rows if h >= 600 else 40 if view.favourites else 0) + (36 if view.power_ups else 0)
    reserved += 20
    pitch = max(34.0, min(66.0, (h - 30 - reserved) / max(len(view.seats), 1)))
    full = pitch >= 62
    y = 18.0
    room = x1 - x0 - 32
    for seat in view.seats:
        current = seat.seat == view.current and view.stage != levelup_pb2.LEVEL_UP_STAGE_GAME_OVER
        board.panel(x0 + 6, y, x1 - 6, y + pitch - 6, 10, fill="#283593", outline=GOLD if current else "#3949ab",
                    width=3 if current else 1)  # fmt: skip
        board.canvas.create_oval(x0 + 13, y + 7, x0 + 25, y + 19, fill=board.seat_colour(seat.seat), outline="white")
        score = view.scores[seat.seat] if seat.seat < len(view.scores) else 0
        vote = VOTES.get(seat.revealed_vote)
        right = 60.0 + (56 if vote else 40 if seat.has_voted else 0)
        name = board.seat_name(seat.seat) + (" (you)" if seat.seat == board.you else "")
        board.text(x0 + 30, y + 13, safe_text(name, max(4, int((room - right) / 7.5))), 9, "bold", anchor="w",
                   fill=GOLD if current else "white")  # fmt: skip
        board.text(x1 - 14, y + 13, f"{score} pts", 9, "bold", anchor="e")
        if vote:
            label, fill = vote
            board.rounded(x1 - 112, y + 5, x1 - 64, y + 21, 7, fill=fill if not seat.vote_cancelled else "#777777",
                          outline="white")  # fmt: skip
            board.text(x1 - 88, y + 13, label + (" ✗" if seat.vote_cancelled else ""), 7, "bold")
        elif seat.has_voted:
            board.text(x1 - 66, y + 13, "voted ✓", 7, "bold", anchor="e", fill="#a5d6a7")
        facts = [f"● {seat.coins}", f"No! {seat.no_cards}", f"Power Ups {seat.power_up_count}"]
        if not full and seat.held_blocks:
            facts.append(f"blocks {len(seat.held_blocks)}")
        if seat.extra_turns:
            facts.append(f"+{seat.extra_turns} turn")
        if seat.skips:
            facts.append(f"skips {seat.skips}")
        if not board.connected(seat.seat):
            facts.append("offline")
        board.text(x0 + 14, y + 30, safe_text("  ".join(facts), max(8, int(room / 5.6))), 7, anchor="w",
                   fill="#c5cae9")  # fmt: skip
        if full:
            bx = x0 + 14
            for block in seat.held_blocks[:8]:
                label, fill = BLOCKS.get(block.kind, ("?", "#888888"))
                width = 8 + len(label) * 6
                if bx + width > x1 - 10:
                    break
                board.rounded(
                    bx, y + 40, bx + width, y + 52, 4, fill=fill, outline="white" if not block.fresh else GOLD
                )
                board.text(bx + width / 2, y + 46, label, 6, "bold", fill=text_colour_on(fill))
                bx += width + 4
        y += pitch
    y += 2
    if view.favourites:
        roomy = h >= 600
        title = board.text(x0 + 14, y, "Your secret favourites" if roomy else "Favourites", 9, "bold",
                           anchor="nw", fill=GOLD)  # fmt: skip
        heart(board, board.canvas.bbox(title)[2] + 9, y + 8)
        y += 20
        for index, character in enumerate(view.favourites):
            name = character_name(view, character)
            if roomy:
                cx = x0 + 26 + (index % 3) * ((x1 - x0 - 24) / 3)
                cy = y + 10 + (index // 3) * 26
            else:
                cx, cy = x0 + 26 + index * 26, y + 8
            items = board.token(cx, cy, 10, character_colour(name, character), short_label(name))
            board.tip(items, name)
            if roomy:
                board.text(cx + 14, cy, safe_text(name, max(4, int(((x1 - x0 - 24) / 3 - 18) / 5.4))), 8, anchor="w")
        y += (26 * favourite_rows if roomy else 22) + 4
    if view.power_ups:
        names = ", ".join(LEVEL_UP_POWER_NAMES.get(p.kind, "?") for p in view.power_ups)
        board.text(x0 + 14, y, safe_text(f"Your Power Ups: {names}", max(10, int(room / 3))), 8, "bold",
                   anchor="nw", fill="#e1bee7", width=x1 - x0 - 28)  # fmt: skip
        y += 30
    piles = f"? blocks left {view.block_pile} · Power Up deck {view.power_deck}"
    if y < h - 28:
        board.text(x0 + 14, h - 20, safe_text(piles, max(10, int(room / 5))), 7, anchor="w", fill="#c5cae9")
