"""Rows read straight from an SQLite file's table leaf pages, for salvaging a database whose b-trees are
damaged above their leaves (a zeroed root or interior page hides every row below it from SQL, though the
rows themselves are intact). Only for toadstool.server.repair; a healthy file is read through SQLite.

It reads the file format (https://www.sqlite.org/fileformat2.html) as far as salvage needs: table b-tree
leaf pages (type 13), their cells' rowids and records, payloads that fit on their page (a row long
enough to spill onto overflow pages is skipped), and the freelist, whose pages hold deleted rows and are
skipped too. Which table a row belongs to is not on its page; the caller tells by the row's shape.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_TABLE_LEAF = 13


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """The SQLite varint at `at` and where the next value starts."""
    value = 0
    for i in range(8):
        byte = data[at + i]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, at + i + 1
    return (value << 8) | data[at + 8], at + 9


_INT_SIZES = {1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8}


def _record(payload: bytes) -> tuple[Any, ...]:
    """The values of one record (SQLite's record format); raises ValueError if it does not parse."""
    header_size, at = _varint(payload, 0)
    types = []
    while at < header_size:
        serial, at = _varint(payload, at)
        types.append(serial)
    values: list[Any] = []
    at = header_size
    for serial in types:
        if serial == 0:
            values.append(None)
        elif serial in _INT_SIZES:
            size = _INT_SIZES[serial]
            values.append(int.from_bytes(payload[at : at + size], "big", signed=True))
            at += size
        elif serial == 7:
            values.append(struct.unpack(">d", payload[at : at + 8])[0])
            at += 8
        elif serial in (8, 9):
            values.append(serial - 8)
        elif serial >= 12:
            size = (serial - 12) // 2
            raw = payload[at : at + size]
            values.append(raw.decode() if serial % 2 else bytes(raw))
            at += size
        else:
            raise ValueError(f"serial type {serial} is reserved")
        if at > len(payload):
            raise ValueError("the record runs past its payload")
    return tuple(values)


def _freelist(data: bytes, page_size: int) -> set[int]:
    """The page numbers on the freelist (trunk and leaf pages), as far as they can be read."""
    free: set[int] = set()
    trunk = int.from_bytes(data[32:36], "big")
    while trunk and trunk not in free and trunk * page_size <= len(data):
        free.add(trunk)
        page = data[(trunk - 1) * page_size : trunk * page_size]
        count = int.from_bytes(page[4:8], "big")
        for i in range(min(count, page_size // 4 - 2)):
            free.add(int.from_bytes(page[8 + 4 * i : 12 + 4 * i], "big"))
        trunk = int.from_bytes(page[0:4], "big")
    return free


def leaf_rows(path: Path) -> Iterator[tuple[int, tuple[Any, ...]]]:
    """(rowid, values) of every row on a table leaf page of `path` that is not free, page by page."""
    data = path.read_bytes()
    if len(data) < 100 or data[:16] != b"SQLite format 3\x00":
        return
    page_size = int.from_bytes(data[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    usable = page_size - data[20]
    free = _freelist(data, page_size)
    for number in range(1, len(data) // page_size + 1):
        if number in free:
            continue
        page = data[(number - 1) * page_size : number * page_size]
        top = 100 if number == 1 else 0
        if page[top] != _TABLE_LEAF:
            continue
        cells = int.from_bytes(page[top + 3 : top + 5], "big")
        for i in range(min(cells, page_size // 2)):
            pointer = int.from_bytes(page[top + 8 + 2 * i : top + 10 + 2 * i], "big")
            try:
                size, at = _varint(page, pointer)
                rowid, at = _varint(page, at)
                if size > usable - 35 or at + size > page_size:
                    continue  # spills onto overflow pages (or is garbage): not salvaged this way
                yield rowid, _record(page[at : at + size])
            except (IndexError, ValueError, UnicodeDecodeError):
                continue
