"""bench/connectrpc_compare.py (issue #42 item 8): the library connectrpc serving the browser's Connect calls
against the hand-made adapter. Its measuring prototype must serve the same calls as the product, so a
browser's Watch and Act through it answer as gRPC answers the same viewer, Watch's shared update bytes
passing through untouched; and the benchmark runs both sides alternately and prints the ratios. Never a
timing (benchmarks print figures; the machines that run tests are too noisy for timed assertions, issue #9).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import grpc
import pytest
from web_helpers import ConnectError, WebClient

from conftest import TEST_LIMITS
from toadstool.api.v1 import service_pb2, table_pb2
from toadstool.server import web
from toadstool.server.app import ServerConfig, running_server
from toadstool_clients.connection import Client

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import connectrpc_compare  # noqa: E402  (bench/ is not a package)

NUMBER = r"(?:[\d.,]+|-)"
SECONDS = 10.0


def _state(update: table_pb2.Update) -> table_pb2.Update:
    """The update less what depends on which stream opened first (connection flags, events)."""
    copy = table_pb2.Update()
    copy.CopyFrom(update)
    for seat in copy.seats:
        seat.connected = False
    del copy.events[:]
    return copy


def test_the_pass_through_codec_sends_a_watchs_shared_bytes_as_they_are() -> None:
    binary, json_codec = connectrpc_compare.passthrough_codecs()
    update = service_pb2.WatchResponse(update=table_pb2.Update(table_id="t1", version=3)).SerializeToString()
    assert binary.encode(update) is update
    assert json.loads(json_codec.encode(update)) == {"update": {"tableId": "t1", "version": "3"}}  # int64: a string
    request = service_pb2.ActRequest(table_id="t1", action_id="draw")
    assert binary.decode(request.SerializeToString(), service_pb2.ActRequest) == request


async def test_connectrpcs_watch_and_act_answer_as_grpc_answers_the_same_seat(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web, "WebApp", connectrpc_compare.web_app_class("connectrpc"))
    config = ServerConfig(host="127.0.0.1", port=0, web_port=0, bot_delay=0.0, grace=0.5, limits=TEST_LIMITS)
    async with (
        running_server(config) as running,
        Client(running.address) as client,
        WebClient(f"http://{running.web_address}", codec="proto") as browser,
    ):
        created = await browser.call(
            "CreateTable",
            service_pb2.CreateTableRequest(game="uno", players=2, bots=0, seed=7),
            service_pb2.CreateTableResponse,
        )
        table_id = created.table.table_id
        tokens = []
        for name in ("Ann", "Bea"):
            join = service_pb2.JoinTableRequest(table_id=table_id, name=name)
            tokens.append((await browser.call("JoinTable", join, service_pb2.JoinTableResponse)).seat_token)
        # Nobody acts: both streams' first views are of the same version.
        over_http = browser.watch(table_id, tokens[0])
        try:
            from_http = await asyncio.wait_for(anext(over_http), SECONDS)
        finally:
            await over_http.aclose()
        over_grpc = client.watch(table_id, tokens[0])
        try:
            from_grpc = await asyncio.wait_for(over_grpc.read(), SECONDS)
        finally:
            over_grpc.cancel()
        assert isinstance(from_grpc, service_pb2.WatchResponse)
        assert from_http.update.version == from_grpc.update.version
        assert _state(from_http.update) == _state(from_grpc.update)

        # A refusal carries gRPC's code and message.
        wrong = service_pb2.ActRequest(table_id=table_id, version=0, request_id="r1", action_id="nonsense")
        with pytest.raises(ConnectError) as refused:
            await browser.call("Act", wrong, service_pb2.ActResponse, token="not-a-token")
        with pytest.raises(grpc.aio.AioRpcError) as refused_grpc:
            await client.stub.Act(wrong, metadata=(("x-seat-token", "not-a-token"),))
        assert refused.value.code == refused_grpc.value.code()
        assert refused.value.message == refused_grpc.value.details()


def test_the_benchmark_runs_both_sides_alternately_and_prints_the_ratios(tmp_path: Path) -> None:
    completed = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "connectrpc_compare.py"), "--smoke", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=150,
        cwd=ROOT,
        env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")},
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    out = completed.stdout
    assert len(re.findall(r"^ {4}hand-made {10}server CPU/move ", out, re.MULTILINE)) == 1, out
    assert len(re.findall(r"^ {4}connectrpc {9}server CPU/move ", out, re.MULTILINE)) == 1, out
    for label in ("server CPU per move", "saturated views/s", "paced p99"):
        line = rf"^  ratio {label} connectrpc / hand-made: median {NUMBER} \[{NUMBER}\.\.{NUMBER}\] over 1 pairs"
        assert re.search(line, out, re.MULTILINE), out

    figures: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    assert figures["benchmark"] == "connectrpc-compare"
    (point,) = figures["points"]
    (run,) = point["runs"]
    for side in ("handmade", "connectrpc"):
        summary = run[side]
        # Both sides carried the moves: acts accepted, every viewer's update timed, nothing refused.
        assert summary["saturated"]["actions_per_s"]["median"] > 0, f"{side} made no move"
        assert summary["saturated"]["views_per_s"]["median"] > 0, f"{side} delivered no view"
        assert summary["paced"]["latency_p99_ms"]["n"] > 0, f"{side} timed no update"
        assert summary["paced"]["refused"] + summary["saturated"]["refused"] == 0, f"{side} had moves refused"
    assert (tmp_path / "connectrpc-compare.csv").read_text().startswith("tables,pair,side,")
