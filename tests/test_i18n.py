"""German and English, chosen per caller (issue #43, its first step): the server's catalogue, ListGames and
every refusal in the caller's language, over gRPC, Connect and the WebSocket, and `toadstool serve --lang`.

Real servers on loopback (in this process, and `toadstool serve` as a process), real gRPC and HTTP calls. The
catalogue's own checks are `scripts/i18n --check`'s, which the first tests run too.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from babel.messages.pofile import read_po, write_po
from web_helpers import ConnectError, WebClient
from websockets.asyncio.client import connect

from conftest import TEST_LIMITS, free_port, stop_process, toadstool_command, wait_for_port
from toadstool import i18n
from toadstool.api.v1 import service_pb2, service_pb2_grpc
from toadstool.i18n import negotiate, tr, trn
from toadstool.server.app import RunningServer, ServerConfig, running_server
from toadstool.server.web_socket import ACT, ACT_REFUSED, REFUSED, SOCKET_PATH, VIEW, WATCH

ROOT = Path(__file__).resolve().parents[1]
LOCALE = ROOT / "server" / "toadstool" / "locale"
POT = LOCALE / "toadstool.pot"
GERMAN = "de-DE,de;q=0.9"
SECONDS = 10.0

#: What ListGames says of Kart and of UNO's `target` option, in each language.
KART = {"en": "Super Mario Kart (board game)", "de": "Super Mario Kart (Brettspiel)"}
TARGET_HELP = {"en": "points that end the game", "de": "Punkte, mit denen das Spiel endet"}
#: The refusal of CreateTable for a game the server does not host, in each language.
UNKNOWN_GAME = {
    "en": "unknown game 'nope'; this server hosts:",
    "de": "unbekanntes Spiel 'nope'; dieser Server bietet:",
}


# --- The catalogue ----------------------------------------------------------------------------------------


def _placeholders(text: str) -> list[str]:
    return sorted({a or b for a, b in re.findall(r"\{(\w*)[^{}]*\}|%\((\w+)\)", text)})


def catalogue_problems(po: Path, pot: Path = POT) -> list[str]:
    """What a language's catalogue lacks: every message of the template translated, none fuzzy or empty,
    each with the English's placeholders (else `Text.said_in` could not fill it in)."""
    with pot.open("rb") as f:
        template = read_po(f)
    with po.open("rb") as f:
        catalogue = read_po(f, locale=po.parts[-3])
    problems = []
    for message in template:
        if not message.id:
            continue
        found = catalogue.get(message.id)
        if found is None:
            problems.append(f"missing: {message.id!r}")
            continue
        strings = found.string if isinstance(found.string, tuple) else (found.string,)
        english = found.id if isinstance(found.id, tuple) else (found.id,)
        if found.fuzzy:
            problems.append(f"fuzzy: {message.id!r}")
        if not all(s.strip() for s in strings):
            problems.append(f"untranslated: {message.id!r}")
        elif any(_placeholders(s) not in (_placeholders(english[0]), _placeholders(english[-1])) for s in strings):
            problems.append(f"placeholders differ: {message.id!r}")
    return problems


def test_every_message_has_a_german_translation() -> None:
    po = LOCALE / "de" / "LC_MESSAGES" / "toadstool.po"
    assert catalogue_problems(po) == []
    with POT.open("rb") as f:
        assert len([m for m in read_po(f) if m.id]) > 100  # refusals, console lines, help texts, game titles


def test_the_check_fails_on_a_missing_a_fuzzy_and_an_empty_translation(tmp_path: Path) -> None:
    po = LOCALE / "de" / "LC_MESSAGES" / "toadstool.po"
    with po.open("rb") as f:
        catalogue = read_po(f, locale="de")
    ids = [m.id for m in catalogue if m.id and isinstance(m.id, str)]
    del catalogue[ids[0]]
    catalogue[ids[1]].flags.add("fuzzy")
    catalogue[ids[2]].string = ""
    broken = tmp_path / "de" / "LC_MESSAGES" / "toadstool.po"
    broken.parent.mkdir(parents=True)
    with broken.open("wb") as f:
        write_po(f, catalogue)
    assert set(catalogue_problems(broken)) == {
        f"missing: {ids[0]!r}",
        f"fuzzy: {ids[1]!r}",
        f"untranslated: {ids[2]!r}",
    }


def test_scripts_i18n_finds_the_catalogues_current(tmp_path: Path) -> None:
    """The template holds every marked message of today's code, and each language translates all of it."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run(
        [str(ROOT / "scripts" / "i18n"), "--check"], capture_output=True, text=True, env=env, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    # And it fails once a German translation is gone (on a copy of the tree's catalogues).
    copy = tmp_path / "repo"
    shutil.copytree(ROOT / "scripts", copy / "scripts")
    shutil.copytree(
        ROOT / "server" / "toadstool", copy / "server" / "toadstool", ignore=shutil.ignore_patterns("__pycache__")
    )
    po = copy / "server" / "toadstool" / "locale" / "de" / "LC_MESSAGES" / "toadstool.po"
    po.write_text(po.read_text().replace('msgstr "das Spiel hat begonnen"', 'msgstr ""'))
    result = subprocess.run(
        [str(copy / "scripts" / "i18n"), "--check"], capture_output=True, text=True, env=env, timeout=120, check=False
    )
    assert result.returncode != 0
    assert "untranslated: 'the game started'" in result.stderr


def test_texts_are_said_in_their_readers_language_with_plural_forms() -> None:
    full = trn("this server holds its maximum of {n} table", "this server holds its maximum of {n} tables", 1)
    assert full.said_in("de") == "dieser Server hat schon seine Höchstzahl von 1 Tisch"
    many = trn("this server holds its maximum of {n} table", "this server holds its maximum of {n} tables", 5)
    assert many.said_in("de") == "dieser Server hat schon seine Höchstzahl von 5 Tischen"
    assert str(many) == "this server holds its maximum of 5 tables"
    # A value that is a text of its own (a game's title) is said in the same language.
    refusal = tr("{game} takes {min} to {max} players, not {players}", game=tr(KART["en"]), min=2, max=7, players=9)
    assert refusal.said_in("de") == "Super Mario Kart (Brettspiel) hat 2 bis 7 Spieler, nicht 9"
    # A message the catalogue lacks (a plug-in game's title) stays English.
    assert tr("Pig").said_in("de") == "Pig"


@pytest.mark.parametrize(
    ("header", "default", "chosen"),
    [
        (GERMAN, "en", "de"),
        ("de-AT", "en", "de"),
        ("en-US,en;q=0.9,de;q=0.8", "de", "en"),
        ("fr-CH, fr;q=0.9, de;q=0.7, *;q=0.5", "en", "de"),
        ("en;q=0.1,de;q=0.9", "en", "de"),
        ("fr", "de", "de"),  # no language it has texts in: the server's default
        ("de;q=0", "en", "en"),  # "not German"
        ("", "de", "de"),
        # Malformed: what cannot be read is left out, so all of it means the default, never an error.
        ("de;q=abc", "en", "en"),
        (";;;,,,", "de", "de"),
        ("*", "de", "de"),
        ("d e, -de-, de--DE", "en", "en"),
        ("de;q=2", "en", "en"),
        ("x" * 5000, "de", "de"),
        ("\x00\x7f\u00e4", "en", "en"),
    ],
)
def test_accept_language_is_negotiated_with_babel(header: str, default: str, chosen: str) -> None:
    assert negotiate(header, default) == chosen


# --- Over the wire ----------------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def _server(language: str = "en") -> AsyncIterator[RunningServer]:
    config = ServerConfig(
        host="127.0.0.1", port=0, web_port=0, bot_delay=0.0, grace=0.5, limits=TEST_LIMITS, language=language
    )
    async with running_server(config) as running:
        yield running


@pytest.fixture
async def server() -> AsyncIterator[RunningServer]:
    async with _server() as running:
        yield running


@contextlib.asynccontextmanager
async def _stub(address: str) -> AsyncIterator[service_pb2_grpc.ToadstoolServiceStub]:
    async with grpc.aio.insecure_channel(address) as channel:
        yield service_pb2_grpc.ToadstoolServiceStub(channel)


def _language(header: str | None) -> tuple[tuple[str, str], ...]:
    return (("accept-language", header),) if header is not None else ()


def _said(games: service_pb2.ListGamesResponse) -> tuple[str, str]:
    """What ListGames says of Kart's title and of UNO's `target` option."""
    by_name = {game.name: game for game in games.games}
    target = next(option for option in by_name["uno"].options if option.name == "target")
    return by_name["kart"].title, target.help


async def _grpc_games(address: str, header: str | None) -> service_pb2.ListGamesResponse:
    async with _stub(address) as stub:
        return await stub.ListGames(service_pb2.ListGamesRequest(), metadata=_language(header), timeout=SECONDS)


async def _connect_games(base: str, header: str | None) -> service_pb2.ListGamesResponse:
    async with WebClient(base) as web:
        headers = {"accept-language": header} if header is not None else None
        return await web.call(
            "ListGames", service_pb2.ListGamesRequest(), service_pb2.ListGamesResponse, headers=headers
        )


async def test_list_games_answers_in_german_when_asked_over_grpc_and_connect(server: RunningServer) -> None:
    base = f"http://{server.web_address}"
    for header, language in ((GERMAN, "de"), (None, "en"), ("en-GB", "en")):
        over_grpc = await _grpc_games(server.address, header)
        over_connect = await _connect_games(base, header)
        assert _said(over_grpc) == (KART[language], TARGET_HELP[language]), header
        assert over_connect == over_grpc, header
    german, english = await _grpc_games(server.address, GERMAN), await _grpc_games(server.address, None)
    # Only the texts a person reads: names, option names, kinds, defaults and choices are the same values.
    for de, en in zip(german.games, english.games, strict=True):
        assert (de.name, de.min_players, de.max_players) == (en.name, en.min_players, en.max_players)
        assert [(o.name, o.kind, o.default_value, list(o.choices)) for o in de.options] == [
            (o.name, o.kind, o.default_value, list(o.choices)) for o in en.options
        ]
    # Each option's label and each choice's label are words, said in the caller's language.
    labels = {
        language: {(g.name, o.name): (o.label, list(o.choice_labels)) for g in games.games for o in g.options}
        for language, games in (("de", german), ("en", english))
    }
    assert labels["en"][("uno", "target")] == ("Target score", [])
    assert labels["de"][("uno", "target")] == ("Zielpunktzahl", [])
    assert labels["de"][("uno", "house_rule")] == ("Hausregel", [])
    kart_choices = next(o for g in english.games if g.name == "kart" for o in g.options if o.name == "track").choices
    builtin = {"mini-loop": ("Mini Loop", "Mini-Rundkurs"), "mushroom-loop": ("Mushroom Loop", "Pilz-Rundkurs")}
    for language, index in (("en", 0), ("de", 1)):
        label, choice_labels = labels[language][("kart", "track")]
        assert label == ("Track", "Strecke")[index]
        assert len(choice_labels) == len(kart_choices)
        for choice, choice_label in zip(kart_choices, choice_labels, strict=True):
            if choice in builtin:
                assert choice_label == builtin[choice][index], (language, choice)
    assert {g.title for g in german.games} >= {
        "UNO Super Mario",
        "Super Mario Bros. Power Up Kartenspiel",
        "Super Mario: Level Up!",
        "Super Mario Kart (Brettspiel)",
    }


async def test_a_default_table_name_is_said_in_each_callers_language_a_given_one_as_written(
    server: RunningServer,
) -> None:
    """A table created without a name is called by its game's title and its id: the title is a text of the
    server's, said in each caller's language (the lobby's list, the table's own updates); a name a person
    gave is a value, the same for everyone."""
    async with _stub(server.address) as stub:
        unnamed = (await stub.CreateTable(service_pb2.CreateTableRequest(game="kart", players=2))).table
        named = service_pb2.CreateTableRequest(game="kart", players=2, name="Super Mario Kart (board game)")
        given = (await stub.CreateTable(named)).table
        assert unnamed.name == f"{KART['en']} {unnamed.table_id}"
        for header, language in ((GERMAN, "de"), (None, "en")):
            listed = await stub.ListTables(service_pb2.ListTablesRequest(), metadata=_language(header))
            names = {t.table_id: t.name for t in listed.tables}
            assert names[unnamed.table_id] == f"{KART[language]} {unnamed.table_id}"
            assert names[given.table_id] == "Super Mario Kart (board game)"
            got = await stub.GetTable(
                service_pb2.GetTableRequest(table_id=unnamed.table_id), metadata=_language(header)
            )
            assert got.table.name == f"{KART[language]} {unnamed.table_id}"
            watch = stub.Watch(service_pb2.WatchRequest(table_id=unnamed.table_id), metadata=_language(header))
            async for response in watch:
                assert response.update.table_name == f"{KART[language]} {unnamed.table_id}"
                break
            watch.cancel()


async def test_two_callers_at_once_each_read_their_own_language(server: RunningServer) -> None:
    base = f"http://{server.web_address}"
    callers = [("de", GERMAN), ("en", None), ("de", "de"), ("en", "en-US,en;q=0.9")] * 10

    async def one(index: int, language: str, header: str | None) -> tuple[str, str]:
        games = await (_grpc_games(server.address, header) if index % 2 else _connect_games(base, header))
        return language, _said(games)[0]

    answers = await asyncio.gather(*(one(i, language, header) for i, (language, header) in enumerate(callers)))
    assert answers == [(language, KART[language]) for language, _ in callers]


async def test_a_refusal_is_said_in_the_callers_language_with_the_same_status(server: RunningServer) -> None:
    request = service_pb2.CreateTableRequest(game="nope", players=2)
    codes = {}
    async with _stub(server.address) as stub:
        for header, language in ((GERMAN, "de"), (None, "en")):
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.CreateTable(request, metadata=_language(header), timeout=SECONDS)
            assert refused.value.details().startswith(UNKNOWN_GAME[language]), refused.value.details()
            codes[language] = refused.value.code()
        # A refusal of the table layer in German too, naming a game by its German title.
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.CreateTable(
                service_pb2.CreateTableRequest(game="kart", players=9), metadata=_language(GERMAN), timeout=SECONDS
            )
        assert refused.value.details() == "Super Mario Kart (Brettspiel) hat 2 bis 7 Spieler, nicht 9"
    assert codes == {"de": grpc.StatusCode.INVALID_ARGUMENT, "en": grpc.StatusCode.INVALID_ARGUMENT}
    async with WebClient(f"http://{server.web_address}") as web:
        for header, language in ((GERMAN, "de"), (None, "en")):
            with pytest.raises(ConnectError) as connect_refused:
                await web.call(
                    "CreateTable",
                    request,
                    service_pb2.CreateTableResponse,
                    headers={"accept-language": header} if header else None,
                )
            assert connect_refused.value.code == grpc.StatusCode.INVALID_ARGUMENT
            assert connect_refused.value.message.startswith(UNKNOWN_GAME[language])
        # A refusal of the Connect adapter itself (before the service): the same language.
        response = await web.raw("ListGames", b"{}", {"content-type": "text/plain", "accept-language": GERMAN})
        assert response.status_code == 415
        assert (
            response.json()["message"] == "ListGames nimmt application/json oder application/proto, nicht 'text/plain'"
        )


async def test_a_play_stream_and_a_web_socket_refuse_in_their_callers_language(server: RunningServer) -> None:
    async with _stub(server.address) as stub:
        created = await stub.CreateTable(service_pb2.CreateTableRequest(game="uno", players=2, bots=1), timeout=SECONDS)
        table_id = created.table.table_id
        # A Play stream without a seat token: its act is refused in-band, in the stream's language.
        call = stub.Play(metadata=_language(GERMAN), timeout=SECONDS)
        await call.write(service_pb2.PlayRequest(watch=service_pb2.WatchRequest(table_id=table_id)))
        first = await call.read()
        assert first.WhichOneof("kind") == "update"
        await call.write(service_pb2.PlayRequest(act=service_pb2.ActRequest(action_id="draw", request_id="r1")))
        answer = await call.read()
        assert answer.acted.code == grpc.StatusCode.UNAUTHENTICATED.value[0]
        assert answer.acted.message == "kein Platz-Token: sende das Token aus JoinTable in den Metadaten 'x-seat-token'"
        call.cancel()
    # A socket's own refusal (a frame kind that does not exist), said in its handshake's language.
    url = f"ws://{server.web_address}{SOCKET_PATH}"
    async with connect(url, open_timeout=SECONDS, additional_headers={"accept-language": GERMAN}) as socket:
        await socket.send(bytes((9,)))
        async with asyncio.timeout(SECONDS):
            frame = await socket.recv()
    assert isinstance(frame, bytes)
    assert frame[0] == REFUSED
    assert json.loads(frame[1:])["message"] == "diese Frame-Art gibt es nicht: 9 (1 WATCH, 2 ACT, 0 HELLO)"
    # The service's refusal of a socket's act (no seat token): the handshake's language too.
    async with connect(url, open_timeout=SECONDS, additional_headers={"accept-language": GERMAN}) as socket:
        await socket.send(bytes((WATCH,)) + service_pb2.WatchRequest(table_id=table_id).SerializeToString())
        act = service_pb2.ActRequest(table_id=table_id, action_id="draw", request_id="r2")
        async with asyncio.timeout(SECONDS):
            while (frame := await socket.recv())[0] != VIEW:
                pass
            await socket.send(bytes((ACT,)) + act.SerializeToString())
            while (frame := await socket.recv())[0] == VIEW:
                pass
    assert isinstance(frame, bytes)
    assert frame[0] == ACT_REFUSED
    refusal = json.loads(frame[1:])
    assert refusal == {
        "code": "unauthenticated",
        "message": "kein Platz-Token: sende das Token aus JoinTable in den Metadaten 'x-seat-token'",
    }


async def test_a_refusal_with_umlauts_reaches_a_grpc_caller_whole(server: RunningServer) -> None:
    async with _stub(server.address) as stub:
        created = await stub.CreateTable(service_pb2.CreateTableRequest(game="uno", players=2), timeout=SECONDS)
        join = service_pb2.JoinTableRequest(table_id=created.table.table_id, name="Ann", seat=5)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.JoinTable(join, metadata=_language(GERMAN), timeout=SECONDS)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert refused.value.details() == "Platz 5 gibt es nicht; die Plätze sind 0..1"


async def test_a_malformed_accept_language_falls_back_to_the_default_without_error() -> None:
    for default in ("en", "de"):
        async with _server(default) as running:
            base = f"http://{running.web_address}"
            for header in ("de;q=abc", ";;;", "*", "xx-!!", "q=0.5"):
                assert _said(await _grpc_games(running.address, header))[0] == KART[default], header
                assert _said(await _connect_games(base, header))[0] == KART[default], header
            # A header value that is not even ASCII reaches Connect: still no error.
            async with WebClient(base) as web:
                response = await web.raw(
                    "ListGames",
                    b"{}",
                    {"content-type": "application/json", "accept-language": "dé, ü".encode()},  # type: ignore[dict-item]
                )
            assert response.status_code == 200
            assert json.loads(response.text)["games"]


# --- `toadstool serve --lang` -----------------------------------------------------------------------------


def _wait_for_text(
    output: Path, pattern: str, process: subprocess.Popen[bytes], seconds: float = 30.0
) -> re.Match[str]:
    deadline = time.monotonic() + seconds
    while True:
        printed = output.read_bytes().decode(errors="replace")
        found = re.search(pattern, printed)
        if found:
            return found
        assert process.poll() is None, f"`toadstool serve` exited ({process.returncode}):\n{printed[-3000:]}"
        assert time.monotonic() < deadline, f"no {pattern!r} within {seconds} s:\n{printed[-3000:]}"
        time.sleep(0.05)


def test_serve_lang_de_makes_german_the_default_and_its_console_german(tmp_path: Path) -> None:
    port, web_port, output = free_port(), free_port(), tmp_path / "serve.log"
    command = toadstool_command(
        *("serve", "--host", "127.0.0.1", "--port", str(port), "--web-port", str(web_port), "--lang", "de"),
        *("--no-db", "--no-announce", "--bot-delay", "0.01"),
    )
    address, base = f"127.0.0.1:{port}", f"http://127.0.0.1:{web_port}"

    async def calls() -> None:
        assert _said(await _grpc_games(address, None)) == (KART["de"], TARGET_HELP["de"])
        assert _said(await _connect_games(base, None)) == (KART["de"], TARGET_HELP["de"])
        assert _said(await _grpc_games(address, "en")) == (KART["en"], TARGET_HELP["en"])  # a caller's own wins
        async with _stub(address) as stub:
            created = await stub.CreateTable(service_pb2.CreateTableRequest(game="uno", players=2), timeout=SECONDS)
            join = service_pb2.JoinTableRequest(table_id=created.table.table_id, name="Ann")
            await stub.JoinTable(join, timeout=SECONDS)

    with output.open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    try:
        listening = r"Toadstool-Server wartet auf 127\.0\.0\.1:\d+ \(unverschlüsselt; Strg\+C beendet\)"
        _wait_for_text(output, listening, process)
        _wait_for_text(output, r"Im Browser spielen: http://", process)
        wait_for_port(port)
        asyncio.run(calls())
        # The host's lines on the console: German too.
        _wait_for_text(output, r"Ann hat sich hingesetzt \(Platz 0\)", process)
    finally:
        stop_process(process)
    assert "Wird beendet" in output.read_text()


def test_serve_refuses_a_language_it_has_no_texts_in() -> None:
    result = subprocess.run(
        toadstool_command("serve", "--lang", "fr", "--no-db"), capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 2
    assert "no texts in 'fr'; there are: en, de" in result.stderr


def test_the_help_of_toadstool_and_serve_is_german_for_a_german_user() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LC_") and k != "LANGUAGE"}
    german = {**env, "LANG": "de_DE.UTF-8"}
    for argv, words in (
        (
            ["--help"],
            ["Aufruf: toadstool", "Befehle", "Tische für das lokale Netz bereitstellen", "mehr protokollieren"],
        ),
        (["serve", "--help"], ["Aufruf: toadstool serve", "Port, auf dem gewartet wird (Standard 50051)", "Optionen"]),
    ):
        result = subprocess.run(
            toadstool_command(*argv), capture_output=True, text=True, env=german, timeout=60, check=True
        )
        for word in words:
            assert word in result.stdout, (argv, word, result.stdout)
        english = subprocess.run(
            toadstool_command(*argv),
            capture_output=True,
            text=True,
            env={**env, "LANG": "C.UTF-8"},
            timeout=60,
            check=True,
        )
        assert english.stdout.startswith("usage: toadstool")


def test_every_language_has_a_catalogue_in_the_package() -> None:
    """What `pip install` ships: a .po per language beside the package (pyproject's package-data)."""
    for language in i18n.LANGUAGES:
        if language != i18n.ENGLISH:
            assert (LOCALE / language / "LC_MESSAGES" / "toadstool.po").is_file()
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"toadstool" = ["locale/*/LC_MESSAGES/*.po", "locale/*.pot"]' in pyproject
