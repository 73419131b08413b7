"""A German and an English player at one table, each reading their own language in the same moment (issue
#43, docs/design.md §11.4): every game played to its end on a real server, both seats following it over
gRPC Watch with `accept-language` metadata and acting on it, two bots beside them.

The German seat's event texts, action labels, phase and outcome must hold no word of the English ones that
is English only: the English words the game said, less the seats' names, numbers, and the few words German
shares (`SAME`). The English seat must read English (the golden playthroughs in tests/golden hold its words
unchanged). And a note stored as plain English by an older version is shown as it is.
"""

from __future__ import annotations

import asyncio
import random
import re
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest
from google.protobuf.message import Message

from toadstool.api.v1 import kart_pb2, powerup_pb2, service_pb2, table_pb2
from toadstool.games import get_game
from toadstool.games.levelup.data import CHARACTER_NAMES
from toadstool.i18n import from_stored, stored, tr
from toadstool.server import messages, view_words
from toadstool.server.app import RunningServer
from toadstool.server.store import Store
from toadstool.server.tables import Status, TableRegistry, hosting
from toadstool_clients.connection import SEAT_TOKEN_KEY, Client

#: Words German writes as English does: names of the games' own things, and short words both languages have.
SAME = {
    "uno",
    "bot",
    "kart",
    "p",
    "in",
    "x",
    "hand",
    "bank",
    "chip",
    "die",
    "level",
    # Mario names German keeps (docs/glossary.md): Bowser, Koopa, Hammer(-Brüder).
    "bowser",
    "koopa",
    "hammer",
    # Level Up!'s terms German writes alike (docs/glossary.md): ?-Block, POW-Block, Power-Up-Karte, 1-Up-Pilz.
    "block",
    "power",
    "up",
    "champion",
    "pow",
    "mega",
    "warp",
    # The quick Kart track's title, German "Mini-Rundkurs".
    "mini",
}
#: The strings inside the games' views that are values, not words (never said in another language): a
#: track's registry name, a shortcut's label, the purpose of a roll (a key the clients name themselves), the
#: house rule's option value. Every other string in a view must be in its reader's language.
VALUES = {("KartTrack", "name"), ("KartShortcut", "label"), ("KartDieRoll", "purpose"), ("UnoView", "house_rule")}


def _view_strings(message: Message) -> list[str]:
    """Every string in a view message, at any depth, but the `VALUES`."""
    found: list[str] = []
    for described, value in message.ListFields():
        if described.message_type is not None:
            for item in value if described.is_repeated else (value,):
                found.extend(_view_strings(item))
        elif described.type == described.TYPE_STRING and (message.DESCRIPTOR.name, described.name) not in VALUES:
            found.extend(value if described.is_repeated else (value,))
    return found


_WORD = re.compile(r"[A-Za-zÄÖÜäöüß]+")


@dataclass
class Reader:
    """What one seat read: every text the server said to it."""

    language: str
    texts: list[str] = field(default_factory=list)
    outcome: table_pb2.Outcome | None = None


def _words(texts: list[str], names: set[str]) -> set[str]:
    return {w.lower() for t in texts for w in _WORD.findall(t)} - names


async def _follow(
    stub: object,
    client: Client,
    table_id: str,
    token: str,
    reader: Reader,
    seed: int,
) -> None:
    """Follow the table as one seat in `reader.language`, acting with a seeded random legal action whenever
    the game waits for this seat, until the game is over."""
    rng = random.Random(seed)
    metadata = ((SEAT_TOKEN_KEY, token), ("accept-language", reader.language))
    acted_at = -1
    async for response in stub.Watch(service_pb2.WatchRequest(table_id=table_id), metadata=metadata):  # type: ignore[attr-defined]
        update = response.update
        reader.texts.extend(event.text for event in update.events)
        reader.texts.append(update.phase)
        reader.texts.extend(legal.label for legal in update.legal_actions)
        reader.texts.append(update.score_label)
        reader.texts.extend(_view_strings(update.view))
        if update.HasField("outcome") and update.outcome.summary:
            reader.outcome = update.outcome
            reader.texts.append(update.outcome.summary)
            reader.texts.extend(update.outcome.details)
            return
        if update.viewer_seat in update.to_act and update.legal_actions and acted_at != update.version:
            acted_at = update.version
            choice = rng.choice(list(update.legal_actions))
            try:
                await client.act(table_id, token, update.version, choice.id, request_id=uuid.uuid4().hex)
            except grpc.aio.AioRpcError as error:  # the table moved on meanwhile (a bot): the next update says
                if error.code() not in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION):
                    raise


@pytest.mark.parametrize("game", ["uno", "kart", "powerup", "levelup"])
async def test_a_german_and_an_english_seat_each_read_their_own_language(
    server: RunningServer, client: Client, game: str
) -> None:
    engine = get_game(game).engine
    created = await client.create_table(
        game, players=4, bots=2, seed=7, options=dict(engine.quick_options), name="sprachen", bot_delay_ms=0
    )
    table_id = created.table.table_id
    german, english = Reader("de-DE,de;q=0.9"), Reader("en-GB")
    seats = [await client.join(table_id, name) for name in ("Anna", "Bert")]
    stub = client.stub
    async with asyncio.timeout(240):
        await asyncio.gather(
            _follow(stub, client, table_id, seats[0].seat_token, german, 1),
            _follow(stub, client, table_id, seats[1].seat_token, english, 2),
        )
    # The history, replayed for the German seat, is said in German too.
    metadata = ((SEAT_TOKEN_KEY, seats[0].seat_token), ("accept-language", "de"))
    history = [
        text
        async for response in stub.GetHistory(service_pb2.GetHistoryRequest(table_id=table_id), metadata=metadata)
        for text in (response.step.label, *(event.text for event in response.step.events))
    ]
    info = await client.get_table(table_id)
    people = [seat.name for seat in info.seats] + list(CHARACTER_NAMES)  # names, the same in both languages
    names = {w.lower() for name in people for w in _WORD.findall(name)}
    english_only = _words(english.texts, names) - SAME
    said_in_german = _words(german.texts, names)
    assert german.outcome is not None
    assert english.outcome is not None
    assert german.outcome.winners == english.outcome.winners
    assert german.outcome.summary != english.outcome.summary
    leaked = sorted(english_only & said_in_german)
    assert _words(history, names) & GERMAN
    assert not english_only & _words(history, names), sorted(english_only & _words(history, names))
    assert not leaked, [t for t in german.texts if {w.lower() for w in _WORD.findall(t)} & set(leaked)][:20]
    # The English seat read English only, at the same table in the same moments.
    assert not _words(english.texts, names) & GERMAN, sorted(_words(english.texts, names) & GERMAN)
    assert _words(german.texts, names) & GERMAN


#: Words only German has, that a German text of any game says (the English seat must read none).
GERMAN = {"der", "das", "ist", "und", "spielte", "zog", "wählte", "hat", "gewinnt", "runde", "spieler"}


def test_a_note_is_stored_as_its_message_and_said_in_each_language() -> None:
    note = tr("{seat} is back and plays again", seat="{p1}")
    kept = from_stored(stored(note))
    assert kept == note == "{p1} is back and plays again"
    assert kept.said_in("de") == "{p1} ist zurück und spielt wieder"  # type: ignore[attr-defined]
    # Notes an older version stored are English strings: shown as they are, in every language.
    assert from_stored("{p2} left the table; a bot plays their seat") == "{p2} left the table; a bot plays their seat"
    assert from_stored('{"msgid": broken') == '{"msgid": broken'


def test_a_restarted_table_says_its_stored_notes_in_each_language_and_old_english_notes_as_they_are(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.db"
    store = Store(path)
    registry = TableRegistry(bot_delay=3600.0, store=store)
    table, _ = registry.create("uno", 3, bots=1, seed=2)
    table.join("Ann", None)
    bob, _ = table.join("Bob", None)
    assert table.status is Status.PLAYING
    hosting.kick(table, bob)
    store.add_note(table.table_id, table.version, "Bob waved goodbye")  # as an older version stored notes
    store.close()

    again = TableRegistry(bot_delay=3600.0, store=Store(path))
    assert again.load() == 1
    restored = again.tables[table.table_id]
    german = [e.text for e in messages.update_for(restored, None, None, "de").events]
    english = [e.text for e in messages.update_for(restored, None, None).events]
    assert "Der Gastgeber hat Bob vom Tisch entfernt; ein Bot spielt den Platz" in german
    assert "The host removed Bob from the table; a bot plays their seat" in english
    assert german[-1] == english[-1] == "Bob waved goodbye"


def test_a_text_with_a_value_that_cannot_be_hashed_is_made_all_the_same() -> None:
    text = tr("seats {seats} are open", seats=[1, 2])
    assert text == "seats [1, 2] are open"
    assert tr("{p} rolls {value}", p="{p0}", value=3) is tr("{p} rolls {value}", p="{p0}", value=3)


def test_only_a_built_in_tracks_title_is_said_in_german_a_persons_title_stays_theirs() -> None:
    """A track is built-in by its registry name: its title is a text of the catalogue. A title a person wrote
    for a track of their own is a value, even one that reads like a card's name ("Boo", "Mushroom Loop")."""
    cases = [
        ("mushroom-loop", "Mushroom Loop", "Pilz-Rundkurs"),
        ("my-loop", "Mushroom Loop", "Mushroom Loop"),
        ("spooky", "Boo", "Boo"),
        ("goomba-ring", "Goomba", "Goomba"),
    ]
    for name, title, german in cases:
        view = kart_pb2.KartView(track=kart_pb2.KartTrack(name=name, title=title, length=40))
        view_words.say_view_words(view, "de")
        assert view.track.title == german, name
    card = powerup_pb2.PowerUpCard(name="Boo", effect="take 1 Extra Life token from the supply")
    view_words.say_view_words(card, "de")
    assert (card.name, card.effect) == ("Buu Huu", "1 Extraleben-Marke aus dem Vorrat nehmen")
