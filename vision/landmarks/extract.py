"""MediaPipe over a whole table: FaceMesh, Hands and Pose per seat crop, at their own rates.

Holistic and Pose see one person; a table has several. `LandmarkExtractor` keeps one FaceMesh,
one Hands and one Pose graph per seat (each tracks its own player between frames), runs them on
that seat's crop at the rate its signals need (face 15/s for winks and lips, hands 12/s for
touches and taps, pose 5/s for elbows and raises), carries the last result forward between
runs (each part keeps its time: when it was measured, or the frame's, see below), and gives
every hand to its owner by geometry (`vision.landmarks.assign`). When Hands finds fewer than
two hands in a seat's crop, it looks
again (3/s, and on every hands frame while that finds a hand) at an enlarged crop around that
seat's face (`zoom_box`): a hand at the face or raised beside it is small in the seat's crop and
often missed there. A mirrored source is flipped
before inference and the points flipped back, so sides are always the player's own.

Each seat keeps its own turns: the seats' first turns are put back by their share of a period,
so that the seats' Pose (and Hands) runs are spread over the frames of a period rather than
all paid on one. A seat whose view has not moved since its Pose last ran
(`still_thumbnail`, `thumbnail_change`: sensor noise, JPEG and a camera's gain do not count)
keeps that result, re-stamped at the frame's time, for up to STILL_REFRESH seconds; Hands is
kept that way only while its last run found no hand in the seat (STILL_REFRESH_HANDS), so a
hand in view is always measured at its rate (a finger's tap is a small change, and a single
wrong fit must not last). FaceMesh always runs at its rate (winks and lips are small changes).

Only `model_complexity=1` is used: Pose's other complexities download their models at run time
(Hands' lite models are bundled; see ZOOM_COMPLEXITY).
"""

from __future__ import annotations

import dataclasses
import importlib
import sys
import threading
import types
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import cv2
import numpy as np

from vision.landmarks.assign import RawHand, assign_hands
from vision.landmarks.calibration import Seat, TableCalibration, propose_table_line, seats_from_faces, whole_frame
from vision.landmarks.types import POSE_ELBOW, POSE_SHOULDER, POSE_WRIST, FrameLandmarks, Hand, Person
from vision.still import still_thumbnail as _thumbnail
from vision.still import thumbnail_change


@dataclasses.dataclass(frozen=True)
class Rates:
    """Frames per second for each model; None runs it on every frame."""

    face: float | None = 15.0
    hands: float | None = 12.0
    pose: float | None = 5.0
    zoom: float | None = (
        3.0  # Hands again around a face where it missed a hand (then every hands frame while it finds one)
    )


# MediaPipe's drawing helpers, which `mediapipe.solutions` imports and nothing here uses; they
# import matplotlib.pyplot (33 MB of the process, 0.6 s). Loaded on their first use instead.
MEDIAPIPE_DRAWING = ("mediapipe.python.solutions.drawing_utils", "mediapipe.python.solutions.drawing_styles")


class _LoadedOnFirstUse(types.ModuleType):
    """Stands in `sys.modules` for a module until something first looks inside it, then
    imports the real one (which takes its place there) and answers from it."""

    def __getattr__(self, attr: str) -> Any:
        sys.modules.pop(self.__name__, None)
        real = importlib.import_module(self.__name__)
        parent, _, leaf = self.__name__.rpartition(".")
        setattr(sys.modules[parent], leaf, real)
        return getattr(real, attr)


def load_mediapipe():
    """`mediapipe`, imported without its drawing helpers' matplotlib (see MEDIAPIPE_DRAWING)."""
    stand_ins = []
    if "mediapipe" not in sys.modules:
        for name in MEDIAPIPE_DRAWING:
            if name not in sys.modules:
                stand_in = _LoadedOnFirstUse(name)
                stand_in.__spec__ = None  # the import system asks whether it is still initialising
                sys.modules[name] = stand_in
                stand_ins.append(stand_in)
    import mediapipe as mp  # deferred: MediaPipe takes seconds to load; only an extractor needs it

    for stand_in in stand_ins:  # `mp.solutions.drawing_utils` as after a plain import
        parent, _, leaf = stand_in.__name__.rpartition(".")
        if sys.modules.get(stand_in.__name__) is stand_in:
            setattr(sys.modules[parent], leaf, stand_in)
    return mp


def _to_px(landmarks, x0: int, y0: int, w: int, h: int, with_visibility: bool = False) -> np.ndarray:
    pts = np.array(
        [[lm.x, lm.y, lm.z] + ([lm.visibility] if with_visibility else []) for lm in landmarks.landmark],
        dtype=np.float32,
    )
    pts[:, 0] = pts[:, 0] * w + x0
    pts[:, 1] = pts[:, 1] * h + y0
    pts[:, 2] = pts[:, 2] * w
    return pts


STILL_SIDE = 80  # px: the longer side of the grey thumbnail a seat's stillness is judged on
STILL_CHANGE = 4.0  # its 8 most changed pixels, mean, in 1/50 of its contrast: over this, it moved
STILL_REFRESH = 0.5  # s: a still seat's Pose runs again at least this often
STILL_REFRESH_HANDS = 0.25  # s: the same for Hands, kept only while it found no hand there


def still_thumbnail(crop: np.ndarray) -> np.ndarray:
    """A seat crop as a small grey picture (`vision.still`, STILL_SIDE): averaging 8x8 pixels or
    so washes out sensor noise and JPEG blocks, the normalising a camera's gain."""
    return _thumbnail(crop, STILL_SIDE)


# `thumbnail_change` (vision.still): sensor noise, JPEG and a 3% gain change stay under 2.5 on
# real seat crops; a moving player's consecutive 25 fps frames are over 4 in 95%.


ZOOM_SIDE = 384  # px: the face-centred crop Hands looks at again when it missed a hand
ZOOM_SPAN = 2.6  # that crop's side, in face heights (the face, the hands at it, a raised fist)
ZOOM_MIN_SCORE = 0.8  # a hand found only in the zoomed crop must be this sure


class _SeatGraphs:
    """A seat's own graphs: each tracks its player from frame to frame, so no two seats share one."""

    def __init__(self, static: bool) -> None:
        mp = load_mediapipe()
        self.face = mp.solutions.face_mesh.FaceMesh(
            static_image_mode=static, max_num_faces=1, refine_landmarks=False, min_detection_confidence=0.5
        )
        self.hands = mp.solutions.hands.Hands(
            static_image_mode=static, max_num_hands=2, model_complexity=1, min_detection_confidence=0.5
        )
        self.pose = mp.solutions.pose.Pose(static_image_mode=static, model_complexity=1, min_detection_confidence=0.5)

    def close(self) -> None:
        for g in (self.face, self.hands, self.pose):
            g.close()


# The zoom's Hands models: the full ones. MediaPipe's lite Hands (bundled too) holds 55 MB instead
# of 83 MB and found as many hands on the 44 zoom crops of the real people media, but not the
# right fist arriving at the cheek in frame 23 of the real gesture clip, the very hand the zoom
# is for (tests/signals/test_signals_real.py).
ZOOM_COMPLEXITY = 1


class _ZoomGraph:
    """Hands in static-image mode for the crop around a face (it moves with the face: every call
    is a new picture, so the graph keeps nothing from one call to the next). One serves every
    seat, in turn (about 80 MB a graph), and it is made only when first needed."""

    def __init__(self) -> None:
        self._graph: Any = None
        self._lock = threading.Lock()

    def process(self, rgb: np.ndarray) -> Any:
        with self._lock:
            if self._graph is None:
                self._graph = load_mediapipe().solutions.hands.Hands(
                    static_image_mode=True,
                    max_num_hands=2,
                    model_complexity=ZOOM_COMPLEXITY,
                    min_detection_confidence=0.5,
                )
            return self._graph.process(rgb)

    def close(self) -> None:
        with self._lock:
            if self._graph is not None:
                self._graph.close()
                self._graph = None


PALM = (0, 5, 9, 13, 17)
MODELS = ("face", "hands", "pose")


def _overlap(a: RawHand, b: RawHand) -> bool:
    """Whether either hand's palm centre lies within the other's box (grown by half its size):
    a second fit of one hand, seen close up (often a part of it: the thumb of a thumbs-up)."""
    for x, y in ((a, b), (b, a)):
        palm = x.points[list(PALM), :2].mean(axis=0)
        lo, hi = y.points[:, :2].min(axis=0), y.points[:, :2].max(axis=0)
        grow = 0.5 * float(np.linalg.norm(y.points[9, :2] - y.points[0, :2]))
        if bool(np.all(palm >= lo - grow) and np.all(palm <= hi + grow)):
            return True
    return False


def zoom_box(face: np.ndarray, bounds: tuple[int, int, int, int]) -> tuple[int, int, int, int] | None:
    """The crop around a face (FaceMesh points, px) where a hand at the face or raised beside
    it lies: ZOOM_SPAN face heights wide, a little more above the face than below, kept
    inside `bounds` (the seat's box). None when it would be empty."""
    x0, y0 = face[:, 0].min(), face[:, 1].min()
    x1, y1 = face[:, 0].max(), face[:, 1].max()
    side = ZOOM_SPAN * max(float(y1 - y0), 1.0)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    bx0, by0, bx1, by1 = bounds
    box = (
        int(max(bx0, cx - side / 2)),
        int(max(by0, cy - 0.6 * side)),
        int(min(bx1, cx + side / 2)),
        int(min(by1, cy + 0.4 * side)),
    )
    return box if box[2] - box[0] >= 8 and box[3] - box[1] >= 8 else None


class LandmarkExtractor:
    """Per-frame landmarks for every seat of a calibration. Use as a context manager, or call
    `close()`. `static=True` treats every frame as an unrelated picture (images).

    Each seat has its own MediaPipe graphs, so the seats of a frame run side by side on
    `workers` threads (MediaPipe computes outside the GIL); their results are merged in seat
    order, so the landmarks are the same whatever the number of workers."""

    def __init__(
        self,
        calibration: TableCalibration,
        rates: Rates = Rates(),
        static: bool = False,
        max_crop_side: int | None = 640,
        workers: int = 2,
        zoom_hands: bool = True,
        still: bool = True,
    ) -> None:
        self.calibration = calibration
        self.zoom_hands = zoom_hands
        self.rates = rates
        self.static = static
        self.max_crop_side = max_crop_side
        self.workers = max(1, min(workers, len(calibration.seats)))
        self._pool = ThreadPoolExecutor(self.workers, "seat") if self.workers > 1 else None
        self._graphs = {s.name: _SeatGraphs(static) for s in calibration.seats}
        self._zoom = _ZoomGraph() if zoom_hands else None
        self.still = still
        self._order = {s.name: k for k, s in enumerate(calibration.seats)}
        self._last_run: dict[tuple[str, str], float] = {}  # (seat, model): when its last turn was taken
        self._ref: dict[tuple[str, str], tuple[float, np.ndarray]] = {}  # (seat, model): last real run, its view
        self._raw: dict[str, list[RawHand]] = {s.name: [] for s in calibration.seats}  # hands of each seat's last run
        self._no_hand: dict[str, bool] = {}  # per seat: its last Hands run found no hand
        self._zoom_found: dict[str, bool] = {}  # per seat: the last look around the face found a hand
        self._carry: dict[str, Person] = {s.name: Person(s.name) for s in calibration.seats}

    def __enter__(self) -> LandmarkExtractor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
        for g in self._graphs.values():
            g.close()
        self._graphs = {}
        if self._zoom is not None:
            self._zoom.close()

    def _period(self, model: str) -> float | None:
        """Seconds between a seat's runs of a model; None: on every frame."""
        rate = getattr(self.rates, model)
        if self.static or rate is None:
            return None
        return 1.0 / rate

    def _due(self, seat: str, model: str, t: float) -> bool:
        period = self._period(model)
        if period is None:
            return True
        last = self._last_run.get((seat, model))
        return last is None or t - last >= period - 1e-6

    def _mark(self, seat: str, model: str, t: float) -> None:
        """A model's turn on a seat is taken at t. The first one is put back by the share of
        the period of the seat's group (as many seats as workers: group g of G, g/G of it), so
        the groups' turns fall on different frames and each frame's work is a group's, one seat
        a worker: the workers stay evenly loaded (one seat a phase left a worker idle beside
        another's Pose: 15% more wall time a frame for the same CPU)."""
        key = (seat, model)
        period = self._period(model)
        if key not in self._last_run and period is not None:
            groups = -(-len(self._order) // self.workers)
            self._last_run[key] = t - period * (self._order[seat] // self.workers) / groups
        else:
            self._last_run[key] = t

    def process(self, image: np.ndarray, t: float, index: int = 0) -> FrameLandmarks:
        """Landmarks of one BGR frame taken at time t (seconds)."""
        height, width = image.shape[:2]
        mirrored = self.calibration.mirrored
        work = cv2.flip(image, 1) if mirrored else image
        seats = self.calibration.seats
        plans: list[tuple[list[str], bool]] = []
        for seat in seats:
            due = [m for m in ("face", "hands", "pose") if self._due(seat.name, m, t)]
            zoom = "hands" in due and self.zoom_hands and self._due(seat.name, "zoom", t)
            for m in due + ["zoom"] * zoom:
                self._mark(seat.name, m, t)
            plans.append((due, zoom))
        if self._pool is not None:
            results = list(
                self._pool.map(lambda sp: self._seat(sp[0], work, t, sp[1][0], mirrored, sp[1][1]), zip(seats, plans))
            )
        else:
            results = [self._seat(seat, work, t, due, mirrored, zoom) for seat, (due, zoom) in zip(seats, plans)]
        faces: dict[str, np.ndarray | None] = {}
        poses: dict[str, np.ndarray | None] = {}
        ran: set[str] = set()
        hands_new = False
        for seat, (person, seat_hands, seat_ran) in zip(seats, results):  # in seat order, as one thread would
            faces[seat.name], poses[seat.name] = person.face, person.pose
            self._carry[seat.name] = person
            ran |= seat_ran
            if seat_hands is not None:  # Hands ran on this seat: its hands as found now
                self._raw[seat.name] = seat_hands
                hands_new = True
        unassigned: tuple[Hand, ...] = ()
        if hands_new:
            # Assignment happens in the un-mirrored frame, where pose and handedness agree; the
            # seats whose Hands did not run this frame take part with the hands of their last run.
            raw_hands = [h for s in seats for h in self._raw[s.name]]
            seats_work = [self._work_seat(s, mirrored) for s in seats]
            owned, _rest = assign_hands(raw_hands, seats_work, faces, poses, width, height, mirrored=False)
            for seat in seats:
                self._carry[seat.name] = self._carry[seat.name].replace(hands=owned[seat.name])
            unassigned = tuple(_rest)
        persons = tuple(self._carry[s.name] for s in seats)
        if mirrored:
            persons = tuple(_unflip_person(p, width) for p in persons)
            unassigned = tuple(_unflip_hand(h, width) for h in unassigned)
        return FrameLandmarks(index, t, width, height, persons, unassigned, tuple(m for m in MODELS if m in ran))

    def _still(self, seat: str, model: str, t: float, thumb: np.ndarray) -> bool:
        """Whether a seat's view has not moved since this model last really ran on it (less
        than its refresh ago): its result then still holds, and the model is not run. Hands
        is kept only while its last run found no hand in the seat: a hand in view is measured
        at its rate (a tap is a small change; a wrong fit must not be repeated)."""
        if not self.still or self._period(model) is None:
            return False
        refresh = STILL_REFRESH
        if model == "hands":
            if not self._no_hand.get(seat, False):
                return False
            refresh = STILL_REFRESH_HANDS
        ref = self._ref.get((seat, model))
        return ref is not None and t - ref[0] < refresh and thumbnail_change(thumb, ref[1]) < STILL_CHANGE

    def _seat(
        self, seat: Seat, work: np.ndarray, t: float, due: list[str], mirrored: bool, zoom: bool = False
    ) -> tuple[Person, list[RawHand] | None, set[str]]:
        """One seat's models on its crop of the frame: its carried-over person with the parts
        that were due updated (measured again, or re-stamped at t where the seat's view has not
        moved since they were measured), the hands found in its crop (None when Hands did not
        run) and the models that ran."""
        height, width = work.shape[:2]
        carry = self._carry[seat.name]
        x0, y0, x1, y1 = self._seat_box(seat, width, height, mirrored)
        if not due:
            return carry, None, set()
        crop = work[y0:y1, x0:x1]
        if self.max_crop_side and max(crop.shape[:2]) > self.max_crop_side:
            scale = self.max_crop_side / max(crop.shape[:2])
            crop = cv2.resize(crop, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        thumb = still_thumbnail(crop) if self.still and not self.static else None
        kept = {m for m in ("hands", "pose") if m in due and thumb is not None and self._still(seat.name, m, t, thumb)}
        run = [m for m in due if m not in kept]
        for m in run:
            if thumb is not None and m in ("hands", "pose"):
                self._ref[(seat.name, m)] = (t, thumb)
        g = self._graphs[seat.name]
        cw, ch = x1 - x0, y1 - y0
        changes: dict[str, Any] = {}
        if kept:
            changes.update({f"{m}_t": t for m in kept})
        rgb = None
        if run:
            rgb = cv2.cvtColor(crop, cv2.COLOR_BGR2RGB)
            rgb.flags.writeable = False
        face = carry.face
        if "face" in run:
            res = g.face.process(rgb)
            face = _to_px(res.multi_face_landmarks[0], x0, y0, cw, ch) if res.multi_face_landmarks else None
            changes.update(face=face, face_t=t)
        if "pose" in run:
            res = g.pose.process(rgb)
            pose = _to_px(res.pose_landmarks, x0, y0, cw, ch, True) if res.pose_landmarks else None
            changes.update(pose=pose, pose_t=t)
        hands: list[RawHand] | None = None
        if "hands" in run:
            hands = []
            res = g.hands.process(rgb)
            for lm, hd in zip(res.multi_hand_landmarks or [], res.multi_handedness or []):
                c = hd.classification[0]
                hands.append(RawHand(_to_px(lm, x0, y0, cw, ch), float(c.score), c.label))
            # Looked for at the zoom rate; once found, on every hands frame while it stays found.
            look = zoom or self._zoom_found.get(seat.name, False)
            if look and self._zoom is not None and face is not None and len(hands) < 2:
                found = self._zoom_hands(self._zoom, work, face, (x0, y0, x1, y1))
                new = [h for h in found if not any(_overlap(h, k) for k in hands)]
                hands.extend(new)
                self._zoom_found[seat.name] = bool(new)  # one key per seat: one thread writes it
            else:
                self._zoom_found[seat.name] = False
            self._no_hand[seat.name] = not hands
            changes["hands_t"] = t
        return carry.replace(**changes), hands, set(run)

    @staticmethod
    def _zoom_hands(graph, work: np.ndarray, face: np.ndarray, bounds: tuple[int, int, int, int]) -> list[RawHand]:
        """Hands missed a hand: look again at a crop around the face (where the face mesh
        says it is), enlarged. Hands at the face or raised beside it are small in a seat's
        crop, and a hand over the face hides its palm from the palm detector; close up, it
        finds them (on the real gesture clip: the fist arriving at the cheek, the raised fist).
        Only sure hands are kept; doubles of hands already found are merged by
        `assign.dedupe_hands`."""
        box = zoom_box(face, bounds)
        if box is None:
            return []
        zx0, zy0, zx1, zy1 = box
        crop = work[zy0:zy1, zx0:zx1]
        scale = ZOOM_SIDE / max(crop.shape[:2])
        crop = cv2.resize(
            crop, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
        )
        rgb = cv2.cvtColor(crop, cv2.COLOR_BGR2RGB)
        rgb.flags.writeable = False
        res = graph.process(rgb)
        out = []
        for lm, hd in zip(res.multi_hand_landmarks or [], res.multi_handedness or []):
            c = hd.classification[0]
            if c.score >= ZOOM_MIN_SCORE:
                out.append(RawHand(_to_px(lm, zx0, zy0, zx1 - zx0, zy1 - zy0), float(c.score), c.label))
        return out

    @staticmethod
    def _work_seat(seat: Seat, mirrored: bool) -> Seat:
        if not mirrored:
            return seat
        x0, y0, x1, y1 = seat.region
        line = None
        if seat.table_line is not None:
            (ax, ay), (bx, by) = seat.table_line
            line = ((1 - bx, by), (1 - ax, ay))
        return dataclasses.replace(seat, region=(1 - x1, y0, 1 - x0, y1), table_line=line)

    def _seat_box(self, seat: Seat, width: int, height: int, mirrored: bool) -> tuple[int, int, int, int]:
        x0, y0, x1, y1 = self._work_seat(seat, mirrored).region_px(width, height)
        return max(0, x0), max(0, y0), min(width, max(x1, x0 + 2)), min(height, max(y1, y0 + 2))


def _unflip(points: np.ndarray, width: int) -> np.ndarray:
    out = points.copy()
    out[:, 0] = width - out[:, 0]
    return out


def _unflip_hand(h: Hand, width: int) -> Hand:
    return dataclasses.replace(h, points=_unflip(h.points, width))


def _unflip_person(p: Person, width: int) -> Person:
    return p.replace(
        face=None if p.face is None else _unflip(p.face, width),
        pose=None if p.pose is None else _unflip(p.pose, width),
        hands={s: _unflip_hand(h, width) for s, h in p.hands.items()},
    )


# -- the naive baseline ----------------------------------------------------------------------


class HolisticPerSeat:
    """The simple way, kept as the speed baseline: MediaPipe Holistic on each seat crop, every
    frame (one person per graph, so one graph per seat)."""

    def __init__(self, calibration: TableCalibration) -> None:
        mp = load_mediapipe()
        self.calibration = calibration
        self._graphs = {s.name: mp.solutions.holistic.Holistic(model_complexity=1) for s in calibration.seats}

    def process(self, image: np.ndarray, t: float, index: int = 0) -> int:
        height, width = image.shape[:2]
        found = 0
        for seat in self.calibration.seats:
            x0, y0, x1, y1 = seat.region_px(width, height)
            rgb = cv2.cvtColor(image[y0:y1, x0:x1], cv2.COLOR_BGR2RGB)
            res = self._graphs[seat.name].process(rgb)
            found += res.pose_landmarks is not None
        return found

    def close(self) -> None:
        for g in self._graphs.values():
            g.close()


# -- proposing a calibration --------------------------------------------------------------------

FaceBox = tuple[float, float, float, float, float]  # normalised x0, y0, x1, y1, score


def _nms(boxes: list[FaceBox], iou: float = 0.3) -> list[FaceBox]:
    boxes = sorted(boxes, key=lambda b: -b[4])
    kept: list[FaceBox] = []
    for b in boxes:
        if all(_iou(b, k) < iou for k in kept):
            kept.append(b)
    return kept


def _iou(a: Sequence[float], b: Sequence[float]) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def detect_faces(image: np.ndarray, min_score: float = 0.6) -> list[FaceBox]:
    """Face boxes (normalised x0, y0, x1, y1, score) over the frame and its four overlapping
    quarters, so small faces at a wide table are found too (full-range BlazeFace)."""
    mp = load_mediapipe()
    h, w = image.shape[:2]
    windows = [(0, 0, w, h)] + [
        (int(cx * w), int(cy * h), int(min(1.0, cx + 0.6) * w), int(min(1.0, cy + 0.6) * h))
        for cy in (0.0, 0.4)
        for cx in (0.0, 0.4)
    ]
    boxes: list[FaceBox] = []
    with mp.solutions.face_detection.FaceDetection(model_selection=1, min_detection_confidence=min_score) as fd:
        for x0, y0, x1, y1 in windows:
            if x1 <= x0 or y1 <= y0:  # a quarter of a frame one pixel wide or high is empty
                continue
            rgb = cv2.cvtColor(image[y0:y1, x0:x1], cv2.COLOR_BGR2RGB)
            for det in fd.process(rgb).detections or []:
                bb = det.location_data.relative_bounding_box
                bx0 = (x0 + bb.xmin * (x1 - x0)) / w
                by0 = (y0 + bb.ymin * (y1 - y0)) / h
                boxes.append(
                    (
                        max(0.0, bx0),
                        max(0.0, by0),
                        min(1.0, bx0 + bb.width * (x1 - x0) / w),
                        min(1.0, by0 + bb.height * (y1 - y0) / h),
                        float(det.score[0]),
                    )
                )
    return [b for b in _nms(boxes) if b[2] > b[0] and b[3] > b[1]]


def propose_calibration(
    images: Sequence[np.ndarray], names: Sequence[str] | None = None, mirrored: bool = False, min_presence: float = 0.5
) -> TableCalibration:
    """Seats and table lines from a few frames of the first seconds (e.g. 2 per second for
    2 s). A face seen in at least `min_presence` of the frames makes a seat; each seat's table
    line comes from where its wrists rest (`propose_table_line`). No face: one whole-frame seat.
    The result is marked `proposed`: a person should check and may edit it."""
    if not images:
        raise ValueError("propose_calibration needs at least one frame")
    tracks: list[list[tuple[float, ...]]] = []
    for img in images:
        src = cv2.flip(img, 1) if mirrored else img
        for b in detect_faces(src):
            if mirrored:
                b = (1 - b[2], b[1], 1 - b[0], b[3], b[4])
            for tr in tracks:
                if _iou(tr[-1], b) > 0.3:
                    tr.append(b)
                    break
            else:
                tracks.append([b])
    faces = [tuple(np.median(np.array(tr)[:, :4], axis=0)) for tr in tracks if len(tr) >= min_presence * len(images)]
    if faces:
        seats = seats_from_faces(faces, names)
        calib = TableCalibration(seats=seats, mirrored=mirrored, proposed=True)
    else:
        calib = whole_frame(names[0] if names else "player1", mirrored)
    h, w = images[0].shape[:2]
    samples: dict[str, dict[str, list[float]]] = {s.name: {"w": [], "e": [], "s": [], "sw": []} for s in calib.seats}
    with LandmarkExtractor(calib, static=True) as ex:
        for i, img in enumerate(images):
            frame = ex.process(img, float(i), i)
            for p in frame.persons:
                acc = samples[p.seat]
                if p.pose is not None:
                    sh = p.pose[[POSE_SHOULDER["left"], POSE_SHOULDER["right"]]]
                    if sh[:, 3].min() > 0.5:
                        acc["s"].append(float(sh[:, 1].mean()))
                        acc["sw"].append(float(abs(sh[0, 0] - sh[1, 0])))
                    for side in ("left", "right"):
                        el, wr = p.pose[POSE_ELBOW[side]], p.pose[POSE_WRIST[side]]
                        if el[3] > 0.5 and 0 <= el[1] < h:
                            acc["e"].append(float(el[1]))
                        if wr[3] > 0.5 and 0 <= wr[1] < h:
                            acc["w"].append(float(wr[1]))
                for hand in p.hands.values():
                    acc["w"].append(float(hand.wrist[1]))
    lined = []
    for s in calib.seats:
        acc = samples[s.name]
        line = propose_table_line(acc["w"], acc["s"], acc["sw"], s.region, h, frames=len(images))
        lined.append(dataclasses.replace(s, table_line=line))
    return dataclasses.replace(calib, seats=tuple(lined))


def extract_stream(
    frames: Iterable,
    calibration: TableCalibration,
    rates: Rates = Rates(),
    static: bool = False,
    max_crop_side: int | None = 640,
) -> Iterator[FrameLandmarks]:
    """Landmarks for every `vision.video.Frame` (anything with .index, .time, .image)."""
    with LandmarkExtractor(calibration, rates, static=static, max_crop_side=max_crop_side) as ex:
        for fr in frames:
            yield ex.process(fr.image, fr.time, fr.index)
