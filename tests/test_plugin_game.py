"""A fifth game is its own module and an entry point, nothing else (issue #18): Pig, a test-only dice game
(tests/plugin_games/pig.py) that the test setup registers the way another installed package would.

The conformance suite and the end-to-end game of test_e2e.py run over it like over the four games of the
package (they iterate the registry); here: it is found, served by a real `toadstool serve` process (which
finds it through the same entry point), travels as GameView.generic, keeps its one secret, and the
terminal client's generic screen shows it. The Tk client's generic screen plays it in test_tk.py.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from rich.console import Console

from conftest import start_serve, stop_process
from toadstool.api.v1 import service_pb2, service_pb2_grpc, table_pb2
from toadstool.games import GAMES
from toadstool_clients.connection import SEAT_TOKEN_KEY
from toadstool_clients.terminal.games import render_game


def test_the_test_game_is_registered_by_its_entry_point_alone() -> None:
    assert list(GAMES)[:4] == ["uno", "powerup", "levelup", "kart"]
    assert "pig" in GAMES
    assert GAMES["pig"].engine.title == "Pig (a test game)"


@pytest.fixture
def pig_server(tmp_path: Path) -> Iterator[str]:
    """A real `toadstool serve` process; it finds Pig through PYTHONPATH and the entry point alone."""
    process, address = start_serve("--bot-delay", "0", "--min-bot-delay", "0", "--no-db", output=tmp_path / "serve.log")
    try:
        yield address
    finally:
        stop_process(process)


def _play(stub: service_pb2_grpc.ToadstoolServiceStub, table_id: str, token: str, seat: int) -> list[table_pb2.Update]:
    """Play Pig as a person through the service (holding at 6), collecting every update of the seat."""
    metadata = ((SEAT_TOKEN_KEY, token),)
    updates = []
    for response in stub.Watch(service_pb2.WatchRequest(table_id=table_id), metadata=metadata, timeout=60):
        update = response.update
        updates.append(update)
        if update.status == table_pb2.TABLE_STATUS_FINISHED:
            break
        if seat not in update.to_act or not update.legal_actions:
            continue
        ids = [legal.id for legal in update.legal_actions]
        choice = "hold" if "hold" in ids and update.view.generic.state["turn_total"] >= 6 else "roll"
        request = service_pb2.ActRequest(
            table_id=table_id, version=update.version, action_id=choice, request_id=uuid.uuid4().hex
        )
        try:
            stub.Act(request, metadata=metadata, timeout=10)
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.ABORTED, error  # noqa: PT017 -- the table moved on
    return updates


def test_a_served_pig_table_plays_to_the_end_as_a_generic_view_that_keeps_its_secret(pig_server: str) -> None:
    with grpc.insecure_channel(pig_server) as channel:
        stub = service_pb2_grpc.ToadstoolServiceStub(channel)
        games = [game.name for game in stub.ListGames(service_pb2.ListGamesRequest(), timeout=10).games]
        assert games[-1] == "pig"
        created = stub.CreateTable(
            service_pb2.CreateTableRequest(game="pig", players=2, bots=1, seed=4, options={"target": "15"}),
            timeout=10,
        )
        joined = stub.JoinTable(service_pb2.JoinTableRequest(table_id=created.table.table_id, name="Ann"), timeout=10)
        updates = _play(stub, created.table.table_id, joined.seat_token, joined.seat)
    last = updates[-1]
    assert last.status == table_pb2.TABLE_STATUS_FINISHED
    assert last.outcome.winners
    playing = [u for u in updates if u.status == table_pb2.TABLE_STATUS_PLAYING]
    assert playing, "the game never started"
    for update in playing:
        assert update.view.WhichOneof("game") == "generic"
        view = update.view.generic
        assert view.game == "pig"
        assert "{p" not in view.phase, "seats are named in the phase"
        bonuses = list(view.state["bonuses"])
        assert bonuses[joined.seat] is not None, "a seat sees its own bonus card"
        assert bonuses[1 - joined.seat] is None, "and never the other seat's, until the game is over"
    assert None not in list(last.view.generic.state["bonuses"]), "the bonus cards are shown at the end"
    assert any(legal.id == "hold" for u in playing for legal in u.legal_actions)
    # The terminal client's generic screen: the phase and every field, no raw protobuf.
    console = Console(width=80, record=True)
    console.print(render_game(playing[-1]))
    text = console.export_text()
    assert playing[-1].view.generic.phase in text
    assert "Turn total" in text
    assert "Bonuses" in text
    assert "(hidden)" in text
    assert "fields {" not in text
