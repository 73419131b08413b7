"""The clients ask for the server's texts in their person's language (issue #43): `--lang` (TOADSTOOL_LANG),
else the locale (LANGUAGE, LC_ALL, LC_MESSAGES, LANG), sent as `accept-language` on every call of the
shared Client, unary and streaming. Against a real server on loopback: a German locale gets German refusals
and game titles, an English or C locale English ones.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import pytest

from toadstool.api.v1 import service_pb2
from toadstool.server.app import RunningServer
from toadstool_clients.connection import Client
from toadstool_clients.language import accept_language

#: The refusal of an unknown game and Kart's title, as the server's catalogue says them.
UNKNOWN = {"en": "unknown game 'nope'", "de": "unbekanntes Spiel 'nope'"}
KART = {"en": "Super Mario Kart (board game)", "de": "Super Mario Kart (Brettspiel)"}


@pytest.mark.parametrize(
    ("environ", "header"),
    [
        ({"LANG": "de_DE.UTF-8"}, "de-DE, de;q=0.9"),
        ({"LANG": "en_GB.UTF-8", "LC_MESSAGES": "de_AT.UTF-8"}, "de-AT, de;q=0.9"),
        ({"LANGUAGE": "de:en", "LANG": "en_US.UTF-8"}, "de, en;q=0.9"),
        ({"TOADSTOOL_LANG": "en", "LANG": "de_DE.UTF-8"}, "en"),
        ({"LANG": "C.UTF-8"}, None),
        ({"LANG": "POSIX"}, None),
        ({}, None),
        ({"LANG": "de_DE\r\nx-evil: 1"}, None),  # the environment is not trusted to be a header
    ],
)
def test_the_accept_language_comes_from_lang_then_the_locale(environ: dict[str, str], header: str | None) -> None:
    assert accept_language(environ) == header


@pytest.mark.parametrize(("lang", "said"), [("de_DE.UTF-8", "de"), ("en_US.UTF-8", "en"), ("C", "en")])
async def test_every_call_of_the_client_carries_the_persons_language(
    server: RunningServer, monkeypatch: pytest.MonkeyPatch, lang: str, said: str
) -> None:
    for name in ("TOADSTOOL_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", lang)
    async with Client(server.address) as client:
        with pytest.raises(grpc.aio.AioRpcError) as refused:  # a unary call with no metadata of its own
            await client.create_table("nope", 2)
        assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert UNKNOWN[said] in (refused.value.details() or "")
        games = {game.name: game.title for game in await client.list_games()}
        assert games["kart"] == KART[said]
        created = await client.create_table("uno", 2, bots=1)
        with pytest.raises(grpc.aio.AioRpcError) as forged:  # a call with metadata of its own (a host token)
            await client.add_bot(created.table.table_id, "forged")
        assert forged.value.code() in (grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED)
        english = forged.value.details() or ""
        with pytest.raises(grpc.aio.AioRpcError) as unknown:  # a stream (Watch) carries it too
            async for _ in client.watch("nosuchtable"):
                pass
        assert unknown.value.code() is grpc.StatusCode.NOT_FOUND
        assert ("Tisch" in (unknown.value.details() or "")) is (said == "de"), unknown.value.details()

        async def play_requests() -> AsyncIterator[service_pb2.PlayRequest]:
            yield service_pb2.PlayRequest(watch=service_pb2.WatchRequest(table_id="nosuchtable"))

        with pytest.raises(grpc.aio.AioRpcError) as unknown:  # and a bidirectional stream (Play)
            async for _ in client.stub.Play(play_requests()):
                pass
        assert ("Tisch" in (unknown.value.details() or "")) is (said == "de"), unknown.value.details()
    async with Client(server.address, language="") as plain:  # asks for nothing: the server's default
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await plain.add_bot(created.table.table_id, "forged")
        assert (refused.value.details() == english) is (said == "en")


def test_lang_on_the_command_is_the_variable_the_clients_read() -> None:
    """`toadstool join/play/new/watch/tk --lang de` keeps the language where every Client of the process
    reads it (the command imports no client module before a subcommand runs, so it names the variable)."""
    from toadstool import cli
    from toadstool_clients import language

    assert cli.LANG_VARIABLE == language.LANG_VARIABLE
    assert language.accept_language({language.LANG_VARIABLE: "de", "LANG": "en_US.UTF-8"}) == "de"
