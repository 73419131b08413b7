"""Scenario tests for the Power Up Card Game: one test per rule of docs/rules/powerup.md, each quoting
the ruling it checks in the words of the rulings the engine was written from.

Deals are constructed with `powerup_helpers.game` (deal[i] goes to the i-th seat from the dealer's left,
the dealer last; seat 0 deals first).
"""

from __future__ import annotations

import dataclasses
from collections import Counter

from powerup_helpers import ENGINE, L, act, castle, game, q, set_hands, set_tokens, texts, view

from toadstool.games.powerup.data import (
    LEVEL_CARDS,
    QUESTION_CARD_KIND,
    QUESTION_CARD_TYPES,
    CardKind,
)
from toadstool.games.powerup.engine import PowerUpState, new_game
from toadstool.games.powerup.views import AcceptSwap, DrawNewLevel, Keep, Pass, PlayCard, Stage, Trade

K = CardKind


def keep_all_until_modify(state: PowerUpState) -> PowerUpState:
    """Every remaining player keeps (accepting nothing: no trade is aimed) until the modify phase."""
    while state.stage is Stage.KEEP_OR_TRADE:
        state = act(state, state.turn, Keep())
    return state


def pass_round(state: PowerUpState) -> PowerUpState:
    """Every seat passes until the modify phase ends."""
    start = state.round_no
    while state.stage is Stage.MODIFY and state.round_no == start:
        state = act(state, state.turn, Pass())
    return state


# Components -----------------------------------------------------------------------------------------


def test_level_deck_has_values_1_to_12_in_four_suits_and_four_castles() -> None:
    """ "Level deck (pub): 52 cards. Values 1-12 in four suits (suits have no effect) = 48, plus 4 Castle cards." """
    assert len(LEVEL_CARDS) == 52
    assert len({c.id for c in LEVEL_CARDS}) == 52
    assert sum(c.castle for c in LEVEL_CARDS) == 4
    values = Counter(c.value for c in LEVEL_CARDS if not c.castle)
    assert values == dict.fromkeys(range(1, 13), 4)


def test_question_deck_has_the_thirty_cards_of_the_rulings_table() -> None:
    """ "? deck: 30 cards." with the counts of the table."""
    expected = {
        K.SUPER_STAR: 2,
        K.KOOPA_TROOPA: 4,
        K.BOWSER: 1,
        K.FIRE_FLOWER: 3,
        K.SUPER_MUSHROOM: 4,
        K.GOOMBA: 3,
        K.GREEN_SHELL: 2,
        K.RED_SHELL: 1,
        K.HAMMER_BROS: 2,
        K.BOO: 2,
        K.WARP_PIPE: 2,
        K.VINE: 1,
        K.ONE_UP_MUSHROOM: 2,
        K.BULLET_BILL: 1,
    }
    assert Counter(QUESTION_CARD_KIND) == expected
    assert len(QUESTION_CARD_KIND) == 30
    assert len({t.name for t in QUESTION_CARD_TYPES}) == 14


def test_setup_gives_four_tokens_and_one_question_card_each_and_seat_0_deals() -> None:
    """ "each player gets 4 tokens and one ? card. The first dealer is seat 0"; the rest of 50 is the supply."""
    state = new_game(5, seed=3)
    assert state.tokens == (4,) * 5
    assert state.supply == 30
    assert state.dealer == 0
    assert state.round_no == 1
    assert all(state.level[s] >= 0 for s in range(5))
    assert sum(len(h) for h in state.hands) == 5 + sum(1 for c in state.level if LEVEL_CARDS[c].castle)
    assert view(state, 2).scores == (4,) * 5


# Deal -----------------------------------------------------------------------------------------------


def test_each_player_sees_only_their_own_face_down_level_card() -> None:
    """ "Deal: one Level card face down to each active player; each sees only their own." """
    state = game(3, [L(5), L(7), L(9)], setup=[q(K.GOOMBA), q(K.GOOMBA, 1), q(K.GOOMBA, 2)])
    for viewer in range(3):
        seen = view(state, viewer)
        for seat in range(3):
            level = seen.seats[seat].level
            assert (level is not None) == (seat == viewer)
    assert all(seat.level is None for seat in view(state, None).seats)
    assert texts(state, 1)[-1] == "Round 1: you are dealt a 5."
    assert "5" not in texts(state, None)[-1]


def test_a_dealt_castle_is_revealed_at_once_and_draws_one_question_card() -> None:
    """ "A Castle that reaches a player at any time in a round ... is revealed at once and gives one ? card" """
    state = game(
        4,
        [L(5), castle(), L(7), L(9)],
        setup=[q(K.GOOMBA), q(K.GOOMBA, 1), q(K.GOOMBA, 2), q(K.KOOPA_TROOPA)],
        more_questions=[q(K.SUPER_STAR)],
    )
    for viewer in (None, 0, 1, 3):
        seat2 = view(state, viewer).seats[2]
        assert seat2.castle
        assert seat2.face_up
        assert seat2.level is not None
        assert seat2.level.castle
    assert state.hands[2] == (q(K.GOOMBA, 2), q(K.SUPER_STAR))
    assert "You draw Super Star." in texts(state, 2)
    assert "Super Star" not in " ".join(texts(state, 1))


def test_the_castle_question_card_is_drawn_once_not_again_at_the_reveal() -> None:
    """docs/rules/powerup.md §2: "once per Castle per round (the rulebook's mention of a draw at the reveal is this
    same draw)" """
    state = game(3, [castle(), L(7), L(9)], setup=[q(K.GOOMBA), q(K.GOOMBA, 1), q(K.GOOMBA, 2)])
    assert len(state.hands[1]) == 2
    state = keep_all_until_modify(state)
    assert len(state.hands[1]) == 2


def test_a_castle_holder_always_keeps() -> None:
    """ "A Castle holder always keeps (cannot trade, Warp Pipe or Vine the Castle away)." """
    state = game(3, [castle(), L(7), L(9)], setup=[q(K.GOOMBA), q(K.WARP_PIPE), q(K.GOOMBA, 1)])
    state = set_hands(state, {1: (q(K.WARP_PIPE), q(K.VINE))})
    assert ENGINE.to_act(state) == (1,)
    assert tuple(ENGINE.legal_actions(state, 1)) == (Keep(),)


def test_a_castle_holder_cannot_be_targeted_by_question_cards() -> None:
    """ "immunity: its holder cannot be targeted by ? cards": modifiers, Bowser, shells, Boo, Warp Pipe."""
    state = game(3, [L(3), castle(), L(9)], setup=[q(K.GOOMBA), q(K.GOOMBA, 1), q(K.GOOMBA, 2)])
    state = set_hands(
        state,
        {1: (q(K.BOO), q(K.WARP_PIPE), q(K.GREEN_SHELL), q(K.RED_SHELL), q(K.KOOPA_TROOPA), q(K.BOWSER))},
    )
    targets = {a.target for a in ENGINE.legal_actions(state, 1) if isinstance(a, PlayCard)}
    assert 2 not in targets
    state = keep_all_until_modify(state)
    targets = {a.target for a in ENGINE.legal_actions(state, 1) if isinstance(a, PlayCard)}
    assert 2 not in targets
    assert targets  # the other seats are targets


def test_a_castle_holder_cannot_lose_a_token_and_is_left_out_of_the_comparison() -> None:
    """ "Castle cards have no value and are left out of the comparison" """
    state = game(3, [L(3), castle(), L(9)], setup=[q(K.GOOMBA), q(K.GOOMBA, 1), q(K.GOOMBA, 2)])
    state = pass_round(keep_all_until_modify(state))
    assert state.tokens == (4, 3, 4)


def test_if_every_player_holds_a_castle_nobody_loses() -> None:
    """ "(if all hold Castles, nobody loses)" """
    state = game(2, [castle(0), castle(1)], setup=[q(K.GOOMBA), q(K.GOOMBA, 1)])
    state = pass_round(keep_all_until_modify(state))
    assert state.tokens == (4, 4)
    assert "nobody loses" in " ".join(texts(state, None))


# Keep or trade ---------------------------------------------------------------------------------------


def test_keep_or_trade_goes_from_the_dealers_left_with_the_dealer_last() -> None:
    """ "Keep or trade, in order from the dealer's left, each active player once ... The dealer acts last" """
    state = game(4, [L(9), L(9, 1), L(9, 2), L(9, 3)])
    order = []
    while state.stage is Stage.KEEP_OR_TRADE:
        (seat,) = ENGINE.to_act(state)
        order.append(seat)
        state = act(state, seat, Keep())
    assert order == [1, 2, 3, 0]


def test_a_trade_swaps_with_the_next_player_to_the_left_who_cannot_refuse() -> None:
    """ "keep, or trade with the next active player to the left (who cannot refuse, but can answer with
    Hammer Bros.)" and "both parties learn the card they receive" """
    state = game(4, [L(2), L(8), L(5), L(9)])
    state = set_hands(state, {2: ()})
    assert Trade(2) in ENGINE.legal_actions(state, 1)
    assert not any(isinstance(a, Trade) and a.target != 2 for a in ENGINE.legal_actions(state, 1))
    state = act(state, 1, Trade(2))
    assert state.level[1] == L(8)
    assert state.level[2] == L(2)
    assert texts(state, 1) == ["You give {p2} a 2 and receive an 8."]
    assert texts(state, 2) == ["{p1} gives you a 2 for your 8."]
    assert texts(state, 3) == ["{p1} trades Level cards with {p2}."]
    assert view(state, 1).seats[2].level is not None  # seat 1 knows where its 2 went
    assert view(state, 3).seats[1].level is None
    assert view(state, 3).seats[2].level is None


def test_a_traded_with_player_still_decides_afterwards() -> None:
    """ "A player who was traded with still makes their own decision afterwards." """
    state = game(4, [L(2), L(8), L(5), L(9)])
    state = set_hands(state, {2: ()})
    state = act(state, 1, Trade(2))
    assert ENGINE.to_act(state) == (2,)
    assert Trade(3) in ENGINE.legal_actions(state, 2)


def test_a_trade_target_holding_a_question_card_is_asked_and_may_answer_with_hammer_bros() -> None:
    """ "(who cannot refuse, but can answer with Hammer Bros.)": the answer waits for the seat; Hammer Bros.
    cancels the trade, "the other player keeps their card"."""
    state = game(4, [L(2), L(8), L(5), L(9)])
    state = set_hands(state, {2: (q(K.HAMMER_BROS),)})
    state = act(state, 1, Trade(2))
    assert state.stage is Stage.ANSWER
    assert ENGINE.to_act(state) == (2,)
    assert set(ENGINE.legal_actions(state, 2)) == {AcceptSwap(), PlayCard(K.HAMMER_BROS)}
    state = act(state, 2, PlayCard(K.HAMMER_BROS))
    assert state.level[1] == L(2)
    assert state.level[2] == L(8)
    assert state.decided[1]
    assert ENGINE.to_act(state) == (2,)  # the trader's decision is used up; the target decides next
    assert state.hands[2] == ()


def test_a_trade_target_without_hammer_bros_is_still_asked_so_waiting_reveals_nothing() -> None:
    """The target is waited for whenever it holds any ? card ("Everything else waits for the seat"); its only
    answer is to accept."""
    state = game(4, [L(2), L(8), L(5), L(9)])
    state = set_hands(state, {2: (q(K.GOOMBA),)})
    state = act(state, 1, Trade(2))
    assert ENGINE.to_act(state) == (2,)
    assert tuple(ENGINE.legal_actions(state, 2)) == (AcceptSwap(),)
    state = act(state, 2, AcceptSwap())
    assert state.level[1] == L(8)
    assert ENGINE.to_act(state) == (2,)


def test_no_trading_into_a_castle_holder() -> None:
    """ "No trading into a Castle holder." """
    state = game(4, [L(2), castle(), L(5), L(9)])
    assert not any(isinstance(a, Trade) for a in ENGINE.legal_actions(state, 1))
    assert Keep() in ENGINE.legal_actions(state, 1)


def test_boo_is_played_before_the_decision_and_shows_only_its_player_the_card() -> None:
    """ "Boo: look at any player's face-down Level card (only you see it)"; "Boo is played before your decision
    and does not use it up" """
    state = game(4, [L(2), L(8), L(5), L(9)])
    state = set_hands(state, {1: (q(K.BOO),), 2: ()})
    state = act(state, 1, PlayCard(K.BOO, 3))
    assert ENGINE.to_act(state) == (1,)
    assert Keep() in ENGINE.legal_actions(state, 1)
    seen = view(state, 1)
    assert seen.seats[3].level is not None
    assert seen.seats[3].level.value == 5
    assert [(p.seat, p.card.value) for p in seen.peeks] == [(3, 5)]
    assert view(state, 2).seats[3].level is None
    assert view(state, 2).peeks == ()
    assert texts(state, 1) == ["Boo shows you {p3}'s Level card: a 5."]
    assert texts(state, 2) == ["{p1} plays Boo and looks at {p3}'s Level card."]


def test_warp_pipe_is_a_decision_that_swaps_with_any_non_castle_player() -> None:
    """ "Warp Pipe: swap your Level card with any non-Castle player's", "as your decision"; "Warp Pipe and
    trades: both parties learn the card they receive." """
    state = game(4, [L(2), L(8), L(5), L(9)])
    state = set_hands(state, {1: (q(K.WARP_PIPE),), 3: ()})
    assert {a.target for a in ENGINE.legal_actions(state, 1) if isinstance(a, PlayCard)} == {0, 2, 3}
    state = act(state, 1, PlayCard(K.WARP_PIPE, 3))
    assert state.level[1] == L(5)
    assert state.level[3] == L(2)
    assert state.decided[1]
    assert ENGINE.to_act(state) == (2,)
    assert view(state, 3).seats[3].level is not None
    assert view(state, 3).seats[3].level.value == 2
    assert view(state, 2).seats[1].level is None


def test_hammer_bros_cancels_a_warp_pipe_aimed_at_you() -> None:
    """ "Hammer Bros.: cancel a trade or a Warp Pipe aimed at you (the other player keeps their card)" """
    state = game(4, [L(2), L(8), L(5), L(9)])
    state = set_hands(state, {1: (q(K.WARP_PIPE),), 3: (q(K.HAMMER_BROS),)})
    state = act(state, 1, PlayCard(K.WARP_PIPE, 3))
    assert ENGINE.to_act(state) == (3,)
    state = act(state, 3, PlayCard(K.HAMMER_BROS))
    assert state.level[1] == L(2)
    assert state.level[3] == L(5)
    assert ENGINE.to_act(state) == (2,)


def test_vine_discards_your_level_card_and_takes_the_top_of_the_deck() -> None:
    """ "Vine: discard your Level card and take the top of the Level deck" (as your decision)."""
    state = game(3, [L(2), L(8), L(9)], more_levels=[L(11)])
    state = set_hands(state, {1: (q(K.VINE),)})
    state = act(state, 1, PlayCard(K.VINE))
    assert state.level[1] == L(11)
    assert L(2) in state.level_discard
    assert ENGINE.to_act(state) == (2,)
    assert texts(state, 1) == ["You play Vine: you discard a 2 and take an 11."]
    assert "11" not in texts(state, 2)[0]


def test_a_castle_taken_with_vine_is_revealed_and_draws_a_question_card() -> None:
    """ "A Castle that reaches a player at any time in a round (the deal, the dealer's draw, a Vine)" """
    state = game(3, [L(2), L(8), L(9)], more_levels=[castle(2)])
    state = set_hands(state, {1: (q(K.VINE),)})
    state = act(state, 1, PlayCard(K.VINE))
    assert view(state, 2).seats[1].castle
    assert len(state.hands[1]) == 1


def test_the_dealer_reveals_then_keeps_or_discards_and_draws_and_reveals() -> None:
    """ "The dealer acts last: reveals their card, then keeps it or discards it and draws and reveals the top
    Level card." """
    state = game(3, [L(6), L(8), L(4)], more_levels=[L(3)])
    state = act(act(state, 1, Keep()), 2, Keep())
    assert ENGINE.to_act(state) == (0,)
    assert view(state, 1).seats[0].face_up
    assert view(state, 1).seats[0].level is not None
    legal = ENGINE.legal_actions(state, 0)
    assert Keep() in legal
    assert DrawNewLevel() in legal
    assert not any(isinstance(a, Trade) for a in legal)
    state = act(state, 0, DrawNewLevel())
    assert state.level[0] == L(3)
    assert "{p0} discards a 4 and draws a 3." in texts(state, None)
    assert state.stage is Stage.MODIFY


def test_a_dealer_drawing_a_castle_gets_a_question_card() -> None:
    state = game(3, [L(6), L(8), L(4)], more_levels=[castle(3)])
    state = act(act(state, 1, Keep()), 2, Keep())
    before = len(state.hands[0])
    state = act(state, 0, DrawNewLevel())
    assert len(state.hands[0]) == before + 1
    assert view(state, 1).seats[0].castle


# Reveal -----------------------------------------------------------------------------------------------


def test_matching_values_draw_in_seat_order_from_the_dealers_left_and_castles_never_match() -> None:
    """ "Every player whose printed value equals another player's printed value draws one ? card (Castles never
    match). Cards are drawn one at a time in seat order from the dealer's left" """
    state = game(
        5,
        [L(8), castle(0), castle(1), L(8, 1), L(3)],
        setup=[q(K.GOOMBA), q(K.GOOMBA, 1), q(K.GOOMBA, 2), q(K.KOOPA_TROOPA), q(K.KOOPA_TROOPA, 1)],
        more_questions=[q(K.FIRE_FLOWER), q(K.FIRE_FLOWER, 1), q(K.SUPER_STAR), q(K.BOWSER)],
    )
    state = keep_all_until_modify(state)
    assert state.hands[1] == (q(K.GOOMBA, 1), q(K.SUPER_STAR))
    assert state.hands[4] == (q(K.KOOPA_TROOPA, 1), q(K.BOWSER))
    assert len(state.hands[2]) == 2
    assert len(state.hands[3]) == 2
    assert state.hands[0] == (q(K.GOOMBA),)


def test_a_draw_from_an_empty_deck_and_discard_gives_nothing() -> None:
    """ "if a deck and its discard pile are both empty, a draw from it gives nothing." """
    state = game(3, [L(8), L(8, 1), L(3)])
    state = dataclasses.replace(state, q_deck=(), q_discard=())
    hands = state.hands
    state = keep_all_until_modify(state)
    assert state.hands == hands
    assert "{p1} would draw a ? card, but none is left." in texts(state, None)


# Modify -----------------------------------------------------------------------------------------------


def test_modify_goes_from_the_dealers_left_and_ends_when_every_seat_passed_in_a_row() -> None:
    """ "each player in turn plays one ? card or passes; the phase ends only when every active seat has passed
    in a row with no card played by anyone in between" """
    state = game(3, [L(8), L(5), L(3)], setup=[q(K.GOOMBA), q(K.GOOMBA, 1), q(K.GOOMBA, 2)])
    state = keep_all_until_modify(state)
    assert ENGINE.to_act(state) == (1,)
    state = act(state, 1, Pass())
    state = act(state, 2, PlayCard(K.GOOMBA, 1))  # a card: the count starts again
    assert state.passes == 0
    for seat in (0, 1, 2):
        assert state.stage is Stage.MODIFY
        state = act(state, seat, Pass())
    assert state.round_no == 2  # scored: seat 0's 3 is lowest
    assert state.tokens == (3, 4, 4)


def test_an_any_time_card_out_of_turn_restarts_the_count_and_ends_no_turn() -> None:
    """ "an any-time card played out of turn restarts the count"; "they do not end anyone's turn" """
    state = game(3, [L(8), L(5), L(3)], setup=[q(K.GOOMBA), q(K.ONE_UP_MUSHROOM), q(K.GOOMBA, 2)])
    state = keep_all_until_modify(state)
    state = act(act(state, 1, Pass()), 2, Pass())
    assert ENGINE.to_act(state) == (0,)
    assert PlayCard(K.ONE_UP_MUSHROOM) in ENGINE.legal_actions(state, 1)  # optional, out of turn
    state = act(state, 1, PlayCard(K.ONE_UP_MUSHROOM))
    assert state.passes == 0
    assert ENGINE.to_act(state) == (0,)
    assert state.tokens[1] == 5
    state = act(act(state, 0, Pass()), 1, Pass())
    assert state.stage is Stage.MODIFY  # only two passes since the 1-Up
    state = act(state, 2, Pass())
    assert state.round_no == 2


def test_only_the_most_recent_modifier_counts() -> None:
    """ "Only the most recent modifier on a Level card counts: its value is the printed value plus that
    modifier" """
    state = game(3, [L(8), L(5), L(4)], setup=[q(K.GOOMBA), q(K.KOOPA_TROOPA), q(K.SUPER_MUSHROOM)])
    state = keep_all_until_modify(state)
    state = act(state, 1, PlayCard(K.KOOPA_TROOPA, 2))
    assert view(state, 0).seats[2].value == 3
    state = act(state, 2, PlayCard(K.SUPER_MUSHROOM, 2))
    assert view(state, 0).seats[2].value == 6  # 5 + 1: the Koopa no longer applies
    modifier = view(state, 0).seats[2].modifier
    assert modifier is not None
    assert modifier.kind == K.SUPER_MUSHROOM


def test_bowser_sets_a_level_to_zero_and_values_may_go_below_zero() -> None:
    """ "(Bowser: 0). Values may go below 0." """
    state = game(3, [L(12), L(1), L(6)], setup=[q(K.KOOPA_TROOPA), q(K.BOWSER), q(K.GOOMBA)])
    state = keep_all_until_modify(state)
    assert PlayCard(K.BOWSER, 1) not in ENGINE.legal_actions(state, 1)  # any OTHER player's Level
    state = act(state, 1, PlayCard(K.BOWSER, 0))
    assert view(state, 2).seats[0].value == 0
    state = act(state, 2, PlayCard(K.GOOMBA, 1))
    state = act(state, 0, PlayCard(K.KOOPA_TROOPA, 2))
    assert view(state, 2).seats[1].value == 11
    assert view(state, 2).seats[2].value == -1
    state = pass_round(state)
    assert state.tokens == (4, 4, 3)


def test_super_mushroom_only_on_your_own_level() -> None:
    state = game(3, [L(8), L(5), L(4)], setup=[q(K.GOOMBA), q(K.SUPER_MUSHROOM), q(K.GOOMBA, 1)])
    state = keep_all_until_modify(state)
    mushrooms = [a for a in ENGINE.legal_actions(state, 1) if isinstance(a, PlayCard) and a.card == K.SUPER_MUSHROOM]
    assert mushrooms == [PlayCard(K.SUPER_MUSHROOM, 1)]


# Score and elimination ----------------------------------------------------------------------------------


def test_every_player_with_the_lowest_value_loses_a_token() -> None:
    """ "among active players without a Castle, every player with the lowest value loses one token" """
    state = game(3, [L(3), L(3, 1), L(7)], setup=[q(K.GOOMBA), q(K.GOOMBA, 1), q(K.GOOMBA, 2)])
    state = pass_round(keep_all_until_modify(state))
    assert state.tokens == (4, 3, 3)
    assert state.supply == 50 - 10


def test_bullet_bill_to_zero_stays_in_the_round_and_is_out_at_scoring() -> None:
    """ "A player brought to 0 tokens during a round (Bullet Bill) stays in that round (their card is compared;
    they may still play any-time cards) and is out at this step." """
    state = game(3, [L(3), L(9), L(7)], setup=[q(K.GOOMBA), q(K.BULLET_BILL), q(K.GOOMBA, 1)])
    state = set_tokens(state, (4, 4, 1))
    state = keep_all_until_modify(state)
    state = act(state, 1, PlayCard(K.BULLET_BILL, 2))
    assert state.tokens == (4, 4, 0)
    assert state.in_round[2]
    assert ENGINE.to_act(state) == (2,)  # still takes its modify turn
    state = pass_round(state)
    assert state.tokens == (4, 3, 0)  # seat 1 (3) was lowest; seat 2 is out anyway
    assert not state.alive[2]
    assert not state.in_round[2]
    assert state.hands[2] == ()


def test_a_1up_saves_a_player_brought_to_zero_by_bullet_bill() -> None:
    state = game(3, [L(3), L(9), L(7)], setup=[q(K.GOOMBA), q(K.BULLET_BILL), q(K.ONE_UP_MUSHROOM)])
    state = set_tokens(state, (4, 4, 1))
    state = keep_all_until_modify(state)
    state = act(state, 1, PlayCard(K.BULLET_BILL, 2))
    state = act(state, 2, PlayCard(K.ONE_UP_MUSHROOM))
    state = pass_round(state)
    assert state.alive[2]
    assert state.tokens == (4, 3, 1)


def test_a_1up_with_an_empty_supply_gives_nothing() -> None:
    """ "a 1-Up with an empty supply gives nothing." """
    state = game(3, [L(3), L(9), L(7)], setup=[q(K.ONE_UP_MUSHROOM), q(K.GOOMBA), q(K.GOOMBA, 1)])
    state = dataclasses.replace(state, supply=0)
    state = act(state, 0, PlayCard(K.ONE_UP_MUSHROOM))
    assert state.tokens[0] == 4
    assert "{p0} plays 1-Up Mushroom, but the supply is empty." in texts(state, None)


def test_an_eliminated_player_is_skipped_in_deals_and_trades_and_the_deal_passes_on() -> None:
    """ "A player with no tokens is out: skipped in deals and trades ("left" means the next active player) and
    their ? cards are discarded."; "the deal passes to the next active player" """
    state = game(3, [L(3), L(9), L(7)], setup=[q(K.GOOMBA), q(K.GOOMBA, 1), q(K.GOOMBA, 2)], more_levels=[L(5), L(6)])
    state = set_tokens(state, (4, 1, 4))
    state = pass_round(keep_all_until_modify(state))
    assert not state.alive[1]
    assert state.round_no == 2
    assert state.dealer == 2  # seat 1 would deal, but is out
    assert state.level[1] == -1
    assert ENGINE.to_act(state) == (0,)
    assert Trade(2) in ENGINE.legal_actions(state, 0)
    assert ENGINE.legal_actions(state, 1) == ()
    assert q(K.GOOMBA, 1) in state.q_discard


def test_the_deal_passes_to_the_left() -> None:
    state = game(3, [L(3), L(9), L(7)], setup=[q(K.GOOMBA), q(K.GOOMBA, 1), q(K.GOOMBA, 2)])
    state = pass_round(keep_all_until_modify(state))
    assert state.dealer == 1
    assert ENGINE.to_act(state) == (2,)


def test_a_deck_is_reshuffled_from_its_discards_only_when_it_runs_out() -> None:
    """ "A deck is reshuffled from its discards only when it runs out." """
    state = game(3, [L(3), L(9), L(7)], setup=[q(K.GOOMBA), q(K.GOOMBA, 1), q(K.GOOMBA, 2)])
    state = pass_round(keep_all_until_modify(state))
    assert len(state.level_discard) == 3  # round 1's cards wait in the discard pile
    assert len(state.level_deck) == 52 - 6
    state2 = game(3, [L(6), L(8), L(4)])
    state2 = act(act(state2, 1, Keep()), 2, Keep())
    state2 = dataclasses.replace(state2, level_deck=(), level_discard=(L(10, 2),))
    state2 = act(state2, 0, DrawNewLevel())
    assert "The Level deck ran out: its discard pile is shuffled into a new deck." in texts(state2, None)
    assert state2.level[0] in (L(10, 2), L(4))


def test_the_last_player_with_tokens_wins() -> None:
    """ "The last player with tokens wins" """
    state = game(2, [L(9), L(3)], setup=[q(K.GOOMBA), q(K.GOOMBA, 1)])
    state = set_tokens(state, (1, 2))
    state = pass_round(keep_all_until_modify(state))
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    assert outcome.winners == (1,)
    assert ENGINE.to_act(state) == ()
    assert ENGINE.legal_actions(state, 1) == ()


def test_players_who_fall_together_share_the_win() -> None:
    """ "if no active player has a token after a round's scoring, everyone who had a token at the start of that
    round shares the win." """
    state = game(2, [L(3), L(3, 1)], setup=[q(K.GOOMBA), q(K.GOOMBA, 1)])
    state = set_tokens(state, (1, 1))
    state = pass_round(keep_all_until_modify(state))
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    assert outcome.winners == (0, 1)
    assert state.tokens == (0, 0)


# Any-time cards ---------------------------------------------------------------------------------------


def test_any_time_cards_are_optional_actions_for_seats_not_waited_for() -> None:
    """ "'Any time' cards may also be played in steps 2-4 outside one's turn; they do not end anyone's turn." """
    state = game(3, [L(3), L(9), L(7)], setup=[q(K.GREEN_SHELL), q(K.GOOMBA), q(K.RED_SHELL)])
    assert ENGINE.to_act(state) == (1,)
    assert PlayCard(K.GREEN_SHELL, 1) in ENGINE.legal_actions(state, 0)
    assert PlayCard(K.RED_SHELL, 1) in ENGINE.legal_actions(state, 2)
    state = act(state, 0, PlayCard(K.GREEN_SHELL, 1))
    assert state.hands[1] == ()
    assert "{p0} plays Green Shell: {p1} discards Goomba at random." in texts(state, None)
    assert ENGINE.to_act(state) == (1,)


def test_red_shell_takes_a_random_card_and_only_the_two_players_learn_which() -> None:
    """ "Red Shell: take one ? card at random from another player" """
    state = game(3, [L(3), L(9), L(7)], setup=[q(K.RED_SHELL), q(K.BOWSER), q(K.GOOMBA)])
    state = act(state, 0, PlayCard(K.RED_SHELL, 1))
    assert state.hands[0] == (q(K.BOWSER),)
    assert texts(state, 0) == ["You play Red Shell and take Bowser from {p1}."]
    assert texts(state, 1) == ["{p0} plays Red Shell and takes your Bowser."]
    assert texts(state, 2) == ["{p0} plays Red Shell and takes a ? card at random from {p1}."]


# The source's worked example ------------------------------------------------------------------------------


def test_the_five_player_walkthrough_of_the_rulebook() -> None:
    """The printed rulebook's "Let's Go!": player 1 trades a 2 to player 2, who must keep it because player 3 revealed a
    Castle; player 4 keeps an 8; the dealer reveals a 4, discards it and draws a 3; players 1 and 4 reveal
    matching 8s and draw a ? card, player 3 drew one for the Castle; player 2 plays Koopa Troopa (-2) on the
    dealer, who has the lowest Level (1) and loses a token; player 1 deals next."""
    state = game(
        5,
        [L(2), L(8), castle(), L(8, 1), L(4)],
        setup=[q(K.GOOMBA), q(K.SUPER_MUSHROOM), q(K.KOOPA_TROOPA), q(K.GOOMBA, 1), q(K.SUPER_MUSHROOM, 1)],
        more_levels=[L(3)],
        more_questions=[q(K.FIRE_FLOWER), q(K.SUPER_STAR), q(K.SUPER_STAR, 1)],
    )
    # A. the deal; D. player 3 reveals the Castle and draws a ? card.
    assert view(state, 1).seats[3].castle
    assert len(state.hands[3]) == 2
    # B. player 1 has a 2 and trades with player 2, who cannot refuse.
    assert ENGINE.to_act(state) == (1,)
    state = act(state, 1, Trade(2))
    state = act(state, 2, AcceptSwap())
    assert state.level[1] == L(8)
    assert state.level[2] == L(2)
    # C. player 2 must keep: player 3's Castle cannot be traded with.
    assert not any(isinstance(a, Trade) for a in ENGINE.legal_actions(state, 2))
    state = act(state, 2, Keep())
    state = act(state, 3, Keep())
    # E. player 4 has an 8 and keeps it.
    state = act(state, 4, Keep())
    # F. the dealer reveals a 4, then discards it and draws (and reveals) a 3.
    assert view(state, 2).seats[0].level is not None
    assert view(state, 2).seats[0].level.value == 4
    state = act(state, 0, DrawNewLevel())
    # Reveal: players 1 and 4 match with 8s and draw; player 3 does not draw again.
    assert state.stage is Stage.MODIFY
    assert len(state.hands[1]) == 2
    assert len(state.hands[4]) == 2
    assert len(state.hands[3]) == 2
    # Modify: C. player 2 plays Koopa Troopa on the dealer; D./E. everyone else passes.
    state = act(state, 1, Pass())
    state = act(state, 2, PlayCard(K.KOOPA_TROOPA, 0))
    assert view(state, 4).seats[0].value == 1
    for seat in (3, 4, 0, 1, 2):
        state = act(state, seat, Pass())
    # Score: A. the dealer has the lowest Level and loses a token; B. player 1 is the new dealer.
    assert state.tokens == (3, 4, 4, 4, 4)
    assert state.round_no == 2
    assert state.dealer == 1


def test_the_dealers_decision_is_keep_or_draw_not_warp_pipe_or_vine() -> None:
    """ "The dealer acts last: reveals their card, then keeps it or discards it and draws" (Boo still comes
    before the decision)."""
    state = game(3, [L(6), L(8), L(4)])
    state = set_hands(state, {0: (q(K.WARP_PIPE), q(K.VINE), q(K.BOO)), 1: (), 2: ()})
    state = act(act(state, 1, Keep()), 2, Keep())
    assert set(ENGINE.legal_actions(state, 0)) == {Keep(), DrawNewLevel(), PlayCard(K.BOO, 1), PlayCard(K.BOO, 2)}


def test_a_swap_aimed_at_a_player_without_question_cards_happens_at_once() -> None:
    state = game(4, [L(2), L(8), L(5), L(9)])
    state = set_hands(state, {1: (q(K.WARP_PIPE),), 3: ()})
    state = act(state, 1, PlayCard(K.WARP_PIPE, 3))
    assert state.stage is Stage.KEEP_OR_TRADE
    assert state.level[1] == L(5)


def test_other_seats_may_play_any_time_cards_while_a_swap_waits_for_its_answer() -> None:
    """ "'Any time' cards may also be played in steps 2-4 outside one's turn" """
    state = game(4, [L(2), L(8), L(5), L(9)])
    state = set_hands(state, {2: (q(K.HAMMER_BROS),), 0: (q(K.GREEN_SHELL),)})
    state = act(state, 1, Trade(2))
    assert ENGINE.to_act(state) == (2,)
    assert PlayCard(K.GREEN_SHELL, 2) in ENGINE.legal_actions(state, 0)
    assert not any(isinstance(a, AcceptSwap) for a in ENGINE.legal_actions(state, 0))
    state = act(state, 0, PlayCard(K.GREEN_SHELL, 2))  # knocks the Hammer Bros. out of seat 2's hand
    assert tuple(ENGINE.legal_actions(state, 2)) == (AcceptSwap(),)
