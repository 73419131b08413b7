"""The server's message catalogues and choosing a language: gettext through Babel (issue #43).

It owns three things, and nothing else:

- **Texts said later, in the reader's language.** `tr("there is no table {table}", table=...)` and
  `trn(singular, plural, n, ...)` make a `Text`: an English message (the catalogue's msgid) and its values,
  turned into words only by `Text.said_in(language)`, when the reader is known. A refusal is raised once and
  said in the language of whoever receives it; `str(text)` is its English (logs, tests). A value may itself be
  a `Text` (a game's title inside a refusal): it is said in the same language. Whole sentences only: a
  message is never built by joining translated fragments, so each language orders its own words; plurals
  come from the catalogue's Plural-Forms through `ngettext`.
- **Strings marked where they are defined** (`N_`, a game's title and its options' help) and translated where
  they are shown (`translate`).
- **Choosing a language**: `negotiate` reads a caller's `accept-language` (gRPC metadata, the Connect HTTP
  header, the WebSocket handshake's header) with Babel's `Locale.negotiate` among `LANGUAGES`; anything it
  cannot read means the server's default (`toadstool serve --lang`). `environment_language` is the same for a
  program run by one person (LANGUAGE, LC_ALL, LC_MESSAGES, LANG).

The catalogues are `toadstool/locale/<language>/LC_MESSAGES/toadstool.po`, shipped in the package and read
(with Babel's PO reader, fuzzy entries left out) when a language is first used; there is no compiled .mo to
go stale. `scripts/i18n` extracts the messages into `locale/toadstool.pot` and checks that every language
translates each of them. English is the msgids themselves: it has no catalogue.

Adding a language: its code in `LANGUAGES`, then `scripts/i18n --init CODE` and translate the new .po.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import re
from collections.abc import Sequence
from gettext import NullTranslations
from typing import Final

from babel import Locale

from toadstool.api.catalogues import read_catalogue

log = logging.getLogger(__name__)

#: The languages there are texts in, English first (the msgids: no catalogue).
LANGUAGES: Final = ("en", "de")
ENGLISH: Final = "en"
#: The gettext domain: the catalogues' file name.
DOMAIN: Final = "toadstool"
#: The metadata key (and HTTP header) a caller names its languages in.
ACCEPT_LANGUAGE: Final = "accept-language"

#: How much of an accept-language header is read: a browser's is well under 200 characters.
_MAX_HEADER = 1000
_MAX_RANGES = 20
_RANGE = re.compile(r"^(?:\*|[A-Za-z]{1,8}(?:[-_][A-Za-z0-9]{1,8})*)$")
_QUALITY = re.compile(r"^q=(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$", re.IGNORECASE)


def N_(message: str) -> str:
    """Mark `message` for the catalogue where it is defined; `translate` says it where it is shown."""
    return message


class Text(str):
    """A message not yet said: its English (the catalogue's msgid), its plural and count, and its values.

    It is a `str` holding its English, formatted when it is made: whatever reads it as a string (a log, a
    bot, a test, an English reader, a game from another package) reads the English it always did, for the
    same cost, while `said_in` says it in any other language when its reader is known. Equality and hashing
    are the English string's."""

    message: str
    #: The values by name: the very dict `tr` was called with (no copy). A dict of strings and numbers is
    #: not tracked by the garbage collector, where a tuple of pairs would be until a collection looked at
    #: it: events are kept all game, and every tracked object makes each collection longer.
    values: dict[str, object]
    plural: str | None
    n: int
    #: What `said_in` said it as, by language, once asked (a dict of strings: not tracked by the collector).
    known: dict[str, str] | None

    def __new__(
        cls,
        message: str,
        params: tuple[tuple[str, object], ...] | dict[str, object] = (),
        plural: str | None = None,
        n: int = 0,
    ) -> Text:
        values = params if isinstance(params, dict) else dict(params)
        english = message if plural is None or n == 1 else plural
        if plural is not None:
            values.setdefault("n", n)
        if values:
            english = english.format(**values)
        self = str.__new__(cls, english)
        self.message, self.values, self.plural, self.n, self.known = message, values, plural, n, None
        return self

    @property
    def params(self) -> tuple[tuple[str, object], ...]:
        """The values as (name, value) pairs."""
        return tuple(self.values.items())

    def __getnewargs__(self) -> tuple[str, tuple[tuple[str, object], ...], str | None, int]:  # type: ignore[override]
        return (self.message, self.params, self.plural, self.n)

    def said_in(self, language: str) -> str:
        """The message in `language` (English where the catalogue lacks it), its values filled in."""
        if language == ENGLISH:
            return str.__str__(self)  # a plain str: some readers (gRPC's abort) take no subclass
        known = self.known
        if known is not None:
            found = known.get(language)
            if found is not None:
                return found
        said = self._say(language)
        if known is None:
            self.known = {language: said}
        else:
            known[language] = said
        return said

    def _say(self, language: str) -> str:
        if not self.message:  # gettext's "" is the catalogue's header
            return ""
        catalogue = catalogue_of(language)
        if self.plural is None:
            template = catalogue.gettext(self.message)
        else:
            template = catalogue.ngettext(self.message, self.plural, self.n)
        if not self.values:
            return template
        values = {
            key: value.said_in(language) if isinstance(value, Text) else value for key, value in self.values.items()
        }
        try:
            return template.format(**values)
        except (KeyError, IndexError, ValueError):  # a translation naming other values: its English instead
            log.warning("the %s translation of %r does not fit its values", language, self.message)
            return str.__str__(self)

    def __str__(self) -> str:
        return str.__str__(self)

    def __repr__(self) -> str:
        return f"Text({self.message!r}, {self.params!r}, {self.plural!r}, {self.n!r})"


def tr(message: str, /, **params: object) -> Text:
    """A message to be said in its reader's language: `message` is English with `{name}` for each value.

    The same message with the same values is the same `Text` (`_MADE`): a game says the same few hundred
    sentences all evening, and a `Text` kept in a table's events is an object the garbage collector tracks,
    where the string it replaced was not. (Values are compared as strings compare, by their English: a value
    is the same in every language when its English is, as the catalogue has one msgid per English text.)"""
    key = (message, *params.values())
    try:
        made = _MADE.get(key)
    except TypeError:  # a value that cannot be hashed (a list in a refusal): not remembered
        return Text(message, params)
    if made is None:
        if len(_MADE) >= _MAX_MADE:
            _MADE.clear()
        made = _MADE[key] = Text(message, params)
    return made


def trn(singular: str, plural: str, n: int, /, **params: object) -> Text:
    """As `tr`, with a count: the catalogue's plural form for `n` (which the message may show as `{n}`)."""
    key = (singular, n, *params.values())
    try:
        made = _MADE.get(key)
    except TypeError:
        return Text(singular, params, plural, n)
    if made is None:
        if len(_MADE) >= _MAX_MADE:
            _MADE.clear()
        made = _MADE[key] = Text(singular, params, plural, n)
    return made


#: The `Text`s `tr` and `trn` made lately, by message and values (emptied when full).
_MADE: dict[tuple[object, ...], Text] = {}
_MAX_MADE = 8192


def joined(items: Sequence[str], separator: str = ", ") -> Text:
    """`items` (each a `Text`, or a plain string said as it is) joined by `separator`, each said in the
    reader's language: a list of card names. Its message names only the items, so it is no catalogue's: a
    sentence around it is (`tr("you drew {cards}", cards=joined(...))`)."""
    message = separator.join(f"{{i{k}}}" for k in range(len(items)))
    return Text(message, tuple((f"i{k}", item) for k, item in enumerate(items)))


def both(first: str, second: str, *more: str) -> Text:
    """Two or more names joined as a sentence says them ("{p0} and {p2}"), in the reader's language."""
    text = tr("{first} and {second}", first=first, second=second)
    for name in more:
        text = tr("{first} and {second}", first=text, second=name)
    return text


def full_stop(text: str) -> Text:
    """`text` as a sentence, in any language: a full stop added unless it already ends with one (a card
    named "Hammer Bros." ends one in English, not in German)."""
    return _FullStop("{text}" if text.endswith(".") else "{text}.", (("text", text),))


class _FullStop(Text):
    def said_in(self, language: str) -> str:
        inner = said(self.values["text"], language)  # type: ignore[arg-type]
        return inner if inner.endswith(".") else inner + "."


#: How a stored text (`stored`) begins: a JSON object naming its msgid. Older versions stored English.
_STORED_PREFIX = '{"msgid":'


def stored(text: str) -> str:
    """How a text is kept in the store: a `Text` as JSON of its msgid, plural, count and values (a value
    that is a `Text` likewise), so it is said in each reader's language when read back (`from_stored`);
    a plain string as it is."""
    return json.dumps(_plain(text), ensure_ascii=False) if isinstance(text, Text) else text


def _plain(text: Text) -> dict[str, object]:
    values = {key: _plain(value) if isinstance(value, Text) else value for key, value in text.values.items()}
    plain: dict[str, object] = {"msgid": text.message, "values": values}
    if text.plural is not None:
        plain["plural"], plain["n"] = text.plural, text.n
    return plain


def from_stored(data: str) -> str:
    """A stored text read back: a `Text` where it was stored as one, else the string as it is (English
    stored by an older version, shown as it was: no migration)."""
    if not data.startswith(_STORED_PREFIX):
        return data
    try:
        return _text(json.loads(data))
    except (ValueError, TypeError, KeyError, AttributeError):
        return data


def _text(plain: dict[str, object]) -> Text:
    values = plain["values"]
    assert isinstance(values, dict)
    params = tuple((k, _text(v) if isinstance(v, dict) else v) for k, v in values.items())
    plural = plain.get("plural")
    n = plain.get("n", 0)
    return Text(str(plain["msgid"]), params, str(plural) if plural is not None else None, int(n))  # type: ignore[call-overload]


def said(text: Text | str, language: str) -> str:
    """A `Text` said in `language`; a plain string (a value that is not ours to translate) as it is."""
    return text.said_in(language) if isinstance(text, Text) else text


def translate(language: str, message: str) -> str:
    """A string marked with `N_` (or any msgid), in `language`; itself where the catalogue lacks it."""
    return catalogue_of(language).gettext(message) if message else message


@functools.cache
def catalogue_of(language: str) -> NullTranslations:
    """The translations of `language`, read from its .po file once (English, or an unknown language: none)."""
    if language == ENGLISH or language not in LANGUAGES:
        return NullTranslations()
    return read_catalogue("toadstool", language, DOMAIN)


def load_catalogues() -> None:
    """Read every catalogue now (a server at start), not in the middle of its first call."""
    for language in LANGUAGES:
        catalogue_of(language)


def supported(language: str) -> str:
    """`language` if there are texts in it (a `--lang` value), else ValueError naming the ones there are."""
    found = Locale.negotiate([language], LANGUAGES, sep="-") or Locale.negotiate([language], LANGUAGES, sep="_")
    if found is None:
        raise ValueError(f"no texts in {language!r}; there are: {', '.join(LANGUAGES)}")
    return str(found)


def negotiate(header: str, default: str = ENGLISH) -> str:
    """The language to answer a caller in: the best of `LANGUAGES` its accept-language header asks for
    (RFC 9110: ranges by quality, then by order), else `default`. A header that cannot be read, wholly or in
    part, is no error: what cannot be read is left out (so a malformed header means `default`). Only its
    first `_MAX_HEADER` characters are read, and remembered (the few headers a LAN's browsers send)."""
    return _negotiate(header[:_MAX_HEADER], default)


@functools.lru_cache(maxsize=256)
def _negotiate(header: str, default: str) -> str:
    wanted: list[tuple[float, int, str]] = []
    for order, item in enumerate(header.split(",")[:_MAX_RANGES]):
        tag, *parameters = (part.strip() for part in item.split(";"))
        if not _RANGE.match(tag):
            continue
        quality = 1.0
        for parameter in parameters:
            if _QUALITY.match(parameter):
                quality = float(parameter[2:])
            elif parameter.lower().startswith("q="):  # a quality that is not one: the range is left out
                quality = -1.0
        if quality > 0 and tag != "*":
            wanted.append((-quality, order, tag.replace("_", "-")))
    if not wanted:
        return default
    preferred = [tag for _, _, tag in sorted(wanted)]
    found = Locale.negotiate(preferred, LANGUAGES, sep="-")
    return str(found) if found is not None else default


def environment_language(default: str = ENGLISH) -> str:
    """The language of the person running this program, as gettext finds it (LANGUAGE, a list, then
    LC_ALL, LC_MESSAGES, LANG: the first set), else `default`. Not Babel's `default_locale`, which also reads
    LC_CTYPE before LANG: Python sets LC_CTYPE itself where the locale is not installed (PEP 538), which
    would hide the person's LANG."""
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(name, "")
        if not value:
            continue
        preferred = [part.split(".")[0].split("@")[0] for part in value.split(":") if part]
        if preferred[:1] in (["C"], ["POSIX"]):
            return default
        match = Locale.negotiate(preferred, LANGUAGES, sep="_")
        return str(match) if match is not None else default
    return default
