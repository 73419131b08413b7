"""Event lines in the viewer's own words: "You place Mario on level 2" where the server wrote "Ann places
Mario on level 2" for everybody.

The server names every seat in its event texts (one text for all, so it cannot say "you"); this client
knows which seat is the viewer's and rewrites the viewer's name. Where the name is the subject (the event's
`seat` is the viewer and the text starts with the name, or the name stands before a verb of the third
person), it reads "You"/"you" and that verb, and a verb joined to it by "and" in the same clause, lose
their third person ("places" -> "place", "is" -> "are", "crosses" -> "cross"; a verb in the past, "will"
and "can" stay as they are), and "their" in that clause reads "your"; "Ann's" reads "your"; anywhere else
the name reads "you" ("Bob hits you with the Red Shell").

Fallback, said plainly: when the viewer's name could mean something else (another seat has the same name,
or it is a name the game itself uses: a Level Up! character, a Kart driver, an item or card), only an
event whose `seat` is the viewer and which starts with the name is rewritten, and only at its start; any
other event keeps the name as the server wrote it. Presentation only: no rules, and nothing the event
does not already say. English only: in another language (the person's, which the server's texts are in)
the events keep the server's words.
"""

from __future__ import annotations

import re

from toadstool.api.v1 import table_pb2
from toadstool_clients.i18n import person_language
from toadstool_clients.names import (
    KART_ITEM_NAMES,
    LEVEL_UP_POWER_NAMES,
    UNO_KIND_NAMES,
    seat_name,
    you_or_name,
)

#: Verbs of the third person that are not made by dropping an "s".
IRREGULAR: dict[str, str] = {"is": "are", "has": "have", "was": "were", "does": "do", "goes": "go"}
#: Words after a subject that are never its verb ("Ann's", a count): left alone.
_NOT_VERBS = frozenset({"s", "its", "this", "plus", "less", "yes", "us"})
#: Words right after a name that make it the subject though they are no verb of the third person.
_PAST_OR_MODAL = frozenset(
    {"will", "can", "cannot", "did", "drew", "went", "kept", "caught", "chose", "won", "saw", "had", "got", "gave"}
    | {"took", "threw", "ran", "lost", "paid", "put", "hit", "let", "must", "may"}
)
#: What ends a clause: a verb after it belongs to another subject.
_CLAUSE_END = re.compile(r"[:;,.!?]")


def _base_form(word: str) -> str | None:
    """The verb `word` as "you" says it, or None when `word` is no verb of the third person."""
    if word in IRREGULAR:
        return IRREGULAR[word]
    if not re.fullmatch(r"[a-z]{2,}s", word) or word in _NOT_VERBS or word.endswith(("ss", "us", "is")):
        return None
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes", "zes")):
        return word[:-2]
    return word[:-1]


def _ambiguous(update: table_pb2.Update, name: str) -> bool:
    """Whether `name` may mean something other than the viewer in an event text."""
    others = {seat.name.casefold() for seat in update.seats if seat.index != update.viewer_seat}
    if name.casefold() in others:
        return True
    game_words = {*KART_ITEM_NAMES.values(), *LEVEL_UP_POWER_NAMES.values(), *UNO_KIND_NAMES.values()}
    member = update.view.WhichOneof("game")
    if member == "levelup":
        game_words.update(update.view.levelup.character_names)
    elif member == "kart":
        game_words.update(kart.character for kart in update.view.kart.karts)
    elif member == "powerup":
        game_words.update(card.name for card in update.view.powerup.hand)
    return name.casefold() in {word.casefold() for word in game_words}


def _is_subject_verb(word: str) -> bool:
    """Whether `word`, right after a name, shows the name is the subject: a verb of the third person, one in
    the past ("drew", "rolled") or "will"/"can"."""
    return _base_form(word) is not None or word in _PAST_OR_MODAL or bool(re.fullmatch(r"[a-z]{2,}ed", word))


def _as_subject(rest: str) -> str:
    """The words after "You" with the clause's verbs (the first, and one after "and") and "their" in the
    second person, up to the end of the clause; a clause after ":" that starts with a verb has the same
    subject ("You slip on a banana: skip a turn"). A parenthesis right after the name ("(the dealer)") is
    skipped over."""
    clause_end = _CLAUSE_END.search(rest)
    clause, tail = (rest[: clause_end.start()], rest[clause_end.start() :]) if clause_end else (rest, "")
    lead = re.match(r"\s*(\([^)]*\)\s*)?", clause)
    start = lead.end() if lead else 0
    head, body = clause[:start], clause[start:]
    words = body.split(" ")
    if words and _base_form(words[0]) is not None:
        words[0] = _base_form(words[0]) or words[0]
    for index in range(1, len(words) - 1):
        if words[index] == "and":
            verb = _base_form(words[index + 1])
            if verb is not None:
                words[index + 1] = verb
    words = ["your" if word == "their" else word for word in words]
    after_colon = re.match(r": ([a-z]+)\b", tail)
    if after_colon and _base_form(after_colon.group(1)) is not None:
        tail = ": " + _as_subject(tail[2:])
    return head + " ".join(words) + tail


def _clause_length(rest: str) -> int:
    """How much of `rest` (the text after a name) the name is the subject of: up to the end of its clause,
    and on over ":" when the next clause starts with a verb (see `_as_subject`)."""
    length = 0
    while True:
        found = _CLAUSE_END.search(rest, length)
        if found is None:
            return len(rest)
        after_colon = re.match(r": ([a-z]+)\b", rest[found.start() :])
        if not (after_colon and _base_form(after_colon.group(1)) is not None):
            return found.start()
        length = found.start() + 2


def in_your_words(update: table_pb2.Update, event: table_pb2.Event) -> str:
    """The event's text as the viewer of `update` reads it (see the module's docstring); a spectator's, or
    an event that does not name the viewer, unchanged."""
    text: str = event.text
    if not update.HasField("viewer_seat") or person_language() != "en":
        return text  # the rewriting knows English grammar only: other languages keep the server's words
    name = seat_name(update, update.viewer_seat)
    if not name or name.casefold() == "you":
        return text
    mine = event.HasField("seat") and event.seat == update.viewer_seat
    if _ambiguous(update, name):
        if mine and text.startswith(name) and not text[len(name) : len(name) + 1].isalnum():
            return _rewritten(text[: len(name)], text[len(name) :], None, at_start=True)
        return text
    pattern = re.compile(rf"(?<![\w']){re.escape(name)}(?!\w)")
    pieces: list[str] = []
    position = 0
    for match in pattern.finditer(text):
        if match.start() < position:
            continue
        pieces.append(text[position : match.start()])
        before = text[: match.start()].rstrip()
        at_start = not before or (before.endswith((".", "!", "?")) and not re.search(r"\d\.$", before))
        rest = text[match.end() :]
        clause_len = _clause_length(rest)
        pieces.append(_rewritten(match.group(0), rest[:clause_len], pattern, at_start))
        position = match.end() + clause_len
    pieces.append(text[position:])
    return "".join(pieces)


def with_named_scores(update: table_pb2.Update, event: table_pb2.Event, text: str) -> str:
    """`text`, the words of `event`, with the game's final scores named where it lists them in seat order:
    "(scores 0, 532)" reads "(you 0, Bob 532)", "(Punkte 0, 532)" reads "(du 0, Bob 532)".

    Found by what the update carries, never by the words of a language: only in an event that marks a
    round's result (`Event.round_result`) at a finished game with one final score a seat (`Outcome.scores`),
    a parenthesis holding exactly those scores, in seat order, after any words that hold no digit (the
    reader's word for them). Any other text is left as it is."""
    scores = [str(score) for score in update.outcome.scores]
    if not event.round_result or not scores or len(scores) != len(update.seats):
        return text
    listed = re.compile(r"\((?:[^()\d]*\s)?" + re.escape(", ".join(scores)) + r"\)")
    named = ", ".join(f"{you_or_name(update, seat)} {score}" for seat, score in enumerate(scores))
    return listed.sub(lambda _found: f"({named})", text)


def _rewritten(found: str, clause: str, again: re.Pattern[str] | None, at_start: bool) -> str:
    """The name `found` and the rest of its clause in the second person; with `again` (the name's pattern),
    the name later in the clause too ("You play Super Mushroom on your Level")."""
    if again is not None:
        clause = again.sub("you", re.sub(rf"{again.pattern}'s\b", "your", clause))
    if clause.startswith("'s "):
        return ("Your" if at_start else "your") + clause[2:]
    you = "You" if at_start else "you"
    words = re.match(r"\s*(\([^)]*\)\s*)?([^\s,.:;!?]+)", clause)
    if words and _is_subject_verb(words.group(2)):
        return you + _as_subject(clause)
    return you + clause
