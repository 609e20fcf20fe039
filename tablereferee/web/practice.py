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
    GET  /api/practice/quiz/sources                  how many clips the recorded sessions and the drills gave
    GET  /api/practice/quiz/clips/{id}/{k}.jpg       a clip's frames
    POST /api/practice/quiz/answer                   one answer, scored: hit, miss, false alarm...
    GET  /api/practice/quiz/leaderboard              every quiz-taker's hits, misses, false alarms, d'
    POST /api/practice/rehearsal                     a team rehearsal round: the team's card (needs its PIN)
    GET  /api/practice/rehearsal?team=T              the team's open rounds (for the teammate's page)
    GET  /api/practice/rehearsal/{id}                a round's state, and once over its figures
    POST /api/practice/rehearsal/{id}/seen           the teammate's tap
    POST /api/practice/rehearsal/{id}/finish         the round's figures: the reaction, early taps, the quiz's record
    GET  /api/practice/teams/{team}/rehearsals       the team's rounds (needs its PIN)

The application includes it with `app.include_router(practice.router)`. Every refusal is
`{"error": {"name", "message"}}` with a 4xx status (`setup_routes.NamedErrors`). A team's own
card (`{"team": "Reds"}`) needs the team's PIN on the caller's token (the hub's `secret`), is
answered to that caller only, and is kept in the history as "the team's own signal"; its
drills never become quiz clips. Quiz clips are also cut from the recorded sessions under
`app.state.review_root` (`tablereferee.practice.sessions`); a clip of a team's secret signal is
shown, answered and revealed only to a caller holding that team's PIN. The history lives in `<sessions>/practice.sqlite`
(`app.state.practice_dir`, else the review page's `app.state.review_root`, else `sessions`).
"""

from __future__ import annotations

import random
import secrets
import threading
import time
import urllib.parse
from collections.abc import Collection
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import FileResponse, Response
from pydantic import BaseModel, Field

from referee.secrecy import secret_signals
from referee.signal_cards import BY_ID, FREE_SIGNAL
from tablereferee.practice.clips import Clip, ClipStore, visible
from tablereferee.practice.drill import WINDOW, Drill, drillable
from tablereferee.practice.enrol import Enrolment, calibrate_player, calibration_words, enrol, lines_of, try_free
from tablereferee.practice.rehearsal import Rehearsal
from tablereferee.practice.store import PracticeStore
from tablereferee.web.auth import Grant, NotAllowed, WebError
from tablereferee.web.setup_routes import NamedErrors
from vision.signals.personal import Profile
from vision.video import open_frames

STATIC = Path(__file__).resolve().parent / "static"
MAX_DRILLS = 32  # drills kept open at once (the oldest are closed first)
MAX_FRAME_BYTES = 4_000_000
MAX_REHEARSALS = 32  # rounds kept open at once
REHEARSAL_WINDOW = 8.0  # seconds a rehearsal round watches: the teammate needs time to tap


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


class NoSuchRehearsal(WebError):
    """A rehearsal round this server did not start (or has forgotten)."""

    status = 404


class RehearsalFinished(WebError):
    """A tap on a rehearsal round that is over."""

    status = 409


class Practice:
    """The practice state of one application: open drills, the history, the clips, the Free Signals."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.store = PracticeStore(folder / "practice.sqlite")
        self.clips = ClipStore(folder / "practice_clips")
        self.drills: dict[str, Drill] = {}
        self.enrolments: dict[str, Enrolment] = {}
        self.rehearsals: dict[str, Rehearsal] = {}
        self.lock = threading.Lock()
        self.cutting = threading.Lock()  # one cut of the recorded sessions at a time

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

    def add_rehearsal(self, rehearsal: Rehearsal) -> None:
        with self.lock:
            while len(self.rehearsals) >= MAX_REHEARSALS:
                self.rehearsals.pop(next(iter(self.rehearsals)))
            self.rehearsals[rehearsal.id] = rehearsal

    def rehearsal(self, rid: str) -> Rehearsal:
        with self.lock:
            found = self.rehearsals.get(rid)
        if found is None:
            raise NoSuchRehearsal(f"there is no rehearsal round {rid!r}: the signaller starts one")
        return found

    def rehearsal_of(self, drill: Drill) -> Rehearsal | None:
        with self.lock:
            return next((r for r in self.rehearsals.values() if r.drill is drill), None)

    def close(self) -> None:
        with self.lock:
            for d in self.drills.values():
                d.close()
            self.drills.clear()
        self.store.close()


def practice_of(request: Request) -> Practice:
    return practice_for(request.app)


def practice_for(app: Any) -> Practice:
    """The practice state of an application (made on first use)."""
    state = app.state
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


def _grant(request: Request) -> Grant | None:
    """The caller's grant on the table this server referees (None: it referees none)."""
    hub = getattr(request.app.state, "hub", None)
    if hub is None:
        return None
    from tablereferee.web.auth import current_grant  # deferred: the hub's tokens exist only with a table

    return current_grant(request, None)


def _teams(request: Request) -> set[str]:
    """The teams whose PIN the caller holds."""
    grant = _grant(request)
    return set(grant.teams) if grant is not None else set()


def _secret(request: Request, team: str) -> dict[str, Any]:
    """The team's secret, for a caller holding its PIN (the hub decides; NotAllowed without a table)."""
    hub = getattr(request.app.state, "hub", None)
    if hub is None:
        raise NotAllowed("this server referees no table: a team's own card needs a table and its PIN", team=team)
    grant = _grant(request)
    assert grant is not None
    return dict(hub.secret(grant, team))


def _check_team(request: Request, team: str) -> None:
    """A team's Free Signal is the team's: on a server that referees a table, its PIN is needed."""
    if getattr(request.app.state, "hub", None) is not None:
        _secret(request, team)


def live_secrets(app: Any) -> dict[str, set[str]]:
    """signal -> the teams whose secret signal it is on the table this server referees (now
    or earlier in its log): the quiz shows those clips only to the team."""
    hub = getattr(app.state, "hub", None)
    keeper = getattr(hub, "keeper", None) if hub is not None else None
    if keeper is None:
        return {}
    key = (id(keeper), getattr(hub, "version", None))
    cached = getattr(app.state, "practice_secrets", None)
    if cached is not None and cached[0] == key:  # the log is read again only once it has changed
        return dict(cached[1])
    found = _live_secrets(keeper)
    if found is None:  # a table being set up or closed: hide as if every signal were a secret, this once
        return {s.id: {"?"} for s in drillable()}
    app.state.practice_secrets = (key, found)
    return dict(found)


def live_members(app: Any) -> dict[str, set[str]] | None:
    """team -> its players, on the table this server referees (None: it referees none)."""
    hub = getattr(app.state, "hub", None)
    if hub is None or getattr(hub, "keeper", None) is None:
        return None
    try:
        return {str(team): set(players) for team, players in hub.teams().items()}
    except Exception:  # noqa: BLE001  (a table half set up or closed: every team's clips hidden, as if unknown)
        return None


def _live_secrets(keeper: Any) -> dict[str, set[str]] | None:
    try:
        found = secret_signals(getattr(keeper, "engine", None), keeper.contents())
        now = getattr(keeper.state, "signals", None) or {}
    except Exception:  # noqa: BLE001  (whatever a table half set up or closed raises: the caller hides all)
        return None
    for team, signal in dict(now).items():
        if isinstance(signal, str) and signal != "hidden":
            found.setdefault(signal, set()).add(str(team))
    return found


def team_card(request: Request, team: str) -> str:
    """The team's own signal, for a caller holding its PIN (the hub decides)."""
    secret = _secret(request, team)
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
        _check_team(request, body.team)
        enrolment = practice.enrolments.get(body.team)
        free = enrolment.signal if enrolment else None
        signal = FREE_SIGNAL
    elif body.team:
        signal = team_card(request, body.team)
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

    arrived = time.monotonic()
    practice = practice_of(request)
    drill = practice.get(drill_id)
    data = await request.body()
    if len(data) > MAX_FRAME_BYTES:
        raise FrameTooBig(f"a frame may be at most {MAX_FRAME_BYTES // 1_000_000} MB")
    out = await run_in_threadpool(drill.add_jpeg, data, t, arrived)
    rehearsal = practice.rehearsal_of(drill)
    if rehearsal is not None:
        out["tapped"] = bool(rehearsal.taps)
    return out


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
    _check_team(request, body.team)
    enrolment = enrol(body.team, body.player, [(d.frames, d.fps) for d in body.demonstrations])
    practice.enrolments[body.team] = enrolment
    return enrolment.to_dict()


@router.post("/api/practice/free-signal/{team}/try")
def free_signal_try(team: str, body: Demo, request: Request) -> dict[str, Any]:
    _check_team(request, team)
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
    before = store.profile(body.player)
    profile = calibrate_player(body.player, body.signal, [(d.frames, d.fps) for d in body.performances], before)
    store.save_profile(body.player, profile.to_dict())
    old = {line["name"]: line["yours"] for line in lines_of(body.signal, before)}
    lines = [{**line, "before": old.get(line["name"], line["catalogue"])} for line in lines_of(body.signal, profile)]
    return {
        **profile.to_dict(),
        "signal": body.signal,
        "lines": lines,
        "words": calibration_words(body.signal, profile, lines),
    }


@router.get("/api/practice/calibration/{player}")
def get_calibration(player: str, request: Request) -> dict[str, Any]:
    """A player's lines (kept with the table): per signal, the catalogue's and theirs."""
    saved = practice_of(request).store.profile(player)
    out = saved or {"format": "player-calibration/1", "player": player, "params": {}, "radius": {}, "notes": []}
    return {**out, "lines": {s.id: lines_of(s.id, saved) for s in drillable()}}


# -- the spotter's quiz --------------------------------------------------------------------


def _cut_sessions(request: Request, practice: Practice) -> None:
    """Cut the quiz clips of every recorded session under the review's folder not cut yet (or
    grown since): a session is read once, not on every round."""
    root = getattr(request.app.state, "review_root", None)
    if root is None or not Path(root).exists():
        return
    from tablereferee.practice.sessions import cut_session  # deferred: PyAV and the session reader
    from tablereferee.web.review import sessions_in  # deferred: the review's own listing of sessions

    with practice.cutting:
        for sid, folder in sessions_in(Path(root)).items():
            cut_session(practice.clips, sid, folder)


def _shown(request: Request, practice: Practice, taker: str | None = None) -> list[Clip]:
    """The clips this caller may be shown: none of a team's secret signal unless the caller
    holds its PIN; with `taker`, none of the taker's own drills or own signals."""
    teams = _teams(request)
    secret, members = live_secrets(request.app), live_members(request.app)
    out = []
    for clip in practice.clips.all():
        if not visible(clip, teams, secret, members):
            continue
        if taker and (clip.truth_player == taker or (clip.kind == "drill" and clip.player == taker)):
            continue
        out.append(clip)
    return out


def _clip(request: Request, practice: Practice, clip_id: str) -> Clip:
    clip = practice.clips.get(clip_id)
    if clip is None or not visible(clip, _teams(request), live_secrets(request.app), live_members(request.app)):
        raise NoSuchClip(f"there is no clip {clip_id!r}")  # a clip the caller may not see does not exist for them
    return clip


def _counts(clips: Collection[Clip]) -> dict[str, int]:
    return {
        "sessions": sum(c.kind == "session" for c in clips),
        "drills": sum(c.kind != "session" for c in clips),
    }


@router.get("/api/practice/quiz")
def quiz(
    request: Request,
    n: Annotated[int, Query(ge=1, le=20)] = 5,
    player: Annotated[str | None, Query(max_length=60, description="the quiz-taker: not their own clips")] = None,
) -> dict[str, Any]:
    """A round of clips from the recorded sessions and the other players' drills."""
    practice = practice_of(request)
    _cut_sessions(request, practice)
    clips = _shown(request, practice, (player or "").strip() or None)
    if not clips:
        raise NoClips("no clips yet: every drill read by the referee and every recorded session gives some")
    pick = random.sample(clips, min(n, len(clips)))
    return {
        "round": secrets.token_urlsafe(6),
        "clips": [c.public() for c in pick],
        "players": sorted({p for c in pick for p in c.public()["players"]}),
        "signals": [{"signal": s.id, "text": BY_ID[s.id].text} for s in drillable()],
        "sources": _counts(clips),
    }


@router.get("/api/practice/quiz/sources")
def quiz_sources(request: Request) -> dict[str, Any]:
    """How many clips the caller may be shown, from recorded sessions and from drills."""
    practice = practice_of(request)
    _cut_sessions(request, practice)
    return _counts(_shown(request, practice))


@router.get("/api/practice/quiz/clips/{clip}/{k}.jpg", response_class=Response)
def clip_frame(clip: str, k: int, request: Request) -> Response:
    practice = practice_of(request)
    _clip(request, practice, clip)
    path = practice.clips.frame(clip, k)
    if path is None:
        raise NoSuchClip(f"clip {clip!r} has no frame {k}")
    return FileResponse(path, media_type="image/jpeg", headers={"Cache-Control": "private, max-age=3600"})


class AnswerIn(BaseModel):
    player: str = Field(min_length=1, max_length=60, description="who is taking the quiz")
    clip: str = Field(min_length=1, max_length=60)
    said_player: str | None = Field(None, max_length=60, description="who signalled; none: nobody")
    said_signal: str | None = Field(None, max_length=60)


@router.post("/api/practice/quiz/answer")
def quiz_answer(body: AnswerIn, request: Request) -> dict[str, Any]:
    """One answer, scored; the truth is told only now, and only to a caller who may see the clip."""
    practice = practice_of(request)
    clip = _clip(request, practice, body.clip)
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


# -- team rehearsal ----------------------------------------------------------------------------


class RehearsalIn(BaseModel):
    team: str = Field(min_length=1, max_length=60)
    signaller: str = Field(min_length=1, max_length=60, description="who gives the signal (this page's camera)")
    spotter: str | None = Field(None, max_length=60, description="the teammate who taps seen")
    window: float = Field(REHEARSAL_WINDOW, gt=0.5, le=60.0)


@router.post("/api/practice/rehearsal")
def start_rehearsal(body: RehearsalIn, request: Request) -> dict[str, Any]:
    """A round: the team's own card is drawn (only for the team's PIN) and watched like a drill;
    the teammate opens `spot` on their phone and taps seen."""
    practice = practice_of(request)
    signal = team_card(request, body.team)
    signaller = body.signaller.strip()
    saved = practice.store.profile(signaller)
    catalogue = Profile.from_dict(saved).catalogue() if saved else None
    drill = Drill.start(signaller, signal, secret=True, team=body.team, window=body.window, catalogue=catalogue)
    drill.prepare()
    practice.add(drill)
    spotter = (body.spotter or "").strip() or None
    rehearsal = Rehearsal.start(drill, team=body.team, signaller=signaller, spotter=spotter)
    practice.add_rehearsal(rehearsal)
    link = {"rehearsal": rehearsal.id, "key": rehearsal.key, **({"player": spotter} if spotter else {})}
    return {
        **rehearsal.status(),
        "drill": drill.id,
        "card": drill.card(),
        "countdown": 3,
        "spot": "/practice?" + urllib.parse.urlencode(link),
    }


def _round_of(request: Request, rid: str, key: str | None) -> Rehearsal:
    """The round, for its team only: the link its signaller shared (`key`) or the team's PIN."""
    rehearsal = practice_of(request).rehearsal(rid)
    by_link = bool(key and secrets.compare_digest(key.encode(), rehearsal.key.encode()))
    if not by_link and rehearsal.team not in _teams(request):
        raise NotAllowed(
            f"this round is {rehearsal.team}'s: open it from the link its signaller shared, or unlock the team",
            team=rehearsal.team,
        )
    return rehearsal


@router.get("/api/practice/rehearsal")
def open_rehearsals(request: Request, team: Annotated[str, Query(min_length=1, max_length=60)]) -> dict[str, Any]:
    """A team's rounds not yet over, newest first (the teammate's page finds its round here;
    needs the team's PIN)."""
    _secret(request, team)
    practice = practice_of(request)
    with practice.lock:
        rounds = [r for r in practice.rehearsals.values() if r.team == team and r.result is None]
    return {"team": team, "open": [r.status() for r in reversed(rounds)]}


def _with_card(request: Request, rehearsal: Rehearsal, out: dict[str, Any]) -> dict[str, Any]:
    """The round's drill verdict (its card, its cue) for a caller holding the team's PIN only."""
    if rehearsal.result is not None and rehearsal.team in _teams(request):
        out["drill"] = rehearsal.result["drill"]
    return out


KeyQuery = Annotated[str | None, Query(max_length=64, description="the key of the round's link")]


@router.get("/api/practice/rehearsal/{rid}")
def rehearsal_status(rid: str, request: Request, key: KeyQuery = None) -> dict[str, Any]:
    rehearsal = _round_of(request, rid, key)
    return _with_card(request, rehearsal, rehearsal.status())


class SeenIn(BaseModel):
    spotter: str | None = Field(None, max_length=60)


@router.post("/api/practice/rehearsal/{rid}/seen")
def rehearsal_seen(rid: str, request: Request, body: SeenIn | None = None, key: KeyQuery = None) -> dict[str, Any]:
    """The teammate spotted the signal: the tap's arrival is its time."""
    now = time.monotonic()
    rehearsal = _round_of(request, rid, key)
    if rehearsal.result is not None:
        raise RehearsalFinished("this round is over: the signaller starts a new one")
    if body is not None and body.spotter and rehearsal.spotter is None:
        rehearsal.spotter = body.spotter.strip() or None
    return rehearsal.tap(now)


@router.post("/api/practice/rehearsal/{rid}/finish")
def rehearsal_finish(rid: str, request: Request, key: KeyQuery = None) -> dict[str, Any]:
    """The round's figures: the referee's verdict, the teammate's reaction, the quiz's record."""
    practice = practice_of(request)
    rehearsal = _round_of(request, rid, key)
    if rehearsal.result is None:
        verdict = _finish(practice, rehearsal.drill)
        result = rehearsal.finish(verdict, practice.store.spotting(rehearsal.drill.signal))
        practice.store.add_rehearsal(result)
    return _with_card(request, rehearsal, rehearsal.status())


@router.get("/api/practice/teams/{team}/rehearsals")
def team_rehearsals(team: str, request: Request) -> dict[str, Any]:
    """The team's rounds, oldest first, and their figures (needs the team's PIN)."""
    _secret(request, team)
    rounds = practice_of(request).store.rehearsals(team)
    reactions = [r["reaction"] for r in rounds if r["reaction"] is not None]
    return {
        "team": team,
        "rounds": rounds,
        "spotted": len(reactions),
        "mean_reaction": round(sum(reactions) / len(reactions), 3) if reactions else None,
        "best_reaction": min(reactions) if reactions else None,
    }
