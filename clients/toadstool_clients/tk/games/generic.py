"""The Tk screen for a game this client has no screen for (GameView.generic): its phase and its view's fields
as lines of text on the board; the action bar offers the legal actions by their labels as for every game.
Texts from the network are drawn as plain text (`safe_text`)."""

from __future__ import annotations

from toadstool.api.v1 import table_pb2
from toadstool_clients.generic_view import generic_lines
from toadstool_clients.tk.games import Board, safe_text

BACKGROUND = "#20242c"
INK = "#e6e6e6"
GOLD = "#ffcf4d"


def draw(board: Board, view: table_pb2.GenericView) -> None:
    c = board.canvas
    c.delete("all")
    c.configure(background=BACKGROUND)
    size = 14 if board.height >= 600 else 11
    board.text(20, 16, safe_text(f"{view.game}: {view.phase}", 200), size + 2, "bold", fill=GOLD, anchor="nw")
    lines = generic_lines(view)
    step = size * 2
    label_width = max(120, size * max((len(label) for label, _ in lines), default=8) * 0.75)
    for row, (label, value) in enumerate(lines):
        y = 20 + step * (row + 2)
        if y > board.height - step:
            break
        board.text(24, y, safe_text(label, 60), size, "bold", fill=INK, anchor="nw")
        c.create_text(
            24 + label_width, y, text=safe_text(value, 200), anchor="nw", fill=INK,
            font=("DejaVu Sans", size), width=max(120, board.width - label_width - 48),
        )  # fmt: skip
