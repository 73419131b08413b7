"""What the person hosting an evening is told about its tables: one line per join, leave, lost connection,
return, takeover, kick and game end, with the seat's name, as INFO records of the `toadstool.host` logger.

A logger rather than prints, so the domain never decides where the lines go: `toadstool serve` prints
them on its terminal (`--quiet` drops them), `toadstool play --lan` hands them to its full-screen client,
and an embedded server that configures nothing shows nothing. Nor the language: a line's text is a
`toadstool.i18n.Text`, which is English when formatted as it is, and which `serve` says in its `--lang`.
"""

from __future__ import annotations

import logging
from typing import Protocol

from toadstool.i18n import Text, tr


class Named(Protocol):
    """What a line needs of its table (a `Table`): how to name it."""

    @property
    def table_id(self) -> str: ...

    @property
    def name(self) -> str: ...


#: The logger the host's lines are records of.
HOST_LOG = logging.getLogger("toadstool.host")


def table_label(table: Named) -> str:
    """How a line names its table: its name, with its id when the name does not already carry it."""
    return table.name if table.table_id in table.name else f"{table.name} ({table.table_id})"


def tell_host(table: Named, text: Text) -> None:
    """One line for the host about `table` (cheap when nobody listens: the text is built only then)."""
    if HOST_LOG.isEnabledFor(logging.INFO):
        HOST_LOG.info("%s: %s", table_label(table), text)


def tell_connection(table: Named, name: str, *, lost: bool, again: bool) -> None:
    """The line for a person whose connection came (`again`: came back) or was `lost`."""
    if lost:
        tell_host(table, tr("{name} lost their connection", name=name))
    elif again:
        tell_host(table, tr("{name} reconnected", name=name))
    else:
        tell_host(table, tr("{name} connected", name=name))
