"""`referee play GAME`: keep the score of a real table by typing what happens.

A thin layer over `referee.scorekeeper.Scorekeeper`: it builds the setup from the options (or a
YAML block at the top of a script), then feeds it lines from the keyboard or a script file.
"""

from __future__ import annotations

import copy
import json
import sys
import time as clock
from collections.abc import Iterator
from typing import Any, TextIO

import click

from referee.core import RefereeError, UnknownGame, get_engine
from referee.scorekeeper import Outcome, Scorekeeper
from referee.secrecy import UnknownViewer, resolve_viewer
from referee.sessionlog import (
    EXIT_CORRUPT,
    EXIT_OK,
    EXIT_UNREADABLE,
    EXIT_USAGE,
    EXIT_VIOLATION,
    LogCorrupt,
    LogError,
    LogExists,
    LogUnreadable,
    LogUnsigned,
    read_log,
)
from referee.voice import say_error_parts, say_events, waiting_phrase
from tablereferee.commands._errors import echo_error
from tablereferee.paths import default_session_path
from tablereferee.scripts import read_script  # the script loader: a BadScript ends the command, exit 2
from tablereferee.signing import load_key_or_none


def parse_players(text: str) -> list[str]:
    players = [p.strip() for p in text.split(",") if p.strip()]
    if not players:
        raise click.BadParameter("name the players in seat order: --players Ann,Bob,Cid,Dee")
    return players


def parse_teams(text: str) -> dict[str, list[str]]:
    """'Red=Ann,Cid;Blue=Bob,Dee' -> {"Red": ["Ann", "Cid"], "Blue": ["Bob", "Dee"]}."""
    teams: dict[str, list[str]] = {}
    for part in text.split(";"):
        if not part.strip():
            continue
        name, sep, members = part.partition("=")
        if not sep or not name.strip():
            raise click.BadParameter(f"{part.strip()!r}: write a team as NAME=Player,Player")
        if name.strip() in teams:
            raise click.BadParameter(f"team {name.strip()!r} is named twice")
        teams[name.strip()] = parse_players(members)
    if not teams:
        raise click.BadParameter("no team given")
    return teams


def parse_option(text: str) -> tuple[str, Any]:
    """'key=value': the value is read as JSON when it is JSON (true, 3, "x", [1,2]), else a string."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise click.BadParameter(f"{text!r}: write an option as key=value")
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError:
        parsed = value.strip()
    return key.strip(), parsed


def build_setup(
    base: dict[str, Any],
    players: str | None,
    teams: str | None,
    options: tuple[str, ...],
    variant: str | None,
    seed: int | None,
) -> dict[str, Any]:
    """The setup dict: a script's block, overridden by the command-line options."""
    setup = dict(base)
    if isinstance(setup.get("players"), str):
        setup["players"] = parse_players(setup["players"])
    if isinstance(setup.get("teams"), str):
        setup["teams"] = parse_teams(setup["teams"])
    opts = dict(setup.get("options") or {})
    if "variant" in setup:  # shorthand in a setup block too
        opts.setdefault("variant", setup.pop("variant"))
    if players:
        setup["players"] = parse_players(players)
    if teams:
        setup["teams"] = parse_teams(teams)
    for text in options:
        key, value = parse_option(text)
        opts[key] = value
    if variant:
        opts["variant"] = variant
    setup["options"] = opts
    if seed is not None:
        setup["seed"] = seed
    if not setup.get("players"):
        raise click.UsageError("name the players in seat order: --players Ann,Bob,Cid,Dee (or players: in a script)")
    return setup


def show_outcome(outcome: Outcome, keeper: Scorekeeper, *, where: str, quiet: bool) -> None:
    """What one line did, in the referee's words (`referee.voice`), as the keeper's viewer may
    see it: a refusal by its rule's name with the reason and what to do, an action by what it
    made happen, one sentence per event, then the table and what the referee waits for."""
    if not outcome.accepted:
        error = outcome.error
        if error is None:
            click.echo(f"{where}rejected: {outcome.message}")
            return
        reason, advice = say_error_parts(error)
        click.echo(f"{where}rejected: {error.name}: {reason}")
        if advice:
            click.echo(f"  {advice}")
        return
    if outcome.command in ("action", "correction"):
        assert outcome.entry is not None
        label = outcome.label or outcome.line.strip() or outcome.command
        sentences = say_events(keeper.engine, outcome.events, keeper.viewer, state=keeper.state)
        click.echo(f"#{outcome.entry.seq} {label}" + ("" if sentences else ": ok"))
        for sentence in sentences:
            click.echo(f"  {sentence}")
        if not quiet:
            _table(keeper)
    elif outcome.command in ("note",):
        click.echo(outcome.message)
    elif outcome.command == "show":
        _table(keeper)
    elif outcome.command in ("help", "history"):
        click.echo(outcome.message)


def _table(keeper: Scorekeeper) -> None:
    """The table, and what the referee waits for with the command to type (unless the table
    already says it)."""
    table = keeper.table()
    click.echo(table)
    if keeper.state.is_over or not callable(getattr(keeper.state, "waiting_for", None)):
        return
    phrase = waiting_phrase(keeper.engine, keeper.state, keeper.viewer)
    if phrase not in table:
        click.echo(f"next: {phrase}")


def read_lines(stream: TextIO, interactive: bool) -> Iterator[tuple[int, str]]:
    number = 0
    while True:
        if interactive:
            try:
                line = input("> ")
            except EOFError:
                return
        else:
            line = stream.readline()
            if not line:
                return
        number += 1
        yield number, line.rstrip("\n")


@click.command("play")
@click.argument("game", required=False)
@click.option("--players", help="Players in seat order: Nicola,Simona,Claudia,...")
@click.option("--teams", help='Teams: "Red=Nicola,Claudia;Blue=Simona,Federico".')
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE", help="A table option (repeatable).")
@click.option("--variant", help="Shorthand for --option variant=NAME.")
@click.option("--seed", type=int, help="Seed of a simulated deal (full knowledge).")
@click.option(
    "--log",
    "log_path",
    type=click.Path(dir_okay=False, path_type=str),
    help="The session log to write (default: sessions/<game>-<time>.db).",
)
@click.option(
    "--script",
    type=click.Path(exists=True, dir_okay=False, path_type=str),
    help="Read the commands (and an optional '---' YAML setup block) from FILE.",
)
@click.option(
    "--resume",
    type=click.Path(dir_okay=False, path_type=str),
    help="Continue a log (SQLite: appended in place; JSON lines: imported into --log).",
)
@click.option(
    "--accept-unsigned",
    is_flag=True,
    help="With --resume, import an export whose entries carry no checksum, or whose signature this "
    "referee cannot verify (another referee's, re-signed, or none); the new log says so.",
)
@click.option("--stop-on-error", is_flag=True, help="In a script, stop at the first rejected line.")
@click.option("--quiet", is_flag=True, help="Show the table only at the start and the end.")
@click.option(
    "--view",
    "view",
    metavar="PLAYER|TEAM|all",
    help="Show the table as this player or team sees it, or 'all' (the referee's full record: every "
    "hand and signal). Default: the public view, for a screen the whole table sees.",
)
def command(
    game: str | None,
    players: str | None,
    teams: str | None,
    options: tuple[str, ...],
    variant: str | None,
    seed: int | None,
    log_path: str | None,
    script: str | None,
    resume: str | None,
    accept_unsigned: bool,
    stop_on_error: bool,
    quiet: bool,
    view: str | None,
) -> None:
    """Keep the score of GAME (beccato, beccaccino, bestia) at a real table.

    Type the game's commands ('help' lists them) plus undo, amend N, note, history, show,
    quit. Every accepted line is saved to the log before anything is printed.

    The screen shows the public view: no hand, no team's signal, no card passed face down
    (the log keeps them all); --view names another.

    \b
    Exit codes: 0 done; 1 a script line was rejected; 2 bad options or table setup;
    3 the log to resume is unreadable, cannot be written, or is an export without checksums
    or without a signature this referee verifies (and no --accept-unsigned); 4 the log to
    resume is damaged.
    """
    now = clock.time()
    base: dict[str, Any] = {}
    commands: list[tuple[int, str]] | None = None
    if script:
        base, commands = read_script(script)
    try:
        if resume:
            if players or teams or options or variant or seed is not None or (script and base):
                raise click.UsageError("--resume takes the table setup from the log; drop the setup options")
            target = log_path or None
            if target is None and not _is_sqlite(resume):
                target = str(default_session_path(_game_of(resume) or game or "game", now, suffix=".db"))
            key = None if _is_sqlite(resume) else load_key_or_none()[0]  # no key: nothing verifies
            keeper = Scorekeeper.resume(resume, log_path=target, game=game, accept_unsigned=accept_unsigned, key=key)
        else:
            if not game:
                raise click.UsageError("name the game: referee play beccato --players ...")
            setup = build_setup(base, players, teams, options, variant, seed)
            if view:  # an unknown --view is refused before any log is made
                resolve_viewer(view, get_engine(game).new_game(copy.deepcopy(setup)))
            path = log_path or str(default_session_path(game.strip().lower(), now, suffix=".db"))
            keeper = Scorekeeper.start(game, setup, path, time=now)
    except UnknownGame as error:
        echo_error(error)
        sys.exit(EXIT_USAGE)
    except LogCorrupt as error:
        click.echo(
            f"error: {error}; export the intact entries with: referee export --salvage {resume} OUT.jsonl", err=True
        )
        sys.exit(EXIT_CORRUPT)
    except (LogUnreadable, LogUnsigned) as error:  # LogReadOnly: a log this user cannot write
        echo_error(error)
        sys.exit(EXIT_UNREADABLE)
    except LogExists as error:
        echo_error(error)
        sys.exit(EXIT_USAGE)
    except RefereeError as error:  # the engine refused the setup, or a resumed log is illegal
        echo_error(error)
        sys.exit(EXIT_USAGE if not resume else EXIT_VIOLATION)
    try:
        keeper.show_as(view)
    except UnknownViewer as error:
        keeper.close()
        echo_error(error)
        sys.exit(EXIT_USAGE)

    interactive = script is None and sys.stdin.isatty()
    click.echo(f"{keeper.engine.name} (engine {keeper.engine.version}); log: {keeper.log.path}")
    if interactive:
        click.echo("type 'help' for the commands")
    _table(keeper)
    source = "script" if script else "keyboard"
    rejected = 0
    accepted = 0
    try:
        feed = iter(commands) if commands is not None else read_lines(sys.stdin, interactive)
        for number, line in feed:
            outcome = keeper.submit(line, time=clock.time(), source=source)
            where = f"line {number}: " if script else ""
            show_outcome(outcome, keeper, where=where, quiet=quiet)
            if outcome.quit:
                break
            if not outcome.accepted:
                rejected += 1
                if script and stop_on_error:
                    break
            elif outcome.entry is not None:
                accepted += 1
    except KeyboardInterrupt:
        click.echo("")
    finally:
        keeper.close()
    if quiet:
        click.echo(keeper.table())
    click.echo(f"{accepted} entries saved to {keeper.log.path}" + (f"; {rejected} lines rejected" if rejected else ""))
    sys.exit(EXIT_VIOLATION if script and rejected else EXIT_OK)


def _game_of(path: str) -> str | None:
    """The game named in a log's header, or None when it cannot be read (resume says why)."""
    try:
        return read_log(path).header.game
    except LogError as error:
        return error.header.game if isinstance(error, LogCorrupt) and error.header else None


def _is_sqlite(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False
