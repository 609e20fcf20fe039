"""`referee export LOG OUT`: write a session log in the shareable JSON-lines format (or back to SQLite)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from referee.sessionlog import (
    EXIT_CORRUPT,
    EXIT_OK,
    EXIT_UNREADABLE,
    LogContents,
    LogCorrupt,
    LogError,
    LogUnreadable,
    read_log,
    write_jsonl,
    write_sqlite,
)


@click.command("export")
@click.argument("log", type=click.Path(dir_okay=False, path_type=str))
@click.argument("out", type=click.Path(dir_okay=False, path_type=str))
@click.option(
    "--salvage",
    is_flag=True,
    help="From a damaged log, write the entries before the damage (and say where it is).",
)
def command(log: str, out: str, salvage: bool) -> None:
    """Copy LOG (SQLite or JSON lines) to OUT.

    OUT ending in .db or .sqlite is written as a new SQLite log (an import); anything else,
    or '-' for standard output, as JSON lines (docs/log-format.md). OUT must not exist.

    \b
    Exit codes: 0 written; 3 unreadable LOG or OUT exists; 4 LOG is damaged (nothing written
    unless --salvage, which writes the intact entries and exits 0).
    """
    try:
        contents = read_log(log)
    except LogUnreadable as error:
        click.echo(str(error), err=True)
        sys.exit(EXIT_UNREADABLE)
    except LogCorrupt as error:
        if not salvage or error.header is None:
            click.echo(str(error), err=True)
            if error.header is not None:
                click.echo("use --salvage to export the entries before the damage", err=True)
            sys.exit(EXIT_CORRUPT)
        click.echo(f"{error}; exporting the {len(error.entries)} entries before it", err=True)
        contents = LogContents(header=error.header, entries=error.entries, path=log)
    try:
        if out == "-":
            write_jsonl(contents, sys.stdout)
        elif Path(out).suffix.lower() in (".db", ".sqlite", ".sqlite3"):
            write_sqlite(contents, out).close()
        else:
            if Path(out).exists():
                click.echo(f"{out} already exists", err=True)
                sys.exit(EXIT_UNREADABLE)
            with open(out, "x", encoding="utf-8", newline="\n") as handle:
                write_jsonl(contents, handle)
    except LogError as error:
        click.echo(str(error), err=True)
        sys.exit(EXIT_UNREADABLE)
    if out != "-":
        click.echo(f"{len(contents.entries)} entries written to {out}", err=True)
    sys.exit(EXIT_OK)
