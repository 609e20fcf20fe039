"""Opening a log, SQLite or JSON lines, and the writer that appends entries to an SQLite log.

Every append is its own transaction (WAL, `synchronous=FULL`; triggers forbid UPDATE and DELETE),
so an entry is saved once `append` returns, whatever happens to the process after.
"""

from __future__ import annotations

import dataclasses
import os
import sqlite3
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from referee.core import Event
from referee.sessionlog.errors import LogConflict, LogExists, LogUnreadable
from referee.sessionlog.jsonl import read_jsonl
from referee.sessionlog.records import Entry, LogContents, LogHeader
from referee.sessionlog.salvage import read_sqlite
from referee.sessionlog.sqlite_file import SQLITE_MAGIC, connect, create_tables, insert_entry


def read_log(path: str | os.PathLike[str]) -> LogContents:
    """Read a log, SQLite or JSON lines (told apart by the file's first bytes).

    Raises LogUnreadable, or LogCorrupt carrying the intact header and entries before the damage.
    """
    path = Path(path)
    if not path.is_file():
        raise LogUnreadable(f"no log file at {path}")
    with open(path, "rb") as handle:
        start = handle.read(len(SQLITE_MAGIC))
    if start == SQLITE_MAGIC:
        return read_sqlite(path)
    if not start:
        raise LogUnreadable(f"{path} is empty")
    return read_jsonl(path)


class SessionLog:
    """An open SQLite session log that entries are appended to.

    Every `append` is its own transaction with `synchronous=FULL`: when it returns, the entry
    survives a killed process or a power cut. Rows are never updated or deleted.
    """

    def __init__(self, path: Path, conn: sqlite3.Connection, contents: LogContents) -> None:
        self.path = path
        self._conn = conn
        self._lock = threading.Lock()
        self.header = contents.header
        self.entries: list[Entry] = contents.entries
        self._last_checksum = contents.entries[-1].checksum if contents.entries else contents.header.checksum()

    # -- opening ----------------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        path: str | os.PathLike[str],
        header: LogHeader,
        entries: Iterable[Entry] = (),
    ) -> SessionLog:
        """A new log at `path` (which must not exist). `entries` (e.g. from an import) are
        re-validated, re-chained and written in the same transaction as the header."""
        path = Path(path)
        if path.exists():
            raise LogExists(f"{path} already exists; pass another path or resume it")
        path.parent.mkdir(parents=True, exist_ok=True)
        header = LogHeader.from_dict(header.to_dict())
        conn = connect(path, readonly=False)
        try:
            create_tables(conn, header)
            previous = header.checksum()
            written: list[Entry] = []
            for number, entry in enumerate(entries, start=1):
                entry = dataclasses.replace(entry, seq=number).sealed(previous)
                insert_entry(conn, entry)
                previous = entry.checksum
                written.append(entry)
            conn.execute("COMMIT")
        except BaseException:
            conn.close()
            for suffix in ("", "-wal", "-shm"):
                Path(str(path) + suffix).unlink(missing_ok=True)
            raise
        return cls(path, conn, LogContents(header=header, entries=written, path=str(path)))

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> SessionLog:
        """Reopen an SQLite log to append to it. A damaged log raises LogCorrupt (export it with
        --salvage to keep the entries before the damage)."""
        path = Path(path)
        contents = read_log(path)
        if contents.format != "sqlite":
            raise LogUnreadable(f"{path} is a JSON-lines export: import it into a new log to append")
        return cls(path, connect(path, readonly=False), contents)

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> SessionLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing ----------------------------------------------------------------------------

    @property
    def next_seq(self) -> int:
        return len(self.entries) + 1

    def append(
        self,
        kind: str,
        payload: Mapping[str, Any],
        *,
        time: float,
        source: str = "keyboard",
        confidence: float | None = 1.0,
        events: Sequence[Event | Mapping[str, Any]] = (),
    ) -> Entry:
        """Append one entry in its own durable transaction and return it (with its seq)."""
        with self._lock:
            entry = Entry(
                seq=self.next_seq,
                time=time,
                source=source,
                confidence=confidence,
                kind=kind,
                payload=payload,
                events=[e.to_dict() if isinstance(e, Event) else e for e in events],
            ).sealed(self._last_checksum)
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                insert_entry(self._conn, entry)
                self._conn.execute("COMMIT")
            except sqlite3.IntegrityError:
                self._conn.execute("ROLLBACK")
                raise LogConflict(f"entry {entry.seq} was written by another process") from None
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
            self.entries.append(entry)
            self._last_checksum = entry.checksum
            return entry

    def contents(self) -> LogContents:
        return LogContents(header=self.header, entries=list(self.entries), path=str(self.path))


def write_sqlite(contents: LogContents, path: str | os.PathLike[str]) -> SessionLog:
    """Import `contents` (e.g. a JSON-lines export) into a new SQLite log at `path`."""
    return SessionLog.create(path, contents.header, contents.entries)
