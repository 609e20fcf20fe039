"""`referee ask SESSION --player P --signal S --from T0 --to T1`: did P give S between T0 and T1?

Answered from the landmarks the run kept (nothing is run again on a session that has them):
the first line is the word `yes`, `no` or `unsure`, then the evidence: what the detector judges
against its line, the closest moment, the signals seen. The frame of closest approach (drawn),
the plot of the measure and the answer as JSON are written to `--out` (default
SESSION/questions/PLAYER-SIGNAL-T0-T1/).

Exit codes: 0 answered (whatever the word); 2 a question that cannot be asked (an unknown
signal or player, an empty window); 3 a session that cannot be read or nothing seen then.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from tablereferee.commands._errors import BY_KIND, CommandError
from tablereferee.commands._options import FiniteFloat


@click.command("ask")
@click.argument("session", type=click.Path(file_okay=False))
@click.option("--player", required=True, help="the player asked about (a seat of the session)")
@click.option("--signal", required=True, help="a signal id of the catalogue, e.g. touch_nose_left")
@click.option("--from", "start", type=FiniteFloat(min=0), required=True, help="session seconds")
@click.option("--to", "end", type=FiniteFloat(min=0), required=True, help="session seconds")
@click.option("--out", type=click.Path(file_okay=False), help="folder for the picture, the plot and the answer")
@click.option("--json", "as_json", is_flag=True, help="print the answer as JSON")
def command(session, player, signal, start, end, out, as_json):
    """Did PLAYER give SIGNAL between --from and --to? yes, no or unsure, with the evidence."""
    from referee.core import RefereeError  # deferred: the answer's imports load OpenCV and MediaPipe's types
    from tablereferee.review.ask import answer_question  # deferred: as above
    from vision.evidence import QuestionError  # deferred: as above

    target = Path(out) if out else Path(session) / "questions" / f"{player}-{signal}-{start:g}-{end:g}"

    def progress(done: int, total: int) -> None:  # a session whose run kept no landmarks
        if done == 1 or done == total or done % 25 == 0:
            click.echo(f"finding the landmarks again from the video: {done} of {total} frames", err=True)

    try:
        answer, files = answer_question(session, player, signal, start, end, target, progress)
    except QuestionError as exc:
        raise CommandError(exc, 2, as_json) from None
    except RefereeError as exc:
        raise CommandError(exc, BY_KIND, as_json) from None
    if as_json:
        click.echo(json.dumps({**answer.to_dict(), "files": files}, indent=1))
        return
    for line in answer.lines():
        click.echo(line)
    click.echo(f"landmarks: {files['landmarks']} (camera {files['camera']})")
    for what in ("picture", "plot", "answer"):
        if what in files:
            click.echo(f"{what}: {files[what]}")
