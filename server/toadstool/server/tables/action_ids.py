"""Action ids remembered per action object: `action_id` built once for each action a game offers again and
again, for the hot path of a move (issue #24).
"""

from __future__ import annotations

from typing import Any

from toadstool.engine import action_id

#: The ids of the action objects seen last, by identity: `id(action)` -> (action, its id). Held with the
#: action, so its `id()` cannot be taken by another object while the entry is here.
_IDS: dict[int, tuple[Any, str]] = {}
#: How many `_IDS` holds at most before it starts again (a few hundred actions cover a game of UNO).
MAX_KNOWN_IDS = 4096


def id_of(action: Any) -> str:
    """`action_id(action)`, remembered for the same action object.

    An id is built from the action's fields each time it is asked for, and a move asks for it many times:
    for each legal action while its request is matched (`Table.act`), again to store it and to remember
    its request id, and for every legal action of the seat to act in every update. Most games offer the
    very same action objects again and again (UNO's come from tables made once), so those ids are built
    once. Actions are immutable values (frozen dataclasses), so an object's id never changes; a game that
    makes new objects every time only pays a dictionary lookup more.
    """
    entry = _IDS.get(id(action))
    if entry is not None and entry[0] is action:
        return entry[1]
    if len(_IDS) >= MAX_KNOWN_IDS:
        _IDS.clear()
    key = action_id(action)
    _IDS[id(action)] = (action, key)
    return key
