"""bench/bots.py's measuring, at a tiny size: a match-up's JSON line, and `--oracle`'s sampler dealing the hard
bot the real hidden cards with only the decks' order left to chance (the ceiling it measures)."""

from __future__ import annotations

import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import bots

from toadstool.bots import Budget
from toadstool.engine import creation_record, parse_options
from toadstool.games import get_game
from toadstool.games.powerup.determinize import DETERMINIZER


def test_a_match_up_prints_its_wins_rate_and_interval() -> None:
    line = bots.measure("powerup", 2, 1, Budget(ms=None, iterations=8), False, 1, ["hard_vs_normal"], oracle=True)
    assert line["oracle"] is True
    result = line["hard_vs_normal"]
    assert 0 <= result["wins"] <= 2
    low, high = result["ci95"]
    assert 0 <= low <= high <= 1


def test_the_oracle_deals_the_real_hidden_cards_and_shuffles_only_the_decks() -> None:
    engine = get_game("powerup").engine
    state = engine.new(4, {}, 5)
    sampler = bots.OracleSampler("powerup", DETERMINIZER)
    sampler.observe(state, None, None)
    sample = sampler.sample(engine.view(state, 0), random.Random(1))
    assert sample.level == state.level  # the others' face-down cards, as they are
    assert sample.hands == state.hands
    assert Counter(sample.level_deck) == Counter(state.level_deck)
    assert sample.level_deck != state.level_deck  # the order is chance
    assert sample.rng_state != state.rng_state
    assert sampler.scale == DETERMINIZER.scale  # the rest is the game's own determinizer


def test_the_oracle_replaces_uno_named_tuple_fields() -> None:
    engine = get_game("uno").engine
    state = engine.new(4, creation_record(engine, parse_options(engine.options, {})), 2)
    sampler = bots.OracleSampler("uno", object())
    sampler.observe(state, None, None)
    sample = sampler.sample(None, random.Random(3))
    assert sample.hands == state.hands
    assert sorted(sample.draw_pile) == sorted(state.draw_pile)
    assert sample.rng != state.rng
