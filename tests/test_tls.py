"""TLS end to end: `toadstool cert` makes the pair, a real server serves TLS on 127.0.0.1, clients that
trust the certificate play, and the wrong combinations (plaintext client to a TLS server, TLS client to a
plaintext server, a certificate the client does not trust) are refused with a message that says what to do.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import random
import re
import ssl
import subprocess
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from cryptography import x509

from conftest import start_serve, stop_process, toadstool_command
from e2e_helpers import RACE_CODES
from toadstool.api.v1 import table_pb2
from toadstool.server.app import RunningServer, ServerConfig, running_server
from toadstool_clients.certs import CERT_FILE, KEY_FILE, tls_mismatch
from toadstool_clients.connection import Client


def make_pair(directory: Path, *hosts: str) -> tuple[Path, Path]:
    """A certificate and key from the real `toadstool cert` command."""
    args = ["cert", "--out", str(directory)]
    for host in hosts:
        args += ["--host", host]
    result = subprocess.run(toadstool_command(*args), capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return directory / CERT_FILE, directory / KEY_FILE


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    return make_pair(tmp_path / "tls", "toad.example")


@pytest.fixture
async def tls_server(pair: tuple[Path, Path]) -> AsyncIterator[RunningServer]:
    cert, key = pair
    config = ServerConfig(host="127.0.0.1", port=0, bot_delay=0.0, grace=0.5, tls_cert=str(cert), tls_key=str(key))
    async with running_server(config) as running:
        yield running


def test_cert_writes_a_secret_key_and_a_certificate_naming_the_given_hosts_and_localhost(tmp_path: Path) -> None:
    result = subprocess.run(
        toadstool_command("cert", "--out", str(tmp_path), "--host", "toad.lan", "--host", "192.0.2.7", "--days", "30"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert f"--tls-cert {tmp_path / CERT_FILE} --tls-key {tmp_path / KEY_FILE}" in result.stdout
    assert f"--tls-ca {tmp_path / CERT_FILE}" in result.stdout
    assert (tmp_path / KEY_FILE).stat().st_mode & 0o777 == 0o600
    certificate = x509.load_pem_x509_certificate((tmp_path / CERT_FILE).read_bytes())
    names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert names.get_values_for_type(x509.DNSName) == ["toad.lan", "localhost"]
    assert names.get_values_for_type(x509.IPAddress) == [
        ipaddress.ip_address("192.0.2.7"),
        ipaddress.ip_address("127.0.0.1"),
    ]
    lifetime = certificate.not_valid_after_utc - certificate.not_valid_before_utc
    assert 30 <= lifetime.days <= 31

    again = subprocess.run(
        toadstool_command("cert", "--out", str(tmp_path)), capture_output=True, text=True, timeout=60
    )
    assert again.returncode == 1
    assert "exists (use --force to replace it)" in again.stderr


async def _play_to_the_end(client: Client, table_id: str, token: str, seed: int) -> table_pb2.Update:
    """Act at random on every update that offers this seat something, until the game is over."""
    rng = random.Random(seed)
    call = client.watch(table_id, token)
    try:
        async for response in call:
            update = response.update
            if update.status == table_pb2.TABLE_STATUS_FINISHED:
                return update
            if update.legal_actions:
                await _act(client, table_id, token, update, rng)
    finally:
        call.cancel()
    raise AssertionError("the stream ended before the game did")


async def _act(client: Client, table_id: str, token: str, update: table_pb2.Update, rng: random.Random) -> None:
    """One random legal action; a race is fine (the next update comes), the flood guard means wait."""
    for _ in range(100):
        action = rng.choice(list(update.legal_actions))
        try:
            await client.act(table_id, token, update.version, action.id)
            return
        except grpc.aio.AioRpcError as error:
            if error.code() in RACE_CODES:
                return
            if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                raise
            await asyncio.sleep(0.1)
    raise AssertionError("the server kept refusing actions as too fast")


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1"])
async def test_a_client_trusting_the_certificate_plays_a_whole_game_over_tls(
    tls_server: RunningServer, pair: tuple[Path, Path], host: str
) -> None:
    cert, _ = pair
    async with Client(f"{host}:{tls_server.port}", tls_ca=str(cert)) as client:
        created = await client.create_table("uno", players=2, bots=1, seed=11, options={"target": "50"})
        joined = await client.join(created.table.table_id, "Daisy")
        final = await asyncio.wait_for(_play_to_the_end(client, created.table.table_id, joined.seat_token, 5), 60)
    assert final.outcome.winners
    assert final.viewer_seat == joined.seat


async def test_a_plaintext_client_is_refused_by_a_tls_server_and_told_to_pass_tls_ca(tls_server: RunningServer) -> None:
    async with Client(f"127.0.0.1:{tls_server.port}", timeout=5) as client:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await client.list_games()
    assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
    message = await asyncio.to_thread(tls_mismatch, f"127.0.0.1:{tls_server.port}", None)
    assert message == (
        f"the server at 127.0.0.1:{tls_server.port} only accepts TLS connections: pass --tls-ca with the "
        "server's certificate (or set TOADSTOOL_TLS_CA)"
    )


async def test_a_tls_client_of_a_plaintext_server_is_told_to_leave_out_tls_ca(
    server: RunningServer, pair: tuple[Path, Path]
) -> None:
    cert, _ = pair
    async with Client(server.address, tls_ca=str(cert), timeout=5) as client:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await client.list_games()
    assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
    message = await asyncio.to_thread(tls_mismatch, server.address, str(cert))
    assert message is not None
    assert "speaks plaintext, not TLS: leave out --tls-ca" in message


async def test_a_certificate_the_client_was_not_given_is_not_trusted(tls_server: RunningServer, tmp_path: Path) -> None:
    other_cert, _ = make_pair(tmp_path / "other", "toad.example")
    address = f"localhost:{tls_server.port}"
    async with Client(address, tls_ca=str(other_cert), timeout=5) as client:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await client.list_games()
    assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
    message = await asyncio.to_thread(tls_mismatch, address, str(other_cert))
    assert message is not None
    assert f"was not trusted: its certificate is not the one in {other_cert}" in message


def test_the_commands_speak_tls_to_a_tls_serve_process_and_explain_a_plaintext_refusal(
    tmp_path: Path, pair: tuple[Path, Path]
) -> None:
    cert, key = pair
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_STATE_HOME": str(tmp_path / "state")}
    env.pop("TOADSTOOL_TLS_CA", None)
    output = tmp_path / "serve.log"
    flags = ("--no-db", "--no-announce", "--tls-cert", str(cert), "--tls-key", str(key))
    server, listening = start_serve(*flags, output=output, env=env)
    try:
        assert f"listening on {listening} (TLS;" in output.read_text()
        address = f"localhost:{listening.rsplit(':', 1)[1]}"
        games = subprocess.run(
            toadstool_command("games", "--server", address, "--tls-ca", str(cert)),
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert games.returncode == 0, games.stderr
        assert "uno" in games.stdout
        from_env = subprocess.run(
            toadstool_command("tables", "--server", address),
            env={**env, "TOADSTOOL_TLS_CA": str(cert)},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert from_env.returncode == 0, from_env.stderr

        plaintext = subprocess.run(
            toadstool_command("games", "--server", address), env=env, capture_output=True, text=True, timeout=60
        )
        assert plaintext.returncode == 1
        assert f"the server at {address} only accepts TLS connections: pass --tls-ca" in plaintext.stderr

        # The browser's side of the same process (uvicorn and httptools, on uvloop) speaks HTTPS with the pair.
        web = re.search(r"https://[^\s/]+:(\d+)/", output.read_text())
        assert web is not None, output.read_text()
        trusting = ssl.create_default_context(cafile=str(cert))
        with urllib.request.urlopen(f"https://localhost:{web.group(1)}/", context=trusting, timeout=10) as page:
            assert page.status == 200
            assert b"<html" in page.read().lower()
    finally:
        stop_process(server)
