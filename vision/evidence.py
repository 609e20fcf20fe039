"""The question players ask in a dispute: "did Anna touch her nose between 4 s and 7 s?"

`ask(frames, calibration, player, signal, start, end)` answers it from landmarks already found
(the run keeps them: `tablereferee/recording/tracks.py`), never from a new run of the models:

* **yes**: the signal's own detector (the one the live table runs) fires in the window, sure;
* **unsure**: it fires but unsure (low confidence, a hand seen by Pose alone, two face parts
  almost equally near), or the player was not seen for much of the window;
* **no**: it does not fire, and the player was seen.

With the word comes the evidence a person would look at: the measure the detector judges over
time, in the player's own units (a touch: the hand's nearest fingertip to the target, in
contact radii, the line at 1; a raise: the top of the hand above the eyes, in eye spans, the
line at the catalogue's threshold; a wink: each eye's openness against its own baseline), the
frame where it came closest to the line, and the events found. The picture and the plot are
drawn by the caller (`referee ask`).
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Sequence
from typing import Any

import numpy as np

from referee.core import RefereeError
from referee.observations import SignalEvent
from vision.landmarks.calibration import TableCalibration
from vision.landmarks.types import FrameLandmarks
from vision.signals.catalogue import Catalogue, SignalSpec, default_catalogue
from vision.signals.detectors import eye_states
from vision.signals.engine import detect_signals, seat_series
from vision.signals.features import SeatSeries, contact_distances, pose_hand_points

YES, NO, UNSURE = "yes", "no", "unsure"
CONTEXT = 6.0  # s of landmarks before the window the detectors may use (a wink's eye baseline)
MIN_SEEN = 0.5  # share of the window's frames the player must be seen in for a "no"


class QuestionError(RefereeError):
    """A question that cannot be asked: no such signal, player, or an empty window."""


class UnknownSignal(QuestionError):
    """A signal the catalogue does not have."""


class UnknownSeat(QuestionError):
    """A player with no seat in front of this camera."""


class NothingSeen(RefereeError):
    """No landmarks in the window: the camera saw nothing then."""


@dataclasses.dataclass
class Measure:
    """What the detector judges, per frame: `values` against `line` (crossing it towards
    `inside`, 'below' or 'above', is the signal's cue)."""

    name: str
    t: np.ndarray
    values: np.ndarray
    line: float
    inside: str  # "below": smaller is nearer the cue (a distance); "above": larger is
    primary: bool = True  # False: drawn beside the main measure, not the one the closest moment is taken from

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "line": self.line,
            "inside": self.inside,
            "primary": self.primary,
            "t": [round(float(x), 3) for x in self.t],
            "values": [None if not np.isfinite(v) else round(float(v), 4) for v in self.values],
        }

    def closest(self) -> tuple[int, float] | None:
        """The frame nearest the cue (index into t, its value); None when never measured."""
        finite = np.isfinite(self.values)
        if not finite.any():
            return None
        score = self.values if self.inside == "below" else -self.values
        i = int(np.nanargmin(np.where(finite, score, np.nan)))
        return i, float(self.values[i])

    def margin(self, value: float) -> float:
        """How far inside the line (positive) or outside (negative) `value` is, as a share of it."""
        gap = (self.line - value) if self.inside == "below" else (value - self.line)
        return gap / abs(self.line) if self.line else gap


@dataclasses.dataclass
class Answer:
    word: str  # yes, no, unsure
    player: str
    signal: str
    start: float
    end: float
    reason: str
    events: list[SignalEvent]
    measures: list[Measure]
    closest_t: float | None = None
    closest_frame: int | None = None
    closest_value: float | None = None
    seen_share: float = 0.0

    def lines(self) -> list[str]:
        """The answer in words: the word first, then the evidence."""
        out = [self.word, self.reason]
        for m in self.measures:
            c = m.closest()
            if c is None:
                out.append(f"{m.name}: not measured in the window (the player's face or hand was not seen)")
                continue
            i, value = c
            side = "inside" if m.margin(value) > 0 else "outside"
            out.append(f"{m.name}: nearest the cue {value:.2f} at {m.t[i]:.2f} s, {side} the line at {m.line:g}")
        for ev in self.events:
            flag = ", unsure" if ev.unsure else ""
            out.append(f"seen: {ev.signal} {ev.start:.2f}-{ev.end:.2f} s, confidence {ev.confidence:.2f}{flag}")
        out.append(f"the player was seen in {self.seen_share * 100:.0f}% of the window's frames")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "answer": self.word,
            "player": self.player,
            "signal": self.signal,
            "from": self.start,
            "to": self.end,
            "reason": self.reason,
            "events": [dataclasses.asdict(e) for e in self.events],
            "closest": {"t": self.closest_t, "frame": self.closest_frame, "value": self.closest_value},
            "measures": [m.to_dict() for m in self.measures],
            "seen_share": round(self.seen_share, 3),
        }


def measures(series: SeatSeries, spec: SignalSpec, cat: Catalogue) -> list[Measure]:
    """The per-frame measures the detector of `spec` judges (none for the detectors whose cue
    is not one number: taps, elbows, the mouth, the cards)."""
    if spec.detector == "face_touch":
        target, hand = spec.p("target"), spec.p("hand")
        radius = float(cat.face_contact_radius[target])
        out = []
        for side in ("left", "right") if hand == "any" else (hand,):
            d = contact_distances(series, side, spec.params.get("pose_visibility"))[target] / radius
            out.append(
                Measure(f"{side} hand to the {target.replace('_', ' ')}, in contact radii", series.t, d, 1.0, "below")
            )
        return out
    if spec.detector == "raise_hand":
        # As the detector judges it: Hands' points, else Pose's wrist, pinky, index and thumb.
        side = spec.p("hand")
        pts = series.hand[side]
        has = series.has_hand(side)
        pose_pts = pose_hand_points(series, side, spec.p("min_visibility"))
        with np.errstate(invalid="ignore", all="ignore"):
            hand_top = np.min(np.nan_to_num(pts[:, :, 1], nan=np.inf), axis=1)
            pose_up = pose_pts[:, 2, 1] < pose_pts[:, 0, 1]
            reach = np.where(pose_up, spec.p("pose_finger_reach") * series.iod, 0.0)
            pose_top = np.min(np.nan_to_num(pose_pts[:, :, 1], nan=np.inf), axis=1) - reach
            top = np.where(has, hand_top, pose_top)
            top = np.where(np.isinf(top), np.nan, top)
            above = (series.eye_line_y - top) / series.iod
            wrist_y = np.where(has, pts[:, 0, 1], pose_pts[:, 0, 1])
            chin_y = series.targets["chin"][:, 1]
            pose_sh = np.isfinite(series.shoulder_y) & np.isfinite(series.sw)
            shoulder_y = np.where(pose_sh, series.shoulder_y, chin_y + spec.p("shoulders_below_chin") * series.iod)
            scale = np.where(pose_sh, series.sw, series.iod / 0.35)
            wrist_above = (shoulder_y - wrist_y) / scale
        return [
            Measure(
                f"top of the {side} hand above the eyes, in eye spans",
                series.t,
                above,
                spec.p("top_above_eyes"),
                "above",
            ),
            Measure(
                f"{side} wrist above the shoulder line, in shoulder widths",
                series.t,
                wrist_above,
                spec.p("wrist_above_shoulders"),
                "above",
                primary=False,
            ),
        ]
    if spec.detector == "wink":
        states = eye_states(series, spec)
        return [
            Measure(
                f"{side} eye's openness against its own baseline",
                series.t,
                states[side]["ratio"],
                spec.p("closed"),
                "below",
            )
            for side in ("left", "right")
        ]
    return []


def ask(
    frames: Sequence[FrameLandmarks],
    calibration: TableCalibration,
    player: str,
    signal: str,
    start: float,
    end: float,
    catalogue: Catalogue | None = None,
) -> Answer:
    """Did `player` give `signal` between `start` and `end` (session seconds)? See the module doc."""
    cat = catalogue or default_catalogue()
    spec = next((s for s in cat.signals if s.id == signal), None)
    if spec is None:
        ids = [s.id for s in cat.signals]
        close = difflib.get_close_matches(signal, ids, n=1)
        hint = f"did you mean {close[0]}? " if close else ""
        raise UnknownSignal(f"no signal called {signal!r}; {hint}the signals are: {', '.join(ids)}", signal=signal)
    seats = [s.name for s in calibration.seats]
    if player not in seats:
        raise UnknownSeat(
            f"{player} has no seat in front of this camera; its seats: {', '.join(seats) or 'none'}", player=player
        )
    if not end > start:
        raise QuestionError(f"the window {start:g}-{end:g} s holds no time: give --from before --to")
    context = [f for f in frames if start - CONTEXT - 1e-6 <= f.t <= end + 1e-6]
    inside = [f for f in context if f.t >= start - 1e-6]
    if not inside:
        raise NothingSeen(f"no frame of this camera between {start:g} and {end:g} s", start=start, end=end)
    events = [
        e
        for e in detect_signals(context, calibration, cat, only=[signal])
        if e.player == player and e.end >= start and e.start <= end
    ]
    series = seat_series(inside, calibration, player)
    seen = float(np.mean(np.isfinite(series.iod) | np.isfinite(series.sw))) if series.n else 0.0
    all_measures = measures(seat_series(context, calibration, player), spec, cat)
    window = [_cut(m, start, end) for m in all_measures]
    best = None
    for m in window:
        if not m.primary:
            continue
        c = m.closest()
        if c is not None and (best is None or m.margin(c[1]) > best[0].margin(best[1][1])):
            best = (m, c)
    sure = [e for e in events if not e.unsure and e.confidence >= spec.unsure_below]
    if sure:
        word = YES
        e = max(sure, key=lambda ev: ev.confidence)
        reason = f"{player}: {signal} seen {e.start:.2f}-{e.end:.2f} s, confidence {e.confidence:.2f}"
    elif events:
        word = UNSURE
        e = max(events, key=lambda ev: ev.confidence)
        reason = f"{player}: maybe {signal}, {e.start:.2f}-{e.end:.2f} s, but unsure (confidence {e.confidence:.2f})"
    elif seen < MIN_SEEN:
        word = UNSURE
        reason = f"{player} was seen in only {seen * 100:.0f}% of the frames between {start:g} and {end:g} s"
    else:
        word = NO
        reason = f"no {signal} by {player} between {start:g} and {end:g} s"
        if best is not None and best[0].margin(best[1][1]) > 0:
            reason += "; " + _why_not(best[0], spec)
    answer = Answer(word, player, signal, start, end, reason, events, window, seen_share=seen)
    if best is not None:
        m, (i, value) = best
        answer.closest_t = float(m.t[i])
        answer.closest_value = value
        answer.closest_frame = next((f.index for f in inside if abs(f.t - m.t[i]) < 1e-6), None)
    return answer


def _why_not(m: Measure, spec: SignalSpec) -> str:
    """Why a measure that crossed its line gave no signal: too brief, or refused by the
    detector's other checks."""
    with np.errstate(invalid="ignore"):
        inside = np.asarray(m.margin(m.values)) > 0  # type: ignore[arg-type]
    longest, begin = 0.0, None
    for t, on in zip(m.t, inside):
        if on:
            begin = t if begin is None else begin
            longest = max(longest, float(t - begin))
        else:
            begin = None
    if longest < spec.min_dwell:
        return f"it crossed the line for {longest:.2f} s only, under the {spec.min_dwell:g} s the signal needs"
    return "it crossed the line, but the detector's other checks refused it (see the catalogue's " + spec.id + ")"


def _cut(m: Measure, start: float, end: float) -> Measure:
    keep = (m.t >= start - 1e-6) & (m.t <= end + 1e-6)
    return Measure(m.name, m.t[keep], m.values[keep], m.line, m.inside, m.primary)
