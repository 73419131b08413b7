"""The Node.js example client (examples/node/client.js) against a real server on 127.0.0.1: it creates or
joins a table, plays it to the end with random legal actions (beside a Python player, racing bots), and
exits 0 with the outcome; over TLS too. Needs `npm ci --prefix examples/node` first (CI does it).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, start_serve
from e2e_helpers import play_randomly
from toadstool.api.v1 import table_pb2
from toadstool.server.app import RunningServer, ServerConfig, running_server
from toadstool_clients.certs import make_certificate
from toadstool_clients.connection import Client

NODE_CLIENT = ROOT / "examples" / "node" / "client.js"
#: A word each game's public state line holds (examples/node/client.js's PUBLIC_STATE).
STATE_SHOWS = {"uno": "top card", "powerup": "tokens", "levelup": "coins", "kart": "field"}


def node() -> str:
    found = shutil.which("node")
    assert found, "Node.js is needed for the example client (CI installs nodejs)"
    assert (ROOT / "examples/node/node_modules/@grpc/grpc-js").is_dir(), "run `npm ci --prefix examples/node`"
    return found


async def run_node_client(*args: str, seconds: float = 60) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        node(),
        str(NODE_CLIENT),
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), seconds)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


@pytest.mark.parametrize(
    ("game", "players"),
    [("uno", 2), ("powerup", 2), ("levelup", 3), ("kart", 2)],
)
async def test_the_node_client_creates_a_table_and_plays_it_to_the_end(
    server: RunningServer, client: Client, game: str, players: int
) -> None:
    code, out, err = await run_node_client(
        "--server", server.address, "--create", game, "--players", str(players), "--bots", str(players - 1),
        "--seed", "21", "--name", "Nodey",
    )  # fmt: skip
    assert code == 0, err
    assert err == ""
    table_id = out.splitlines()[0].removeprefix("created table ").split()[0]
    assert "joined table" in out
    assert "game over: " in out
    assert "winners: " in out
    table = await client.get_table(table_id)
    assert table.status == table_pb2.TABLE_STATUS_FINISHED
    assert table.seats[0].name == "Nodey"
    # It shows the game's public state from every live view, resumed and in history (and stops with an
    # error if a field it shows is missing, as every view did when it arrived without its public half).
    states = [line for line in out.splitlines() if line.startswith("  state: ")]
    assert len(states) > 3
    assert all(STATE_SHOWS[game] in line and "Nodey" in line for line in states), states[:3]
    assert f"resumed since {table.version - 2}: " in out
    assert "each view read whole" in out


async def test_the_node_client_joins_an_existing_table_and_plays_beside_a_python_player(
    server: RunningServer, client: Client
) -> None:
    created = await client.create_table("uno", players=3, bots=1, seed=4, options={"target": "100"})
    table_id = created.table.table_id
    python_seat = await client.join(table_id, "Py")
    python_player = asyncio.create_task(
        play_randomly(server.address, table_id, python_seat.seat_token, python_seat.seat, seed=3)
    )
    code, out, err = await run_node_client("--server", server.address, "--table", table_id, "--name", "Js")
    transcript = await asyncio.wait_for(python_player, 30)
    assert code == 0, err
    assert f"joined table {table_id} in seat 1" in out
    assert transcript.last.status == table_pb2.TABLE_STATUS_FINISHED
    summary = transcript.last.outcome.summary
    assert f"game over: {summary}" in out


async def test_the_node_client_plays_over_tls_with_the_servers_certificate(tmp_path: Path) -> None:
    pair = make_certificate(tmp_path)
    config = ServerConfig(
        host="127.0.0.1", port=0, bot_delay=0.0, grace=0.5, tls_cert=str(pair.cert), tls_key=str(pair.key)
    )
    async with running_server(config) as running:
        address = f"localhost:{running.port}"
        code, out, err = await run_node_client(
            "--server", address, "--tls-ca", str(pair.cert), "--create", "kart", "--players", "2", "--bots", "1",
        )  # fmt: skip
        assert code == 0, err
        assert "game over: " in out
        refused, _, message = await run_node_client(
            "--server", address, "--create", "kart", "--players", "2", "--bots", "1", seconds=30
        )
    assert refused == 1
    assert "[UNAVAILABLE]" in message


async def test_the_node_client_rides_out_a_server_restart_and_still_finishes_the_game(tmp_path: Path) -> None:
    flags = ("--bot-delay", "0.05", "--min-bot-delay", "0", "--db", str(tmp_path / "t.db"))
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_STATE_HOME": str(tmp_path / "state")}
    first, address = await asyncio.to_thread(start_serve, *flags, output=tmp_path / "serve.log", env=env)
    port = int(address.rsplit(":", 1)[1])  # the restart comes back at the same address, for the client

    def start() -> subprocess.Popen[bytes]:
        return start_serve(*flags, output=tmp_path / "serve.log", env=env, port=port)[0]

    servers = [first]
    node_client = await asyncio.create_subprocess_exec(
        node(), str(NODE_CLIENT), "--server", address, "--create", "kart", "--players", "2",
        "--bots", "1", "--seed", "8",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        assert node_client.stdout is not None
        seen: list[str] = []
        while len([line for line in seen if line.startswith("  [v")]) < 15:
            line = (await asyncio.wait_for(node_client.stdout.readline(), 30)).decode()
            assert line, "the client ended before the restart: " + "".join(seen)
            seen.append(line)
        servers[0].terminate()
        await asyncio.to_thread(servers[0].wait, 10)
        servers.append(await asyncio.to_thread(start))
        rest, err = await asyncio.wait_for(node_client.communicate(), 60)
        out = "".join(seen) + rest.decode()
        assert node_client.returncode == 0, out + err.decode()
        assert "connection lost" in out
        assert "game over: " in out
        versions = [
            int(line.split("]")[0].removeprefix("  [v")) for line in out.splitlines() if line.startswith("  [v")
        ]
        assert versions == sorted(versions), "events resume where they left off, without going back"
    finally:
        if node_client.returncode is None:
            node_client.kill()
            await node_client.wait()
        for server in servers:
            server.terminate()
            await asyncio.to_thread(server.wait, 10)


async def test_the_node_client_reports_an_unknown_table_and_exits_1(server: RunningServer) -> None:
    code, _, err = await run_node_client("--server", server.address, "--table", "nosuch")
    assert code == 1
    assert "[NOT_FOUND]" in err


async def test_the_node_client_refuses_incomplete_arguments() -> None:
    code, _, err = await run_node_client("--create", "uno")
    assert code == 2
    assert "--create needs --players N" in err
