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
from typing import Any, Callable

import cv2
import numpy as np

from referee.observations import CardsSeen, SignalEvent
from vision.capture.sources import CameraFrame
from vision.cards.detections import CardDetections
from vision.observe import cards_seen


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


def card_mask(image: np.ndarray, distance: float = 45.0) -> np.ndarray:
    """Pixels that are not the cloth: colour (Lab, L1 distance) farther than `distance` from the
    picture's median colour, the cloth that fills most of a table camera's view. A card whose
    print is dark at its edge keeps a whole outline (its white border differs from the cloth)."""
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)
    step = max(1, int(np.sqrt(lab.shape[0] * lab.shape[1] / 20000)))
    cloth = np.median(lab[::step, ::step].reshape(-1, 3), axis=0).astype(np.uint8)
    diff = cv2.absdiff(lab, np.full_like(lab, cloth))
    total = cv2.transform(diff, np.ones((1, 3), np.float32))  # L1 over the three channels
    mask = (total > distance).astype(np.uint8) * 255
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))


def contour_cards(image: np.ndarray, min_area_frac: float = 0.002, max_area_frac: float = 0.2) -> CardDetections:
    """Rectangles of a card's shape standing out from a plain cloth, as `CardDetections`
    (corners in the card's order, top edge the short edge nearer the top of the picture). For
    a plain table without the trained model; cards touching each other merge and are missed."""
    quads = _outlines(image, min_area_frac, max_area_frac)
    if not quads:
        return CardDetections.empty()
    return CardDetections.from_corners(np.stack(quads), confidence=np.ones(len(quads), np.float32))


def _portrait_order(box: np.ndarray) -> np.ndarray:
    """Four corners as top-left, top-right, bottom-right, bottom-left of a portrait card whose
    top is the short edge nearer the top of the picture."""
    c = box.mean(axis=0)
    ang = np.arctan2(box[:, 1] - c[1], box[:, 0] - c[0])
    box = box[np.argsort(ang)]  # clockwise in image coordinates (y down)
    best = None
    for k in range(4):
        q = np.roll(box, -k, axis=0)
        top = np.linalg.norm(q[1] - q[0])
        side = np.linalg.norm(q[2] - q[1])
        if top > side:
            continue
        score = (q[0, 1] + q[1, 1]) / 2
        if best is None or score < best[0]:
            best = (score, q)
    return best[1] if best is not None else box


def _outlines(image: np.ndarray, min_area_frac: float = 0.002, max_area_frac: float = 0.2) -> list[np.ndarray]:
    """Card-shaped regions standing out from the cloth: (4, 2) rectangles in portrait order."""
    h, w = image.shape[:2]
    contours, _ = cv2.findContours(card_mask(image), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    quads = []
    for c in contours:
        hull = cv2.convexHull(c)
        area = cv2.contourArea(hull)  # dark print at a card's edge leaves notches
        if not (min_area_frac * w * h <= area <= max_area_frac * w * h):
            continue
        rect = cv2.minAreaRect(hull)
        rw, rh = rect[1]
        if min(rw, rh) <= 0:
            continue
        if 1.2 <= max(rw, rh) / min(rw, rh) <= 1.9 and area / (rw * rh) >= 0.85:
            quads.append(_portrait_order(cv2.boxPoints(rect).astype(np.float32)))
    return quads


def _quad_iou(a: np.ndarray, b: np.ndarray) -> float:
    a = cv2.convexHull(a.astype(np.float32))
    b = cv2.convexHull(b.astype(np.float32))
    inter, _ = cv2.intersectConvexConvex(a, b)
    union = cv2.contourArea(a) + cv2.contourArea(b) - inter
    return float(inter / union) if union > 0 else 0.0


def refine_corners(image: np.ndarray, dets: CardDetections, min_iou: float = 0.05) -> CardDetections:
    """The detector finds the cards; their outlines against the cloth give exact corners.

    The card-shaped outlines of the picture (`_outlines`) are matched one to one with the
    detections, best overlap first (IoU of the quadrilaterals at least `min_iou`), then by a
    detection's centre lying on an outline nobody claimed (its corners collapsed); a matched
    detection takes its outline's corners, in the detector's order (of the two portrait
    rotations, the nearer to the detector's corners). A detection left without an outline
    keeps its corners (a card in a hand, on a light table), unless it overlaps an outline
    already taken or has its centre on it (a second, looser guess at the same card). Outlines no detection claims are not
    cards: the detector decides what is a card."""
    if len(dets) == 0:
        return dets
    quads = _outlines(image)
    out = dets.copy()
    pairs = sorted(((_quad_iou(out.corners[i], q), i, j) for i in range(len(out)) for j, q in enumerate(quads)),
                   reverse=True)
    det_to: dict[int, int] = {}
    taken: set[int] = set()
    for iou, i, j in pairs:
        if iou < min_iou:
            break
        if i in det_to or j in taken:
            continue
        det_to[i], _ = j, taken.add(j)
    # A detection whose corners collapsed but whose centre lies on a card no one claimed has
    # found that card: it takes the outline.
    for i in np.argsort(-out.confidence):
        if int(i) in det_to:
            continue
        centre = tuple(map(float, out.centers[i]))
        for j, q in enumerate(quads):
            if j not in taken and cv2.pointPolygonTest(q.reshape(-1, 1, 2), centre, False) >= 0:
                det_to[int(i)] = j
                taken.add(j)
                break
    keep = []
    for i in range(len(out)):
        if i in det_to:
            quad = quads[det_to[i]]
            rotations = [quad, np.roll(quad, -2, axis=0)]  # portrait: the top is a short edge
            errors = [float(np.linalg.norm(r - out.corners[i], axis=1).sum()) for r in rotations]
            out.corners[i] = rotations[int(np.argmin(errors))]
            keep.append(i)
        elif not any(_quad_iou(out.corners[i], quads[j]) >= 0.15
                     or cv2.pointPolygonTest(quads[j].reshape(-1, 1, 2), tuple(map(float, out.centers[i])), False) >= 0
                     for j in taken):
            keep.append(i)
    from vision.cards.detections import orientation_of

    out.orientation = orientation_of(out.corners)
    return out[np.array(keep, dtype=int)]


class CardStage:
    def __init__(self, camera: str, deck: str = "beccato", finder: str = "detector",
                 locate: Callable[[str, np.ndarray], list] | None = None, fps: float | None = 5.0,
                 model: str | None = None, threads: int | None = None, detector_conf: float = 0.25) -> None:
        from vision.cards.templates import load_deck

        self.camera = camera
        self.deck = load_deck(deck)
        self.finder = finder
        self.locate = locate
        self.gate = RateGate(fps)
        self.model_path: str | None = None
        if finder in ("detector", "detector+outline"):
            from vision.cards.detector import CardDetector

            model_ = CardDetector(model, conf=detector_conf, threads=threads)
            self.model_path = str(model_.path)
            if finder == "detector":
                self.detector = model_
            else:
                self.detector = lambda image: refine_corners(image, model_(image))
        elif finder == "contour":
            self.detector = contour_cards
        else:
            raise ValueError(f"card finder {finder!r}: 'detector', 'detector+outline' or 'contour'")
        from vision.cards.reader import CardReader

        # The reader's own corner snapping serves the bare detector; the outline and contour
        # finders give exact corners already.
        self.reader = CardReader(self.detector, self.deck, snap=(finder == "detector"))

    def due(self, t: float) -> bool:
        return self.gate.due(t)

    def read(self, image: np.ndarray) -> CardDetections:
        """The cards of one frame, found, rectified, identified (`vision.cards.reader`) and put
        in their zones. No tracker: a card replaced by another in the same place must be read
        afresh, not inherit the earlier card's label (the zone stabiliser handles flicker)."""
        dets = self.reader.read(image)
        if self.locate is not None and len(dets):
            dets.zone[:] = self.locate(self.camera, dets.centers)
        return dets

    def __call__(self, frame: CameraFrame) -> CardsSeen:
        return cards_seen(frame.t, self.camera, self.read(frame.image), frame.index)


class SignalStage:
    def __init__(self, camera: str, calibration, fps: float | None = 10.0, window: float = 6.0,
                 step: float = 1.0, settle: float = 0.6, rates=None, max_crop_side: int | None = 640) -> None:
        from vision.landmarks.extract import LandmarkExtractor, Rates

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
        from vision.signals.engine import detect_signals

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
