"""The review page of recorded sessions: `/review` and its API under `/api/review/...` (docs/review.md).

    app.state.review_root = Path("sessions")     # a session folder, or a folder of them
    app.include_router(review.router)

Everything is read from what the run kept (the log, `cameras/CAM/seg_*.mp4`, `tracks/CAM/`):
no model is run again, except for a question about a session recorded before runs kept their
landmarks (`tablereferee.review.ask`). What is shown is the public view (`referee.secrecy`):
never a team's signal, a card passed face down.

`python -m tablereferee.web.review ROOT [--port N]` serves the page alone (prints `serving on URL`
once it accepts connections), for a folder of old sessions and for the browser tests.
"""

from __future__ import annotations

import base64
import datetime
import gzip
import json
import math
import re
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import FileResponse
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from referee.core import RefereeError, get_engine
from referee.secrecy import HIDDEN_SIGNAL, PUBLIC, public_contents
from referee.sessionlog import Entry, LogContents, read_log
from tablereferee.recording.folder import SessionFolder, SessionFolderError, segment_start
from tablereferee.web.auth import WebError

STATIC = Path(__file__).resolve().parent / "static"
SEGMENT_NAME = re.compile(r"^seg_\d{1,12}\.mp4$")
FACE_STEP = 4  # every 4th face-mesh point is drawn: the face's shape without hiding it
router = APIRouter()


class NoSuchSession(WebError):
    """A session id the review's folder does not hold."""

    status = 404


class NoSuchCamera(WebError):
    """A camera the session did not record."""

    status = 404


class NoSuchSegment(WebError):
    """A video segment the camera does not have."""

    status = 404


class NoSuchEntry(WebError):
    """An entry number the session log does not have, or one with nothing to draw."""

    status = 404


class SignalIsSecret(WebError):
    """A signal seen that was a team's secret: the review does not name it, nor draw its measure."""

    status = 403


class NoReviewFolder(WebError):
    """A server started without a folder of sessions to review."""

    status = 409


class AskIn(BaseModel):
    player: str = Field(min_length=1, max_length=64)
    signal: str = Field(min_length=1, max_length=64)
    start: float = Field(alias="from", ge=0)
    end: float = Field(alias="to", ge=0)


# -- the sessions --------------------------------------------------------------------------------


def root_of(request: Request) -> Path:
    root = getattr(request.app.state, "review_root", None)
    if root is None:
        raise NoReviewFolder("this server was started without recorded sessions to review")
    return Path(root)


def sessions_in(root: Path) -> dict[str, Path]:
    """{id: folder} of every session under `root` (itself, or its folders two levels down)."""
    if (root / "session.json").is_file():
        return {root.name: root}
    found: dict[str, Path] = {}
    if not root.is_dir():
        return found
    for manifest in sorted(root.glob("*/session.json")) + sorted(root.glob("*/*/session.json")):
        folder = manifest.parent
        found[folder.relative_to(root).as_posix().replace("/", "~")] = folder
    return found


def open_session(request: Request, sid: str) -> SessionFolder:
    folder = sessions_in(root_of(request)).get(sid)
    if folder is None:
        raise NoSuchSession(f"there is no session {sid!r} here", session=sid)
    try:
        return SessionFolder.open(folder)
    except SessionFolderError as exc:
        raise NoSuchSession(f"session {sid!r} cannot be read: {exc.message}", session=sid) from None


def _public(contents: LogContents) -> tuple[Any, LogContents]:
    """The log as the public may see it (`referee.secrecy`): no hidden card, no seed, and a signal
    seen that was a team's secret without its name or its measures."""
    try:
        engine = get_engine(contents.header.game)
    except RefereeError:
        return None, contents
    return engine, public_contents(engine, contents, PUBLIC)[0]


def _signal_text(signal: str) -> str:
    return "a team's signal" if signal == HIDDEN_SIGNAL else signal.replace("_", " ")


def _result(engine: Any, contents: LogContents) -> list[str]:
    """The standings at the end of the log, in words (public)."""
    from referee.sessionlog.replay import effective_actions, replay_actions  # deferred: only a listed session
    from tablereferee.web.words import standings_lines  # deferred: the voice loads the engines' card names

    if engine is None:
        return []
    try:
        state, *_ = replay_actions(engine, contents.header.setup, effective_actions(contents.entries))
        return standings_lines(engine, state, PUBLIC)
    except RefereeError as exc:
        return [f"the log cannot be replayed: {exc.message}"]


def summary(sid: str, folder: SessionFolder) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": sid,
        "name": folder.path.name,
        "game": folder.manifest.get("game"),
        "players": list((folder.manifest.get("setup") or {}).get("players") or []),
        "date": datetime.datetime.fromtimestamp(folder.created, datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "duration": folder.end(),
        "cameras": folder.camera_names(),
        "result": [],
    }
    try:
        engine, contents = _public(read_log(folder.log_path))
        out["result"] = _result(engine, contents)
    except RefereeError as exc:
        out["result"] = [f"the log cannot be read: {exc.message}"]
    return out


# -- the video -----------------------------------------------------------------------------------

_frame_times: dict[tuple[str, float, int], list[float]] = {}
_lock = threading.Lock()


def frame_times(path: Path) -> list[float]:
    """The times (s from the segment's start) of every frame of a segment, from its packets
    (nothing decoded); cached by file size and time."""
    import av  # deferred: PyAV loads FFmpeg; only the video's frame list needs it

    stat = path.stat()
    key = (str(path), stat.st_mtime, stat.st_size)
    with _lock:
        if key in _frame_times:
            return _frame_times[key]
    times: list[float] = []
    try:
        with av.open(str(path)) as container:
            stream = container.streams.video[0]
            for packet in container.demux(stream):
                if packet.pts is not None and packet.time_base is not None:
                    times.append(round(float(packet.pts * packet.time_base), 4))
    except (av.error.FFmpegError, OSError, IndexError):
        pass  # a cut segment: the frames read so far
    times.sort()
    with _lock:
        _frame_times[key] = times
    return times


def camera_info(sid: str, folder: SessionFolder, name: str) -> dict[str, Any]:
    spec = (folder.manifest.get("cameras") or {}).get(name) or {}
    segments = []
    d = folder.camera_dir(name)
    for seg in sorted(d.glob("seg_*.mp4")) if d.is_dir() else []:
        start = segment_start(seg)
        if start is None:
            continue
        times = frame_times(seg)
        segments.append(
            {
                "file": seg.name,
                "url": f"/api/review/sessions/{sid}/video/{name}/{seg.name}",
                "start": start,
                "frames": [round(start + t, 4) for t in times],
            }
        )
    return {"name": name, "fps": spec.get("fps"), "size": spec.get("size"), "segments": segments}


# -- the timeline --------------------------------------------------------------------------------

KINDS = {"signal": "signal", "decision": "decision", "ask": "question", "answer": "question", "flag": "flag"}


def _kind(entry: Entry) -> str:
    if entry.kind == "correction":
        return "correction"
    if entry.kind == "action":
        return str(entry.payload.get("action", {}).get("kind") or "action")
    kind = entry.payload.get("type")
    if kind == "camera":
        return "camera_back" if entry.payload.get("ok") else "camera_lost"
    return KINDS.get(str(kind), str(kind))


def timeline(folder: SessionFolder) -> dict[str, Any]:
    from tablereferee.recording.clip import list_events, reasoning_entries  # deferred: OpenCV, only a review
    from tablereferee.recording.report import verdict_lines  # deferred: as above
    from tablereferee.web.words import action_text  # deferred: the voice

    engine, contents = _public(read_log(folder.log_path))
    origin = contents.header.created
    by_seq = {e.seq: e for e in contents.entries}
    events = []
    for ev in list_events(folder.path, PUBLIC):
        entry = by_seq[ev["entry"]]
        text = ev["text"]
        if entry.kind == "action" and engine is not None:
            text = action_text(engine, entry.payload["action"])
        events.append({**ev, "kind": _kind(entry), "text": text})
    players = list((contents.header.setup or {}).get("players") or [])
    lanes: dict[str, list[dict[str, Any]]] = {p: [] for p in players}
    for e in contents.entries:
        p = e.payload
        if e.kind == "observation" and p.get("type") == "signal" and p.get("player"):
            lanes.setdefault(str(p["player"]), []).append(
                {
                    "entry": e.seq,
                    "signal": p["signal"],
                    "text": _signal_text(str(p["signal"])),
                    "start": p["start"],
                    "end": p["end"],
                    "confidence": p.get("confidence"),
                    "unsure": bool(p.get("unsure")),
                }
            )
    verdicts = []
    for e in contents.entries:
        if e.kind in ("action", "correction") or (
            e.kind == "observation" and e.payload.get("type") in ("decision", "signal")
        ):
            if e.kind == "observation" and e.payload.get("type") == "decision":
                continue  # a decision is told with the action it made
            lines = verdict_lines(engine, e, reasoning_entries(contents.entries, e), PUBLIC)
            verdicts.append({"entry": e.seq, "time": round(e.time - origin, 3), "lines": lines})
    return {"events": events, "lanes": lanes, "verdicts": verdicts}


# -- the overlays --------------------------------------------------------------------------------


def _slim_landmarks(frame: Mapping[str, Any]) -> dict[str, Any]:
    persons = []
    for p in frame.get("persons") or []:
        face = p.get("face")
        persons.append(
            {
                "seat": p.get("seat"),
                "face": [[round(x, 1), round(y, 1)] for x, y, *_ in face[::FACE_STEP]] if face else None,
                "pose": [[round(x, 1), round(y, 1), round(v, 2)] for x, y, *_, v in p["pose"]]
                if p.get("pose")
                else None,
                "hands": {
                    s: [[round(x, 1), round(y, 1)] for x, y, *_ in h["points"]]
                    for s, h in (p.get("hands") or {}).items()
                },
            }
        )
    return {"t": frame["t"], "persons": persons}


def tracks(folder: SessionFolder, camera: str) -> dict[str, Any]:
    from tablereferee.recording.tracks import CARDS_FILE, LANDMARKS_FILE, TRACKS, read_cards  # deferred: small

    cards = read_cards(folder.path, camera)
    landmarks: list[dict[str, Any]] = []
    problem = cards.problem if cards is not None else None
    path = folder.path / TRACKS / camera / LANDMARKS_FILE
    if path.is_file():
        try:
            with gzip.open(path, "rb") as handle:
                for raw in handle:
                    if not raw.endswith(b"\n"):
                        break
                    landmarks.append(_slim_landmarks(json.loads(raw)))
        except (EOFError, OSError, ValueError, KeyError, TypeError) as exc:
            problem = f"{LANDMARKS_FILE} is cut or damaged ({exc.__class__.__name__}): {len(landmarks)} frames kept"
    zones = [z for z in folder.manifest.get("zones") or [] if z.get("camera") in (None, camera)]
    seats = []
    calibration = folder.manifest.get("calibration") or {}
    spec = (folder.manifest.get("cameras") or {}).get(camera) or {}
    size = spec.get("size") or [0, 0]
    for seat in calibration.get("seats") or []:
        if seat.get("camera") == camera:
            x0, y0, x1, y1 = seat.get("region") or [0, 0, 1, 1]
            seats.append({"name": seat["name"], "box": [x0 * size[0], y0 * size[1], x1 * size[0], y1 * size[1]]})
    return {
        "camera": camera,
        "size": size,
        "cards": [] if cards is None else cards.frames,
        "cards_file": CARDS_FILE if cards is not None else None,
        "landmarks": landmarks,
        "zones": [{"name": z["name"], "role": z.get("role"), "polygon": z["polygon"]} for z in zones],
        "seats": seats,
        "problem": problem,
    }


# -- questions and evidence ----------------------------------------------------------------------


def _data_uri(path: str | None, kind: str) -> str | None:
    if not path or not Path(path).is_file():
        return None
    return f"data:image/{kind};base64," + base64.b64encode(Path(path).read_bytes()).decode()


def ask(folder: SessionFolder, body: AskIn) -> dict[str, Any]:
    from tablereferee.review.ask import answer_question  # deferred: the signal detectors and OpenCV

    if not all(math.isfinite(v) for v in (body.start, body.end)):
        raise WebError("the window's times must be numbers of seconds")
    with tempfile.TemporaryDirectory(prefix="review-ask-") as out:
        answer, files = answer_question(folder.path, body.player, body.signal, body.start, body.end, out)
        picture = _data_uri(files.get("picture"), "png")
        plot = _data_uri(files.get("plot"), "png")
    data = answer.to_dict()
    return {
        "answer": answer.word,
        "lines": answer.lines(),
        "reason": answer.reason,
        "closest": data["closest"],
        "events": data["events"],
        "measures": [{k: m[k] for k in ("name", "line", "inside")} for m in data["measures"]],
        "landmarks": files.get("landmarks"),
        "camera": files.get("camera"),
        "picture": picture,
        "plot": plot,
    }


def evidence_png(folder: SessionFolder, entry: int) -> bytes:
    """The measure of a signal entry's detector, over the signal and a second either side."""
    from tablereferee.review.ask import answer_question  # deferred: the signal detectors and OpenCV

    _, contents = _public(read_log(folder.log_path))
    if not 1 <= entry <= len(contents.entries):
        raise NoSuchEntry(f"the log has entries 1..{len(contents.entries)}, not {entry}", entry=entry)
    e = contents.entries[entry - 1]
    p = e.payload
    if e.kind != "observation" or p.get("type") != "signal":
        raise NoSuchEntry(f"entry {entry} is not a signal seen: it has no measure to draw", entry=entry)
    if p["signal"] == HIDDEN_SIGNAL:
        raise SignalIsSecret(
            f"entry {entry} is a team's secret signal: its measure would name it; ask about the signal you "
            "suspect by name (the question form) to see its measure",
            entry=entry,
        )
    with tempfile.TemporaryDirectory(prefix="review-evidence-") as out:
        _, files = answer_question(
            folder.path, p["player"], p["signal"], max(0.0, p["start"] - 1.0), p["end"] + 1.0, out
        )
        plot = files.get("plot")
        if not plot:
            raise NoSuchEntry(f"the detector of {p['signal']} judges no single measure to draw", entry=entry)
        return Path(plot).read_bytes()


def cards_jpeg(folder: SessionFolder, entry: int) -> bytes:
    """Each card read for an entry decided from the cards: its crop beside the template it matched."""
    import cv2  # deferred: only a picture of cards
    import numpy as np  # deferred: as above

    from tablereferee.recording.clip import reasoning_entries  # deferred: OpenCV
    from tablereferee.recording.report import card_evidence  # deferred: as above

    _, contents = _public(read_log(folder.log_path))
    if not 1 <= entry <= len(contents.entries):
        raise NoSuchEntry(f"the log has entries 1..{len(contents.entries)}, not {entry}", entry=entry)
    origin = contents.header.created
    target = contents.entries[entry - 1]
    pictures: list[Any] = []
    for reason in reasoning_entries(contents.entries, target):
        evidence = reason.payload.get("evidence") or {}
        for seq in reason.payload.get("entries") or []:
            seen = contents.entries[seq - 1] if 1 <= seq <= len(contents.entries) else None
            if seen is None or seen.payload.get("type") != "cards":
                continue
            camera = evidence.get("camera") or seen.payload.get("camera")
            pictures += [im for im, _ in card_evidence(folder, camera, seen.time - origin, seen.payload.get("zone"))]
    if not pictures:
        raise NoSuchEntry(f"entry {entry} was not decided from cards read: it has no card to show", entry=entry)
    pictures = pictures[:6]
    height = max(p.shape[0] for p in pictures)
    gap = np.full((height, 16, 3), 255, np.uint8)
    row = [gap]
    for p in pictures:
        row += [np.vstack([p, np.full((height - p.shape[0], p.shape[1], 3), 255, np.uint8)]), gap]
    ok, data = cv2.imencode(".jpg", np.hstack(row), [cv2.IMWRITE_JPEG_QUALITY, 90])
    return data.tobytes()


def compare(root: Path, a: str, b: str) -> dict[str, Any]:
    from tablereferee.run import compare_logs  # deferred: the runner, only a comparison
    from tablereferee.web.words import action_text  # deferred: the voice

    found = sessions_in(root)
    for sid in (a, b):
        if sid not in found:
            raise NoSuchSession(f"there is no session {sid!r} here", session=sid)
    fa, fb = SessionFolder.open(found[a]), SessionFolder.open(found[b])
    diff = compare_logs(fa.log_path, fb.log_path)
    try:
        engine = get_engine(str(fa.manifest.get("game")))
    except RefereeError:
        engine = None

    def said(actions: list[Any]) -> list[str]:
        return [action_text(engine, x) if engine is not None else json.dumps(x) for x in actions]

    first = diff["first_difference"]
    return {
        "a": a,
        "b": b,
        "same_log": diff["same_log"],
        "same_actions": diff["same_actions"],
        "entries": diff["entries"],
        "actions": diff["actions"],
        "first_difference": None if first is None else first["entry"],
        "only_a": said(diff["only_original"]),
        "only_b": said(diff["only_replay"]),
        "observations": _observation_diff(fa, fb),
    }


def _observation_diff(fa: SessionFolder, fb: SessionFolder) -> dict[str, list[str]]:
    """The signals seen in one log and not the other (by player, signal and a 0.25 s grid)."""

    def signals(folder: SessionFolder) -> dict[tuple[str, str, float], str]:
        _, contents = _public(read_log(folder.log_path))
        out = {}
        for e in contents.entries:
            p = e.payload
            if e.kind == "observation" and p.get("type") == "signal":
                key = (str(p["player"]), str(p["signal"]), round(float(p["start"]) * 4) / 4)
                out[key] = f"{p['player']}: {_signal_text(str(p['signal']))} at {p['start']:.2f}-{p['end']:.2f} s"
        return out

    sa, sb = signals(fa), signals(fb)
    return {"only_a": [v for k, v in sa.items() if k not in sb], "only_b": [v for k, v in sb.items() if k not in sa]}


# -- the routes ----------------------------------------------------------------------------------


@router.get("/review", include_in_schema=False)
def review_page() -> FileResponse:
    return FileResponse(STATIC / "review.html", media_type="text/html", headers={"Cache-Control": "no-cache"})


@router.get("/api/review/sessions", tags=["review"])
async def list_sessions(request: Request) -> dict[str, Any]:
    """Every recorded session: date, game, players, result."""
    root = root_of(request)

    def listed() -> list[dict[str, Any]]:
        out = []
        for sid, path in sessions_in(root).items():
            try:
                out.append(summary(sid, SessionFolder.open(path)))
            except SessionFolderError:
                continue  # not a session of this format: not listed
        return out

    return {"sessions": await run_in_threadpool(listed)}


@router.get("/api/review/sessions/{sid}", tags=["review"])
async def get_session(request: Request, sid: str) -> dict[str, Any]:
    """One session: its summary, the timeline (events, a lane per player, verdicts), its cameras
    with their segments and frame times, and the gaps in the video."""
    folder = open_session(request, sid)

    def build() -> dict[str, Any]:
        out = summary(sid, folder)
        out.update(timeline(folder))
        out["cameras"] = [camera_info(sid, folder, name) for name in folder.camera_names()]
        out["gaps"] = [g.describe() for g in folder.video_gaps()]
        return out

    return await run_in_threadpool(build)


@router.get("/api/review/sessions/{sid}/video/{camera}/{segment}", tags=["review"], response_class=FileResponse)
def get_segment(request: Request, sid: str, camera: str, segment: str) -> FileResponse:
    """One video segment (fragmented MP4), with range requests."""
    folder = open_session(request, sid)
    if camera not in folder.camera_names():
        raise NoSuchCamera(f"session {sid!r} has no camera {camera!r}", camera=camera)
    path = folder.camera_dir(camera) / segment
    if not SEGMENT_NAME.match(segment) or not path.is_file():
        raise NoSuchSegment(f"camera {camera!r} has no segment {segment!r}", segment=segment)
    return FileResponse(path, media_type="video/mp4", headers={"Cache-Control": "max-age=3600"})


@router.get("/api/review/sessions/{sid}/tracks/{camera}", tags=["review"])
async def get_tracks(request: Request, sid: str, camera: str) -> dict[str, Any]:
    """What perception saw in each processed frame of a camera: cards, landmarks; its zones and seats."""
    folder = open_session(request, sid)
    if camera not in folder.camera_names():
        raise NoSuchCamera(f"session {sid!r} has no camera {camera!r}", camera=camera)
    return await run_in_threadpool(tracks, folder, camera)


@router.post("/api/review/sessions/{sid}/ask", tags=["review"])
async def post_ask(request: Request, sid: str, body: AskIn) -> dict[str, Any]:
    """Did PLAYER give SIGNAL between `from` and `to`? yes, no or unsure, with the closest frame and the measure."""
    folder = open_session(request, sid)
    return await run_in_threadpool(ask, folder, body)


@router.get("/api/review/sessions/{sid}/evidence/{entry}.png", tags=["review"], response_class=FileResponse)
async def get_evidence(request: Request, sid: str, entry: int) -> Any:
    """A signal entry's measure over time against its line (PNG)."""
    from fastapi.responses import Response  # deferred: only a picture answer

    folder = open_session(request, sid)
    png = await run_in_threadpool(evidence_png, folder, entry)
    return Response(png, media_type="image/png", headers={"Cache-Control": "max-age=3600"})


@router.get("/api/review/sessions/{sid}/cards/{entry}.jpg", tags=["review"], response_class=FileResponse)
async def get_cards(request: Request, sid: str, entry: int) -> Any:
    """For an entry decided from cards read: each crop beside the template it matched (JPEG)."""
    from fastapi.responses import Response  # deferred: only a picture answer

    folder = open_session(request, sid)
    data = await run_in_threadpool(cards_jpeg, folder, entry)
    return Response(data, media_type="image/jpeg", headers={"Cache-Control": "max-age=3600"})


@router.get("/api/review/compare", tags=["review"])
async def get_compare(request: Request, a: str, b: str) -> dict[str, Any]:
    """Two logs of the same recording side by side: which actions and signals differ."""
    return await run_in_threadpool(compare, root_of(request), a, b)


# -- serving the review alone --------------------------------------------------------------------


def review_app(root: str | Path | None, *, challenges: Any = None) -> FastAPI:
    """An application with the review (and, given `challenges`, the challenge) routes, the
    static files and the table's error style."""
    from fastapi.exceptions import RequestValidationError  # deferred: only a standalone app
    from fastapi.staticfiles import StaticFiles  # deferred: as above
    from starlette.exceptions import HTTPException as StarletteHTTPException  # deferred: as above

    from tablereferee.web import app as web  # deferred: the table app's error style

    app = FastAPI(title="Table referee: review", version="1")
    app.state.review_root = None if root is None else Path(root)

    @app.exception_handler(RefereeError)
    async def referee_error(request: Request, exc: RefereeError) -> Any:
        return web.error_response(exc)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> Any:
        return web.error_response(web.BadRequest(web._validation_message(list(exc.errors()))))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Any:
        if exc.status_code == 405:
            return web.error_response(web.MethodNotAllowed(f"{request.method} is not served at {request.url.path}"))
        return web.error_response(web.NotFound(f"nothing is served at {request.url.path}"))

    from tablereferee.web import challenge_routes  # deferred: the challenge's routes (OpenCV)

    app.include_router(router)
    if challenges is not None:
        challenge_routes.attach(app, challenges)
    app.include_router(challenge_routes.router)
    app.mount("/static", StaticFiles(directory=STATIC, check_dir=False), name="static")
    return app


def main(argv: list[str] | None = None) -> None:
    import argparse  # deferred: only the command line

    import uvicorn  # deferred: as above

    parser = argparse.ArgumentParser(description="serve the review page of recorded sessions")
    parser.add_argument("root", help="a session folder, or a folder of session folders")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--challenge-from", help="a session whose recording fills a challenge buffer (demo)")
    parser.add_argument("--challenge-until", type=float, help="session seconds the buffer is filled up to")
    args = parser.parse_args(argv)
    challenges = None
    if args.challenge_from:
        from tablereferee.challenge import Challenges, fill_from_session  # deferred: only a demo buffer

        challenges = Challenges()
        fill_from_session(challenges.buffer, args.challenge_from, until=args.challenge_until)
        challenges.teams_from_session(args.challenge_from)
    app = review_app(args.root, challenges=challenges)
    if challenges is not None:
        app.router.on_shutdown.append(challenges.close)
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level="warning")
    server = uvicorn.Server(config)

    import asyncio  # deferred: only the command line

    async def run() -> None:
        task = asyncio.create_task(server.serve())
        while not server.started:
            if task.done():
                task.result()
                return
            await asyncio.sleep(0.05)
        port = server.servers[0].sockets[0].getsockname()[1]
        print(f"serving on http://{args.host}:{port}", flush=True)
        await task

    asyncio.run(run())


if __name__ == "__main__":
    main()
