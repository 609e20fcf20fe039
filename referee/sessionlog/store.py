"""The session log: an append-only, crash-safe record of one game, and its replay.

A log is a *header* (format version, game, engine version, the setup dict, created time) and
numbered *entries*. Each entry carries the wall-clock `time` the caller passes in (the log is
at the I/O edge; engines never see a clock), its `source` (keyboard, camera, web, script), a
`confidence`, a `kind` and a JSON `payload`, plus the `events` the engine answered:

* ``action``: ``{"action": {...codec dict...}, "text": "typed line"}``: changes the state.
* ``correction``: ``{"op": "undo", "target": N}`` or ``{"op": "amend", "target": N,
  "action": {...}}``: undoes or replaces action entry N. Never a rewrite: entry N stays.
* ``observation``: ``{"type": "signal" | "card" | ..., ...}``: evidence (cards read, signals
  seen, audio) that never changes the state.
* ``note``: ``{"text": "..."}``.

Storage is SQLite (WAL, ``synchronous=FULL``, one transaction per entry, triggers that forbid
UPDATE and DELETE) or the JSON-lines export (a header line, then one line per entry). Every
entry carries a SHA-256 checksum chained to the one before, so damage anywhere is found and
named (`LogCorrupt` with the index of the first bad entry) while the entries before it stay
readable. The format is documented in docs/log-format.md.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import math
import os
import sqlite3
import threading
from pathlib import Path
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from referee.core import Action, Engine, Event, GameState, RefereeError, Violation, get_engine, jsonable

FORMAT = "table-referee-log"
FORMAT_VERSION = 1
APPLICATION_ID = 0x52464C47  # "RFLG" in the SQLite header: this file is a session log

SOURCES = ("keyboard", "camera", "microphone", "web", "script")
KINDS = ("action", "correction", "observation", "note")
CORRECTION_OPS = ("undo", "amend")

# Exit codes shared by `referee check`, `referee play` and `referee export`.
EXIT_OK = 0
EXIT_VIOLATION = 1  # the log (or a script line) breaks the rules
EXIT_USAGE = 2  # bad command-line options or table setup (click's own code for usage errors)
EXIT_UNREADABLE = 3  # no such file, not a session log, unsupported format version, unknown game
EXIT_CORRUPT = 4  # a damaged log: the entries before the damage are reported/kept

_SQLITE_MAGIC = b"SQLite format 3\x00"


# --------------------------------------------------------------------------- errors


class LogError(RefereeError):
    """Base of the session log's named errors."""


class LogUnreadable(LogError):
    """The file is missing, is not a session log, or has a format version this build cannot read."""


class LogExists(LogError):
    """A new log would overwrite an existing file."""


class LogCorrupt(LogError):
    """The log is damaged at entry `index` (0 = the header). `header` and `entries` hold what
    was read intact before the damage."""

    def __init__(
        self,
        message: str,
        *,
        index: int,
        header: "LogHeader | None" = None,
        entries: Sequence["Entry"] = (),
        **details: Any,
    ) -> None:
        super().__init__(f"entry {index}: {message}", index=index, intact_entries=len(entries), **details)
        self.reason = message
        self.index = index
        self.header = header
        self.entries = list(entries)


class BadEntry(LogError):
    """An entry that cannot be appended: unknown kind or source, confidence outside 0..1,
    a time that is not a finite number, a payload that is not JSON."""


class LogConflict(LogError):
    """Another writer appended to the same log at the same time."""


class CorrectionRefused(Violation):
    """Base of the reasons a correction is refused. Nothing is written."""


class NoSuchEntry(CorrectionRefused):
    """The correction names an entry that is not an action of this log."""


class EntryAlreadyUndone(CorrectionRefused):
    """The correction names an action that an earlier correction already undid."""


class NothingToUndo(CorrectionRefused):
    """`undo` with no action left in effect."""


class AmendmentIllegal(CorrectionRefused):
    """The replacement action of an amend is itself illegal at that point of the game."""


class CorrectionBreaksLaterEntry(CorrectionRefused):
    """Undoing or amending entry N would make a later action entry illegal."""


# --------------------------------------------------------------------------- data


def canonical_json(value: Any) -> str:
    """The one JSON spelling stored and checksummed: compact, UTF-8, keys in their given order
    (kept, not sorted: an engine may read meaning into the order of a setup's teams)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


stored_json = canonical_json


@dataclasses.dataclass(frozen=True)
class LogHeader:
    game: str
    engine_version: str
    setup: Mapping[str, Any]
    created: float
    format_version: int = FORMAT_VERSION

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "format_version": self.format_version,
            "game": self.game,
            "engine_version": self.engine_version,
            "setup": jsonable(self.setup),
            "created": self.created,
        }

    @classmethod
    def from_dict(cls, data: Any) -> "LogHeader":
        """Validate a header dict; raises LogUnreadable (not a log / unknown version) or ValueError."""
        if not isinstance(data, Mapping) or data.get("format") != FORMAT:
            raise LogUnreadable(f"not a session log (no \"format\": \"{FORMAT}\" header)")
        version = data.get("format_version")
        if version != FORMAT_VERSION:
            raise LogUnreadable(
                f"log format version {version!r} is not supported (this build reads {FORMAT_VERSION})",
                format_version=version,
            )
        game, engine_version, setup, created = (
            data.get("game"), data.get("engine_version"), data.get("setup"), data.get("created"),
        )
        if not isinstance(game, str) or not game:
            raise ValueError("header: 'game' must be a non-empty string")
        if not isinstance(engine_version, str):
            raise ValueError("header: 'engine_version' must be a string")
        if not isinstance(setup, Mapping):
            raise ValueError("header: 'setup' must be an object")
        if not _is_time(created):
            raise ValueError("header: 'created' must be a finite number (seconds since the epoch)")
        return cls(game=game, engine_version=engine_version, setup=dict(setup), created=float(created))

    def checksum(self) -> str:
        return hashlib.sha256(canonical_json(self.to_dict()).encode()).hexdigest()


@dataclasses.dataclass(frozen=True)
class Entry:
    seq: int
    time: float
    source: str
    confidence: float | None
    kind: str
    payload: Mapping[str, Any]
    events: Sequence[Mapping[str, Any]] = ()
    checksum: str = ""

    def body(self) -> dict[str, Any]:
        """Everything but the checksum, as JSON (payload and events are plain JSON values:
        `normalised` makes them so)."""
        return {
            "seq": self.seq,
            "time": self.time,
            "source": self.source,
            "confidence": self.confidence,
            "kind": self.kind,
            "payload": self.payload,
            "events": self.events,
        }

    def normalised(self) -> "Entry":
        """The same entry with payload and events as plain JSON values (lists, dicts)."""
        return dataclasses.replace(
            self,
            time=float(self.time) if _is_time(self.time) else self.time,  # stored as REAL
            confidence=float(self.confidence) if _is_time(self.confidence) else self.confidence,
            payload=jsonable(self.payload),
            events=[jsonable(e) for e in self.events],
        )

    def to_dict(self) -> dict[str, Any]:
        return {**self.body(), "checksum": self.checksum}

    def chained(self, previous: str) -> str:
        """This entry's checksum given the previous one (the header's for entry 1)."""
        return hashlib.sha256((previous + canonical_json(self.body())).encode()).hexdigest()

    @property
    def action(self) -> Mapping[str, Any] | None:
        """The action dict of an action entry or an amend, else None."""
        if self.kind == "action" or (self.kind == "correction" and self.payload.get("op") == "amend"):
            return self.payload.get("action")
        return None


def _chained_text(previous: str, entry: Entry, payload_text: str, events_text: str) -> str:
    """`entry.chained(previous)` computed from the stored payload and events texts; equal to it
    whenever those texts are canonical_json (as the writer stores them)."""
    confidence = "null" if entry.confidence is None else repr(float(entry.confidence))
    body = (
        f'{{"seq":{entry.seq},"time":{float(entry.time)!r},"source":{canonical_json(entry.source)},'
        f'"confidence":{confidence},"kind":{canonical_json(entry.kind)},'
        f'"payload":{payload_text},"events":{events_text}}}'
    )
    return hashlib.sha256((previous + body).encode()).hexdigest()


def _is_time(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def validate_entry(entry: Entry, *, check_json: bool = True) -> None:
    """Raise BadEntry naming what is wrong with `entry` (shape only, not the game rules).
    Payload and events are plain JSON values here (`Entry.normalised`, or read from JSON)."""
    if not isinstance(entry.seq, int) or isinstance(entry.seq, bool) or entry.seq < 1:
        raise BadEntry(f"seq must be a positive integer, not {entry.seq!r}")
    if not _is_time(entry.time):
        raise BadEntry(f"time must be a finite number of seconds, not {entry.time!r}")
    if entry.source not in SOURCES:
        raise BadEntry(f"unknown source {entry.source!r}", known=list(SOURCES))
    if entry.confidence is not None and not (
        _is_time(entry.confidence) and 0.0 <= entry.confidence <= 1.0
    ):
        raise BadEntry(f"confidence must be a number in 0..1 or null, not {entry.confidence!r}")
    if entry.kind not in KINDS:
        raise BadEntry(f"unknown entry kind {entry.kind!r}", known=list(KINDS))
    payload = entry.payload
    if not isinstance(payload, dict):
        raise BadEntry("payload must be an object")
    if not isinstance(entry.events, (list, tuple)) or not all(isinstance(e, dict) for e in entry.events):
        raise BadEntry("events must be a list of objects")
    if entry.kind == "action":
        if not isinstance(payload.get("action"), dict):
            raise BadEntry("an action entry needs payload.action, an object")
    elif entry.kind == "correction":
        op, target = payload.get("op"), payload.get("target")
        if op not in CORRECTION_OPS:
            raise BadEntry(f"correction op must be one of {list(CORRECTION_OPS)}, not {op!r}")
        if not isinstance(target, int) or isinstance(target, bool) or not 1 <= target < entry.seq:
            raise BadEntry(f"correction target must be an earlier entry number, not {target!r}")
        if op == "amend" and not isinstance(payload.get("action"), dict):
            raise BadEntry("an amend needs payload.action, an object")
    elif entry.kind == "note":
        if not isinstance(payload.get("text"), str):
            raise BadEntry("a note needs payload.text, a string")
    elif entry.kind == "observation":
        if not isinstance(payload.get("type"), str):
            raise BadEntry("an observation needs payload.type, a string (e.g. 'signal', 'card')")
    if check_json:
        try:
            canonical_json(entry.body())
        except (TypeError, ValueError) as exc:
            raise BadEntry(f"entry is not JSON: {exc}") from None


def _entry_from_dict(data: Any, index: int) -> Entry:
    """Parse one stored entry; raises ValueError (the caller turns it into LogCorrupt)."""
    if not isinstance(data, Mapping):
        raise ValueError("an entry is a JSON object")
    fields = {"seq", "time", "source", "confidence", "kind", "payload", "events"}
    missing = fields - set(data)
    if missing:
        raise ValueError(f"missing fields {sorted(missing)}")
    entry = Entry(
        seq=data["seq"],
        time=data["time"],
        source=data["source"],
        confidence=data["confidence"],
        kind=data["kind"],
        payload=data["payload"],
        events=data["events"],
        checksum=data.get("checksum") or "",
    )
    try:
        validate_entry(entry, check_json=False)  # it was read from JSON
    except BadEntry as exc:
        raise ValueError(exc.message) from None
    if entry.seq != index:
        raise ValueError(f"expected entry number {index}, found {entry.seq!r} (an entry is missing)")
    return entry


@dataclasses.dataclass
class LogContents:
    """A log read into memory: its header and its entries, in order."""

    header: LogHeader
    entries: list[Entry]
    path: str | None = None
    format: str = "sqlite"  # or "jsonl"


# --------------------------------------------------------------------------- SQLite storage

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

_ENTRY_COLUMNS = "seq, time, source, confidence, kind, payload, events, checksum"


def _connect(path: Path, *, readonly: bool) -> sqlite3.Connection:
    if readonly:
        conn = sqlite3.connect(path.absolute().as_uri() + "?mode=ro", uri=True, isolation_level=None)
    else:
        # One writer object may be shared by a web server's threads: `SessionLog` serialises
        # its appends with a lock, so the connection may cross threads.
        conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA busy_timeout=5000")
    return conn


class _FileDamaged(LogCorrupt):
    """SQLite refused the file itself (e.g. truncated): a salvage copy may still read a prefix."""


def _read_sqlite(path: Path) -> LogContents:
    try:
        return _read_sqlite_file(path)
    except _FileDamaged as damaged:
        original = damaged
    salvaged = _salvage_sqlite(path)
    if salvaged is None:
        raise LogCorrupt(original.reason, index=0) from None
    if isinstance(salvaged, LogCorrupt):
        raise LogCorrupt(
            f"{salvaged.reason} (read from a repaired copy of the damaged file)",
            index=salvaged.index, header=salvaged.header, entries=salvaged.entries,
        ) from None
    raise LogCorrupt(
        "the database file is damaged (truncated?) after the last intact entry",
        index=len(salvaged.entries) + 1, header=salvaged.header, entries=salvaged.entries,
    ) from None


def _salvage_sqlite(path: Path) -> "LogContents | LogCorrupt | None":
    """Read a damaged log from a temporary copy whose header's page count matches what is left
    of the file (SQLite refuses a file shorter than its header says). The original is untouched."""
    import shutil
    import struct
    import tempfile

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
            return _read_sqlite_file(copy)
        except LogCorrupt as corrupt:
            return None if isinstance(corrupt, _FileDamaged) else corrupt
        except LogError:
            return None


def _read_sqlite_file(path: Path) -> LogContents:
    try:
        conn = _connect(path, readonly=True)
    except sqlite3.Error as exc:
        raise LogUnreadable(f"cannot open {path}: {exc}") from None
    try:
        try:
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.DatabaseError as exc:
            raise _FileDamaged(f"the database is damaged: {exc}", index=0) from None
        if app_id != APPLICATION_ID or not {"header", "entries"} <= tables:
            raise LogUnreadable(f"{path} is an SQLite file but not a session log")
        try:
            row = conn.execute(
                "SELECT format, format_version, game, engine_version, setup, created, checksum "
                "FROM header WHERE id = 1"
            ).fetchone()
        except sqlite3.DatabaseError as exc:
            raise _FileDamaged(f"the header is damaged: {exc}", index=0) from None
        if row is None:
            raise LogCorrupt("the header row is missing", index=0)
        try:
            header = LogHeader.from_dict(
                {
                    "format": row[0], "format_version": row[1], "game": row[2],
                    "engine_version": row[3], "setup": json.loads(row[4]), "created": row[5],
                }
            )
        except (ValueError, TypeError) as exc:
            raise LogCorrupt(f"the header is damaged: {exc}", index=0) from None
        previous = header.checksum()
        if row[6] != previous:
            raise LogCorrupt("the header's checksum does not match its contents", index=0)
        entries: list[Entry] = []
        cursor = conn.execute(f"SELECT {_ENTRY_COLUMNS} FROM entries ORDER BY seq")
        index = 1
        while True:
            try:
                fetched = cursor.fetchone()
            except sqlite3.DatabaseError as exc:
                raise LogCorrupt(
                    f"the database is damaged: {exc}", index=index, header=header, entries=entries
                ) from None
            if fetched is None:
                break
            try:
                entry = _entry_from_dict(
                    {
                        "seq": fetched[0], "time": fetched[1], "source": fetched[2],
                        "confidence": fetched[3], "kind": fetched[4],
                        "payload": json.loads(fetched[5]), "events": json.loads(fetched[6]),
                        "checksum": fetched[7],
                    },
                    index,
                )
                # The stored texts are canonical JSON: hash them as they are (no re-encoding).
                quick = _chained_text(previous, entry, fetched[5], fetched[6])
            except json.JSONDecodeError as exc:
                raise LogCorrupt(
                    f"a stored field is not JSON ({exc.msg})", index=index, header=header, entries=entries
                ) from None
            except (ValueError, TypeError) as exc:
                raise LogCorrupt(str(exc), index=index, header=header, entries=entries) from None
            expected = quick if entry.checksum == quick else entry.chained(previous)
            if entry.checksum != expected:
                raise LogCorrupt(
                    "the checksum does not match the contents (changed or damaged)",
                    index=index, header=header, entries=entries,
                )
            entries.append(entry)
            previous = expected
            index += 1
        return LogContents(header=header, entries=entries, path=str(path), format="sqlite")
    finally:
        conn.close()


# --------------------------------------------------------------------------- JSON lines


def _read_jsonl(path: Path) -> LogContents:
    header: LogHeader | None = None
    entries: list[Entry] = []
    previous = ""
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle):
            index = number  # line 0 is the header, line k is entry k
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise LogCorrupt("not UTF-8 text", index=index, header=header, entries=entries) from None
            if not text.strip():
                continue
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                if index == 0 and not text.lstrip().startswith("{"):
                    raise LogUnreadable(f"{path} is neither an SQLite log nor a JSON-lines export") from None
                raise LogCorrupt(
                    f"not a JSON line ({exc.msg}; truncated or damaged)",
                    index=index, header=header, entries=entries,
                ) from None
            if index == 0:
                try:
                    header = LogHeader.from_dict(data)
                except (ValueError, TypeError) as exc:
                    raise LogCorrupt(f"the header is damaged: {exc}", index=0) from None
                previous = header.checksum()
                continue
            try:
                entry = _entry_from_dict(data, index)
            except (ValueError, TypeError) as exc:
                raise LogCorrupt(str(exc), index=index, header=header, entries=entries) from None
            expected = entry.chained(previous)
            if entry.checksum and entry.checksum != expected:
                raise LogCorrupt(
                    "the checksum does not match the contents (changed or damaged)",
                    index=index, header=header, entries=entries,
                )
            # A hand-written export may leave checksums out; the chain continues from the contents.
            entry = dataclasses.replace(entry, checksum=expected)
            entries.append(entry)
            previous = expected
    if header is None:
        raise LogUnreadable(f"{path} is empty")
    return LogContents(header=header, entries=entries, path=str(path), format="jsonl")


def write_jsonl(contents: LogContents, out: Any) -> None:
    """Write `contents` as the JSON-lines export to a text stream."""
    out.write(stored_json(contents.header.to_dict()) + "\n")
    for entry in contents.entries:
        out.write(stored_json(entry.to_dict()) + "\n")


def read_log(path: str | os.PathLike[str]) -> LogContents:
    """Read a log, SQLite or JSON lines (told apart by the file's first bytes).

    Raises LogUnreadable, or LogCorrupt carrying the intact header and entries before the damage.
    """
    path = Path(path)
    if not path.is_file():
        raise LogUnreadable(f"no log file at {path}")
    with open(path, "rb") as handle:
        start = handle.read(len(_SQLITE_MAGIC))
    if start == _SQLITE_MAGIC:
        return _read_sqlite(path)
    if not start:
        raise LogUnreadable(f"{path} is empty")
    return _read_jsonl(path)


# --------------------------------------------------------------------------- the writer


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
    ) -> "SessionLog":
        """A new log at `path` (which must not exist). `entries` (e.g. from an import) are
        re-validated, re-chained and written in the same transaction as the header."""
        path = Path(path)
        if path.exists():
            raise LogExists(f"{path} already exists; pass another path or resume it")
        path.parent.mkdir(parents=True, exist_ok=True)
        header = LogHeader.from_dict(header.to_dict())
        conn = _connect(path, readonly=False)
        try:
            conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
            conn.execute(f"PRAGMA user_version={FORMAT_VERSION}")
            conn.execute("BEGIN IMMEDIATE")
            for statement in _SCHEMA.split(";\n"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(
                "INSERT INTO header (id, format, format_version, game, engine_version, setup, created, checksum) "
                "VALUES (1, ?, ?, ?, ?, ?, ?, ?)",
                (FORMAT, header.format_version, header.game, header.engine_version,
                 stored_json(header.to_dict()["setup"]), header.created, header.checksum()),
            )
            previous = header.checksum()
            written: list[Entry] = []
            for number, entry in enumerate(entries, start=1):
                entry = dataclasses.replace(entry, seq=number, checksum="").normalised()
                validate_entry(entry)
                entry = dataclasses.replace(entry, checksum=entry.chained(previous))
                conn.execute(f"INSERT INTO entries ({_ENTRY_COLUMNS}) VALUES (?,?,?,?,?,?,?,?)", _row(entry))
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
    def open(cls, path: str | os.PathLike[str]) -> "SessionLog":
        """Reopen an SQLite log to append to it. A damaged log raises LogCorrupt (export it with
        --salvage to keep the entries before the damage)."""
        path = Path(path)
        contents = read_log(path)
        if contents.format != "sqlite":
            raise LogUnreadable(f"{path} is a JSON-lines export: import it into a new log to append")
        return cls(path, _connect(path, readonly=False), contents)

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> "SessionLog":
        return self

    def __exit__(self, *exc: Any) -> None:
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
            ).normalised()
            validate_entry(entry)
            entry = dataclasses.replace(entry, checksum=entry.chained(self._last_checksum))
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                self._conn.execute(
                    f"INSERT INTO entries ({_ENTRY_COLUMNS}) VALUES (?,?,?,?,?,?,?,?)", _row(entry)
                )
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


def _row(entry: Entry) -> tuple[Any, ...]:
    return (
        entry.seq, float(entry.time), entry.source,
        None if entry.confidence is None else float(entry.confidence),
        entry.kind, stored_json(entry.payload), stored_json(list(entry.events)),
        entry.checksum,
    )


def write_sqlite(contents: LogContents, path: str | os.PathLike[str]) -> SessionLog:
    """Import `contents` (e.g. a JSON-lines export) into a new SQLite log at `path`."""
    return SessionLog.create(path, contents.header, contents.entries)


# --------------------------------------------------------------------------- corrections


def effective_actions(entries: Iterable[Entry]) -> dict[int, Mapping[str, Any]]:
    """The actions in effect after every correction: {action entry seq: action dict}, in seq
    order. Raises a CorrectionRefused subclass (with `entry`) at the first invalid correction."""
    actions: dict[int, Mapping[str, Any]] = {}
    undone: set[int] = set()
    for entry in entries:
        if entry.kind == "action":
            actions[entry.seq] = entry.payload["action"]
        elif entry.kind == "correction":
            apply_correction(actions, undone, entry.seq, entry.payload)
    return actions


def apply_correction(
    actions: dict[int, Mapping[str, Any]], undone: set[int], seq: int, payload: Mapping[str, Any]
) -> None:
    """Apply one correction to the {seq: action} map in place (named errors if it cannot)."""
    target = payload["target"]
    if target in undone:
        raise EntryAlreadyUndone(f"entry {target} was already undone", entry=seq, target=target)
    if target not in actions:
        raise NoSuchEntry(f"entry {target} is not an action of this game", entry=seq, target=target)
    if payload["op"] == "undo":
        del actions[target]
        undone.add(target)
    else:
        actions[target] = payload["action"]


@dataclasses.dataclass
class Replay:
    """The result of replaying a log: the final state, or the state before the first violation."""

    header: LogHeader
    engine: Engine
    state: GameState
    entries: int
    applied: int  # actions applied
    violation: Violation | None = None
    violation_entry: int | None = None  # the entry index (seq) the violation is charged to
    events: dict[int, list[dict[str, Any]]] = dataclasses.field(default_factory=dict)  # seq -> event dicts

    @property
    def legal(self) -> bool:
        return self.violation is None


def replay_actions(
    engine: Engine,
    setup: Mapping[str, Any],
    actions: Mapping[int, Mapping[str, Any]],
    *,
    keep_events: bool = False,
) -> tuple[GameState, int, Violation | None, int | None, dict[int, list[dict[str, Any]]]]:
    """Apply {seq: action dict} to a new game. Stops at the first violation (returned, not raised)."""
    state = engine.new_game(copy.deepcopy(dict(setup)))
    events: dict[int, list[dict[str, Any]]] = {}
    applied = 0
    for seq, data in actions.items():
        try:
            action: Action = engine.codec.from_dict(data)
            answered = state.apply(action)
        except Violation as violation:
            return state, applied, violation, seq, events
        if keep_events:
            # as dicts at once: an engine's event data may share lists with its state
            events[seq] = [event.to_dict() for event in answered]
        applied += 1
    return state, applied, None, None, events


def replay(
    contents: LogContents,
    engine: Engine | None = None,
    *,
    keep_events: bool = False,
) -> Replay:
    """Replay a log from its header's setup, applying corrections. Never raises a Violation:
    the first one (a broken correction or an illegal action) is returned with its entry index.
    Raises UnknownGame when no engine plays the header's game."""
    engine = engine if engine is not None else get_engine(contents.header.game)
    try:
        actions = effective_actions(contents.entries)
    except CorrectionRefused as refused:
        # Replay the entries before the broken correction so the state shown is meaningful.
        bad = refused.details["entry"]
        actions = effective_actions(e for e in contents.entries if e.seq < bad)
        state, applied, violation, at, events = replay_actions(
            engine, contents.header.setup, actions, keep_events=keep_events
        )
        if violation is None:
            violation, at = refused, bad
        return Replay(contents.header, engine, state, len(contents.entries), applied, violation, at, events)
    state, applied, violation, at, events = replay_actions(
        engine, contents.header.setup, actions, keep_events=keep_events
    )
    return Replay(contents.header, engine, state, len(contents.entries), applied, violation, at, events)


class EventsDiffer(Violation):
    """Replaying an entry announces other events than those recorded when it was played (for
    example, a newer engine reads the rules differently)."""


def first_event_difference(contents: LogContents, result: Replay) -> EventsDiffer | None:
    """Compare the recorded events of each action entry with the replayed ones (`result` from
    `replay(..., keep_events=True)`). Only entries whose past no later correction changed are
    compared: for them the recorded events must be exactly what the engine answers now."""
    corrections = [(e.seq, e.payload["target"]) for e in contents.entries if e.kind == "correction"]
    for entry in contents.entries:
        if entry.kind != "action" or entry.seq not in result.events:
            continue
        if any(seq > entry.seq and target <= entry.seq for seq, target in corrections):
            continue  # a later correction rewrote this entry's past
        replayed = result.events[entry.seq]
        if replayed != list(entry.events):
            return EventsDiffer(
                f"entry {entry.seq} was answered with other events than the engine gives now",
                entry=entry.seq, recorded=list(entry.events), replayed=replayed,
            )
    return None
