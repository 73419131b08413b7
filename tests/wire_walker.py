"""A byte-level walker over serialised protobuf messages: finds every singular field written more than once,
and every oneof with more than one member written, at any depth.

The wire format lets a parser merge a message field met twice (and keep the last of a scalar or of a oneof's
members), but not every runtime does what the spec says: protobufjs replaces a repeated message field
instead of merging it. A message the server sends must not depend on either, so the contract tests walk
every captured message with this (docs/custom-clients.md, "Runtimes"). It reads the bytes themselves, never
a parsed message, since parsing is exactly what hides the repetition.
"""

from __future__ import annotations

from google.protobuf.descriptor import Descriptor, FieldDescriptor

_VARINT, _FIXED64, _LENGTH, _FIXED32 = 0, 1, 2, 5


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """The varint at `at` and the offset after it; ValueError past the end or over ten bytes."""
    value = shift = 0
    for index in range(at, min(at + 10, len(data))):
        byte = data[index]
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, index + 1
        shift += 7
    raise ValueError(f"a varint at byte {at} runs past the end")


def _repeated(field: FieldDescriptor) -> bool:
    return bool(field.is_repeated)


def repeated_singular_fields(descriptor: Descriptor, data: bytes, path: str = "") -> list[str]:
    """The paths (`view.uno.top_card`) of every singular field written twice and every oneof written with two
    members, in `data` (a serialised `descriptor` message) and every message nested in it; [] when none."""
    found: list[str] = []
    seen: set[int] = set()
    oneofs: dict[str, str] = {}
    at = 0
    while at < len(data):
        key, at = _varint(data, at)
        number, kind = key >> 3, key & 7
        if kind == _VARINT:
            _, at = _varint(data, at)
            body = None
        elif kind == _FIXED64:
            at += 8
            body = None
        elif kind == _FIXED32:
            at += 4
            body = None
        elif kind == _LENGTH:
            size, at = _varint(data, at)
            body = data[at : at + size]
            if len(body) != size:
                raise ValueError(f"{path or '<root>'}: field {number} runs past the end")
            at += size
        else:
            raise ValueError(f"{path or '<root>'}: field {number} has wire type {kind}")
        field = descriptor.fields_by_number.get(number)
        if field is None:
            found.append(f"{path}#{number} (not in {descriptor.full_name})")
            continue
        where = f"{path}.{field.name}" if path else field.name
        if not _repeated(field):
            if number in seen:
                found.append(where)
            seen.add(number)
            oneof = field.containing_oneof
            if oneof is not None and not getattr(oneof, "is_synthetic", False):
                other = oneofs.setdefault(oneof.name, field.name)
                if other != field.name:
                    found.append(f"{where} (oneof {oneof.name} also has {other})")
        if field.type == FieldDescriptor.TYPE_MESSAGE and body is not None:
            found += repeated_singular_fields(field.message_type, body, where)
    return found


def assert_singular_fields_once(descriptor: Descriptor, data: bytes) -> None:
    """Fail, naming the paths, if `data` writes any singular field (or oneof) twice at any depth."""
    found = repeated_singular_fields(descriptor, data)
    assert not found, f"{descriptor.full_name} writes these more than once: {found[:10]}"
