"""Reading a log's rows straight from the pages of its file, when SQLite's own way to them is
damaged (a b-tree interior page, the schema on the first page).

Every leaf page of a table is read on its own: its cells are decoded as SQLite records
(https://www.sqlite.org/fileformat2.html, "B-tree Pages" and "Record Format"), overflow chains
followed. The header row and the entries are then taken in order through the same checks and
checksum chain as a sound file, so a row is kept only if it is the entry that was saved. The
file is only read.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from referee.sessionlog.errors import LogCorrupt, LogError
from referee.sessionlog.records import FORMAT, Entry, LogHeader
from referee.sessionlog.sqlite_file import checked_row

PAGE_SIZE = 4096  # what the writer makes; assumed when the file header's is damaged
_LEAF = 0x0D  # a table b-tree leaf page
_COLUMNS = 8  # both tables, header and entries, have eight columns (the first the row id)


def carve(path: Path) -> tuple[LogHeader, list[Any]] | None:
    """The header and, in entry order from entry 1, the candidate entry rows (seq, time,
    source, confidence, kind, payload, events, checksum) found on the leaf pages of `path`;
    None if no header row checks out."""
    headers, rows = _carve(path)
    if not headers:
        return None
    ordered: list[Any] = []
    seq = 1
    while seq in rows:
        ordered.append(rows[seq])
        seq += 1
    return headers[0], ordered


def intact_after(path: Path, index: int, committed: int) -> list[int]:
    """The entries after entry `index`, up to `committed`, whose stored row is whole: it is the
    link of the chain from the stored checksum of the entry before it. (They cannot be replayed
    past the damage, but they are not what was lost.)"""
    _, rows = _carve(path)
    found = []
    for seq in range(index + 1, committed + 1):
        before = {row[7] for row in rows.get(seq - 1, ()) if isinstance(row[7], str)}
        if any(_links(row, previous, seq) for row in rows.get(seq, ()) for previous in before):
            found.append(seq)
    return found


def _links(row: tuple[Any, ...], previous: str, seq: int) -> bool:
    try:
        checked_row(row, previous, seq)
    except ValueError:
        return False
    return True


def _carve(path: Path) -> tuple[list[LogHeader], dict[int, list[tuple[Any, ...]]]]:
    headers: list[LogHeader] = []
    rows: dict[int, list[tuple[Any, ...]]] = {}
    try:
        data = path.read_bytes()
    except OSError:
        return headers, rows
    page_size = _page_size(data)
    for rowid, values in _cells(data, page_size):
        if len(values) != _COLUMNS or values[0] is not None:
            continue
        if values[1] == FORMAT and rowid == 1:
            header = _header(values)
            if header is not None:
                headers.append(header)
        elif rowid >= 1:
            time, source, confidence = values[1:4]
            # a REAL holding a whole number is stored as an integer: read it back as SQLite does
            time = float(time) if isinstance(time, int) else time
            confidence = float(confidence) if isinstance(confidence, int) else confidence
            rows.setdefault(rowid, []).append((rowid, time, source, confidence, *values[4:]))
    return headers, rows


def chained_entries(header: LogHeader, candidates: list[Any], take: Any) -> list[Entry]:
    """The entries that chain from `header`, taking for each number the first candidate row
    that `take(row, previous, header, entries)` accepts (it raises LogCorrupt otherwise)."""
    entries: list[Entry] = []
    previous = header.checksum()
    for rows in candidates:
        for row in rows:
            try:
                previous = take(row, previous, header, entries)
                break
            except LogCorrupt:
                continue
        else:
            break
    return entries


def _header(values: tuple[Any, ...]) -> LogHeader | None:
    try:
        header = LogHeader.from_dict(
            {
                "format": values[1],
                "format_version": values[2],
                "game": values[3],
                "engine_version": values[4],
                "setup": json.loads(values[5]),
                "created": values[6],
            }
        )
    except (ValueError, TypeError, LogError):  # LogUnreadable: another format version
        return None
    return header if header.checksum() == values[7] else None


def _page_size(data: bytes) -> int:
    if len(data) >= 18:
        size = struct.unpack(">H", data[16:18])[0]
        size = 65536 if size == 1 else size
        if 512 <= size <= 65536 and not size & (size - 1):
            return size
    return PAGE_SIZE


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = 0
    for i in range(9):
        byte = data[at + i]
        if i == 8:
            return (value << 8) | byte, at + 9
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value, at + i + 1
    raise ValueError("bad varint")  # not reached


def _cells(data: bytes, page_size: int) -> Iterator[tuple[int, tuple[Any, ...]]]:
    usable = page_size
    most = usable - 35
    least = ((usable - 12) * 32 // 255) - 23
    pages = len(data) // page_size
    for number in range(pages):
        start = number * page_size
        head = start + (100 if number == 0 else 0)
        if data[head] != _LEAF:
            continue
        count = struct.unpack(">H", data[head + 3 : head + 5])[0]
        for k in range(min(count, page_size // 4)):
            try:
                pointer = struct.unpack(">H", data[head + 8 + 2 * k : head + 10 + 2 * k])[0]
                at = start + pointer
                size, at = _varint(data, at)
                rowid, at = _varint(data, at)
                if size > 1 << 24:
                    continue
                local = size if size <= most else _local(size, usable, most, least)
                payload = bytearray(data[at : at + local])
                if local < size:
                    payload += _overflow(data, page_size, usable, data[at + local : at + local + 4], size - local)
                if len(payload) != size:
                    continue
                yield rowid, _record(bytes(payload))
            except (IndexError, ValueError, struct.error, UnicodeDecodeError):
                continue


def _local(size: int, usable: int, most: int, least: int) -> int:
    local = least + (size - least) % (usable - 4)
    return local if local <= most else least


def _overflow(data: bytes, page_size: int, usable: int, first: bytes, remaining: int) -> bytes:
    out = bytearray()
    page = struct.unpack(">I", first)[0]
    seen: set[int] = set()
    while remaining > 0 and 1 <= page <= len(data) // page_size and page not in seen:
        seen.add(page)
        start = (page - 1) * page_size
        chunk = data[start + 4 : start + 4 + min(usable - 4, remaining)]
        out += chunk
        remaining -= len(chunk)
        page = struct.unpack(">I", data[start : start + 4])[0]
    return bytes(out)


_INT_SIZES = {1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8}


def _record(payload: bytes) -> tuple[Any, ...]:
    header_size, at = _varint(payload, 0)
    types = []
    while at < header_size:
        serial, at = _varint(payload, at)
        types.append(serial)
    body = header_size
    values: list[Any] = []
    for serial in types:
        if serial == 0:
            values.append(None)
        elif serial in _INT_SIZES:
            n = _INT_SIZES[serial]
            values.append(int.from_bytes(payload[body : body + n], "big", signed=True))
            body += n
        elif serial == 7:
            values.append(struct.unpack(">d", payload[body : body + 8])[0])
            body += 8
        elif serial in (8, 9):
            values.append(serial - 8)
        elif serial >= 12:
            n = (serial - 12) // 2
            chunk = payload[body : body + n]
            values.append(chunk.decode("utf-8", "replace") if serial % 2 else bytes(chunk))
            body += n
        else:
            raise ValueError("reserved serial type")
        if body > len(payload):
            raise ValueError("record runs past its payload")
    return tuple(values)
