"""Reading a package's gettext catalogue from the .po file it ships, compiled in memory: the server's words
(`toadstool.i18n`) and the clients' (`toadstool_clients.i18n`) are two domains read the same way. Beside the
contract because both sides use it and a client imports nothing else of the server package
(tests/test_layout.py).

Not for choosing the language nor for caching (each side's i18n module does both).
"""

from __future__ import annotations

import io
from gettext import NullTranslations
from importlib import resources

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations


def read_catalogue(package: str, language: str, domain: str) -> NullTranslations:
    """`domain`'s words in `language`, from `package`'s `locale/<language>/LC_MESSAGES/<domain>.po`.

    Read from the .po itself (no compiled .mo is shipped or kept in step); a fuzzy entry is a guess, so it is
    left out and English is said instead."""
    path = resources.files(package) / "locale" / language / "LC_MESSAGES" / f"{domain}.po"
    with path.open("rb") as po:
        catalogue = read_po(po, locale=language, domain=domain)
    compiled = io.BytesIO()
    write_mo(compiled, catalogue, use_fuzzy=False)
    compiled.seek(0)
    return Translations(compiled, domain=domain)
