"""The practice page's API: drills scored for nonchalance, Free Signal enrolment, the spotter's
quiz, and each player's history (docs/practice.md).

    GET  /practice                                   the practice page
    GET  /api/practice/cards                         the Signal cards a camera drill can score
    POST /api/practice/drill                         draw a card: {player, signal?, team?, window?}
    POST /api/practice/drill/{id}/frame?t=SECONDS    one camera frame (a JPEG body): read so far?
    POST /api/practice/drill/{id}/camera             watch a table camera or a video: {source, seconds?}
    POST /api/practice/drill/{id}/finish             the verdict: seen, cue, delay, nonchalance, evidence
    GET  /api/practice/history/{player}              a player's drills, oldest first, and per-signal figures
    POST /api/practice/free-signal                   enrol a team's Free Signal from 3-5 demonstrations
    POST /api/practice/free-signal/{team}/try        try it at once on a demonstration
    POST /api/practice/calibration                   a player's own lines from 2-3 performances of a signal
    GET  /api/practice/calibration/{player}          that player's lines (kept with the table)
    GET  /api/practice/quiz                          a round of clips (who signalled, if anyone, is not said)
    GET  /api/practice/quiz/clips/{id}/{k}.jpg       a clip's frames
    POST /api/practice/quiz/answer                   one answer, scored: hit, miss, false alarm...
    GET  /api/practice/quiz/leaderboard              every quiz-taker's hits, misses, false alarms, d'

The application includes it with `app.include_router(practice.router)`. Every refusal is
`{"error": {"name", "message"}}` with a 4xx status (`setup_routes.NamedErrors`). A team's own
card (`{"team": "Reds"}`) needs the team's PIN on the caller's token (the hub's `secret`), is
answered to that caller only, and is kept in the history as "the team's own signal"; its
drills never become quiz clips. The history lives in `<sessions>/practice.sqlite`
(`app.state.practice_dir`, else the review page's `app.state.review_root`, else `sessions`).
"""

from __future__ import annotations

import random
import secrets
import threading
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import FileResponse, Response
from pydantic import BaseModel, Field

from referee.signal_cards import BY_ID, FREE_SIGNAL
from tablereferee.practice.clips import ClipStore
from tablereferee.practice.drill import WINDOW, Drill, drillable
from tablereferee.practice.enrol import Enrolment, calibrate_player, enrol, try_free
from tablereferee.practice.store import PracticeStore
from tablereferee.web.auth import NotAllowed, WebError
from tablereferee.web.setup_routes import NamedErrors
from vision.signals.personal import Profile
from vision.video import open_frames

STATIC = Path(__file__).resolve().parent / "static"
MAX_DRILLS = 32  # drills kept open at once (the oldest are closed first)
MAX_FRAME_BYTES = 4_000_000


class NoSuchDrill(WebError):
    """A drill id this server did not start (or has forgotten)."""

    status = 404


class NoFreeSignal(WebError):
    """A team with no Free Signal enrolled on this server."""

    status = 404


class NoSuchClip(WebError):
    """A quiz clip (or frame of one) this table does not have."""

    status = 404


class FrameTooBig(WebError):
    """A camera frame larger than a drill takes."""

    status = 413


class NoClips(WebError):
    """A quiz asked for before any drill or session gave a clip."""

    status = 409


class BadPracticeField(WebError):
    """A practice request with a field of the wrong kind."""

    status = 422


class Practice:
    """The practice state of one application: open drills, the history, the clips, the Free Signals."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.store = PracticeStore(folder / "practice.sqlite")
        self.clips = ClipStore(folder / "practice_clips")
        self.drills: dict[str, Drill] = {}
        self.enrolments: dict[str, Enrolment] = {}
        self.lock = threading.Lock()

    def add(self, drill: Drill) -> None:
        with self.lock:
            while len(self.drills) >= MAX_DRILLS:
                old = next(iter(self.drills))
                self.drills.pop(old).close()
            self.drills[drill.id] = drill

    def get(self, drill_id: str) -> Drill:
        with self.lock:
            drill = self.drills.get(drill_id)
        if drill is None:
            raise NoSuchDrill(f"there is no drill {drill_id!r}: start one first")
        return drill

    def close(self) -> None:
        with self.lock:
            for d in self.drills.values():
                d.close()
            self.drills.clear()
        self.store.close()


def practice_of(request: Request) -> Practice:
    state = request.app.state
    with _CREATE:
        found = getattr(state, "practice", None)
        if found is None:
            folder = getattr(state, "practice_dir", None) or getattr(state, "review_root", None) or "sessions"
            found = state.practice = Practice(Path(folder))
    return found


_CREATE = threading.Lock()
router = APIRouter(route_class=NamedErrors, tags=["practice"])


# -- the page ------------------------------------------------------------------------------


@router.get("/practice", response_class=FileResponse, include_in_schema=False)
def page() -> FileResponse:
    return FileResponse(STATIC / "practice.html", headers={"Cache-Control": "no-cache"})


@router.get("/practice.js", include_in_schema=False)
def page_js() -> FileResponse:
    return FileResponse(STATIC / "practice.js", media_type="text/javascript", headers={"Cache-Control": "no-cache"})


@router.get("/practice.css", include_in_schema=False)
def page_css() -> FileResponse:
    return FileResponse(STATIC / "practice.css", media_type="text/css", headers={"Cache-Control": "no-cache"})


# -- drills --------------------------------------------------------------------------------


@router.get("/api/practice/cards")
def cards() -> dict[str, Any]:
    """The Signal cards a camera drill can score (every one is visible: printed on its card)."""
    return {
        "cards": [{"signal": s.id, "text": BY_ID[s.id].text, "cue": s.cue} for s in drillable()],
        "window": WINDOW,
    }


class DrillIn(BaseModel):
    player: str = Field(min_length=1, max_length=60)
    signal: str | None = Field(None, max_length=60, description="a card id, or none for a random visible card")
    team: str | None = Field(None, max_length=60, description="draw the team's own card (needs its PIN)")
    free: bool = Field(False, description="drill the team's Free Signal (needs the team)")
    window: float = Field(WINDOW, gt=0.5, le=60.0)


def _team_card(request: Request, team: str) -> str:
    """The team's own signal, for a caller holding its PIN (the hub decides)."""
    hub = getattr(request.app.state, "hub", None)
    if hub is None:
        raise NotAllowed("this server referees no table: a team's own card needs a table and its PIN", team=team)
    from tablereferee.web.auth import current_grant  # deferred: the hub's tokens exist only with a table

    grant = current_grant(request, None)
    secret = hub.secret(grant, team)
    signal = (secret.get("signal") or {}).get("id")
    if not signal:
        raise NotAllowed(f"{team} has no signal drawn yet", team=team)
    return str(signal)


@router.post("/api/practice/drill")
def start_drill(body: DrillIn, request: Request) -> dict[str, Any]:
    practice = practice_of(request)
    secret = False
    signal = body.signal
    free = None
    if body.free or signal == FREE_SIGNAL:
        if not body.team:
            raise BadPracticeField("a Free Signal drill needs the team whose signal it is", field="team")
        enrolment = practice.enrolments.get(body.team)
        free = enrolment.signal if enrolment else None
        signal = FREE_SIGNAL
    elif body.team:
        signal = _team_card(request, body.team)
        secret = True
    player = body.player.strip()
    saved = practice.store.profile(player)
    catalogue = Profile.from_dict(saved).catalogue() if saved else None
    drill = Drill.start(
        player, signal, secret=secret, team=body.team, free=free, window=body.window, catalogue=catalogue
    )
    drill.prepare()
    practice.add(drill)
    return {"drill": drill.id, "player": drill.player, "card": drill.card(), "window": drill.window, "countdown": 3}


@router.post(
    "/api/practice/drill/{drill_id}/frame",
    openapi_extra={"requestBody": {"content": {"image/jpeg": {"schema": {"type": "string", "format": "binary"}}}}},
)
async def drill_frame(
    drill_id: str,
    request: Request,
    t: Annotated[float, Query(ge=0, le=3600, description="seconds since capture began")],
) -> dict[str, Any]:
    from starlette.concurrency import run_in_threadpool  # deferred: only frames run the models off the loop

    drill = practice_of(request).get(drill_id)
    data = await request.body()
    if len(data) > MAX_FRAME_BYTES:
        raise FrameTooBig(f"a frame may be at most {MAX_FRAME_BYTES // 1_000_000} MB")
    return await run_in_threadpool(drill.add_jpeg, data, t)


class CameraIn(BaseModel):
    source: str = Field(min_length=1, max_length=1000, description='a camera index ("0") or a video file')
    seconds: float | None = Field(None, gt=0, le=60.0)
    fps: float = Field(10.0, gt=0, le=30.0)


@router.post("/api/practice/drill/{drill_id}/camera")
def drill_camera(drill_id: str, body: CameraIn, request: Request) -> dict[str, Any]:
    """Watch a table camera (or a recorded video) for the drill's window, then answer."""
    practice = practice_of(request)
    drill = practice.get(drill_id)
    hub = getattr(request.app.state, "hub", None)
    if hub is not None:
        from tablereferee.web.auth import current_grant  # deferred: the hub's tokens exist only with a table

        if not current_grant(request, None).scorer:
            raise NotAllowed("a table camera is opened by the scorer: use the browser's camera instead")
    seconds = body.seconds or drill.window
    next_t = 0.0
    with open_frames(body.source) as src:
        for fr in src:
            if fr.time > seconds + 1e-6:
                break
            if fr.time + 1e-6 >= next_t:
                drill.add_image(fr.image, max(fr.time, drill.frames[-1].t + 1e-3 if drill.frames else 0.0))
                next_t += 1.0 / body.fps
    return _finish(practice, drill)


@router.post("/api/practice/drill/{drill_id}/finish")
def finish_drill(drill_id: str, request: Request) -> dict[str, Any]:
    practice = practice_of(request)
    return _finish(practice, practice.get(drill_id))


def _finish(practice: Practice, drill: Drill) -> dict[str, Any]:
    fresh = drill.result is None
    result = drill.finish()
    if fresh and drill.frames:
        practice.store.add_drill(result, secret=drill.secret)
        if not drill.secret:
            practice.clips.from_drill(drill, result)
    return result


@router.get("/api/practice/history/{player}")
def history(player: str, request: Request) -> dict[str, Any]:
    store = practice_of(request).store
    return {"player": player, "drills": store.history(player), "per_signal": store.summary(player)}


# -- Free Signal enrolment -----------------------------------------------------------------


class Demo(BaseModel):
    frames: list[str] = Field(min_length=2, max_length=120, description="the demonstration's frames, base64 JPEGs")
    fps: float = Field(10.0, gt=0, le=30)


class FreeIn(BaseModel):
    team: str = Field(min_length=1, max_length=60)
    player: str = Field("player", min_length=1, max_length=60)
    demonstrations: list[Demo] = Field(min_length=1, max_length=8)


@router.post("/api/practice/free-signal")
def free_signal(body: FreeIn, request: Request) -> dict[str, Any]:
    """Learn a team's Free Signal from 3-5 demonstrations; refused with the reason when they
    disagree with each other. Answers the threshold and each demonstration's cost."""
    practice = practice_of(request)
    enrolment = enrol(body.team, body.player, [(d.frames, d.fps) for d in body.demonstrations])
    practice.enrolments[body.team] = enrolment
    return enrolment.to_dict()


@router.post("/api/practice/free-signal/{team}/try")
def free_signal_try(team: str, body: Demo, request: Request) -> dict[str, Any]:
    enrolment = practice_of(request).enrolments.get(team)
    if enrolment is None:
        raise NoFreeSignal(f"{team} has no Free Signal enrolled on this server yet: record 3 to 5 demonstrations")
    return try_free(enrolment, body.frames, body.fps)


# -- each player's calibration ---------------------------------------------------------------


class CalibrationIn(BaseModel):
    player: str = Field(min_length=1, max_length=60)
    signal: str = Field(min_length=1, max_length=60)
    performances: list[Demo] = Field(min_length=1, max_length=5)


@router.post("/api/practice/calibration")
def calibration(body: CalibrationIn, request: Request) -> dict[str, Any]:
    """Move a player's lines for one signal to their own 2-3 performances of it; kept with the
    table, and used by that player's drills from then on."""
    store = practice_of(request).store
    if body.signal not in {s.id for s in drillable()}:
        raise BadPracticeField(f"{body.signal!r} is not a signal a camera drill can calibrate", field="signal")
    profile = calibrate_player(
        body.player, body.signal, [(d.frames, d.fps) for d in body.performances], store.profile(body.player)
    )
    store.save_profile(body.player, profile.to_dict())
    return {**profile.to_dict(), "words": "; ".join(profile.notes) or "the catalogue's lines already fit"}


@router.get("/api/practice/calibration/{player}")
def get_calibration(player: str, request: Request) -> dict[str, Any]:
    saved = practice_of(request).store.profile(player)
    return saved or {"format": "player-calibration/1", "player": player, "params": {}, "radius": {}, "notes": []}


# -- the spotter's quiz --------------------------------------------------------------------


@router.get("/api/practice/quiz")
def quiz(request: Request, n: Annotated[int, Query(ge=1, le=20)] = 5) -> dict[str, Any]:
    clips = practice_of(request).clips.all()
    if not clips:
        raise NoClips("no clips yet: every drill read by the referee becomes one")
    pick = random.sample(clips, min(n, len(clips)))
    return {
        "round": secrets.token_urlsafe(6),
        "clips": [c.public() for c in pick],
        "players": sorted({c.player for c in clips}),
        "signals": [{"signal": s.id, "text": BY_ID[s.id].text} for s in drillable()],
    }


@router.get("/api/practice/quiz/clips/{clip}/{k}.jpg", response_class=Response)
def clip_frame(clip: str, k: int, request: Request) -> Response:
    path = practice_of(request).clips.frame(clip, k)
    if path is None:
        raise NoSuchClip(f"clip {clip!r} has no frame {k}")
    return FileResponse(path, media_type="image/jpeg")


class AnswerIn(BaseModel):
    player: str = Field(min_length=1, max_length=60, description="who is taking the quiz")
    clip: str = Field(min_length=1, max_length=60)
    said_player: str | None = Field(None, max_length=60, description="who signalled; none: nobody")
    said_signal: str | None = Field(None, max_length=60)


@router.post("/api/practice/quiz/answer")
def quiz_answer(body: AnswerIn, request: Request) -> dict[str, Any]:
    practice = practice_of(request)
    clip = practice.clips.get(body.clip)
    if clip is None:
        raise NoSuchClip(f"there is no clip {body.clip!r}")
    truth = (clip.truth_player, clip.truth_signal)
    said = (body.said_player or None, body.said_signal or None)
    outcome = practice.store.add_answer(body.player, clip.id, truth, said)
    return {
        "outcome": outcome,
        "truth": {"player": clip.truth_player, "signal": clip.truth_signal},
        "tally": practice.store.tally(body.player).to_dict(),
    }


@router.get("/api/practice/quiz/leaderboard")
def leaderboard(request: Request) -> dict[str, Any]:
    return {"leaderboard": practice_of(request).store.leaderboard()}
