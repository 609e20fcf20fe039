"""`referee serve`: the table's own screen, a phone for every player (docs/web.md).

    referee serve sessions/tonight.db                 # continue a session: its log is the state
    referee serve --new                               # set the table up on the New-table page
    referee serve --game beccato --players Anna,Ben,Carla,Dan
    referee serve --table table.json --live cards=0   # a live table, its cameras on the screen

It binds 127.0.0.1 unless --host says otherwise, prints the join address with its QR code, the
scorer's link and each team's PIN, then `serving on URL` once it accepts connections. Lines
typed at the terminal go to the same table and the same log (`quit` stops the server).
"""

from __future__ import annotations

import socket
import sys
import threading
import time as clock
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from referee.core import RefereeError
from tablereferee.commands._errors import EXIT_USAGE, exit_on_error
from tablereferee.paths import default_session_path

if TYPE_CHECKING:
    from referee.scorekeeper import Scorekeeper
    from tablereferee.web.hub import TableHub


GRACE_SECONDS = 3  # stopping: what a request still being answered is given before it is cut


def parse_pairs(values: tuple[str, ...], what: str) -> dict[str, str]:
    """('Reds=1234', ...) -> {'Reds': '1234'}."""
    out: dict[str, str] = {}
    for text in values:
        key, sep, value = text.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise click.BadParameter(f"{text!r}: write it as {what}")
        out[key.strip()] = value.strip()
    return out


def lan_address() -> str:
    """This machine's address on its network (what a phone opens), or 127.0.0.1."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.255.255.255", 1))  # no packet is sent: this only picks the interface
        return str(probe.getsockname()[0])
    except OSError:
        return "127.0.0.1"
    finally:
        probe.close()


def open_keeper(session: str, log_path: str | None, accept_unsigned: bool) -> Scorekeeper:
    """A session to continue: an SQLite log, a JSON-lines export (imported into --log) or a
    session folder (its log)."""
    from referee.scorekeeper import Scorekeeper  # deferred: the engines load with the table

    path = Path(session)
    if path.is_dir():
        path = path / "log.db"
    target = log_path
    if target is None and path.suffix != ".db":
        target = str(default_session_path("game", clock.time(), suffix=".db"))
    return Scorekeeper.resume(path, log_path=target, accept_unsigned=accept_unsigned)


def serve(
    hub: TableHub,
    host: str,
    port: int,
    *,
    prompt: bool = True,
    sessions_dir: str | Path = "sessions",
    on_stop: Any = None,
    challenges: Any = None,
) -> None:
    """Serve `hub` on host:port until `quit` or Ctrl-C (or `on_stop` when given: called after).
    `challenges` (`tablereferee.challenge.Challenges`): a live table's instant challenge."""
    import uvicorn  # deferred: only a served table loads the web stack

    from tablereferee.web import create_app  # deferred: only a served table loads the web stack

    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        raise click.UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    # Every connection accepted inherits it: an answer goes out at once instead of waiting ~40 ms
    # for the browser's delayed ACK (Nagle's algorithm holding the last small segment back).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    port = sock.getsockname()[1]
    shown = lan_address() if host in ("0.0.0.0", "::") else host
    base = f"http://{shown}:{port}"
    if not hub.join_base:
        hub.join_base = base
    app = create_app(hub, sessions_dir=sessions_dir, challenges=challenges)
    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="on",
        ws="websockets-sansio",
        timeout_graceful_shutdown=GRACE_SECONDS,
    )

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            click.echo(f"serving on http://{host}:{port}")
            sys.stdout.flush()

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            app.state.stopping.set()  # an open live.mjpg stream ends with its next frame
            await super().shutdown(sockets=sockets)

    server = Server(config)
    announce(hub, base, local=host in ("127.0.0.1", "localhost", "::1"))
    if prompt:
        threading.Thread(target=_prompt, args=(hub, server), daemon=True, name="prompt").start()
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
        if on_stop is not None:
            on_stop()


def announce(hub: TableHub, base: str, *, local: bool) -> None:
    """The addresses, the QR code, the scorer's link and the team PINs, on the terminal."""
    import segno  # deferred: only a served table draws its QR code

    join = hub.join_info(base)
    click.echo(f"table screen: {base}/")
    click.echo(f"join: {join['url']}   (code {join['code']})")
    if local:
        click.echo("  (this address answers on this machine only: --host 0.0.0.0 lets phones on the network in)")
    segno.make(join["url"], error="m").terminal(compact=True)
    click.echo(f"scorer: {base}/phone#scorer={hub.tokens.scorer_token}")
    if hub.tokens.pins:
        pins = ", ".join(f"{team} {pin}" for team, pin in hub.tokens.pins.items())
        click.echo(f"team PINs (give each team its own, privately): {pins}")
    elif hub.keeper is None:
        click.echo(f"no table yet: set it up at {base}/new (with the scorer link)")
    sys.stdout.flush()


def _prompt(hub: TableHub, server: Any) -> None:
    """The terminal's lines on the served table (the pieces of `referee play`'s loop)."""
    from tablereferee.commands.play import read_lines, show_outcome  # deferred: the terminal's own loop pieces

    interactive = sys.stdin is not None and sys.stdin.isatty()
    try:
        for _, line in read_lines(sys.stdin, interactive):
            if hub.keeper is None:
                click.echo("no table yet: set it up on the New-table page first")
                continue
            try:
                outcome = hub.submit_line(line, source="keyboard")
            except RefereeError as exc:
                click.echo(f"rejected: {exc}")
                continue
            if hub.live is None:
                show_outcome(outcome, hub.keeper, where="", quiet=True)
            if outcome.quit or (hub.live is not None and line.strip().lower() in ("quit", "exit")):
                break
        else:
            return  # the terminal closed (no terminal at all): the server goes on
    except (EOFError, KeyboardInterrupt, ValueError, OSError):
        return
    server.should_exit = True


@click.command("serve")
@click.argument("session", required=False, type=click.Path(path_type=str))
@click.option("--new", "new", is_flag=True, help="Set the table up on the New-table page (/new).")
@click.option("--game", help="A new table of GAME (beccato, beccaccino, bestia), set up from the options.")
@click.option("--players", help="Players in seat order: Anna,Ben,Carla,Dan.")
@click.option("--teams", help='Teams: "Reds=Anna,Carla;Blues=Ben,Dan".')
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE", help="A table option (repeatable).")
@click.option("--variant", help="Shorthand for --option variant=NAME.")
@click.option("--signal", "signals", multiple=True, metavar="TEAM=SIGNAL", help="A team's secret signal (Beccato!).")
@click.option("--log", "log_path", type=click.Path(dir_okay=False, path_type=str), help="The session log to write.")
@click.option("--table", "table", type=click.Path(dir_okay=False), help="A live table: its file (session manifest).")
@click.option(
    "--live", "cameras", multiple=True, metavar="NAME=SOURCE", help="A live camera: webcam index, video or URL."
)
@click.option("--out", type=click.Path(file_okay=False), help="A live table's session folder.")
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on (0.0.0.0: every).")
@click.option("--port", default=8000, show_default=True, type=int, help="The port (0: a free one).")
@click.option("--pin", "pins", multiple=True, metavar="TEAM=PIN", help="A team's PIN (default: drawn at random).")
@click.option("--code", help="The join code (default: drawn at random).")
@click.option(
    "--challenges-per-team",
    default=3,
    show_default=True,
    type=click.IntRange(min=0),
    help="A live table: the instant challenges each team may ask for in a game.",
)
@click.option(
    "--challenge-seconds",
    default=10.0,
    show_default=True,
    type=click.FloatRange(min=0, max=120, min_open=True),
    help="A live table: the seconds before the call that a challenge replays.",
)
@click.option("--no-prompt", is_flag=True, help="No terminal prompt (the web only).")
@click.option("--accept-unsigned", is_flag=True, help="Continue an export whose signature cannot be checked.")
def command(
    session: str | None,
    new: bool,
    game: str | None,
    players: str | None,
    teams: str | None,
    options: tuple[str, ...],
    variant: str | None,
    signals: tuple[str, ...],
    log_path: str | None,
    table: str | None,
    cameras: tuple[str, ...],
    out: str | None,
    host: str,
    port: int,
    pins: tuple[str, ...],
    code: str | None,
    challenges_per_team: int,
    challenge_seconds: float,
    no_prompt: bool,
    accept_unsigned: bool,
) -> None:
    """Serve a table: the table screen, a phone for every player, the scorer's corrections.

    SESSION is a session to continue (an SQLite log, a JSON-lines export or a session folder);
    --new sets the table up in the browser; --game with --players starts one from the options;
    --table with --live referees live cameras with the screen beside them.

    \b
    Exit codes: 0 stopped; 2 bad options or table setup; 3 a session that cannot be used.
    """
    from tablereferee.web.auth import Tokens  # deferred: only a served table loads the web stack
    from tablereferee.web.hub import TableHub  # deferred: only a served table loads the web stack

    chosen = sum(bool(x) for x in (session, new, game, table))
    if chosen != 1:
        raise click.UsageError("name one table: SESSION, --new, --game GAME --players ..., or --table FILE --live ...")
    if cameras and not (table or (session and Path(session).is_dir())):
        raise click.UsageError("--live needs the table's zones: --table FILE, or a session folder as SESSION")
    tokens = Tokens(pins=parse_pairs(pins, "TEAM=PIN"), code=code)
    keeper = None
    live = None
    buffer = None
    with exit_on_error(EXIT_USAGE if game or table else 3):
        if cameras:
            from tablereferee.challenge import ChallengeBuffer  # deferred: a live table's challenge (OpenCV)

            buffer = ChallengeBuffer(seconds=challenge_seconds)
        if session and cameras:  # a new live session on the table of an earlier one
            from tablereferee.web.live import start_live  # deferred: loads OpenCV and the perception stages

            live = start_live(None, parse_pairs(cameras, "NAME=SOURCE"), out, from_session=session, buffer=buffer)
        elif session:
            keeper = open_keeper(session, log_path, accept_unsigned)
        elif game:
            keeper = new_keeper(game, players, teams, options, variant, parse_pairs(signals, "TEAM=SIGNAL"), log_path)
        elif table:
            from tablereferee.web.live import start_live  # deferred: loads OpenCV and the perception stages

            live = start_live(table, parse_pairs(cameras, "NAME=SOURCE"), out, buffer=buffer)
    hub = TableHub(keeper, tokens=tokens, live=live)
    challenges = None
    if live is not None:
        live.attach(hub)
        challenges = live_challenges(hub, live, buffer, challenges_per_team)
    try:
        on_stop = live.stop if live is not None else None
        serve(hub, host, port, prompt=not no_prompt, on_stop=on_stop, challenges=challenges)
    finally:
        if hub.keeper is not None and live is None:
            hub.keeper.close()
        click.echo(f"log: {hub.keeper.log.path}" if hub.keeper is not None else "no table was set up")


def live_challenges(hub: TableHub, live: Any, buffer: Any, per_team: int) -> Any:
    """A live table's instant challenge: the frames `buffer` keeps, `per_team` challenges a team,
    the table's teams and its calibration (the seats, for the cue)."""
    from tablereferee.challenge import ChallengeBook, Challenges  # deferred: a live table's challenge (OpenCV)
    from vision.landmarks.calibration import TableCalibration  # deferred: as above

    calibration = getattr(live.config, "calibration", None)
    return Challenges(
        buffer,
        ChallengeBook(per_team=per_team),
        teams=hub.teams(),
        calibration=TableCalibration.from_dict(calibration) if calibration else None,
    )


def new_keeper(
    game: str,
    players: str | None,
    teams: str | None,
    options: tuple[str, ...],
    variant: str | None,
    signals: dict[str, str],
    log_path: str | None,
) -> Scorekeeper:
    from referee.scorekeeper import Scorekeeper  # deferred: the engines load with the table
    from tablereferee.commands.play import build_setup  # deferred: `referee play`'s setup reader

    setup = build_setup({}, players, teams, options, variant, None)
    if signals:
        setup["signals"] = signals
    now = clock.time()
    path = log_path or str(default_session_path(game.strip().lower(), now, suffix=".db"))
    return Scorekeeper.start(game, setup, path, time=now)
