"""Choosing a Kart field on the drawn track: which menu entries stand for a place on the track, and the
marks the track drawing shows for them.

A menu entry is "on the track" when its typed steps name a field (a banana's `field` or `from_field`) or a
`target` seat whose kart is on the track; the terminal marks those places on the drawn track (^ for each
candidate, ▲ for the highlighted one), so the arrows walk along the track and Enter picks. A level of many
fields, which the shared choice tree splits into runs ("Banana on field 0 to field 11 ▸", ...), is one
entry here, "Banana on a field of the track ▸", whose level holds every field at once: typing a field's
number picks it. Presentation only: which fields are legal is the server's list of actions.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from toadstool.api.v1 import table_pb2
from toadstool_clients.choices import Choice

#: Step fields that name a field of the track.
FIELD_STEPS = ("field", "from_field")
#: Step fields that name a seat, whose kart stands on the track.
SEAT_STEPS = ("target",)


@dataclass(frozen=True)
class TrackPick:
    """What the track drawing marks: the candidate fields, the highlighted one, and the seats a candidate
    stands for (a target's kart; marked in the karts' lines too, for a kart still in the start area)."""

    fields: frozenset[int] = frozenset()
    chosen: int | None = None
    seats: frozenset[int] = frozenset()
    chosen_seat: int | None = None


@dataclass
class Place:
    """Where an entry is on the track: a field, and the seat whose kart it is (for a target)."""

    field: int | None
    seat: int | None = None


def entry_place(update: table_pb2.Update, entry: Choice) -> Place | None:
    """The place on the track `entry` stands for (its last field or target step), or None."""
    if update.view.WhichOneof("game") != "kart":
        return None
    for _kind, name, value in reversed(entry.steps):
        if name in FIELD_STEPS and isinstance(value, int):
            return Place(value)
        if name in SEAT_STEPS and isinstance(value, int):
            kart = next((k for k in update.view.kart.karts if k.seat == value), None)
            return Place(None if kart is None or kart.in_start_area else kart.field, value)
    return None


def _all_fields(update: table_pb2.Update, entries: list[Choice]) -> bool:
    return bool(entries) and all(
        (place := entry_place(update, e)) is not None and place.seat is None and place.field is not None
        for e in entries
    )


@dataclass
class TrackGroups:
    """The merged groups of a tree (by identity), so the menu can name them."""

    merged: set[int] = field(default_factory=set)

    def is_merged(self, entry: Choice) -> bool:
        return id(entry) in self.merged


def merge_field_runs(update: table_pb2.Update, node: Choice, groups: TrackGroups | None = None) -> TrackGroups:
    """Replace, at every level of the tree under `node`, consecutive runs of field entries with one group
    holding all their entries (a Kart level of many fields becomes one pick on the track)."""
    groups = groups or TrackGroups()
    if update.view.WhichOneof("game") != "kart":
        return groups
    children: list[Choice] = []
    for child in node.children:
        previous = children[-1] if children else None
        if child.run and _all_fields(update, child.children):
            if previous is not None and groups.is_merged(previous) and previous.steps == child.steps:
                previous.children.extend(child.children)
                continue
            merged = Choice(steps=child.steps, children=list(child.children))
            groups.merged.add(id(merged))
            children.append(merged)
            continue
        children.append(child)
    node.children = children
    for child in node.children:
        if not child.is_leaf:
            merge_field_runs(update, child, groups)
    return groups


def pick_for(update: table_pb2.Update, entries: list[Choice], highlighted: int) -> TrackPick | None:
    """The marks for a menu level: its entries' places, the highlighted one's apart; None when no entry of
    the level is on the track."""
    places = [entry_place(update, entry) for entry in entries]
    if not any(place is not None for place in places):
        return None
    chosen = places[highlighted] if 0 <= highlighted < len(places) else None
    return TrackPick(
        fields=frozenset(p.field for p in places if p is not None and p.field is not None),
        chosen=chosen.field if chosen is not None else None,
        seats=frozenset(p.seat for p in places if p is not None and p.seat is not None),
        chosen_seat=chosen.seat if chosen is not None else None,
    )


def fields_only(update: table_pb2.Update, entries: list[Choice]) -> bool:
    """Whether every entry of a level is a field of the track (so a typed number is a field's number)."""
    return _all_fields(update, entries)
