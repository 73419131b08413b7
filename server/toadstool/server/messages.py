"""Every message that leaves the server is built here: the table-level `GameView` and `Action` wrappers of a
game's view and action values, and from a table its TableInfo, its updates (first snapshot, live change,
resume) and its history, for each viewer (docs/design.md, principle 4: the one door out).

The game-specific message lives in the oneof member named like the game's registry key; a game without a
member of its own (from another installed package) travels in the `generic` member as structured data.
Tables (toadstool.tables) hold no protobuf; the service and the tests call these.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Iterator, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from google.protobuf import json_format

from toadstool.api.v1 import table_pb2
from toadstool.bots import BotLevel, table_options
from toadstool.engine import SPECTATOR, Engine, Event, _snake, event_text, name_seats, view_split
from toadstool.i18n import ENGLISH, Text, translate, trn
from toadstool.server import message_cache, wire
from toadstool.server.message_cache import VALUES, MessageCache
from toadstool.server.tables.action_ids import id_of
from toadstool.server.tables.seats import SeatKind, Status
from toadstool.server.view_words import say_view_words

if TYPE_CHECKING:
    from toadstool.server.tables.table import Table

#: How many events a first update carries when the client gives no version to resume from.
HISTORY_ON_JOIN = 30

#: How many missed events a resumed stream carries at most (its view is always complete).
MAX_RESUME_EVENTS = 2000

#: The oneof member of GameView and Action for games without a message of their own.
GENERIC = "generic"


def cache_of(table: Table) -> MessageCache:
    """The table's message cache, made at its first message."""
    cache: MessageCache | None = table.message_cache
    if cache is None:
        cache = table.message_cache = MessageCache()
    return cache


@cache
def has_own_message(game: str) -> bool:
    """Whether table.proto has a GameView member for `game` (else it travels as GENERIC)."""
    return game != GENERIC and game in table_pb2.GameView.DESCRIPTOR.fields_by_name


def game_view_message(
    engine: Engine[Any, Any],
    view: Any,
    names: Sequence[str] | None = None,
    into: table_pb2.GameView | None = None,
    fields: frozenset[str] | None = None,
    language: str = ENGLISH,
) -> table_pb2.GameView:
    """The GameView message carrying `view` (a game's view dataclass), built in `into` when given.

    With the seats' `names`, the view's `phase` names the seats too (as `Update.phase` does), so a custom
    client that reads only the game view never shows a raw `{p1}`. Building in place (`into`: a field of
    the update being built) saves copying the message after every move for every viewer. `fields` (for a
    game with a message of its own) builds only those fields of the view: one side of `view_split`.
    """
    message = table_pb2.GameView() if into is None else into
    if has_own_message(engine.name):
        member = getattr(message, engine.name)
        wire.to_message(view, member, fields)
        if language != ENGLISH:
            say_view_words(member, language)
        if fields is not None and "phase" not in fields:
            return message
    else:
        member = message.generic
        member.game = engine.name
        member.phase = said(view.phase, language)
        state = wire.to_plain(view)
        state.pop("phase", None)  # in GenericView.phase, with the seats named
        member.state.update(state)
    if names is not None:
        member.phase = name_seats(said(view.phase, language), names)
    return message


def action_message(engine: Engine[Any, Any], action: Any, into: table_pb2.Action | None = None) -> table_pb2.Action:
    """The Action message carrying `action` (one of the game's action dataclasses), built in `into` when
    given (as `game_view_message`)."""
    message = table_pb2.Action() if into is None else into
    if has_own_message(engine.name):
        wire.action_to_message(action, getattr(message, engine.name))
    else:
        message.generic.kind = _snake(type(action).__name__)
        message.generic.fields.update(wire.to_plain(action))
    return message


def _legal_action(engine: Engine[Any, Any], action: Any, label: str) -> bytes:
    """The serialised LegalAction of `action`: its id, `label` and action message (kept by
    `ValueBytes.legal_actions`, so built once for the same action and label)."""
    legal = table_pb2.LegalAction(id=id_of(action), label=label)
    action_message(engine, action, into=legal.action)
    return legal.SerializeToString()


def action_from_message(engine: Engine[Any, Any], message: table_pb2.Action) -> Any:
    """The action dataclass in `message`; ValueError when it is for another game or malformed."""
    member = message.WhichOneof("game")
    if member is None:
        raise ValueError("the action names no game (set the member for this table's game)")
    expected = engine.name if has_own_message(engine.name) else GENERIC
    if member != expected:
        raise ValueError(f"this table plays {engine.name!r} (its actions go in {expected!r}), not {member!r}")
    if member == GENERIC:
        for cls in engine.action_types:
            if _snake(cls.__name__) == message.generic.kind:
                return wire.from_plain(json_format.MessageToDict(message.generic.fields), cls)
        raise ValueError(f"{message.generic.kind[:40]!r} is not an action of {engine.name!r}")
    return wire.action_from_message(getattr(message, member), engine.action_types)


# -- a table, as each viewer may know it ------------------------------------------------------------------


def game_info(engine: Engine[Any, Any], language: str = ENGLISH) -> table_pb2.GameInfo:
    """A game as the contract describes it (ListGames, and `toadstool games` without a server), in
    `language`: its title, its options' labels and help (messages the game marked with `N_`) and their
    choices' labels (each a `Text`, or a value such as a person's track title, shown as it is)."""
    info = table_pb2.GameInfo(
        name=engine.name, title=engine.title, min_players=engine.min_players, max_players=engine.max_players
    )
    for option in table_options(engine):
        message = info.options.add(
            name=option.name,
            kind=option.kind.value,
            default_value=option.default,
            help=option.help,
            choices=option.choices,
            label=option.label,
            choice_labels=option.choice_labels,
        )
        if option.minimum is not None:
            message.minimum = option.minimum
        if option.maximum is not None:
            message.maximum = option.maximum
        if language != ENGLISH:
            message.label = translate(language, option.label)
            message.help = translate(language, option.help)
            message.choice_labels[:] = [said(label, language) for label in option.choice_labels]
    if language != ENGLISH:
        info.title = translate(language, info.title)
    return info


def table_name(table: Table, language: str = ENGLISH) -> str:
    """The table's name as `language` says it: a name a person gave stays as they wrote it; the default one
    (the game's title and the table's id, given when none was) has the title in `language`."""
    name = table.name
    if language == ENGLISH:
        return name
    title = table.engine.title
    if name == f"{title} {table.table_id}":
        return f"{translate(language, title)} {table.table_id}"
    return name


def table_info(table: Table, language: str = ENGLISH) -> table_pb2.TableInfo:
    """The table as TableInfo (CreateTable, ListTables, GetTable, ... answer with it), in `language`."""
    return table_pb2.TableInfo(
        table_id=table.table_id,
        game=table.spec.name,
        name=table_name(table, language),
        status=table_pb2.TableStatus.ValueType(table.status.value),
        seats=seat_messages(table),
        version=table.version,
        options=table.raw_options,
        open_seats=len(table.open_seats()),
        turn_seconds=int(table.turn_seconds),
        takeover_seconds=int(table.takeover_seconds),
    )


#: The level a bot seated without one plays (BotLevel.NORMAL), as Seat.bot_level shows it.
_NORMAL = int(BotLevel.NORMAL)


def seat_messages(table: Table) -> list[table_pb2.Seat]:
    """The seats as the API shows them; rebuilt only when what it shows changed (every update has them,
    and seats change far less often than moves are made). Callers copy them into their message."""
    cache = table.message_cache or cache_of(table)
    shown = [
        (
            s.index,
            s.name,
            s.kind,
            s.kind is SeatKind.BOT or s.connections > 0,
            s.bot_controlled,
            (s.bot_level or _NORMAL) if s.kind is SeatKind.BOT else 0,
        )
        for s in table.seats
    ]
    if shown != cache.seats_shown:
        cache.seats_shown = shown
        cache.seat_messages = [
            table_pb2.Seat(
                index=index,
                name=name,
                kind=table_pb2.SeatKind.ValueType(kind.value),
                connected=connected,
                bot_controlled=bot,
                bot_level=level,
            )
            for index, name, kind, connected, bot, level in shown
        ]
    return cache.seat_messages


def said(text: str, language: str) -> str:
    """A text of the domain (an engine's, a table's note) in `language`: a `Text` said in it, a plain string
    (a game from another package, a note stored by an older version) as it is. English is the `Text`
    itself: an English reader pays one comparison."""
    if language == ENGLISH or not isinstance(text, Text):
        return text
    return text.said_in(language)


def event_message(
    version: int,
    event: Event,
    viewer: int | None,
    names: Sequence[str],
    into: table_pb2.Event | None = None,
    language: str = ENGLISH,
) -> table_pb2.Event:
    """`event` as `viewer` is told it in `language`, built in `into` when given (a new element of an update's
    events)."""
    message = table_pb2.Event() if into is None else into
    message.version = version
    text = event_text(event, viewer)
    message.text = name_seats(text if language == ENGLISH else said(text, language), names)
    if event.seat is not None:
        message.seat = event.seat
    if event.roll is not None:
        message.roll.CopyFrom(
            table_pb2.DieRoll(roller=event.roll.roller, purpose=event.roll.purpose, value=event.roll.value)
        )
    if event.round_result:
        message.round_result = True
    return message


def history_for(table: Table, viewer: int | None, language: str = ENGLISH) -> Iterator[table_pb2.HistoryStep]:
    """The table's history as `viewer` may know it, in `language`: each version's events and view, by
    replaying the log.

    Every step goes through `Engine.view` and `event_text` for this viewer, like a live update. A lazy
    generator over a snapshot, so a long game never holds the event loop for its whole replay.
    """
    if table.status is Status.LOBBY:
        return
    engine = table.engine
    names = table.names()
    actions = list(table.actions)
    by_version: dict[int, list[Event]] = {}
    for version, event in list(table.events):
        by_version.setdefault(version, []).append(event)
    state = engine.new(table.players, table.options, table.seed)
    for version in range(len(actions) + 1):
        step = table_pb2.HistoryStep(version=version)
        if version > 0:
            seat, action = actions[version - 1]
            if seat == viewer:
                step.label = name_seats(said(engine.describe(state, seat, action), language), names)
            state = engine.apply(state, seat, action)
            step.seat = seat
        step.events.extend(
            event_message(version, e, viewer, names, language=language) for e in by_version.get(version, ())
        )
        step.view.CopyFrom(game_view_message(engine, engine.view(state, viewer), names, language=language))
        yield step


def _table_part(table: Table, language: str = ENGLISH) -> table_pb2.Update:
    """What every viewer is told alike (in `language`): the table, its seats, the clock and the outcome."""
    part = table_pb2.Update(
        table_id=table.table_id,
        version=table.version,
        status=table_pb2.TableStatus.ValueType(table.status.value),
        seats=seat_messages(table),
        game=table.spec.name,
        table_name=table_name(table, language),
        score_label=said(table.engine.score_label, language),
        turn_seconds=int(table.turn_seconds),
        takeover_seconds=int(table.takeover_seconds),
    )
    deadline = table.turn_deadline()
    if deadline is not None:
        part.turn_deadline_unix_ms = int((time.time() + deadline - table.now()) * 1000)
    outcome = table.engine.outcome(table.state) if table.state is not None else None
    if table.ended is not None:  # ended before its game was (its host, or abandoned): nobody won
        ended = said(table.ended, language)
        part.outcome.CopyFrom(table_pb2.Outcome(ended=ended, summary=ended))
    elif outcome is not None:
        names = table.names()
        part.outcome.CopyFrom(
            table_pb2.Outcome(
                winners=outcome.winners,
                scores=outcome.scores,
                summary=name_seats(said(outcome.summary, language), names),
                details=[name_seats(said(line, language), names) for line in outcome.details],
                places=outcome.places,
            )
        )
    return part


def _viewer_part(table: Table, viewer: int | None, language: str = ENGLISH) -> table_pb2.Update:
    """What depends on the viewer (and its language), for a game without `view_split`: view, phase, scores,
    whose turn and the viewer's legal actions."""
    engine = table.engine
    state = table.state  # read once: it is a descriptor (`table._Replayed`)
    names = table.names()
    view = engine.view(state, viewer)
    part = table_pb2.Update(phase=name_seats(said(view.phase, language), names), scores=view.scores)
    game_view_message(engine, view, names, into=part.view, language=language)
    if table.ended is not None:  # a game ended early waits for nobody and offers nothing
        part.phase = said(table.ended, language)
        return part
    part.to_act.extend(engine.to_act(state))
    _add_legal_actions(part, table, viewer, language)
    return part


def _public_part(table: Table, public: frozenset[str], language: str = ENGLISH) -> tuple[bytes, bytes]:
    """What every viewer is told alike of the game (a game with `view_split`), serialised once per version for
    every viewer: the Update's phase, scores and whose turn (without its view), and the body of the game's
    view message (`GameView.<game>`) holding the view's `public` fields.

    It is built from the spectator's view, so nothing a seat alone may know can be in it, whatever a game
    declares: a field a game wrongly leaves public would show each seat what a spectator sees, never
    another seat's secret.
    """
    engine = table.engine
    state = table.state
    names = table.names()
    view = engine.view(state, SPECTATOR)
    part = table_pb2.Update(phase=name_seats(said(view.phase, language), names), scores=view.scores)
    game_view_message(engine, view, names, into=part.view, fields=public, language=language)
    body = getattr(part.view, engine.name).SerializeToString()
    part.ClearField("view")
    if table.ended is not None:  # a game ended early waits for nobody and offers nothing
        part.phase = said(table.ended, language)
    else:
        part.to_act.extend(engine.to_act(state))
    return part.SerializeToString(), body


def _private_part(table: Table, viewer: int | None, language: str = ENGLISH) -> tuple[bytes, bytes]:
    """What only `viewer` is told (a game with `view_split`), serialised once per viewer and version: the body
    of its private view (the engine's `private_view`, the very fields its whole view would hold, as fields
    of `GameView.<game>`) and the bytes of its legal actions as fields of an Update."""
    if table.ended is not None:  # a game ended early offers nothing
        return _private_view_body(table, viewer, language), b""
    return _private_view_body(table, viewer, language), _legal_actions_bytes(table, viewer, language)


def _private_view_body(table: Table, viewer: int | None, language: str = ENGLISH) -> bytes:
    """The serialised body of `viewer`'s private view (fields of `GameView.<game>`), converted again only when
    that view changed (`MessageCache.private_views`): most moves change nothing of most seats' own (the
    others' hands stay as they were)."""
    engine: Any = table.engine
    private = engine.private_view(table.state, viewer)
    private_views = (table.message_cache or cache_of(table)).private_views
    last = private_views.get((viewer, language))
    if last is not None and last[0] == private:
        return last[1]
    member = getattr(table_pb2.GameView(), engine.name)
    wire.to_message(private, member)
    if language != ENGLISH:
        say_view_words(member, language)
    data: bytes = member.SerializeToString()
    if message_cache.by_value(type(private)):
        private_views[(viewer, language)] = (private, data)
    return data


def _add_legal_actions(part: table_pb2.Update, table: Table, viewer: int | None, language: str = ENGLISH) -> None:
    """`viewer`'s legal actions (`_legal_actions_bytes`) added to `part`."""
    part.MergeFromString(_legal_actions_bytes(table, viewer, language))


def _legal_actions_bytes(table: Table, viewer: int | None, language: str = ENGLISH) -> bytes:
    """`viewer`'s legal actions, each with its id, its label and its action message, as the bytes of an
    Update holding only them (`ValueBytes.legal_actions`)."""
    if viewer is None:
        return b""
    engine = table.engine
    state = table.state  # read once: it is a descriptor (`table._Replayed`), asked for once per legal action
    names = table.names()
    english = language == ENGLISH
    offered = []
    for action in engine.legal_actions(state, viewer):
        label = engine.describe(state, viewer, action)
        offered.append((action, name_seats(label if english else said(label, language), names)))
    return VALUES.legal_actions(engine, offered, _legal_action)


def update_for(
    table: Table, viewer: int | None, since_version: int | None, language: str = ENGLISH
) -> table_pb2.Update:
    """Everything `viewer` (a seat, or None for a spectator) may know now, in `language`, as one update.

    Every byte comes from `Engine.view`, `event_text` and the viewer's own legal actions: this is
    the one door out of the server (docs/design.md, principle 4). It is `watch_response`'s very bytes, parsed.
    """
    parts = _update_parts(table, viewer, since_version, None, language)
    return table_pb2.Update.FromString(message_cache.update(parts))


def watch_response(
    table: Table, viewer: int | None, since_version: int | None, since_event: int | None, language: str = ENGLISH
) -> bytes:
    """The serialised `WatchResponse` a stream of `viewer` sends next, in `language` (the stream's, chosen
    where it opened): `update_for`'s update, or on a live stream (`since_event`: the events it was already
    sent) the change since its last message.

    A live stream's message is built and serialised once per viewer and event position, and every
    stream at that point (every spectator of a table, every device of a seat) sends the same bytes:
    per stream, gRPC only copies them out.
    """

    def build() -> bytes:
        return message_cache.watch_response(_update_parts(table, viewer, since_version, since_event, language))

    if since_event is None:
        return build()
    cache = table.message_cache or cache_of(table)
    return cache.part(table, ("live", viewer, language, since_event, len(table.events)), build)


def _update_parts(
    table: Table, viewer: int | None, since_version: int | None, since_event: int | None, language: str
) -> tuple[bytes, ...]:
    """The serialised update for `viewer`, as the parts it is joined from, each serialised once: the table's
    part (once per version, for every viewer), this update's own fields (its viewer seat and events), and the
    game's: for a game with `view_split`, its public part (once per version, for every viewer) and the
    viewer's private part (once per viewer and version); for any other game, the viewer's part (once per
    viewer and version). The caller joins them in one copy (`watch_response`, `update_for`).

    The parts set disjoint fields of the Update, and each singular field is written exactly once at every
    depth: the two halves of a split view are joined inside one `Update.view` holding one `GameView.<game>`
    (`join_split`), never written as two occurrences of `view`. The wire format lets a parser merge a
    message field met twice, but protobufjs (Node's standard gRPC stack) replaces it instead, and a client
    on it lost the public half of every view (docs/custom-clients.md names the runtimes the contract test
    decodes with). Joining skips copying the parts into a message and serialising them again for every
    viewer after every move.
    """
    cache = table.message_cache or cache_of(table)
    # Every part holding words is kept per language (the table's part: its score label and outcome); with
    # one language at a table, as most are, each is built once per version as before.
    table_part = cache.part(table, ("table", language), lambda: _table_part(table, language).SerializeToString())
    own = table_pb2.Update()
    if viewer is not None:
        own.viewer_seat = viewer
    if since_event is not None:  # a live stream: every event after the last one it was sent
        recent = table.events[since_event:]
    elif since_version is None:
        recent = table.events[-HISTORY_ON_JOIN:]
    else:  # a resume: what happened after the version the client saw (the view itself is always whole)
        first = bisect.bisect_right(table.events, since_version, key=lambda entry: entry[0])
        recent = table.events[max(first, len(table.events) - MAX_RESUME_EVENTS) :]
    names = table.names()
    # In the lobby too: its notes (someone left, the host removed a seat) are events like any other.
    for version, event in recent:
        event_message(version, event, viewer, names, own.events.add(), language)
    if table.state is None:
        open_count = len(table.open_seats())
        waiting = trn("Waiting for players ({n} open seat)", "Waiting for players ({n} open seats)", open_count)
        own.phase = said(table.ended or waiting, language)
        return table_part, own.SerializeToString()
    split = view_split(type(table.engine)) if has_own_message(table.engine.name) else None
    if split is None:
        viewer_part = cache.part(
            table, ("viewer", viewer, language), lambda: _viewer_part(table, viewer, language).SerializeToString()
        )
        return table_part, own.SerializeToString(), viewer_part
    public_part = cache.part(table, ("public", language), lambda: _public_part(table, split[0], language))
    game_part = cache.part(
        table,
        ("viewer", viewer, language),
        lambda: message_cache.join_split(table.engine.name, public_part[1], *_private_part(table, viewer, language)),
    )
    return table_part, own.SerializeToString(), public_part[0], game_part
