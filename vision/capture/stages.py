"""Perception stages of a live table, each run at the rate it needs on the session clock.

* `CardStage`: the card reader on one camera: find the cards (the trained detector on
  onnxruntime, `finder="detector"`; or `finder="contour"`, classical contours of light cards
  on a dark plain cloth, for tables without the model), rectify each face-up card, identify it
  against the deck's templates, and put it in its table zone. Out: `CardsSeen`.
* `SignalStage`: MediaPipe landmarks of the seats one camera covers (`LandmarkExtractor`), and
  the signal detectors (`detect_signals`) run over a sliding window; an event is reported once
  it has ended (`settle` seconds without it) so it is reported whole, exactly once.

A stage is `due(t)` at most `fps` times per second of session time. Run over a recording frame by
frame, the same frames are processed in every run (a replay is reproducible); run live behind
latest-frame grabbers, a slow stage simply sees fewer frames.
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from referee.core import RefereeError
from referee.observations import CardsSeen, SignalEvent
from vision.capture.sources import CameraFrame
from vision.cards.detections import CardDetections
from vision.cards.detector import CardDetector
from vision.cards.outlines import contour_cards, snap_to_cloth_outlines
from vision.cards.read_pool import ReadingPool
from vision.cards.reader import CardReader, not_second_guesses
from vision.cards.templates import load_deck
from vision.cards.track import StillCards, StillFrames, grey_of
from vision.landmarks.calibration import TableCalibration
from vision.observe import cards_seen
from vision.signals.engine import detect_signals

if TYPE_CHECKING:
    from vision.landmarks.extract import Rates


class RateGate:
    """True at most `fps` times per second of frame time (None: every frame)."""

    def __init__(self, fps: float | None) -> None:
        self.fps = fps
        self._next: float | None = None

    def due(self, t: float) -> bool:
        if self.fps is None:
            return True
        step = 1.0 / self.fps
        if self._next is None or t >= self._next - 1e-6:
            self._next = t + step if self._next is None or t - self._next > step else self._next + step
            return True
        return False


class UnreadableModel(RefereeError):
    """A card detector file that is not a model onnxruntime can load."""


class CardStage:
    def __init__(
        self,
        camera: str,
        deck: str = "beccato",
        finder: str = "detector",
        locate: Callable[[str, np.ndarray], list] | None = None,
        fps: float | None = 5.0,
        model: str | None = None,
        threads: int | None = None,
        detector_conf: float = 0.25,
        read_once: bool = True,
        still_frames: bool = True,
        read_workers: int = 0,
    ) -> None:
        """`read_workers`: processes that read a frame's cards beside this one (`ReadingPool`;
        0: this process reads them alone). `close` stops them."""
        self.camera = camera
        self.deck = load_deck(deck)
        self.finder = finder
        self.locate = locate
        self.gate = RateGate(fps)
        self.model_path: str | None = None
        self.detector: Callable[[np.ndarray], CardDetections]
        if finder in ("detector", "detector+outline"):
            try:
                model_ = CardDetector(model, conf=detector_conf, threads=threads)
            except RefereeError:
                raise
            except Exception as exc:  # onnxruntime's errors (InvalidProtobuf, Fail...) derive from Exception
                raise UnreadableModel(
                    f"{model or 'the card detector'} is not a card detector model onnxruntime can load "
                    f"({type(exc).__name__})",
                    path=str(model),
                ) from None
            self.model_path = str(model_.path)
            if finder == "detector":
                self.detector = model_
            else:
                self.detector = lambda image: snap_to_cloth_outlines(image, model_(image))
        elif finder == "contour":
            self.detector = contour_cards
        else:
            raise ValueError(f"card finder {finder!r}: 'detector', 'detector+outline' or 'contour'")
        # The reader's own corner snapping serves the bare detector; the outline and contour
        # finders give exact corners already.
        self.reader = CardReader(self.detector, self.deck, snap=(finder == "detector"))
        self.pool = ReadingPool(self.reader, read_workers) if read_workers > 0 else None
        self.still = StillCards() if read_once else None
        self.frames = StillFrames() if read_once and still_frames else None

    def due(self, t: float) -> bool:
        return self.gate.due(t)

    def read(self, image: np.ndarray, t: float | None = None) -> CardDetections:
        """The cards of one frame, found, rectified, identified (`vision.cards.reader`) and put
        in their zones. No tracker: a card replaced by another in the same place must be read
        afresh, not inherit the earlier card's label (the zone stabiliser handles flicker).

        With `read_once` (`StillCards`) a card lying still, its view unchanged since it was read,
        keeps that reading instead of being identified again on every frame; a card put in its
        place changes the view and is read afresh. The readings are those of reading every
        frame: the same crop read again gives the same name. Given the frame's time `t`, a frame
        on which nothing has moved since the detector's last settled run takes that run's cards
        without the detector (`StillFrames`)."""
        if self.still is None:
            dets = self.reader.read(image)
        else:
            dets = self._read_once(image, t)
        if self.locate is not None and len(dets):
            dets.zone[:] = self.locate(self.camera, dets.centers)
        return dets

    def _read_once(self, image: np.ndarray, t: float | None = None) -> CardDetections:
        assert self.still is not None
        grey = grey_of(image)  # once, for every comparison of views below
        if self.frames is not None and t is not None:
            kept = self.frames.reuse(grey, t)
            if kept is not None:
                self.still.tick()
                return kept
        found = self.detector(image)
        reuse = self.still.match(grey, found)
        fresh = np.array([r is None for r in reuse], bool)
        reads = found.copy()
        if fresh.any():
            reads_fresh = self.reader.identify(image, found[fresh])
            reads.put(np.flatnonzero(fresh), reads_fresh)
        for i, r in enumerate(reuse):
            if r is not None:
                reads.put(np.array([i]), r.read)
        snapped = np.any(reads.corners != found.corners, axis=(1, 2))
        for i, r in enumerate(reuse):
            if r is not None:
                snapped[i] = r.snapped
        self.still.remember(grey, found, reads, snapped, reuse)
        keep = not_second_guesses(reads, snapped) if self.reader.snap else np.ones(len(reads), bool)
        if self.frames is not None and t is not None:
            sure = ~fresh | ~found.face_up | self.still.sure_reads(reads) | ~keep
            self.frames.remember(t, found, reads[keep], sure)
        return reads[keep]

    def __call__(self, frame: CameraFrame) -> CardsSeen:
        return cards_seen(frame.t, self.camera, self.read(frame.image, frame.t), frame.index)

    def close(self) -> None:
        """Stop the reading workers, if any (the stage reads on alone)."""
        if self.pool is not None:
            self.pool.close()
            self.pool = None


class SignalStage:
    def __init__(
        self,
        camera: str,
        calibration: TableCalibration,
        fps: float | None = 10.0,
        window: float = 6.0,
        step: float = 1.0,
        settle: float = 0.6,
        rates: Rates | None = None,
        max_crop_side: int | None = 640,
    ) -> None:
        from vision.landmarks.extract import (  # deferred: loads SciPy (~1 s); only a camera on seats needs it
            LandmarkExtractor,
            Rates,
        )

        self.camera = camera
        self.calibration = calibration
        self.gate = RateGate(fps)
        self.extractor = LandmarkExtractor(calibration, rates or Rates(), max_crop_side=max_crop_side)
        self.window, self.step, self.settle = window, step, settle
        self.frames: collections.deque = collections.deque()
        self.landmarks: list[Any] = []  # every FrameLandmarks (for clips and evidence)
        self._last_detect: float | None = None
        self._reported: set[tuple] = set()

    def due(self, t: float) -> bool:
        return self.gate.due(t)

    def __call__(self, frame: CameraFrame) -> list[SignalEvent]:
        fl = self.extractor.process(frame.image, frame.t, frame.index)
        self.frames.append(fl)
        self.landmarks.append(fl)
        while self.frames and self.frames[0].t < frame.t - self.window:
            self.frames.popleft()
        if self._last_detect is None:
            self._last_detect = frame.t
        if frame.t - self._last_detect < self.step:
            return []
        self._last_detect = frame.t
        return self._detect(frame.t, final=False)

    def flush(self) -> list[SignalEvent]:
        """At the end of the stream: events still open are reported as they are."""
        if not self.frames:
            return []
        return self._detect(self.frames[-1].t, final=True)

    def _detect(self, now: float, final: bool) -> list[SignalEvent]:
        frames = list(self.frames)
        if len(frames) < 2:
            return []
        first = frames[0].t
        out = []
        for ev in detect_signals(frames, self.calibration):
            if not final and ev.end > now - self.settle:
                continue  # still going on: report it once it has ended
            if ev.start <= first + 1e-6 and first > 0:
                continue  # cut by the window's start: it was reported from an earlier window
            key = (ev.player, ev.signal, round(ev.start, 1))
            if key in self._reported:
                continue
            self._reported.add(key)
            out.append(ev)
        return out

    def close(self) -> None:
        self.extractor.close()
