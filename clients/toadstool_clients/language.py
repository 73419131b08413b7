"""The person's language, as the clients tell the server (`accept-language` on every call).

The server says its texts (refusals, and the games' texts as it learns them) in the language each call
asks for (docs/design.md §11). A client is one person's program, so it asks in that person's language:
`--lang` (TOADSTOOL_LANG), else the locale gettext would use (LANGUAGE, a list, then LC_ALL, LC_MESSAGES,
LANG: the first one set), else nothing, which the server answers in its own default. The value is an HTTP
`accept-language` ("de-DE, de;q=0.9"): the server picks among the languages it has, so the client needs
no list of them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

import grpc

#: The metadata key (and HTTP header) a call names its reader's languages in.
ACCEPT_LANGUAGE = "accept-language"
#: Set by `--lang` on the client commands; wins over the locale.
LANG_VARIABLE = "TOADSTOOL_LANG"
_TAG = re.compile(r"^[A-Za-z]{1,8}([-_][A-Za-z0-9]{1,8})*$")


def _tag(locale_name: str) -> str | None:
    """A locale name ("de_DE.UTF-8", "de_DE@euro", "de") as a language tag ("de-DE"); None for C/POSIX and
    anything that is not one (a value from the environment is not trusted to be a header)."""
    name = locale_name.split(".")[0].split("@")[0].strip()
    if not name or name in ("C", "POSIX") or not _TAG.match(name):
        return None
    return name.replace("_", "-")


def accept_language(environ: Mapping[str, str] | None = None) -> str | None:
    """The `accept-language` value this person's calls carry, or None to leave it to the server: their
    `--lang`, else their locale, each language also offered without its region (de-DE, then de)."""
    env = os.environ if environ is None else environ
    for name in (LANG_VARIABLE, "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if not value:
            continue
        tags: list[str] = []
        for part in value.split(":"):
            tag = _tag(part)
            if tag is None:
                if not tags and part.split(".")[0] in ("C", "POSIX"):
                    return None  # the C locale asks for nothing: the server's default
                continue
            for each in (tag, tag.split("-")[0]):
                if each.lower() not in (t.lower() for t in tags):
                    tags.append(each)
        if not tags:
            return None
        return ", ".join(tag if i == 0 else f"{tag};q={max(0.1, 1 - i / 10):.1f}" for i, tag in enumerate(tags))
    return None


class _WithLanguage:
    """Adds the person's `accept-language` to a call's metadata, whatever metadata the call has."""

    def __init__(self, value: str) -> None:
        self.value = value

    def _with_language(self, details: grpc.aio.ClientCallDetails) -> grpc.aio.ClientCallDetails:
        metadata = grpc.aio.Metadata(*(details.metadata or ()))
        metadata.add(ACCEPT_LANGUAGE, self.value)
        return grpc.aio.ClientCallDetails(
            details.method, details.timeout, metadata, details.credentials, details.wait_for_ready
        )


# One class per kind of call: a grpc.aio channel files each interceptor under the first kind it is an
# instance of (if/elif), so one object implementing all three would only ever see unary calls.
class _Unary(_WithLanguage, grpc.aio.UnaryUnaryClientInterceptor):  # type: ignore[misc]
    async def intercept_unary_unary(self, continuation, client_call_details, request):  # type: ignore[no-untyped-def]
        return await continuation(self._with_language(client_call_details), request)


class _ToStream(_WithLanguage, grpc.aio.UnaryStreamClientInterceptor):  # type: ignore[misc]
    async def intercept_unary_stream(self, continuation, client_call_details, request):  # type: ignore[no-untyped-def]
        return await continuation(self._with_language(client_call_details), request)


class _Streams(_WithLanguage, grpc.aio.StreamStreamClientInterceptor):  # type: ignore[misc]
    async def intercept_stream_stream(self, continuation, client_call_details, request_iterator):  # type: ignore[no-untyped-def]
        return await continuation(self._with_language(client_call_details), request_iterator)


def language_interceptors(value: str) -> list[grpc.aio.ClientInterceptor]:
    """The interceptors that make every call of a channel (unary, Watch, Play) ask for `value`."""
    return [_Unary(value), _ToStream(value), _Streams(value)]
