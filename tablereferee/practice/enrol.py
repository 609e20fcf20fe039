"""Free Signal enrolment from the browser: 3-5 demonstrations recorded by the practice page
(JPEG frames), learnt into a team's `FreeSignal`, and tried at once on a new demonstration.

    enrolment = enrol("Reds", "Anna", [(frames_b64, fps), ...])   # DemonstrationsDisagree: refused
    enrolment.to_dict()            # the threshold, each demonstration's cost to the others
    try_free(enrolment, frames_b64, fps)   # {"seen", "cost", "threshold", "events"}
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np

from referee.core import RefereeError
from referee.signal_cards import BY_ID
from tablereferee.practice.drill import DRILL_RATES, MAX_SIDE
from vision.landmarks.calibration import TableCalibration, whole_frame
from vision.landmarks.extract import LandmarkExtractor
from vision.landmarks.types import FrameLandmarks
from vision.signals.catalogue import default_catalogue
from vision.signals.engine import detect_signals, seat_series
from vision.signals.features import SeatSeries
from vision.signals.free import FreeSignal, FreeSignalError, describe
from vision.signals.personal import Profile, calibrate


class BadDemonstration(RefereeError):
    """A demonstration whose frames cannot be read."""


@dataclasses.dataclass
class Enrolment:
    team: str
    player: str
    signal: FreeSignal

    def to_dict(self) -> dict[str, Any]:
        return {
            "team": self.team,
            "player": self.player,
            "label": self.signal.label,
            "demonstrations": len(self.signal.templates),
            "threshold": round(self.signal.threshold, 4),
            "costs": [round(c, 4) for c in self.signal.costs],
            "descriptions": list(self.signal.descriptions),
            "words": self.signal.words,
        }


def decode(frames_b64: Sequence[str], k: int) -> list[np.ndarray]:
    out = []
    for i, raw in enumerate(frames_b64):
        data = raw.split(",", 1)[1] if raw.startswith("data:") else raw
        try:
            buf = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            raise BadDemonstration(f"demonstration {k}, frame {i + 1} is not base64", demonstration=k) from None
        img = cv2.imdecode(np.frombuffer(buf, np.uint8), cv2.IMREAD_COLOR) if buf else None
        if img is None:
            raise BadDemonstration(f"demonstration {k}, frame {i + 1} is not a JPEG or PNG picture", demonstration=k)
        h, w = img.shape[:2]
        if max(h, w) > MAX_SIDE:
            s = MAX_SIDE / max(h, w)
            img = cv2.resize(img, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)
        out.append(img)
    return out


def landmarks(images: Sequence[np.ndarray], fps: float, player: str) -> tuple[list[FrameLandmarks], TableCalibration]:
    cal = whole_frame(player)
    with LandmarkExtractor(cal, DRILL_RATES, workers=1) as ex:
        frames = [ex.process(img, i / fps, i) for i, img in enumerate(images)]
    return frames, cal


def series_of(frames_b64: Sequence[str], fps: float, player: str, k: int) -> SeatSeries:
    frames, cal = landmarks(decode(frames_b64, k), fps, player)
    return seat_series(frames, cal, player)


def enrol(team: str, player: str, demonstrations: Sequence[tuple[Sequence[str], float]]) -> Enrolment:
    if not 3 <= len(demonstrations) <= 5:
        raise FreeSignalError(f"a Free Signal needs 3 to 5 demonstrations, got {len(demonstrations)}")
    series = [series_of(frames, fps, player, k + 1) for k, (frames, fps) in enumerate(demonstrations)]
    return Enrolment(team, player, FreeSignal.learn(series, name=team))


def calibrate_player(
    player: str, signal: str, performances: Sequence[tuple[Sequence[str], float]], previous: dict[str, Any] | None
) -> Profile:
    """A player's profile from 2-3 performances of `signal` (browser frames), merged into the
    profile they already have for their other signals."""
    series = [series_of(frames, fps, player, k + 1) for k, (frames, fps) in enumerate(performances)]
    new = calibrate(player, {signal: series})
    if previous is None:
        return new
    old = Profile.from_dict(previous)
    params = {**old.params, **new.params}
    if signal not in new.params:
        params.pop(signal, None)
    return Profile(player, params, {**old.radius, **new.radius}, new.notes)


def calibration_words(signal: str, profile: Profile, lines: Sequence[dict[str, Any]]) -> str:
    """What a calibration did to `signal`'s lines, for the player: the card's words, then each
    note with its line's name said in words ("top of the right hand above the eyes, in eye
    spans 0.4 -> 0.23 ...")."""
    notes = [n.split(": ", 1)[1] for n in profile.notes if n.startswith(f"{signal}: ")]
    if not notes:
        return "the catalogue's lines already fit"
    for line in lines:
        notes = [n.replace(line["name"], line["what"]) for n in notes]
    card = BY_ID[signal].text.rstrip(".") if signal in BY_ID else signal
    return f"{card}: " + "; ".join(notes)


def lines_of(signal: str, profile: Profile | dict[str, Any] | None) -> list[dict[str, Any]]:
    """The lines a player's calibration moves for `signal`: each with the catalogue's value and
    the player's (a raise: the hand's top above the eyes, the wrist above the shoulders, higher
    is harder; a touch: the contact radius around its target, smaller is harder)."""
    cat = default_catalogue()
    try:
        spec = cat[signal]
    except KeyError:
        return []
    if isinstance(profile, dict):
        profile = Profile.from_dict(profile)
    params = dict(profile.params.get(signal, {})) if profile is not None else {}
    radius = dict(profile.radius) if profile is not None else {}
    hand = spec.params.get("hand", "")
    if spec.detector == "raise_hand":
        what = {
            "top_above_eyes": f"top of the {hand} hand above the eyes, in eye spans",
            "wrist_above_shoulders": f"{hand} wrist above the shoulder line, in shoulder widths",
        }
        return [
            {"name": k, "what": w, "catalogue": float(spec.p(k)), "yours": float(params.get(k, spec.p(k)))}
            for k, w in what.items()
        ]
    if spec.detector == "face_touch":
        target = str(spec.p("target"))
        r0 = float(cat.face_contact_radius[target])
        return [
            {
                "name": f"{target}_radius",
                "what": f"how near the {target} the hand must come (its contact radius)",
                "catalogue": r0,
                "yours": float(radius.get(target, r0)),
            }
        ]
    return []


def try_free(enrolment: Enrolment, frames_b64: Sequence[str], fps: float) -> dict[str, Any]:
    """The enrolled signal tried at once on one more demonstration: found or not, and how near."""
    frames, cal = landmarks(decode(frames_b64, 1), fps, enrolment.player)
    series = seat_series(frames, cal, enrolment.player)
    events = detect_signals(frames, cal, only=["free"], free=enrolment.signal)
    cost = enrolment.signal.cost(series)
    thr = enrolment.signal.threshold
    seen = bool(events)
    words = (f"{enrolment.signal.label} seen" if seen else f"not {enrolment.signal.label}") + (
        f": cost {cost:.2f} against the threshold {thr:.2f}" if cost is not None else ": no face seen"
    )
    return {
        "seen": seen,
        "cost": None if cost is None else round(cost, 4),
        "threshold": round(thr, 4),
        "events": [
            {"start": e.start, "end": e.end, "confidence": e.confidence, "team": enrolment.team} for e in events
        ],
        "description": describe(series),
        "words": words,
    }
