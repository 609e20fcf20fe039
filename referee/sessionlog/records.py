"""What a log holds: its header and entries, their one JSON spelling, the checksum chain, and the
checks an entry must pass before it is stored or after it is read."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any, TypeGuard

from referee.core import jsonable
from referee.sessionlog.errors import BadEntry, LogUnreadable

FORMAT = "table-referee-log"
FORMAT_VERSION = 1

SOURCES = ("keyboard", "camera", "microphone", "web", "script")
KINDS = ("action", "correction", "observation", "note")
CORRECTION_OPS = ("undo", "amend")

ENTRY_FIELDS = ("seq", "time", "source", "confidence", "kind", "payload", "events")  # in checksummed order


def canonical_json(value: Any) -> str:
    """The one JSON spelling stored and checksummed: compact, UTF-8, keys in their given order
    (kept, not sorted: an engine may read meaning into the order of a setup's teams)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def is_time(value: object) -> TypeGuard[float]:
    """A finite number (not a bool): what a time, a created stamp or a confidence must be."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


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
    def from_dict(cls, data: Any) -> LogHeader:
        """Validate a header dict; raises LogUnreadable (not a log / unknown version) or ValueError."""
        if not isinstance(data, Mapping) or data.get("format") != FORMAT:
            raise LogUnreadable(f'not a session log (no "format": "{FORMAT}" header)')
        version = data.get("format_version")
        if version != FORMAT_VERSION:
            raise LogUnreadable(
                f"log format version {version!r} is not supported (this build reads {FORMAT_VERSION})",
                format_version=version,
            )
        game, engine_version, setup, created = (
            data.get("game"),
            data.get("engine_version"),
            data.get("setup"),
            data.get("created"),
        )
        if not isinstance(game, str) or not game:
            raise ValueError("header: 'game' must be a non-empty string")
        if not isinstance(engine_version, str):
            raise ValueError("header: 'engine_version' must be a string")
        if not isinstance(setup, Mapping):
            raise ValueError("header: 'setup' must be an object")
        if not is_time(created):
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

    def normalised(self) -> Entry:
        """The same entry with payload and events as plain JSON values (lists, dicts)."""
        return dataclasses.replace(
            self,
            time=float(self.time) if is_time(self.time) else self.time,  # stored as REAL
            confidence=float(self.confidence) if is_time(self.confidence) else self.confidence,
            payload=jsonable(self.payload),
            events=[jsonable(e) for e in self.events],
        )

    def to_dict(self) -> dict[str, Any]:
        return {**self.body(), "checksum": self.checksum}

    def chained(self, previous: str) -> str:
        """This entry's checksum given the previous one (the header's for entry 1)."""
        return hashlib.sha256((previous + canonical_json(self.body())).encode()).hexdigest()

    def sealed(self, previous: str) -> Entry:
        """The entry as it is stored after `previous`: normalised, validated (BadEntry), chained."""
        entry = self.normalised()
        validate_entry(entry)
        return dataclasses.replace(entry, checksum=entry.chained(previous))

    @property
    def action(self) -> Mapping[str, Any] | None:
        """The action dict of an action entry or an amend, else None."""
        if self.kind == "action" or (self.kind == "correction" and self.payload.get("op") == "amend"):
            return self.payload.get("action")
        return None


def chained_from_texts(previous: str, entry: Entry, payload_text: str, events_text: str) -> str:
    """`entry.chained(previous)` computed from the stored payload and events texts; equal to it
    whenever those texts are canonical_json (as the writer stores them). Reading a long log,
    this spares decoding and re-encoding every payload."""
    confidence = "null" if entry.confidence is None else repr(float(entry.confidence))
    body = (
        f'{{"seq":{entry.seq},"time":{float(entry.time)!r},"source":{canonical_json(entry.source)},'
        f'"confidence":{confidence},"kind":{canonical_json(entry.kind)},'
        f'"payload":{payload_text},"events":{events_text}}}'
    )
    return hashlib.sha256((previous + body).encode()).hexdigest()


def validate_entry(entry: Entry, *, check_json: bool = True) -> None:
    """Raise BadEntry naming what is wrong with `entry` (shape only, not the game rules).
    Payload and events are plain JSON values here (`Entry.normalised`, or read from JSON)."""
    if not isinstance(entry.seq, int) or isinstance(entry.seq, bool) or entry.seq < 1:
        raise BadEntry(f"seq must be a positive integer, not {entry.seq!r}")
    if not is_time(entry.time):
        raise BadEntry(f"time must be a finite number of seconds, not {entry.time!r}")
    if entry.source not in SOURCES:
        raise BadEntry(f"unknown source {entry.source!r}", known=list(SOURCES))
    if entry.confidence is not None and not (is_time(entry.confidence) and 0.0 <= entry.confidence <= 1.0):
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


def entry_from_dict(data: Any, index: int) -> Entry:
    """Parse one stored entry, expected to be entry number `index`; raises ValueError (the
    reader turns it into LogCorrupt)."""
    if not isinstance(data, Mapping):
        raise ValueError("an entry is a JSON object")
    missing = set(ENTRY_FIELDS) - set(data)
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
    """A log read into memory: its header and its entries, in order.

    `committed`: the entry count kept beside an SQLite log, when it was there and agreed;
    `count_problem`: why there was none to compare with (the end of the log is then unverified);
    `unsigned`: the entries of a JSON-lines export that carried no checksum;
    `signature`, `signed_header`: a JSON-lines export's signature as read (None when it has
    none) and its header line without it, as read (`signature.signature_status` checks them)."""

    header: LogHeader
    entries: list[Entry]
    path: str | None = None
    format: str = "sqlite"  # or "jsonl"
    committed: int | None = None
    count_problem: str | None = None
    unsigned: list[int] = dataclasses.field(default_factory=list)
    signature: object = None
    signed_header: dict[str, Any] | None = None

    def with_note(self, text: str, marks: Mapping[str, Any]) -> LogContents:
        """These contents with a note entry appended (at the last entry's time, chained to it),
        carrying `text` and `marks` in its payload: how an import records for good where its
        entries came from."""
        last = self.entries[-1] if self.entries else None
        note = Entry(
            seq=len(self.entries) + 1,
            time=last.time if last else self.header.created,
            source="script",
            confidence=None,
            kind="note",
            payload={"text": text, **marks},
        )
        previous = last.checksum if last else self.header.checksum()
        return dataclasses.replace(self, entries=[*self.entries, note.sealed(previous)])
