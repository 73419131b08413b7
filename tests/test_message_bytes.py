"""The message cache's bytes (`toadstool.server.message_cache`) are protobuf's own: every value's kept bytes,
every legal action's, the keys and lengths joined by hand, and a whole update, for a seeded game of each of
the four games and every viewer, whatever the cache held before. It exists for speed (issue #42); what must
hold is that no shortcut changes a byte a client is sent. (`tests/test_wire_runtimes.py` decodes whole games'
messages in every runtime; this checks the bytes against plain protobuf, in-process.)"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
from typing import Any

import pytest
from google.protobuf.internal.encoder import _VarintBytes  # protobuf's own varint writer

from toadstool.api.v1 import service_pb2, table_pb2
from toadstool.bots import RandomBot
from toadstool.engine import action_id, name_seats
from toadstool.games import get_game
from toadstool.i18n import ENGLISH
from toadstool.selfplay import PlayoutTooLong, play
from toadstool.server import message_cache, messages
from toadstool.server.message_cache import VALUES
from toadstool.server.tables import Status, TableRegistry

GAMES = ("uno", "powerup", "levelup", "kart")


def test_varints_and_keys_are_protobufs() -> None:
    for value in (*range(300), 0x3FFF, 0x4000, 0x1FFFFF, 0x200000, 2**31, 2**40):
        assert message_cache.varint(value) == _VarintBytes(value), value
    view = table_pb2.Update(view=table_pb2.GameView(uno=table_pb2.GameView().uno)).SerializeToString()
    assert view.startswith(message_cache._VIEW_KEY)
    legal = table_pb2.Update(legal_actions=[table_pb2.LegalAction(id="x")]).SerializeToString()
    assert legal.startswith(message_cache._LEGAL_ACTIONS_KEY)
    for size in (0, 5, 127, 128, 300, 0x3FFF, 0x4000, 70_000):
        update = table_pb2.Update(table_name="n" * size)
        assert message_cache.watch_response([update.SerializeToString()]) == (
            service_pb2.WatchResponse(update=update).SerializeToString()
        ), size


@pytest.mark.parametrize("game", GAMES)
async def test_every_update_of_a_seeded_game_is_protobufs_bytes_for_every_viewer(game: str) -> None:
    engine = get_game(game).engine
    players = max(engine.min_players, min(4, engine.max_players))
    checked = 0
    async with TableRegistry(bot_delay=3600.0, store=None) as registry:
        table, _ = registry.create(game, players, bots=players, seed=1, options=dict(engine.quick_options))

        def observe(state: Any, seat: int | None, action: Any) -> None:
            nonlocal checked
            shadow.state = state
            shadow.status = Status.FINISHED if engine.outcome(state) is not None else Status.PLAYING
            shadow.version += 1
            shadow.revision += 1
            names = shadow.names()
            for viewer in (None, *range(players)):
                data = message_cache.update(messages._update_parts(shadow, viewer, None, None, ENGLISH))
                update = table_pb2.Update.FromString(data)
                # Each legal action's bytes, as kept, are a plain LegalAction's, in order.
                offered = engine.legal_actions(state, viewer) if viewer is not None else ()
                expected = [
                    table_pb2.LegalAction(
                        id=action_id(action),
                        label=name_seats(engine.describe(state, viewer, action), names),
                        action=messages.action_message(engine, action),
                    ).SerializeToString()
                    for action in offered
                ]
                assert [legal.SerializeToString() for legal in update.legal_actions] == expected
                # The view, joined from parts, is the whole view converted afresh.
                whole = messages.game_view_message(engine, engine.view(state, viewer), names)
                assert update.view == whole, (game, viewer)
                assert update.view.SerializeToString(deterministic=True) == whole.SerializeToString(deterministic=True)
                # The hand-joined bytes are a message protobuf reads back to the same bytes field for field.
                assert data == b"".join(_fields_in_order(update, data)), (
                    f"{game}, viewer {viewer}: the joined bytes are not protobuf's"
                )
                checked += 1

        for seed in (1, 2):
            VALUES.forget()  # cold, then warm from the first seed
            shadow = dataclasses.replace(table)
            with contextlib.suppress(PlayoutTooLong):
                play(engine, [RandomBot() for _ in range(players)], seed, max_actions=120, observe=observe)
    assert checked > 100


def _fields_in_order(update: table_pb2.Update, data: bytes) -> list[bytes]:
    """`update`'s fields serialised one by one by protobuf, in the order they come in `data` (the parts set
    disjoint fields, each written once: the joined bytes are these, field after field). The view is taken as
    it comes: its body joins the public fields and then the private ones (`join_split`), an order protobuf
    would not write but reads the same (checked against the whole view above, and in every runtime by
    tests/test_wire_runtimes.py)."""
    order: list[int] = []
    views: list[bytes] = []
    position = 0
    while position < len(data):
        start = position
        key, position = _read_varint(data, position)
        number, kind = key >> 3, key & 7
        if kind == 0:
            _, position = _read_varint(data, position)
        elif kind == 2:
            length, position = _read_varint(data, position)
            position += length
        else:
            raise AssertionError(f"wire type {kind}")
        if number == table_pb2.Update.VIEW_FIELD_NUMBER:
            views.append(data[start:position])
        if not order or order[-1] != number:
            order.append(number)
    fields = {f.number: f for f in table_pb2.Update.DESCRIPTOR.fields}
    parts = []
    for number in order:
        single = table_pb2.Update()
        name = fields[number].name
        if number == table_pb2.Update.VIEW_FIELD_NUMBER:
            assert len(views) == 1, "the view written more than once"
            parts.append(views[0])
            continue
        if hasattr(getattr(update, name), "extend"):  # a repeated field
            getattr(single, name).MergeFrom(getattr(update, name))
        elif fields[number].message_type is not None:
            getattr(single, name).CopyFrom(getattr(update, name))
        else:
            setattr(single, name, getattr(update, name))
        parts.append(single.SerializeToString())
    return parts


def _read_varint(data: bytes, position: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, position


def _game_dataclasses() -> list[type]:
    found = []
    for game in GAMES:
        for module in (f"toadstool.games.{game}.engine", f"toadstool.games.{game}.views"):
            with contextlib.suppress(ModuleNotFoundError):
                loaded = importlib.import_module(module)
                found += [
                    cls
                    for cls in vars(loaded).values()
                    if isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == loaded.__name__
                ]
    return found


@pytest.mark.parametrize("cls", _game_dataclasses(), ids=lambda cls: f"{cls.__module__}.{cls.__name__}")
def test_no_games_value_writes_an_eq_or_hash_of_its_own(cls: type) -> None:
    """`message_cache.by_value` takes a class's `eq` declaration at its word: the games' classes keep the
    `__eq__` and `__hash__` that `dataclass` writes (the same code as a reference class with their fields)."""
    names = [f.name for f in dataclasses.fields(cls)]
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    reference = dataclasses.make_dataclass("Reference", names, frozen=params.frozen, eq=params.eq)
    for method in ("__eq__", "__hash__"):
        own, written = getattr(cls, method), getattr(reference, method)
        if written is None or own is None:
            assert own is written, (cls, method)
            continue
        if not hasattr(written, "__code__"):  # object's own, as dataclass leaves it
            assert own is written, (cls, method)
            continue
        assert (own.__code__.co_code, own.__code__.co_names) == (written.__code__.co_code, written.__code__.co_names), (
            f"{cls.__name__}.{method} is not the one dataclass writes"
        )
