"""Team rehearsal: a signaller gives the team's own signal to the camera, a teammate taps
"seen" on their own phone when they spot it, and the referee says how fast the teammate
reacted: from the perceived start of the gesture (the drill's event start, the first frame the
detector's cue held) to the tap, both on the server's clock.

    r = Rehearsal.start(drill, team="Reds", signaller="Anna", spotter="Carla")
    r.tap()                     # the teammate's "seen" (its arrival is its time)
    r.finish(drill_verdict, spotting)   # reaction, early taps, and the quiz-takers' record

The drill's frames carry their arrival on the server (`Drill.arrivals`); the gesture's start is
mapped to the server's clock with the fastest frame (`Drill.server_time`): late by that frame's
encoding and upload, so the reaction is short by as much (tens of ms on a home network), and
the tap's own upload makes it long by as much again. A tap before the gesture began is an
early tap (a false alarm); the first tap after it is the reaction. A signal the referee did
not read has no start to time from: no reaction, and the verdict says so.
"""

from __future__ import annotations

import dataclasses
import secrets
import threading
import time
from typing import Any

from referee.core import RefereeError
from tablereferee.practice.drill import Drill

LATE = 10.0  # seconds after the drill's window a tap is still taken


class RehearsalError(RefereeError):
    """A rehearsal request that cannot be done."""


class RehearsalOver(RehearsalError):
    """A tap on a round that has finished."""


@dataclasses.dataclass
class Rehearsal:
    id: str
    team: str
    signaller: str
    spotter: str | None
    drill: Drill
    taps: list[float] = dataclasses.field(default_factory=list)  # server clock (monotonic)
    # the teammate's link carries it: without it or the team's PIN the round is not seen, tapped or ended
    key: str = dataclasses.field(default_factory=lambda: secrets.token_urlsafe(12))
    result: dict[str, Any] | None = None
    _lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)

    @classmethod
    def start(cls, drill: Drill, *, team: str, signaller: str, spotter: str | None) -> Rehearsal:
        return cls(secrets.token_urlsafe(9), team, signaller, spotter, drill)

    @property
    def state(self) -> str:
        if self.result is not None:
            return "over"
        return "watching" if self.drill.frames else "waiting"

    def tap(self, now: float | None = None) -> dict[str, Any]:
        now = time.monotonic() if now is None else now
        with self._lock:
            if self.result is not None:
                raise RehearsalOver("this round is over: the signaller starts a new one")
            self.taps.append(now)
            n = len(self.taps)
        at = self._drill_time(now)
        return {"rehearsal": self.id, "tap": n, "at": None if at is None else round(at, 3)}

    def _drill_time(self, server: float) -> float | None:
        zero = self.drill.server_time(0.0)
        return None if zero is None else server - zero

    def status(self) -> dict[str, Any]:
        """What the team (its PIN or the round's link) sees of the round: who, the state, and
        once over the figures. Never the signal."""
        out: dict[str, Any] = {
            "rehearsal": self.id,
            "team": self.team,
            "signaller": self.signaller,
            "spotter": self.spotter,
            "state": self.state,
            "taps": len(self.taps),
            "window": self.drill.window,
        }
        if self.result is not None:
            out["result"] = public_result(self.result)
        return out

    def finish(self, verdict: dict[str, Any], spotting: dict[str, Any]) -> dict[str, Any]:
        """The round's figures from the drill's verdict and the quiz-takers' record of the signal."""
        with self._lock:
            if self.result is not None:
                return self.result
            taps = [t for t in (self._drill_time(x) for x in self.taps) if t is not None]
            limit = self.drill.window + LATE
            start = verdict.get("start") if verdict.get("seen") else None
            early = [t for t in taps if start is not None and t < start]
            after = [t for t in taps if start is not None and start <= t <= limit]
            reaction = round(after[0] - start, 3) if after and start is not None else None
            spotter = self.spotter or "your teammate"
            if start is None:
                words = "The referee did not read the signal, so there is no start to time the tap from."
                early = taps  # every tap was a false alarm: there was no signal to see
            elif reaction is None:
                words = f"{spotter} did not tap seen after the gesture began."
            else:
                words = f"{spotter} saw it {reaction:.2f} s after the gesture began"
                words += f" (the referee read it in {verdict['delay']:.2f} s)." if verdict.get("delay") else "."
            if early:
                words += f" {len(early)} tap{'s' if len(early) > 1 else ''} before the gesture began."
            q = spotting
            if q.get("answers"):
                words += (
                    f" Quiz-takers spotted this signal in {q['spotted']} of {q['answers']} clips"
                    f" ({q['noticed']} noticed someone signal)."
                )
            else:
                words += " No quiz-taker has been shown this signal yet."
            self.result = {
                "rehearsal": self.id,
                "team": self.team,
                "signaller": self.signaller,
                "spotter": self.spotter,
                "seen": bool(verdict.get("seen")),
                "gesture_start": start,
                "referee_delay": verdict.get("delay"),
                "taps": [round(t, 3) for t in taps],
                "early_taps": len(early),
                "reaction": reaction,
                "quiz": q,
                "words": words,
                "drill": verdict,
            }
            return self.result


def public_result(result: dict[str, Any]) -> dict[str, Any]:
    """A round's figures without the drill's verdict (its card and cue name the signal)."""
    return {k: v for k, v in result.items() if k != "drill"}
