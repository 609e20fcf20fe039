"""The JSON-lines export: a header line, then one line per entry (docs/log-format.md).

It is the shareable form of a log; reading one checks the same checksum chain as SQLite, but a
hand-written export may leave the checksums out: such entries are *unsigned* (listed in
`LogContents.unsigned`), and importing them is refused unless the caller accepts them as such
(`mark_unsigned_import`). The chain is a plain SHA-256 that anyone can recompute: it finds
accidental damage, not a deliberate edit (docs/log-format.md, "What the checksums prove"): the
keyed signature in the header line does (`signature.py`).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, TextIO

from referee.sessionlog.errors import LogCorrupt, LogUnreadable
from referee.sessionlog.records import Entry, LogContents, LogHeader, canonical_json, entry_from_dict
from referee.sessionlog.signature import SIGNATURE_FIELD


def read_jsonl(path: Path) -> LogContents:
    """Read an export. Raises LogUnreadable, or LogCorrupt at the first bad line (0 = the header)."""
    header: LogHeader | None = None
    entries: list[Entry] = []
    unsigned: list[int] = []
    previous = ""
    signature: object = None
    signed_header: dict[str, Any] | None = None
    with open(path, "rb") as handle:
        for index, raw in enumerate(handle):  # line 0 is the header, line k is entry k
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                if index == 0:
                    raise LogUnreadable(f"{path} is not a session log (neither SQLite nor JSON-lines text)") from None
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
                    index=index,
                    header=header,
                    entries=entries,
                ) from None
            if index == 0:
                try:
                    header = LogHeader.from_dict(data)
                    previous = header.checksum()  # ValueError: a NaN or Infinity no log can hold
                except (ValueError, TypeError) as exc:
                    raise LogCorrupt(f"the header is damaged: {exc}", index=0) from None
                signature = data.get(SIGNATURE_FIELD)
                signed_header = {k: v for k, v in data.items() if k != SIGNATURE_FIELD}
                continue
            try:
                entry = entry_from_dict(data, index)
                expected = entry.chained(previous)
            except (ValueError, TypeError) as exc:
                raise LogCorrupt(str(exc), index=index, header=header, entries=entries) from None
            if entry.checksum and entry.checksum != expected:
                raise LogCorrupt(
                    "the checksum does not match the contents (changed or damaged)",
                    index=index,
                    header=header,
                    entries=entries,
                )
            # A hand-written export may leave checksums out; the chain continues from the contents.
            if not entry.checksum:
                unsigned.append(entry.seq)
            entry = dataclasses.replace(entry, checksum=expected)
            entries.append(entry)
            previous = expected
    if header is None:
        raise LogUnreadable(f"{path} is empty")
    return LogContents(
        header=header,
        entries=entries,
        path=str(path),
        format="jsonl",
        unsigned=unsigned,
        signature=signature,
        signed_header=signed_header,
    )


UNSIGNED_IMPORT = "unsigned_import"  # the key of the note that marks an import of unsigned entries


def unsigned_entries(contents: LogContents) -> list[int]:
    """The entries of `contents` that carried no checksum when they reached it: those of an
    export read now, and those an earlier import marked (a note with `unsigned_import`)."""
    found = set(contents.unsigned)
    for entry in contents.entries:
        marked = entry.payload.get(UNSIGNED_IMPORT) if entry.kind == "note" else None
        if isinstance(marked, dict) and isinstance(marked.get("entries"), list):
            found.update(n for n in marked["entries"] if isinstance(n, int) and not isinstance(n, bool))
    return sorted(found)


def describe_entries(numbers: list[int]) -> str:
    """[1, 2, 3, 7] -> 'entries 1-3, 7'."""
    spans: list[str] = []
    start = previous = None
    for n in [*numbers, None]:
        if n is not None and previous is not None and n == previous + 1:
            previous = n
            continue
        if start is not None:
            spans.append(str(start) if start == previous else f"{start}-{previous}")
        start = previous = n
    return ("entry " if len(numbers) == 1 else "entries ") + ", ".join(spans)


def mark_unsigned_import(contents: LogContents) -> LogContents:
    """`contents` with a note appended that names its unsigned entries and where they came from,
    so that the log they are imported into says so for good (`referee check` reports it)."""
    numbers = unsigned_entries(contents)
    if not numbers or not contents.unsigned:
        return contents
    marked = contents.with_note(
        f"imported unsigned from {contents.path}: {describe_entries(numbers)} had no checksum",
        {UNSIGNED_IMPORT: {"from": str(contents.path), "entries": numbers}},
    )
    return dataclasses.replace(marked, unsigned=[])


def write_jsonl(contents: LogContents, out: TextIO) -> None:
    """Write `contents` as the JSON-lines export to a text stream."""
    out.write(canonical_json(contents.header.to_dict()) + "\n")
    for entry in contents.entries:
        out.write(canonical_json(entry.to_dict()) + "\n")
