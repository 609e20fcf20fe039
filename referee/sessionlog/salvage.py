"""Reading an SQLite log that SQLite will not read in place: a copy, repaired where it must be.

A log in a folder this user cannot write, or left with a crashed writer's journal, is read from
a temporary copy of its files (SQLite may then roll the copy back). A file SQLite refuses (cut
short by a crash or a full disk, its first page damaged) is read from a repaired copy, so the
LogCorrupt raised names where the damage starts and carries the intact entries before it (what
`referee export --salvage` writes). The log's own files are never changed.
"""

from __future__ import annotations

import dataclasses
import shutil
import struct
import tempfile
from pathlib import Path

from referee.sessionlog.carve import carve, chained_entries
from referee.sessionlog.errors import LogCorrupt, LogError, LogUnreadable
from referee.sessionlog.records import FORMAT_VERSION, LogContents
from referee.sessionlog.sqlite_file import (
    APPLICATION_ID,
    COMPANIONS,
    SQLITE_MAGIC,
    CannotOpenHere,
    FileDamaged,
    read_sqlite_file,
    take_row,
)

PAGE_SIZE = 4096  # what the writer makes (SQLite's default); assumed when the header's is damaged


def read_sqlite(path: Path) -> LogContents:
    """Read an SQLite log; a damaged file raises LogCorrupt with the intact entries before the
    damage: what SQLite reads of it, of a repaired copy, or, when that is more, what is found
    on its pages (`carve`)."""
    try:
        return _read_sqlite(path)
    except LogCorrupt as damaged:
        found = carve(path)
        if found is None:
            raise
        entries = chained_entries(*found, take_row)
        if len(entries) <= len(damaged.entries):
            raise
        raise LogCorrupt(
            f"{damaged.reason}; {len(entries)} entries were read from the file's pages past the damage",
            index=len(entries) + 1,
            header=found[0],
            entries=entries,
        ) from None


def _read_sqlite(path: Path) -> LogContents:
    try:
        return read_sqlite_file(path)
    except CannotOpenHere:
        pass
    except FileDamaged as damaged:
        return _salvage(path, damaged)
    with tempfile.TemporaryDirectory() as folder:
        copy = _copy(path, Path(folder))
        try:
            contents = read_sqlite_file(copy, copy=True)
        except FileDamaged as damaged:
            return _salvage(path, damaged)
        except CannotOpenHere as error:
            raise LogUnreadable(f"cannot read {path}: {error.message}") from None
    return dataclasses.replace(contents, path=str(path))


def _copy(path: Path, folder: Path) -> Path:
    """Copy the log and SQLite's files beside it (journal, WAL; not the shared memory)."""
    copy = folder / "log.db"
    try:
        shutil.copyfile(path, copy)
        for suffix in COMPANIONS[:2]:
            companion = Path(str(path) + suffix)
            if companion.exists():
                shutil.copyfile(companion, str(copy) + suffix)
    except OSError as exc:
        raise LogUnreadable(f"cannot read {path}: {exc.strerror}") from None
    return copy


def _salvage(path: Path, original: FileDamaged) -> LogContents:
    salvaged = _read_repaired_copy(path)
    if salvaged is None:
        raise LogCorrupt(original.reason, index=0) from None
    if isinstance(salvaged, LogCorrupt):
        raise LogCorrupt(
            f"{salvaged.reason} (read from a repaired copy of the damaged file)",
            index=salvaged.index,
            header=salvaged.header,
            entries=salvaged.entries,
        ) from None
    raise LogCorrupt(
        f"the database file is damaged ({original.reason.removeprefix('the database is damaged: ')}); "
        f"a repaired copy of it reads {len(salvaged.entries)} entries",
        index=len(salvaged.entries) + 1,
        header=salvaged.header,
        entries=salvaged.entries,
    ) from None


def _read_repaired_copy(path: Path) -> LogContents | LogCorrupt | None:
    """Read a damaged log from a temporary copy whose first page says what a log's says: the
    SQLite magic, the page size, the marks of a log, and a page count that matches what is
    left of the file (SQLite refuses a file shorter than its header says). None when even the
    copy says nothing of the log."""
    with tempfile.TemporaryDirectory() as folder:
        try:
            copy = _copy(path, Path(folder))
        except LogUnreadable:
            return None
        with open(copy, "r+b") as handle:
            head = handle.read(100)
            if len(head) < 100:
                return None
            page_size = struct.unpack(">H", head[16:18])[0]
            page_size = 65536 if page_size == 1 else page_size
            if page_size < 512 or page_size & (page_size - 1):
                page_size = PAGE_SIZE
            pages = copy.stat().st_size // page_size
            if pages == 0:
                return None
            handle.truncate(pages * page_size)
            handle.seek(0)
            handle.write(SQLITE_MAGIC)
            handle.write(struct.pack(">H", 1 if page_size == 65536 else page_size))
            journal = head[18:20] if head[18:20] in (b"\x01\x01", b"\x02\x02") else b"\x01\x01"
            handle.write(journal + bytes((0, 64, 32, 32)))  # no reserved bytes, the payload fractions
            handle.seek(28)
            handle.write(struct.pack(">I", pages))
            handle.seek(60)
            handle.write(struct.pack(">I", FORMAT_VERSION))
            handle.seek(68)
            handle.write(struct.pack(">I", APPLICATION_ID))
        try:
            return read_sqlite_file(copy, copy=True)
        except LogCorrupt as corrupt:
            return None if isinstance(corrupt, FileDamaged) else corrupt
        except LogError:
            return None
