"""Opening a log, SQLite or JSON lines, and the writer that appends entries to an SQLite log.

Every append is its own transaction (a rollback journal, `synchronous=FULL`, so the entry is in
the main file when the commit returns; triggers forbid UPDATE and DELETE), followed by the
fsynced entry count beside the log (`tally`): an entry is saved once `append` returns, whatever
happens to the process after, and a reader can tell a log that lost entries from a short one.

Several processes may append to one log (the web server and a terminal scorekeeper on the same
table): an append holds the count file's lock from its transaction to its count, and refuses
(LogConflict) when another process appended first; `refresh` reads what the others appended.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from referee.core import Event
from referee.sessionlog.carve import intact_after
from referee.sessionlog.errors import (
    LogConflict,
    LogCorrupt,
    LogExists,
    LogReadOnly,
    LogUnreadable,
    LogWriteFailed,
)
from referee.sessionlog.jsonl import read_jsonl
from referee.sessionlog.records import Entry, LogContents, LogHeader
from referee.sessionlog.salvage import read_sqlite
from referee.sessionlog.sqlite_file import (
    COMPANIONS,
    ENTRY_COLUMNS,
    SQLITE_MAGIC,
    checked_row,
    connect,
    create_tables,
    insert_entry,
)
from referee.sessionlog.tally import Tally, TallyWriter, read_tally, tally_path


def log_format(path: str | os.PathLike[str]) -> str:
    """How `read_log` reads the file at `path`: "jsonl" for a JSON-lines export (it does not
    start as SQLite files do and has no entry count beside it), else "sqlite" (also when it
    cannot be read at all: `read_log` then names why)."""
    path = Path(path)
    try:
        with open(path, "rb") as handle:
            start = handle.read(len(SQLITE_MAGIC))
    except OSError:
        return "sqlite"
    return "jsonl" if start and start != SQLITE_MAGIC and not tally_path(path).exists() else "sqlite"


def read_log(path: str | os.PathLike[str]) -> LogContents:
    """Read a log, SQLite or JSON lines (told apart by the file's first bytes).

    An SQLite log is compared with the entry count kept beside it: fewer entries than counted
    raise LogCorrupt naming the lost ones; a missing or damaged count is said in the contents'
    `count_problem`. Raises LogUnreadable, or LogCorrupt carrying the intact header and entries
    before the damage.
    """
    path = Path(path)
    if not path.is_file():
        raise LogUnreadable(f"no log file at {path}")
    try:
        with open(path, "rb") as handle:
            start = handle.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise LogUnreadable(f"cannot read {path}: {exc.strerror}") from None
    tally = read_tally(path)
    counted = isinstance(tally, Tally) or tally_path(path).exists()
    if start != SQLITE_MAGIC and not counted:
        if not start:
            raise LogUnreadable(f"{path} is empty")
        return read_jsonl(path)
    committed = tally.entries if isinstance(tally, Tally) else None
    try:
        contents = read_sqlite(path)
    except LogCorrupt as error:
        if committed is None:
            raise
        raise LogCorrupt(
            error.reason,
            index=error.index,
            header=error.header,
            entries=error.entries,
            committed=committed,
            whole_after=intact_after(path, len(error.entries) + 1, committed),
        ) from None
    except LogUnreadable as error:
        if not counted:
            raise
        # an entry count stands beside it: this was a log, and its first page is damaged
        raise LogCorrupt(f"the file is damaged ({error.message})", index=0, committed=committed) from None
    if isinstance(tally, str):
        contents.count_problem = tally
        return contents
    entries = contents.entries
    if len(entries) < tally.entries:
        raise LogCorrupt(
            f"the log ends after entry {len(entries)}, but its entry count says {tally.entries} were saved",
            index=len(entries) + 1,
            header=contents.header,
            entries=entries,
            committed=tally.entries,
        )
    last = entries[tally.entries - 1].checksum if tally.entries else ""
    if last != tally.checksum:
        raise LogCorrupt(
            f"entry {tally.entries} is not the entry that was saved as entry {tally.entries} "
            "(its checksum differs from the one the entry count recorded)",
            index=max(tally.entries, 1),
            header=contents.header,
            entries=entries[: max(tally.entries - 1, 0)],
            committed=tally.entries,
        )
    contents.committed = tally.entries
    return contents


class SessionLog:
    """An open SQLite session log that entries are appended to.

    Every `append` is its own transaction with `synchronous=FULL`: when it returns, the entry
    survives a killed process or a power cut. Rows are never updated or deleted.
    """

    def __init__(self, path: Path, conn: sqlite3.Connection, contents: LogContents) -> None:
        self.path = path
        self._conn = conn
        self._tally = TallyWriter(path)
        self._lock = threading.Lock()
        self.closed = False  # a closed log still answers what it holds; it reads and writes no more
        self.header = contents.header
        self.entries: list[Entry] = contents.entries
        self._last_checksum = contents.entries[-1].checksum if contents.entries else contents.header.checksum()
        self._data_version = self._read_data_version()
        with self._tally.locked():
            self._read_new()  # what another process appended since the log was read
            self._tally.write(Tally(len(self.entries), self.entries[-1].checksum if self.entries else ""))

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
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LogWriteFailed(f"cannot make the folder of {path}: {exc.strerror}") from None
        header = LogHeader.from_dict(header.to_dict())
        try:
            conn = connect(path, readonly=False)
        except sqlite3.Error as exc:
            raise LogWriteFailed(f"cannot write {path}: {exc}") from None
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
            return cls(path, conn, LogContents(header=header, entries=written, path=str(path)))
        except BaseException as exc:
            conn.close()
            for suffix in ("", *COMPANIONS, "-count"):
                Path(str(path) + suffix).unlink(missing_ok=True)
            if isinstance(exc, (sqlite3.Error, OSError)):
                raise LogWriteFailed(f"cannot write {path}: {exc}") from None
            raise

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> SessionLog:
        """Reopen an SQLite log to append to it. A damaged log raises LogCorrupt (export it with
        --salvage to keep the entries before the damage)."""
        path = Path(path)
        contents = read_log(path)
        if contents.format != "sqlite":
            raise LogUnreadable(f"{path} is a JSON-lines export: import it into a new log to append")
        folder = path.absolute().parent
        if not os.access(path, os.W_OK) or not os.access(folder, os.W_OK | os.X_OK):
            which = "the file" if not os.access(path, os.W_OK) else f"its folder {folder}"
            raise LogReadOnly(
                f"{path} cannot be written ({which} is read-only): nothing could be saved; "
                "copy it somewhere writable, or export it, to continue"
            )
        try:
            conn = connect(path, readonly=False)
            return cls(path, conn, contents)
        except (sqlite3.Error, OSError) as exc:
            raise LogWriteFailed(f"cannot continue {path}: {exc}") from None

    def close(self) -> None:
        self.closed = True
        self._conn.close()
        self._tally.close()

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
        """Append one entry in its own durable transaction and return it (with its seq). When
        another process has appended since this log last read it, nothing is written and
        LogConflict says so: `refresh`, check the entry against what is new, and append again."""
        with self._lock, self._tally.locked():
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
                stored = self._conn.execute("SELECT count(*) FROM entries").fetchone()[0]
                if stored != len(self.entries):
                    raise LogConflict(
                        f"entries {len(self.entries) + 1}-{stored} were written by another process: "
                        f"read them before entry {entry.seq}",
                        stored=stored,
                    )
                insert_entry(self._conn, entry)
                self._conn.execute("COMMIT")
            except BaseException as exc:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.IntegrityError):
                    raise LogConflict(f"entry {entry.seq} was written by another process") from None
                if isinstance(exc, sqlite3.Error):
                    raise LogWriteFailed(f"entry {entry.seq} could not be saved: {exc}") from None
                raise
            self.entries.append(entry)
            self._last_checksum = entry.checksum
            self._data_version = self._read_data_version()
            try:
                self._tally.write(Tally(entry.seq, entry.checksum))
            except OSError as exc:
                # The entry is saved (a reader accepts one entry past the count); say so.
                raise LogWriteFailed(
                    f"entry {entry.seq} is saved, but the entry count beside the log could not be "
                    f"updated ({exc.strerror}): later entries would not be counted",
                    saved=entry.seq,
                ) from None
            return entry

    # -- reading what others wrote ----------------------------------------------------------

    def _read_data_version(self) -> int:
        return int(self._conn.execute("PRAGMA data_version").fetchone()[0])

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """This process's turn to write: no other process appends until it ends, so what is read
        (`refresh`), checked and appended inside is not overtaken. Appends inside take no other
        turn."""
        with self._tally.locked():
            yield

    def changed(self) -> bool:
        """Whether another process has committed to the log since it was last read (cheap:
        SQLite's `data_version`, no row read)."""
        with self._lock:
            return not self.closed and self._read_data_version() != self._data_version

    def refresh(self) -> list[Entry]:
        """Read the entries another process appended since this log last read it, check each
        against the chain of checksums, and return them (none: an empty list)."""
        with self._lock:
            if self.closed:
                return []
            version = self._read_data_version()
            if version == self._data_version:
                return []
            new = self._read_new()
            self._data_version = version
            return new

    def _read_new(self) -> list[Entry]:
        """The entries stored after the ones this log holds, appended to it once checked."""
        try:
            rows = self._conn.execute(
                f"SELECT {ENTRY_COLUMNS} FROM entries WHERE seq > ? ORDER BY seq", (len(self.entries),)
            ).fetchall()
        except sqlite3.Error as exc:
            raise LogCorrupt(f"the entries after {len(self.entries)} cannot be read: {exc}", index=0) from None
        new: list[Entry] = []
        for fetched in rows:
            index = len(self.entries) + 1
            try:
                entry = checked_row(fetched, self._last_checksum, index)
            except ValueError as exc:
                raise LogCorrupt(f"entry {index}, written by another process: {exc}", index=index) from None
            self.entries.append(entry)
            self._last_checksum = entry.checksum
            new.append(entry)
        return new

    def contents(self) -> LogContents:
        return LogContents(header=self.header, entries=list(self.entries), path=str(self.path))


def write_sqlite(contents: LogContents, path: str | os.PathLike[str]) -> SessionLog:
    """Import `contents` (e.g. a JSON-lines export) into a new SQLite log at `path`."""
    return SessionLog.create(path, contents.header, contents.entries)
