"""The audible drills' API: hum, mumble and table talk with the browser's microphone
(docs/practice.md, "Audible drills").

    GET  /practice-audio                                 the page
    GET  /api/practice/audio-cards                       the audible Signal cards, and the quiet drill
    POST /api/practice/audio-drill                       draw a card: {player, signal?, team?, quiet?, table_talk?}
    POST /api/practice/audio-drill/{id}/audio?rate=HZ    one chunk of the microphone: 16-bit little-endian mono PCM
    POST /api/practice/audio-drill/{id}/finish           the verdict: heard, taken for, delay, nonchalance, evidence
    GET  /api/practice/audio-drill/table-talk.wav        the others' talk a table-talk drill mixes in (played)
    GET  /api/practice/audio-history/{player}            a player's audible drills, oldest first, and per-card figures

The application includes it with `app.include_router(practice_audio.router)`. Refusals are
named errors (`{"error": {"name", "message"}}`, 4xx) as on the practice page. A team's own
card (`{"team": "Reds"}`) goes through the practice page's PIN check (the hub's `secret`) and
is kept as "the team's own signal". Every drill's verdict goes into the practice history
(`practice.sqlite`: the drills table the practice page shows, and the `audio_drills` table
with the quiet drills and the table-talk flag).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import FileResponse
from pydantic import BaseModel, Field

from referee.signal_cards import BY_ID
from tablereferee.practice.audio_drill import (
    AUDIBLE,
    CALIBRATION,
    MAX_SECONDS,
    QUIET,
    RATES,
    TABLE_TALK,
    TALK_DB,
    WINDOW,
    AudioDrill,
    AudioHistory,
    NotPCM,
    card_text,
    check_signal,
)
from tablereferee.web.auth import WebError
from tablereferee.web.practice import practice_of, team_card
from tablereferee.web.setup_routes import NamedErrors

STATIC = Path(__file__).resolve().parent / "static"
MAX_DRILLS = 16  # drills kept open at once (the oldest are forgotten first)
MAX_CHUNK_BYTES = 4_000_000
SAMPLE_RATE = 16_000


class NoSuchAudioDrill(WebError):
    """An audible drill id this server did not start (or has forgotten)."""

    status = 404


class ChunkTooBig(WebError):
    """A microphone chunk larger than a drill takes."""

    status = 413


class AudioPractice:
    """The open audible drills of one application and their own history table."""

    def __init__(self, path: Path) -> None:
        self.history = AudioHistory(path)
        self.drills: dict[str, AudioDrill] = {}
        self.lock = threading.Lock()

    def add(self, drill: AudioDrill) -> None:
        with self.lock:
            while len(self.drills) >= MAX_DRILLS:
                self.drills.pop(next(iter(self.drills)))
            self.drills[drill.id] = drill

    def get(self, drill_id: str) -> AudioDrill:
        with self.lock:
            drill = self.drills.get(drill_id)
        if drill is None:
            raise NoSuchAudioDrill(f"there is no audible drill {drill_id!r}: start one first")
        return drill

    def close(self) -> None:
        self.history.close()


_CREATE = threading.Lock()


def audio_practice_of(request: Request) -> AudioPractice:
    state = request.app.state
    store = practice_of(request).store  # the practice page's history: one SQLite file for both
    with _CREATE:
        found = getattr(state, "practice_audio", None)
        if found is None:
            found = state.practice_audio = AudioPractice(store.path)
    return found


router = APIRouter(route_class=NamedErrors, tags=["practice"])


# -- the page --------------------------------------------------------------------------------


@router.get("/practice-audio", response_class=FileResponse, include_in_schema=False)
def page() -> FileResponse:
    return FileResponse(STATIC / "practice-audio.html", headers={"Cache-Control": "no-cache"})


@router.get("/practice-audio.js", include_in_schema=False)
def page_js() -> FileResponse:
    return FileResponse(
        STATIC / "practice-audio.js", media_type="text/javascript", headers={"Cache-Control": "no-cache"}
    )


@router.get("/practice-audio.css", include_in_schema=False)
def page_css() -> FileResponse:
    return FileResponse(STATIC / "practice-audio.css", media_type="text/css", headers={"Cache-Control": "no-cache"})


# -- drills ----------------------------------------------------------------------------------


@router.get("/api/practice/audio-cards")
def audio_cards() -> dict[str, Any]:
    """The Signal cards a microphone drill can score, and the quiet drill (no signal may be heard)."""
    return {
        "cards": [{"signal": s, "text": BY_ID[s].text} for s in AUDIBLE],
        "quiet": {"signal": QUIET, "text": card_text(QUIET)},
        "window": WINDOW,
        "calibration": CALIBRATION,
        "rate": SAMPLE_RATE,
    }


class AudioDrillIn(BaseModel):
    player: str = Field(min_length=1, max_length=60)
    signal: str | None = Field(
        None, max_length=60, description="an audible card id, 'quiet' (talk, give no signal), or none: a random one"
    )
    team: str | None = Field(None, max_length=60, description="draw the team's own card (needs its PIN)")
    quiet: bool = Field(False, description="the drill in which no signal may be heard: false alarms are counted")
    table_talk: bool = Field(False, description="mix the others' table talk into the microphone's sound")
    talk_db: float = Field(TALK_DB, ge=0.0, le=40.0, description="the others' talk, in dB above the room's noise")
    window: float = Field(WINDOW, ge=CALIBRATION + 1.0, le=MAX_SECONDS)


@router.post("/api/practice/audio-drill")
def start_audio_drill(body: AudioDrillIn, request: Request) -> dict[str, Any]:
    practice = audio_practice_of(request)
    secret = False
    signal = body.signal
    if body.team and not body.quiet:
        signal = check_signal(team_card(request, body.team))
        secret = True
    elif signal is not None and signal != QUIET:
        check_signal(signal)
    player = body.player.strip() or body.player
    drill = AudioDrill.start(
        player,
        signal,
        quiet=body.quiet,
        secret=secret,
        team=body.team,
        window=body.window,
        table_talk=body.table_talk,
        talk_db=body.talk_db,
    )
    drill.prepare()
    practice.add(drill)
    return {
        "drill": drill.id,
        "player": drill.player,
        "kind": drill.kind,
        "card": drill.card(),
        "window": drill.window,
        "calibration": CALIBRATION,
        "countdown": 3,
        "rate": SAMPLE_RATE,
        "table_talk": drill.table_talk,
        "table_talk_url": "/api/practice/audio-drill/table-talk.wav" if drill.table_talk else None,
    }


@router.get("/api/practice/audio-drill/table-talk.wav", response_class=FileResponse)
def table_talk_wav() -> FileResponse:
    """The others' talk a table-talk drill mixes in (16 kHz mono WAV, 10.7 s, looped)."""
    return FileResponse(TABLE_TALK, media_type="audio/wav")


@router.post(
    "/api/practice/audio-drill/{drill_id}/audio",
    openapi_extra={
        "requestBody": {"content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}}
    },
)
async def audio_chunk(
    drill_id: str,
    request: Request,
    rate: Annotated[int, Query(ge=RATES[0], le=RATES[1], description="the chunk's sample rate, Hz")] = SAMPLE_RATE,
) -> dict[str, Any]:
    """One chunk of the microphone (16-bit little-endian mono PCM, following the last one),
    and whether the card's signal is heard so far."""
    from starlette.concurrency import run_in_threadpool  # deferred: only chunks run the classifier off the loop

    drill = audio_practice_of(request).get(drill_id)
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/octet-stream":
        raise NotPCM(f"a chunk is sent as application/octet-stream (16-bit PCM), not {kind or 'without a type'}")
    if int(request.headers.get("content-length") or 0) > MAX_CHUNK_BYTES:  # refused before it is read
        raise ChunkTooBig(f"a chunk may be at most {MAX_CHUNK_BYTES // 1_000_000} MB")
    data = await request.body()
    if len(data) > MAX_CHUNK_BYTES:
        raise ChunkTooBig(f"a chunk may be at most {MAX_CHUNK_BYTES // 1_000_000} MB")
    return await run_in_threadpool(drill.add_pcm, data, rate)


@router.post("/api/practice/audio-drill/{drill_id}/finish")
async def finish_audio_drill(drill_id: str, request: Request) -> dict[str, Any]:
    """The verdict: heard or not, taken for what, the delay from the sound's start to
    recognition, the nonchalance and its parts, the classifier's score over time (a quiet
    drill: the false alarms)."""
    from starlette.concurrency import run_in_threadpool  # deferred: as above

    practice = audio_practice_of(request)
    drill = practice.get(drill_id)
    fresh = drill.result is None
    result = await run_in_threadpool(drill.finish)
    # a team's own audible card is not kept in the player's history, which anyone may read: its
    # rows would tell that the team's signal is one of the five heard ones
    if fresh and drill.chunks and not drill.secret:
        if drill.signal is not None:
            practice_of(request).store.add_drill(result, secret=False)
        practice.history.add(result, secret=False)
    return result


@router.get("/api/practice/audio-history/{player}")
def audio_history(player: str, request: Request) -> dict[str, Any]:
    history = audio_practice_of(request).history
    return {"player": player, "drills": history.history(player), "per_signal": history.summary(player)}
