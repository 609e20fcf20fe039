"""The entry count kept beside an SQLite log (`NAME.db-count`), so that a loss is counted.

SQLite cannot tell a file cut short, or a page whose rows were lost, from a log that simply
holds fewer entries. After every commit the writer overwrites one fixed-size record in this
second file (and fsyncs it): how many entries are saved and the checksum of the last one. A
reader compares the log with it: fewer entries than counted is a loss of exactly the
difference; the same number with another last checksum is a log that is not the one counted.
Because the record is written after the commit, the log may hold one entry more than the
count (a writer killed in between), never fewer while both files are whole.

The record is one line of ASCII, `RECORD_SIZE` bytes:
`table-referee-count 1 <entries, 12 digits> <last checksum, 64 hex> <seal, 16 hex>\\n`, where
the seal is the first 16 hex digits of the SHA-256 of everything before it (a damaged record
is told from a true one).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: one writer process at a time (SQLite still refuses a second seq)
    fcntl = None  # type: ignore[assignment]

SUFFIX = "-count"
MAGIC = "table-referee-count 1"
RECORD_SIZE = len(MAGIC) + 1 + 12 + 1 + 64 + 1 + 16 + 1


def tally_path(log: Path) -> Path:
    return Path(str(log) + SUFFIX)


@dataclasses.dataclass(frozen=True)
class Tally:
    """What the count file says: `entries` saved, the last one's `checksum` ('' when none)."""

    entries: int
    checksum: str


def _record(tally: Tally) -> bytes:
    text = f"{MAGIC} {tally.entries:012d} {tally.checksum or '0' * 64}"
    seal = hashlib.sha256(text.encode()).hexdigest()[:16]
    return f"{text} {seal}\n".encode()


def read_tally(log: Path) -> Tally | str:
    """The count kept beside `log`, or a sentence saying why there is none to trust."""
    path = tally_path(log)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return f"the entry count file {path.name} is missing"
    except OSError as exc:
        return f"the entry count file {path.name} cannot be read ({exc.strerror})"
    record = data[:RECORD_SIZE]
    try:
        text = record.decode("ascii")
        magic, version, entries, checksum, seal = text.rstrip("\n").rsplit(" ", 4)[0:5]
        parsed = Tally(int(entries), "" if checksum == "0" * 64 else checksum)
    except (UnicodeDecodeError, ValueError):
        return f"the entry count file {path.name} is damaged"
    if f"{magic} {version}" != MAGIC or record != _record(parsed):
        return f"the entry count file {path.name} is damaged"
    return parsed


class TallyWriter:
    """Keeps the count file of one open log up to date (one fsynced overwrite per entry)."""

    def __init__(self, log: Path) -> None:
        self.path = tally_path(log)
        existed = self.path.exists()
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        self._depth = 0  # how deep `locked` is held
        os.ftruncate(self._fd, RECORD_SIZE)
        if not existed:  # the new name itself must survive a power cut
            _sync_folder(self.path.parent)

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the count file's lock: two processes appending to one log write their entry and
        its count one after the other, so the count never goes back (an exclusive `flock`).
        Held again inside (an append inside a writer's turn), it is released by the outermost."""
        if fcntl is None or self._fd < 0:
            yield
            return
        if self._depth == 0:
            fcntl.flock(self._fd, fcntl.LOCK_EX)
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            if self._depth == 0:
                fcntl.flock(self._fd, fcntl.LOCK_UN)

    def write(self, tally: Tally) -> None:
        record = _record(tally)
        if os.pwrite(self._fd, record, 0) != len(record):
            raise OSError(f"short write to {self.path}")
        _datasync(self._fd)  # the size never changes after the first: the data must reach the disk

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


_datasync = getattr(os, "fdatasync", os.fsync)  # fdatasync where the system has it (not macOS)


def _sync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
