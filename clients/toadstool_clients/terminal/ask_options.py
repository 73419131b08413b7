"""Before `toadstool play` sets up its table at a terminal: a game option with named choices that the
command line left out (Kart's track) is offered as a short numbered question, its default on Enter.

A person typing `toadstool play kart` should see that there is more than one track without reading
`toadstool games` first. Options given with --option are never asked about, nor anything when input is
not a terminal (a script gets the defaults, as before). It asks; the server checks the value as always.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from toadstool.api.v1 import table_pb2
from toadstool_clients.i18n import _, n_


def ask_choice_options(
    game: table_pb2.GameInfo,
    given: Mapping[str, str],
    lengths: Mapping[str, int] | None = None,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> dict[str, str]:
    """`given` plus the person's answer for each "choice" option of `game` not in it: each choice with the
    server's label for it (a track's title, in the person's language) and, from `lengths`, a track's number
    of fields. Enter keeps the default; a number or a choice's name picks it; anything else is asked again
    (three times at most, then the default)."""
    chosen = dict(given)
    for option in game.options:
        if option.kind != "choice" or option.name in given or len(option.choices) < 2:
            continue
        title = option.label or option.name.capitalize()
        write(_("{option}: {help}", option=title, help=option.help) if option.help else f"{title}:")
        labels = list(option.choice_labels)
        for number, choice in enumerate(option.choices, start=1):
            label = labels[number - 1] if number <= len(labels) else ""
            length = (lengths or {}).get(choice)
            if label and length is not None:
                label = n_("{title}, {n} field", "{title}, {n} fields", length, title=label)
            elif length is not None:
                label = n_("{n} field", "{n} fields", length)
            line = f"  {number}. {choice}{'  ' + label if label else ''}"
            write(_("{choice} (default)", choice=line) if choice == option.default_value else line)
        for _attempt in range(3):
            answer = read(
                _("Choose 1-{last} (Enter: {default}): ", last=len(option.choices), default=option.default_value)
            ).strip()
            if not answer:
                break
            if answer.isdigit() and 1 <= int(answer) <= len(option.choices):
                chosen[option.name] = option.choices[int(answer) - 1]
                break
            if answer in option.choices:
                chosen[option.name] = answer
                break
            write(_("  {answer} is not one of them: type its number.", answer=repr(answer)))
    return chosen
