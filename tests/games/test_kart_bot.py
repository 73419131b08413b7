"""The Kart bot plays sensibly: it beats RandomBots clearly (fixed seeds, so the figures are stable)."""

from __future__ import annotations

import random

from kart_helpers import E, act, full_deck, race

from toadstool.games.kart import BOT
from toadstool.games.kart.data import Item
from toadstool.games.kart.engine import PayCoins, PlaceBanana, Roll, StayOnTrack, TakeShortcut, UseItem
from toadstool.selfplay import selfplay_summary


def test_the_bot_wins_clearly_more_than_its_share_against_random_bots() -> None:
    two = selfplay_summary("kart", games=200, seed=1000, players=2, smart_seats=(0,))
    four = selfplay_summary("kart", games=200, seed=1000, players=4, smart_seats=(0,))
    assert two["wins_by_seat"][0] / 200 >= 0.62  # fair share 0.50
    assert four["wins_by_seat"][0] / 200 >= 0.38  # fair share 0.25


def test_the_bot_shells_the_nearest_kart_ahead() -> None:
    state = race(4, progress=[10, 20, 13, 15], items=[Item.RED_SHELL, None, None, None])
    choice = BOT().choose(E.view(state, 0), E.legal_actions(state, 0), True, random.Random(1))
    assert choice == UseItem(2)


def test_the_bot_takes_a_shortcut_that_gains() -> None:
    state = act(race(progress=[11, 0, 0], items=[Item.FEATHER, None, None], roll=[5]), Roll())
    choice = BOT().choose(E.view(state, 0), E.legal_actions(state, 0), True, random.Random(1))
    assert choice == TakeShortcut(0)
    assert StayOnTrack() in E.legal_actions(state, 0)


def test_the_bot_pays_coins_to_win_the_race() -> None:
    state = race(progress=[175, 100, 100], coins=[3, 0, 0])  # 5 to go: a roll of 1 + 4 always finishes
    choice = BOT().choose(E.view(state, 0), E.legal_actions(state, 0), True, random.Random(1))
    assert choice == PayCoins(3)


def test_the_bot_pays_coins_to_reach_a_shortcut_with_its_feather() -> None:
    state = race(progress=[8, 0, 0], coins=[3, 0, 0], items=[Item.FEATHER, None, None])  # A at 13: needs 7
    choice = BOT().choose(E.view(state, 0), E.legal_actions(state, 0), True, random.Random(1))
    assert choice == PayCoins(3)
    cheap = race(progress=[11, 0, 0], coins=[3, 0, 0], items=[Item.FEATHER, None, None])  # needs 4: no coins
    assert BOT().choose(E.view(cheap, 0), E.legal_actions(cheap, 0), True, random.Random(1)) == Roll()


def test_the_bot_puts_a_banana_ahead_of_a_rival_and_not_in_its_own_way() -> None:
    state = act(race(progress=[5, 30, 0], deck=full_deck([Item.BANANA]), roll=[4]), Roll())
    choice = BOT().choose(E.view(state, 0), E.legal_actions(state, 0), True, random.Random(1))
    assert isinstance(choice, PlaceBanana)
    assert 1 <= choice.field - 30 <= 6
