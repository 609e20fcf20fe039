"""Typed, timestamped landmark arrays: one `FrameLandmarks` per processed frame.

All coordinates are pixels of the source frame as it was given (x right, y down); z is
MediaPipe's relative depth scaled like x. Sides are always the player's own: `Person.hands`
is keyed "left"/"right" by the hand's owner, and the face and pose index conventions below
name the player's own eyes and limbs (a mirrored source is un-mirrored before inference).

Face: (468 or 478, 3) FaceMesh points. Pose: (33, 4) BlazePose points plus visibility.
Hand: (21, 3) points; `score` is MediaPipe's detection score.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

SIDES = ("left", "right")

# Pose indices (the player's own sides, for an un-mirrored image).
POSE_NOSE = 0
POSE_SHOULDER = {"left": 11, "right": 12}
POSE_ELBOW = {"left": 13, "right": 14}
POSE_WRIST = {"left": 15, "right": 16}
# BlazePose's own hand points: pinky and index knuckle-to-tip region, thumb tip.
POSE_PINKY = {"left": 17, "right": 18}
POSE_INDEX = {"left": 19, "right": 20}
POSE_THUMB = {"left": 21, "right": 22}
POSE_HIP = {"left": 23, "right": 24}

# Hand indices.
HAND_WRIST = 0
HAND_MIDDLE_MCP = 9
HAND_TIPS = (4, 8, 12, 16, 20)
HAND_PADS = (3, 7, 11, 15, 19)


def _arr(value: Any, cols: int) -> np.ndarray:
    out = np.asarray(value, dtype=np.float32)
    if out.ndim != 2 or out.shape[1] != cols:
        raise ValueError(f"expected an (N, {cols}) array, got shape {out.shape}")
    return out


@dataclasses.dataclass(frozen=True)
class Hand:
    points: np.ndarray  # (21, 3) px
    score: float = 1.0
    label: str = ""  # MediaPipe's raw handedness label, kept as evidence ("Left"/"Right")
    side_from: str = "pose"  # how its side was decided: "pose", "handedness" or "given"

    def __post_init__(self) -> None:
        object.__setattr__(self, "points", _arr(self.points, 3))
        if len(self.points) != 21:
            raise ValueError(f"a hand has 21 points, got {len(self.points)}")

    @property
    def wrist(self) -> np.ndarray:
        return self.points[HAND_WRIST, :2]

    @property
    def size(self) -> float:
        """Wrist to middle-finger knuckle, pixels: the hand's own scale."""
        return float(np.linalg.norm(self.points[HAND_MIDDLE_MCP, :2] - self.points[HAND_WRIST, :2]))

    def to_dict(self, ndigits: int = 1) -> dict[str, Any]:
        return {
            "points": np.round(self.points, ndigits).tolist(),
            "score": round(self.score, 3),
            "label": self.label,
            "side_from": self.side_from,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Hand:
        return cls(
            np.asarray(d["points"], np.float32),
            float(d.get("score", 1.0)),
            str(d.get("label", "")),
            str(d.get("side_from", "given")),
        )


@dataclasses.dataclass(frozen=True)
class Person:
    """One seat's landmarks in one frame. Any part may be missing (None / absent hand).

    face_t / pose_t: the time the face / pose were measured (a part run at a lower rate is
    carried forward; its own time says how old it is).
    """

    seat: str
    face: np.ndarray | None = None
    pose: np.ndarray | None = None
    hands: Mapping[str, Hand] = dataclasses.field(default_factory=dict)
    face_t: float | None = None
    pose_t: float | None = None
    hands_t: float | None = None

    def __post_init__(self) -> None:
        if self.face is not None:
            object.__setattr__(self, "face", _arr(self.face, 3))
        if self.pose is not None:
            pose = _arr(self.pose, 4)
            if len(pose) != 33:
                raise ValueError(f"a pose has 33 points, got {len(pose)}")
            object.__setattr__(self, "pose", pose)
        for side in self.hands:
            if side not in SIDES:
                raise ValueError(f"hand side must be 'left' or 'right', got {side!r}")
        object.__setattr__(self, "hands", dict(self.hands))

    def replace(self, **changes: Any) -> Person:
        return dataclasses.replace(self, **changes)

    def to_dict(self, ndigits: int = 1) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "face": None if self.face is None else np.round(self.face, ndigits).tolist(),
            "pose": None if self.pose is None else np.round(self.pose, 3 if ndigits > 3 else ndigits).tolist(),
            "hands": {s: h.to_dict(ndigits) for s, h in self.hands.items()},
            "face_t": self.face_t,
            "pose_t": self.pose_t,
            "hands_t": self.hands_t,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Person:
        return cls(
            seat=str(d["seat"]),
            face=None if d.get("face") is None else np.asarray(d["face"], np.float32),
            pose=None if d.get("pose") is None else np.asarray(d["pose"], np.float32),
            hands={s: Hand.from_dict(h) for s, h in (d.get("hands") or {}).items()},
            face_t=d.get("face_t"),
            pose_t=d.get("pose_t"),
            hands_t=d.get("hands_t"),
        )


@dataclasses.dataclass(frozen=True)
class FrameLandmarks:
    """Everything seen in one frame: one `Person` per seat, plus hands nobody owns."""

    index: int
    t: float
    width: int
    height: int
    persons: tuple[Person, ...] = ()
    unassigned_hands: tuple[Hand, ...] = ()
    ran: tuple[str, ...] = ()  # which models ran on this frame ("face", "hands", "pose")

    def __post_init__(self) -> None:
        object.__setattr__(self, "persons", tuple(self.persons))
        object.__setattr__(self, "unassigned_hands", tuple(self.unassigned_hands))
        object.__setattr__(self, "ran", tuple(self.ran))

    def person(self, seat: str) -> Person | None:
        for p in self.persons:
            if p.seat == seat:
                return p
        return None

    def to_dict(self, ndigits: int = 1) -> dict[str, Any]:
        return {
            "index": self.index,
            "t": round(self.t, 4),
            "width": self.width,
            "height": self.height,
            "ran": list(self.ran),
            "persons": [p.to_dict(ndigits) for p in self.persons],
            "unassigned_hands": [h.to_dict(ndigits) for h in self.unassigned_hands],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> FrameLandmarks:
        return cls(
            int(d["index"]),
            float(d["t"]),
            int(d["width"]),
            int(d["height"]),
            tuple(Person.from_dict(p) for p in d.get("persons", ())),
            tuple(Hand.from_dict(h) for h in d.get("unassigned_hands", ())),
            tuple(d.get("ran", ())),
        )


def seat_stream(frames: Iterable[FrameLandmarks], seat: str) -> list[tuple[float, Person | None]]:
    """(t, Person or None) for one seat over a frame sequence."""
    return [(f.t, f.person(seat)) for f in frames]
