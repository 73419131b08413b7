"""Jittered exponential backoff: how long to wait before each retry of something that reconnects (the
game server's stream in `connection.Client.follow`, the MQTT broker and the table listing in the bridge).

It is for the numbers only. Each caller waits its own way (a plain sleep, or a wait on its stop event, so
that stopping never waits out a delay) and starts a new sequence once it is connected again.
"""

from __future__ import annotations

import random
from collections.abc import Iterator


def backoff(first: float = 0.25, cap: float = 10.0, rng: random.Random | None = None) -> Iterator[float]:
    """The waits before retry 1, 2, 3, ... (endless): retry n waits a random time from 0 up to
    min(cap, first * 2**(n-1)) seconds, so the waits grow, never pass `cap`, and clients that lost one
    server together do not all come back at the same moment ("full jitter"). `rng` makes them repeatable.
    """
    draw = rng.random if rng is not None else random.random
    ceiling = min(cap, first)
    while True:
        yield ceiling * draw()
        ceiling = min(cap, ceiling * 2)
