"""`referee clip SESSION --event N`: a dispute package for one entry of a recorded session.

Cuts the seconds before and after entry N (a call, a reveal, a signal, any entry) into an MP4
with the cards, zones, landmarks and signals drawn, and writes next to it the log excerpt, the
referee's reasoning, the confidences and the model versions (`tablereferee/recording/clip.py`).
"""

from __future__ import annotations

import click

from tablereferee.commands._errors import exit_on_error


@click.command("clip")
@click.argument("session", type=click.Path(file_okay=False))
@click.option("--event", "entry", type=int, required=True, help="the log entry number")
@click.option("--before", type=float, default=3.0, show_default=True, help="seconds before the entry")
@click.option("--after", type=float, default=3.0, show_default=True, help="seconds after the entry")
@click.option("--out", type=click.Path(file_okay=False), help="folder (default SESSION/disputes/entry-N)")
@click.option("--no-landmarks", is_flag=True, help="do not re-run MediaPipe to draw the landmarks")
def command(session, entry, before, after, out, no_landmarks):
    """Cut a dispute clip and package around one log entry."""
    from tablereferee.recording.clip import make_dispute  # deferred: loads OpenCV; --help starts without it

    with exit_on_error():
        result = make_dispute(session, entry, before, after, out, draw_landmarks=not no_landmarks)
    click.echo(f"dispute package: {result['folder']}")
    click.echo(
        f"  clip.mp4 ({result['clip_frames']} frames, {result['window'][0]:.1f}-{result['window'][1]:.1f} s),"
        f" excerpt.jsonl, reasoning.md, package.json"
    )
    for r in result["reasoning"]:
        click.echo(f"  {r.get('type')}: {r.get('reasoning') or r.get('reason')}")
