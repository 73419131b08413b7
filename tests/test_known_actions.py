"""The ids and messages of legal actions, remembered by value (issue #24's cheaper move; issue #42: nothing
keyed by `id()`): every update still offers exactly what the engine's own `action_id` and
`messages.action_message` give, in every game, however often the remembered entries start again, and a
person's action is still matched by its id."""

from __future__ import annotations

import ast
import dataclasses
import enum
from pathlib import Path

import pytest

from toadstool.engine import action_id
from toadstool.games import GAMES
from toadstool.games.uno import engine as uno
from toadstool.server import messages
from toadstool.server.tables import Status, Table, TableRegistry, action_ids


def _offered(table: Table, seat: int) -> list[tuple[str, bytes]]:
    update = messages.update_for(table, seat, None)
    return [(legal.id, legal.action.SerializeToString()) for legal in update.legal_actions]


def _expected(table: Table, seat: int) -> list[tuple[str, bytes]]:
    engine = table.engine
    return [
        (action_id(action), messages.action_message(engine, action).SerializeToString())
        for action in engine.legal_actions(table.state, seat)
    ]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_update_offers_each_legal_action_with_the_engines_own_id_and_message(game: str) -> None:
    registry = TableRegistry()
    players = max(3, GAMES[game].engine.min_players)
    table, _ = registry.create(game, players, bots=players, seed=11)
    offered_some = 0
    for _ in range(60):
        if table.status is not Status.PLAYING:
            break
        for seat in range(players):
            assert _offered(table, seat) == _expected(table, seat)
            offered_some += bool(_expected(table, seat))
        choice = table.bot_choice()
        assert choice is not None
        table.apply_now(*choice)
    assert offered_some > 0


def test_ids_stay_right_when_the_remembered_ids_start_again_and_for_equal_new_objects(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(action_ids, "MAX_KNOWN_IDS", 3)
    registry = TableRegistry()
    table, _ = registry.create("uno", 4, bots=4, seed=3)
    for _ in range(40):
        for seat in range(4):
            for action in table.engine.legal_actions(table.state, seat):
                assert action_ids.id_of(action) == action_id(action)
                copy = type(action)(**{f: getattr(action, f) for f in action.__dataclass_fields__})
                assert copy is not action
                assert action_ids.id_of(copy) == action_id(action)
            assert _offered(table, seat) == _expected(table, seat)
        choice = table.bot_choice()
        assert choice is not None
        table.apply_now(*choice)
    assert len(action_ids._IDS) <= 3


async def test_a_persons_action_is_matched_by_its_id_stored_and_answered_again_on_a_retry() -> None:
    registry = TableRegistry()
    table, _ = registry.create("uno", 2, bots=1, seed=7)
    seat, _token = table.join("Mario", None)
    while table.state is not None and seat not in table.engine.to_act(table.state):
        choice = table.bot_choice()
        assert choice is not None
        table.apply_now(*choice)
    action = table.engine.legal_actions(table.state, seat)[-1]
    wanted = action_id(action)
    version, replayed = await table.act(seat, wanted, table.version, "request-1")
    assert (version, replayed) == (table.version, False)
    assert table.actions[-1] == (seat, action)
    assert table.requests["request-1"].action_id == wanted
    assert await table.act(seat, wanted, version - 1, "request-1") == (version, True)


@dataclasses.dataclass(frozen=True)
class _Nudge:
    by: float


class _Side(enum.IntEnum):
    LEFT = 1


@dataclasses.dataclass(frozen=True)
class _Step:
    side: _Side
    path: tuple[int, ...] = ()


def test_equal_fields_that_spell_other_ids_are_never_given_one_anothers() -> None:
    # a float field: -0.0 == 0.0 and 1.0 == 1, but their ids differ, so its ids are built every time
    for first, second in ((0.0, -0.0), (1, 1.0)):
        assert action_ids.id_of(_Nudge(first)) == action_id(_Nudge(first))
        assert action_ids.id_of(_Nudge(second)) == action_id(_Nudge(second)) != action_id(_Nudge(first))
    # kept by value: an equal action made afresh gets the same id, its own class's
    assert action_ids.id_of(_Step(_Side.LEFT, (1, 2))) == "__step:side=left,path=1-2"
    kept = len(action_ids._IDS)
    assert action_ids.id_of(_Step(_Side.LEFT, (1, 2))) == "__step:side=left,path=1-2"
    assert len(action_ids._IDS) == kept
    # a field holding something unhashable (a list where a tuple is declared): built every time
    unhashable = _Step(_Side.LEFT, [3])  # type: ignore[arg-type]
    assert action_ids.id_of(unhashable) == action_id(unhashable) == "__step:side=left,path=[3]"


def test_unos_labels_of_playing_a_card_are_the_same_for_an_equal_card_made_afresh() -> None:
    registry = TableRegistry()
    table, _ = registry.create("uno", 4, bots=4, seed=5)
    for _ in range(40):
        for seat in range(4):
            for action in table.engine.legal_actions(table.state, seat):
                copy = type(action)(**{f: getattr(action, f) for f in action.__dataclass_fields__})
                label = table.engine.describe(table.state, seat, action)
                assert table.engine.describe(table.state, seat, copy) == label
                if isinstance(action, uno.PlayCard):
                    answer = table.state.stage in (uno.ANSWER_D2, uno.ANSWER_WD4)
                    assert label == uno._play_label(action, answer)
        choice = table.bot_choice()
        assert choice is not None
        table.apply_now(*choice)


def test_no_module_of_the_server_calls_id() -> None:
    root = Path(__file__).resolve().parents[1] / "server" / "toadstool"
    calls = [
        f"{path.relative_to(root)}:{node.lineno}"
        for path in sorted(root.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "id"
    ]
    assert calls == []
