"""Bot levels (issue 46): easy, normal and the hard bot that plans from its own view, in every game, in the
engine layer, over gRPC (CreateTable and AddBot's bot_level, kept across a restart) and in `selfplay --levels`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import grpc
import pytest

from conftest import TEST_LIMITS, toadstool_command
from toadstool.api.v1 import service_pb2
from toadstool.bots import (
    BUDGET_OPTION,
    DEFAULT_BUDGET_MS,
    BotLevel,
    Budget,
    EasyBot,
    HardBot,
    determinizer_of,
    make_bot,
)
from toadstool.engine import Bot, creation_record, parse_options
from toadstool.games import get_game
from toadstool.games.uno.bot import UnoBot
from toadstool.games.uno.engine import CallUno
from toadstool.selfplay import play
from toadstool.server.app import ServerConfig, running_server
from toadstool.server.tables import Status
from toadstool_clients.connection import HOST_TOKEN_KEY, SEAT_TOKEN_KEY, Client

GAME_NAMES = ["uno", "powerup", "kart", "levelup"]


def _record(game: str) -> dict[str, Any]:
    engine = get_game(game).engine
    return creation_record(engine, parse_options(engine.options, dict(engine.quick_options)))


def _decision_points(game: str, seed: int, count: int) -> list[tuple[Any, int]]:
    """(state, seat) of the first `count` decisions of a normal-bot game where the seat to act has a choice."""
    spec = get_game(game)
    engine = spec.engine
    state = engine.new(4, _record(game), seed)
    rng = random.Random(seed)
    bots = [spec.smart_bot() for _ in range(4)]
    found: list[tuple[Any, int]] = []
    while engine.outcome(state) is None and len(found) < count:
        seat = engine.to_act(state)[0]
        legal = engine.legal_actions(state, seat)
        if len(legal) > 1:
            found.append((state, seat))
        action = bots[seat].choose(engine.view(state, seat), legal, True, rng)
        state = engine.apply(state, seat, action)
    return found


# -- the hard bot plans from its view only ------------------------------------------------------------


@pytest.mark.parametrize("game", GAME_NAMES)
def test_the_hard_bots_decision_depends_only_on_what_its_seat_sees(game: str) -> None:
    """Two states that differ only in what the seat cannot see (the determinizer deals the hidden cards,
    decks and dice anew, and the seat's view is checked to be the same) give the same decision with the
    same seed; the states themselves differ."""
    spec = get_game(game)
    engine = spec.engine
    determinizer = determinizer_of(spec)
    assert determinizer is not None
    compared = 0
    for state, seat in _decision_points(game, seed=3, count=12):
        view = engine.view(state, seat)
        other = determinizer.sample(view, random.Random(99))
        if engine.view(other, seat) != view:
            continue  # a view the determinizer rebuilds only nearly (Power Up's discard count, rarely)
        assert _without_events(other) != _without_events(state)
        legal = engine.legal_actions(state, seat)
        assert set(engine.legal_actions(other, seat)) == set(legal)
        decisions = []
        for candidate in (state, other):
            bot = make_bot(game, BotLevel.HARD, Budget(ms=None, iterations=40))
            decisions.append(bot.choose(engine.view(candidate, seat), legal, True, random.Random(5)))
            assert isinstance(bot, HardBot)
            assert bot.last_iterations == 40
        assert decisions[0] == decisions[1]
        assert decisions[0] in legal
        compared += 1
    assert compared >= 3, f"{game}: too few decisions with hidden information to compare"


def _without_events(state: Any) -> Any:
    return dataclasses.replace(state, events=()) if dataclasses.is_dataclass(state) else state._replace(events=())


# -- the hard bot keeps its budget ----------------------------------------------------------------------


class SteppingClock:
    """A clock the test controls: every reading moves it on by `step` seconds."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


@pytest.mark.parametrize("game", GAME_NAMES)
def test_the_hard_bot_stops_at_its_iteration_budget(game: str) -> None:
    engine = get_game(game).engine
    state, seat = _decision_points(game, seed=5, count=1)[0]
    bot = make_bot(game, "hard", Budget(ms=None, iterations=23))
    assert isinstance(bot, HardBot)
    action = bot.choose(engine.view(state, seat), engine.legal_actions(state, seat), True, random.Random(1))
    assert action in engine.legal_actions(state, seat)
    assert bot.last_iterations == 23


@pytest.mark.parametrize("game", GAME_NAMES)
def test_the_hard_bot_keeps_its_time_budget_on_a_clock_the_test_controls(game: str) -> None:
    """Budget 50 ms on a clock that moves 1 ms per reading: the search ends within 20% of it (it reads the
    clock before each rollout, so it overruns by one rollout's reading at most)."""
    engine = get_game(game).engine
    state, seat = _decision_points(game, seed=6, count=1)[0]
    clock = SteppingClock(0.001)
    bot = make_bot(game, BotLevel.HARD, Budget(ms=50, clock=clock))
    assert isinstance(bot, HardBot)
    bot.choose(engine.view(state, seat), engine.legal_actions(state, seat), True, random.Random(2))
    used = clock.now - 0.001  # the reading that set the deadline
    assert 0.050 <= used <= 0.060
    assert bot.last_iterations > 0


@pytest.mark.parametrize("game", GAME_NAMES)
def test_the_hard_bot_spends_nothing_on_a_decision_with_one_move(game: str) -> None:
    """One legal action (or the same action twice), or an optional window: no sample, no rollout, not even
    a look at the clock."""
    engine = get_game(game).engine
    state, seat = _decision_points(game, seed=7, count=1)[0]
    clock = SteppingClock(0.001)
    bot = make_bot(game, BotLevel.HARD, Budget(ms=50, clock=clock))
    assert isinstance(bot, HardBot)
    only = engine.legal_actions(state, seat)[:1]
    view = engine.view(state, seat)
    assert bot.choose(view, only, True, random.Random(1)) == only[0]
    assert bot.choose(view, only * 2, True, random.Random(1)) == only[0]
    bot.choose(view, engine.legal_actions(state, seat), False, random.Random(1))
    assert clock.now == 0.0
    assert bot.last_iterations == 0


def test_the_default_budget_is_150_ms_of_the_bots_own_thinking() -> None:
    bot = make_bot("uno", BotLevel.HARD)
    assert isinstance(bot, HardBot)
    assert bot.budget.ms == DEFAULT_BUDGET_MS == 150


# -- every level plays every game to its end, legally -----------------------------------------------------


class Checked:
    """Wraps a bot and fails the test if it ever returns an action that is not legal (or nothing when it must
    act)."""

    needs_view = True

    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    def choose(self, view: Any, legal: Sequence[Any], must_act: bool, rng: random.Random) -> Any | None:
        action = self.bot.choose(view, legal, must_act, rng)
        assert action is None or action in legal, f"{type(self.bot).__name__} chose {action!r}, not legal"
        assert action is not None or not must_act
        return action


@pytest.mark.parametrize("game", GAME_NAMES)
@pytest.mark.parametrize("levels", [("hard", "normal", "easy", "normal"), ("easy", "easy", "hard", "hard")])
def test_every_level_plays_every_game_to_its_end_legally(game: str, levels: tuple[str, ...]) -> None:
    engine = get_game(game).engine
    bots: list[Bot] = [Checked(make_bot(game, level, Budget(ms=None, iterations=6))) for level in levels]
    result = play(engine, bots, seed=11, options=_record(game))
    assert result.outcome.winners
    assert all(0 <= w < 4 for w in result.outcome.winners)


@pytest.mark.parametrize("game", [g for g in GAME_NAMES if hasattr(determinizer_of(get_game(g)), "rollout_view")])
def test_a_rollout_view_makes_the_normal_bot_choose_as_the_full_view_does(game: str) -> None:
    """Where a determinizer gives the hard bot's rollouts a cheaper view, the normal bot makes the same
    choice with it as with the engine's view, at every decision of a few normal games."""
    spec = get_game(game)
    determinizer = determinizer_of(spec)
    rollout_view = determinizer.rollout_view  # type: ignore[union-attr]
    engine = spec.engine
    bot = spec.smart_bot()
    compared = 0
    for seed in (1, 2, 3):
        for state, seat in _decision_points(game, seed, 300):
            compared += 1
            legal = engine.legal_actions(state, seat)
            full = bot.choose(engine.view(state, seat), legal, True, random.Random(seed))
            assert bot.choose(rollout_view(state, seat), legal, True, random.Random(seed)) == full
    assert compared >= 60


def test_the_levels_are_the_bots_they_say() -> None:
    for game in GAME_NAMES:
        assert type(make_bot(game, "normal")) is type(get_game(game).smart_bot())
        assert isinstance(make_bot(game, "easy"), EasyBot)
        assert isinstance(make_bot(game, "hard"), HardBot)
        assert type(make_bot(game, 0)) is type(get_game(game).smart_bot())
    with pytest.raises(ValueError, match="easy, normal, hard"):
        make_bot("uno", "expert")


def test_the_easy_bot_calls_uno_now_and_then() -> None:
    """Offered the UNO call 200 times, the easy bot makes it some of the time and forgets some of the time."""
    engine = get_game("uno").engine
    state = engine.new(4, _record("uno"), 1)
    view = engine.view(state, 0)
    bot = EasyBot(UnoBot())
    rng = random.Random(3)
    calls = sum(bot.choose(view, [CallUno()], False, rng) == CallUno() for _ in range(200))
    assert 40 < calls < 160


# -- bot_level over gRPC --------------------------------------------------------------------------------


async def test_bot_level_over_grpc_seats_the_bots_refuses_unknown_levels_and_survives_a_restart(tmp_path: Path) -> None:
    config = ServerConfig(
        host="127.0.0.1", port=0, bot_delay=0.0, grace=0.5, limits=TEST_LIMITS, db=str(tmp_path / "t.db")
    )
    async with running_server(config) as server, Client(server.address) as client:
        created = await client.stub.CreateTable(
            service_pb2.CreateTableRequest(
                game="uno", players=4, bots=1, manual_start=True, bot_level=service_pb2.BOT_LEVEL_HARD
            ),
            timeout=30,
        )
        table_id, host = created.table.table_id, ((HOST_TOKEN_KEY, created.host_token),)
        added = await client.stub.AddBot(
            service_pb2.AddBotRequest(table_id=table_id, bot_level=service_pb2.BOT_LEVEL_EASY),
            metadata=host,
            timeout=30,
        )
        plain = await client.stub.AddBot(service_pb2.AddBotRequest(table_id=table_id), metadata=host, timeout=30)
        seats = server.registry.tables[table_id].seats
        assert isinstance(seats[3].bot, HardBot)
        assert isinstance(seats[added.seat].bot, EasyBot)
        assert type(seats[plain.seat].bot) is UnoBot
        unknown: Any = 7  # a number no BotLevel has (proto3 enums are open: a client can send it)
        for call in (
            client.stub.AddBot(
                service_pb2.AddBotRequest(table_id=table_id, bot_level=unknown), metadata=host, timeout=30
            ),
            client.stub.CreateTable(
                service_pb2.CreateTableRequest(game="uno", players=2, bots=1, bot_level=unknown), timeout=30
            ),
        ):
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await call
            assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
            assert "bot_level must be easy (1), normal (2), hard (3)" in (refused.value.details() or "")
        assert server.registry.tables[table_id].open_seats() == [2]  # the refused AddBot seated nobody
        assert len(server.registry.tables) == 1  # and the refused CreateTable made no table
    async with running_server(config) as server:
        seats = server.registry.tables[table_id].seats
        assert isinstance(seats[3].bot, HardBot)
        assert seats[3].bot_level == service_pb2.BOT_LEVEL_HARD
        assert isinstance(seats[added.seat].bot, EasyBot)
        assert type(seats[plain.seat].bot) is UnoBot


async def test_the_host_changes_a_bots_level_every_seat_shows_it_and_it_survives_a_restart_and_play_again(
    tmp_path: Path,
) -> None:
    config = ServerConfig(
        host="127.0.0.1", port=0, bot_delay=0.0, grace=0.5, limits=TEST_LIMITS, db=str(tmp_path / "t.db")
    )
    async with running_server(config) as server, Client(server.address) as client:
        created = await client.stub.CreateTable(
            service_pb2.CreateTableRequest(game="uno", players=3, bots=2, manual_start=True), timeout=30
        )
        table_id, host = created.table.table_id, ((HOST_TOKEN_KEY, created.host_token),)
        assert [seat.bot_level for seat in created.table.seats] == [0, 2, 2]  # unspecified: normal
        joined = await client.join(table_id, "Ann")
        assert joined.seat == 0
        changed = await client.stub.SetBotLevel(
            service_pb2.SetBotLevelRequest(table_id=table_id, seat=1, bot_level=service_pb2.BOT_LEVEL_HARD),
            metadata=host,
            timeout=30,
        )
        assert [seat.bot_level for seat in changed.table.seats] == [0, 3, 2]
        table = server.registry.tables[table_id]
        assert isinstance(table.seats[1].bot, HardBot)
        # Refused, and nothing changed: not the host, a person's seat, a seat that does not exist, a level
        # no BotLevel has.
        refusals = [
            (service_pb2.SetBotLevelRequest(table_id=table_id, seat=2, bot_level=1), (), "host"),
            (service_pb2.SetBotLevelRequest(table_id=table_id, seat=0, bot_level=1), host, "holds no bot"),
            (service_pb2.SetBotLevelRequest(table_id=table_id, seat=5, bot_level=1), host, "does not exist"),
            (service_pb2.SetBotLevelRequest(table_id=table_id, seat=2, bot_level=9), host, "bot_level must be"),  # type: ignore[arg-type]
        ]
        for request, metadata, said in refusals:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await client.stub.SetBotLevel(request, metadata=metadata, timeout=30)
            assert said in (refused.value.details() or ""), refused.value.details()
            assert refused.value.code() is not grpc.StatusCode.UNKNOWN
        assert [seat.bot_level for seat in table.seats] == [0, 3, 0]  # stored values: seat 2 never set
        # Every viewer's update shows the levels.
        async for response in client.watch(table_id):
            assert [seat.bot_level for seat in response.update.seats] == [0, 3, 2]
            break
        # In play too: the bot in seat 2 becomes easy.
        await client.stub.StartTable(service_pb2.StartTableRequest(table_id=table_id), metadata=host, timeout=30)
        await client.stub.SetBotLevel(
            service_pb2.SetBotLevelRequest(table_id=table_id, seat=2, bot_level=service_pb2.BOT_LEVEL_EASY),
            metadata=host,
            timeout=30,
        )
        assert isinstance(table.seats[2].bot, EasyBot)
    async with running_server(config) as server, Client(server.address) as client:
        table = server.registry.tables[table_id]
        assert [seat.bot_level for seat in table.seats] == [0, 3, 1]
        assert isinstance(table.seats[1].bot, HardBot)
        assert isinstance(table.seats[2].bot, EasyBot)
        await client.stub.EndTable(service_pb2.EndTableRequest(table_id=table_id), metadata=host, timeout=30)
        again = await client.stub.PlayAgain(
            service_pb2.PlayAgainRequest(table_id=table_id),
            metadata=((SEAT_TOKEN_KEY, joined.seat_token),),
            timeout=30,
        )
        assert [seat.bot_level for seat in again.table.seats] == [0, 3, 1]  # the bots keep their levels


@pytest.mark.timeout(300)
async def test_a_table_with_a_hard_bot_plays_to_its_end_on_a_real_server() -> None:
    config = ServerConfig(host="127.0.0.1", port=0, bot_delay=0.0, grace=0.5, limits=TEST_LIMITS)
    async with running_server(config) as server, Client(server.address) as client:
        created = await client.stub.CreateTable(
            service_pb2.CreateTableRequest(game="uno", players=2, manual_start=True, options={"target": "1"}, seed=4),
            timeout=30,
        )
        table_id, host = created.table.table_id, ((HOST_TOKEN_KEY, created.host_token),)
        for level in (service_pb2.BOT_LEVEL_HARD, service_pb2.BOT_LEVEL_NORMAL):
            await client.stub.AddBot(
                service_pb2.AddBotRequest(table_id=table_id, bot_level=level), metadata=host, timeout=30
            )
        table = server.registry.tables[table_id]
        hard = table.seats[0].bot
        assert isinstance(hard, HardBot)
        hard.budget = Budget(ms=None, iterations=30)  # a small search: the test is about the server's plumbing
        await client.stub.StartTable(service_pb2.StartTableRequest(table_id=table_id), metadata=host, timeout=30)
        async with asyncio.timeout(240):
            while table.status is not Status.FINISHED:
                await asyncio.sleep(0.05)
        assert table.engine.outcome(table.state) is not None


# -- selfplay --levels ----------------------------------------------------------------------------------


@pytest.mark.timeout(300)
def test_selfplay_with_levels_prints_its_json_summary(tmp_path: Path) -> None:
    result = subprocess.run(
        toadstool_command(
            "selfplay", "uno", "--players", "4", "--levels", "hard,normal,easy,normal", "--games", "2",
            "--option", "target=1", "--budget-ms", "5",
        ),
        capture_output=True, text=True, timeout=280, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["levels"] == ["hard", "normal", "easy", "normal"]
    assert summary["players"] == 4
    assert summary["games"] == 2
    assert sum(summary["wins_by_seat"]) >= 2
    wrong = subprocess.run(
        toadstool_command("selfplay", "uno", "--players", "4", "--levels", "hard,expert,easy,normal"),
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert wrong.returncode == 2
    assert "unknown bot level 'expert'" in wrong.stderr


@pytest.mark.timeout(300)
@pytest.mark.parametrize("game", ["powerup", "kart", "levelup"])
def test_selfplay_with_levels_plays_every_game_and_prints_its_json_summary(tmp_path: Path, game: str) -> None:
    options = get_game(game).engine.quick_options.items()
    quick = [arg for name, value in options for arg in ("--option", f"{name}={value}")]
    result = subprocess.run(
        toadstool_command(
            "selfplay", game, "--players", "4", "--levels", "hard,normal,easy,normal", "--games", "1",
            "--budget-ms", "5", *quick,
        ),
        capture_output=True, text=True, timeout=280, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert (summary["game"], summary["players"], summary["games"]) == (game, 4, 1)
    assert summary["levels"] == ["hard", "normal", "easy", "normal"]
    assert sum(summary["wins_by_seat"]) >= 1


# -- the hard bots' budget, a table option ----------------------------------------------------------------


async def test_the_bot_budget_is_a_table_option_validated_listed_and_kept_across_a_restart(tmp_path: Path) -> None:
    config = ServerConfig(
        host="127.0.0.1", port=0, bot_delay=0.0, grace=0.5, limits=TEST_LIMITS, db=str(tmp_path / "t.db")
    )
    async with running_server(config) as server, Client(server.address) as client:
        listed = {g.name: g for g in await client.list_games()}
        for game in GAME_NAMES:
            option = next(o for o in listed[game].options if o.name == BUDGET_OPTION.name)
            assert (option.kind, option.default_value, option.minimum, option.maximum) == ("int", "150", 50, 1000)
        for value, said in (
            ("20", "option 'bot_budget_ms' must be at least 50, not 20"),
            ("5000", "option 'bot_budget_ms' must be at most 1000, not 5000"),
            ("fast", "option 'bot_budget_ms' must be a whole number, not 'fast'"),
        ):
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await client.stub.CreateTable(
                    service_pb2.CreateTableRequest(
                        game="uno", players=4, bots=3, bot_level=service_pb2.BOT_LEVEL_HARD,
                        options={"bot_budget_ms": value},
                    ),
                    timeout=30,
                )  # fmt: skip
            assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
            assert said in (refused.value.details() or ""), refused.value.details()
        assert not server.registry.tables  # nothing was made
        created = await client.stub.CreateTable(
            service_pb2.CreateTableRequest(
                game="powerup", players=4, bots=2, manual_start=True, bot_level=service_pb2.BOT_LEVEL_HARD,
                options={"bot_budget_ms": "300"},
            ),
            timeout=30,
        )  # fmt: skip
        table_id, host = created.table.table_id, ((HOST_TOKEN_KEY, created.host_token),)
        assert dict(created.table.options) == {"bot_budget_ms": "300"}
        table = server.registry.tables[table_id]
        assert BUDGET_OPTION.name not in table.options  # the game's creation record never sees it
        for seat in (2, 3):
            bot = table.seats[seat].bot
            assert isinstance(bot, HardBot)
            assert bot.budget.ms == 300
        hard = service_pb2.BOT_LEVEL_HARD
        added = await client.stub.AddBot(
            service_pb2.AddBotRequest(table_id=table_id, bot_level=hard), metadata=host, timeout=30
        )
        added_bot = table.seats[added.seat].bot
        assert isinstance(added_bot, HardBot)
        assert added_bot.budget.ms == 300
        default = await client.stub.CreateTable(
            service_pb2.CreateTableRequest(game="uno", players=2, bots=1, bot_level=service_pb2.BOT_LEVEL_HARD),
            timeout=30,
        )
        default_bot = server.registry.tables[default.table.table_id].seats[1].bot
        assert isinstance(default_bot, HardBot)
        assert default_bot.budget.ms == DEFAULT_BUDGET_MS
    async with running_server(config) as server:
        table = server.registry.tables[table_id]
        for seat in (added.seat, 2, 3):
            bot = table.seats[seat].bot
            assert isinstance(bot, HardBot)
            assert bot.budget.ms == 300
        assert table.raw_options == {"bot_budget_ms": "300"}
        assert BUDGET_OPTION.name not in table.options
