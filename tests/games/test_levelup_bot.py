"""The Level Up! bot plays sensibly and beats RandomBot; stubborn tables still finish every round."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from toadstool.bots import RandomBot
from toadstool.games.levelup import BOT, data
from toadstool.games.levelup.engine import ENGINE, CastVote, Pass, VoteChoice
from toadstool.selfplay import play


def test_the_bot_wins_far_more_than_its_fair_share_against_random_bots() -> None:
    for players, games, least in ((3, 90, 0.6), (4, 90, 0.45), (6, 90, 0.28)):
        wins = 0
        for seed in range(games):
            bots = [BOT(), *(RandomBot() for _ in range(players - 1))]
            wins += 0 in play(ENGINE, bots, 1000 + seed).outcome.winners
        assert wins / games >= least, f"{players} players: won {wins} of {games}"


def test_a_table_of_bots_finishes() -> None:
    for players in (3, 6):
        result = play(ENGINE, [BOT() for _ in range(players)], 5)
        assert result.outcome.winners


class _Naysayer:
    """Votes No! (or Thwomp Vote) whenever it can, never stops a nominee, never cancels: the worst case."""

    needs_view = False

    def choose(self, view: Any, legal: Sequence[Any], must_act: bool, rng: random.Random) -> Any | None:
        if not must_act:
            return None
        votes = [a for a in legal if isinstance(a, CastVote)]
        if votes:
            return max(votes, key=lambda a: a.choice)
        if Pass() in legal:
            return Pass()
        return legal[rng.randrange(len(legal))]


def test_rounds_end_even_when_everybody_always_votes_no() -> None:
    """A round must always end: No! cards (at most 12 a round) are fewer than the 13 characters, and
    everything that moves characters down is used up within the round."""
    assert max(p * data.NO_CARDS_BY_PLAYERS[p] for p in data.NO_CARDS_BY_PLAYERS) < len(data.CHARACTERS)
    for players in (3, 4, 5, 6):
        for seed in range(3):
            result = play(ENGINE, [_Naysayer() for _ in range(players)], seed, max_actions=20_000)
            assert result.outcome.winners


def test_the_bot_backs_its_own_favourite_and_vetoes_others_when_it_matters() -> None:
    state = ENGINE.new(3, {}, 2)
    view = ENGINE.view(state, 0)
    fav = view.favourites[0]
    legal = (CastVote(VoteChoice.YES), CastVote(VoteChoice.NO))
    rng = random.Random(0)
    mine = type(view)(**{**{f: getattr(view, f) for f in view.__slots__}, "nominee": fav})
    assert BOT().choose(mine, legal, True, rng) == CastVote(VoteChoice.YES)
    other = next(c for c in range(13) if c not in view.favourites)
    theirs = type(view)(**{**{f: getattr(view, f) for f in view.__slots__}, "nominee": other})
    assert BOT().choose(theirs, legal, True, rng) == CastVote(VoteChoice.NO)
