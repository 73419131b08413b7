"""The Power Up hard bot's reads of what the others did (docs/rules/powerup.md §6.4, `determinize.level_reads`):
each seat's keep-or-trade decision is public in the view, and the sampler deals a face-down card its holder
kept high, one whose trade was blocked low, and the card a trade passed on low; opponents hold no 1-Up
Mushroom or Red Shell (they pay at once). A read of how the normal bot plays, not a rule: in real games of
normal bots the reads never contradict the real cards.
"""

from __future__ import annotations

import random

from powerup_helpers import ENGINE, L, act, game, q, set_hands, view

from toadstool.games.powerup.bot import PowerUpBot
from toadstool.games.powerup.data import LEVEL_VALUE, QUESTION_CARD_KIND, CardKind
from toadstool.games.powerup.determinize import DETERMINIZER, level_reads
from toadstool.games.powerup.views import Decision, DrawNewLevel, Keep, PlayCard, PowerUpView, Stage, Trade

K = CardKind


def _values(state_view: PowerUpView, seat: int, samples: int = 200) -> set[int]:
    rng = random.Random(7)
    return {LEVEL_VALUE[DETERMINIZER.sample(state_view, rng).level[seat]] for _ in range(samples)}


def test_each_seats_decision_is_in_everyones_view() -> None:
    state = game(4, [L(8), L(2), L(5), L(9)])  # seats 1, 2, 3, then the dealer, seat 0
    state = set_hands(state, dict.fromkeys(range(4), ()))  # no ? cards: every trade happens at once
    state = act(state, 1, Keep())
    state = act(state, 2, Trade(3))  # seat 3 holds no ? card: the swap happens at once
    assert [s.decision for s in view(state, 0).seats] == [0, Decision.KEPT, Decision.TRADED, 0]
    state = act(state, 3, Keep())
    state = act(state, 0, DrawNewLevel())
    for viewer in (None, 0, 1, 2, 3):
        seats = view(state, viewer).seats
        assert seats[0].decision is Decision.DREW_NEW
        assert seats[1].decision is Decision.KEPT
        assert seats[1].decided
        assert seats[2].decision is Decision.TRADED


def test_a_blocked_trade_is_told_as_blocked() -> None:
    state = game(4, [L(2), L(8), L(5), L(9)])
    state = set_hands(state, {2: (q(K.HAMMER_BROS),)})
    state = act(state, 1, Trade(2))
    state = act(state, 2, PlayCard(K.HAMMER_BROS))
    assert view(state, 3).seats[1].decision is Decision.BLOCKED


def test_a_kept_card_is_dealt_high_and_a_card_a_trade_passed_on_low() -> None:
    state = set_hands(game(4, [L(8), L(2), L(5), L(9)]), dict.fromkeys(range(4), ()))
    state = act(state, 1, Keep())  # seat 1 kept: above 5
    state = act(state, 2, Trade(3))  # seat 2 found its card low and passed it to seat 3
    seen = view(state, 0)  # the dealer, who knows neither card
    assert seen.stage is Stage.KEEP_OR_TRADE
    assert seen.seats[1].level is None
    assert seen.seats[3].level is None
    assert level_reads(seen) == {1: (6, 99), 3: (0, 5)}
    assert min(_values(seen, 1)) >= 6
    assert max(_values(seen, 3)) <= 5
    assert len(_values(seen, 2)) > 5  # seat 2 holds seat 3's dealt card: anything


def test_a_blocked_traders_card_is_dealt_low() -> None:
    state = game(4, [L(6), L(8), L(5), L(9)])
    state = set_hands(state, {2: (q(K.HAMMER_BROS),)})
    state = act(state, 1, Trade(2))
    state = act(state, 2, PlayCard(K.HAMMER_BROS))
    assert level_reads(view(state, 3))[1] == (0, 5)
    assert max(_values(view(state, 3), 1)) <= 5


def test_a_boo_this_round_drops_the_read_of_a_kept_card() -> None:
    """Boo may have shown the keeper that the card they would trade for is lower: a low card is kept."""
    state = set_hands(game(4, [L(2), L(8), L(1), L(9)]), {1: (q(K.BOO),), 2: (), 3: (), 0: ()})
    state = act(state, 1, PlayCard(K.BOO, 2))
    state = act(state, 1, Keep())
    assert 1 not in level_reads(view(state, 3))


def test_opponents_are_dealt_no_card_that_pays_at_once() -> None:
    state = game(4, [L(8), L(2), L(5), L(9)])
    seen = view(state, 0)
    rng = random.Random(3)
    for _ in range(200):
        sample = DETERMINIZER.sample(seen, rng)
        for seat in (1, 2, 3):
            kinds = {QUESTION_CARD_KIND[c] for c in sample.hands[seat]}
            assert not kinds & {K.ONE_UP_MUSHROOM, K.RED_SHELL}, (seat, kinds)


def test_in_real_games_of_normal_bots_the_reads_never_contradict_the_real_cards() -> None:
    bot = PowerUpBot()
    checked = 0
    for seed in range(1, 9):
        state = ENGINE.new(4, {}, seed)
        rng = random.Random(seed)
        for _ in range(3000):
            if ENGINE.outcome(state) is not None:
                break
            for seat in range(4):
                for other, (low, high) in level_reads(ENGINE.view(state, seat)).items():
                    checked += 1
                    assert low <= LEVEL_VALUE[state.level[other]] <= high, (seed, seat, other, state.level)
            waiting = ENGINE.to_act(state)
            chosen = None
            for seat in range(4):
                legal = ENGINE.legal_actions(state, seat)
                if seat not in waiting and legal:
                    action = bot.choose(ENGINE.view(state, seat), legal, False, rng)
                    if action is not None:
                        chosen = (seat, action)
                        break
            if chosen is None:
                seat = waiting[0]
                chosen = (seat, bot.choose(ENGINE.view(state, seat), ENGINE.legal_actions(state, seat), True, rng))
            state = ENGINE.apply(state, *chosen)
    assert checked > 100
