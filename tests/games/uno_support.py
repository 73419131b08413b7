"""Helpers for the UNO tests: name cards, build a table in a chosen situation, act and read events."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from toadstool.engine import event_text, name_seats, parse_options
from toadstool.games.uno import engine as uno
from toadstool.games.uno.data import ALL_CARDS, CARD_COLOR, CARD_NAMES, UnoColor
from toadstool.games.uno.engine import ENGINE, PlayCard, UnoState

RED, YELLOW, GREEN, BLUE = UnoColor.RED, UnoColor.YELLOW, UnoColor.GREEN, UnoColor.BLUE


def card(name: str, copy: int = 0) -> int:
    """The id of the `copy`-th physical card called `name` ("red 5", "blue Skip", "Super Star")."""
    ids = [c for c in ALL_CARDS if CARD_NAMES[c] == name]
    return ids[copy]


def table(
    hands: Sequence[Iterable[int]],
    top: int,
    *,
    color: UnoColor | None = None,
    current: int = 0,
    direction: int = 1,
    pile: Sequence[int] | None = None,
    under: Sequence[int] = (),
    dealer: int | None = None,
    options: dict[str, str] | None = None,
    scores: Sequence[int] | None = None,
) -> UnoState:
    """A state in the PLAY stage with exactly these hands and top card. Unless `pile` is given, every other
    card forms the draw pile, ordered so that the next card drawn is the lowest id left (red 0, red 1, ...)."""
    n = len(hands)
    base = ENGINE.new(n, parse_options(ENGINE.options, options or {}), 0)
    hand_tuples = tuple(tuple(h) for h in hands)
    used = {c for h in hand_tuples for c in h} | {top, *under}
    if pile is None:
        pile = [c for c in reversed(ALL_CARDS) if c not in used]
    return base._replace(
        hands=hand_tuples,
        draw_pile=tuple(pile),
        discard=(*under, top),
        color=int(color if color is not None else CARD_COLOR[top]),
        direction=direction,
        current=current,
        stage=uno.PLAY,
        attack=None,
        drawn=-1,
        catchable=-1,
        reveal=None,
        revealed=None,
        dealer=dealer if dealer is not None else (current - direction) % n,
        scores=tuple(scores) if scores is not None else (0,) * n,
        events=(),
    )


def play(state: UnoState, seat: int, name_or_id: str | int, color: UnoColor | None = None, uno_flag: bool = False):
    """Apply a PlayCard, checking it is legal first."""
    cid = card(name_or_id) if isinstance(name_or_id, str) else name_or_id
    action = PlayCard(cid, UnoColor(color if color is not None else CARD_COLOR[cid]), uno_flag)
    return act(state, seat, action)


def act(state: UnoState, seat: int, action: Any) -> UnoState:
    """Apply `action` for `seat` after checking it is legal (as the table does)."""
    legal = ENGINE.legal_actions(state, seat)
    assert action in legal, f"{action} is not legal for seat {seat}: {legal}"
    return ENGINE.apply(state, seat, action)


def texts(state: UnoState, viewer: int | None) -> list[str]:
    """The last events as `viewer` reads them, with seats named Player 1, Player 2, ..."""
    return [name_seats(event_text(e, viewer), ()) for e in ENGINE.last_events(state)]


def count_cards(state: UnoState) -> int:
    return sum(len(h) for h in state.hands) + len(state.draw_pile) + len(state.discard)
