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
    for row, level in enumerate(levels):
        y = bottom - row * pitch
        top_level = row == len(levels) - 1
        revealing = view.HasField("reveal_level") and view.reveal_level == level.level
        x0, x1 = 60.0, board_w - 16
        shelf = board.rounded(x0, y - 10, x1, y + 6, 5, fill=GOLD if top_level else BRICK,
                              outline="#ffffff" if revealing else "#5d2906", width=3 if revealing else 2)  # fmt: skip
        for joint in range(int(x0) + 24, int(x1), 24):
            c.create_line(joint, y - 9, joint, y + 5, fill="#8a3306" if not top_level else "#c9a227")
        badge = c.create_oval(14, y - 26, 50, y + 10, fill="#fff" if not top_level else GOLD, outline="#5d2906",
                              width=2)  # fmt: skip
        board.text(32, y - 8, str(level.level), 12, "bold", fill="#5d2906")
        if level.level in mega:
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
            _draw_character(board, view, character, cx, y - 12 - radius, radius, offers.get(character, []), top_level)


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
            items = board.token(x + 14, y, 13, colour, short_label(name))
            board.clickable(items, offers.get(character, []) if not faded else [], name)
            x += step
        x += 16


def _draw_character(board: Board, view: levelup_pb2.LevelUpView, character: int, cx: float, cy: float,
                    radius: float, offers: list[Any], on_gold: bool = False) -> None:  # fmt: skip
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
        items.append(board.text(cx + radius * 0.8, cy - radius * 0.8, "♥", 10, "bold", fill="#ff1744"))
    if nominee:
        items.append(board.text(cx, cy - radius - 14, "♛ nominee", 8, "bold", fill="#5d2906"))
    if radius >= 12:
        label = name if len(name) <= 10 else short_label(name) if " " not in name else name.split()[0]
        items.append(board.text(cx, cy + radius + 2, label, 7, "bold", fill="#5d2906" if on_gold else "white",
                                anchor="n"))  # fmt: skip
    board.clickable(items, offers, name)


def _draw_side(board: Board, view: levelup_pb2.LevelUpView, board_w: float) -> None:
    w, h = board.width, board.height
    x0 = board_w + 8
    x1 = w - 10
    board.rounded(x0, 10, x1, h - 10, 14, fill="#1a237e", outline="#c5cae9", width=2)
    y = 24
    for seat in view.seats:
        current = seat.seat == view.current and view.stage != levelup_pb2.LEVEL_UP_STAGE_GAME_OVER
        board.rounded(x0 + 8, y, x1 - 8, y + 58, 10, fill="#283593", outline=GOLD if current else "#3949ab",
                      width=3 if current else 1)  # fmt: skip
        board.canvas.create_oval(x0 + 16, y + 8, x0 + 30, y + 22, fill=board.seat_colour(seat.seat), outline="white")
        name = board.seat_name(seat.seat) + (" (you)" if seat.seat == board.you else "")
        board.text(x0 + 36, y + 15, name, 10, "bold", anchor="w", fill=GOLD if current else "white")
        score = view.scores[seat.seat] if seat.seat < len(view.scores) else 0
        board.text(x1 - 16, y + 15, f"{score} pts", 10, "bold", anchor="e")
        facts = [f"● {seat.coins}", f"No! cards {seat.no_cards}", f"Power Ups {seat.power_up_count}"]
        if seat.extra_turns:
            facts.append(f"+{seat.extra_turns} turn")
        if seat.skips:
            facts.append(f"skips {seat.skips}")
        if not board.connected(seat.seat):
            facts.append("offline")
        board.text(x0 + 16, y + 34, "  ".join(facts), 8, anchor="w", fill="#c5cae9")
        vote = VOTES.get(seat.revealed_vote)
        if vote:
            label, fill = vote
            board.rounded(x1 - 140, y + 6, x1 - 78, y + 24, 8, fill=fill if not seat.vote_cancelled else "#777777",
                          outline="white")  # fmt: skip
            board.text(x1 - 109, y + 15, label + (" ✗" if seat.vote_cancelled else ""), 8, "bold")
        elif seat.has_voted:
            board.text(x1 - 78, y + 15, "voted ✓", 8, "bold", anchor="e", fill="#a5d6a7")
        bx = x0 + 16
        for block in seat.held_blocks[:8]:
            label, fill = BLOCKS.get(block.kind, ("?", "#888888"))
            width = 8 + len(label) * 6
            board.rounded(bx, y + 44, bx + width, y + 56, 4, fill=fill, outline="white" if not block.fresh else GOLD)
            board.text(bx + width / 2, y + 50, label, 6, "bold", fill=text_colour_on(fill))
            bx += width + 4
        y += 66
    y += 4
    if view.favourites:
        board.text(x0 + 16, y, "Your secret favourites ♥", 10, "bold", anchor="nw", fill=GOLD)
        y += 20
        for index, character in enumerate(view.favourites):
            name = character_name(view, character)
            cx = x0 + 28 + (index % 3) * ((x1 - x0 - 24) / 3)
            cy = y + 12 + (index // 3) * 26
            board.token(cx, cy, 10, character_colour(name, character), short_label(name))
            board.text(cx + 14, cy, name, 8, anchor="w")
        y += 26 * ((len(view.favourites) + 2) // 3) + 6
    if view.power_ups:
        names = ", ".join(LEVEL_UP_POWER_NAMES.get(p.kind, "?") for p in view.power_ups)
        board.text(x0 + 16, y, f"Your Power Ups: {names}", 9, "bold", anchor="nw", fill="#e1bee7", width=x1 - x0 - 30)
        y += 34
    extra = []
    extra.append(f"? blocks left {view.block_pile} · Power Up deck {view.power_deck}")
    board.text(x0 + 16, min(y, h - 60), "\n".join(extra), 8, anchor="nw", fill="#c5cae9", width=x1 - x0 - 30)
