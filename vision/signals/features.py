"""Per-seat geometry over time: the numbers every detector reads, as numpy series.

`SeatSeries.build(stream, seat, width, height)` turns one seat's `Person`s into arrays over
frames (NaN where a part was not seen). Lengths are normalised by the player's own size:
`iod`, the span between the outer eye corners (FaceMesh 33 and 263), and `sw`, the shoulder
width (Pose 11 and 12), so thresholds hold for a child and an adult, near and far.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from vision.landmarks.calibration import Seat
from vision.landmarks.types import (
    HAND_PADS,
    HAND_TIPS,
    POSE_ELBOW,
    POSE_INDEX,
    POSE_PINKY,
    POSE_SHOULDER,
    POSE_THUMB,
    POSE_WRIST,
    SIDES,
    Person,
)

# FaceMesh indices (the player's own sides on an un-mirrored picture).
EYE_OUTER = {"right": 33, "left": 263}
EYE_INNER = {"right": 133, "left": 362}
EYE_UPPER = {"right": (160, 159, 158), "left": (387, 386, 385)}
EYE_LOWER = {"right": (144, 145, 153), "left": (373, 374, 380)}
# Full lid rings, paired upper-to-lower (used to close an eye in synthetic streams too).
EYE_LID_PAIRS = {
    "right": ((246, 7), (161, 163), (160, 144), (159, 145), (158, 153), (157, 154), (173, 155)),
    "left": ((466, 249), (388, 390), (387, 373), (386, 374), (385, 380), (384, 381), (398, 382)),
}
NOSE_TIP = 1
CHIN = (152, 175)
LIP_INNER_UPPER, LIP_INNER_LOWER = 13, 14
MOUTH = (13, 14, 61, 291)
FOREHEAD = 151
FACE_TOP = 10  # top of the forehead, where the hair begins
CHEEK = {"left": 425, "right": 205}

FACE_TARGETS = ("nose", "chin", "mouth", "eye_left", "eye_right", "cheek_left", "cheek_right", "forehead")
CONTACT_POINTS = HAND_TIPS + HAND_PADS
# Pose's hand points, in the order of `SeatSeries.pose_hand`: wrist, pinky, index, thumb.
POSE_HAND = {s: (POSE_WRIST[s], POSE_PINKY[s], POSE_INDEX[s], POSE_THUMB[s]) for s in SIDES}
POSE_CONTACT = (1, 2, 3)  # pinky, index, thumb: the points of a pose hand that can touch


def face_targets(face: np.ndarray) -> dict[str, np.ndarray]:
    """2-D target points on a face (pixels)."""
    f = face[:, :2]
    return {
        "nose": f[NOSE_TIP],
        "chin": f[list(CHIN)].mean(axis=0),
        "mouth": f[list(MOUTH)].mean(axis=0),
        "eye_left": f[[EYE_OUTER["left"], EYE_INNER["left"], *EYE_UPPER["left"], *EYE_LOWER["left"]]].mean(axis=0),
        "eye_right": f[[EYE_OUTER["right"], EYE_INNER["right"], *EYE_UPPER["right"], *EYE_LOWER["right"]]].mean(axis=0),
        "cheek_left": f[CHEEK["left"]],
        "cheek_right": f[CHEEK["right"]],
        "forehead": f[FOREHEAD],
    }


def eye_aspect_ratio(face: np.ndarray, side: str) -> float:
    f = face[:, :2]
    width = np.linalg.norm(f[EYE_OUTER[side]] - f[EYE_INNER[side]])
    if width <= 0:
        return float("nan")
    gaps = [np.linalg.norm(f[u] - f[lo]) for u, lo in zip(EYE_UPPER[side], EYE_LOWER[side])]
    return float(np.mean(gaps) / width)


def _nan(shape) -> np.ndarray:
    return np.full(shape, np.nan, dtype=np.float64)


@dataclasses.dataclass
class SeatSeries:
    seat: Seat
    width: int
    height: int
    t: np.ndarray  # (T,)
    index: np.ndarray  # (T,) frame indices
    iod: np.ndarray  # (T,) eye span, px
    targets: dict[str, np.ndarray]  # name -> (T, 2)
    eye_line_y: np.ndarray
    ear: dict[str, np.ndarray]  # side -> (T,)
    yaw: np.ndarray  # (T,) -1..1: nose offset between the eyes (0 = facing the camera)
    mouth_open: np.ndarray  # (T,) inner-lip gap / iod
    hand: dict[str, np.ndarray]  # side -> (T, 21, 2)
    hand_size: dict[str, np.ndarray]
    hand_from: dict[str, list[str | None]]  # side -> per frame, how its side was decided
    pose_wrist: dict[str, np.ndarray]  # side -> (T, 3): x, y, visibility
    elbow: dict[str, np.ndarray]  # side -> (T, 3)
    pose_hand: dict[str, np.ndarray]  # side -> (T, 4, 3): pose wrist, pinky, index, thumb (x, y, visibility)
    face_top_y: np.ndarray  # (T,) FaceMesh 10, the top of the forehead
    shoulder_y: np.ndarray
    sw: np.ndarray  # shoulder width, px

    @property
    def n(self) -> int:
        return len(self.t)

    def has_hand(self, side: str) -> np.ndarray:
        return ~np.isnan(self.hand[side][:, 0, 0])

    def table_y(self, x: np.ndarray) -> np.ndarray:
        if self.seat.table_line is None:
            return _nan(np.shape(x))
        (ax, ay), (bx, by) = self.seat.table_line
        xn = np.asarray(x, dtype=np.float64) / self.width
        return (ay + (by - ay) * (xn - ax) / (bx - ax)) * self.height

    def body_scale(self) -> np.ndarray:
        """Per frame, the eye span; where no face was seen, 0.35 shoulder widths (a typical
        ratio), so distances stay in the player's own units."""
        out = self.iod.copy()
        miss = np.isnan(out)
        out[miss] = 0.35 * self.sw[miss]
        return out

    @classmethod
    def build(
        cls, stream: Sequence[tuple[float, int, Person | None]], seat: Seat, width: int, height: int
    ) -> SeatSeries:
        T = len(stream)
        iod, eye_y, yaw, mouth = _nan(T), _nan(T), _nan(T), _nan(T)
        targets = {k: _nan((T, 2)) for k in FACE_TARGETS}
        ear = {s: _nan(T) for s in SIDES}
        hand = {s: _nan((T, 21, 2)) for s in SIDES}
        hsize = {s: _nan(T) for s in SIDES}
        hfrom: dict[str, list[str | None]] = {s: [None] * T for s in SIDES}
        pw = {s: _nan((T, 3)) for s in SIDES}
        el = {s: _nan((T, 3)) for s in SIDES}
        ph = {s: _nan((T, 4, 3)) for s in SIDES}
        top_y = _nan(T)
        sh_y, sw = _nan(T), _nan(T)
        for i, (_t, _idx, p) in enumerate(stream):
            if p is None:
                continue
            if p.face is not None:
                f = p.face
                iod[i] = float(np.linalg.norm(f[EYE_OUTER["left"], :2] - f[EYE_OUTER["right"], :2]))
                for k, v in face_targets(f).items():
                    targets[k][i] = v
                eye_y[i] = (targets["eye_left"][i, 1] + targets["eye_right"][i, 1]) / 2
                top_y[i] = f[FACE_TOP, 1]
                for s in SIDES:
                    ear[s][i] = eye_aspect_ratio(f, s)
                mouth[i] = float(np.linalg.norm(f[LIP_INNER_UPPER, :2] - f[LIP_INNER_LOWER, :2])) / max(iod[i], 1e-6)
                el_, er_ = f[EYE_OUTER["left"], 0], f[EYE_OUTER["right"], 0]
                mid = (el_ + er_) / 2
                yaw[i] = float((f[NOSE_TIP, 0] - mid) / max(abs(el_ - er_) / 2, 1e-6))
            for s, h in p.hands.items():
                hand[s][i] = h.points[:, :2]
                hsize[s][i] = h.size
                hfrom[s][i] = h.side_from
            if p.pose is not None:
                q = p.pose
                for s in SIDES:
                    pw[s][i] = q[POSE_WRIST[s], [0, 1, 3]]
                    el[s][i] = q[POSE_ELBOW[s], [0, 1, 3]]
                    ph[s][i] = q[list(POSE_HAND[s])][:, [0, 1, 3]]
                a, b = q[POSE_SHOULDER["left"]], q[POSE_SHOULDER["right"]]
                if min(a[3], b[3]) > 0.5:
                    sh_y[i] = (a[1] + b[1]) / 2
                    sw[i] = float(np.linalg.norm(a[:2] - b[:2]))
        return cls(
            seat,
            width,
            height,
            np.array([s[0] for s in stream], np.float64),
            np.array([s[1] for s in stream], np.int64),
            iod,
            targets,
            eye_y,
            ear,
            yaw,
            mouth,
            hand,
            hsize,
            hfrom,
            pw,
            el,
            ph,
            top_y,
            sh_y,
            sw,
        )


def pose_hand_points(series: SeatSeries, side: str, min_visibility: float) -> np.ndarray:
    """(T, 4, 2) Pose's wrist, pinky, index and thumb of that side where Hands found no hand
    and Pose sees the points (visibility at least `min_visibility`); NaN elsewhere. A frame
    where Pose puts those points on the other hand, which Hands did find, is left out: Pose
    mistakes one hand for the other (a hand out of view is placed on the one in view)."""
    ph = series.pose_hand[side]
    ok = (ph[:, :, 2] >= min_visibility) & ~series.has_hand(side)[:, None]
    other = "right" if side == "left" else "left"
    theirs = series.hand[other]  # (T, 21, 2)
    with np.errstate(invalid="ignore"):
        gap = np.linalg.norm(ph[:, :, None, :2] - theirs[:, None, :, :], axis=3)  # (T, 4, 21)
        gap = np.where(np.isnan(gap), np.inf, gap).min(axis=(1, 2))
        on_other = gap < series.hand_size[other]
    ok &= ~on_other[:, None]
    return np.where(ok[:, :, None], ph[:, :, :2], np.nan)


def contact_distances(series: SeatSeries, side: str, pose_visibility: float | None = None) -> dict[str, np.ndarray]:
    """Per frame, the nearest fingertip or finger pad of that hand to each face target, in eye
    spans. With `pose_visibility`, a frame where Hands found no hand uses Pose's pinky, index
    and thumb points of that side instead (those seen at least that well)."""
    pts = series.hand[side][:, list(CONTACT_POINTS)]  # (T, 10, 2)
    if pose_visibility is not None:
        pose_pts = pose_hand_points(series, side, pose_visibility)[:, list(POSE_CONTACT)]  # (T, 3, 2)
        pad = np.full((series.n, pts.shape[1] - pose_pts.shape[1], 2), np.nan)
        pts = np.where(series.has_hand(side)[:, None, None], pts, np.concatenate([pose_pts, pad], axis=1))
    out = {}
    for name, tgt in series.targets.items():
        d = np.linalg.norm(pts - tgt[:, None, :], axis=2)
        d = np.where(np.isnan(d), np.inf, d).min(axis=1)
        out[name] = np.where(np.isinf(d), np.nan, d) / series.iod
    return out
