"""Reads a golden playthrough file back into what each viewer saw at every step: the inverse of writer.py,
so that tests/test_golden.py can prove that writing only what changed loses nothing (every view is rebuilt
in full by applying the lines in order). Not for writing the files, and not needed to regenerate them.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from golden.writer import (
    UNSET,
    Descriptor,
    FieldDescriptor,
    Playthrough,
    Seen,
    Step,
    Viewer,
    enum_prefix,
    is_map,
    is_nested,
    is_repeated,
    map_value,
)
from google.protobuf import json_format, message_factory
from google.protobuf.message import Message

_TOKEN = re.compile(
    r'\s*(?:(?P<str>"(?:[^"\\]|\\.)*")|(?P<num>-?\d[\w.+-]*)|(?P<word>[A-Za-z_]\w*)|(?P<punct>->|[][{}(),:=+.-]))'
)
_WORDS: dict[str, Any] = {"true": True, "false": False, "null": None}

#: A path: field names, each with the list index or map key that follows it (`hand[3]`), if any.
FieldPath = list[tuple[str, Any]]


class _Reader:
    """Reads one view line back: its path, its operator and its values (the grammar `listing` and
    `changes` write)."""

    def __init__(self, text: str) -> None:
        self.tokens: list[tuple[str, Any]] = []
        text, position = text.rstrip(), 0
        while position < len(text):
            match = _TOKEN.match(text, position)
            if match is None:
                raise ValueError(f"cannot read {text[position:]!r} in {text!r}")
            position = match.end()
            kind, token = match.lastgroup or "", match.group(match.lastgroup or 0)
            if kind == "str":
                self.tokens.append(("value", json.loads(token)))
            elif kind == "num":
                self.tokens.append(("value", float(token) if re.search(r"[.eE]", token) else int(token)))
            elif kind == "word":
                self.tokens.append(("value", _WORDS.get(token, token)))
            else:
                self.tokens.append((token, None))
        self.at = 0

    def peek(self) -> str:
        return self.tokens[self.at][0] if self.at < len(self.tokens) else ""

    def take(self, expected: str | None = None) -> Any:
        kind, value = self.tokens[self.at]
        if expected is not None and kind != expected:
            raise ValueError(f"expected {expected!r}, read {kind!r} {value!r}")
        self.at += 1
        return value if kind == "value" else kind

    def path(self) -> FieldPath:
        steps: FieldPath = []
        while True:
            name, selector = self.take("value"), None
            if self.peek() == "[":
                self.take("[")
                selector = self.take("value")
                self.take("]")
            steps.append((name, selector))
            if self.peek() != ".":
                return steps
            self.take(".")

    def value(self) -> Any:
        if self.peek() == "(":
            self.take("(")
            self.take("value")
            self.take(")")
            return UNSET
        if self.peek() not in ("[", "{"):
            return self.take("value")
        close = "]" if self.take() == "[" else "}"
        items: list[Any] = []
        while self.peek() != close:
            item = self.value()
            if close == "}":
                self.take(":")
                item = (item, self.value())
            items.append(item)
            if self.peek() == ",":
                self.take(",")
        self.take(close)
        return dict(items) if close == "}" else items


def _convert(f: FieldDescriptor, value: Any) -> Any:
    if f.enum_type is not None and isinstance(value, str):
        return f.enum_type.values_by_name[enum_prefix(f.enum_type) + value].number
    if f.type == f.TYPE_BYTES:
        return base64.b64decode(value)
    return value


def _fill(target: Message, f: FieldDescriptor, value: Any) -> None:
    """Make the message `target` (of field `f`) read `value`."""
    target.Clear()
    target.SetInParent()
    if not is_nested(f):
        json_format.ParseDict(value, target)
        return
    for name, item in value.items():
        _assign(target, target.DESCRIPTOR.fields_by_name[name], item)


def _assign(message: Message, f: FieldDescriptor, value: Any) -> None:
    """Set field `f` of `message` to `value` (UNSET clears it)."""
    if value is UNSET or f.message_type is None or is_repeated(f):
        message.ClearField(f.name)
    if value is UNSET:
        return
    target = getattr(message, f.name)
    if is_map(f):
        entry = map_value(f)
        for k, v in value.items():
            _set_entry(target, entry, k, v)
    elif is_repeated(f):
        for item in value:
            _fill(target.add(), f, item) if f.message_type is not None else target.append(_convert(f, item))
    elif f.message_type is not None:
        _fill(target, f, value)
    else:
        setattr(message, f.name, _convert(f, value))


def _set_entry(entries: Any, entry: FieldDescriptor, key: Any, value: Any) -> None:
    if value is UNSET:
        del entries[key]
    elif entry.message_type is not None:
        _fill(entries[key], entry, value)
    else:
        entries[key] = _convert(entry, value)


def _locate(view: Message, path: FieldPath) -> tuple[Any, FieldDescriptor, Any]:
    """The message holding the field the path ends in, that field, and the index or key after it."""
    node: Any = view
    for name, selector in path[:-1]:
        node = getattr(node, name)
        if selector is not None:
            node = node[selector]
    name, selector = path[-1]
    return node, node.DESCRIPTOR.fields_by_name[name], selector


def _field_at(kind: Descriptor, path: FieldPath) -> FieldDescriptor:
    """The field the path ends in, found from the message type alone (the lists may not hold that index yet)."""
    for name, selector in path[:-1]:
        f = kind.fields_by_name[name]
        kind = f.message_type
        if is_map(f) and selector is not None:
            kind = kind.fields_by_name["value"].message_type
    return kind.fields_by_name[path[-1][0]]


def apply_view_lines(view: Message, lines: Sequence[str]) -> None:
    """Apply one viewer's view lines of one step to `view`, in place: first the elements taken out of and
    added to lists (outer lists before the lists inside their elements; in a list, the elements taken out
    from the back, then the ones added from the front), then every field set."""
    edits: list[tuple[tuple[int, int, int], FieldPath, Any]] = []
    sets: list[tuple[FieldPath, Any]] = []
    for line in lines:
        reader = _Reader(line)
        path = reader.path()
        operator = reader.take()
        value = reader.value()
        if operator == ":":  # path: old -> new
            reader.take("->")
            value = reader.value()
        f, index = _field_at(view.DESCRIPTOR, path), path[-1][1]
        if isinstance(index, int) and is_repeated(f) and not is_map(f):
            depth = sum(selector is not None for _, selector in path[:-1])
            taken = operator == "-"
            edits.append(((depth, 0 if taken else 1, -index if taken else index), path, value))
        else:
            sets.append((path, value))
    for (_, taken, _), path, value in sorted(edits, key=lambda edit: edit[0]):
        holder, f, index = _locate(view, path)
        element = message_factory.GetMessageClass(f.message_type)
        items = [element() for _ in getattr(holder, f.name)]
        for copy, item in zip(items, getattr(holder, f.name), strict=True):
            copy.CopyFrom(item)
        if taken == 0:
            del items[index]
        else:
            items.insert(index, element())
            _fill(items[index], f, value)
        holder.ClearField(f.name)
        getattr(holder, f.name).extend(items)
    for path, value in sets:
        holder, f, key = _locate(view, path)
        if key is not None:
            _set_entry(getattr(holder, f.name), map_value(f), key, value)
        else:
            _assign(holder, f, value)


def _viewers(spec: str, everyone: list[Viewer]) -> list[Viewer]:
    """The viewers a line's prefix names (`who` in reverse)."""
    if not spec:
        return everyone
    named: list[Viewer] = []
    for part in spec.split(" + "):
        words = part.split()
        named += [None] if words == ["spectator"] else [int(w) for w in words[1:]]
    return named


def rebuild(text: str, view_type: Callable[[], Message]) -> Playthrough:
    """Read a golden file back into what every viewer saw at every step, applying the view lines in order:
    the playthrough it was written from, so that nothing a viewer saw is lost in writing only changes."""
    lines = text.splitlines()
    title = lines[0].removeprefix("# ")
    found = re.search(r": (\d+) players?, seed", title)
    if found is None:
        raise ValueError(f"no player count in the title {title!r}")
    everyone: list[Viewer] = [*range(int(found.group(1))), None]
    steps: list[Step] = []
    pending: dict[Viewer, list[str]] = {}
    outcome = ""

    def finish() -> None:
        if steps:
            for viewer, view_lines in pending.items():
                apply_view_lines(steps[-1].seen[viewer].view, view_lines)
        pending.clear()

    for line in lines[1:]:
        if line.startswith("#"):
            continue
        if line.startswith("== "):
            finish()
            header = line.removeprefix("== ")
            if header.startswith("outcome: "):
                outcome = header.removeprefix("outcome: ")
                break
            step = Step(header)
            for viewer in everyone:
                before = steps[-1].seen[viewer] if steps else None
                view = view_type()
                if before is not None:
                    view.CopyFrom(before.view)
                legal = before.legal if before is not None else None
                step.seen[viewer] = Seen([], view, None if legal is None else list(legal))
            steps.append(step)
            continue
        head, _, rest = line.partition(": ")
        spec, _, kind = head.rpartition(" ")
        for viewer in _viewers(spec, everyone):
            seen = steps[-1].seen[viewer]
            if kind == "event":
                seen.events.append(rest)
            elif kind == "legal":
                seen.legal = [] if rest == "(none)" else rest.split(" ")
            elif kind == "view":
                pending.setdefault(viewer, []).append(rest)
            else:
                raise ValueError(f"a line of no known kind: {line!r}")
    return Playthrough(title, everyone, steps, outcome)
