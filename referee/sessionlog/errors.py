"""The session log's named errors, and the exit codes the commands that read logs share."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from referee.core import RefereeError, Violation

if TYPE_CHECKING:  # the records name these errors; the errors only carry records
    from referee.sessionlog.records import Entry, LogHeader

# Exit codes shared by `referee check`, `referee play` and `referee export`.
EXIT_OK = 0
EXIT_VIOLATION = 1  # the log (or a script line) breaks the rules
EXIT_USAGE = 2  # bad command-line options or table setup (click's own code for usage errors)
EXIT_UNREADABLE = 3  # no such file, not a session log, unsupported format version, unknown game
EXIT_CORRUPT = 4  # a damaged log: the entries before the damage are reported/kept


class LogError(RefereeError):
    """Base of the session log's named errors."""


class LogUnreadable(LogError):
    """The file is missing, is not a session log, or has a format version this build cannot read."""


class LogReadOnly(LogUnreadable):
    """A log to be continued that this user cannot write (the file or its folder is read-only)."""


class LogUnsigned(LogError):
    """An export whose entries carry no checksum (or a log made from one) offered for import
    without saying that it is accepted unsigned: nothing shows whether its entries were edited."""


class LogUnverified(LogUnsigned):
    """An export whose signature this referee cannot verify (made with another referee's key,
    or re-signed after an edit) or that carries none, offered for import without saying that
    it is accepted as such: nothing shows whether its entries were edited."""


class LogWriteFailed(LogError):
    """The log could not be written (disk full, a file made read-only during the game): the
    entry was not accepted."""


class LogExists(LogError):
    """A new log would overwrite an existing file."""


class LogCorrupt(LogError):
    """The log is damaged at entry `index` (0 = the header). `header` and `entries` hold what
    was read intact before the damage; `committed`, when known (from the entry count kept
    beside an SQLite log), is how many entries had been saved, so the loss is counted:
    entries len(entries) + 1 .. committed."""

    def __init__(
        self,
        message: str,
        *,
        index: int,
        header: LogHeader | None = None,
        entries: Sequence[Entry] = (),
        committed: int | None = None,
        whole_after: Sequence[int] = (),
        **details: Any,
    ) -> None:
        kept = len(entries)
        text = f"entry {index}: {message}"
        if committed is not None:
            details["committed"] = committed
            details["lost_entries"] = max(committed - kept - len(whole_after), 0)
            if whole_after:
                details["whole_after_damage"] = list(whole_after)
            text += f"; {committed} entries were saved, {_kept_and_lost(kept, committed, whole_after)}"
        super().__init__(text, index=index, intact_entries=kept, **details)
        self.reason = message
        self.index = index
        self.header = header
        self.entries = list(entries)
        self.committed = committed
        self.whole_after = list(whole_after)

    @property
    def lost(self) -> int | None:
        """How many saved entries are not among `entries` (None when unknown)."""
        return None if self.committed is None else max(self.committed - len(self.entries), 0)

    @property
    def damaged(self) -> int | None:
        """How many saved entries are gone: not among `entries`, nor whole after the damage."""
        return None if self.committed is None else max(self.committed - len(self.entries) - len(self.whole_after), 0)


def _kept_and_lost(kept: int, committed: int, whole_after: Sequence[int] = ()) -> str:
    if kept >= committed:
        return f"all {committed} are intact"
    lost = committed - kept
    if not whole_after:
        span = f"entry {committed}" if lost == 1 else f"entries {kept + 1}-{committed}"
        return f"{kept} are intact and {span} ({_count(lost)}) are lost from the damage on"
    whole = set(whole_after)
    gone = [n for n in range(kept + 1, committed + 1) if n not in whole]
    return (
        f"{kept} are intact, {_spans(gone)} {'is' if len(gone) == 1 else 'are'} damaged or missing "
        f"({_count(len(gone))}), and {_spans(sorted(whole))} ({_count(len(whole))}) "
        f"{'is' if len(whole) == 1 else 'are'} whole but cannot be replayed past the damage"
    )


def _count(n: int) -> str:
    return f"{n} {'entry' if n == 1 else 'entries'}"


def _spans(numbers: Sequence[int]) -> str:
    """[1, 2, 3, 7] -> 'entries 1-3, 7'."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and runs[-1][1] == n - 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    words = [str(a) if a == b else f"{a}-{b}" for a, b in runs]
    return ("entry " if len(numbers) == 1 else "entries ") + ", ".join(words)


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


class EventsDiffer(Violation):
    """Replaying an entry announces other events than those recorded when it was played (for
    example, a newer engine reads the rules differently)."""
