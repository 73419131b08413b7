"""The Python clients' own words in their person's language: gettext catalogues through Babel (issue #43).

A client is one person's program, so its words are said at once, in that person's language: `--lang`
(TOADSTOOL_LANG), else the locale gettext would use (LANGUAGE, LC_ALL, LC_MESSAGES, LANG), else English, as
`toadstool_clients.language` asks the server for its texts. `_("{name} to play", name=...)` says a whole
sentence with its values filled in; `n_(singular, plural, n, ...)` takes the catalogue's plural form; `N_`
marks a string defined in one place and said elsewhere (`_` of it then). Never a sentence joined from
translated fragments: each language orders its own words.

The catalogue is `toadstool_clients/locale/<language>/LC_MESSAGES/toadstool_clients.po`, shipped in the
package and read when first needed; `scripts/i18n` extracts the marked words and `--check` fails on a
missing or fuzzy German one. English is the msgids themselves. The server's texts are the server's
catalogue (`toadstool.i18n`); the words here follow the same glossary (docs/glossary.md).
"""

from __future__ import annotations

import functools
import os
from gettext import NullTranslations
from typing import Final

from toadstool.api.catalogues import read_catalogue
from toadstool_clients.language import accept_language

#: The languages the clients have words in, English first (the msgids: no catalogue).
LANGUAGES: Final = ("en", "de")
DOMAIN: Final = "toadstool_clients"
_VARIABLES = ("TOADSTOOL_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def person_language() -> str:
    """The first of `LANGUAGES` the person asks for (their --lang, else their locale), else English."""
    return _language_of(tuple(os.environ.get(name, "") for name in _VARIABLES))


@functools.cache
def _language_of(values: tuple[str, ...]) -> str:
    header = accept_language(dict(zip(_VARIABLES, values, strict=True))) or ""
    for part in header.split(","):
        primary = part.split(";")[0].strip().split("-")[0].lower()
        if primary in LANGUAGES:
            return primary
    return LANGUAGES[0]


@functools.cache
def catalogue_of(language: str) -> NullTranslations:
    """The words of `language`, read from its .po file once (English, or a language without one: none)."""
    if language == LANGUAGES[0] or language not in LANGUAGES:
        return NullTranslations()
    return read_catalogue("toadstool_clients", language, DOMAIN)


def _(message: str, /, **values: object) -> str:
    """`message` (English, with `{name}` for each value) in the person's language, its values filled in."""
    template = catalogue_of(person_language()).gettext(message)
    return _filled(template, message, values)


def n_(singular: str, plural: str, n: int, /, **values: object) -> str:
    """A counted message in the person's language (its plural form for `n`, which is also `{n}`)."""
    template = catalogue_of(person_language()).ngettext(singular, plural, n)
    return _filled(template, singular if n == 1 else plural, {"n": n, **values})


def N_(message: str) -> str:
    """Marks `message` for the catalogue where it is defined; `_` says it where it is shown."""
    return message


def _filled(template: str, english: str, values: dict[str, object]) -> str:
    if not values:
        return template
    try:
        return template.format(**values)
    except (KeyError, IndexError, ValueError):  # a translation naming other values: its English instead
        return english.format(**values)
