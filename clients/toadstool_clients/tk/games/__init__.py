"""Game screens: one presentation module per game behind one small interface, plus what they share.

A game module (named by the GameView oneof member: uno, powerup, levelup, kart) exposes
`draw(board: Board, view: <the game's view message>) -> None` and draws the game on `board.canvas`. It
reads the view and the legal actions the update carries; it knows no rules. Clickable pieces offer the
legal actions whose payload names them (a card id, a character, a field), never actions of their own.

`draw_game` is the one entry point: a game without a module, or a module that fails on a view it does not
understand, falls back to the raw text of the view so that the window never crashes.
"""

from __future__ import annotations

import importlib
import logging
import tkinter as tk
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import text_format

from toadstool.api.v1 import table_pb2
from toadstool_clients.i18n import _

log = logging.getLogger(__name__)

FONT = "DejaVu Sans"
#: Seat colours for games whose seats have no colour of their own (Mario-ish palette).
SEAT_COLOURS: tuple[str, ...] = (
    "#e52521",  # Mario red
    "#2e9e3e",  # Luigi green
    "#f58fc0",  # Peach pink
    "#f7a21b",  # Daisy orange
    "#2f7be0",  # Toad blue
    "#8f4fc9",  # Waluigi purple
    "#f3d02a",  # Wario yellow
    "#8b5a2b",  # Donkey Kong brown
    "#1fb5b5",
    "#555555",
)
#: Character colours by name, for views that carry character names.
CHARACTER_COLOURS: dict[str, str] = {
    "mario": "#e52521",
    "luigi": "#2e9e3e",
    "peach": "#f58fc0",
    "daisy": "#f7a21b",
    "yoshi": "#6fd64a",
    "toad": "#2f7be0",
    "toadette": "#ff6fb5",
    "rosalina": "#5fd3e6",
    "bowser": "#d98c1e",
    "bowser jr.": "#9ccf3a",
    "wario": "#f3d02a",
    "waluigi": "#8f4fc9",
    "donkey kong": "#8b5a2b",
}


def safe_text(text: str, limit: int = 40) -> str:
    """A network string made safe to draw: control and format characters dropped, characters Tk cannot
    draw (outside the BMP) replaced, and the length bounded. Names from the network are untrusted."""
    cleaned = []
    for char in text:
        category = unicodedata.category(char)
        if category in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            continue
        cleaned.append(char if ord(char) <= 0xFFFF else "\ufffd")
    result = "".join(cleaned).strip()
    return result if len(result) <= limit else result[: limit - 1] + "…"


def text_width(canvas: tk.Misc, text: str, size: int, weight: str = "normal") -> int:
    """How wide `text` is drawn in the board's font, in pixels (Tk's own measure, not a guess per letter)."""
    return int(canvas.tk.call("font", "measure", (FONT, size, weight), text))


def cut_to(measure: Callable[[str], int], text: str, width: float) -> str:
    """`text` cut (with an ellipsis) until `measure` (a font's width in pixels) says it fits `width`."""
    if width <= 0 or measure(text) <= width:
        return text
    while len(text) > 1 and measure(text + "…") > width:
        text = text[:-1].rstrip()
    return text + "…" if text else ""


def fitted(canvas: tk.Misc, text: str, width: float, size: int, weight: str = "normal") -> str:
    """`text` cut (with an ellipsis) until it is drawn in the board's font no wider than `width` pixels."""
    return cut_to(lambda t: text_width(canvas, t, size, weight), text, width)


def character_colour(name: str, fallback_index: int = 0) -> str:
    """The colour a character is known by, or a seat colour."""
    return CHARACTER_COLOURS.get(name.strip().lower(), SEAT_COLOURS[fallback_index % len(SEAT_COLOURS)])


def text_colour_on(fill: str) -> str:
    """Black or white, whichever reads better on `fill` (#rrggbb)."""
    try:
        red, green, blue = (int(fill[i : i + 2], 16) for i in (1, 3, 5))
    except ValueError:
        return "black"
    return "black" if 0.299 * red + 0.587 * green + 0.114 * blue > 150 else "white"


#: The tag every clickable canvas item carries; the table screen binds it once (binding per redraw would
#: register a new Tcl command each time).
CLICKABLE = "clickable"
#: The tag of items that name themselves on hover (a token's full name).
TIPPED = "tipped"


#: The tag of the hover highlight and of the tooltip drawn over a piece under the pointer.
HOVER = "hover"
#: The tag of the items of a pile or a fan (card backs, a hand fanned out): the next card covers their faces
#: on purpose, so the layout tests do not count those labels as hidden.
STACKED = "stacked"


def bind_clicks(canvas: tk.Canvas, board_of: Callable[[], Board | None]) -> None:
    """Route clicks on clickable items to the current board's actions; a piece under the pointer is
    outlined (and named, when it has a tooltip) so a person sees what a click would take."""

    def group(board: Board, of: dict[str, Any]) -> str | None:
        return next((tag for tag in canvas.gettags("current") if tag in of), None)

    def clicked(event: tk.Event[Any]) -> None:
        board = board_of()
        if board is None:
            return
        for tag in canvas.gettags("current"):
            if tag in board.click_actions:
                board.choose(board.click_actions[tag], event)
                return

    def entered(_event: tk.Event[Any]) -> None:
        board = board_of()
        canvas.delete(HOVER)
        if board is None:
            return
        clickable, tipped = group(board, board.click_actions), group(board, board.tips)
        if clickable is not None and (box := canvas.bbox(clickable)):
            canvas.configure(cursor="hand2")
            canvas.create_rectangle(box[0] - 3, box[1] - 3, box[2] + 3, box[3] + 3, outline="#fff59d", width=3,
                                    tags=(HOVER,), state="disabled")  # fmt: skip
        tip = board.tips.get(tipped) if tipped is not None else None
        if tip and tipped is not None and (box := canvas.bbox(tipped)):
            y = box[1] - 14 if box[1] > 24 else box[3] + 14
            x = min(max((box[0] + box[2]) / 2, 60), board.width - 60)
            label = canvas.create_text(x, y, text=tip, font=(FONT, 9, "bold"), fill="white", tags=(HOVER,),
                                       state="disabled")  # fmt: skip
            lx0, ly0, lx1, ly1 = canvas.bbox(label)
            back = canvas.create_rectangle(lx0 - 5, ly0 - 2, lx1 + 5, ly1 + 2, fill="#212121", outline="#fff59d",
                                           tags=(HOVER,), state="disabled")  # fmt: skip
            canvas.tag_raise(label, back)

    def left(_event: tk.Event[Any]) -> None:
        canvas.delete(HOVER)
        canvas.configure(cursor="")

    # A click only on clickable items: a piece that is both clickable and named would otherwise take the
    # click twice (a character opened its levels, then took the first of them).
    canvas.tag_bind(CLICKABLE, "<Button-1>", clicked)
    for tag in (CLICKABLE, TIPPED):
        canvas.tag_bind(tag, "<Enter>", entered)
        canvas.tag_bind(tag, "<Leave>", left)


@dataclass
class ClickTarget:
    """A drawn piece that offers legal actions (kept so tests can click it like a person)."""

    x: float
    y: float
    action_ids: list[str]
    what: str
    #: The canvas tag of the piece's items (a click on any of them takes its actions).
    tag: str = ""


@dataclass
class Board:
    """The canvas a game screen draws on, the update being shown, and the helpers every screen shares."""

    canvas: tk.Canvas
    width: int
    height: int
    update: table_pb2.Update
    choose: Callable[[list[table_pb2.LegalAction], tk.Event[Any] | None], None]
    targets: list[ClickTarget] = field(default_factory=list)
    #: The actions each clickable group offers, by its tag ("click1", ...).
    click_actions: dict[str, list[table_pb2.LegalAction]] = field(default_factory=dict)
    #: What a group of items is called, shown on hover, by its tag.
    tips: dict[str, str] = field(default_factory=dict)
    #: Where named pieces are drawn (their centres), and which of them may slide from where they were
    #: (the tag of their items, and the piece they come from when they were not drawn before).
    positions: dict[str, tuple[float, float]] = field(default_factory=dict)
    movers: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    #: Where the latest die roll is shown (its top right corner); a game moves it off its own panels.
    die_spot: tuple[float, float] | None = None
    #: The actions of the choice open in the action bar (a wild card's colours, a character's levels): a
    #: game draws them on the board too, at the piece they belong to; empty when nothing is open.
    picking: frozenset[str] = frozenset()
    _next_tag: int = 0

    # --- who is who -------------------------------------------------------------------------------
    @property
    def you(self) -> int | None:
        return self.update.viewer_seat if self.update.HasField("viewer_seat") else None

    def seat_name(self, seat: int) -> str:
        for s in self.update.seats:
            if s.index == seat:
                return safe_text(s.name or _("Seat {number}", number=seat + 1), 18)
        return _("Seat {number}", number=seat + 1)

    def seat_colour(self, seat: int) -> str:
        return SEAT_COLOURS[seat % len(SEAT_COLOURS)]

    def connected(self, seat: int) -> bool:
        for s in self.update.seats:
            if s.index == seat:
                return s.connected or s.kind == table_pb2.SEAT_KIND_BOT
        return False

    # --- legal actions ----------------------------------------------------------------------------
    def actions(self, member: str, kind: str | None = None) -> list[tuple[table_pb2.LegalAction, Any]]:
        """Legal actions of this game whose oneof `kind` is set, with that payload."""
        found = []
        for legal in self.update.legal_actions:
            game_action = getattr(legal.action, member) if legal.action.WhichOneof("game") == member else None
            if game_action is None:
                continue
            which = game_action.WhichOneof("kind")
            if kind is None or which == kind:
                found.append((legal, getattr(game_action, which) if which else None))
        return found

    def clickable(
        self,
        items: Iterable[int],
        actions: list[table_pb2.LegalAction],
        what: str,
        at: tuple[float, float] | None = None,
    ) -> None:
        """Make drawn items offer `actions`: one is taken on click, several open a menu of their labels.
        `at` is a point where the piece is surely visible (default: the middle of its box)."""
        actions = list(actions)
        if not actions:
            return
        self._next_tag += 1
        tag = f"click{self._next_tag}"
        for item in items:
            self.canvas.addtag_withtag(tag, item)
            self.canvas.addtag_withtag(CLICKABLE, item)
        self.click_actions[tag] = actions
        box = self.canvas.bbox(tag)
        if at is None and box:
            at = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
        if at is not None:
            self.targets.append(ClickTarget(at[0], at[1], [a.id for a in actions], what, tag))

    def tip(self, items: Iterable[int], text: str) -> str:
        """Name a piece on hover (a token whose label is only its initials)."""
        self._next_tag += 1
        tag = f"tip{self._next_tag}"
        for item in items:
            self.canvas.addtag_withtag(tag, item)
            self.canvas.addtag_withtag(TIPPED, item)
        self.tips[tag] = text
        return tag

    def moving(self, key: str, items: Iterable[int], origin: str | None = None) -> None:
        """A piece that slides when it is drawn somewhere new (`origin`: the piece it comes from when it
        was not on the board before, such as the seat that played a card)."""
        tag = f"move:{key}"
        for item in items:
            self.canvas.addtag_withtag(tag, item)
        box = self.canvas.bbox(tag)
        if box:
            self.positions[key] = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
            self.movers[key] = (tag, origin)

    def place(self, key: str, x: float, y: float) -> None:
        """Where a piece that others may come from is (a seat's plate)."""
        self.positions[key] = (x, y)

    def picked(self, actions: Iterable[table_pb2.LegalAction]) -> bool:
        """Whether the choice open now is among these actions (they are the piece being chosen for)."""
        ids = {a.id for a in actions}
        return bool(self.picking) and bool(ids) and self.picking <= ids

    # --- drawing helpers --------------------------------------------------------------------------
    def panel(self, x0: float, y0: float, x1: float, y1: float, radius: float, **options: Any) -> int:
        """A rounded panel whose text must stay inside it (tagged "panel" for the layout tests)."""
        options["tags"] = (*options.get("tags", ()), "panel")
        return self.rounded(x0, y0, x1, y1, radius, **options)

    def rounded(self, x0: float, y0: float, x1: float, y1: float, radius: float, **options: Any) -> int:
        """A rounded rectangle (a smoothed polygon)."""
        r = max(1.0, min(radius, (x1 - x0) / 2, (y1 - y0) / 2))
        points = [
            x0 + r, y0, x1 - r, y0, x1, y0, x1, y0 + r, x1, y1 - r, x1, y1,
            x1 - r, y1, x0 + r, y1, x0, y1, x0, y1 - r, x0, y0 + r, x0, y0,
        ]  # fmt: skip
        return int(self.canvas.create_polygon(points, smooth=True, splinesteps=12, **options))

    def text(self, x: float, y: float, text: str, size: int = 11, weight: str = "normal", **options: Any) -> int:
        options.setdefault("fill", "white")
        return int(self.canvas.create_text(x, y, text=text, font=(FONT, size, weight), **options))

    def die(self, x: float, y: float, size: float, value: int, highlight: bool = False) -> list[int]:
        """A die face showing `value` pips (a number when it is not 1-6)."""
        items = []
        if highlight:
            items.append(self.rounded(x - 6, y - 6, x + size + 6, y + size + 6, 14, fill="#ffe14d", outline=""))
        items.append(self.rounded(x, y, x + size, y + size, size / 6, fill="white", outline="#333333", width=2))
        pips = {
            1: [(0.5, 0.5)],
            2: [(0.27, 0.27), (0.73, 0.73)],
            3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
            4: [(0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)],
            5: [(0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)],
            6: [(0.27, 0.25), (0.73, 0.25), (0.27, 0.5), (0.73, 0.5), (0.27, 0.75), (0.73, 0.75)],
        }.get(value)
        if pips is None:
            items.append(self.text(x + size / 2, y + size / 2, str(value), int(size / 2.5), "bold", fill="#222222"))
            return items
        pip = size / 10
        for px, py in pips:
            cx, cy = x + px * size, y + py * size
            items.append(self.canvas.create_oval(cx - pip, cy - pip, cx + pip, cy + pip, fill="#222222", outline=""))
        return items

    def mark(self) -> int:
        """The newest item drawn so far (0 on an empty canvas): `since(mark)` then gives what came after."""
        return max(self.canvas.find_all(), default=0)

    def since(self, mark: int) -> list[int]:
        """Every item drawn after `mark`: a whole piece (a seat's panel and all on it) to make clickable."""
        return [item for item in self.canvas.find_all() if item > mark]

    def stack(self, items: Iterable[int]) -> list[int]:
        """Mark items as part of a pile or fan whose faces the next piece covers on purpose (STACKED)."""
        items = list(items)
        for item in items:
            self.canvas.addtag_withtag(STACKED, item)
        return items

    def token(self, x: float, y: float, radius: float, fill: str, label: str, outline: str = "white") -> list[int]:
        """A round token (a character, a kart) with a short label."""
        canvas = self.canvas
        shadow = canvas.create_oval(x - radius + 2, y - radius + 3, x + radius + 2, y + radius + 3, fill="#222222")
        disc = canvas.create_oval(x - radius, y - radius, x + radius, y + radius, fill=fill, outline=outline, width=2)
        text = self.text(x, y, label, max(7, int(radius * 0.75)), "bold", fill=text_colour_on(fill))
        return [shadow, disc, text]


def view_of(update: table_pb2.Update) -> tuple[str | None, Any]:
    member = update.view.WhichOneof("game")
    return member, (getattr(update.view, member) if member else None)


def raw_view_text(update: table_pb2.Update) -> str:
    """The view as protobuf text, for the fallback screen."""
    view = view_of(update)[1]
    if view is None:
        return _("(this update carries no game view this client knows)")
    return text_format.MessageToString(view, as_utf8=True)[:6000]


def draw_raw(board: Board, note: str) -> None:
    """The fallback screen: a note and the raw view text."""
    board.canvas.delete("all")
    board.canvas.configure(background="#20242c")
    board.text(16, 14, note, 11, "bold", fill="#ffcf4d", anchor="nw")
    board.canvas.create_text(
        16, 40, text=safe_text(raw_view_text(board.update), 6000), anchor="nw", fill="#e6e6e6",
        font=("DejaVu Sans Mono", 9), width=max(200, board.width - 32),
    )  # fmt: skip


def has_unknown_fields(message: Any) -> bool:
    """Whether the message (or a message inside it) carries fields this client's protos do not know."""
    try:
        from google.protobuf import unknown_fields

        if len(unknown_fields.UnknownFieldSet(message)) > 0:
            return True
    except (ImportError, TypeError, AttributeError):  # older protobuf, or not a message
        return False
    for descriptor, value in message.ListFields():
        if descriptor.message_type is None:
            continue
        if descriptor.is_repeated:
            values = value.values() if hasattr(value, "values") and callable(value.values) else value
            if any(hasattr(v, "ListFields") and has_unknown_fields(v) for v in values):
                return True
        elif has_unknown_fields(value):
            return True
    return False


def draw_game(board: Board) -> str:
    """Draw the update's game on the board; returns "" or a note when it fell back to the raw view."""
    member, view = view_of(board.update)
    if member is None:
        draw_raw(board, _("This client does not know this game; here is what the server sent."))
        return "unknown game"
    try:
        module = importlib.import_module(f"{__name__}.{member}")
    except ImportError:
        draw_raw(board, _("No screen for {game} yet; here is the raw view.", game=repr(member)))
        return "no screen"
    if has_unknown_fields(view):
        draw_raw(board, _("The server sent fields this client does not know; here is the raw view."))
        return "unknown fields"
    try:
        module.draw(board, view)
    except Exception:  # a drawing bug must not end the player's game
        log.warning("the %s screen failed; showing the raw view", member, exc_info=True)
        board.targets.clear()
        draw_raw(board, _("This view could not be drawn; here is the raw view."))
        return "drawing failed"
    return ""


def recap_of(previous: table_pb2.Update | None, update: table_pb2.Update) -> tuple[str, list[str]] | None:
    """What a game wants held on screen a moment after this update (the result of a hand or round just
    scored): its module's optional `recap(previous_view, view, events, seat_names)`, the update's events as
    they came (their text in the reader's language, the round's result marked by `round_result`); None when
    it has none or nothing to hold."""
    if previous is None:
        return None
    member, view = view_of(update)
    before_member, before = view_of(previous)
    if member is None or member != before_member:
        return None
    try:
        module = importlib.import_module(f"{__name__}.{member}")
    except ImportError:
        return None
    recap = getattr(module, "recap", None)
    if recap is None:
        return None
    try:
        names = [safe_text(seat.name or _("Player {number}", number=seat.index + 1), 18) for seat in update.seats]
        found = recap(before, view, list(update.events), names)
    except Exception:  # a recap is a nicety: never a reason to fail
        log.warning("the %s recap failed", member, exc_info=True)
        return None
    return found if isinstance(found, tuple) else None


def event_line(event: table_pb2.Event) -> str:
    """An event's text as a recap shows it: plain, and cut to a line."""
    return safe_text(event.text, 120)


def score_lines(before: Iterable[int], after: Iterable[int], names: list[str], per_line: int = 3) -> list[str]:
    """What a hand or round scored, seat by seat ("Bot 1 +91 = 91"), a few seats to a line, for a recap."""
    scored = []
    for seat, (old, new) in enumerate(zip(before, after, strict=False)):
        name = names[seat] if seat < len(names) else _("Player {number}", number=seat + 1)
        scored.append(f"{name} {new - old:+d} = {new}")
    return [" · ".join(scored[i : i + per_line]) for i in range(0, len(scored), per_line)]
