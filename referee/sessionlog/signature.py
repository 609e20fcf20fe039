"""The keyed signature of a JSON-lines export (docs/log-format.md, "The signature").

The checksum chain is a plain SHA-256: anyone who edits an entry can recompute it. An export
therefore also carries, in its header line, an HMAC-SHA256 made with the referee's own key over
the header line (without the signature itself) and the chain's last checksum, which covers every
entry. Only a holder of the key can make one that verifies, so an export edited and re-chained
(or signed by another referee) reads as *unverified*, and one with no signature as *missing*.

This module only takes the key as bytes; where it is kept is the application's business
(`tablereferee/signing.py`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
from collections.abc import Mapping
from typing import Any

from referee.sessionlog.records import LogContents, canonical_json

SIGNATURE_FIELD = "signature"  # the header line's field that holds the signature
ALGORITHM = "hmac-sha256"

VERIFIED = "verified"  # signed with the key given
UNVERIFIED = "unverified"  # a signature that this key does not make: another referee's, or forged
MISSING = "missing"  # no signature: an export written before signatures, or one removed
LOCAL = "local"  # an SQLite log: the referee's own record, which carries no signature

UNVERIFIED_IMPORT = "unverified_import"  # the key of the note that marks an unverified import

DESCRIPTIONS = {
    VERIFIED: "signed by this referee",
    UNVERIFIED: "signed by another referee's key or re-signed: cannot be verified here",
    MISSING: "unsigned: the export carries no signature, so nothing shows whether it was edited",
}


# What a damaged export's contents carry as signature (`as_damaged_export`): the signature
# covers the whole file, so the entries read before the damage cannot be verified by it.
DAMAGED_EXPORT = "the export is damaged"
DAMAGED_DESCRIPTION = (
    "damaged: the signature covers the whole export, so the entries before the damage cannot be verified"
)


def as_damaged_export(contents: LogContents) -> LogContents:
    """The intact entries of a damaged export, marked so that they read as UNVERIFIED."""
    return dataclasses.replace(contents, format="jsonl", signature=DAMAGED_EXPORT, signed_header=None)


def describe_status(contents: LogContents, status: str) -> str:
    """`status` in words, for this log (a damaged export says why it cannot be verified)."""
    return DAMAGED_DESCRIPTION if contents.signature == DAMAGED_EXPORT else DESCRIPTIONS[status]


def signed_message(header_line: Mapping[str, Any], last_checksum: str, entries: int) -> bytes:
    """What the signature covers: the header line as written (without its signature field),
    the number of entries and the last checksum of the chain (which covers every entry)."""
    fields = {k: v for k, v in header_line.items() if k != SIGNATURE_FIELD}
    return f"{canonical_json(fields)}\n{entries}\n{last_checksum}".encode()


def make_signature(message: bytes, key: bytes) -> str:
    return f"{ALGORITHM}:{hmac.new(key, message, hashlib.sha256).hexdigest()}"


def sign_export(text: str, contents: LogContents, key: bytes) -> str:
    """The JSON-lines export `text`, written from `contents`, with the signature in its header
    line. The header line's other fields keep their order, so that a reader rebuilds the same
    message from what it reads."""
    first, newline, rest = text.partition("\n")
    header_line = json.loads(first)
    last = contents.entries[-1].checksum if contents.entries else contents.header.checksum()
    signature = make_signature(signed_message(header_line, last, len(contents.entries)), key)
    return canonical_json({**header_line, SIGNATURE_FIELD: signature}) + newline + rest


def signature_status(contents: LogContents, key: bytes | None) -> str:
    """VERIFIED, UNVERIFIED or MISSING for an export read by `read_jsonl`; LOCAL for an SQLite
    log. Without a key (none could be read) a signature cannot be verified: UNVERIFIED."""
    if contents.format != "jsonl":
        return LOCAL
    if contents.signature is None:
        return MISSING
    if key is None or contents.signed_header is None or not isinstance(contents.signature, str):
        return UNVERIFIED
    last = contents.entries[-1].checksum if contents.entries else contents.header.checksum()
    expected = make_signature(signed_message(contents.signed_header, last, len(contents.entries)), key)
    # as bytes: compare_digest refuses str with non-ASCII characters (a tampered signature may have them)
    return VERIFIED if hmac.compare_digest(expected.encode(), contents.signature.encode()) else UNVERIFIED


def mark_unverified_import(contents: LogContents, status: str) -> LogContents:
    """`contents` with a note appended that names where its entries came from and that the
    export's signature was not verified, so that the log it is imported into says so for good."""
    numbers = [e.seq for e in contents.entries]
    why = (
        "carried no signature"
        if status == MISSING
        else "was damaged, so its signature could not be checked"
        if contents.signature == DAMAGED_EXPORT
        else "had a signature this referee cannot verify"
    )
    return contents.with_note(
        f"imported from {contents.path}, which {why}",
        {UNVERIFIED_IMPORT: {"from": str(contents.path), "signature": status, "entries": numbers}},
    )


def unverified_imports(contents: LogContents) -> list[dict[str, Any]]:
    """The notes of `contents` that mark an import whose signature was not verified: each
    `{"from": PATH, "signature": "unverified" | "missing", "entries": [...], "note": SEQ}`."""
    found = []
    for entry in contents.entries:
        marked = entry.payload.get(UNVERIFIED_IMPORT) if entry.kind == "note" else None
        if isinstance(marked, dict):
            numbers = marked.get("entries")
            found.append(
                {
                    "from": str(marked.get("from")),
                    "signature": str(marked.get("signature")),
                    "entries": [n for n in numbers if isinstance(n, int)] if isinstance(numbers, list) else [],
                    "note": entry.seq,
                }
            )
    return found
