"""The web application of one table: pages, the JSON API and the WebSocket (docs/web.md).

    app = create_app(TableHub(keeper))
    uvicorn.run(app, host="127.0.0.1", port=8000)

Pages and their scripts are served from the package (`tablereferee/web/static/`), nothing from
a CDN. Every refusal is a named 4xx: `{"error": {"name": ..., "message": ...}}` (a
`RefereeError` by its own name; the framework's request checks as `BadRequest`).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from referee.core import RefereeError, Violation
from referee.scorekeeper import Scorekeeper, public_error
from referee.sessionlog import LogConflict
from tablereferee.web import auth, cards, words
from tablereferee.web.auth import Caller, Grant, NotAllowed, NotSignedIn, WebError, require_scorer
from tablereferee.web.hub import NoCameras, NoTable, TableHub
from tablereferee.web.models import AnswerIn, CommandIn, JoinIn, PinIn

STATIC = Path(__file__).resolve().parent / "static"
PAGES = {
    "/": "table.html",
    "/phone": "phone.html",
    "/new": "new.html",
    "/over": "table.html",
}  # /over: table.js shows the final count alone
POLL_SECONDS = 0.2  # how often the log is read for entries another process appended
log = logging.getLogger("tablereferee.web")


class PageMissing(WebError):
    """A page whose file this installation lacks."""

    status = 404


class NotFound(WebError):
    """An address the table does not serve."""

    status = 404


class MethodNotAllowed(WebError):
    """An address served, but not with this method."""

    status = 405


class BadRequest(WebError):
    """A request the server cannot read: not JSON, a missing field, a field of the wrong kind."""

    status = 422


class TableExists(WebError):
    """A New-table request while this server already referees a table."""

    status = 409


def status_of(error: RefereeError) -> int:
    if isinstance(error, WebError):
        return error.status
    if isinstance(error, LogConflict):
        return 409
    if isinstance(error, Violation):
        return 422
    return 422


def error_body(error: RefereeError) -> dict[str, Any]:
    """One style for every refusal: the name, the message, and the error's own details (a
    violation's `waiting_for`, a PIN's `tries_left`), without a hand's cards."""
    details = {k: v for k, v in public_error(error).items() if k not in ("error", "message")}
    message = words.error_text(error) or error.message
    return {"error": {"name": error.name, "message": message, **details}}


def error_response(error: RefereeError) -> JSONResponse:
    headers = {}
    if isinstance(error, auth.TooManyTries):
        headers["Retry-After"] = str(error.details.get("retry_after", auth.WINDOW))
    if isinstance(error, NotSignedIn):
        headers["WWW-Authenticate"] = "Bearer"
    return JSONResponse(error_body(error), status_code=status_of(error), headers=headers)


def _validation_message(errors: list[Any]) -> str:
    first = errors[0] if errors else {}
    if first.get("type") == "json_invalid":
        return "the request body is not JSON"
    where = " ".join(str(p) for p in first.get("loc", ()) if p != "body") or "the request"
    return f"{where}: {str(first.get('msg', 'not valid')).lower()}"


def create_app(
    hub: TableHub,
    *,
    sessions_dir: str | Path | None = None,
    start_table: Callable[[Mapping[str, Any]], Any] | None = None,
    challenges: Any = None,
) -> FastAPI:
    """The application of `hub`'s table. `start_table(manifest)` is what the New-table page's
    table becomes (default: a keyboard-and-phones table logged under `sessions_dir`).
    `challenges` (`tablereferee.challenge.Challenges`, a live table's): the instant challenge's
    routes answer from them, and every WebSocket is told when one is ready."""

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        task = asyncio.create_task(_poll(hub))
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            made = getattr(app.state, "challenges", None)  # given, or a New-table page's live table's
            if made is not None:
                await run_in_threadpool(hub.close)
                await run_in_threadpool(made.close)

    app = FastAPI(
        title="Table referee",
        summary="The table screen, the players' phones and the scorer's corrections of one table",
        version="1",
        lifespan=lifespan,
    )
    app.state.hub = hub
    app.state.stopping = threading.Event()  # set as the server stops: open streams end
    app.state.start_table = start_table or _default_start(hub, sessions_dir, app)

    # -- errors, in one style ------------------------------------------------------------------
    @app.exception_handler(RefereeError)
    async def referee_error(request: Request, exc: RefereeError) -> JSONResponse:
        return error_response(exc)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(BadRequest(_validation_message(list(exc.errors()))))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 405:
            return error_response(MethodNotAllowed(f"{request.method} is not served at {request.url.path}"))
        if exc.status_code == 404:
            return error_response(NotFound(f"nothing is served at {request.url.path}"))
        error = WebError(str(exc.detail))
        error.status = exc.status_code
        return error_response(error)

    # -- pages ---------------------------------------------------------------------------------
    def page(name: str) -> FileResponse:
        path = STATIC / name
        if not path.is_file():
            raise PageMissing(f"this installation has no page {name}", page=name)
        return FileResponse(path, media_type="text/html", headers={"Cache-Control": "no-cache"})

    @app.get("/", include_in_schema=False)
    def table_page() -> FileResponse:
        return page(PAGES["/"])

    @app.get("/phone", include_in_schema=False)
    def phone_page() -> FileResponse:
        return page(PAGES["/phone"])

    @app.get("/new", include_in_schema=False)
    def new_page() -> FileResponse:
        return page(PAGES["/new"])

    @app.get("/over", include_in_schema=False)
    def over_page() -> FileResponse:
        return page(PAGES["/over"])

    @app.get("/join/{code}", include_in_schema=False)
    def join_page(code: str) -> FileResponse:
        return page(PAGES["/phone"])

    app.mount("/static", StaticFiles(directory=STATIC, check_dir=False), name="static")

    # -- the API -------------------------------------------------------------------------------
    @app.get("/api/health", tags=["table"])
    def health() -> dict[str, Any]:
        """The server answers (tests and scripts wait on this)."""
        return {"ok": True, "version": hub.version, "ready": hub.keeper is not None}

    @app.get("/api/table", tags=["table"])
    def get_table(request: Request, grant: Caller) -> dict[str, Any]:
        """The table as the caller's role may see it (the TableView)."""
        return hub.table_view(grant, str(request.base_url))

    @app.get("/api/me", tags=["phone"])
    def get_me(grant: Caller) -> dict[str, Any]:
        """The caller's own buttons, built from the engine's legal actions."""
        return hub.me(grant)

    @app.post("/api/join", tags=["phone"])
    def post_join(body: JoinIn) -> dict[str, Any]:
        """Join as a player with the table's code: a token for that phone."""
        grant = hub.join(body.code, body.player)
        return {"token": grant.token, **grant.to_dict()}

    @app.post("/api/commands", tags=["phone"])
    def post_command(body: CommandIn, grant: Caller) -> dict[str, Any]:
        """A call (a button's action, or a typed line): the server checks its actor is the caller."""
        return hub.command(grant, body.command, body.action)

    @app.post("/api/teams/{team}/unlock", tags=["team"])
    def post_unlock(team: str, body: PinIn, grant: Caller) -> dict[str, Any]:
        """The team's PIN: adds the team to the caller's token (or makes one). Rate-limited."""
        unlocked = hub.unlock(team, body.pin, grant)
        return {"token": unlocked.token, "team": team, **unlocked.to_dict()}

    @app.get("/api/teams/{team}/secret", tags=["team"])
    def get_secret(team: str, grant: Caller) -> dict[str, Any]:
        """The team's secret signal, for a token that holds its PIN."""
        return hub.secret(grant, team)

    @app.post("/api/questions/{question}", tags=["phone"])
    def post_answer(question: int, body: AnswerIn, grant: Caller) -> dict[str, Any]:
        """The one-tap answer to a question of the referee."""
        return hub.answer(grant, question, body.answer == "yes")

    @app.get("/api/cards", tags=["phone"])
    def get_cards(grant: Caller) -> dict[str, Any]:
        """The game's cards for the pickers (a phone's, the scorer's), each with its picture."""
        if grant.role == "public":
            raise NotAllowed("join the table with its code to pick cards", role="public")
        keeper = _keeper(hub)
        deck = cards.deck_of(keeper.engine.name, keeper.log.header.setup)
        return {"deck": deck, "cards": cards.cards(deck)}

    @app.get("/api/cards/{card_id}.png", tags=["scorer"], response_class=Response)
    async def get_card_picture(card_id: str) -> Response:
        """One card's picture (rendered from the deck's templates)."""
        keeper = _keeper(hub)
        deck = cards.deck_of(keeper.engine.name, keeper.log.header.setup)
        png = await run_in_threadpool(cards.picture, deck, card_id)
        return Response(png, media_type="image/png", headers={"Cache-Control": "max-age=3600"})

    @app.get("/api/join.svg", tags=["table"], response_class=Response)
    def join_qr(request: Request) -> Response:
        """The join address as a QR code, for the table screen."""
        return Response(qr_svg(hub.join_info(str(request.base_url))["url"]), media_type="image/svg+xml")

    @app.get("/api/cameras/{name}/frame.jpg", tags=["table"], response_class=Response)
    def camera_frame(name: str) -> Response:
        """The newest picture of a live camera, with its overlays (zones, cards and their names)."""
        live = _live(hub)
        return Response(live.jpeg(name), media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    @app.get("/api/cameras/{name}/live.mjpg", tags=["table"], response_class=Response)
    async def camera_stream(name: str) -> StreamingResponse:
        """The live camera as MJPEG (multipart/x-mixed-replace), at the perception rate."""
        live = _live(hub)
        live.jpeg(name)  # an unknown camera is refused before the stream starts

        async def frames() -> AsyncIterator[bytes]:
            last = -1
            while not app.state.stopping.is_set():
                jpeg, number = await run_in_threadpool(live.wait_jpeg, name, last, 1.0)
                if number == last and not getattr(live, "running", True):
                    break  # the cameras have ended: the last frame stays on the screen
                if number != last:
                    last = number
                    yield b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n" % len(jpeg)
                    yield jpeg + b"\r\n"

        return StreamingResponse(frames(), media_type="multipart/x-mixed-replace; boundary=frame")

    @app.websocket("/ws")
    async def websocket(ws: WebSocket, token: str | None = None) -> None:
        """The TableView on connecting, then again after every change."""
        await ws.accept()
        try:
            grant = hub.tokens.grant(token)
        except NotSignedIn as exc:
            await ws.send_json({"type": "error", **error_body(exc)})
            await ws.close(code=4401)
            return
        await _serve_socket(ws, hub, grant, f"http://{ws.headers.get('host', '')}/")

    try:
        from tablereferee.web import setup_routes  # deferred: the New-table page's routes (OpenCV), if installed
    except ImportError as exc:  # the table screen and phones work without it
        log.warning("the New-table page is not available: %s", exc)
    else:
        app.include_router(setup_routes.router, dependencies=[Depends(require_scorer)])
    try:
        from tablereferee.web import review  # deferred: the review page of recorded sessions, if installed
    except ImportError as exc:
        log.warning("the review page is not available: %s", exc)
    else:
        app.state.review_root = Path(sessions_dir) if sessions_dir is not None else Path("sessions")
        app.include_router(review.router)
    try:
        from tablereferee.web import practice  # deferred: the practice page (MediaPipe), if installed
    except ImportError as exc:
        log.warning("the practice page is not available: %s", exc)
    else:
        app.include_router(practice.router)
    try:
        from tablereferee.web import practice_audio  # deferred: the audible drills (PocketSphinx), if installed
    except ImportError as exc:
        log.warning("the audible drills are not available: %s", exc)
    else:
        app.include_router(practice_audio.router)
    try:
        from tablereferee.web import challenge_routes  # deferred: the instant challenge (OpenCV), if installed
    except ImportError as exc:
        log.warning("the instant challenge is not available: %s", exc)
    else:
        app.include_router(challenge_routes.router)
        if challenges is not None:
            challenge_routes.attach(app, challenges)
    if challenges is not None:
        hub.attach_challenges(challenges)
    return app


def _keeper(hub: TableHub) -> Scorekeeper:
    keeper = hub.keeper
    if keeper is None:
        raise NoTable("no table is set up yet: the scorer sets one up on the New-table page (/new)")
    return keeper


def _live(hub: TableHub) -> Any:
    live = hub.live
    if live is None or not hasattr(live, "jpeg"):
        raise NoCameras("this table has no live cameras (start it with referee serve --live or referee live --serve)")
    return live


async def _serve_socket(ws: WebSocket, hub: TableHub, grant: Grant, base: str) -> None:
    loop = asyncio.get_running_loop()
    wake = asyncio.Event()

    def woken(_version: int) -> None:
        with contextlib.suppress(RuntimeError):  # the loop has closed: the server is stopping
            loop.call_soon_threadsafe(wake.set)

    pushed: list[dict[str, Any]] = []  # messages for every screen (a challenge ready), in order
    viewed = [True]  # the view is due: sent on connecting, then after every change

    def changed(_version: int) -> None:
        viewed[0] = True
        woken(_version)

    def push(message: dict[str, Any]) -> None:
        pushed.append(message)  # list.append is atomic: the loop takes them when woken
        woken(0)

    unsubscribe = hub.subscribe(changed)
    unpush = hub.push(push)

    async def receive() -> None:
        with contextlib.suppress(WebSocketDisconnect):
            while True:
                await ws.receive_text()  # a phone's pings; the API takes its calls

    receiver = asyncio.create_task(receive())
    try:
        while True:
            wake.clear()
            try:
                while pushed:
                    await ws.send_json(pushed.pop(0))
                if viewed[0]:
                    viewed[0] = False
                    view = await run_in_threadpool(hub.table_view, grant, base)
                    await ws.send_json({"type": "table", **view})
            except (WebSocketDisconnect, RuntimeError):
                break
            waiter = asyncio.create_task(wake.wait())
            done, _ = await asyncio.wait({waiter, receiver}, return_when=asyncio.FIRST_COMPLETED)
            if receiver in done:
                waiter.cancel()
                break
    finally:
        unsubscribe()
        unpush()
        receiver.cancel()


async def _poll(hub: TableHub) -> None:
    """Read the log every POLL_SECONDS for entries another process appended (the terminal's
    `referee play` on the same session); a change goes to every WebSocket."""
    while True:
        await asyncio.sleep(POLL_SECONDS)
        try:
            await run_in_threadpool(hub.poll)
        except RefereeError as exc:  # a log another process left half-written: read it next time
            log.warning("reading the log: %s", exc)


def qr_svg(url: str) -> bytes:
    import segno  # deferred: only the QR code needs it

    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=6, border=2, dark="#000", light="#fff")
    return out.getvalue()


def _default_start(
    hub: TableHub, sessions_dir: str | Path | None, app: FastAPI | None = None
) -> Callable[[Mapping[str, Any]], Any]:
    """A New-table page's table as a keyboard-and-phones table: a new log under `sessions_dir`
    (with video cameras, a live table, its instant challenge on `app`)."""

    def start(manifest: Mapping[str, Any]) -> dict[str, Any]:
        if hub.keeper is not None:
            raise TableExists("this server already referees a table: start another server for a new one")
        from tablereferee.paths import default_session_path  # deferred: only a new table names a log

        now = time.time()
        game = str(manifest["game"])
        folder = Path(sessions_dir) if sessions_dir is not None else Path("sessions")
        folder.mkdir(parents=True, exist_ok=True)
        cameras = manifest.get("cameras") or {}
        if manifest.get("zones") and cameras and all(c.get("kind") == "video" for c in cameras.values()):
            from tablereferee.challenge import ChallengeBuffer  # deferred: a live table keeps its last seconds (OpenCV)
            from tablereferee.run import TableConfig  # deferred: a live table loads OpenCV and its stages
            from tablereferee.web.live import LiveRunner  # deferred: a live table loads OpenCV and its stages

            out = folder / default_session_path(game, now).name
            specs = {n: _camera_spec(str(c["source"])) for n, c in cameras.items()}
            buffer = ChallengeBuffer() if app is not None else None
            runner = LiveRunner(TableConfig.from_manifest(manifest), specs, out, buffer=buffer).start()
            hub.attach_live(runner)
            if app is not None and buffer is not None:
                _attach_challenges(app, hub, runner, buffer)
            return {"folder": str(out), "log": str(out / "log.db"), "live": True, "join": hub.join_info()}
        path = folder / default_session_path(game, now, suffix=".db").name
        keeper = Scorekeeper.start(game, manifest["setup"], path, time=now)
        hub.attach(keeper)
        return {"log": str(path), "live": False, "join": hub.join_info()}

    return start


def _attach_challenges(app: FastAPI, hub: TableHub, runner: Any, buffer: Any) -> None:
    """A New-table page's live table gets its instant challenge as `referee serve --live` does."""
    from tablereferee.challenge import ChallengeBook, Challenges  # deferred: a live table's challenge (OpenCV)
    from tablereferee.web import challenge_routes  # deferred: as above
    from vision.landmarks.calibration import TableCalibration  # deferred: as above

    calibration = runner.config.calibration
    challenges = Challenges(
        buffer,
        ChallengeBook(),
        teams=hub.teams(),
        calibration=TableCalibration.from_dict(calibration) if calibration else None,
    )
    challenge_routes.attach(app, challenges)
    hub.attach_challenges(challenges)


def _camera_spec(source: str) -> int | str:
    """A webcam's index as a number, anything else (a file, a URL) as it is."""
    return int(source) if source.isdigit() and not Path(source).exists() else source
