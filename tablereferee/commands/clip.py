"""`referee clip SESSION --event N` (or `--time T`): a dispute package for one moment of a session.

`--list` prints the events a dispute is about (calls, reveals, awards, corrections, signals,
the referee's decisions and questions, cameras lost), each with its entry number and session
time; `--time T` cuts the package of the listed entry nearest T seconds.

Cuts the seconds before and after entry N (a call, a reveal, a signal, any entry) into an MP4
with the cards, zones, landmarks and signals drawn, and writes next to it the log excerpt, the
referee's reasoning, the confidences and the model versions (`tablereferee/recording/clip.py`).
Every gap in the video of the window is named; the package is written whole or not at all, and
an existing one is replaced only with `--force`.

Exit codes: 0 the package shows the disputed moment; 1 the package is written but the disputed
moment is not in the video (the reason is printed and in `reasoning.md`); 2 an option that means
nothing (`--before -5`) or a package already there; 3 the session or the entry cannot be read.
"""

from __future__ import annotations

import sys

import click

from referee.core import RefereeError, get_engine
from referee.secrecy import EVERYTHING, PUBLIC, UnknownViewer, Viewer, resolve_viewer
from referee.sessionlog import read_log
from tablereferee.commands._errors import EXIT_UNREADABLE, EXIT_USAGE, echo_error, exit_on_error
from tablereferee.commands._options import FiniteFloat

EXIT_NOT_IN_VIDEO = 1


@click.command("clip")
@click.argument("session", type=click.Path(file_okay=False))
@click.option("--event", "entry", type=int, help="the log entry number (see --list)")
@click.option("--time", "at", type=FiniteFloat(min=0), help="session seconds: the event nearest that moment")
@click.option("--list", "listing", is_flag=True, help="list the events with their entry numbers and times")
@click.option("--before", type=float, default=3.0, show_default=True, help="seconds before the entry")
@click.option("--after", type=float, default=3.0, show_default=True, help="seconds after the entry")
@click.option("--out", type=click.Path(file_okay=False), help="folder (default SESSION/disputes/entry-N)")
@click.option("--force", is_flag=True, help="replace a package already at the target")
@click.option("--no-landmarks", is_flag=True, help="do not re-run MediaPipe to draw the landmarks")
@click.option(
    "--view",
    "view",
    metavar="PLAYER|TEAM|all",
    help="Whose package: a player or team (what they may see), or 'all' (the referee's full record: "
    "cards passed face down, signals). Default: the public view.",
)
def command(session, entry, at, listing, before, after, out, force, no_landmarks, view):
    """Cut a dispute clip and package around one log entry.

    The package shows the public view (no card passed face down, no team's signal) unless
    --view names another viewer."""
    from tablereferee.recording.clip import (  # deferred: loads OpenCV; --help starts without it
        MomentNotInVideo,
        PackageExists,
        check_window,
        entry_at,
        list_events,
        make_dispute,
    )

    if not listing and (entry is None) == (at is None):
        raise click.UsageError("give the moment: --event N or --time T (--list shows them)")
    with exit_on_error(EXIT_USAGE):
        check_window(before, after)
    with exit_on_error(EXIT_UNREADABLE):
        viewer = _viewer(session, view)
        if listing:
            for ev in list_events(session, viewer):
                click.echo(f"#{ev['entry']:<4} {ev['time']:7.2f} s  {ev['text']}")
            return
        if at is not None:
            entry = entry_at(session, at, viewer)
            click.echo(f"the event nearest {at:g} s is entry {entry}")
    try:
        result = make_dispute(
            session, entry, before, after, out, draw_landmarks=not no_landmarks, viewer=viewer, force=force
        )
    except RefereeError as exc:
        echo_error(exc)
        sys.exit(EXIT_USAGE if isinstance(exc, PackageExists) else EXIT_UNREADABLE)
    click.echo(f"dispute package: {result['folder']}")
    click.echo(
        f"  clip.mp4 ({result['clip_frames']} frames, {result['window'][0]:.1f}-{result['window'][1]:.1f} s),"
        f" excerpt.jsonl, reasoning.md, package.json"
    )
    for line in result["video_gap_lines"]:
        click.echo(f"  gap: {line}")
    for r in result["reasoning"]:
        click.echo(f"  {r.get('type')}: {r.get('reasoning') or r.get('reason')}")
    if not result["moment_in_video"]:
        echo_error(MomentNotInVideo(result["not_in_video"], entry=entry))
        sys.exit(EXIT_NOT_IN_VIDEO)


def _viewer(session: str, view: str | None) -> Viewer:
    """The viewer `--view` names (the public by default). A name other than 'all' or 'public'
    is looked up among the players and teams of the session's game: unknown, exit 2."""
    name = (view or "").strip().lower()
    if name in ("", "public"):
        return PUBLIC
    if name == "all":
        return EVERYTHING
    from tablereferee.recording.folder import SessionFolder  # deferred: loads NumPy; --help starts without it

    contents = read_log(SessionFolder.open(session).log_path)
    try:
        state = get_engine(contents.header.game).new_game(dict(contents.header.setup))
        return resolve_viewer(view, state)
    except UnknownViewer as exc:
        echo_error(exc)
        sys.exit(EXIT_USAGE)
