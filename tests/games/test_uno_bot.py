"""The sensible UNO bot: its habits, and that it beats RandomBot by a clear margin."""

from __future__ import annotations

import random

from uno_support import BLUE, GREEN, RED, act, card, play, table

from toadstool.games.uno.bot import UnoBot
from toadstool.games.uno.engine import ENGINE, AcceptPenalty, CallUno, Catch, Challenge, Draw, PlayCard
from toadstool.selfplay import selfplay_summary


def _choose(state, seat: int, must_act: bool = True):  # type: ignore[no-untyped-def]
    return UnoBot().choose(ENGINE.view(state, seat), ENGINE.legal_actions(state, seat), must_act, random.Random(0))


def test_the_bot_beats_random_bots_clearly_head_to_head() -> None:
    summary = selfplay_summary("uno", games=100, seed=2000, players=2, smart_seats=(0,))
    assert summary["wins_by_seat"][0] >= 90  # fair share: 50


def test_the_bot_beats_random_bots_clearly_at_a_four_player_table() -> None:
    summary = selfplay_summary("uno", games=100, seed=3000, players=4, smart_seats=(0,))
    assert summary["wins_by_seat"][0] >= 70  # fair share: 25


def test_the_bot_calls_uno_with_its_next_to_last_card() -> None:
    state = table([[card("red 1"), card("blue 2")], [card("blue 9")]], card("red 5"))
    assert _choose(state, 0) == PlayCard(card("red 1"), RED, True)


def test_the_bot_catches_a_player_who_forgot_uno_even_out_of_turn() -> None:
    hands = [[card("red 1"), card("red 2")], [card("blue 9")], [card("green 8")]]
    state = play(table(hands, card("red 5")), 0, "red 1")
    assert _choose(state, 2, must_act=False) == Catch(0)
    assert _choose(state, 0, must_act=False) == CallUno()


def test_the_bot_lets_an_optional_window_pass_when_it_has_nothing_to_catch() -> None:
    state = table([[card("red 1"), card("red 2"), card("red 3")], [card("blue 9")]], card("red 5"))
    assert _choose(state, 1, must_act=False) is None


def test_the_bot_answers_a_draw_two_with_a_super_star_in_the_colour_it_holds_most() -> None:
    hands = [
        [card("red Draw Two"), card("red 1"), card("red 2")],
        [card("Super Star"), card("blue 9"), card("blue 8"), card("green 1")],
    ]
    state = play(table(hands, card("red 5")), 0, "red Draw Two")
    assert _choose(state, 1) == PlayCard(card("Super Star"), BLUE, False)


def test_the_bot_challenges_a_wild_draw_four_from_a_big_hand_and_accepts_from_a_small_one() -> None:
    big = [card("Wild Draw Four"), *(card(f"green {k}") for k in range(1, 6))]
    state = play(table([big, [card("blue 9")]], card("red 5")), 0, "Wild Draw Four", GREEN)
    assert _choose(state, 1) == Challenge()
    small = [card("Wild Draw Four"), card("green 1"), card("green 2")]
    state = play(table([small, [card("blue 9")]], card("red 5")), 0, "Wild Draw Four", GREEN)
    assert _choose(state, 1) == AcceptPenalty()


def test_the_bot_keeps_wilds_and_dumps_high_value_cards_first() -> None:
    hand = [card("Wild"), card("red 1"), card("red 9"), card("red Skip"), card("blue 3")]
    state = table([hand, [card("blue 9")] * 1], card("red 5"))
    assert _choose(state, 0) == PlayCard(card("red Skip"), RED, False)
    only_wild = table([[card("Wild"), card("blue 3"), card("blue 4")], [card("blue 9")]], card("red 5"))
    assert _choose(only_wild, 0) == PlayCard(card("Wild"), BLUE, False)


def test_the_bot_draws_when_it_cannot_play() -> None:
    state = table([[card("blue 3"), card("blue 4")], [card("blue 9")]], card("red 5"))
    assert _choose(state, 0) == Draw()
    state = act(state, 0, Draw())
    assert _choose(state, 0) == PlayCard(card("red 0"), RED, False)  # the drawn red 0 is playable
