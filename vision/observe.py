"""Perception's results as the table's observations (`referee.observations`).

The one place where a frame's `CardDetections` becomes `CardsSeen` and a frame's landmarks
become `HandsSeen`: the card stage, the lead-motion evaluation and the tests all use these.
"""

from __future__ import annotations

from referee.observations import CardReading, CardsSeen, HandsSeen, HandTips
from vision.cards.detections import CardDetections
from vision.landmarks.types import HAND_PADS, HAND_TIPS, FrameLandmarks


def _point(x: float, y: float) -> tuple[float, float]:
    return round(float(x), 1), round(float(y), 1)


def cards_seen(t: float, camera: str, detections: CardDetections, frame: int = -1) -> CardsSeen:
    """One frame's detections (with their track ids, where a `CardTracker` filled them) as the
    table's `CardsSeen`. A face-down card has no name."""
    return CardsSeen(
        float(t),
        camera,
        tuple(
            CardReading(
                card=detections.label[i] if detections.face_up[i] else None,
                confidence=round(float(detections.label_confidence[i]), 3),
                face_up=bool(detections.face_up[i]),
                zone=detections.zone[i],
                corners=tuple(_point(x, y) for x, y in detections.corners[i]),
                track_id=int(detections.track_id[i]),
            )
            for i in range(len(detections))
        ),
        frame,
    )


def hands_seen(frame: FrameLandmarks, camera: str) -> HandsSeen:
    """The fingertips and finger pads of every hand of one frame's landmarks, in that camera's
    pixels, as a `HandsSeen` for the lead-motion cue (`player`: the seat, where assigned)."""
    idx = list(HAND_TIPS) + list(HAND_PADS)
    out = [
        HandTips(tuple(_point(x, y) for x, y in hand.points[idx, :2]), person.seat)
        for person in frame.persons
        for hand in person.hands.values()
    ]
    out += [HandTips(tuple(_point(x, y) for x, y in hand.points[idx, :2]), None) for hand in frame.unassigned_hands]
    return HandsSeen(float(frame.t), camera, tuple(out))
