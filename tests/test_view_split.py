"""A view split in two (`toadstool.engine.view_split`): the fields every viewer is told alike, serialised once
per version from the spectator's view, and each viewer's private fields. It exists for speed (issue #24);
what must hold is that, in every game, at every version, for every seat and a spectator, the two parts
joined parse to exactly the message the whole view built for that viewer makes, and that a game's wrong
declaration is refused rather than sent."""

from __future__ import annotations

import contextlib
import dataclasses
import random
import re
from typing import Any

import pytest
from wire_walker import assert_singular_fields_once

from toadstool.api.v1 import service_pb2, table_pb2
from toadstool.bots import RandomBot
from toadstool.engine import action_id, name_seats, view_split
from toadstool.games import GAMES, get_game
from toadstool.i18n import ENGLISH
from toadstool.selfplay import PlayoutTooLong, play
from toadstool.server import message_cache, messages
from toadstool.server.tables import Status, Table, TableRegistry

SPLIT_GAMES = sorted(name for name in GAMES if view_split(type(get_game(name).engine)) is not None)


def joined(table: Table, viewer: int | None, language: str = ENGLISH) -> table_pb2.Update:
    """The game's part of `viewer`'s update as the split builds it: the public part, then the private one."""
    split = view_split(type(table.engine))
    assert split is not None
    public = messages._public_part(table, split[0], language)
    private = messages._private_part(table, viewer, language)
    data = public[0] + message_cache.join_split(table.engine.name, public[1], *private)
    assert_singular_fields_once(table_pb2.Update.DESCRIPTOR, data)
    return table_pb2.Update.FromString(data)


def test_the_four_games_split_their_views() -> None:
    assert SPLIT_GAMES == ["kart", "levelup", "powerup", "uno"]


@pytest.mark.parametrize("game", SPLIT_GAMES)
async def test_the_two_parts_join_to_the_whole_view_for_every_viewer_at_every_version(game: str) -> None:
    engine = get_game(game).engine
    players = max(engine.min_players, min(4, engine.max_players))
    checked = reused = 0
    async with TableRegistry(bot_delay=3600.0, store=None) as registry:
        table, _ = registry.create(game, players, bots=players, seed=1, options=dict(engine.quick_options))

        def observe(state: Any, seat: int | None, action: Any) -> None:
            nonlocal checked, reused
            # One table through the whole game, as a server's is: each viewer's private part built afresh
            # only when its private view changed, and sent again as it was when it did not.
            shadow.state = state
            shadow.status = Status.FINISHED if engine.outcome(state) is not None else Status.PLAYING
            names = shadow.names()
            for viewer in (None, *range(players)):
                whole = messages._viewer_part(shadow, viewer)
                before = messages.cache_of(shadow).private_views.get((viewer, ENGLISH))
                split = joined(shadow, viewer)
                reused += before is not None and messages.cache_of(shadow).private_views[(viewer, ENGLISH)] is before
                assert split == whole, f"{game}, seed {seed}, viewer {viewer}: the joined parts differ"
                assert split.SerializeToString(deterministic=True) == whole.SerializeToString(deterministic=True)
                # In German too: the words inside the view said alike in both parts as in the whole.
                german = joined(shadow, viewer, "de")
                assert german == messages._viewer_part(shadow, viewer, "de"), f"{game}, seed {seed}, {viewer}, de"
                offered = engine.legal_actions(state, viewer) if viewer is not None else ()
                assert [(legal.id, legal.label, legal.action) for legal in split.legal_actions] == [
                    (
                        action_id(action),
                        name_seats(engine.describe(state, viewer, action), names),
                        messages.action_message(engine, action),
                    )
                    for action in offered
                ]
                checked += 1

        for seed in range(3):
            shadow = dataclasses.replace(table)
            with contextlib.suppress(PlayoutTooLong):  # 200 steps of a long game are checked as well as a whole one
                play(engine, [RandomBot() for _ in range(players)], seed, max_actions=200, observe=observe)
        # A game ended early (its host ended it): the phase says so, nobody is waited for, nothing offered.
        ended = dataclasses.replace(table, status=Status.FINISHED, ended="Ended by the host")
        for viewer in (None, *range(players)):
            update = joined(ended, viewer)
            assert update == messages._viewer_part(ended, viewer)
            assert joined(ended, viewer, "de") == messages._viewer_part(ended, viewer, "de"), (game, viewer)
            assert update.phase == "Ended by the host"
            assert not update.to_act
            assert not update.legal_actions
    assert checked > 300
    assert reused > checked / 10, "no private part was ever sent again: the test does not test the reuse"


@pytest.mark.parametrize("game", SPLIT_GAMES)
async def test_every_update_a_stream_sends_carries_the_public_part_once_and_the_viewers_own_fields(game: str) -> None:
    engine = get_game(game).engine
    players = max(engine.min_players, min(4, engine.max_players))
    async with TableRegistry(bot_delay=3600.0, store=None) as registry:
        table, _ = registry.create(game, players, bots=players, seed=2, options=dict(engine.quick_options))
        for viewer in (None, *range(players)):
            update = messages.update_for(table, viewer, None)
            view = getattr(update.view, game)
            expected = table_pb2.GameView()
            messages.game_view_message(engine, engine.view(table.state, viewer), table.names(), into=expected)
            assert view == getattr(expected, game), f"{game}, viewer {viewer}: the update's view is not its own"
            assert update.to_act == list(engine.to_act(table.state))
            legal = engine.legal_actions(table.state, viewer) if viewer is not None else ()
            assert len(update.legal_actions) == len(legal)


@dataclasses.dataclass(frozen=True)
class _SomeView:
    """A view class for declarations to be checked against (`view_split` reads only the classes)."""

    phase: str
    scores: tuple[int, ...]
    hand: tuple[int, ...]


def _engine_type(private_fields: dict[str, Any] | None) -> type:
    """An engine class with `_SomeView` as its view and, unless None, a private view of these fields."""
    namespace: dict[str, Any] = {"view_type": _SomeView}
    if private_fields is not None:
        namespace["private_view_type"] = dataclasses.make_dataclass("Private", list(private_fields.items()))
        namespace["private_view"] = lambda self, state, viewer: None
    return type("Game", (), namespace)


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"hand": tuple, "cards": tuple}, "['cards']"),
        ({"hand": tuple, "phase": str}, "['phase']"),
        ({"scores": tuple}, "['scores']"),
    ],
)
def test_a_private_view_the_server_cannot_honour_is_refused_with_the_fields_it_got_wrong(
    fields: dict[str, Any], named: str
) -> None:
    with pytest.raises(TypeError, match=re.escape(f"Game.private_view_type has {named}")):
        view_split(_engine_type(fields))


def test_a_game_without_a_private_view_has_no_split_and_one_with_it_has_both_halves() -> None:
    assert view_split(_engine_type(None)) is None
    assert view_split(_engine_type({"hand": tuple})) == (frozenset({"phase", "scores"}), frozenset({"hand"}))


@pytest.mark.parametrize("game", SPLIT_GAMES)
async def test_each_viewer_reads_the_events_as_event_text_tells_them_whoever_asked_first(game: str) -> None:
    # Each update is joined from parts cached for the table's version and shared between viewers: a seat told
    # a text of its own ("you drew the red 5") must read it, and nobody else may, in whatever order the
    # viewers' streams ask after a move, live or joining.
    engine = get_game(game).engine
    players = max(engine.min_players, min(4, engine.max_players))
    rng = random.Random(4)
    told_apart = 0
    async with TableRegistry(bot_delay=3600.0, store=None) as registry:
        table, _ = registry.create(game, players, bots=players, seed=4, options=dict(engine.quick_options))
        viewers: list[int | None] = [None, *range(players)]
        for step in range(120):
            if table.status is not Status.PLAYING:
                break
            seat = engine.to_act(table.state)[0]
            action = rng.choice(engine.legal_actions(table.state, seat))
            table.advance(seat, action, engine.apply(table.state, seat, action), "", "")
            since = max(0, len(table.events) - 1 - step % 3)  # a live stream one, two or three events behind
            rng.shuffle(viewers)
            texts: dict[int | None, list[str]] = {}
            for viewer in viewers:

                def told(first: int, viewer: int | None = viewer) -> list[table_pb2.Event]:
                    """The events from `first` on, each built alone as `viewer` is told it."""
                    names = table.names()
                    return [messages.event_message(v, event, viewer, names) for v, event in table.events[first:]]

                live = service_pb2.WatchResponse.FromString(messages.watch_response(table, viewer, None, since))
                assert list(live.update.events) == told(since), f"{game}, step {step}, viewer {viewer}"
                joining = messages.update_for(table, viewer, None)
                assert list(joining.events) == told(max(0, len(table.events) - messages.HISTORY_ON_JOIN))
                texts[viewer] = [event.text for event in live.update.events]
            told_apart += any(texts[seat] != texts[None] for seat in range(players))
    if game != "kart":  # Kart tells every event alike (nothing of it is hidden)
        assert told_apart > 0, "no seat was ever told an event of its own: the test does not test the sharing"
