"""The SQLite file of a log: its tables and triggers, its connections, and reading a sound file.

A damaged file is named here (LogCorrupt with the first bad entry); reading what is left of a
file SQLite refuses outright is `salvage`'s job.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from referee.sessionlog.errors import LogCorrupt, LogError, LogUnreadable
from referee.sessionlog.records import (
    ENTRY_FIELDS,
    FORMAT,
    FORMAT_VERSION,
    Entry,
    LogContents,
    LogHeader,
    canonical_json,
    chained_from_texts,
    entry_from_dict,
)

APPLICATION_ID = 0x52464C47  # "RFLG" in the SQLite header: this file is a session log
SQLITE_MAGIC = b"SQLite format 3\x00"
JOURNAL_MODE = "TRUNCATE"
COMPANIONS = ("-journal", "-wal", "-shm")  # SQLite's own files beside a log

_SCHEMA = """
CREATE TABLE header (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    format TEXT NOT NULL,
    format_version INTEGER NOT NULL,
    game TEXT NOT NULL,
    engine_version TEXT NOT NULL,
    setup TEXT NOT NULL,
    created REAL NOT NULL,
    checksum TEXT NOT NULL
);
CREATE TABLE entries (
    seq INTEGER PRIMARY KEY,
    time REAL NOT NULL,
    source TEXT NOT NULL,
    confidence REAL,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    events TEXT NOT NULL,
    checksum TEXT NOT NULL
);
CREATE TRIGGER header_append_only_u BEFORE UPDATE ON header
    BEGIN SELECT RAISE(ABORT, 'the session log is append-only'); END;
CREATE TRIGGER header_append_only_d BEFORE DELETE ON header
    BEGIN SELECT RAISE(ABORT, 'the session log is append-only'); END;
CREATE TRIGGER entries_append_only_u BEFORE UPDATE ON entries
    BEGIN SELECT RAISE(ABORT, 'the session log is append-only'); END;
CREATE TRIGGER entries_append_only_d BEFORE DELETE ON entries
    BEGIN SELECT RAISE(ABORT, 'the session log is append-only'); END;
"""

ENTRY_COLUMNS = ", ".join((*ENTRY_FIELDS, "checksum"))


class FileDamaged(LogCorrupt):
    """SQLite refused the file itself (e.g. truncated): a salvage copy may still read a prefix."""


class CannotOpenHere(LogError):
    """SQLite cannot read the log in place (a read-only folder, a crashed writer's journal to
    roll back, a WAL log without its shared-memory file): read a copy instead."""


def _cannot_open_here(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    primary = None if code is None else code & 0xFF
    # SQLITE_CANTOPEN (14), SQLITE_READONLY (8: e.g. READONLY_ROLLBACK, READONLY_CANTINIT)
    return primary in (8, 14) or "unable to open" in str(exc) or "readonly" in str(exc)


def connect(path: Path, *, readonly: bool, copy: bool = False) -> sqlite3.Connection:
    """A connection to a log. The writer's has a rollback journal (`journal_mode=TRUNCATE`)
    and `synchronous=FULL`, so that every commit lands in the main file before it returns
    (docs/log-format.md, "Storage: SQLite"). `copy`: a reader's own temporary copy, opened
    read-write so that SQLite may roll back or recover it, and otherwise left as it is."""
    if readonly and not copy:
        conn = sqlite3.connect(path.absolute().as_uri() + "?mode=ro", uri=True, isolation_level=None)
    else:
        # One writer object may be shared by a web server's threads: `SessionLog` serialises
        # its appends with a lock, so the connection may cross threads.
        conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    # A damaged byte may leave text that is not UTF-8: read it as it is, so that its checksum
    # fails (and names the entry) instead of the decoding.
    conn.text_factory = lambda data: data.decode("utf-8", "replace")
    conn.execute("PRAGMA busy_timeout=5000")
    if not readonly:
        conn.execute(f"PRAGMA journal_mode={JOURNAL_MODE}")  # a log written in WAL mode is moved back
        conn.execute("PRAGMA synchronous=FULL")
    return conn


def create_tables(conn: sqlite3.Connection, header: LogHeader) -> None:
    """Mark a new file as a log and write its schema and header, inside a transaction begun here
    (the caller commits it, after the first entries if there are any)."""
    conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version={FORMAT_VERSION}")
    conn.execute("BEGIN IMMEDIATE")
    for statement in _SCHEMA.split(";\n"):
        if statement.strip():
            conn.execute(statement)
    conn.execute(
        "INSERT INTO header (id, format, format_version, game, engine_version, setup, created, checksum) "
        "VALUES (1, ?, ?, ?, ?, ?, ?, ?)",
        (
            FORMAT,
            header.format_version,
            header.game,
            header.engine_version,
            canonical_json(header.to_dict()["setup"]),
            header.created,
            header.checksum(),
        ),
    )


def insert_entry(conn: sqlite3.Connection, entry: Entry) -> None:
    """Insert one sealed entry (no transaction of its own)."""
    conn.execute(f"INSERT INTO entries ({ENTRY_COLUMNS}) VALUES (?,?,?,?,?,?,?,?)", _row(entry))


def _row(entry: Entry) -> tuple[Any, ...]:
    return (
        entry.seq,
        float(entry.time),
        entry.source,
        None if entry.confidence is None else float(entry.confidence),
        entry.kind,
        canonical_json(entry.payload),
        canonical_json(list(entry.events)),
        entry.checksum,
    )


def read_sqlite_file(path: Path, *, copy: bool = False) -> LogContents:
    """Read an SQLite log (`copy`: a temporary copy of one). Raises LogUnreadable, LogCorrupt at
    the first bad entry, FileDamaged where SQLite cannot read the file itself, or CannotOpenHere."""
    try:
        conn = connect(path, readonly=True, copy=copy)
    except sqlite3.Error as exc:
        if _cannot_open_here(exc):
            raise CannotOpenHere(f"cannot open {path} in place: {exc}") from None
        raise LogUnreadable(f"cannot open {path}: {exc}") from None
    try:
        return _read(conn, path)
    except (ValueError, TypeError, OverflowError, MemoryError) as exc:  # a damaged value SQLite hands over
        raise FileDamaged(f"the database is damaged: {exc}", index=0) from None
    except sqlite3.Error as exc:  # anything _read does not name itself
        if _cannot_open_here(exc):
            raise CannotOpenHere(f"cannot read {path} in place: {exc}") from None
        raise FileDamaged(f"the database is damaged: {exc}", index=0) from None
    finally:
        conn.close()


def _read(conn: sqlite3.Connection, path: Path) -> LogContents:
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as exc:
        if _cannot_open_here(exc):
            raise
        raise FileDamaged(f"the database is damaged: {exc}", index=0) from None
    if app_id != APPLICATION_ID or not {"header", "entries"} <= tables:
        raise LogUnreadable(f"{path} is an SQLite file but not a session log")
    try:
        row = conn.execute(
            "SELECT format, format_version, game, engine_version, setup, created, checksum FROM header WHERE id = 1"
        ).fetchone()
    except sqlite3.DatabaseError as exc:
        raise FileDamaged(f"the header is damaged: {exc}", index=0) from None
    if row is None:
        raise LogCorrupt("the header row is missing", index=0)
    try:
        header = LogHeader.from_dict(
            {
                "format": row[0],
                "format_version": row[1],
                "game": row[2],
                "engine_version": row[3],
                "setup": json.loads(row[4]),
                "created": row[5],
            }
        )
    except (ValueError, TypeError) as exc:
        raise LogCorrupt(f"the header is damaged: {exc}", index=0) from None
    previous = header.checksum()
    if row[6] != previous:
        raise LogCorrupt("the header's checksum does not match its contents", index=0)
    entries: list[Entry] = []
    damage: sqlite3.DatabaseError | None = None
    try:
        for fetched in conn.execute(f"SELECT {ENTRY_COLUMNS} FROM entries ORDER BY seq"):
            previous = take_row(fetched, previous, header, entries)
    except sqlite3.DatabaseError as exc:
        damage = exc
    if damage is not None:
        # The sqlite3 module steps one row ahead: the scan's error may come before the last
        # readable row was handed over. Read on one entry at a time, by its number.
        while True:
            try:
                fetched = conn.execute(
                    f"SELECT {ENTRY_COLUMNS} FROM entries WHERE seq = ?", (len(entries) + 1,)
                ).fetchone()
            except sqlite3.DatabaseError:
                fetched = None
            if fetched is None:
                raise LogCorrupt(
                    f"the database is damaged: {damage}", index=len(entries) + 1, header=header, entries=entries
                )
            previous = take_row(fetched, previous, header, entries)
    return LogContents(header=header, entries=entries, path=str(path), format="sqlite")


def take_row(fetched: Any, previous: str, header: LogHeader, entries: list[Entry]) -> str:
    """Check one stored row as entry len(entries) + 1 and append it; its checksum is returned.
    A bad row raises LogCorrupt."""
    index = len(entries) + 1
    try:
        entry = checked_row(fetched, previous, index)
    except ValueError as exc:
        raise LogCorrupt(str(exc), index=index, header=header, entries=entries) from None
    entries.append(entry)
    return entry.checksum


def checked_row(fetched: Any, previous: str, index: int) -> Entry:
    """The stored row as entry `index` chained after `previous`; ValueError says what is wrong."""
    try:
        entry = entry_from_dict(
            {
                "seq": fetched[0],
                "time": fetched[1],
                "source": fetched[2],
                "confidence": fetched[3],
                "kind": fetched[4],
                "payload": json.loads(fetched[5]),
                "events": json.loads(fetched[6]),
                "checksum": fetched[7],
            },
            index,
        )
        # The stored texts are canonical JSON: hash them as they are (no re-encoding).
        quick = chained_from_texts(previous, entry, fetched[5], fetched[6])
    except json.JSONDecodeError as exc:
        raise ValueError(f"a stored field is not JSON ({exc.msg})") from None
    except (ValueError, TypeError, AttributeError) as exc:
        raise ValueError(str(exc)) from None
    expected = quick if entry.checksum == quick else entry.chained(previous)
    if entry.checksum != expected:
        raise ValueError("the checksum does not match the contents (changed or damaged)")
    return entry
