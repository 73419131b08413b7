"""The choice tree: a view's flat list of legal actions grouped into short menus by their typed fields.

Every client (terminal, Tk, the browser's TypeScript port) offers the legal actions through this tree, so
that no screen shows fifty buttons: a UNO wild is one entry, then its colour, with "call UNO" as a toggle;
a Level Up! placement is a character, then a level; a Kart banana is a range of fields, then a field. It
is built only from the typed `LegalAction.action` messages (never from label text), holds no rules, and
names nothing: `names.step_label` turns a step into words. Not for what a choice means or whether it is
wise (the server lists what is legal; bots decide for themselves).

The algorithm, precisely (the TypeScript port follows it step by step; tests/choices_cases.json checks
both):

1. **Path.** For each legal action, in the order the update lists them: the member set in `Action.game`
   (`uno`, `kart`, ...) holds a game action message whose first oneof names the kind; the kind's message
   has fields. The path is `[kind]` followed by one step `(field, value)` per field of the kind's message
   in declaration order, skipping an `optional` field that is not present (a non-optional scalar is
   always a step, even at its default value). Enum and integer values are their numbers; a bool is
   true/false. `GenericAction` paths are `[kind]` then its `fields` sorted by key, values as JSON text.
2. **Toggles.** A bool field of a kind is a toggle when every action of that kind that has it true has a
   twin (the same kind, every other step equal) with it false (so a flag false everywhere is one too, with
   nothing to switch). Its steps leave the paths of that kind; each true action is dropped from the tree
   and recorded on its twin as `toggles[field] = <its id>`. (UNO's `uno` flag on a play: "and call
   UNO".) Any other bool is a step.
3. **Trie.** Paths form a trie; a node's children keep the order in which their first action was listed.
   A node whose path ends there is a leaf holding that one action.
4. **Normalise**, bottom-up (each child first, then the node), repeating at the node until nothing changes:
   a. *Collapse*: a child that has exactly one child is replaced by it (its steps join the front of the
      grandchild's); the root, when its only child is not a leaf, takes that child's children, the
      skipped steps joining the front of each adopted child's steps. (A one-option level
      is never shown; a single leaf at the root stays: that is the one forced choice.)
   b. *Inline*: a *kind group* is an inner child whose steps are all kind steps (no field: "Move ▸",
      "Boo ▸"). When the node has a kind group and its other children plus the children of its kind
      groups number at most MAX_ENTRIES, every kind group is replaced by its own children (steps joined
      the same way): small groups of one kind are one flat menu, while a group chosen by a value (a
      wild card's colours, a Fire Flower's targets) stays a level.
   c. *Split*: a node with more than MAX_ENTRIES children is split into `g = ceil(n / MAX_ENTRIES)`
      runs of consecutive children, as equal as can be (the first `n mod g` runs one longer), each run an
      inner node with no steps of its own, marked as a run. Split comes after a and b at the node, so a
      split kind group can still be inlined into its parent (its runs then carry the kind's step).
5. **Labels** (presentation, not structure): a step is named by `names.step_label(update, kind, field,
   value)`; an entry reads as its kind step's words (when it has one) then its field steps' words, ", "
   between those ("Place Mario", "Boo Mario, Luigi", "red"); a leaf whose steps are only its kind (a kind
   with no fields: "draw", "roll") reads as the action's own label, as does every leaf at the root (a
   client short of room may name root leaves by their steps instead); a run reads "<first> to <last>",
   after its own steps' words when inlining gave it some ("Banana on field 0 to field 11").

As data (`tree_as_data`, tests/choices_cases.json): a list of entries, each `{"steps": [...]}` where a
kind step is its name and a field step is `field=value` (a number or true/false as JSON, any other value
as its JSON text), plus `"id"` and, when toggled, `"toggles": {field: id}` for a leaf, or `"entries"` (and
`"run": true` for a run) for a group.

An action is reachable by exactly one path of entries (plus, for a toggled twin, its toggle), which
tests/test_choices.py proves over real games.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from toadstool.api.v1 import table_pb2

#: The longest menu a level may have before it is split into runs (13: Level Up!'s characters fit in one).
MAX_ENTRIES = 13

#: (kind, field, value) of one step; a kind step has field "" and value None.
Step = tuple[str, str, Any]

#: Kinds whose being the only choice depends on what the seat alone knows (its hand): played at once, the
#: speed would tell the others ("no Super Star", "nothing to play"). Presentation policy as data, keyed by
#: the Action member and the kind; an "auto" option never plays these for the person.
SECRET_WHEN_FORCED: frozenset[tuple[str, str]] = frozenset(
    {
        ("uno", "accept_penalty"),  # the Draw Two victim without a Super Star
        ("powerup", "pass"),  # a pass in the modify phase: no ? card to play
        ("levelup", "pass"),  # letting the pre-vote window or the 1-Up circle go by: no card to play
    }
)


@dataclass
class Choice:
    """One menu entry: its steps, and either one action (a leaf) or the entries below it."""

    steps: tuple[Step, ...]
    action: table_pb2.LegalAction | None = None
    children: list[Choice] = field(default_factory=list)
    #: A toggle field -> the id of the action to send instead when that toggle is on.
    toggles: dict[str, str] = field(default_factory=dict)
    #: A run of a split level (step 4c): it reads as its first and last entries.
    run: bool = False

    @property
    def is_leaf(self) -> bool:
        return self.action is not None

    def leaves(self) -> list[Choice]:
        """Every leaf at or below this entry, in menu order."""
        if self.is_leaf:
            return [self]
        return [leaf for child in self.children for leaf in child.leaves()]

    def toggle_names(self) -> list[str]:
        """The toggles any leaf at or below this entry offers, in first-seen order."""
        seen: dict[str, None] = {}
        for leaf in self.leaves():
            seen.update(dict.fromkeys(leaf.toggles))
        return list(seen)

    def action_id(self, toggles_on: Sequence[str] = ()) -> str:
        """The id to send for this leaf with `toggles_on` switched on (a toggle it lacks is ignored)."""
        assert self.action is not None, "only a leaf has an action"
        for name in toggles_on:
            if name in self.toggles:
                return self.toggles[name]
        return self.action.id


def _is_optional(descriptor: Any) -> bool:
    return bool(descriptor.has_presence) and descriptor.containing_oneof is not None


def _is_repeated(descriptor: Any) -> bool:
    flag = getattr(descriptor, "is_repeated", None)
    return bool(flag) if flag is not None else descriptor.label == descriptor.LABEL_REPEATED


def _value(descriptor: Any, value: Any) -> Any:
    if _is_repeated(descriptor):
        return json.dumps([_value_one(descriptor, v) for v in value])
    return _value_one(descriptor, value)


def _value_one(descriptor: Any, value: Any) -> Any:
    if isinstance(value, Message):
        return json.dumps(json_format.MessageToDict(value), sort_keys=True)
    return value


def action_path(action: table_pb2.Action) -> tuple[str, list[Step]]:
    """(the Action member, the path of steps) of one typed action (step 1 of the algorithm)."""
    member = action.WhichOneof("game")
    if member is None:
        return "", [("", "", None)]
    game_action = getattr(action, member)
    if isinstance(game_action, table_pb2.GenericAction):
        fields = json_format.MessageToDict(game_action.fields)
        generic_kind = game_action.kind
        return member, [(generic_kind, "", None)] + [
            (generic_kind, key, json.dumps(fields[key], sort_keys=True)) for key in sorted(fields)
        ]
    oneofs = game_action.DESCRIPTOR.oneofs
    kind = game_action.WhichOneof(oneofs[0].name) if oneofs else None
    if kind is None:
        return member, [("", "", None)]
    message = getattr(game_action, kind)
    steps: list[Step] = [(kind, "", None)]
    for descriptor in message.DESCRIPTOR.fields:
        if _is_optional(descriptor) and not message.HasField(descriptor.name):
            continue
        steps.append((kind, descriptor.name, _value(descriptor, getattr(message, descriptor.name))))
    return member, steps


def _bool_fields(action: table_pb2.Action) -> set[str]:
    member = action.WhichOneof("game")
    if member is None or member == "generic":
        return set()
    game_action = getattr(action, member)
    oneofs = game_action.DESCRIPTOR.oneofs
    kind = game_action.WhichOneof(oneofs[0].name) if oneofs else None
    if kind is None:
        return set()
    message = getattr(game_action, kind)
    return {d.name for d in message.DESCRIPTOR.fields if d.type == d.TYPE_BOOL and not _is_repeated(d)}


def _without(steps: list[Step], name: str) -> tuple[Step, ...]:
    return tuple(step for step in steps if step[1] != name)


def _find_toggles(
    actions: Sequence[table_pb2.LegalAction], paths: list[list[Step]]
) -> tuple[list[list[Step]], dict[int, dict[str, str]], set[int]]:
    """Step 2: (paths without toggle steps, toggles per kept action index, indices of dropped actions)."""
    toggles: dict[int, dict[str, str]] = {}
    dropped: set[int] = set()
    kinds: dict[str, list[int]] = {}
    for index, path in enumerate(paths):
        kinds.setdefault(path[0][0], []).append(index)
    removed: dict[str, set[str]] = {}
    for kind, indices in kinds.items():
        names: dict[str, None] = {}
        for index in indices:
            names.update(dict.fromkeys(sorted(_bool_fields(actions[index].action))))
        for name in names:
            on = [i for i in indices if (kind, name, True) in paths[i]]
            off = {_without(paths[i], name): i for i in indices if (kind, name, False) in paths[i]}
            if any(_without(paths[i], name) not in off for i in on):
                continue
            removed.setdefault(kind, set()).add(name)
            for i in on:
                twin = off[_without(paths[i], name)]
                toggles.setdefault(twin, {})[name] = actions[i].id
                dropped.add(i)
    cleaned = [[step for step in path if step[1] not in removed.get(path[0][0], set())] for path in paths]
    return cleaned, toggles, dropped


def _trie(
    actions: Sequence[table_pb2.LegalAction],
    paths: list[list[Step]],
    toggles: dict[int, dict[str, str]],
    dropped: set[int],
) -> Choice:
    root = Choice(steps=())
    for index, (legal, path) in enumerate(zip(actions, paths, strict=True)):
        if index in dropped:
            continue
        node = root
        for depth, step in enumerate(path):
            last = depth == len(path) - 1
            child = next((c for c in node.children if c.steps == (step,) and not c.is_leaf), None) if not last else None
            if child is None:
                child = Choice(steps=(step,))
                node.children.append(child)
            node = child
        node.action = legal
        node.toggles = dict(toggles.get(index, {}))
    return root


def _adopt(parent_steps: tuple[Step, ...], children: list[Choice]) -> list[Choice]:
    for child in children:
        child.steps = parent_steps + child.steps
    return children


def _normalise(node: Choice, root: bool = True) -> None:
    for index, child in enumerate(node.children):
        _normalise(child, root=False)
        if len(child.children) == 1:  # a one-option level below an entry: the entry is that option
            only = child.children[0]
            only.steps = child.steps + only.steps
            node.children[index] = only
    changed = True
    while changed:
        changed = False
        if root and len(node.children) == 1 and not node.children[0].is_leaf:
            only = node.children[0]
            node.children = _adopt(only.steps, only.children)
            changed = True
            continue
        kinds = [c for c in node.children if _is_kind_group(c)]
        size = sum(len(c.children) if _is_kind_group(c) else 1 for c in node.children)
        if kinds and size <= MAX_ENTRIES:
            flat: list[Choice] = []
            for child in node.children:
                flat.extend(_adopt(child.steps, child.children) if _is_kind_group(child) else [child])
            node.children = flat
            changed = True
    if len(node.children) > MAX_ENTRIES:
        node.children = split_runs(node.children)


def _is_kind_group(node: Choice) -> bool:
    """An inner entry that only names a kind (its steps carry no field): what step 4b inlines."""
    return not node.is_leaf and bool(node.steps) and all(not step[1] for step in node.steps)


def split_runs(children: list[Choice]) -> list[Choice]:
    """Step 4c: `children` as ceil(n / MAX_ENTRIES) runs of consecutive entries, the first ones one longer."""
    count = len(children)
    runs = -(-count // MAX_ENTRIES)
    size, longer = divmod(count, runs)
    result: list[Choice] = []
    start = 0
    for run in range(runs):
        end = start + size + (1 if run < longer else 0)
        result.append(Choice(steps=(), children=children[start:end], run=True))
        start = end
    return result


def choice_tree(legal_actions: Sequence[table_pb2.LegalAction]) -> Choice:
    """The root of the menus for these legal actions (an update's `legal_actions`)."""
    member_paths = [action_path(legal.action) for legal in legal_actions]
    paths = [path for _, path in member_paths]
    paths, toggles, dropped = _find_toggles(legal_actions, paths)
    root = _trie(legal_actions, paths, toggles, dropped)
    _normalise(root)
    return root


def forced_choice(root: Choice) -> Choice | None:
    """The one leaf when the menu offers exactly one action and no toggle, else None."""
    if len(root.children) == 1 and root.children[0].is_leaf and not root.children[0].toggles:
        return root.children[0]
    return None


def may_play_for_you(leaf: Choice) -> bool:
    """Whether an "auto" option may play this forced leaf by itself: not when its being forced is a secret."""
    assert leaf.action is not None
    member = leaf.action.action.WhichOneof("game") or ""
    kind = leaf.steps[0][0] if leaf.steps else ""
    return (member, kind) not in SECRET_WHEN_FORCED


def entry_label(entry: Choice, at_root: bool, step_label: Callable[[str, str, Any], str]) -> str:
    """What a person reads for `entry` (step 5): `step_label(kind, field, value)` names one step (a kind
    step has field "")."""
    if entry.is_leaf and entry.action is not None:
        if at_root or not any(s[1] for s in entry.steps):
            return entry.action.label
        return steps_label(entry.steps, step_label)
    if entry.run:
        first, last = entry.children[0], entry.children[-1]
        span = f"{entry_label(first, False, step_label)} to {entry_label(last, False, step_label)}"
        return f"{steps_label(entry.steps, step_label)} {span}" if entry.steps else span
    return steps_label(entry.steps, step_label)


def steps_label(steps: Sequence[Step], step_label: Callable[[str, str, Any], str]) -> str:
    """Steps in words: the kind's name (when a kind step is among them) then the field values, ", " apart."""
    values = ", ".join(step_label(*s) for s in steps if s[1])
    kinds = [s for s in steps if not s[1]]
    if not kinds:
        return values
    kind = step_label(*kinds[0])
    return f"{kind} {values}" if values else kind


def _as_json(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def tree_as_data(root: Choice) -> list[dict[str, Any]]:
    """The tree as plain data (tests/choices_cases.json): per entry its steps as "kind" / "field=value",
    and the leaf's action id and toggles, or its entries."""
    result: list[dict[str, Any]] = []
    for child in root.children:
        entry: dict[str, Any] = {
            "steps": [kind if not name else f"{name}={_as_json(value)}" for kind, name, value in child.steps]
        }
        if child.is_leaf:
            assert child.action is not None
            entry["id"] = child.action.id
            if child.toggles:
                entry["toggles"] = dict(child.toggles)
        else:
            if child.run:
                entry["run"] = True
            entry["entries"] = tree_as_data(child)
        result.append(entry)
    return result
