"""The UNO hard bot's reading of its opponents (issue 46): from the views its seat is shown, it learns who drew
instead of playing and on what (`UnoTracker`), and the determinizer then deals those opponents nothing that
was playable then; a card they draw later is unknown again. In real games the reading never contradicts the
real hands of normal bots, and the hints travel to a thinking process with the decision.
"""

from __future__ import annotations

import random
from typing import Any

from uno_support import RED, act, card, play, table

from toadstool.bots import BotLevel, Budget, HardBot, make_bot
from toadstool.games.uno.data import CARD_COLOR, CARD_RANK, PLAYABLE, UnoColor
from toadstool.games.uno.determinize import DETERMINIZER, UnoTracker
from toadstool.games.uno.engine import ENGINE, AcceptPenalty, Draw, Keep
from toadstool.selfplay import play as play_game
from toadstool.server.tables.thinking import ThinkingPool

#: Seat 0's hand, and three opponents' hands without a red card, a 7 or a wild: on a red 7 they must draw.
MINE = ["red 7", "red Draw Two", "blue 3", "blue 4", "green 8", "yellow 9", "blue 6"]
THEIRS = [
    ["blue 1", "blue 2", "green 1", "green 2", "yellow 1", "yellow 2", "blue 5"],
    ["blue 1", "blue 2", "green 1", "green 2", "yellow 1", "yellow 2", "blue 5"],
    ["blue 8", "blue 9", "green 3", "green 4", "yellow 3", "yellow 4", "green 5"],
]


def _start() -> Any:
    hands = [[card(name) for name in MINE]]
    hands += [[card(name, 1 if seat == 1 else 0) for name in names] for seat, names in enumerate(THEIRS)]
    return table(hands, card("red 5"), color=RED, current=0)


def _draw(state: Any, seat: int) -> Any:
    """`seat` draws one card and keeps it (the pile's next card is red, playable on a red card)."""
    state = act(state, seat, Draw())
    if state.current == seat and state.drawn >= 0:
        state = act(state, seat, Keep())
    return state


def _after_three_draws_on_a_red_7() -> tuple[UnoTracker, Any]:
    """Seat 0 plays a red 7 and seats 1-3 each draw instead of playing: seat 0's memory, which has seen the
    view before the play, and the state after the draws."""
    tracker = UnoTracker()
    state = _start()
    tracker.see(ENGINE.view(state, 0))
    state = play(state, 0, "red 7")
    for seat in (1, 2, 3):
        state = _draw(state, seat)
    return tracker, state


def _dealt(view: Any, hints: Any, seat: int, samples: int = 200) -> list[tuple[int, ...]]:
    rng = random.Random(3)
    return [DETERMINIZER.sample(view, rng, hints).hands[seat] for _ in range(samples)]


def test_an_opponent_who_drew_on_a_red_7_is_dealt_no_red_no_7_and_no_wild_until_it_draws_again() -> None:
    tracker, state = _after_three_draws_on_a_red_7()
    view = ENGINE.view(state, 0)
    assert view.current == 0
    tracker.see(view)
    on_red_7 = PLAYABLE[int(RED)][CARD_RANK[card("red 7")]]
    hints = tracker.hints()
    assert hints[0] == ()
    for seat in (1, 2, 3):
        assert hints[seat] == ((on_red_7, 7),)  # the 7 cards held before the draw; the drawn one is unknown
        assert sum(c in on_red_7 for c in state.hands[seat]) <= 1  # the inference holds of the real hands
    for hand in _dealt(view, hints, 1):
        assert len(hand) == 8
        assert sum(c in on_red_7 for c in hand) <= 1
    # Without the memory the same view deals them red cards, 7s and wilds as often as chance has it.
    assert max(sum(c in on_red_7 for c in hand) for hand in _dealt(view, None, 1)) >= 3

    # Seat 1 takes a Draw Two: two unknown cards more, so up to three of its cards may now be playable ones;
    # the two others drew on the Draw Two and hold nothing playable on it.
    state = play(state, 0, "red Draw Two")
    state = act(state, 1, AcceptPenalty())
    for seat in (2, 3):
        state = _draw(state, seat)
    view = ENGINE.view(state, 0)
    tracker.see(view)
    hints = tracker.hints()
    assert hints[1] == ((on_red_7, 7),)
    on_red_draw_two = PLAYABLE[int(RED)][CARD_RANK[card("red Draw Two")]]
    for seat in (2, 3):
        assert hints[seat] == ((on_red_7 | on_red_draw_two, 7), (on_red_draw_two, 1))
    held = [sum(c in on_red_7 for c in hand) for hand in _dealt(view, hints, 1)]
    assert max(held) == 3  # the constraint lapsed for the cards drawn since
    assert min(held) == 0

    # A new hand forgets everything.
    tracker.see(ENGINE.view(state._replace(hand_number=state.hand_number + 1), 0))
    assert tracker.hints() == ((), (), (), ())


def test_the_same_view_twice_teaches_nothing_new() -> None:
    tracker, state = _after_three_draws_on_a_red_7()
    view = ENGINE.view(state, 0)
    tracker.see(view)
    first = tracker.hints()
    tracker.see(view)
    assert tracker.hints() == first


def test_in_real_games_the_reading_never_contradicts_the_normal_bots_hands() -> None:
    """A hard bot (a few searches a move) against three normal bots: at each view it is shown, every group of
    an opponent's cards it says avoids some cards has that many such cards in the real hand."""
    groups = 0
    for seed in range(3):
        bot = make_bot("uno", BotLevel.HARD, Budget(ms=None, iterations=4))
        assert isinstance(bot, HardBot)
        bots = [bot] + [make_bot("uno", BotLevel.NORMAL) for _ in range(3)]
        now: dict[str, Any] = {}
        seen = bot.remember

        def remember(view: Any, seen: Any = seen, now: dict[str, Any] = now) -> Any:
            hints = seen(view)
            nonlocal groups
            for seat, seat_groups in enumerate(hints):
                for excluded, size in seat_groups:
                    groups += 1
                    assert sum(c not in excluded for c in now["state"].hands[seat]) >= size
            return hints

        bot.remember = remember  # type: ignore[method-assign]
        play_game(ENGINE, bots, seed, {"target": 200}, observe=lambda state, _s, _a, now=now: now.update(state=state))
    assert groups > 20, "the bot read too little to test"


def test_the_hints_travel_to_a_thinking_process_and_decide_as_in_the_bots_own_process() -> None:
    state = _start()
    bot = make_bot("uno", BotLevel.HARD, Budget(ms=None, iterations=60))
    assert isinstance(bot, HardBot)
    bot.remember(ENGINE.view(state, 0))
    state = play(state, 0, "red 7")
    for seat in (1, 2, 3):
        state = _draw(state, seat)
    view = ENGINE.view(state, 0)
    legal = ENGINE.legal_actions(state, 0)
    pool = ThinkingPool(1)
    try:
        chosen = pool.choose("uno", bot, view, legal, True, random.Random(11))
        assert pool.pids(), "the decision was thought in a worker"
    finally:
        pool.close()
    hints = bot.remember(view)  # the same view again: the memory does not change
    assert any(hints[1:])
    alone = make_bot("uno", BotLevel.HARD, Budget(ms=None, iterations=60))
    assert isinstance(alone, HardBot)
    seed = random.Random(11).getrandbits(64)
    assert chosen == alone.decide(view, legal, True, random.Random(seed), hints)
    assert chosen in legal
    assert view.color == UnoColor.RED


def test_a_wild_played_from_the_hand_tells_that_no_coloured_card_fitted() -> None:
    """Seat 1 draws on seat 0's red 7, seat 2 plays a Wild on it (naming red), seat 3 draws on the Wild: seat 2
    held no red and no 7, seat 3 nothing playable on a red Wild."""
    tracker = UnoTracker()
    hands = [[card(name) for name in MINE]]
    hands += [[card(name, 1 if seat == 1 else 0) for name in names] for seat, names in enumerate(THEIRS)]
    hands[2][-1] = card("Wild")
    state = table(hands, card("red 5"), color=RED, current=0)
    tracker.see(ENGINE.view(state, 0))
    state = play(state, 0, "red 7")
    state = _draw(state, 1)
    state = play(state, 2, "Wild", RED)
    state = _draw(state, 3)
    view = ENGINE.view(state, 0)
    tracker.see(view)
    on_red_7 = PLAYABLE[int(RED)][CARD_RANK[card("red 7")]]
    hints = tracker.hints()
    assert hints[1] == ((on_red_7, 7),)
    assert hints[2] == ((frozenset(c for c in on_red_7 if CARD_COLOR[c] != 0), 6),)
    assert hints[3] == ((PLAYABLE[int(RED)][CARD_RANK[card("Wild")]], 7),)
    for seat in (1, 2, 3):
        for excluded, size in hints[seat]:
            assert sum(c not in excluded for c in state.hands[seat]) >= size
