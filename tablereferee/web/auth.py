"""Who is calling: the roles of the web table, their tokens, the join code and the team PINs.

* public: no token. The table screen, and anyone who opens it: the public view only.
* player: `POST /api/join {code, player}` with the join code shown on the table screen. Calls
  as that player (the server checks each action's actor). The join code is public, so a player
  token alone never shows a secret: a team's signal (and a player's hand) need the team PIN.
* team: `POST /api/teams/{team}/unlock {pin}`; adds the team to the caller's token (or makes a
  token). Wrong PINs are counted per team: after `MAX_TRIES` within `WINDOW` seconds every try
  is refused (`TooManyTries`, 429) until the window has passed.
* scorer (operator): the token printed when the server starts. Set-up and corrections.

Tokens travel as `Authorization: Bearer TOKEN` (the WebSocket as `/ws?token=TOKEN`). Every
refusal is a named `WebError` with its HTTP status.
"""

from __future__ import annotations

import dataclasses
import hmac
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from referee.core import RefereeError

MAX_TRIES = 5  # wrong PINs per team within WINDOW seconds
WINDOW = 60.0
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud across a table


class WebError(RefereeError):
    """A request the web table refuses; `status` is its HTTP status."""

    status = 400


class NotSignedIn(WebError):
    """A call that needs a token, made without one (or with one this server never gave)."""

    status = 401


class NotAllowed(WebError):
    """A role that may not do this (a player correcting the log, the public unlocking a team)."""

    status = 403


class ScorerOnly(NotAllowed):
    """Set-up, corrections and the chance's actions (an egg turned up) are the scorer's."""


class NotYourCall(NotAllowed):
    """A player's phone acting for another player."""


class NotYourTeam(NotAllowed):
    """A player acting for a team they do not play in."""


class WrongJoinCode(NotAllowed):
    """A join code that is not this table's."""


class WrongPin(NotAllowed):
    """A team PIN that is not the team's."""


class TooManyTries(WebError):
    """Too many wrong PINs for one team in a short time: wait, then try again."""

    status = 429


@dataclasses.dataclass
class Grant:
    """What one token may do: call as `player`, see `teams`' secrets, act as the scorer."""

    token: str
    player: str | None = None
    teams: set[str] = dataclasses.field(default_factory=set)
    scorer: bool = False

    @property
    def role(self) -> str:
        if self.scorer:
            return "scorer"
        if self.teams and self.player is None:
            return "team"
        return "player" if self.player is not None else "public"

    def to_dict(self) -> dict[str, object]:
        return {"role": self.role, "player": self.player, "teams": sorted(self.teams), "scorer": self.scorer}


PUBLIC_GRANT = Grant("")


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(6))


def new_pin() -> str:
    return f"{secrets.randbelow(10_000):04d}"


class Tokens:
    """The tokens this server gave, the join code, the team PINs and the PIN tries."""

    def __init__(
        self,
        *,
        code: str | None = None,
        scorer_token: str | None = None,
        pins: Mapping[str, str] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._lock = threading.Lock()
        self.code = (code or new_code()).upper()
        self.scorer_token = scorer_token or secrets.token_urlsafe(18)
        self.pins: dict[str, str] = dict(pins or {})
        self._clock = clock
        self._grants: dict[str, Grant] = {self.scorer_token: Grant(self.scorer_token, scorer=True)}
        self._misses: dict[str, deque[float]] = {}

    def set_teams(self, teams: Iterable[str]) -> dict[str, str]:
        """A PIN for every team that has none yet (drawn at random); answers all the PINs."""
        with self._lock:
            for team in teams:
                self.pins.setdefault(team, new_pin())
            return dict(self.pins)

    def grant(self, token: str | None) -> Grant:
        """The grant of a token; no token is the public. A token never given: NotSignedIn."""
        if not token:
            return PUBLIC_GRANT
        with self._lock:
            found = self._grants.get(token)
        if found is None:
            raise NotSignedIn("this phone's sign-in is not known to the table: join again with the code")
        return found

    def join(self, code: str, player: str) -> Grant:
        if not hmac.compare_digest(code.strip().upper().encode(), self.code.encode()):
            raise WrongJoinCode("that is not this table's join code: read it from the table screen")
        grant = Grant(secrets.token_urlsafe(18), player=player)
        with self._lock:
            self._grants[grant.token] = grant
        return grant

    def unlock(self, team: str, pin: str, grant: Grant) -> Grant:
        """Add `team` to `grant` (a new token for the public) when `pin` is the team's."""
        now = self._clock()
        with self._lock:
            misses = self._misses.setdefault(team, deque())
            while misses and now - misses[0] > WINDOW:
                misses.popleft()
            if len(misses) >= MAX_TRIES:
                wait = max(1, int(WINDOW - (now - misses[0]) + 0.999))
                raise TooManyTries(
                    f"too many wrong PINs for {team}: try again in {wait} seconds", team=team, retry_after=wait
                )
            expected = self.pins.get(team)
            if expected is None or not hmac.compare_digest(pin.strip().encode(), expected.encode()):
                misses.append(now)
                left = MAX_TRIES - len(misses)
                raise WrongPin(f"that is not the PIN of {team} ({left} tries left for now)", team=team, tries_left=left)
            misses.clear()
            if not grant.token:
                grant = Grant(secrets.token_urlsafe(18))
                self._grants[grant.token] = grant
            grant.teams.add(team)
            return grant


# -- FastAPI dependencies -------------------------------------------------------------------------

bearer_scheme = HTTPBearer(auto_error=False, description="a token from POST /api/join, /unlock, or the scorer's")


def token_of(request: Request) -> str | None:
    """The bearer token of a request (`Authorization: Bearer TOKEN`), or None."""
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    return value.strip() or None if scheme.lower() == "bearer" else None


def current_grant(request: Request, _: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_scheme)]) -> Grant:
    """The caller's grant (the public without a token); an unknown token is NotSignedIn."""
    tokens: Tokens = request.app.state.hub.tokens
    return tokens.grant(token_of(request))


def require_scorer(grant: Annotated[Grant, Depends(current_grant)]) -> Grant:
    """The scorer's routes: set-up and corrections."""
    if not grant.scorer:
        raise ScorerOnly("this is the scorer's: use the scorer link printed when the server started")
    return grant


Caller = Annotated[Grant, Depends(current_grant)]  # a route's caller: the public, a player, a team, the scorer
Scorer = Annotated[Grant, Depends(require_scorer)]  # a route only the scorer may call
