"""How nonchalantly a signal was given: read by the detector, yet as far inside its line as
it could be while still being read.

    n = nonchalance(series, spec, catalogue, event)   # event: the detector's own, or None
    n.score            # 0..100; 0 when the signal was not read
    n.parts            # {"subtle", "brief", "unhurried", "masked"}: each 0..1
    n.lines()          # the score in words

Four parts, each 0..1, weighed into the score:

* **subtle** (0.40): how little the detector's measure (`vision.evidence.measures`) went past
  its line at its peak during the event. A hand raised just over the eyes is subtle; one
  stretched high is not. For detectors without one number to judge (taps, elbows, the cards,
  a Free Signal) the event's own closeness to its line stands in: a Free Signal's warping
  cost against its threshold, else one minus the confidence.
* **brief** (0.25): how short the event was, from the signal's `min_dwell` (1) to four times
  that, and at least 1.5 s (0).
* **unhurried** (0.20): how slowly the signalling hand moved (its wrist's top speed around the
  event, in eye spans a second): a snatch is conspicuous.
* **masked** (0.15): how much other movement went on at the same time (the other hand, the
  head): a gesture hidden in play is harder to spot.

A signal that was not read scores 0 whatever its parts: too subtle to be seen is no signal.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from referee.observations import SignalEvent
from vision.evidence import Measure, measures
from vision.landmarks.types import SIDES
from vision.signals.catalogue import Catalogue, SignalSpec
from vision.signals.features import SeatSeries

WEIGHTS = {"subtle": 0.40, "brief": 0.25, "unhurried": 0.20, "masked": 0.15}
SUBTLE_SCALE = 1.0  # a peak this far past the line (as a share of it) is e^-1 subtle
HURRIED = 8.0  # eye spans a second: a wrist this fast scores 0.5 unhurried
MASKING = 3.0  # eye spans a second of other movement that hides a gesture fully
AROUND = 0.5  # seconds around the event over which speeds are judged


@dataclasses.dataclass(frozen=True)
class Nonchalance:
    """A read signal's nonchalance, 0..100, and its parts (0..1 each)."""

    score: float
    read: bool
    parts: dict[str, float]
    peak_margin: float | None = None  # how far past the line the measure went, as a share of it
    duration: float | None = None
    measure: str | None = None  # the measure the subtlety was judged on

    def lines(self) -> list[str]:
        if not self.read:
            return ["not read: nonchalance 0 (a signal nobody can see is no signal)"]
        words = {
            "subtle": "how little it went past the line",
            "brief": "how briefly it was held",
            "unhurried": "how slowly the hand moved",
            "masked": "how much other movement hid it",
        }
        out = [f"nonchalance {self.score:.0f} of 100"]
        for k, v in self.parts.items():
            out.append(f"{words[k]}: {v * 100:.0f}%")
        if self.peak_margin is not None and self.measure:
            out.append(f"{self.measure}: at most {self.peak_margin * 100:.0f}% past the line")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "score": round(self.score, 1),
            "read": self.read,
            "parts": {k: round(v, 3) for k, v in self.parts.items()},
            "peak_margin": None if self.peak_margin is None else round(self.peak_margin, 3),
            "duration": None if self.duration is None else round(self.duration, 3),
            "measure": self.measure,
        }


NOT_READ = Nonchalance(0.0, False, {k: 0.0 for k in WEIGHTS})


def _window(t: np.ndarray, start: float, end: float) -> np.ndarray:
    return (t >= start - 1e-6) & (t <= end + 1e-6)


def peak_margin(ms: list[Measure], start: float, end: float) -> tuple[float, str] | None:
    """The largest share past its line any primary measure reached during [start, end]."""
    best: tuple[float, str] | None = None
    for m in ms:
        if not m.primary:
            continue
        keep = _window(m.t, start, end)
        vals = m.values[keep]
        vals = vals[np.isfinite(vals)]
        if not len(vals):
            continue
        margins = np.array([m.margin(float(v)) for v in vals])
        top = float(margins.max())
        if best is None or top > best[0]:
            best = (top, m.name)
    return best


def _speed(t: np.ndarray, xy: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Per-frame speed of a point in eye spans a second (NaN where unseen)."""
    if len(t) < 2:
        return np.full(len(t), np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        v = np.linalg.norm(np.gradient(xy, t, axis=0), axis=1)
        return v / scale


MIN_VISIBILITY = 0.5  # Pose's wrist counts only where Pose sees it (it guesses unseen hands)


def _wrist(series: SeatSeries, side: str) -> np.ndarray:
    has = series.has_hand(side)
    pw = series.pose_wrist[side]
    pose = np.where((pw[:, 2] >= MIN_VISIBILITY)[:, None], pw[:, :2], np.nan)
    return np.where(has[:, None], series.hand[side][:, 0, :2], pose)


def _top(x: np.ndarray) -> float:
    x = x[np.isfinite(x)]
    return float(np.percentile(x, 90)) if len(x) else 0.0


def signal_hand(spec: SignalSpec, event: SignalEvent) -> str | None:
    """The hand that gave the signal (a touch by either hand: the one the event names)."""
    side = event.evidence.get("hand") if isinstance(event.evidence, dict) else None
    if side in SIDES:
        return str(side)
    side = spec.params.get("hand")
    return str(side) if side in SIDES else None


def nonchalance(series: SeatSeries, spec: SignalSpec, catalogue: Catalogue, event: SignalEvent | None) -> Nonchalance:
    """The nonchalance of `event` (the detector's event for `spec` in `series`); None: not read."""
    if event is None:
        return NOT_READ
    duration = max(float(event.end - event.start), 0.0)
    ms = measures(series, spec, catalogue)
    peak = peak_margin(ms, event.start, event.end)
    if peak is not None:
        margin, mname = max(peak[0], 0.0), peak[1]
        subtle = float(np.exp(-margin / SUBTLE_SCALE))
    else:
        margin, mname = None, None
        ev = event.evidence if isinstance(event.evidence, dict) else {}
        cost, threshold = ev.get("dtw_cost"), ev.get("threshold")
        if isinstance(cost, (int, float)) and isinstance(threshold, (int, float)) and threshold > 0:
            subtle = float(np.clip(cost / threshold, 0.0, 1.0))
        else:
            subtle = float(np.clip(1.0 - event.confidence, 0.0, 1.0))
    longest = max(4 * spec.min_dwell, 1.5)
    low = max(spec.min_dwell, 0.1)
    brief = float(np.clip((longest - duration) / (longest - low), 0.0, 1.0))
    around = _window(series.t, event.start - AROUND, event.end + AROUND)
    t = series.t[around]
    scale = series.iod[around]
    side = signal_hand(spec, event)
    if side is not None and len(t) >= 2:
        top = _top(_speed(t, _wrist(series, side)[around], scale))
        unhurried = float(1.0 / (1.0 + top / HURRIED))
    else:
        unhurried = 0.5  # nothing moves a hand to judge: neither hurried nor calm
    others = []
    if len(t) >= 2:
        for other in SIDES:
            if other != side:
                others.append(_top(_speed(t, _wrist(series, other)[around], scale)))
        others.append(_top(_speed(t, series.targets["nose"][around], scale)))
    masked = float(np.clip(max(others, default=0.0) / MASKING, 0.0, 1.0))
    parts = {"subtle": subtle, "brief": brief, "unhurried": unhurried, "masked": masked}
    score = 100.0 * sum(WEIGHTS[k] * v for k, v in parts.items())
    return Nonchalance(float(score), True, parts, margin, duration, mname)


def best_event(events: list[SignalEvent], signal: str, player: str | None = None) -> SignalEvent | None:
    """The surest event of `signal` (by `player`), or None."""
    mine = [e for e in events if e.signal == signal and (player is None or e.player == player)]
    return max(mine, key=lambda e: e.confidence) if mine else None
