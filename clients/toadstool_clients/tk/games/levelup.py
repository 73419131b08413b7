"""The Super Mario: Level Up! screen: the board's seven levels as shelves with character tokens and ? blocks,
the nominee, every seat's coins, blocks, cards and votes, and the viewer's secret favourites and Power Ups.

It draws what the LevelUpView says and offers the legal actions whose payload names a character, a level
or a ? block slot; it knows no rules.
"""

from __future__ import annotations

from typing import Any

from toadstool.api.v1 import levelup_pb2, table_pb2
from toadstool_clients.i18n import N_, _, n_
from toadstool_clients.names import LEVEL_UP_POWER_NAMES
from toadstool_clients.tk.games import (
    Board,
    character_colour,
    event_line,
    safe_text,
    score_lines,
    text_colour_on,
    text_width,
)

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
    levelup_pb2.LEVEL_UP_BLOCK_KIND_COIN: (N_("Coin"), "#f9a825"),
    levelup_pb2.LEVEL_UP_BLOCK_KIND_COIN_X2: (N_("2 Coins"), "#f57f17"),
    levelup_pb2.LEVEL_UP_BLOCK_KIND_SUPER_MUSHROOM: (N_("Mushroom"), "#e53935"),
    levelup_pb2.LEVEL_UP_BLOCK_KIND_FEATHER: (N_("Feather"), "#8d6e63"),
    levelup_pb2.LEVEL_UP_BLOCK_KIND_GOOMBA: (N_("Goomba"), "#795548"),
    levelup_pb2.LEVEL_UP_BLOCK_KIND_GREEN_SHELL: (N_("Shell"), "#2e7d32"),
    levelup_pb2.LEVEL_UP_BLOCK_KIND_DOUBLE_CHERRY: (N_("Cherry"), "#ad1457"),
    levelup_pb2.LEVEL_UP_BLOCK_KIND_THWOMP: (N_("Thwomp"), "#546e7a"),
    levelup_pb2.LEVEL_UP_BLOCK_KIND_POW_BLOCK: (N_("POW"), "#1565c0"),
    levelup_pb2.LEVEL_UP_BLOCK_KIND_SUPER_STAR: (N_("Star"), "#fbc02d"),
}
VOTES = {
    levelup_pb2.LEVEL_UP_VOTE_YES: (N_("Yes!"), "#2e7d32"),
    levelup_pb2.LEVEL_UP_VOTE_NO: (N_("No!"), "#c62828"),
    levelup_pb2.LEVEL_UP_VOTE_THWOMP_VOTE: (N_("Thwomp!"), "#455a64"),
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
    groups = waiting_groups(view)
    # the row's room is what every character would need, so the levels stay put while it empties
    everyone = [(_("Off the board"), list(range(len(view.character_names) or 1)), True)]
    height = waiting_layout(board, everyone if groups else [], board_w)[0]
    row_top = board.height - 8 - max(height, ROW_LINE + 2 * ROW_PAD)
    _draw_levels(board, view, board_w, row_top - 14, offers)
    _draw_waiting_row(board, view, board_w, groups, offers)
    _draw_side(board, view, board_w)


def _draw_levels(board: Board, view: levelup_pb2.LevelUpView, board_w: float, bottom: float,
                 offers: dict[int, list[Any]]) -> None:  # fmt: skip
    """The seven levels as shelves, bottom to top, in the room above `bottom`; their pieces shrink with the
    room between two shelves so that a token never reaches the shelf above it."""
    h = board.height
    c = board.canvas
    levels = list(view.levels)
    top = 44
    # hills and clouds, for the feel of World 1-1
    c.create_oval(-60, h - 200, 260, h + 120, fill="#3fa43a", outline="#2b7a27", width=3)
    c.create_oval(board_w * 0.5, h - 160, board_w - 10, h + 160, fill="#4cb847", outline="#2b7a27", width=3)
    for cx, cy in ((board_w * 0.3, 26), (board_w * 0.8, 40)):
        for dx in (-26, 0, 26):
            c.create_oval(cx + dx - 22, cy - 14, cx + dx + 22, cy + 14, fill="white", outline="")
    board.text(16, 16, _("Round {number}", number=view.round), 12, "bold", anchor="w", fill="#0d2b6b")
    pitch = (bottom - top) / max(len(levels), 1)
    # a shelf reaches `above` over its line and `below` under it; the room between two shelves is `free`
    above, below = (10.0, 6.0) if pitch >= 44 else (6.0, 4.0)
    free = pitch - above - below - 6
    badge_r = min(18.0, pitch / 2 - 1)
    block = max(12.0, min(26.0, free))
    mega = {payload.level: legal for legal, payload in board.actions("levelup", "play_mega_pow")}
    reveals = [legal for legal, _payload in board.actions("levelup", "reveal_block")]
    reveal_slots = {payload.slot: legal for legal, payload in board.actions("levelup", "reveal_block")}
    # a character chosen (on the board or in the bar) lights the levels it may be placed on
    lit = {payload.level: legal for legal, payload in board.actions("levelup", "place") if legal.id in board.picking}
    for row, level in enumerate(levels):
        y = bottom - row * pitch
        by = y - 8 if pitch >= 40 else y - above / 2  # the badge's centre, beside the shelf
        top_level = row == len(levels) - 1
        revealing = view.HasField("reveal_level") and view.reveal_level == level.level
        x0, x1 = 60.0, board_w - 16
        glow: list[int] = []
        if level.level in lit:  # a bright rim round the shelf and its number, drawn under them
            glow = [board.rounded(x0 - 5, y - above - 5, x1 + 5, y + below + 5, 8, fill="#fff59d", outline="#ffffff",
                                  width=2),
                    c.create_oval(32 - badge_r - 5, by - badge_r - 5, 32 + badge_r + 5, by + badge_r + 5,
                                  fill="#fff59d", outline="#ffffff", width=2)]  # fmt: skip
        shelf = board.rounded(x0, y - above, x1, y + below, 5, fill=GOLD if top_level else BRICK,
                              outline="#ffffff" if revealing else "#5d2906", width=3 if revealing else 2)  # fmt: skip
        for joint in range(int(x0) + 24, int(x1), 24):
            c.create_line(joint, y - above + 1, joint, y + below - 1, fill="#8a3306" if not top_level else "#c9a227")
        badge = c.create_oval(32 - badge_r, by - badge_r, 32 + badge_r, by + badge_r,
                              fill="#fff" if not top_level else GOLD, outline="#5d2906", width=2)  # fmt: skip
        board.text(32, by, str(level.level), 12 if badge_r >= 15 else 10, "bold", fill="#5d2906")
        if level.level in lit:
            board.clickable([*glow, shelf, badge], [lit[level.level]], f"place on level {level.level}")
        elif level.level in mega:
            board.clickable([shelf, badge], [mega[level.level]], f"level {level.level}")
        # ? blocks at the right end of the shelf, standing on it
        for slot in range(level.face_down_blocks):
            bx = x1 - block - 4 - slot * (block + 4)
            face = board.rounded(bx, y - above - 2 - block, bx + block, y - above - 2, 4, fill="#f8b800",
                                 outline="#8a5a00", width=2)  # fmt: skip
            mark = board.text(bx + block / 2, y - above - 2 - block / 2, "?", 12 if block >= 20 else 9, "bold",
                              fill="#8a3306")  # fmt: skip
            if revealing and slot in reveal_slots:
                board.clickable([face, mark], [reveal_slots[slot]], f"block {slot}")
            elif revealing and reveals and not reveal_slots:
                board.clickable([face, mark], reveals, f"block {slot}")
        # characters standing on the shelf
        count = len(level.characters)
        room = x1 - x0 - 40 - level.face_down_blocks * (block + 4)
        step = min(70.0, room / max(count, 1))
        radius = max(6.0, min(19.0, free / 2, step * 0.45))
        crowned = 2 * radius + 22 <= free  # room over the token for the nominee's crown
        for index, character in enumerate(level.characters):
            cx = x0 + 30 + index * step
            _draw_character(board, view, character, cx, y - above - 2 - radius, radius, offers.get(character, []),
                            top_level, step, crowned)  # fmt: skip


#: The waiting row: a line of tokens and the padding round its lines.
ROW_LINE, ROW_PAD, ROW_STEP, ROW_HEADING = 30.0, 8.0, 30.0, 16.0
#: A character's place in the waiting row (its line and left edge), or a group's title (character None).
Slot = tuple[int | None, str, bool, float, int]


def waiting_groups(view: levelup_pb2.LevelUpView) -> list[tuple[str, list[int], bool]]:
    """Characters not on the board: those still to be placed and those off it (faded)."""
    groups = [(_("To place"), list(view.unplaced), False), (_("Off the board"), list(view.off_board), True)]
    return [group for group in groups if group[1]]


def waiting_layout(board: Board, groups: list[tuple[str, list[int], bool]], board_w: float) -> tuple[float, list[Slot]]:
    """Where the waiting row's titles and tokens go, and how tall the row is: one line with the titles inline
    when everything fits, else each title over lines of tokens that wrap, so no token covers another."""
    left, right = 22.0, board_w - 18
    inline: list[Slot] = []
    x = left
    for title, characters, faded in groups:
        inline.append((None, title, faded, x, 0))
        x += text_width(board.canvas, title, 9, "bold") + 8
        for character in characters:
            inline.append((character, title, faded, x, 0))
            x += ROW_STEP + 4
        x += 12
    if not groups:
        return 0.0, []
    if x - 12 - 6 <= right:  # the last token ends 6 px before its step
        return ROW_LINE + 2 * ROW_PAD, inline
    wrapped: list[Slot] = []
    per_line = max(1, int((right - left - 28) // ROW_STEP) + 1)
    line = 0
    for title, characters, faded in groups:
        wrapped.append((None, title, faded, left, line))
        line += 1
        for index, character in enumerate(characters):
            if index and index % per_line == 0:
                line += 1
            wrapped.append((character, title, faded, left + (index % per_line) * ROW_STEP, line))
        line += 1
    headings = len(groups)
    y = headings * ROW_HEADING + (line - headings) * ROW_LINE + 2 * ROW_PAD
    return y, wrapped


def _draw_waiting_row(board: Board, view: levelup_pb2.LevelUpView, board_w: float,
                      groups: list[tuple[str, list[int], bool]], offers: dict[int, list[Any]]) -> None:  # fmt: skip
    """The waiting row along the bottom of the board: those to place (clickable to place) and those off it."""
    height, slots = waiting_layout(board, groups, board_w)
    if not slots:
        return
    h = board.height
    top = h - 8 - height
    board.rounded(10, top, board_w - 10, h - 8, 14, fill="#1a237e", outline="#c5cae9", width=2)
    one_line = all(line == 0 for *_rest, line in slots)
    # the middle of each line: titles take a short line of their own when the row wraps
    middles: dict[int, float] = {}
    y = top + ROW_PAD
    for character, _title, _faded, _x, line in slots:
        if line in middles:
            continue
        tall = ROW_LINE if character is not None or one_line else ROW_HEADING
        middles[line] = y + tall / 2
        y += tall
    for character, title, faded, x, line in slots:
        y = middles[line]
        if character is None:
            board.text(x, y, title, 9, "bold", anchor="w", fill="white")
            continue
        name = character_name(view, character)
        colour = "#9e9e9e" if faded else character_colour(name, character)
        chosen = not faded and board.picked(offers.get(character, []))
        if chosen:  # the character whose levels are lit
            board.canvas.create_oval(x - 1, y - 15, x + 29, y + 15, fill="#fff59d", outline="white", width=2)
        items = board.token(x + 14, y, 12, colour, short_label(name))
        board.tip(items, name)
        board.moving(f"character {character}", items)
        board.clickable(items, offers.get(character, []) if not faded else [], name)


def _draw_character(board: Board, view: levelup_pb2.LevelUpView, character: int, cx: float, cy: float,
                    radius: float, offers: list[Any], on_gold: bool = False, room: float = 70.0,
                    crowned: bool = True) -> None:  # fmt: skip
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
    if nominee and crowned:
        items.append(board.text(cx, cy - radius - 14, _("♛ nominee"), 8, "bold", fill="#5d2906"))
    label = name if len(name) <= 10 else short_label(name) if " " not in name else name.split()[0]
    if radius >= 12 and text_width(board.canvas, label, 7, "bold") + 8 <= room:  # a name that keeps off the next
        items.append(board.text(cx, cy + radius + 2, label, 7, "bold", fill="#5d2906" if on_gold else "white",
                                anchor="n"))  # fmt: skip
    board.tip(items, _("{name} (the nominee)", name=name) if nominee else name)
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
        name = board.seat_name(seat.seat)
        name = _("{name} (you)", name=name) if seat.seat == board.you else name
        board.text(x0 + 30, y + 13, safe_text(name, max(4, int((room - right) / 7.5))), 9, "bold", anchor="w",
                   fill=GOLD if current else "white")  # fmt: skip
        board.text(x1 - 14, y + 13, n_("{n} pt", "{n} pts", score), 9, "bold", anchor="e")
        if vote:
            label, fill = vote
            board.rounded(x1 - 112, y + 5, x1 - 64, y + 21, 7, fill=fill if not seat.vote_cancelled else "#777777",
                          outline="white")  # fmt: skip
            board.text(x1 - 88, y + 13, _(label) + (" ✗" if seat.vote_cancelled else ""), 7, "bold")
        elif seat.has_voted:
            board.text(x1 - 66, y + 13, _("voted ✓"), 7, "bold", anchor="e", fill="#a5d6a7")
        facts = [f"● {seat.coins}", _("No! {n}", n=seat.no_cards), _("Power Ups {n}", n=seat.power_up_count)]
        if not full and seat.held_blocks:
            facts.append(_("blocks {n}", n=len(seat.held_blocks)))
        if seat.extra_turns:
            facts.append(n_("+{n} turn", "+{n} turns", seat.extra_turns))
        if seat.skips:
            facts.append(_("skips {n}", n=seat.skips))
        if not board.connected(seat.seat):
            facts.append(_("offline"))
        board.text(x0 + 14, y + 30, safe_text("  ".join(facts), max(8, int(room / 5.6))), 7, anchor="w",
                   fill="#c5cae9")  # fmt: skip
        if full:
            bx = x0 + 14
            for block in seat.held_blocks[:8]:
                label, fill = BLOCKS.get(block.kind, ("?", "#888888"))
                label = _(label) if label != "?" else label
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
        title = board.text(x0 + 14, y, _("Your secret favourites") if roomy else _("Favourites"), 9, "bold",
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
        names = ", ".join(_(LEVEL_UP_POWER_NAMES.get(p.kind, "?")) for p in view.power_ups)
        board.text(x0 + 14, y, safe_text(_("Your Power Ups: {names}", names=names), max(10, int(room / 3))), 8, "bold",
                   anchor="nw", fill="#e1bee7", width=x1 - x0 - 28)  # fmt: skip
        y += 30
    piles = _("? blocks left {blocks} · Power Up deck {deck}", blocks=view.block_pile, deck=view.power_deck)
    if y < h - 28:
        board.text(x0 + 14, h - 20, safe_text(piles, max(10, int(room / 5))), 7, anchor="w", fill="#c5cae9")


def recap(previous: levelup_pb2.LevelUpView, view: levelup_pb2.LevelUpView, events: list[table_pb2.Event],
          names: list[str]) -> tuple[str, list[str]] | None:  # fmt: skip
    """When a round has just been scored (the next begins in the same instant): what it scored for every
    seat and why (the scoring's own lines), held on screen a moment. The lines are the events the server
    marks as the round's result: those of no seat (the champion) and the viewer's own (their objective),
    in whatever language they are said."""
    if view.round == previous.round or not previous.round:
        return None
    result = [e for e in events if e.round_result]
    said = [event_line(e) for e in result if not e.HasField("seat")][-2:]
    if view.HasField("you"):  # why you scored what you did
        said += [event_line(e) for e in result if e.HasField("seat") and e.seat == view.you][:2]
    return _("Round {number}: the result", number=previous.round), [
        *said,
        *score_lines(previous.scores, view.scores, names),
    ]
