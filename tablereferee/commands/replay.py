"""`referee replay SESSION`: referee a recorded session again and compare with what it logged.

By default the perception runs again over the recorded video and audio (with the models and
options of today, or those given), and the new log is compared entry by entry with the
session's own: `same log` means every observation, decision and action came out identical;
`same actions` that the refereed game is the same even if some observation differs (a newer
model read a card with another confidence). `--reuse` perceives nothing: the observations
stored in the log go through the fusion rules again.

Every gap in the recorded video (a missing, unreadable or cut segment, a lost camera) is named
before the comparison ("gap: camera cards: no video from 4.0 s to 8.1 s (...)", and
`video_gaps` in the JSON): a replay never skips video without a word. A session with no
readable video is said so; with nothing at all to replay (no video, no sound, no typed line)
the replay is refused (`NothingToReplay`).

Exit codes: 0 the refereed game is the same (or there was no log to compare with), 1 the
actions differ, 3 the session folder is unreadable or holds nothing to replay.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from referee.core import RefereeError
from tablereferee.commands._errors import exit_on_error
from tablereferee.commands._options import low_memory_option


class NothingToReplay(RefereeError):
    """A session folder with no readable video, no sound and no typed line: nothing to perceive."""


@click.command("replay")
@click.argument("session", type=click.Path(file_okay=False))
@click.option("--out", type=click.Path(file_okay=False), help="where to write the replay (default SESSION-replay-N)")
@click.option("--reuse", is_flag=True, help="reuse the stored observations instead of perceiving again")
@click.option("--finder", type=click.Choice(["detector", "detector+outline", "contour"]), help="how cards are found")
@click.option("--model", type=click.Path(dir_okay=False), help="another card detector ONNX model")
@click.option("--threshold", type=float)
@click.option("--threads", type=int, default=None)
@low_memory_option("; not with --reuse")
@click.option("--quiet", is_flag=True, help="print only the comparison")
@click.option("--json", "as_json", is_flag=True, help="print the comparison as JSON")
def command(session, out, reuse, finder, model, threshold, threads, low_memory, quiet, as_json):
    """Re-run the perception over a recorded session and reproduce the refereed game."""
    from tablereferee.recording.folder import SessionFolder  # deferred: loads NumPy; --help starts without it
    from tablereferee.run import (  # deferred: loads OpenCV; --help starts without it
        TableConfig,
        compare_logs,
        run_recorded,
    )

    if reuse and low_memory:
        raise click.UsageError("--low-memory has nothing to do with --reuse (no model is loaded): use one or the other")
    with exit_on_error():
        src = SessionFolder.open(session)
        if reuse and not src.log_path.is_file():
            raise RefereeError(f"{session} has no log to reuse")
        config = TableConfig.from_manifest(src.manifest, finder=finder, model=model, threshold=threshold)
        gaps, notes = [], []
        if not reuse:
            if not src.cameras_with_video():
                if not src.has_audio() and not src.inputs():
                    raise NothingToReplay(
                        f"{session} holds no readable video, no sound and no typed line "
                        f"(cameras: {', '.join(src.camera_names()) or 'none'})"
                    )
                notes.append("no readable video in this session: the replay perceives only its sound and typed lines")
            gaps = src.video_gaps()
        if out is None:
            n = 1
            while Path(f"{src.path}-replay-{n}").exists():
                n += 1
            out = f"{src.path}-replay-{n}"
        echo = None if (quiet or as_json) else (lambda d: d.kind != "cards" and click.echo(f"{d.t:7.2f}  {d.message}"))
        result = run_recorded(
            src.path, out, config, reuse=reuse, threads=threads, echo=echo, one_kind_at_a_time=low_memory
        )
    result.session.close()
    report = {
        "replay": str(result.folder.path),
        **result.summary(),
        "video_gaps": [g.to_dict() for g in gaps],
        "notes": notes,
    }
    code = 0
    if src.log_path.is_file():
        cmp = compare_logs(src.log_path, result.folder.log_path)
        report["comparison"] = cmp
        code = 0 if cmp["same_actions"] else 1
    if as_json:
        click.echo(json.dumps(report, indent=1, default=str))
    else:
        if not quiet:
            click.echo(result.session.engine.render(result.session.state))
        click.echo(f"replay: {result.folder.path}  ({result.seconds:.1f} s for {result.duration:.1f} s of session)")
        for note in notes:
            click.echo(f"note: {note}")
        for g in gaps:
            click.echo(f"gap: {g.describe()}")
        if "comparison" in report:
            cmp = report["comparison"]
            if cmp["same_log"]:
                click.echo(f"same log as {src.log_path}: {cmp['entries'][0]} entries, {cmp['actions'][0]} actions")
            else:
                d = cmp["first_difference"]
                click.echo(
                    f"the logs differ from entry {d['entry']} "
                    f"({cmp['entries'][0]} vs {cmp['entries'][1]} entries); "
                    f"{'same' if cmp['same_actions'] else 'DIFFERENT'} actions"
                )
                for a in cmp["only_original"]:
                    click.echo(f"  only in the original: {a}")
                for a in cmp["only_replay"]:
                    click.echo(f"  only in the replay:   {a}")
    sys.exit(code)
