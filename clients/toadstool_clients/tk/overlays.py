"""What the table screen draws over every game's board: the waiting room, the latest die (rolling, then
held a moment), the result card with its close box, and slides of pieces that moved.

It is for the parts of the board that are the same in every game. It knows no rules and draws only what
the update says; the timing comes from the screen's Motion (tk/motion.py), never from the clock.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from toadstool.api.v1 import table_pb2
from toadstool_clients.i18n import _, n_
from toadstool_clients.names import KART_ROLL_PURPOSES
from toadstool_clients.tk.games import Board, safe_text
from toadstool_clients.tk.motion import slide_frames

if TYPE_CHECKING:
    from toadstool_clients.tk.shell import TableFace

#: Frames of a rolling die (the faces it shows before the roll), then frames it stays highlighted.
ROLL_FRAMES, ROLL_HOLD_FRAMES = 8, 32
SLIDE_FRAMES = 8
#: Frames a game's recap (a Power Up round's result) stays up, unless clicked away.
HOLD_FRAMES = 90
#: The tags of the result card's close box and of the held recap.
CLOSE_OUTCOME = "close-outcome"
HELD = "held"


def draw_waiting(screen: TableFace, board: Board) -> None:
    """Before the game starts: the seats as places round a table, open ones dashed."""
    update = board.update
    w, h = board.width, board.height
    board.canvas.configure(background="#263046")
    board.text(w / 2, 50, _("Waiting for players"), 20, "bold", fill="#ffd54a")
    said = _("{phase} · table {table}", phase=safe_text(update.phase, 60), table=safe_text(update.table_id, 20))
    board.text(w / 2, 82, said, 11, fill="#cfd8dc", width=w - 40, justify="center")
    count = max(1, len(update.seats))
    slot = min(150.0, (w - 40) / count)
    radius = min(40.0, slot * 0.36)
    left = (w - slot * count) / 2
    for seat in update.seats:
        x = left + seat.index * slot + slot / 2
        y = h / 2
        empty = seat.kind == table_pb2.SEAT_KIND_EMPTY
        fill = "" if empty else board.seat_colour(seat.index)
        board.canvas.create_oval(x - radius, y - radius, x + radius, y + radius, fill=fill, outline="white", width=3,
                                 dash=(6, 4) if empty else ())  # fmt: skip
        label = _("open") if empty else safe_text(board.seat_name(seat.index), max(4, int(slot / 8)))
        board.text(x, y + radius + 16, label, 10, "bold", fill="#90a4ae" if empty else "white")
        if seat.index == screen.seat:
            board.text(x, y, _("you"), 11 if radius > 24 else 8, "bold")
        elif seat.kind == table_pb2.SEAT_KIND_BOT:
            board.text(x, y, _("bot"), 11 if radius > 24 else 8, "bold")
    takeover = screen.table_info.takeover_seconds
    away = (
        _("A player who drops out is played by a bot after {n} s, until they are back.", n=takeover) if takeover else ""
    )
    if screen.host_token:
        host = _("You host this table: add bots or start now (below, or the Host menu), or wait for friends to join.")
        board.text(w / 2, h - 56, f"{host} {away}".strip(), 10, fill="#cfd8dc", width=w - 40, justify="center")
    elif away:
        board.text(w / 2, h - 50, away.strip(), 10, fill="#cfd8dc", width=w - 40, justify="center")


def draw_roll(screen: TableFace, board: Board, face: int | None = None) -> None:
    """The latest die roll (top right, or where the game put `board.die_spot`): big and highlighted while it
    is fresh, rolling through other faces first (`face`)."""
    board.canvas.delete("roll")
    if screen.roll is None:
        return
    roll = screen.roll
    fresh = screen.roll_fresh
    size = 48 if fresh else 32
    right, y = board.die_spot or (board.width - 14, 12)
    x = right - size
    # on its own dark card, so that it never sits illegibly on the board's own text
    items = [board.rounded(x - 118, y - 6, x + size + 8, y + size + 6, 12, fill="#263238",
                           outline="#ffd54a" if fresh else "#546e7a", width=2 if fresh else 1)]  # fmt: skip
    items += board.die(x, y, size, face if face is not None else roll.value, highlight=fresh)
    who = safe_text(board.seat_name(roll.roller), 12)
    purpose = _(KART_ROLL_PURPOSES[roll.purpose]) if roll.purpose in KART_ROLL_PURPOSES else roll.purpose
    said = _("{name}\n{purpose}: {value}", name=who, purpose=safe_text(purpose, 14), value=roll.value)
    items.append(board.text(x - 10, y + size / 2, said if face is None else _("{name}\nrolling…", name=who), 9,
                            "bold", anchor="e", justify="right"))  # fmt: skip
    for item in items:
        board.canvas.addtag_withtag("roll", item)


def start_roll(screen: TableFace) -> None:
    """A die was just rolled: tumble through other faces, show the roll highlighted, then calm down."""
    roll = screen.roll
    if roll is None:
        return
    screen.roll_fresh = True

    def show(face: int | None) -> None:
        if screen.board is not None and not screen.left:
            draw_roll(screen, screen.board, face)

    def settle() -> None:
        screen.roll_fresh = False
        show(None)

    tumble = [lambda k=k: show((roll.value + k) % 6 + 1) for k in range(1, ROLL_FRAMES)]
    hold = [lambda: None] * ROLL_HOLD_FRAMES
    screen.motion.play("roll", [*tumble, lambda: show(None), *hold, settle])


def draw_outcome(screen: TableFace, board: Board) -> None:
    """The result card (until closed): who won and the summary, or, for a game that did not end by its
    rules (the host ended it, it was abandoned), why it ended and no winner; a close box; Rematch is in
    the bar."""
    update = board.update
    if update.status != table_pb2.TABLE_STATUS_FINISHED or screen.outcome_closed:
        return
    ended = safe_text(update.outcome.ended, 80)
    winners = ", ".join(board.seat_name(w) for w in update.outcome.winners)
    if ended:
        headline = _("The game was ended")
    elif winners:
        headline = n_("★ {names} won! ★", "★ {names} won! ★", len(update.outcome.winners), names=winners)
    else:
        headline = _("★ Nobody won ★")
    summary = ended or safe_text(update.outcome.summary, 80)
    account = _account(list(update.outcome.details), OUTCOME_LINES)
    w, h = board.width, board.height
    half = min(260, w / 2 - 20)
    big = half > 200
    line_height = 17 if big else 14
    grow = line_height * len(account) / 2
    top, bottom = h / 2 - 70 - grow, h / 2 + 70 + grow
    items = [board.panel(w / 2 - half, top, w / 2 + half, bottom, 22, fill="#fff8e1", outline="#f9a825", width=4)]
    items.append(board.text(w / 2, top + 40, headline, 18 if big else 13, "bold", fill="#c62828",
                            width=2 * half - 60, justify="center"))  # fmt: skip
    items.append(board.text(w / 2, top + 84, summary or "Game over", 11 if big else 9, fill="#333333",
                            width=2 * half - 40, justify="center"))  # fmt: skip
    for index, line in enumerate(account):  # the game's own account: its last hands, rounds, places
        items.append(board.text(w / 2, top + 120 + index * line_height, line, 9 if big else 8, fill="#4e342e",
                                width=2 * half - 40, justify="center"))  # fmt: skip
    items.append(board.text(w / 2, bottom - 16, _("Esc or ✕ to see the table"), 8, fill="#8d6e63"))
    cx, cy = w / 2 + half - 22, top + 20
    box = board.canvas.create_oval(cx - 11, cy - 11, cx + 11, cy + 11, fill="#f9a825", outline="")
    mark = board.text(cx, cy, "✕", 10, "bold", fill="white")
    for item in (box, mark):
        board.canvas.addtag_withtag(CLOSE_OUTCOME, item)
    for item in items:
        board.canvas.addtag_withtag("outcome", item)


#: The most lines of the game's account (Outcome.details) on the result card.
OUTCOME_LINES = 5


def _account(details: list[str], most: int) -> list[str]:
    """The last `most` lines of the game's account, the first of them saying how many earlier ones are
    left out; each made safe for a Tk label and cut to one line."""
    if len(details) <= most:
        return [safe_text(line, 70) for line in details]
    kept = details[-(most - 1) :]
    return [_("… {n} earlier", n=len(details) - len(kept)), *(safe_text(line, 70) for line in kept)]


def start_slides(screen: TableFace, board: Board, before: dict[str, tuple[float, float]]) -> None:
    """Slide every piece drawn somewhere new from where it was (or from the piece it came from)."""
    for key, (tag, origin) in board.movers.items():
        old = before.get(key) or (before.get(origin) if origin else None)
        new = board.positions.get(key)
        if old is None or new is None:
            continue
        dx, dy = old[0] - new[0], old[1] - new[1]
        if math.hypot(dx, dy) < 4:
            continue
        board.canvas.move(tag, dx, dy)
        screen.motion.play(f"slide {key}", slide_frames(board.canvas, tag, dx, dy, SLIDE_FRAMES))


def hold(screen: TableFace, recap: tuple[str, list[str]]) -> None:
    """Hold a game's recap on the board for HOLD_FRAMES frames (or until it is clicked)."""
    screen.held = recap

    def release() -> None:
        screen.held = None
        screen.canvas.delete(HELD)

    screen.motion.play("held", [*([lambda: None] * HOLD_FRAMES), release])


def draw_held(screen: TableFace, board: Board) -> None:
    """The held recap: a card across the middle of the board with its title and lines."""
    if screen.held is None:
        return
    title, lines = screen.held
    w, h = board.width, board.height
    half = min(300.0, w / 2 - 16)
    left = w / 2 - half
    # Each line whole, wrapped to the card (a German line is often longer than its English).
    said = [board.text(left + 14, 0, safe_text(line, 240), 8, anchor="nw", fill="#333333", width=2 * half - 28)
            for line in lines]  # fmt: skip
    tall = [board.canvas.bbox(item)[3] - board.canvas.bbox(item)[1] for item in said]
    height = 36 + sum(tall) + 2 * len(said) + 26
    top = max(10.0, h / 2 - height / 2 - 30)
    y = top + 36
    for item, size in zip(said, tall, strict=True):
        board.canvas.coords(item, left + 14, y)
        y += size + 2
    card = board.panel(left, top, w / 2 + half, top + height, 16, fill="#fffde7", outline="#ffd54a", width=3)
    items = [card, *said, board.text(w / 2, top + 20, title, 12, "bold", fill="#1a237e")]
    items.append(board.text(w / 2, top + height - 10, _("click to close"), 7, fill="#8d6e63"))
    board.canvas.tag_raise(card)
    for item in items[1:]:
        board.canvas.tag_raise(item)
    for item in items:
        board.canvas.addtag_withtag(HELD, item)
