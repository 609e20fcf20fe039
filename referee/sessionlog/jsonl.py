"""The JSON-lines export: a header line, then one line per entry (docs/log-format.md).

It is the shareable form of a log; reading one checks the same checksum chain as SQLite, but a
hand-written export may leave the checksums out.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import TextIO

from referee.sessionlog.errors import LogCorrupt, LogUnreadable
from referee.sessionlog.records import Entry, LogContents, LogHeader, canonical_json, entry_from_dict


def read_jsonl(path: Path) -> LogContents:
    """Read an export. Raises LogUnreadable, or LogCorrupt at the first bad line (0 = the header)."""
    header: LogHeader | None = None
    entries: list[Entry] = []
    previous = ""
    with open(path, "rb") as handle:
        for index, raw in enumerate(handle):  # line 0 is the header, line k is entry k
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
                    index=index,
                    header=header,
                    entries=entries,
                ) from None
            if index == 0:
                try:
                    header = LogHeader.from_dict(data)
                except (ValueError, TypeError) as exc:
                    raise LogCorrupt(f"the header is damaged: {exc}", index=0) from None
                previous = header.checksum()
                continue
            try:
                entry = entry_from_dict(data, index)
            except (ValueError, TypeError) as exc:
                raise LogCorrupt(str(exc), index=index, header=header, entries=entries) from None
            expected = entry.chained(previous)
            if entry.checksum and entry.checksum != expected:
                raise LogCorrupt(
                    "the checksum does not match the contents (changed or damaged)",
                    index=index,
                    header=header,
                    entries=entries,
                )
            # A hand-written export may leave checksums out; the chain continues from the contents.
            entry = dataclasses.replace(entry, checksum=expected)
            entries.append(entry)
            previous = expected
    if header is None:
        raise LogUnreadable(f"{path} is empty")
    return LogContents(header=header, entries=entries, path=str(path), format="jsonl")


def write_jsonl(contents: LogContents, out: TextIO) -> None:
    """Write `contents` as the JSON-lines export to a text stream."""
    out.write(canonical_json(contents.header.to_dict()) + "\n")
    for entry in contents.entries:
        out.write(canonical_json(entry.to_dict()) + "\n")
