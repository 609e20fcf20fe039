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

Storage is SQLite (a rollback journal with ``synchronous=FULL``, so each entry's transaction
lands in the main file; triggers that forbid UPDATE and DELETE; an fsynced entry count kept
beside it, ``NAME.db-count``) or the JSON-lines export (a header line, then one line per
entry). Every entry carries a SHA-256 checksum chained to the one before, so damage anywhere
is found and named (`LogCorrupt` with the index of the first bad entry and, from the count,
how many saved entries are lost) while the entries before it stay readable. The format is
documented in docs/log-format.md.

The modules: `errors` (named errors, exit codes), `records` (header, entry, checksums,
validation), `sqlite_file` (the SQLite layout and its reader), `salvage` (a file SQLite
refuses or cannot open in place), `carve` (rows read from the pages of a damaged file),
`tally` (the entry count), `jsonl` (the export, unsigned entries), `signature` (an export's
keyed signature), `store` (opening a log, the writer), `replay` (corrections and replay).
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
    LogReadOnly,
    LogUnreadable,
    LogUnsigned,
    LogUnverified,
    LogWriteFailed,
    NoSuchEntry,
    NothingToUndo,
)
from referee.sessionlog.jsonl import describe_entries, mark_unsigned_import, unsigned_entries, write_jsonl
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
from referee.sessionlog.signature import (
    LOCAL,
    MISSING,
    UNVERIFIED,
    VERIFIED,
    mark_unverified_import,
    sign_export,
    signature_status,
    unverified_imports,
)
from referee.sessionlog.store import SessionLog, log_format, read_log, write_sqlite

__all__ = [
    "EXIT_CORRUPT",
    "EXIT_OK",
    "EXIT_UNREADABLE",
    "EXIT_USAGE",
    "EXIT_VIOLATION",
    "FORMAT_VERSION",
    "LOCAL",
    "MISSING",
    "UNVERIFIED",
    "VERIFIED",
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
    "LogReadOnly",
    "LogUnreadable",
    "LogUnsigned",
    "LogUnverified",
    "LogWriteFailed",
    "NoSuchEntry",
    "NothingToUndo",
    "Replay",
    "SessionLog",
    "actions_and_undone",
    "apply_correction",
    "describe_entries",
    "effective_actions",
    "first_event_difference",
    "mark_unsigned_import",
    "mark_unverified_import",
    "log_format",
    "read_log",
    "replay",
    "replay_actions",
    "sign_export",
    "signature_status",
    "unsigned_entries",
    "unverified_imports",
    "write_jsonl",
    "write_sqlite",
]
