"""The instant challenge's routes: `/challenge` (the player page) and `/api/challenges/...`.

    challenge_routes.attach(app, Challenges(buffer, ChallengeBook(per_team=3), teams, calibration))
    app.include_router(challenge_routes.router)

| method | path | answer |
|---|---|---|
| POST | `/api/challenges` | `{accused, by}` -> the challenge (below); `by`'s team uses one of its challenges |
| GET | `/api/challenges` | `{challenges: [...], left: {team: n}}` |
| GET | `/api/challenges/latest` | the newest challenge |
| GET | `/api/challenges/{n}` | challenge n (below) |
| GET | `/api/challenges/{n}/frames/{camera}/{i}.jpg` | frame i of a camera, its overlays drawn |

A challenge: `{number, accused, by, team, at, from, to, headline, cue: {t, text, source}, phases:
[{name, text, rate, from, to}], made_in, cameras: [{name, frames: [{t, url}]}]}`.

On a table with a hub (`app.state.hub`), a POST needs a player's token (the challenger is that
player) or the scorer's (who names `by`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import FileResponse, Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from tablereferee.challenge import Challenges
from tablereferee.web.auth import NotAllowed, NotSignedIn, WebError

STATIC = Path(__file__).resolve().parent / "static"
router = APIRouter()


class NoChallengeTable(WebError):
    """A server with no live cameras: there is no buffer to replay a challenge from."""

    status = 409


class ChallengeIn(BaseModel):
    accused: str = Field(min_length=1, max_length=64)
    by: str | None = Field(default=None, min_length=1, max_length=64)


def attach(app: FastAPI, challenges: Challenges) -> None:
    app.state.challenges = challenges


def challenges_of(request: Request) -> Challenges:
    found = getattr(request.app.state, "challenges", None)
    if found is None:
        raise NoChallengeTable("this table has no live cameras: there is nothing to replay a challenge from")
    return found


def _challenger(request: Request, by: str | None) -> str | None:
    """Who challenges: the player whose token it is; the scorer names `by`. Without a hub (a
    review server) `by` as given."""
    hub = getattr(request.app.state, "hub", None)
    if hub is None:
        return by
    header = request.headers.get("authorization", "")
    token = header[7:].strip() if header.lower().startswith("bearer ") else None
    if not token:
        raise NotSignedIn("a challenge is a player's: join the table on your phone first")
    grant = hub.tokens.grant(token)
    if grant.scorer:
        return by
    if grant.player is None:
        raise NotAllowed("only a player (or the scorer) can ask for a challenge")
    if by is not None and by != grant.player:
        raise NotAllowed(f"This is {grant.player}'s phone: it cannot challenge for {by}.", player=by)
    return str(grant.player)


@router.get("/challenge", include_in_schema=False)
def challenge_page() -> FileResponse:
    return FileResponse(STATIC / "challenge.html", media_type="text/html", headers={"Cache-Control": "no-cache"})


@router.post("/api/challenges", tags=["challenge"])
async def post_challenge(request: Request, body: ChallengeIn) -> dict[str, Any]:
    """Replay the last seconds of every camera, slowed down around the accused's strongest cue."""
    challenges = challenges_of(request)
    by = _challenger(request, body.by)
    made = await run_in_threadpool(challenges.open, body.accused, by)
    return {**made.to_dict(), "left": challenges.left()}


@router.get("/api/challenges", tags=["challenge"])
def list_challenges(request: Request) -> dict[str, Any]:
    """The challenges made this game, and how many each team has left."""
    challenges = challenges_of(request)
    made = [c.to_dict() for c in challenges.made.values()]
    return {
        "challenges": [{k: c[k] for k in ("number", "headline", "accused", "by", "at")} for c in made],
        "left": challenges.left(),
    }


@router.get("/api/challenges/latest", tags=["challenge"])
def latest_challenge(request: Request) -> dict[str, Any]:
    """The newest challenge (the page a phone opens when the table says one is ready)."""
    return challenges_of(request).latest().to_dict()


@router.get("/api/challenges/{number}", tags=["challenge"])
def get_challenge(request: Request, number: int) -> dict[str, Any]:
    """One challenge: its frames, their times and the phases to play."""
    return challenges_of(request).get(number).to_dict()


@router.get("/api/challenges/{number}/frames/{camera}/{index}.jpg", tags=["challenge"], response_class=Response)
async def get_frame(request: Request, number: int, camera: str, index: int) -> Response:
    """One frame of a challenge, with the cards read, the landmarks and the seats drawn."""
    challenge = challenges_of(request).get(number)
    data = await run_in_threadpool(challenge.jpeg, camera, index)
    return Response(data, media_type="image/jpeg", headers={"Cache-Control": "max-age=600"})
