"""The one backoff every reconnecting client uses (toadstool_clients.backoff): the waits grow, never pass
their cap, and are jittered. Seeded random numbers; no clock is read."""

from __future__ import annotations

import itertools
import random
import statistics

from toadstool_clients.backoff import backoff


class _Highest(random.Random):
    """Draws the top of every range, so the waits are exactly their ceilings."""

    def random(self) -> float:
        return 1.0


def test_the_waits_double_from_the_first_until_the_cap() -> None:
    waits = list(itertools.islice(backoff(first=0.25, cap=10.0, rng=_Highest()), 9))
    assert waits == [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 10.0, 10.0, 10.0]


def test_no_wait_is_longer_than_the_cap_or_than_its_ceiling() -> None:
    rng = random.Random(7)
    for first, cap in [(0.25, 10.0), (2.0, 3.0), (5.0, 1.0), (0.25, 0.0)]:
        for n, wait in enumerate(itertools.islice(backoff(first, cap, rng), 40)):
            assert 0.0 <= wait <= min(cap, first * 2**n)


def test_the_waits_are_jittered_so_clients_that_lost_one_server_do_not_return_together() -> None:
    first_waits = [next(backoff(cap=10.0, rng=random.Random(seed))) for seed in range(50)]
    assert len(set(first_waits)) == 50, "fifty clients, fifty different first waits"
    assert min(first_waits) < 0.05, "spread over the whole first range"
    assert max(first_waits) > 0.2, "spread over the whole first range"
    # The same seed gives the same waits: the jitter is the only randomness.
    assert list(itertools.islice(backoff(rng=random.Random(3)), 10)) == list(
        itertools.islice(backoff(rng=random.Random(3)), 10)
    )


def test_on_average_each_wait_is_longer_than_the_one_before_until_the_cap() -> None:
    rng = random.Random(11)
    runs = [list(itertools.islice(backoff(first=0.25, cap=10.0, rng=rng), 8)) for _ in range(2000)]
    means = [statistics.fmean(run[n] for run in runs) for n in range(8)]
    assert all(later > earlier * 1.6 for earlier, later in itertools.pairwise(means[:6])), means
    assert 4.5 < means[7] < 5.5, "capped at 10 s: full jitter averages half the cap"
