"""Before `toadstool play` sets up its table at a terminal: a game option with named choices that the
command line left out (Kart's track) is offered as a short numbered question, its default on Enter.

A person typing `toadstool play kart` should see that there is more than one track without reading
`toadstool games` first. Options given with --option are never asked about, nor anything when input is
not a terminal (a script gets the defaults, as before). It asks; the server checks the value as always.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from toadstool.api.v1 import table_pb2
from toadstool_clients.i18n import _


def ask_choice_options(
    game: table_pb2.GameInfo,
    given: Mapping[str, str],
    labels: Mapping[str, str] | None = None,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> dict[str, str]:
    """`given` plus the person's answer for each "choice" option of `game` not in it (`labels`: words to
    show beside a choice, such as a track's title and length). Enter keeps the default; a number or a
    choice's name picks it; anything else is asked again (three times at most, then the default)."""
    chosen = dict(given)
    for option in game.options:
        if option.kind != "choice" or option.name in given or len(option.choices) < 2:
            continue
        write(f"{option.name.capitalize()}: {option.help}" if option.help else f"{option.name.capitalize()}:")
        for number, choice in enumerate(option.choices, start=1):
            label = (labels or {}).get(choice, "")
            default = " " + _("(default)") if choice == option.default_value else ""
            write(f"  {number}. {choice}{'  ' + label if label else ''}{default}")
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
            write("  " + _("{answer} is not one of them: type its number.", answer=repr(answer)))
    return chosen
