"""From landmarks to signal events, and from media to landmarks: the composable steps.

    frames = landmarks_from_media(path)                  # FrameLandmarks per processed frame
    events = detect_signals(frames, calibration)         # SignalEvents, sorted by start
    talk   = mouth_moving_events("clip.mp4")             # the audio recogniser's seat cue

`mouth_moving` events (signal "mouth_moving", player = seat name) are intervals during which
that seat's lips are moving; the audio recogniser attributes a sound to the seat whose mouth
is moving at that time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from referee.observations import SignalEvent
from vision.landmarks.calibration import TableCalibration
from vision.landmarks.types import FrameLandmarks
from vision.signals.cards import card_events
from vision.signals.catalogue import MOUTH_MOVING, Catalogue, default_catalogue
from vision.signals.detectors import run_body_detectors
from vision.signals.features import SeatSeries
from vision.signals.free import FreeSignal

CARD_DETECTORS = ("cards_visible", "cards_middle_flip")


def seat_series(frames: Sequence[FrameLandmarks], calibration: TableCalibration, seat: str) -> SeatSeries:
    s = calibration.seat(seat)
    w = frames[0].width if frames else 1
    h = frames[0].height if frames else 1
    return SeatSeries.build([(f.t, f.index, f.person(seat)) for f in frames], s, w, h)


def detect_signals(
    frames: Sequence[FrameLandmarks],
    calibration: TableCalibration,
    catalogue: Catalogue | None = None,
    only: Sequence[str] | None = None,
    card_frames: Mapping[str, Sequence[tuple[float, Any]]] | None = None,
    free: Mapping[str, FreeSignal] | FreeSignal | None = None,
) -> list[SignalEvent]:
    """Every catalogue signal for every seat. `card_frames`: per seat name, (t, cards) per frame
    (see `vision.signals.cards`). `free`: a learnt Free Signal for all seats, or per seat."""
    cat = catalogue or default_catalogue()
    events: list[SignalEvent] = []
    for seat in calibration.seats:
        series = seat_series(frames, calibration, seat.name)
        events.extend(run_body_detectors(series, cat, only))
        for spec in cat.signals:
            if spec.detector in CARD_DETECTORS and (only is None or spec.id in only) and card_frames:
                events.extend(card_events(series, spec, cat, card_frames=card_frames.get(seat.name)))
        fs = free.get(seat.name) if isinstance(free, Mapping) else free
        if fs is not None and (only is None or "free" in only):
            events.extend(fs.match(series))
    return sorted(events, key=lambda e: (e.start, e.player, e.signal))


def sample_frames(frames: Iterable, fps: float | None) -> Iterable:
    """Keep about `fps` frames per second of a frame source (None: all)."""
    next_t = None
    for fr in frames:
        if fps is None or next_t is None or fr.time >= next_t - 1e-6:
            step = 1.0 / fps if fps else 0.0
            next_t = fr.time + step if next_t is None or fr.time - next_t > step else next_t + step
            yield fr


def landmarks_from_media(
    source,
    calibration: TableCalibration | None = None,
    fps: float | None = 10.0,
    rates=None,
    max_crop_side: int | None = 640,
    names: Sequence[str] | None = None,
    mirrored: bool = False,
    propose_seconds: float = 2.0,
    max_frames: int | None = None,
) -> tuple[list[FrameLandmarks], TableCalibration]:
    """Open an image, a video or a camera (`vision.video.open_frames`), propose a calibration
    from its first seconds when none is given, and extract landmarks at about `fps`."""
    from vision.landmarks.extract import Rates, extract_stream, propose_calibration  # deferred: loads OpenCV and SciPy
    from vision.video import open_frames  # deferred: loads OpenCV; detecting from landmarks needs none

    rates = rates or Rates()
    if calibration is None:
        with open_frames(source, max_frames=max_frames) as src:
            picks, next_t = [], 0.0
            for fr in src:
                if fr.time > propose_seconds + 1e-6:
                    break
                if fr.time >= next_t - 1e-6:
                    picks.append(fr.image)
                    next_t += 0.5
        calibration = propose_calibration(picks, names=names, mirrored=mirrored)
    with open_frames(source, max_frames=max_frames) as src:
        static = src.kind == "image"
        frames = list(
            extract_stream(sample_frames(src, fps), calibration, rates, static=static, max_crop_side=max_crop_side)
        )
    return frames, calibration


def mouth_moving_events(
    source,
    calibration: TableCalibration | None = None,
    fps: float = 15.0,
    frames: Sequence[FrameLandmarks] | None = None,
) -> list[SignalEvent]:
    """Intervals during which each seat's mouth is moving: `SignalEvent(signal="mouth_moving",
    player=<seat name>, start, end, confidence, evidence)`. Pass `frames` to reuse landmarks
    already extracted (then `source` is not read)."""
    from vision.landmarks.extract import Rates  # deferred: loads OpenCV and SciPy

    if frames is None:
        frames, calibration = landmarks_from_media(
            source, calibration, fps=fps, rates=Rates(face=None, hands=2.0, pose=2.0)
        )
    if calibration is None:
        raise ValueError("mouth_moving_events with frames needs their calibration")
    return detect_signals(frames, calibration, only=[MOUTH_MOVING])


def speaking_seats(mouth_events: Sequence[SignalEvent], start: float, end: float) -> list[tuple[str, float]]:
    """The seats whose mouth was moving during [start, end], with the seconds of overlap,
    most first: how a sound heard then is attributed (empty: nobody's lips moved)."""
    overlap: dict[str, float] = {}
    for e in mouth_events:
        if e.signal != MOUTH_MOVING:
            continue
        o = min(e.end, end) - max(e.start, start)
        if o > 0 or (start == end and e.start <= start <= e.end):
            overlap[e.player] = overlap.get(e.player, 0.0) + max(o, 0.0)
    return sorted(overlap.items(), key=lambda kv: -kv[1])
