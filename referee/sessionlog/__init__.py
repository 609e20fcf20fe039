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

The modules: `errors` (named errors, exit codes), `records` (header, entry, checksums,
validation), `sqlite_file` (the SQLite layout and its reader), `salvage` (a file SQLite
refuses), `jsonl` (the export), `store` (opening a log, the writer), `replay` (corrections
and replay).
"""

from referee.sessionlog.errors import (
    EXIT_CORRUPT,
    EXIT_OK,
    EXIT_UNREADABLE,
    EXIT_USAGE,
    EXIT_VIOLATION,
    AmendmentIllegal,
    BadEntry,
    CorrectionBreaksLaterEntry,
    EntryAlreadyUndone,
    LogConflict,
    LogCorrupt,
    LogError,
    LogExists,
    LogUnreadable,
    NoSuchEntry,
    NothingToUndo,
)
from referee.sessionlog.jsonl import write_jsonl
from referee.sessionlog.records import FORMAT_VERSION, Entry, LogContents, LogHeader
from referee.sessionlog.replay import (
    Replay,
    actions_and_undone,
    apply_correction,
    effective_actions,
    first_event_difference,
    replay,
    replay_actions,
)
from referee.sessionlog.store import SessionLog, read_log, write_sqlite

__all__ = [
    "EXIT_CORRUPT",
    "EXIT_OK",
    "EXIT_UNREADABLE",
    "EXIT_USAGE",
    "EXIT_VIOLATION",
    "FORMAT_VERSION",
    "AmendmentIllegal",
    "BadEntry",
    "CorrectionBreaksLaterEntry",
    "Entry",
    "EntryAlreadyUndone",
    "LogConflict",
    "LogContents",
    "LogCorrupt",
    "LogError",
    "LogExists",
    "LogHeader",
    "LogUnreadable",
    "NoSuchEntry",
    "NothingToUndo",
    "Replay",
    "SessionLog",
    "actions_and_undone",
    "apply_correction",
    "effective_actions",
    "first_event_difference",
    "read_log",
    "replay",
    "replay_actions",
    "write_jsonl",
    "write_sqlite",
]
