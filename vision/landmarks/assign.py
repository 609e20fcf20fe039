"""Which player owns each hand, and which of their hands it is: geometry only.

A hand belongs to the seat whose pose wrist it sits on (its side is then that wrist's side,
the most reliable cue); failing a pose, to the nearest face within reach (side from MediaPipe's
handedness, which assumes a mirrored picture: on an un-mirrored one its "Left" is the owner's
right hand); failing a face, to the seat whose region holds it. Each (seat, side) takes at most
one hand, solved as one assignment problem (`min_cost_assignment`, the Hungarian method).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import numpy as np

from vision.landmarks.calibration import Seat
from vision.landmarks.types import POSE_SHOULDER, POSE_WRIST, SIDES, Hand

FACE_EYE_OUTER = (33, 263)
MIN_WRIST_VISIBILITY = 0.3
POSE_MATCH = 0.6  # max wrist distance, in shoulder widths, to take a side from the pose
FACE_REACH = 8.0  # max wrist-to-face distance, in eye spans, for a hand of that face
INVALID = 1e6


@dataclasses.dataclass(frozen=True)
class RawHand:
    points: np.ndarray  # (21, 3) px of the (un-mirrored) frame
    score: float
    label: str  # MediaPipe's handedness label


def handedness_side(label: str, mirrored: bool = False) -> str:
    """The owner's side from MediaPipe's label, which is right for a mirrored (selfie) picture."""
    side = "left" if label.lower().startswith("l") else "right"
    if mirrored:
        return side
    return "right" if side == "left" else "left"


def dedupe_hands(hands: Sequence[RawHand]) -> list[RawHand]:
    """Drop second detections of one hand (overlapping crops, or MediaPipe's doubled palms)."""
    kept: list[RawHand] = []
    for h in sorted(hands, key=lambda h: -h.score):
        size = max(float(np.linalg.norm(h.points[9, :2] - h.points[0, :2])), 1.0)
        if any(float(np.mean(np.linalg.norm(h.points[:, :2] - k.points[:, :2], axis=1))) < 0.6 * size for k in kept):
            continue
        kept.append(h)
    return kept


def min_cost_assignment(cost: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rows, columns) of an assignment of least total cost: min(n, m) pairs of a rectangular
    (n, m) cost matrix, each row and each column used at most once, rows in increasing order;
    the answer of `scipy.optimize.linear_sum_assignment` (the same least total; of equal-cost
    assignments either may be given).

    Written here rather than taken from SciPy: the matrices are a frame's hands against its
    seats' hands (a few by a few), which the Hungarian method solves in microseconds, and
    importing `scipy.optimize` for them cost the live process 32 MB of memory that nothing
    else in it needs (the audio path that uses SciPy runs in its own process for a recording).
    The shortest augmenting path form (Kuhn-Munkres with potentials), O(n^2 m)."""
    c = np.asarray(cost, dtype=np.float64)
    if c.ndim != 2:
        raise ValueError(f"a cost matrix has two dimensions, not {c.ndim}")
    if not np.isfinite(c).all():
        raise ValueError("a cost matrix holds finite costs only (use a large cost for a pair that may not be made)")
    flipped = c.shape[0] > c.shape[1]
    if flipped:
        c = c.T
    n, m = c.shape
    if n == 0:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty.copy()
    a = c.tolist()
    inf = float("inf")
    u = [0.0] * (n + 1)  # row potentials (1-based; 0 is the augmenting path's root)
    v = [0.0] * (m + 1)  # column potentials
    owner = [0] * (m + 1)  # owner[j]: the row (1-based) that column j is given to, 0 for none
    way = [0] * (m + 1)
    for i in range(1, n + 1):
        owner[0] = i
        j0 = 0
        minv = [inf] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0 = owner[j0]
            row = a[i0 - 1]
            delta, j1 = inf, 0
            for j in range(1, m + 1):
                if not used[j]:
                    cur = row[j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j], way[j] = cur, j0
                    if minv[j] < delta:
                        delta, j1 = minv[j], j
            for j in range(m + 1):
                if used[j]:
                    u[owner[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if owner[j0] == 0:
                break
        while j0:  # flip the augmenting path
            j1 = way[j0]
            owner[j0] = owner[j1]
            j0 = j1
    pairs = sorted((owner[j] - 1, j - 1) for j in range(1, m + 1) if owner[j])
    rows = np.array([r for r, _ in pairs], dtype=np.intp)
    cols = np.array([k for _, k in pairs], dtype=np.intp)
    if flipped:
        order = np.argsort(cols, kind="stable")
        return cols[order], rows[order]
    return rows, cols


def _face_geometry(face: np.ndarray | None) -> tuple[np.ndarray, float] | None:
    if face is None:
        return None
    span = float(np.linalg.norm(face[FACE_EYE_OUTER[1], :2] - face[FACE_EYE_OUTER[0], :2]))
    return face[:, :2].mean(axis=0), max(span, 1.0)


def assign_hands(
    hands: Sequence[RawHand],
    seats: Sequence[Seat],
    faces: Mapping[str, np.ndarray | None],
    poses: Mapping[str, np.ndarray | None],
    width: int,
    height: int,
    mirrored: bool = False,
) -> tuple[dict[str, dict[str, Hand]], list[Hand]]:
    """Give each hand to a (seat, side). Returns ({seat: {side: Hand}}, unassigned hands)."""
    hands = dedupe_hands(hands)
    slots = [(seat.name, side) for seat in seats for side in SIDES]
    cost = np.full((len(hands), len(slots)), INVALID)
    how = np.empty((len(hands), len(slots)), dtype=object)
    for i, h in enumerate(hands):
        wrist = h.points[0, :2]
        guessed = handedness_side(h.label, mirrored)
        for j, (name, side) in enumerate(slots):
            seat = next(s for s in seats if s.name == name)
            pose = poses.get(name)
            best = None
            if pose is not None:
                sw = float(np.linalg.norm(pose[POSE_SHOULDER["left"], :2] - pose[POSE_SHOULDER["right"], :2]))
                pw = pose[POSE_WRIST[side]]
                if sw > 1 and pw[3] >= MIN_WRIST_VISIBILITY:
                    d = float(np.linalg.norm(wrist - pw[:2])) / sw
                    if d <= POSE_MATCH:
                        best = (d, "pose")
            if best is None and side == guessed:
                geo = _face_geometry(faces.get(name))
                if geo is not None:
                    d = float(np.linalg.norm(wrist - geo[0])) / geo[1]
                    if d <= FACE_REACH and seat.contains(wrist[0], wrist[1], width, height):
                        best = (1.0 + d / FACE_REACH, "handedness")
                elif seat.contains(wrist[0], wrist[1], width, height):
                    best = (3.0, "handedness")
            if best is not None:
                cost[i, j], how[i, j] = best
    out: dict[str, dict[str, Hand]] = {s.name: {} for s in seats}
    taken = set()
    if hands and slots:
        rows, cols = min_cost_assignment(cost)
        for i, j in zip(rows, cols):
            if cost[i, j] >= INVALID:
                continue
            name, side = slots[j]
            out[name][side] = Hand(hands[i].points, hands[i].score, hands[i].label, how[i, j])
            taken.add(i)
    rest = [Hand(h.points, h.score, h.label, "handedness") for i, h in enumerate(hands) if i not in taken]
    return out, rest
