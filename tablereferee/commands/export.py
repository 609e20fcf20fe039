"""`referee export LOG OUT`: write a session log in the shareable JSON-lines format (or back to SQLite)."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import click

from referee.core import Engine, RefereeError, get_engine
from referee.secrecy import (
    EVERYTHING,
    PUBLIC,
    UnknownViewer,
    Viewer,
    public_contents,
    resolve_viewer,
    write_shared_jsonl,
)
from referee.sessionlog import (
    EXIT_CORRUPT,
    EXIT_OK,
    EXIT_UNREADABLE,
    EXIT_USAGE,
    LogContents,
    LogCorrupt,
    LogError,
    LogUnreadable,
    LogUnsigned,
    LogUnverified,
    describe_entries,
    log_format,
    mark_unsigned_import,
    mark_unverified_import,
    read_log,
    sign_export,
    signature_status,
    write_sqlite,
)
from referee.sessionlog.signature import MISSING, UNVERIFIED, as_damaged_export, describe_status
from tablereferee.commands._errors import echo_error
from tablereferee.signing import SigningKeyUnreadable, load_key, load_key_or_none


@click.command("export")
@click.argument("log", type=click.Path(dir_okay=False, path_type=str))
@click.argument("out", type=click.Path(dir_okay=False, path_type=str))
@click.option(
    "--salvage",
    is_flag=True,
    help="From a damaged log, write the entries before the damage (and say where it is).",
)
@click.option(
    "--view",
    "view",
    metavar="PLAYER|TEAM|all",
    help="Whose copy: a player or team (what they may see), or 'all' (the referee's full record: hands, "
    "signals, the seed). Default: the public view for JSON lines, the full record for an SQLite log.",
)
@click.option(
    "--accept-unsigned",
    is_flag=True,
    help="Copy an export whose entries carry no checksum, or whose signature this referee cannot verify "
    "(another referee's, re-signed, or none); the copy says so.",
)
def command(log: str, out: str, salvage: bool, view: str | None, accept_unsigned: bool) -> None:
    """Copy LOG (SQLite or JSON lines) to OUT.

    OUT ending in .db or .sqlite is written as a new SQLite log (an import); anything else,
    or '-' for standard output, as JSON lines (docs/log-format.md). OUT must not exist.

    JSON lines are for sharing: by default they hold the public view (no seed or deal, no
    team's signal, no card passed face down; docs/secrets.md), and are signed with this
    referee's key ($TABLE_REFEREE_KEY_FILE, else ~/.config/table-referee/signing.key, made on
    first use), so that an edited copy cannot pass for one. An SQLite log is the referee's
    record and keeps everything unless --view names a viewer.

    \b
    Exit codes: 0 written; 3 unreadable LOG, OUT exists or cannot be written, no signing key,
    or LOG has entries without a checksum or an export's signature that this referee cannot
    verify, and no --accept-unsigned; 4 LOG is damaged (nothing written
    unless --salvage, which writes the intact entries, says how many saved entries are lost,
    and exits 0).
    """
    damage = None
    try:
        contents = read_log(log)
    except LogUnreadable as error:
        echo_error(error)
        sys.exit(EXIT_UNREADABLE)
    except LogCorrupt as error:
        if not salvage or error.header is None:
            echo_error(error)
            if error.header is not None:
                click.echo("use --salvage to export the entries before the damage", err=True)
            sys.exit(EXIT_CORRUPT)
        damage = f"exporting the {len(error.entries)} entries before the damage"
        echo_error(error)
        contents = LogContents(header=error.header, entries=error.entries, path=log)
        if log_format(log) == "jsonl":  # the signature covers the whole export, not the part kept
            contents = as_damaged_export(contents)
    except LogError as error:
        echo_error(error)
        sys.exit(EXIT_UNREADABLE)
    if contents.count_problem:
        click.echo(f"warning: {contents.count_problem}: entries lost from the end of {log} would not show", err=True)
    if contents.unsigned:
        if not accept_unsigned:
            refusal = LogUnsigned(
                f"{log}: {describe_entries(contents.unsigned)} carry no checksum, so nothing shows whether "
                "they were edited; copying would give them one (--accept-unsigned copies them and says so)"
            )
            echo_error(refusal)
            sys.exit(EXIT_UNREADABLE)
        contents = mark_unsigned_import(contents)
    signature = signature_status(contents, load_key_or_none()[0] if contents.format == "jsonl" else None)
    if signature in (UNVERIFIED, MISSING):
        if not accept_unsigned:
            refusal = LogUnverified(
                f"{log} is {describe_status(contents, signature)}; copying would sign it anew "
                "(--accept-unsigned copies it and says so)"
            )
            echo_error(refusal)
            sys.exit(EXIT_UNREADABLE)
        contents = mark_unverified_import(contents, signature)
    if damage is not None:
        click.echo(damage, err=True)
    sqlite_out = out != "-" and Path(out).suffix.lower() in (".db", ".sqlite", ".sqlite3")
    engine, viewer = _viewer(contents, view, sqlite_out)
    contents, left_out = public_contents(engine, contents, viewer)
    try:
        if sqlite_out:
            write_sqlite(contents, out).close()
        else:
            if out != "-" and Path(out).exists():
                click.echo(f"{out} already exists", err=True)
                sys.exit(EXIT_UNREADABLE)
            buffer = io.StringIO()
            write_shared_jsonl(contents, buffer, viewer, left_out)
            text = sign_export(buffer.getvalue(), contents, load_key())
            if out == "-":
                sys.stdout.write(text)
            else:
                with open(out, "x", encoding="utf-8", newline="\n") as handle:
                    handle.write(text)
    except (LogError, SigningKeyUnreadable) as error:
        echo_error(error)
        sys.exit(EXIT_UNREADABLE)
    except OSError as error:
        click.echo(f"error: LogWriteFailed: cannot write {out}: {error.strerror}", err=True)
        sys.exit(EXIT_UNREADABLE)
    if out != "-":
        click.echo(f"{len(contents.entries)} entries written to {out}", err=True)
    if left_out:
        click.echo(f"{viewer.describe()}: left out {', '.join(left_out)} (docs/secrets.md)", err=True)
    sys.exit(EXIT_OK)


def _viewer(contents: LogContents, view: str | None, sqlite_out: bool) -> tuple[Engine | None, Viewer]:
    """The engine of the log (None when this build has no such game: nothing is then known to
    be secret but the setup's seed, deals and signals) and the viewer the copy is for."""
    try:
        engine = get_engine(contents.header.game)
        state = engine.new_game(dict(contents.header.setup))
    except RefereeError:
        engine, state = None, None
    if view is None:
        return engine, EVERYTHING if sqlite_out else PUBLIC
    try:
        if state is None:
            if view.strip().lower() not in ("all", "public"):
                raise UnknownViewer(f"cannot name the players of {contents.header.game!r} to show {view!r}")
            return engine, EVERYTHING if view.strip().lower() == "all" else PUBLIC
        return engine, resolve_viewer(view, state)
    except UnknownViewer as error:
        echo_error(error)
        sys.exit(EXIT_USAGE)
