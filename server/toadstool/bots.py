"""Bots that work for every registered game; each game's sensible bot lives in its own package.

A bot sees only its seat's view and legal actions (never the state), so bots cannot cheat.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any


class RandomBot:
    """Picks uniformly among legal actions; lets optional windows pass most of the time.

    It is the baseline every sensible bot is measured against, and the player of conformance playouts.
    """

    needs_view = False

    def __init__(self, optional_rate: float = 0.25) -> None:
        self.optional_rate = optional_rate

    def choose(self, view: Any, legal: Sequence[Any], must_act: bool, rng: random.Random) -> Any | None:
        if not legal:
            return None
        if not must_act and rng.random() >= self.optional_rate:
            return None
        return legal[rng.randrange(len(legal))]
