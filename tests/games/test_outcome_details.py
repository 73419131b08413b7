"""Each game's own account of how it ended (`Outcome.details`), checked against the game as it was played:
UNO's hands add up to the final scores, Level Up!'s rounds and coins to the totals, Power Up names every
eliminated seat once in the round it went out, Kart lists every racer in finishing order. Seeded games
played by the sensible bots, observed event by event; then the same account over a real server's Watch,
with names in place of the seat placeholders.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from toadstool.engine import Outcome, parse_options
from toadstool.games import get_game
from toadstool.selfplay import play
from toadstool_clients.connection import Client

SEEDS = (1, 2, 3)


def _played(game: str, seed: int, players: int = 4, options: dict[str, Any] | None = None) -> tuple[Outcome, list[str]]:
    """The outcome of a seeded game and every event text said on the way (seat placeholders kept)."""
    spec = get_game(game)
    events: list[str] = []

    def observe(state: Any, seat: int | None, action: Any) -> None:
        events.extend(event.text for event in spec.engine.last_events(state))

    parsed = parse_options(spec.engine.options, options) if options is not None else None
    result = play(spec.engine, [spec.smart_bot() for _ in range(players)], seed, options=parsed, observe=observe)
    return result.outcome, events


@pytest.mark.parametrize("seed", SEEDS)
def test_unos_hands_are_the_hands_played_and_add_up_to_the_final_scores(seed: int) -> None:
    outcome, events = _played("uno", seed)
    won = [e for e in events if " went out and won the hand " in e]
    assert len(outcome.details) == len(won) >= 1
    totals = [0] * len(outcome.scores)
    for number, line in enumerate(outcome.details, start=1):
        match = re.fullmatch(rf"Hand {number}: \{{p(\d)\}} went out and scored (\d+) points", line)
        assert match, line
        seat, points = int(match[1]), int(match[2])
        assert won[number - 1].startswith(f"{{p{seat}}} went out")
        assert f"({points} points" in won[number - 1]
        totals[seat] += points
    assert tuple(totals) == outcome.scores


def test_with_lowest_wins_unos_hands_say_the_others_were_charged() -> None:
    outcome, _ = _played("uno", 2, options={"target": "100", "lowest_wins": "true"})
    assert outcome.details
    assert all(
        re.fullmatch(r"Hand \d+: \{p\d\} went out; the others were charged \d+ points", d) for d in outcome.details
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_level_ups_rounds_and_coins_add_up_to_the_totals(seed: int) -> None:
    outcome, _ = _played("levelup", seed)
    rounds = [d for d in outcome.details if d.startswith("Round ")]
    assert [d.split(":")[0] for d in rounds] == ["Round 1", "Round 2", "Round 3"]
    totals = [0] * len(outcome.scores)
    for line in outcome.details:
        for seat, points in re.findall(r"\{p(\d)\} (\d+)", line):
            totals[int(seat)] += int(points)
    assert tuple(totals) == outcome.scores
    assert all(line.startswith(("Round ", "Coins: ")) for line in outcome.details)


@pytest.mark.parametrize("seed", SEEDS)
def test_power_ups_account_names_each_eliminated_seat_once_in_the_round_it_went_out(seed: int) -> None:
    outcome, events = _played("powerup", seed)
    *eliminations, last = outcome.details
    out = [int(s) for line in eliminations for s in re.findall(r"\{p(\d)\}", line)]
    assert sorted(out) == sorted(set(range(4)) - set(outcome.winners))
    rounds = [int(re.match(r"Round (\d+): ", line)[1]) for line in eliminations]  # type: ignore[index]
    assert rounds == sorted(rounds)
    said = [e for e in events if " has no Extra Lives left and is out." in e]
    assert [re.match(r"\{p(\d)\}", e)[1] for e in said] == [str(s) for s in out]  # type: ignore[index]
    lasted = re.fullmatch(r"The game lasted (\d+) rounds?", last)
    assert lasted, last
    assert int(lasted[1]) >= max(rounds, default=1), last


@pytest.mark.parametrize("seed", SEEDS)
def test_karts_account_is_every_racer_in_finishing_order(seed: int) -> None:
    outcome, _ = _played("kart", seed)
    assert len(outcome.details) == 4
    seats = [int(re.match(r"\d+\. \{p(\d)\}: ", line)[1]) for line in outcome.details]  # type: ignore[index]
    assert sorted(seats) == [0, 1, 2, 3]
    assert seats[0] == outcome.winners[0]
    assert outcome.details[0].endswith("crossed the finish line")
    places = [int(line.split(".")[0]) for line in outcome.details]
    assert places == sorted(places)
    assert places[0] == 1
    assert all(re.search(r"lap [1-3] of 3, field \d+$", line) for line in outcome.details[1:])


@pytest.mark.parametrize("game", ["uno", "powerup", "levelup", "kart"])
async def test_a_real_servers_watch_carries_the_account_with_every_seat_named(client: Client, game: str) -> None:
    created = await client.create_table(game, players=4, bots=4, seed=3, name="account", bot_delay_ms=0)
    table_id = created.table.table_id
    names = [seat.name for seat in created.table.seats]
    async with asyncio.timeout(120):
        async for response in client.watch(table_id):
            update = response.update
            if update.HasField("outcome") and update.outcome.winners:
                break
    details = list(update.outcome.details)
    assert details, update.outcome
    text = "\n".join(details)
    assert "{p" not in text
    assert any(name in text for name in names), (names, text)
