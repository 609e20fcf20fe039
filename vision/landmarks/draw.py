"""Drawing landmarks, seats, table lines and events on a frame (OpenCV primitives)."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from referee.observations import SignalEvent
from vision.landmarks.calibration import TableCalibration
from vision.landmarks.types import FrameLandmarks

HAND_EDGES = (
    (0, 1),
    (1, 2),
    (2, 3),
    (3, 4),
    (0, 5),
    (5, 6),
    (6, 7),
    (7, 8),
    (5, 9),
    (9, 10),
    (10, 11),
    (11, 12),
    (9, 13),
    (13, 14),
    (14, 15),
    (15, 16),
    (13, 17),
    (17, 18),
    (18, 19),
    (19, 20),
    (0, 17),
)
POSE_EDGES = ((11, 12), (11, 13), (13, 15), (12, 14), (14, 16), (11, 23), (12, 24), (23, 24))
SIDE_COLOUR = {"left": (255, 128, 0), "right": (0, 128, 255)}  # BGR: left blue, right orange
FACE_COLOUR = (80, 220, 80)


def _pt(p) -> tuple[int, int]:
    return int(round(float(p[0]))), int(round(float(p[1])))


def draw_frame(
    image: np.ndarray, frame: FrameLandmarks, calibration: TableCalibration, events: Sequence[SignalEvent] = ()
) -> np.ndarray:
    out = image.copy()
    h, w = out.shape[:2]
    for seat in calibration.seats:
        x0, y0, x1, y1 = seat.region_px(w, h)
        cv2.rectangle(out, (x0, y0), (x1 - 1, y1 - 1), (200, 200, 200), 1)
        cv2.putText(out, seat.name, (x0 + 4, y0 + 18), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 2)
        if seat.table_line is not None:
            (ax, ay), (bx, by) = seat.table_line
            cv2.line(out, (int(ax * w), int(ay * h)), (int(bx * w), int(by * h)), (0, 200, 255), 2)
    for p in frame.persons:
        if p.face is not None:
            for q in p.face[::3]:
                cv2.circle(out, _pt(q), 1, FACE_COLOUR, -1)
        if p.pose is not None:
            for a, b in POSE_EDGES:
                if min(p.pose[a, 3], p.pose[b, 3]) > 0.5:
                    cv2.line(out, _pt(p.pose[a]), _pt(p.pose[b]), (230, 230, 230), 2)
        for side, hand in p.hands.items():
            for a, b in HAND_EDGES:
                cv2.line(out, _pt(hand.points[a]), _pt(hand.points[b]), SIDE_COLOUR[side], 2)
            cv2.putText(
                out,
                f"{p.seat}:{side[0].upper()}",
                _pt(hand.points[0] + np.array([5, 15, 0])),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.5,
                SIDE_COLOUR[side],
                1,
            )
    y = 24
    for e in events:
        if e.start <= frame.t <= e.end + 0.5:
            text = f"{e.player}: {e.signal} {e.confidence:.2f}{' ?' if e.unsure else ''}"
            cv2.putText(out, text, (10, h - y), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 0), 4)
            cv2.putText(out, text, (10, h - y), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 255, 255), 2)
            y += 26
    return out
