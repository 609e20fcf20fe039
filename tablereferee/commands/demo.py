"""`referee demo`: the whole pipeline on the bundled recorded session, no camera needed.

Referees `datasets/demo/` (two cameras, a microphone and the scorekeeper's typed calls; see its
README: rendered card scenes and a real Apache-2.0 clip), prints the refereed game, writes the
session folder (default sessions/demo-<UTC time>/) and a dispute package for the first reveal,
and checks the result against the composition's ground truth (`expected.json`).

Exit codes: 0 the refereed game is the expected one, 1 it is not, 3 the demo cannot run.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from referee.core import Engine, RefereeError
from referee.secrecy import describe_action, public_action
from tablereferee.commands._errors import exit_on_error
from tablereferee.commands._options import low_memory_option
from tablereferee.paths import default_session_path

# datasets/demo/ in the repository, tablereferee/datasets/demo/ in an installed wheel (setup.py)
_PACKAGED_DEMO = Path(__file__).resolve().parents[1] / "datasets" / "demo"
DEMO = _PACKAGED_DEMO if _PACKAGED_DEMO.is_dir() else Path(__file__).resolve().parents[2] / "datasets" / "demo"


@click.command("demo")
@click.option("--out", type=click.Path(file_okay=False), help="session folder (default sessions/demo-TIME)")
@click.option(
    "--source",
    type=click.Path(file_okay=False),
    default=str(DEMO),
    show_default=False,
    help="the recorded session to referee (default: the bundled demo)",
)
@click.option("--finder", type=click.Choice(["detector", "detector+outline", "contour"]), help="how cards are found")
@click.option("--model", type=click.Path(dir_okay=False), help="card detector ONNX model")
@click.option("--threads", type=int, default=None)
@click.option("--no-clip", is_flag=True, help="do not cut the dispute clip")
@low_memory_option()
@click.option("--quiet", is_flag=True, help="print only the result")
@click.option("--serve", is_flag=True, help="then open the refereed session in the browser (docs/web.md)")
@click.option("--host", default="127.0.0.1", show_default=True, help="with --serve: the address to listen on")
@click.option("--port", default=8000, show_default=True, type=int, help="with --serve: the port (0: a free one)")
def command(out, source, finder, model, threads, no_clip, low_memory, quiet, serve, host, port):
    """Run the live-table pipeline on the bundled demo session."""
    from tablereferee.recording.clip import make_dispute  # deferred: loads OpenCV; --help starts without it
    from tablereferee.recording.folder import SessionFolder  # deferred: loads NumPy; --help starts without it
    from tablereferee.run import TableConfig, run_recorded  # deferred: loads OpenCV; --help starts without it

    with exit_on_error():
        src = SessionFolder.open(source)
        config = TableConfig.from_manifest(src.manifest, finder=finder, model=model)
        out_dir = Path(out) if out else default_session_path("demo")
        if not quiet:
            click.echo(
                f"refereeing {src.path} ({config.game}, players {', '.join(config.setup['players'])}; "
                f"cards found by the {config.finder} finder, read against the {config.deck} templates)"
            )
        echo = None if quiet else (lambda d: d.kind != "cards" and click.echo(f"{d.t:7.2f}  {d.message}"))
        result = run_recorded(src.path, out_dir, config, threads=threads, echo=echo, one_kind_at_a_time=low_memory)
    session = result.session
    click.echo("")
    click.echo(session.engine.render(session.state))
    click.echo(
        f"\nsession folder: {result.folder.path}   ({result.seconds:.1f} s to referee "
        f"{result.duration:.1f} s of recording: {result.seconds / max(result.duration, 1e-9):.2f}x real time)"
    )
    actions = [{"source": e.source, **e.payload["action"]} for e in session.log.entries if e.kind == "action"]
    code = 0
    expected_file = src.path / "expected.json"
    if expected_file.is_file():
        expected = json.loads(expected_file.read_text(encoding="utf-8"))
        if actions == expected["actions"]:
            click.echo(f"result: as expected ({len(actions)} actions, the composition's ground truth)")
        else:
            code = 1
            click.echo("result: NOT as expected")
            for a in expected["actions"]:
                if a not in actions:
                    click.echo(f"  missed: {shown_action(session.engine, a)}")
            for a in actions:
                if a not in expected["actions"]:
                    click.echo(f"  extra:  {shown_action(session.engine, a)}")
    if not no_clip:
        target = next(
            (
                e.seq
                for e in session.log.entries
                if e.kind == "action" and e.payload["action"].get("kind") in ("reveal", "play")
            ),
            None,
        )
        target = target or next((e.seq for e in session.log.entries if e.kind == "action"), None)
        if target is not None:
            try:
                package = make_dispute(result.folder.path, target)
                click.echo(
                    f"dispute package for entry {target}: {package['folder']} "
                    f"(clip.mp4, excerpt.jsonl, reasoning.md, package.json)"
                )
                for line in package["video_gap_lines"]:
                    click.echo(f"  gap: {line}")
                if not package["moment_in_video"]:
                    click.echo(f"dispute clip: {package['not_in_video']}", err=True)
            except RefereeError as exc:
                click.echo(f"dispute clip: {exc}", err=True)
    if serve:
        served(session.sk, host, port)
    session.close()
    sys.exit(code)


def served(keeper, host: str, port: int) -> None:
    """The refereed demo on the table screen and the phones: the same log, going on from where
    the recording ended (lines typed here, calls from the phones)."""
    from tablereferee.commands.serve import serve  # deferred: only a served table loads the web stack
    from tablereferee.web.hub import TableHub  # deferred: only a served table loads the web stack

    click.echo("")
    serve(TableHub(keeper), host, port)


def shown_action(engine: Engine, action: dict[str, Any]) -> str:
    """A logged action as the table may read it: in the scorekeeper's words, public (a card
    passed face down or a new signal is said hidden, not named), with where it came from."""
    bare = {k: v for k, v in action.items() if k != "source"}
    public, hidden = public_action(engine, bare)
    return f"{describe_action(public, hidden)} (from the {action.get('source', 'table')})"
