"""`referee check LOG`: replay a session log (SQLite or JSON lines) and say whether it is legal."""

from __future__ import annotations

import json
import sys
from typing import Any, NoReturn

import click

from referee.core import RefereeError, UnknownGame, jsonable
from referee.secrecy import UnknownViewer, render, resolve_viewer, shared_copy_marker, state_json
from referee.sessionlog import (
    EXIT_CORRUPT,
    EXIT_OK,
    EXIT_UNREADABLE,
    EXIT_USAGE,
    EXIT_VIOLATION,
    LogContents,
    LogCorrupt,
    LogError,
    LogUnreadable,
    Replay,
    describe_entries,
    first_event_difference,
    log_format,
    read_log,
    replay,
    signature_status,
    unsigned_entries,
    unverified_imports,
)
from referee.sessionlog.signature import LOCAL, UNVERIFIED, as_damaged_export, describe_status
from referee.tricks.policies import HIDDEN_DETAILS
from tablereferee.commands._errors import echo_error
from tablereferee.signing import load_key_or_none


def _summary(result: Replay) -> dict[str, Any]:
    return {
        "game": result.header.game,
        "engine_version": result.engine.version,
        "log_engine_version": result.header.engine_version,
        "entries": result.entries,
        "actions": result.applied,
        "is_over": bool(result.state.is_over),
    }


@click.command("check")
@click.argument("log", type=click.Path(dir_okay=False, path_type=str))
@click.option("--json", "as_json", is_flag=True, help="Print the result and the final state as JSON.")
@click.option(
    "--events",
    "compare_events",
    is_flag=True,
    help="Also require every entry's recorded events to be what the engine answers now.",
)
@click.option(
    "--view",
    "view",
    metavar="PLAYER|TEAM|all",
    help="Show the state as this player or team may see it, or 'all' (the referee's full record: "
    "hands, signals, the seed). Default: the public view.",
)
def command(log: str, as_json: bool, compare_events: bool, view: str | None) -> None:
    """Replay LOG and print the final state, or the first violation with its entry index.
    The state is the public view (no hand, no team's signal) unless --view names another.

    \b
    Exit codes: 0 legal; 1 an entry breaks the rules, or with --events answers other events
    than recorded (its index and name are printed);
    3 unreadable (missing, not a session log, unknown format version or game);
    4 damaged (the entries before the damage are replayed and reported, with how many saved
    entries are lost when the entry count beside the log says).
    A legal log says also when its end cannot be verified (no entry count beside it) and which
    entries are unsigned (an export without checksums, or a log imported from one). An export
    says whether it is signed by this referee (its key: $TABLE_REFEREE_KEY_FILE, else
    ~/.config/table-referee/signing.key), signed with a key this referee does not hold (another
    referee's, or re-signed after an edit: it cannot be verified here), or unsigned.
    """
    corrupt: LogCorrupt | None = None
    try:
        contents = read_log(log)
    except LogUnreadable as error:
        _fail(error, as_json, EXIT_UNREADABLE)
    except LogCorrupt as error:
        if error.header is None:
            _fail(error, as_json, EXIT_CORRUPT)
        corrupt = error
        contents = LogContents(header=error.header, entries=error.entries, path=log)
        if log_format(log) == "jsonl":  # the signature covers the whole export, not the part kept
            contents = as_damaged_export(contents)
    except LogError as error:
        _fail(error, as_json, EXIT_UNREADABLE)
    try:
        result = replay(contents, keep_events=compare_events)
    except UnknownGame as error:
        _fail(error, as_json, EXIT_UNREADABLE)
    except RefereeError as error:  # e.g. a setup the engine refuses
        if as_json:
            click.echo(json.dumps({"legal": False, "entry": 0, "violation": error.name, "message": error.message}))
        else:
            click.echo(f"entry 0 (setup): {error}")
        sys.exit(EXIT_VIOLATION)

    try:
        viewer = resolve_viewer(view, result.state)
    except UnknownViewer as error:
        _fail(error, as_json, EXIT_USAGE)
    shared = shared_copy_marker(log)
    if compare_events and result.legal:
        difference = first_event_difference(contents, result)
        if difference is not None:
            result.violation, result.violation_entry = difference, difference.details["entry"]
    if result.header.engine_version != result.engine.version:
        click.echo(
            f"warning: the log was written by {result.header.game} engine {result.header.engine_version}, "
            f"replayed with {result.engine.version}",
            err=True,
        )
    report: dict[str, Any] = {"legal": result.legal and corrupt is None, "log": log, **_summary(result)}
    if shared is not None:
        report["shared_copy"] = shared
    caveats = _caveats(contents, report)
    if corrupt is not None:
        report.update(corrupt.to_dict())
        report["intact_replay_legal"] = result.legal
    if not result.legal:
        violation = result.violation
        assert violation is not None
        report.update(
            {
                "entry": result.violation_entry,
                "violation": violation.name,
                "message": violation.message,
                "details": {
                    k: v for k, v in jsonable(violation.details).items() if viewer.everything or k not in _HAND_DETAILS
                },
            }
        )
    if as_json:
        report["view"] = viewer.name or "public"
        report["state"] = state_json(result.engine, result.state, viewer)
        click.echo(json.dumps(report, ensure_ascii=False, sort_keys=True))
    else:
        if corrupt is not None:
            click.echo(f"{corrupt}; replaying the {len(corrupt.entries)} entries before the damage")
        if shared is not None:
            click.echo(
                f"a copy shared as {shared['view']!r}, leaving out: {', '.join(shared['left_out'])}; "
                + (
                    "replayed as the public record (the referee's log holds the rest)"
                    if result.legal
                    else f"entry {result.violation_entry} may need what it leaves out: check the referee's log"
                )
            )
        if not result.legal:
            click.echo(f"entry {result.violation_entry}: {result.violation}")
        elif corrupt is None:
            click.echo(
                f"legal: {result.entries} entries, {result.applied} actions in effect"
                + (", game over" if result.state.is_over else "")
                + "".join(f"; {caveat}" for caveat in caveats)
            )
        if (corrupt is not None or not result.legal) and report["signature"] != LOCAL:
            click.echo(f"signature: {describe_status(contents, report['signature'])}")
        click.echo(render(result.engine, result.state, viewer))
    if corrupt is not None:
        sys.exit(EXIT_CORRUPT)
    sys.exit(EXIT_OK if result.legal else EXIT_VIOLATION)


def _caveats(contents: LogContents, report: dict[str, Any]) -> list[str]:
    """What a legal replay does not prove about this log, in words (and in the JSON report)."""
    caveats = []
    report["end_verified"] = contents.format == "sqlite" and contents.committed is not None
    if contents.format == "sqlite" and contents.count_problem:
        report["count_problem"] = contents.count_problem
        caveats.append(f"unverified end: {contents.count_problem}, so entries lost from the end would not show")
    unsigned = unsigned_entries(contents)
    report["unsigned_entries"] = unsigned
    if unsigned:
        caveats.append(
            f"unsigned: {describe_entries(unsigned)} came without a checksum, so nothing shows whether they were edited"
        )
    key, key_problem = load_key_or_none() if contents.format == "jsonl" else (None, None)
    signature = signature_status(contents, key)
    report["signature"] = signature
    if signature != LOCAL:
        caveats.append(describe_status(contents, signature))
    if key_problem is not None and signature == UNVERIFIED:
        report["key_problem"] = key_problem.message
        caveats.append(f"no signing key to verify with: {key_problem.message}")
    imports = unverified_imports(contents)
    report["unverified_imports"] = imports
    for marked in imports:
        caveats.append(
            f"imported unverified: {describe_entries(marked['entries'])} came from {marked['from']}, whose "
            f"signature was {marked['signature']} (note {marked['note']})"
            if marked["entries"]
            else f"imported unverified from {marked['from']} (note {marked['note']})"
        )
    return caveats


# a violation's details that name the cards a player holds: the hand, or the card a rule required
_HAND_DETAILS = ("hand", "hands", *HIDDEN_DETAILS)


def _fail(error: RefereeError, as_json: bool, code: int) -> NoReturn:
    if as_json:
        click.echo(json.dumps(error.to_dict(), ensure_ascii=False))
    else:
        echo_error(error)
    sys.exit(code)
