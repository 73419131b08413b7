"""Scenario tests for UNO Super Mario: one or more per rule of docs/rules/uno.md (quoted in each test)
and the worked examples of the printed rule sheet."""

from __future__ import annotations

from collections import Counter
from typing import TypeVar

import pytest
from uno_support import BLUE, GREEN, RED, YELLOW, act, card, count_cards, play, table, texts

from toadstool.engine import BadOptions, parse_options
from toadstool.games.uno import engine as uno
from toadstool.games.uno.data import (
    ALL_CARDS,
    CARD_COLOR,
    CARD_KIND,
    CARD_NUMBER,
    CARD_POINTS,
    DEALER_DRAW_VALUE,
    UnoColor,
    UnoKind,
)
from toadstool.games.uno.engine import (
    ENGINE,
    AcceptPenalty,
    CallUno,
    Catch,
    Challenge,
    ChooseColor,
    Draw,
    Keep,
    PassTurn,
    PlayCard,
    UnoStage,
)

DEFAULTS = parse_options(ENGINE.options, {})


def _plays(state: uno.UnoState, seat: int) -> set[int]:
    return {a.card_id for a in ENGINE.legal_actions(state, seat) if isinstance(a, PlayCard)}


R = TypeVar("R")


def _records(state: uno.UnoState, kind: type[R]) -> list[R]:
    return [r for r in state.events if isinstance(r, kind)]


def _seed_with_first(kind: UnoKind, players: int = 3, start: int = 0) -> tuple[int, uno.UnoState]:
    for seed in range(start, start + 5000):
        state = ENGINE.new(players, DEFAULTS, seed)
        if CARD_KIND[_records(state, uno.Flipped)[0].card] == kind:
            return seed, state
    raise AssertionError(f"no seed flips a {kind.name} first")


# ---- deck -------------------------------------------------------------------------------------------------


def test_the_deck_has_112_cards_25_per_colour_and_12_wild_ones() -> None:
    """docs/rules/uno.md §1.1: "one 0, two of each number 1 to 9, two Skip, two Reverse and two Draw Two, 25
    cards a colour and 100 in all. Then 4 Wild, 4 Wild Draw Four, 2 Wild Customizable and 2 Super Star." """
    assert len(ALL_CARDS) == 112
    per_colour = Counter(CARD_COLOR[c] for c in ALL_CARDS)
    assert per_colour == {1: 25, 2: 25, 3: 25, 4: 25, 0: 12}
    red = Counter((CARD_KIND[c], CARD_NUMBER[c]) for c in ALL_CARDS if CARD_COLOR[c] == RED)
    assert red[(UnoKind.NUMBER, 0)] == 1
    assert all(red[(UnoKind.NUMBER, n)] == 2 for n in range(1, 10))
    assert red[(UnoKind.SKIP, None)] == red[(UnoKind.REVERSE, None)] == red[(UnoKind.DRAW_TWO, None)] == 2
    wild = Counter(CARD_KIND[c] for c in ALL_CARDS if CARD_COLOR[c] == 0)
    assert wild == {UnoKind.WILD: 4, UnoKind.WILD_DRAW_FOUR: 4, UnoKind.WILD_CUSTOMIZABLE: 2, UnoKind.SUPER_STAR: 2}


def test_every_card_in_play_is_one_of_the_112_physical_cards() -> None:
    state = ENGINE.new(4, DEFAULTS, 3)
    everything = [c for h in state.hands for c in h] + list(state.draw_pile) + list(state.discard)
    assert sorted(everything) == list(ALL_CARDS)


# ---- options ----------------------------------------------------------------------------------------------


def test_options_default_to_500_points_highest_wins_and_no_house_rule() -> None:
    assert DEFAULTS == {"target": 500, "lowest_wins": False, "house_rule": ""}
    state = ENGINE.new(2, parse_options(ENGINE.options, {"target": "200", "house_rule": "Hop!"}), 1)
    view = ENGINE.view(state, None)
    assert view.target == 200
    assert view.house_rule == "Hop!"


def test_a_house_rule_longer_than_200_characters_is_refused() -> None:
    with pytest.raises(BadOptions):
        parse_options(ENGINE.options, {"house_rule": "x" * 201})


# ---- choosing the dealer and the deal ---------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(30))
def test_the_highest_number_drawn_deals_and_ties_draw_again(seed: int) -> None:
    """docs/rules/uno.md §3.1: "The highest number deals; action and wild cards count as 0. Players tied for
    the highest draw again among themselves." """
    state = ENGINE.new(4, DEFAULTS, seed)
    draws = _records(state, uno.DealerDraw)
    ties = _records(state, uno.DealerTie)
    # The last round of draws is by the seats of the last tie (or everybody).
    last_round = ties[-1].seats if ties else (0, 1, 2, 3)
    final = {seat: DEALER_DRAW_VALUE[c] for seat, c in draws[-len(last_round) :]}
    assert set(final) == set(last_round)
    best = max(final.values())
    assert [s for s, v in final.items() if v == best] == [state.dealer]
    assert texts(state, None)[0].startswith("Player")  # the draws are public events


def test_a_tie_for_highest_makes_the_tied_seats_draw_again() -> None:
    for seed in range(500):
        state = ENGINE.new(6, DEFAULTS, seed)
        ties = _records(state, uno.DealerTie)
        if ties:
            tied = ties[0].seats
            draws = _records(state, uno.DealerDraw)
            assert [s for s, _ in draws[6 : 6 + len(tied)]] == list(tied)
            return
    raise AssertionError("no tie in 500 seeds")


@pytest.mark.parametrize("players", [2, 3, 10])
def test_each_player_is_dealt_seven_cards_and_one_card_starts_the_discard_pile(players: int) -> None:
    """docs/rules/uno.md §3.2: "Each player gets 7 cards. The top card of the rest is turned over to start the
    discard pile" """
    _, state = _seed_with_first(UnoKind.NUMBER, players)
    assert [len(h) for h in state.hands] == [7] * players
    assert len(state.discard) == 1
    assert len(state.draw_pile) == 112 - 7 * players - 1
    assert state.current == (state.dealer + 1) % players
    assert state.stage == uno.PLAY


def test_a_wild_draw_four_flipped_first_goes_back_and_the_pile_is_reshuffled() -> None:
    """docs/rules/uno.md §3.3: "Wild Draw Four: it goes back into the draw pile, the pile is shuffled and a new
    card is turned over." """
    for seed in range(3000):
        state = ENGINE.new(3, DEFAULTS, seed)
        returned = _records(state, uno.FlipReturned)
        if returned:
            wd4 = returned[0].card
            assert CARD_KIND[state.discard[-1]] != UnoKind.WILD_DRAW_FOUR
            assert wd4 in state.draw_pile
            assert count_cards(state) == 112
            assert any("Wild Draw Four was flipped first" in t for t in texts(state, None))
            return
    raise AssertionError("no seed flips a Wild Draw Four first")


@pytest.mark.parametrize("kind", [UnoKind.WILD, UnoKind.WILD_CUSTOMIZABLE, UnoKind.SUPER_STAR])
def test_a_wild_card_flipped_first_lets_the_first_player_choose_the_colour_then_play(kind: UnoKind) -> None:
    """docs/rules/uno.md §3.3: "Wild, Wild Customizable, Super Star: the first player chooses the colour, then
    plays." """
    _, state = _seed_with_first(kind)
    first = (state.dealer + 1) % 3
    assert state.current == first
    assert ENGINE.to_act(state) == (first,)
    assert ENGINE.view(state, first).stage == UnoStage.CHOOSE_FIRST_COLOR
    assert list(ENGINE.legal_actions(state, first)) == [ChooseColor(c) for c in (RED, YELLOW, GREEN, BLUE)]
    state = act(state, first, ChooseColor(GREEN))
    assert state.current == first
    assert state.color == GREEN
    assert state.stage == uno.PLAY
    assert _plays(state, first) == {c for c in state.hands[first] if CARD_COLOR[c] in (GREEN, 0)}


def test_a_skip_flipped_first_skips_the_first_player() -> None:
    """docs/rules/uno.md §3.3: "Skip: the first player loses their turn." """
    _, state = _seed_with_first(UnoKind.SKIP)
    assert state.current == (state.dealer + 2) % 3
    assert any("skipped" in t for t in texts(state, None))


def test_a_reverse_flipped_first_lets_the_dealer_play_first_counter_clockwise() -> None:
    """docs/rules/uno.md §3.3: "Reverse: the dealer plays first, and play runs counter-clockwise." """
    _, state = _seed_with_first(UnoKind.REVERSE)
    assert state.current == state.dealer
    assert state.direction == -1
    state = act(state, state.dealer, Draw())
    state = act(state, state.dealer, Keep())
    assert state.current == (state.dealer - 1) % 3


def test_a_draw_two_flipped_first_makes_the_first_player_draw_two_and_lose_the_turn() -> None:
    """docs/rules/uno.md §3.3: "Draw Two: the first player draws 2 and loses their turn." """
    _, state = _seed_with_first(UnoKind.DRAW_TWO)
    first = (state.dealer + 1) % 3
    assert len(state.hands[first]) == 9
    assert state.current == (state.dealer + 2) % 3
    assert state.stage == uno.PLAY


def test_a_draw_two_flipped_first_cannot_be_answered_with_a_super_star() -> None:
    """docs/rules/uno.md §3.3: "This Draw Two cannot be answered with a Super Star" """
    for seed in range(20000):
        state = ENGINE.new(3, DEFAULTS, seed)
        first = (state.dealer + 1) % 3
        if CARD_KIND[state.discard[-1]] != UnoKind.DRAW_TWO:
            continue
        dealt = _records(state, uno.Dealt)[0].hands[first]
        if any(CARD_KIND[c] == UnoKind.SUPER_STAR for c in dealt):
            assert len(state.hands[first]) == 9
            assert state.current != first
            assert ENGINE.legal_actions(state, first) == ()
            return
    raise AssertionError("no seed deals a Super Star to the victim of a first Draw Two")


def test_a_number_flipped_first_lets_the_dealers_left_play() -> None:
    """docs/rules/uno.md §3.3: "A number: the first player plays as usual." """
    _, state = _seed_with_first(UnoKind.NUMBER)
    assert state.current == (state.dealer + 1) % 3
    assert state.color == CARD_COLOR[state.discard[-1]]


# ---- a turn -----------------------------------------------------------------------------------------------


def test_a_red_5_accepts_a_red_card_or_any_5() -> None:
    """The printed rule sheet: "if the top card on the Discard pile is a red 5, then you can play a red card,
    or a number 5 card of any color." """
    hand = [card("red 2"), card("blue 5"), card("green 5"), card("blue 7"), card("yellow Skip")]
    state = table([hand, [card("red 9")]], card("red 5"))
    assert _plays(state, 0) == {card("red 2"), card("blue 5"), card("green 5")}


def test_a_red_reverse_accepts_a_red_card_or_any_reverse() -> None:
    """The printed rule sheet: "If the top card on the Discard pile is a red Reverse card, you can play a red
    card or Reverse of any color on top of that red Reverse." """
    hand = [card("red 2"), card("blue Reverse"), card("green Skip"), card("blue 7")]
    state = table([hand, [card("red 9")]], card("red Reverse"))
    assert _plays(state, 0) == {card("red 2"), card("blue Reverse")}


def test_wild_cards_can_be_played_at_any_time_with_a_chosen_colour() -> None:
    """docs/rules/uno.md §4.1: "A Wild, Wild Customizable or Super Star may be played at any time, its player
    naming the new colour. A Wild Draw Four may also be played at any time" """
    wilds = [card("Wild"), card("Wild Customizable"), card("Super Star"), card("Wild Draw Four")]
    state = table([[*wilds, card("red 2")], [card("red 9")]], card("red 5"))
    legal = ENGINE.legal_actions(state, 0)
    for wild in wilds:
        assert {a.color for a in legal if isinstance(a, PlayCard) and a.card_id == wild} == {
            RED,
            YELLOW,
            GREEN,
            BLUE,
        }
    state = play(state, 0, "Wild Draw Four", BLUE)
    assert state.color == BLUE  # legal even though a red card was held


def test_a_player_may_always_draw_instead_of_playing() -> None:
    """docs/rules/uno.md §4.2: "Instead of playing, a player may always draw one card, also when they hold a
    playable card." """
    state = table([[card("red 2")], [card("red 9")]], card("red 5"))
    assert Draw() in ENGINE.legal_actions(state, 0)


def test_after_drawing_a_playable_card_the_player_may_play_it_or_keep_it() -> None:
    """docs/rules/uno.md §4.2: "If the drawn card can be played they may play it at once or keep it; either way
    the turn then ends." """
    state = table([[card("red 2"), card("blue 3")], [card("red 9")]], card("red 5"), pile=[card("red 7")])
    state = act(state, 0, Draw())
    assert state.hands[0][-1] == card("red 7")
    assert state.current == 0
    assert ENGINE.view(state, 0).drawn_card.id == card("red 7")  # type: ignore[union-attr]
    legal = ENGINE.legal_actions(state, 0)
    assert set(legal) == {PlayCard(card("red 7"), RED), Keep()}  # only the drawn card may be played
    kept = act(state, 0, Keep())
    assert kept.current == 1
    assert card("red 7") in kept.hands[0]
    played = play(state, 0, "red 7")
    assert played.discard[-1] == card("red 7")
    assert played.current == 1


def test_after_drawing_an_unplayable_card_the_player_keeps_it_by_acting() -> None:
    """The turn waits for Keep even then, so others cannot tell a playable drawn card from an unplayable one
    (docs/rules/README.md §1.4: "Everything else waits for its seat, even when the seat has exactly one
    legal action")."""
    state = table([[card("red 2")], [card("red 9")]], card("red 5"), pile=[card("blue 7")])
    state = act(state, 0, Draw())
    assert ENGINE.to_act(state) == (0,)
    assert list(ENGINE.legal_actions(state, 0)) == [Keep()]


def test_a_skip_makes_the_next_player_lose_the_turn() -> None:
    """docs/rules/uno.md §4.3: "Skip: the next player loses their turn." """
    state = table([[card("red Skip"), card("red 1")], [card("red 9")], [card("red 8")]], card("red 5"))
    state = play(state, 0, "red Skip")
    assert state.current == 2


def test_a_reverse_changes_the_direction() -> None:
    """docs/rules/uno.md §4.3: "Reverse: the direction of play changes" """
    hands = [[card("red 1")], [card("red Reverse"), card("red 2")], [card("red 9")], [card("red 8")]]
    state = table(hands, card("red 5"), current=1)
    state = play(state, 1, "red Reverse")
    assert state.direction == -1
    assert state.current == 0
    assert ENGINE.view(state, None).direction == uno.UnoDirection.COUNTER_CLOCKWISE


def test_a_reverse_with_two_players_acts_as_a_skip() -> None:
    """docs/rules/uno.md §4.3: "with two players a Reverse works as a Skip." """
    state = table([[card("red Reverse"), card("red 1")], [card("red 9")]], card("red 5"))
    state = play(state, 0, "red Reverse")
    assert state.current == 0


def test_a_draw_two_makes_the_next_player_draw_two_and_lose_the_turn() -> None:
    """docs/rules/uno.md §4.4: "The next player draws 2 cards and loses their turn, unless they answer with a
    Super Star"
    The victim is asked even without a Super Star (no hint what they hold)."""
    hands = [[card("red Draw Two"), card("red 1"), card("red 2")], [card("red 9")], [card("red 8")]]
    state = table(hands, card("red 5"))
    state = play(state, 0, "red Draw Two")
    assert ENGINE.to_act(state) == (1,)
    assert list(ENGINE.legal_actions(state, 1)) == [AcceptPenalty()]
    assert ENGINE.view(state, 1).pending_penalty == 2
    state = act(state, 1, AcceptPenalty())
    assert len(state.hands[1]) == 3
    assert state.current == 2


def test_a_wild_customizable_is_a_plain_wild_and_the_house_rule_is_only_shown() -> None:
    """docs/rules/uno.md §4.5: "Plays as a plain Wild. Its house-rule text is not enforced by the server; a
    table may show a free text for it, chosen when the table is created" """
    hands = [[card("Wild Customizable"), card("red 1")], [card("red 9")], [card("red 8")]]
    state = table(hands, card("red 5"), options={"house_rule": "Run a lap around the living room"})
    state = play(state, 0, "Wild Customizable", GREEN)
    assert state.color == GREEN
    assert state.current == 1
    assert state.stage == uno.PLAY
    assert all(ENGINE.view(state, v).house_rule == "Run a lap around the living room" for v in (0, 1, 2, None))


# ---- Wild Draw Four challenge -----------------------------------------------------------------------------


def _after_wd4(attacker_hand: list[int], victim_hand: list[int] | None = None) -> uno.UnoState:
    hands = [[card("Wild Draw Four"), *attacker_hand], victim_hand or [card("blue 9")], [card("green 8")]]
    state = table(hands, card("red 5"))
    return play(state, 0, "Wild Draw Four", YELLOW, uno_flag=len(attacker_hand) == 1)


def test_the_victim_of_a_wild_draw_four_may_accept_or_challenge() -> None:
    """docs/rules/uno.md §5.1: "the next player chooses one of: accept (draw 4 and lose the turn), challenge
    (§5.2), or answer with a Super Star (§6.2)." """
    state = _after_wd4([card("red 1")])
    assert ENGINE.to_act(state) == (1,)
    assert list(ENGINE.legal_actions(state, 1)) == [AcceptPenalty(), Challenge()]
    state = act(state, 1, AcceptPenalty())
    assert len(state.hands[1]) == 5
    assert state.current == 2
    assert state.color == YELLOW


def test_a_successful_challenge_makes_the_player_of_the_card_draw_four_and_the_challenger_plays() -> None:
    """docs/rules/uno.md §5.3: "If the hand held such a card, its player draws 4 and the challenger keeps their
    turn." §5.1: "The chosen colour stands in every case." """
    state = _after_wd4([card("red 1"), card("blue 3")])
    state = act(state, 1, Challenge())
    assert len(state.hands[0]) == 2 + 4
    assert len(state.hands[1]) == 1
    assert state.current == 1
    assert state.color == YELLOW


def test_a_failed_challenge_makes_the_challenger_draw_six_and_lose_the_turn() -> None:
    """docs/rules/uno.md §5.3: "If not, the challenger draws 6 and loses their turn." Number matches and wilds
    do not count."""
    state = _after_wd4([card("blue 5"), card("Wild"), card("green 2")])
    state = act(state, 1, Challenge())
    assert len(state.hands[0]) == 3
    assert len(state.hands[1]) == 7
    assert state.current == 2
    assert state.color == YELLOW


def test_only_the_challenger_sees_the_hand_of_the_player_of_the_wild_draw_four() -> None:
    """docs/rules/uno.md §5.2: "The player of the Wild Draw Four shows their hand to the challenger alone: only
    the challenger's view holds the revealed hand." """
    attacker_hand = [card("red 1"), card("blue 3")]
    state = act(_after_wd4(attacker_hand), 1, Challenge())
    reveal = ENGINE.view(state, 1).reveal
    assert reveal is not None
    assert [c.id for c in reveal.cards] == sorted(attacker_hand)
    assert reveal.attacker == 0
    assert reveal.prior_color == RED
    assert reveal.held_prior_color
    for viewer in (0, 2, None):
        assert ENGINE.view(state, viewer).reveal is None
    public = texts(state, 2)
    assert any("challenged Player 1's Wild Draw Four: the challenge succeeded" in t for t in public)
    assert not any("red 1" in t or "blue 3" in t for t in texts(state, None) + public)
    assert any("red 1" in t and "blue 3" in t for t in texts(state, 1))


def test_the_reveal_disappears_after_the_next_turn_action() -> None:
    state = act(_after_wd4([card("red 1")]), 1, Challenge())
    state = act(state, 1, Draw())
    assert ENGINE.view(state, 1).reveal is None


# ---- Super Star -------------------------------------------------------------------------------------------


def test_a_super_star_can_be_played_as_a_wild() -> None:
    """docs/rules/uno.md §6.1: "A Super Star is a Wild: it may be played at any time" """
    hands = [[card("Super Star"), card("red 1")], [card("blue 9")], [card("green 8")]]
    state = play(table(hands, card("red 5")), 0, "Super Star", BLUE)
    assert state.color == BLUE
    assert state.current == 1
    assert state.stage == uno.PLAY


def test_a_super_star_answers_a_draw_two() -> None:
    """docs/rules/uno.md §6.2: "When a Draw Two or a Wild Draw Four is played on you, you may answer with a
    Super Star instead of drawing. The attacker then draws the 2 or 4 cards themselves and is not skipped,
    you name the colour, and play goes on with the player after you." """
    hands = [[card("red Draw Two"), card("red 1")], [card("Super Star"), card("blue 9")], [card("green 8")]]
    state = play(table(hands, card("red 5")), 0, "red Draw Two", uno_flag=True)
    legal = ENGINE.legal_actions(state, 1)
    assert set(legal) == {AcceptPenalty()} | {PlayCard(card("Super Star"), c, flag) for c in uno.COLORS
                                              for flag in (True, False)}  # fmt: skip
    assert ENGINE.describe(state, 1, PlayCard(card("Super Star"), GREEN)).startswith("Answer with Super Star")
    state = play(state, 1, "Super Star", GREEN, uno_flag=True)
    assert len(state.hands[0]) == 1 + 2
    assert state.hands[1] == (card("blue 9"),)
    assert state.color == GREEN
    assert state.current == 2
    assert state.stage == uno.PLAY  # no answer to the answer: "A Super Star cannot be answered"
    assert state.catchable == -1  # the answer carried the UNO flag


def test_a_super_star_answers_a_wild_draw_four_and_the_attacker_draws_four() -> None:
    state = _after_wd4([card("red 1")], victim_hand=[card("Super Star"), card("blue 9"), card("blue 8")])
    assert PlayCard(card("Super Star"), BLUE) in ENGINE.legal_actions(state, 1)
    state = play(state, 1, "Super Star", BLUE)
    assert len(state.hands[0]) == 1 + 4
    assert state.color == BLUE
    assert state.current == 2


def test_a_super_star_answer_as_last_card_wins_the_hand_and_the_attackers_draw_counts() -> None:
    """docs/rules/uno.md §6.4: "If the Super Star was the player's last card they win the hand, and the cards
    the attacker drew count for scoring." """
    hands = [[card("red Draw Two"), card("red 1")], [card("Super Star")], [card("green 8")]]
    state = table(hands, card("red 5"), pile=[card("blue 9"), card("Wild")] + [card("red 0")] * 0)
    state = play(state, 0, "red Draw Two")
    state = play(state, 1, "Super Star", GREEN)
    # Player 2 went out; Player 1 holds red 1 + Wild + blue 9 (1 + 50 + 9), Player 3 the green 8.
    assert state.scores == (0, 1 + 50 + 9 + 8, 0)
    assert state.hands_won == ((1, 68),)


def test_a_super_star_answer_does_not_skip_the_attacker_in_a_two_player_game() -> None:
    hands = [[card("red Draw Two"), card("red 1"), card("red 2")], [card("Super Star"), card("blue 9")]]
    state = play(table(hands, card("red 5")), 0, "red Draw Two")
    state = play(state, 1, "Super Star", BLUE)
    assert state.current == 0  # the player after the answering player


# ---- UNO --------------------------------------------------------------------------------------------------


def _two_left(flag: bool) -> uno.UnoState:
    hands = [[card("red 1"), card("red 2")], [card("blue 9"), card("blue 8")], [card("green 8"), card("green 7")]]
    return play(table(hands, card("red 5")), 0, "red 1", uno_flag=flag)


def test_the_uno_flag_is_offered_only_with_the_next_to_last_card() -> None:
    """docs/rules/uno.md §7.1: "A player who plays their next-to-last card may call UNO with that play (a flag
    on the play action)" """
    hands = [[card("red 1"), card("red 2")], [card("red 3"), card("red 4"), card("red 6")]]
    state = table(hands, card("red 5"))
    assert PlayCard(card("red 1"), RED, True) in ENGINE.legal_actions(state, 0)
    state = play(state, 0, "red 1", uno_flag=True)
    assert all(not a.uno for a in ENGINE.legal_actions(state, 1) if isinstance(a, PlayCard))


def test_calling_uno_with_the_play_leaves_nobody_to_catch() -> None:
    state = _two_left(flag=True)
    assert any("called UNO" in t for t in texts(state, None))
    assert all(Catch(0) not in ENGINE.legal_actions(state, s) for s in (1, 2))
    assert ENGINE.view(state, 2).uno_catchable is None


def test_a_player_who_did_not_call_uno_can_be_caught_by_any_other_seat_and_draws_two() -> None:
    """docs/rules/uno.md §7.2: "Until the player has called, every other seat may catch them, in the same
    window. ... A caught player draws 2." Catching is optional: the game waits only for the next player."""
    state = _two_left(flag=False)
    assert ENGINE.to_act(state) == (1,)
    assert Catch(0) in ENGINE.legal_actions(state, 1)
    assert list(ENGINE.legal_actions(state, 2)) == [Catch(0)]
    assert list(ENGINE.legal_actions(state, 0)) == [CallUno()]
    assert ENGINE.view(state, 1).uno_catchable == 0
    caught = act(state, 2, Catch(0))
    assert len(caught.hands[0]) == 3
    assert caught.current == 1
    assert ENGINE.legal_actions(caught, 1)
    assert Catch(0) not in ENGINE.legal_actions(caught, 1)
    assert ENGINE.legal_actions(caught, 2) == ()  # "A catch when no one is catchable is illegal."


def test_a_separate_call_uno_closes_the_window_before_a_catch() -> None:
    """docs/rules/uno.md §7.1: "or with a separate call action, until any seat makes its next turn action";
    §7.2: "Whichever of the call or the first catch reaches the engine first counts." """
    state = act(_two_left(flag=False), 0, CallUno())
    assert len(state.hands[0]) == 1
    assert ENGINE.legal_actions(state, 2) == ()
    assert Catch(0) not in ENGINE.legal_actions(state, 1)


def test_the_uno_window_closes_at_the_next_turn_action() -> None:
    state = _two_left(flag=False)
    state = play(state, 1, "blue 9", color=None) if card("blue 9") in _plays(state, 1) else act(state, 1, Draw())
    assert ENGINE.legal_actions(state, 2) == ()
    assert CallUno() not in ENGINE.legal_actions(state, 0)


# ---- draw pile empty --------------------------------------------------------------------------------------


def test_an_empty_draw_pile_is_rebuilt_from_the_discards_under_the_top_card() -> None:
    """docs/rules/uno.md §8.1: "the top card of the discard pile stays, the cards under it are shuffled into a
    new draw pile, and the draw goes on." """
    under = [card("blue 1"), card("green 2"), card("yellow 3")]
    state = table([[card("red 1")], [card("red 9")]], card("red 5"), pile=[], under=under)
    assert Draw() in ENGINE.legal_actions(state, 0)
    state = act(state, 0, Draw())
    assert state.discard == (card("red 5"),)
    assert len(state.draw_pile) == 2
    assert state.hands[0][-1] in under
    assert any("shuffled into a new draw pile" in t for t in texts(state, None))


def test_with_nothing_to_shuffle_the_draw_is_not_offered_and_a_stuck_player_passes() -> None:
    """docs/rules/uno.md §8.2: "If there is no card left to shuffle, the rest of that draw is cancelled, and
    the chosen draw (§4.2) is not offered: a player with nothing to play passes." """
    state = table([[card("blue 1")], [card("red 9")]], card("red 5"), pile=[])
    assert list(ENGINE.legal_actions(state, 0)) == [PassTurn()]
    state = act(state, 0, PassTurn())
    assert state.current == 1
    playable = table([[card("red 1"), card("blue 1"), card("blue 2")], [card("red 9")]], card("red 5"), pile=[])
    assert list(ENGINE.legal_actions(playable, 0)) == [PlayCard(card("red 1"), RED)]


def test_a_penalty_is_cut_short_when_no_card_is_left_to_draw() -> None:
    """The only card under the Draw Two (the red 5) is reshuffled and drawn; the second card is cancelled."""
    hands = [[card("red Draw Two"), card("red 1"), card("red 2")], [card("blue 9")], [card("green 8")]]
    state = table(hands, card("red 5"), pile=[])
    state = play(state, 0, "red Draw Two")
    state = act(state, 1, AcceptPenalty())
    assert state.hands[1] == (card("blue 9"), card("red 5"))
    assert state.discard == (card("red Draw Two"),)
    assert state.current == 2
    assert any("spared a card" in t for t in texts(state, None))


# ---- hand end and scoring ---------------------------------------------------------------------------------


def test_the_winner_scores_the_cards_left_in_the_other_hands() -> None:
    """docs/rules/uno.md §1.2: "a number card counts its number; Skip, Reverse and Draw Two count 20; Wild, Wild
    Draw Four, Wild Customizable and Super Star count 50." """
    assert CARD_POINTS[card("red 7")] == 7
    assert {CARD_POINTS[card(f"blue {k}")] for k in ("Skip", "Reverse", "Draw Two")} == {20}
    assert {CARD_POINTS[card(k)] for k in ("Wild", "Wild Draw Four", "Wild Customizable", "Super Star")} == {50}
    hands = [[card("red 1")], [card("blue 7"), card("blue Skip")], [card("Super Star"), card("green 0")]]
    state = play(table(hands, card("red 5")), 0, "red 1")
    assert state.scores == (7 + 20 + 50 + 0, 0, 0)
    assert state.hand_number == 2
    assert any("won the hand (77 points" in t for t in texts(state, None))


def test_a_last_card_draw_two_still_makes_the_next_player_draw_for_scoring() -> None:
    """docs/rules/uno.md §9.1: "If that card is a Draw Two or a Wild Draw Four, the next player still draws
    the cards, with no answer, so that they count for scoring." """
    hands = [[card("red Draw Two")], [card("Super Star")], [card("green 8")]]
    state = table(hands, card("red 5"), pile=[card("blue 9"), card("blue 3")])
    state = play(state, 0, "red Draw Two")
    assert state.scores == (50 + 9 + 3 + 8, 0, 0)


def test_the_next_hand_is_dealt_by_the_seat_to_the_left_of_the_last_dealer() -> None:
    """docs/rules/uno.md §3.1: "For every later hand the deal moves one seat left." """
    hands = [[card("red 1")], [card("blue 7")], [card("green 0")]]
    state = play(table(hands, card("red 5"), dealer=2), 0, "red 1")
    assert state.dealer == 0
    assert state.hand_number == 2
    assert [len(h) for h in state.hands] == [7, 7, 7] or CARD_KIND[state.discard[0]] == UnoKind.DRAW_TWO
    assert count_cards(state) == 112
    assert ENGINE.view(state, None).last_hand_winner == 0


def test_the_game_ends_when_a_player_reaches_the_target() -> None:
    """docs/rules/uno.md §9.3: "The game ends when a player's score reaches the `target` (500 unless the table
    chose another)." """
    hands = [[card("red 1")], [card("blue 7")], [card("green 0")]]
    state = play(table(hands, card("red 5"), scores=(495, 100, 0)), 0, "red 1")
    assert state.stage == uno.OVER
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    assert outcome.winners == (0,)
    assert outcome.scores == (502, 100, 0)
    assert ENGINE.to_act(state) == ()
    assert all(ENGINE.legal_actions(state, s) == () for s in range(3))
    assert ENGINE.view(state, None).stage == UnoStage.GAME_OVER


def test_lowest_wins_charges_each_player_their_own_hand() -> None:
    """docs/rules/uno.md §9.4: "With `lowest_wins`, each player is charged the value of their own hand at the
    end of each hand instead." """
    hands = [[card("red 1")], [card("blue 7")], [card("green 0")]]
    state = table(hands, card("red 5"), options={"lowest_wins": "true"}, scores=(10, 20, 30))
    state = play(state, 0, "red 1")
    assert state.scores == (10, 27, 30)
    assert state.stage != uno.OVER


def test_lowest_wins_ends_at_the_target_and_players_tied_for_lowest_share_the_win() -> None:
    """docs/rules/uno.md §9.4: "When someone reaches the target the game ends and the lowest total wins;
    players tied for the lowest share the win." """
    hands = [[card("red 1")], [card("blue 7")], [card("green 0")], [card("Wild")]]
    state = table(hands, card("red 5"), options={"lowest_wins": "true"}, scores=(100, 93, 100, 460))
    state = play(state, 0, "red 1")
    assert state.scores == (100, 100, 100, 510)
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    assert outcome.winners == (0, 1, 2)


# ---- texts ------------------------------------------------------------------------------------------------


def test_labels_and_events_name_cards_and_seats() -> None:
    state = _two_left(flag=True)
    assert texts(state, None)[0] == "Player 1 played the red 1 and called UNO"
    hands = [[card("Wild"), card("red 1"), card("red 2")], [card("blue 9")]]
    state = table(hands, card("red 5"))
    assert ENGINE.describe(state, 0, PlayCard(card("Wild"), BLUE)) == "Play Wild (choose blue)"
    assert ENGINE.describe(state, 0, Draw()) == "Draw a card"
    assert ENGINE.describe(state, 1, Catch(0)) == "Catch {p0}: UNO not called"
    assert ENGINE.view(state, None).phase == "{p0} to play"


def test_a_drawn_card_is_named_only_to_its_drawer() -> None:
    state = table([[card("red 1")], [card("blue 9")]], card("red 5"), pile=[card("green 4")])
    state = act(state, 0, Draw())
    assert texts(state, 0) == ["you drew green 4"]
    assert texts(state, 1) == ["Player 1 drew a card"]
    assert texts(state, None) == ["Player 1 drew a card"]


def test_every_color_enum_value_round_trips() -> None:
    assert [int(c) for c in UnoColor] == [0, 1, 2, 3, 4]


def test_a_last_card_wild_draw_four_makes_the_next_player_draw_four_with_no_challenge() -> None:
    """docs/rules/uno.md §9.1: "If that card is a Draw Two or a Wild Draw Four, the next player still draws
    the cards, with no answer, so that they count for scoring." (no challenge either: the hand is over)."""
    hands = [[card("Wild Draw Four")], [card("Super Star")], [card("green 8")]]
    state = table(hands, card("red 5"), pile=[card("blue 1"), card("blue 2"), card("blue 3"), card("blue 4")])
    state = play(state, 0, "Wild Draw Four", RED)
    assert state.scores == (50 + 1 + 2 + 3 + 4 + 8, 0, 0)
    assert state.hand_number == 2


def test_a_player_who_forgot_uno_can_be_caught_while_the_next_player_answers_a_draw_two() -> None:
    hands = [[card("red Draw Two"), card("red 1")], [card("Super Star"), card("blue 9"), card("blue 2")]]
    state = play(table([*hands, [card("green 8")]], card("red 5")), 0, "red Draw Two")
    assert Catch(0) in ENGINE.legal_actions(state, 1)
    assert list(ENGINE.legal_actions(state, 2)) == [Catch(0)]
    state = play(state, 1, "Super Star", BLUE)  # the answer is a turn action: the window closes
    assert state.current == 2
    assert list(ENGINE.legal_actions(state, 2)) == [Draw()]
    assert len(state.hands[0]) == 1 + 2


def test_a_two_player_skip_as_next_to_last_card_leaves_the_player_to_act_and_catchable() -> None:
    state = table([[card("red Skip"), card("red 1")], [card("blue 9")]], card("red 5"))
    state = play(state, 0, "red Skip")
    assert ENGINE.to_act(state) == (0,)
    assert CallUno() in ENGINE.legal_actions(state, 0)
    assert list(ENGINE.legal_actions(state, 1)) == [Catch(0)]
    state = act(state, 0, CallUno())
    assert ENGINE.legal_actions(state, 1) == ()
    state = play(state, 0, "red 1")
    assert state.scores == (9, 0)


def test_a_super_star_answer_with_the_next_to_last_card_can_be_caught_without_the_flag() -> None:
    """docs/rules/uno.md §6.4: "The answer carries the UNO call like any play (§7)." """
    hands = [[card("red Draw Two"), card("red 1"), card("red 2")], [card("Super Star"), card("blue 9")]]
    state = play(table([*hands, [card("green 8")]], card("red 5")), 0, "red Draw Two")
    state = play(state, 1, "Super Star", BLUE, uno_flag=False)
    assert state.catchable == 1
    assert Catch(1) in ENGINE.legal_actions(state, 0)
