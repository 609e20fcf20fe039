"""`referee live`: referee a real table from its cameras, and record it.

    referee live --table table.json --camera cards=0 --camera people=1
    referee live --from datasets/demo --camera cards=datasets/demo/cameras/cards   # a recording as a camera
    referee live --from datasets/demo           # every camera of a recorded session, at its speed

The table (game, players, zones, body-signal calibration, options) comes from a JSON file in
the session-manifest format (`docs/live-table.md`) or from an earlier session (`--from`). Lines
typed on stdin are the scorekeeper's: calls (`coccode Anna`, `caught Dario Anna`),
confirmations (`yes 12`, `no 12`), corrections (`undo`), `quit`. Everything goes into a new
session folder (default: sessions/<game>-<UTC time>/).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from tablereferee.commands._errors import EXIT_UNREADABLE, exit_on_error
from tablereferee.paths import default_session_path

if TYPE_CHECKING:
    from referee.table.session import Decision
    from tablereferee.run import TableConfig

EXIT_OK, EXIT_USAGE = 0, 2


def load_table(table: str | None, from_session: str | None, **overrides: Any) -> TableConfig:
    from tablereferee.recording.folder import SessionFolder  # deferred: loads NumPy; --help starts without it
    from tablereferee.run import TableConfig  # deferred: loads OpenCV; --help starts without it

    if table:
        try:
            manifest = json.loads(Path(table).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise click.UsageError(f"cannot read the table file {table}: {exc}") from None
    elif from_session:
        manifest = SessionFolder.open(from_session).manifest
    else:
        raise click.UsageError("give the table: --table FILE or --from SESSION")
    return TableConfig.from_manifest(manifest, **overrides)


def print_decision(d: Decision) -> None:
    if d.kind == "cards":
        return
    click.echo(f"{d.t:7.2f}  {d.message}")
    sys.stdout.flush()  # a line printed is a line whose entry is already in the log


@click.command("live")
@click.option("--table", "table", type=click.Path(dir_okay=False), help="table file (session manifest JSON)")
@click.option("--from", "from_session", type=click.Path(file_okay=False), help="take the table from a session folder")
@click.option(
    "--camera",
    "cameras",
    multiple=True,
    metavar="NAME=SOURCE",
    help="a camera: webcam index, video file, stream URL or recorded camera folder (repeatable); "
    "default with --from: every camera recorded in that session, played at its speed",
)
@click.option("--out", type=click.Path(file_okay=False), help="session folder to write (default sessions/GAME-TIME)")
@click.option("--finder", type=click.Choice(["detector", "detector+outline", "contour"]), help="how cards are found")
@click.option("--model", type=click.Path(dir_okay=False), help="card detector ONNX model")
@click.option("--threshold", type=float, help="confidence under which the referee asks")
@click.option("--duration", type=float, help="stop after this many seconds")
@click.option("--threads", type=int, default=None, help="onnxruntime threads")
@click.option("--fast", is_flag=True, help="read video files as fast as possible instead of at their speed")
@click.option("--no-record", is_flag=True, help="do not record the video")
@click.option("--mic", "mic", default=None, help="table microphone: device index or name (recorded and listened to)")
@click.option(
    "--segment-seconds",
    type=float,
    default=10.0,
    show_default=True,
    help="length of the recorded video files, at least 0.5 (a crash loses only the last second or so of each camera)",
)
@click.option("--serve", is_flag=True, help="Serve the table's screen and the players' phones too (docs/web.md).")
@click.option("--host", default="127.0.0.1", show_default=True, help="With --serve: the address to listen on.")
@click.option("--port", default=8000, show_default=True, type=int, help="With --serve: the port (0: a free one).")
def command(
    table: str | None,
    from_session: str | None,
    cameras: tuple[str, ...],
    out: str | None,
    finder: str | None,
    model: str | None,
    threshold: float | None,
    duration: float | None,
    threads: int | None,
    fast: bool,
    no_record: bool,
    segment_seconds: float,
    mic: str | None,
    serve: bool,
    host: str,
    port: int,
) -> None:
    """Referee a live table from its cameras and the keyboard, and record the session."""
    from tablereferee.recording.folder import (  # deferred: loads NumPy; --help starts without it
        SessionFolder,
        check_segment_seconds,
    )
    from tablereferee.run import (  # deferred: loads OpenCV; --help starts without it
        check_cameras,
        check_duration,
        check_threshold,
        run_live,
    )

    with exit_on_error(EXIT_USAGE):  # nonsense is refused before anything opens or is written
        check_threshold(threshold)
        check_duration(duration)
        check_segment_seconds(segment_seconds)
    with exit_on_error(EXIT_UNREADABLE):
        config = load_table(table, from_session, finder=finder, model=model, threshold=threshold)
    specs: dict[str, int | str] = {}
    if not cameras and from_session:
        folder = SessionFolder.open(from_session)
        specs = {c: str(folder.camera_dir(c)) for c in folder.camera_names() if folder.camera_dir(c).is_dir()}
    if not cameras and not specs:
        raise click.UsageError("name at least one camera: --camera NAME=SOURCE (e.g. cards=0)")
    for item in cameras:
        name, sep, spec = item.partition("=")
        if not sep or not name or not spec:
            raise click.UsageError(f"{item!r}: write a camera as NAME=SOURCE (e.g. cards=0)")
        specs[name] = int(spec) if spec.isdigit() and not Path(spec).exists() else spec
    with exit_on_error(EXIT_USAGE):
        check_cameras(config, specs)
    out_dir = Path(out) if out else default_session_path(config.game)
    if serve:
        served(
            config,
            specs,
            out_dir,
            host,
            port,
            paced=not fast,
            duration=duration,
            threads=threads,
            record=not no_record,
            segment_seconds=segment_seconds,
            microphone=mic,
        )
        sys.exit(EXIT_OK)
    with exit_on_error(EXIT_UNREADABLE):
        result = run_live(
            specs,
            out_dir,
            config,
            keyboard=sys.stdin,
            paced=not fast,
            duration=duration,
            threads=threads,
            record=not no_record,
            echo=print_decision,
            segment_seconds=segment_seconds,
            microphone=mic,
        )
    result.session.close()
    click.echo(result.session.engine.render(result.session.state))
    click.echo(f"session: {result.folder.path}  ({json.dumps(result.summary())})")
    sys.exit(EXIT_OK)


def served(config: TableConfig, specs: dict[str, Any], out_dir: Path, host: str, port: int, **options: Any) -> None:
    """`referee live ... --serve`: the live table on its own thread, its screen and phones served."""
    from tablereferee.commands.serve import serve  # deferred: only a served table loads the web stack
    from tablereferee.web.auth import Tokens  # deferred: only a served table loads the web stack
    from tablereferee.web.hub import TableHub  # deferred: only a served table loads the web stack
    from tablereferee.web.live import LiveRunner  # deferred: only a served table loads the web stack

    with exit_on_error(EXIT_UNREADABLE):
        runner = LiveRunner(config, specs, out_dir, echo=print_decision, **options).start()
    hub = TableHub(tokens=Tokens(), live=runner)
    runner.attach(hub)
    serve(hub, host, port, on_stop=runner.stop)
    result = runner.result
    if result is not None:
        result.session.close()
        click.echo(f"session: {result.folder.path}  ({json.dumps(result.summary())})")
