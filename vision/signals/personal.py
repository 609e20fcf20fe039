"""Each player's own calibration: the detectors' lines moved to where that player, in that
seat, actually makes the signal.

Real people make the signals differently from a scripted trajectory: a hand raised only to
the brow, a wrist that stays below the shoulder line the face suggests, a chin touched off its
centre. At set-up (or from a drill) each player performs their signals 2-3 times;
`calibrate` measures each performance with the detector's own measures
(`vision.evidence.measures`) and moves the line towards the weakest performance, with slack,
never past a floor (so a hand at rest is still no raise), and never makes a signal harder
than the catalogue does:

    profile = calibrate("Anna", {"raise_hand_right": [series1, series2, series3]})
    events = detect_personal(frames, calibration, {"Anna": profile})
    profile.to_dict()   # kept with the table (player-calibration/1)

Raises: `top_above_eyes` and `wrist_above_shoulders` lowered to the weakest performance's
peak less 30% of it (and 0.05), floors 0.1 eye span and -0.3 shoulder width. Touches: the
target's contact radius widened so the weakest performance's nearest approach sits at 85% of
it, at most 1.6 times the catalogue's. Other detectors keep the catalogue's lines.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from referee.core import RefereeError
from referee.observations import SignalEvent
from vision.evidence import measures
from vision.landmarks.calibration import TableCalibration
from vision.landmarks.types import FrameLandmarks
from vision.signals.catalogue import Catalogue, SignalSpec, default_catalogue
from vision.signals.detectors import run_body_detectors
from vision.signals.engine import seat_series
from vision.signals.features import SeatSeries

FORMAT = "player-calibration/1"
SLACK = 0.3  # share of the weakest peak left as slack below it
SLACK_ABS = 0.05
FLOORS = {"top_above_eyes": 0.1, "wrist_above_shoulders": -0.3}
TOUCH_AT = 0.85  # the weakest approach sits at this share of the widened radius
MAX_WIDEN = 1.6


class PersonalCalibrationError(RefereeError):
    """Performances that cannot calibrate a signal (too few, or the hand never seen)."""


@dataclasses.dataclass(frozen=True)
class Profile:
    """One player's lines: per signal, the parameters changed; per face part, the radius."""

    player: str
    params: Mapping[str, Mapping[str, float]]
    radius: Mapping[str, float]
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "player": self.player,
            "params": {k: dict(v) for k, v in self.params.items()},
            "radius": dict(self.radius),
            "notes": list(self.notes),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Profile:
        if not isinstance(d, Mapping) or d.get("format") != FORMAT:
            raise PersonalCalibrationError(f"not a player calibration (format {FORMAT})")
        try:
            params = {str(k): {str(p): float(x) for p, x in v.items()} for k, v in d.get("params", {}).items()}
            radius = {str(k): float(v) for k, v in d.get("radius", {}).items()}
            return cls(str(d["player"]), params, radius, tuple(str(n) for n in d.get("notes", ())))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise PersonalCalibrationError(f"a player calibration needs a player, params and radii: {exc}") from None

    def catalogue(self, cat: Catalogue | None = None) -> Catalogue:
        """The catalogue with this player's lines."""
        cat = cat or default_catalogue()
        specs = []
        for s in cat.signals:
            changed = self.params.get(s.id)
            specs.append(dataclasses.replace(s, params={**s.params, **changed}) if changed else s)
        return Catalogue(tuple(specs), {**cat.face_contact_radius, **self.radius})


def _peak(values: np.ndarray, inside: str) -> float | None:
    v = values[np.isfinite(values)]
    if not len(v):
        return None
    return float(v.max() if inside == "above" else v.min())


def _lowered(default: float, weakest: float, floor: float) -> float | None:
    """The new line; None when the weakest performance is so far below the line that it was
    not this signal at all (then the catalogue's line is kept)."""
    if weakest < floor:
        return None
    proposed = weakest - SLACK * abs(weakest) - SLACK_ABS
    return float(min(default, max(floor, proposed)))


def calibrate(
    player: str, performances: Mapping[str, Sequence[SeatSeries]], catalogue: Catalogue | None = None
) -> Profile:
    """A player's profile from 2-3 performances of each signal (each a `SeatSeries` of that
    player's seat while they perform it once)."""
    cat = catalogue or default_catalogue()
    params: dict[str, dict[str, float]] = {}
    radius: dict[str, float] = {}
    notes: list[str] = []
    for signal, runs in performances.items():
        spec = cat[signal]
        if not 2 <= len(runs) <= 5:
            raise PersonalCalibrationError(
                f"{signal}: perform it 2 or 3 times to calibrate it, got {len(runs)}", signal=signal
            )
        if spec.detector == "raise_hand":
            params[signal] = _raise(spec, cat, runs, notes)
        elif spec.detector == "face_touch":
            target, r = _touch(spec, cat, runs, notes)
            if r is not None:
                radius[target] = max(r, radius.get(target, 0.0))
        else:
            notes.append(f"{signal}: kept the catalogue's line (its detector has no single line to move)")
    return Profile(player, {k: v for k, v in params.items() if v}, radius, tuple(notes))


def _raise(spec: SignalSpec, cat: Catalogue, runs: Sequence[SeatSeries], notes: list[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    names = {0: "top_above_eyes", 1: "wrist_above_shoulders"}
    for k, param in names.items():
        peaks = []
        for series in runs:
            m = measures(series, spec, cat)[k]
            p = _peak(m.values, m.inside)
            if p is not None:
                peaks.append(p)
        if len(peaks) < 2:
            notes.append(f"{spec.id}: the hand was seen in fewer than 2 performances; {param} kept")
            continue
        default = float(spec.p(param))
        new = _lowered(default, min(peaks), FLOORS[param])
        if new is None:
            notes.append(
                f"{spec.id}: a performance came only to {min(peaks):.2f} against the line at {default:g}, "
                f"too far to be this signal; {param} kept"
            )
        elif new < default:
            out[param] = round(new, 3)
            notes.append(f"{spec.id}: {param} {default:g} -> {new:.2f} (weakest performance {min(peaks):.2f})")
    return out


def _touch(spec: SignalSpec, cat: Catalogue, runs: Sequence[SeatSeries], notes: list[str]) -> tuple[str, float | None]:
    target = str(spec.p("target"))
    r0 = float(cat.face_contact_radius[target])
    nearest = []
    for series in runs:
        ms = measures(series, spec, cat)
        ps = [p for m in ms if (p := _peak(m.values, m.inside)) is not None]
        if ps:
            nearest.append(min(ps))  # in contact radii
    if len(nearest) < 2:
        notes.append(f"{spec.id}: the hand was not found near the face in 2 performances; radius kept")
        return target, None
    weakest = max(nearest)
    if weakest <= TOUCH_AT:
        return target, None
    if weakest > MAX_WIDEN:  # not this touch at all: even the widest radius would not read it
        notes.append(
            f"{spec.id}: a performance came only to {weakest:.2f} contact radii from the {target}, too far to be "
            f"this signal; the {target} radius kept"
        )
        return target, None
    scale = min(MAX_WIDEN, weakest / TOUCH_AT)
    notes.append(f"{spec.id}: {target} radius {r0:g} -> {r0 * scale:.2f} (weakest approach {weakest:.2f} radii)")
    return target, round(r0 * scale, 3)


def detect_personal(
    frames: Sequence[FrameLandmarks],
    calibration: TableCalibration,
    profiles: Mapping[str, Profile],
    catalogue: Catalogue | None = None,
    only: Sequence[str] | None = None,
) -> list[SignalEvent]:
    """The body signals of every seat, each seat judged with its player's profile (when any)."""
    cat = catalogue or default_catalogue()
    events: list[SignalEvent] = []
    for seat in calibration.seats:
        prof = profiles.get(seat.name)
        events.extend(
            run_body_detectors(seat_series(frames, calibration, seat.name), prof.catalogue(cat) if prof else cat, only)
        )
    return sorted(events, key=lambda e: (e.start, e.player, e.signal))
