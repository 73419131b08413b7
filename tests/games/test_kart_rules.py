"""Scenario tests for Super Mario Kart: one or more per rule of docs/rules/kart.md and the printed
rules' worked examples. Each test quotes the ruling it checks, in the words of the rulings the engine was
written from.

Mushroom Loop: ? 9 16 23 30 38 45 52 57; booster 12 27 41 55; mushroom 19 34 48; Thwomp 21 36 50;
shortcuts A 13 -> 20, B 42 -> 49.
"""

from __future__ import annotations

import pytest
from kart_helpers import DK, LUIGI, MARIO, WARIO, E, act, coins_conserved, full_deck, race, texts, with_dice

from toadstool.engine import BadOptions, parse_options
from toadstool.games.kart.data import COINS, Item, KartColor
from toadstool.games.kart.engine import (
    Discard,
    DropBanana,
    EndTurn,
    MoveBanana,
    PayCoins,
    PlaceBanana,
    Roll,
    Stage,
    StayOnTrack,
    TakeShortcut,
    UseItem,
)


def rolls(state: object) -> list[tuple[int, str, int]]:
    return [(e.roll.roller, e.roll.purpose, e.roll.value) for e in E.last_events(state) if e.roll]  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------------ start
def test_start_order_goes_by_the_highest_roll_and_ties_roll_again() -> None:
    """'the highest roll gets start place 1; ties roll again; these rolls earn no coins'."""
    seen_tie = False
    for seed in range(40):
        state = E.new(4, parse_options(E.options, {}), seed)
        start = list(rolls(state))
        assert all(purpose == "start_order" for _, purpose, _ in start)
        seen_tie |= len(start) > 4
        # the last roll of each seat decides among the seats it tied with, so the final order is sorted by
        # each seat's sequence of rolls
        sequences: dict[int, list[int]] = {s: [] for s in range(4)}
        for roller, _, value in start:
            sequences[roller].append(value)
        assert list(state.start_order) == sorted(range(4), key=lambda s: [-v for v in sequences[s]])
        assert state.bank == COINS
        assert all(k.coins == 0 for k in state.karts)
        assert state.seat == state.start_order[0]
        assert state.stage is Stage.PRE_ROLL
    assert seen_tie


def test_start_places_five_to_seven_get_one_coin() -> None:
    """'start places 5, 6 and 7 get one coin'."""
    state = E.new(7, parse_options(E.options, {}), 3)
    coins = [state.karts[seat].coins for seat in state.start_order]
    assert coins == [0, 0, 0, 0, 1, 1, 1]
    assert state.bank == COINS - 3
    assert all(k.progress == 0 for k in state.karts)


def test_karts_have_the_source_colours_in_seat_order() -> None:
    """'red Mario, blue Luigi, green Yoshi, purple Peach, white Toad, yellow Wario, black Donkey Kong'."""
    view = E.view(E.new(7, parse_options(E.options, {}), 1), None)
    assert [(k.color, k.character) for k in view.karts] == [
        (KartColor.RED, "Mario"),
        (KartColor.BLUE, "Luigi"),
        (KartColor.GREEN, "Yoshi"),
        (KartColor.PURPLE, "Peach"),
        (KartColor.WHITE, "Toad"),
        (KartColor.YELLOW, "Wario"),
        (KartColor.BLACK, "Donkey Kong"),
    ]


def test_an_unknown_track_is_refused_naming_the_known_tracks() -> None:
    """'the table chooses the track': an unknown one is a BadOptions that lists the known tracks."""
    with pytest.raises(BadOptions, match=r"option 'track' must be one of .*mini-loop.*mushroom-loop"):
        parse_options(E.options, {"track": "rainbow-road"})
    with pytest.raises(BadOptions, match=r"unknown track 'rainbow-road'; known tracks: mini-loop, mushroom-loop"):
        E.new(2, {"track": "rainbow-road"}, 1)
    with pytest.raises(BadOptions, match="names a track, not a file"):
        E.new(2, {"track": "/etc/passwd"}, 1)
    mini = E.new(2, parse_options(E.options, {"track": "mini-loop"}), 1)
    assert mini.track.length == 40
    assert E.view(mini, 0).track.name == "mini-loop"
    assert parse_options(E.options, {})["track"] == "mushroom-loop"


# ------------------------------------------------------------------------------------------------- roll
def test_a_plain_roll_moves_that_many_fields() -> None:
    state = act(race(progress=[3, 0, 0], roll=[4]), Roll())
    assert state.karts[0].progress == 7
    assert rolls(state) == [(0, "move", 4)]
    assert state.seat == 1
    assert state.stage is Stage.PRE_ROLL


def test_the_roll_pipeline_doubles_then_halves_once_then_adds_the_coin_bonus() -> None:
    """'Movement = roll, x2 if a Mushroom item was used, then halved once (rounded down) if a halving is
    pending, then plus the coin bonus.'"""
    state = race(
        progress=[1, 0, 0], coins=[3, 0, 0], items=[Item.MUSHROOM, None, None], halving=[True, False, False], roll=[5]
    )
    state = act(state, UseItem(None))
    state = act(state, PayCoins(3))
    state = act(state, Roll())
    assert state.karts[0].progress == 1 + (5 * 2 // 2 + 4)
    assert state.karts[0].halving is False
    assert state.karts[0].coins == 0
    assert coins_conserved(state)


def test_a_halved_five_moves_two() -> None:
    """The source: 'wenn man eine 5 würfelt, darf man nur 2 Felder ziehen'."""
    state = act(race(progress=[1, 0, 0], halving=[True, False, False], roll=[5]), Roll())
    assert state.karts[0].progress == 3


def test_a_move_of_zero_does_not_land() -> None:
    """'A move of 0 does not land and triggers nothing' (a halved 1); the halving is used up."""
    state = race(progress=[8, 8, 0], coins=[2, 2, 0], halving=[True, False, False], roll=[1])
    state = act(state, Roll())
    assert state.karts[0].progress == 8
    assert state.karts[0].coins == 2
    assert state.karts[1].coins == 2
    assert state.karts[0].halving is False
    assert state.seat == 1


def test_one_coin_bundle_per_roll_at_the_listed_prices() -> None:
    """'pay coins for extra fields (one bundle per roll: 1 coin +1, 3 coins +4, 5 coins +7, 10 coins +15)'."""
    state = race(coins=[10, 0, 0])
    assert {a.coins for a in E.legal_actions(state, 0) if isinstance(a, PayCoins)} == {1, 3, 5, 10}
    state = act(state, PayCoins(10))
    assert not any(isinstance(a, PayCoins) for a in E.legal_actions(state, 0))
    assert state.bank == COINS
    assert state.karts[0].coins == 0
    state = E.apply(state, 0, Roll())
    assert state.karts[0].progress >= 16
    poor = race(coins=[4, 0, 0])
    assert {a.coins for a in E.legal_actions(poor, 0) if isinstance(a, PayCoins)} == {1, 3}


def test_every_six_earns_a_coin_while_the_bank_has_one() -> None:
    """'Every roll of 6 during play (move, booster, Thwomp) earns one coin from the bank, if the bank has any.'"""
    state = act(race(progress=[1, 0, 0], roll=[6]), Roll())
    assert state.karts[0].coins == 1
    assert state.bank == COINS - 1
    broke_bank = race(progress=[1, 0, 0], coins=[0, 10, 10], roll=[6])
    assert broke_bank.bank == 0
    state = act(broke_bank, Roll())
    assert state.karts[0].coins == 0
    assert coins_conserved(state)
    # a Thwomp roll of 6 earns one too (15 + 6 = 21, a Thwomp; then the Thwomp roll is a 6)
    state = act(race(progress=[15, 0, 0], roll=[6, 6]), Roll())
    assert rolls(state) == [(0, "move", 6), (0, "thwomp", 6)]
    assert state.karts[0].coins == 2
    assert state.karts[0].skips == 0


# ---------------------------------------------------------------------------------------------- landing
def test_landing_resolves_same_field_then_banana_then_field_effect() -> None:
    """'On landing, resolve in this order: same-field charge, banana chip, field effect'."""
    state = race(progress=[6, 9, 0], coins=[3, 2, 0], bananas=[9], deck=full_deck([Item.MUSHROOM]), roll=[3])
    state = act(state, Roll())
    text = texts(state)
    pays = next(i for i, t in enumerate(text) if "pays a coin" in t)
    slips = next(i for i, t in enumerate(text) if "slips" in t)
    draws = next(i for i, t in enumerate(text) if "draws the Mushroom" in t)
    assert pays < slips < draws
    # 3 coins - 1 shared field = 2, then half of 2 lost to the banana
    assert state.karts[0].coins == 1
    assert state.karts[1].coins == 1
    assert state.karts[0].skips == 1
    assert state.karts[0].item is Item.MUSHROOM
    assert state.bananas == ()
    assert coins_conserved(state)


def test_fields_act_only_when_landing_not_when_passing() -> None:
    """'Fields act when you land (end a move) on them, never when passing over.'"""
    state = act(race(progress=[18, 0, 0], bananas=[20], roll=[4]), Roll())  # over 19, 20 (chip), 21 to 22
    kart = state.karts[0]
    assert kart.progress == 22
    assert kart.skips == 0
    assert not kart.halving
    assert state.bananas == (20,)


def test_the_source_same_field_example_mario_luigi_donkey_kong() -> None:
    """The source: 'Mario hat 1 Münze, Luigi 4, Donkey Kong 3 ... Neuer Kontostand: Mario 0, Luigi 2,
    Donkey Kong 2' and Mario skips once."""
    progress = [31, 28, 0, 0, 0, 0, 29]
    state = race(
        7, progress=progress, coins=[1, 4, 0, 0, 0, 0, 3], order=[LUIGI, DK, 2, 3, 4, 5, MARIO], seat=LUIGI, roll=[3]
    )
    state = act(state, Roll())  # Luigi 28 -> 31, Mario's field
    assert (state.karts[MARIO].coins, state.karts[LUIGI].coins) == (0, 3)
    assert state.seat == DK
    state = act(with_dice(state, 2), Roll())  # Donkey Kong 29 -> 31, onto both brothers
    assert (state.karts[MARIO].coins, state.karts[LUIGI].coins, state.karts[DK].coins) == (0, 2, 2)
    assert state.karts[MARIO].skips == 1
    assert state.karts[LUIGI].skips == 0
    assert state.karts[DK].skips == 0
    assert coins_conserved(state)


def test_karts_in_the_start_area_are_exempt_from_the_same_field_rule() -> None:
    """'only karts still at p = 0 are in the start area, and only they are exempt from the same-field rule'."""
    # seat 0 completes a lap to field 0 (progress 60) while seat 1 is still in the start area
    state = act(race(progress=[56, 0, 0], coins=[2, 2, 0], roll=[4]), Roll())
    assert state.karts[0].progress == 60
    assert state.karts[0].coins == 2
    assert state.karts[1].coins == 2
    assert state.karts[1].skips == 0
    # "same field" compares progress mod N: a kart a lap behind on field 0 does pay
    state = act(race(progress=[116, 60, 0], coins=[2, 1, 0], roll=[4]), Roll())
    assert state.karts[0].coins == 1
    assert state.karts[1].coins == 0


# ---------------------------------------------------------------------------------------------- fields
def test_a_question_mark_draws_an_item_face_up() -> None:
    """'?: draw an item and place it face up'."""
    state = act(race(progress=[5, 0, 0], deck=full_deck([Item.RED_SHELL]), roll=[4]), Roll())
    assert state.karts[0].item is Item.RED_SHELL
    assert len(state.deck) == 34
    assert E.view(state, 2).karts[0].item is Item.RED_SHELL


def test_holding_an_item_you_draw_nothing() -> None:
    """'a player holds at most one item (holding one, you draw nothing)'."""
    state = race(progress=[5, 0, 0], items=[Item.FEATHER, None, None], roll=[4])
    after = act(state, Roll())
    assert after.karts[0].item is Item.FEATHER
    assert after.deck == state.deck


def test_a_drawn_dud_goes_back_under_the_deck() -> None:
    """'Dud: back under the deck, nothing happens.'"""
    state = act(race(progress=[5, 0, 0], deck=full_deck([Item.DUD]), roll=[4]), Roll())
    assert state.karts[0].item is None
    assert state.deck[-1] is Item.DUD
    assert len(state.deck) == 35
    assert state.seat == 1


def test_a_drawn_banana_is_placed_at_once_on_a_free_field_or_lost() -> None:
    """'Banana: the drawer may place a chip at once, or lose it'; 'place a chip on any free field (no kart,
    no chip)'."""
    state = act(race(progress=[5, 11, 0], bananas=[40], deck=full_deck([Item.BANANA]), roll=[4]), Roll())
    assert state.stage is Stage.BANANA
    assert state.seat == 0
    legal = E.legal_actions(state, 0)
    places = {a.field for a in legal if isinstance(a, PlaceBanana)}
    assert DropBanana() in legal
    assert places == set(range(60)) - {9, 11, 0, 40}  # my kart, Luigi, Yoshi at the start, a chip
    placed = act(state, PlaceBanana(33))
    assert placed.bananas == (33, 40)
    assert placed.deck[-1] is Item.BANANA
    assert placed.seat == 1
    dropped = act(state, DropBanana())
    assert dropped.bananas == (40,)
    assert dropped.deck[-1] is Item.BANANA


def test_with_all_five_chips_out_a_banana_moves_one() -> None:
    """'with all five out, move one'."""
    state = act(race(progress=[5, 0, 0], bananas=[20, 30, 40, 50, 58], deck=full_deck([Item.BANANA]), roll=[4]), Roll())
    legal = E.legal_actions(state, 0)
    assert not any(isinstance(a, PlaceBanana) for a in legal)
    assert MoveBanana(20, 33) in legal
    assert MoveBanana(20, 30) not in legal
    state = act(state, MoveBanana(20, 33))
    assert state.bananas == (30, 33, 40, 50, 58)


def test_a_booster_offers_another_roll_with_a_new_bundle() -> None:
    """'Booster: the player may roll again at once. Before that roll they may pay a coin bundle again, and
    use an item only if none was used this turn.'"""
    state = race(progress=[8, 0, 0], coins=[2, 0, 0], items=[Item.MUSHROOM, None, None], roll=[4])
    state = act(state, Roll())
    assert state.karts[0].progress == 12
    assert state.stage is Stage.BOOSTER
    assert state.seat == 0
    legal = E.legal_actions(state, 0)
    assert {Roll(), PayCoins(1), UseItem(None), EndTurn()} <= set(legal)
    state = act(state, PayCoins(1))
    assert EndTurn() not in E.legal_actions(state, 0)
    state = act(with_dice(state, 3), Roll())
    assert rolls(state) == [(0, "booster", 3)]
    assert state.karts[0].progress == 16
    assert state.seat == 1


def test_after_using_an_item_the_booster_roll_allows_no_other() -> None:
    """'use an item only if none was used this turn'."""
    state = race(progress=[8, 20, 0], items=[Item.GHOST, Item.MUSHROOM, None], roll=[4])
    state = act(state, UseItem(1))
    state = act(state, Roll())
    assert state.stage is Stage.BOOSTER
    assert state.karts[0].item is Item.MUSHROOM
    assert not any(isinstance(a, UseItem) for a in E.legal_actions(state, 0))


def test_declining_the_booster_roll_ends_the_turn() -> None:
    state = act(race(progress=[8, 0, 0], roll=[4]), Roll())
    state = act(state, EndTurn())
    assert state.seat == 1
    assert state.karts[0].progress == 12


def test_a_skip_earned_on_a_booster_does_not_cancel_the_booster_roll() -> None:
    """'a skip earned this way applies to the kart's next turn and does not cancel a booster roll'."""
    state = act(race(progress=[8, 0, 0], coins=[3, 0, 0], bananas=[12], roll=[4]), Roll())
    assert state.stage is Stage.BOOSTER
    assert state.karts[0].skips == 1
    assert state.karts[0].coins == 1
    state = act(with_dice(state, 2), Roll())
    assert state.karts[0].progress == 14
    # the skip is spent on seat 0's next turn: seats 1 and 2 move, then seat 0 is passed over
    state = act(with_dice(state, 1), Roll())
    state = act(with_dice(state, 2), Roll())
    assert state.seat == 1
    assert state.karts[0].skips == 0
    assert any("skips this turn" in t for t in texts(state))


def test_a_mushroom_field_halves_the_next_move() -> None:
    """'Mushroom field: the next move is halved.'"""
    state = act(race(progress=[15, 0, 0], roll=[4]), Roll())
    assert state.karts[0].progress == 19
    assert state.karts[0].halving


@pytest.mark.parametrize(("value", "skipped"), [(6, 0), (5, 0), (4, 1), (3, 1), (2, 2), (1, 2)])
def test_the_thwomp_roll_is_automatic(value: int, skipped: int) -> None:
    """'Thwomp: roll at once: 5-6 nothing, 3-4 skip one turn, 1-2 skip two turns.'"""
    state = act(race(progress=[17, 0, 0], roll=[4, value]), Roll())
    assert state.karts[0].progress == 21
    assert rolls(state) == [(0, "move", 4), (0, "thwomp", value)]
    assert state.karts[0].skips == skipped
    assert state.seat == 1


def test_a_banana_chip_costs_a_turn_and_half_the_coins_rounded_up() -> None:
    """'Banana chip: skip one turn, lose half your coins (odd counts round up: 9 coins lose 5), the chip goes
    back.'"""
    state = act(race(progress=[1, 0, 0], coins=[9, 0, 0], bananas=[4, 7], roll=[3]), Roll())
    kart = state.karts[0]
    assert kart.coins == 4
    assert kart.skips == 1
    assert state.bank == COINS - 4
    assert state.bananas == (7,)
    assert E.view(state, None).banana_chips_left == 4


# -------------------------------------------------------------------------------------------- shortcuts
def test_the_source_wario_feather_example() -> None:
    """The source: 'Wario hat eine Feder und steht 2 Felder vor einer Abkürzung. Wenn er nun eine 4 oder
    höher würfelt, darf er die Abkürzung benutzen. Eine 3 oder weniger reicht nicht. Außerdem muß er die
    Feder abgeben'."""

    def wario(value: int) -> object:
        items = [None] * 6
        items[WARIO] = Item.FEATHER
        return race(6, progress=[0, 0, 0, 0, 0, 11], items=items, seat=WARIO, roll=[value])

    for value in (1, 2, 3):
        state = act(wario(value), Roll(), WARIO)  # type: ignore[arg-type]
        assert state.karts[WARIO].progress == 11 + value
        assert state.karts[WARIO].item is Item.FEATHER
    for value in (4, 5, 6):
        state = act(wario(value), Roll(), WARIO)  # type: ignore[arg-type]
        assert state.stage is Stage.SHORTCUT
        assert set(E.legal_actions(state, WARIO)) == {TakeShortcut(0), StayOnTrack()}
        cut = act(state, TakeShortcut(0), WARIO)
        # 'lands on the exit field plus (move - d - 2)'
        assert cut.karts[WARIO].progress == 20 + (value - 4)
        assert cut.karts[WARIO].item is None
        assert cut.deck[-1] is Item.FEATHER
        stay = act(state, StayOnTrack(), WARIO)
        assert stay.karts[WARIO].progress == 11 + value
        assert stay.karts[WARIO].item is Item.FEATHER


def test_the_shortcut_counts_the_final_move_after_bonus() -> None:
    """'only if the final move (after Mushroom, halving and coin bonus) reaches past the arrow'."""
    state = race(progress=[30, 0, 0], coins=[5, 0, 0], items=[Item.FEATHER, None, None], roll=[2])
    state = act(act(state, PayCoins(5)), Roll())  # 2 + 7 = 9 from field 30; B starts at 42 (d = 12): too short
    assert state.karts[0].progress == 39
    assert state.stage is not Stage.SHORTCUT
    state = race(progress=[35, 0, 0], coins=[5, 0, 0], items=[Item.FEATHER, None, None], roll=[2])
    state = act(act(state, PayCoins(5)), Roll())  # 9 pips, d = 7: lands on 49 + 0
    state = act(state, TakeShortcut(1))
    assert state.karts[0].progress == 49


# ------------------------------------------------------------------------------------------------ items
def test_a_mushroom_doubles_this_move() -> None:
    """'Mushroom: double this move (declared before rolling).'"""
    state = act(act(race(progress=[1, 0, 0], items=[Item.MUSHROOM, None, None], roll=[3]), UseItem(None)), Roll())
    assert state.karts[0].progress == 7
    assert state.deck[-1] is Item.MUSHROOM


def test_a_green_shell_hits_one_to_four_ahead() -> None:
    """'Green Shell: hit a player 1-4 fields ahead ... the victim's progress becomes the shooter's progress
    - 1 ... and they lose half their coins (no field effect, no same-field charge).'"""
    state = race(4, progress=[10, 14, 15, 10], coins=[0, 3, 2, 0], items=[Item.GREEN_SHELL, None, None, None])
    assert {a.target for a in E.legal_actions(state, 0) if isinstance(a, UseItem)} == {1}
    state = act(state, UseItem(1))
    assert state.karts[1].progress == 9
    assert state.karts[1].coins == 1
    assert state.karts[1].skips == 0
    assert state.karts[0].item is None
    assert state.deck[-1] is Item.GREEN_SHELL
    assert coins_conserved(state)
    assert state.seat == 0
    assert state.stage is Stage.PRE_ROLL


def test_a_shell_victim_never_goes_below_the_start() -> None:
    state = act(race(progress=[0, 3, 0], items=[Item.GREEN_SHELL, None, None]), UseItem(1))
    assert state.karts[1].progress == 0


def test_a_red_shell_hits_one_to_eleven_ahead() -> None:
    """'Red Shell: 1-11 fields ahead'."""
    state = race(4, progress=[10, 21, 22, 9], items=[Item.RED_SHELL, None, None, None])
    assert {a.target for a in E.legal_actions(state, 0) if isinstance(a, UseItem)} == {1}


def test_the_blue_shell_hits_a_leader_within_fifty_one() -> None:
    """'Blue Shell: hit the leader if 1-51 fields ahead (not usable by the leader; with several leaders the
    user picks one): they skip one turn and lose half their coins.'"""
    state = race(4, progress=[10, 40, 40, 20], coins=[0, 5, 0, 0], items=[Item.BLUE_SHELL, None, None, None])
    assert {a.target for a in E.legal_actions(state, 0) if isinstance(a, UseItem)} == {1, 2}
    hit = act(state, UseItem(1))
    assert hit.karts[1].skips == 1
    assert hit.karts[1].coins == 2
    assert hit.karts[1].progress == 40
    far = race(progress=[10, 62, 0], items=[Item.BLUE_SHELL, None, None])
    assert not any(isinstance(a, UseItem) for a in E.legal_actions(far, 0))
    leader = race(progress=[40, 40, 0], items=[Item.BLUE_SHELL, None, None])
    assert not any(isinstance(a, UseItem) for a in E.legal_actions(leader, 0))


def test_lightning_halves_the_others_and_rules_the_shared_field() -> None:
    """'Lightning (declared before rolling): every other player's next move is halved, and on this move the
    user pays nothing on a shared field while the others there skip one turn.'"""
    state = race(progress=[3, 7, 2], coins=[2, 2, 0], items=[Item.LIGHTNING, None, None], roll=[4, 6])
    state = act(state, UseItem(None))
    assert [k.halving for k in state.karts] == [False, True, True]
    state = act(state, Roll())
    assert state.karts[0].coins == 2
    assert state.karts[1].coins == 2
    assert state.karts[0].skips == 0
    # Luigi's turn comes next and is skipped at once; Yoshi's 6 is halved to 3
    assert "{p1} skips this turn" in texts(state)
    assert state.seat == 2
    state = act(with_dice(state, 6), Roll())
    assert state.karts[2].progress == 5
    assert not state.karts[2].halving


def test_halvings_do_not_stack() -> None:
    """'halvings do not stack ... One halving clears every pending halving.'"""
    state = race(progress=[15, 0, 0], roll=[4, 6])
    state = act(state, Roll())  # onto the mushroom field 19
    assert state.karts[0].halving
    lightning = race(
        progress=[0, 19, 0], items=[None, Item.LIGHTNING, None], halving=[False, True, False], seat=1, roll=[4]
    )
    lightning = act(lightning, UseItem(None), 1)
    assert lightning.karts[0].halving
    assert lightning.karts[2].halving


def test_the_ghost_takes_another_players_item() -> None:
    """'Ghost: take another player's item.'"""
    state = race(progress=[1, 2, 3], items=[Item.GHOST, None, Item.RED_SHELL])
    assert [a for a in E.legal_actions(state, 0) if isinstance(a, UseItem)] == [UseItem(2)]
    state = act(state, UseItem(2))
    assert state.karts[0].item is Item.RED_SHELL
    assert state.karts[2].item is None
    assert state.deck[-1] is Item.GHOST
    # one item per turn: the stolen shell waits for the next turn
    assert not any(isinstance(a, UseItem) for a in E.legal_actions(state, 0))


def test_only_feathers_ghosts_and_shells_may_be_thrown_away() -> None:
    """'throw away a Feather, Ghost or Shell' (the source: 'Das gilt für Federn, Geister und alle
    Panzer-Versionen')."""
    for item in (Item.FEATHER, Item.GHOST, Item.GREEN_SHELL, Item.RED_SHELL, Item.BLUE_SHELL):
        state = race(items=[item, None, None])
        state = act(state, Discard())
        assert state.karts[0].item is None
        assert state.deck[-1] is item
    for item in (Item.MUSHROOM, Item.LIGHTNING):
        assert Discard() not in E.legal_actions(race(items=[item, None, None]), 0)


def test_the_deck_is_35_cards_and_used_items_go_under_it() -> None:
    """'Item deck (35): Banana 10, Mushroom 5, Feather 5, Green Shell 5, Red Shell 3, Blue Shell 1,
    Lightning 1, Ghost 2, Dud 3. Used items go under the deck; the deck is never reshuffled.'"""
    state = E.new(3, parse_options(E.options, {}), 9)
    counts = {item: state.deck.count(item) for item in Item}
    assert counts == {
        Item.BANANA: 10,
        Item.MUSHROOM: 5,
        Item.FEATHER: 5,
        Item.GREEN_SHELL: 5,
        Item.RED_SHELL: 3,
        Item.BLUE_SHELL: 1,
        Item.LIGHTNING: 1,
        Item.GHOST: 2,
        Item.DUD: 3,
    }


# ------------------------------------------------------------------------------------------------ finish
def test_the_first_kart_to_reach_three_laps_wins_and_ties_share_a_rank() -> None:
    """'The first kart whose progress reaches 3 x N wins; the others are ranked by progress (equal progress
    shares a rank).'"""
    state = race(4, progress=[178, 100, 100, 130], roll=[3])
    assert E.view(state, None).scores == (2, 1, 1, 2)
    state = act(state, Roll())
    outcome = E.outcome(state)
    assert outcome is not None
    assert outcome.winners == (0,)
    assert outcome.scores == (3, 1, 1, 2)
    view = E.view(state, 1)
    assert view.ranking == (1, 3, 3, 2)
    assert view.winner == 0
    assert view.turn is None
    assert view.stage is Stage.FINISHED
    assert E.to_act(state) == ()
    assert all(E.legal_actions(state, s) == () for s in range(4))


def test_landing_past_the_finish_line_starts_the_next_lap() -> None:
    state = act(race(progress=[58, 0, 0], roll=[4]), Roll())
    view = E.view(state, 0)
    assert view.karts[0].lap == 2
    assert view.karts[0].field == 2
    assert view.scores[0] == 1


def test_skipped_turns_pass_automatically() -> None:
    """'Automatic ... skipped turns of any kind'."""
    state = act(race(progress=[1, 5, 5], skips=[0, 2, 0], roll=[1]), Roll())
    assert state.seat == 2
    assert state.karts[1].skips == 1
