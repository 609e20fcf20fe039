"""Reading an SQLite log whose file SQLite refuses (cut short by a crash or a full disk).

The entries still in the file are read from a repaired temporary copy, so the LogCorrupt raised
names where the damage starts and carries the intact entries before it (what `referee export
--salvage` writes). The damaged file itself is never changed.
"""

from __future__ import annotations

import shutil
import struct
import tempfile
from pathlib import Path

from referee.sessionlog.errors import LogCorrupt, LogError
from referee.sessionlog.records import LogContents
from referee.sessionlog.sqlite_file import FileDamaged, read_sqlite_file


def read_sqlite(path: Path) -> LogContents:
    """Read an SQLite log; a file SQLite refuses raises LogCorrupt with what a repaired copy held."""
    try:
        return read_sqlite_file(path)
    except FileDamaged as damaged:
        original = damaged
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
        "the database file is damaged (truncated?) after the last intact entry",
        index=len(salvaged.entries) + 1,
        header=salvaged.header,
        entries=salvaged.entries,
    ) from None


def _read_repaired_copy(path: Path) -> LogContents | LogCorrupt | None:
    """Read a damaged log from a temporary copy whose header's page count matches what is left
    of the file (SQLite refuses a file shorter than its header says). None when even the copy
    says nothing of the log."""
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "salvage.db"
        shutil.copyfile(path, copy)
        with open(copy, "r+b") as handle:
            head = handle.read(100)
            if len(head) < 100:
                return None
            page_size = struct.unpack(">H", head[16:18])[0]
            page_size = 65536 if page_size == 1 else page_size
            if page_size < 512 or page_size & (page_size - 1):
                return None
            pages = copy.stat().st_size // page_size
            handle.truncate(pages * page_size)
            handle.seek(28)
            handle.write(struct.pack(">I", pages))
        try:
            return read_sqlite_file(copy)
        except LogCorrupt as corrupt:
            return None if isinstance(corrupt, FileDamaged) else corrupt
        except LogError:
            return None
