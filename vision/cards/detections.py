"""`CardDetections`: the cards seen in one frame, as small typed arrays (supervision style).

Every step of the card reader takes and returns one: the detector fills the corners, the
confidence and face-up/down; identification fills the label, its confidence and the
orientation; the tracker fills the track id; the zones fill the zone. Index it like a numpy
array (an int, a slice, a boolean mask or an index array) to filter.

Conventions
-----------
corners: (N, 4, 2) float32 image pixels, in the card's own order: top-left, top-right,
    bottom-right, bottom-left of the face as printed (for a face-down card, of its back).
    The top edge (corner 0 to 1) is a short edge: cards are portrait.
orientation: degrees, the direction the card's top points in the image, clockwise from the
    image's up: 0 upright, 90 top to the right, 180 upside down. For a face that looks the
    same turned 180 degrees (French and Italian pips, backs) it is only known modulo 180 and
    is reported in [-90, 90).
label: the face id (`vision.cards.decks.Card.face_key`), or None while unknown. A face-down card
    is named by its back's id, or, once tracked, by the face its track was read as.
track_id: -1 while not tracked. zone: None while unknown.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import numpy as np

from vision.cards.geometry import orientation_of

UNKNOWN = "unknown"


def _obj(values: Any, n: int) -> np.ndarray:
    out = np.empty(n, dtype=object)
    if values is not None:
        out[:] = list(values)
    return out


@dataclasses.dataclass
class CardDetections:
    corners: np.ndarray  # (N, 4, 2) float32
    confidence: np.ndarray  # (N,) float32, the detector's
    face_up: np.ndarray  # (N,) bool
    class_id: np.ndarray  # (N,) int, the detector's class
    label: np.ndarray  # (N,) object: str or None
    label_confidence: np.ndarray  # (N,) float32, 0 when unknown
    orientation: np.ndarray  # (N,) float32 degrees
    track_id: np.ndarray  # (N,) int, -1 when untracked
    zone: np.ndarray  # (N,) object: str or None

    def __post_init__(self) -> None:
        self.corners = np.asarray(self.corners, dtype=np.float32).reshape(-1, 4, 2)
        n = len(self.corners)
        self.confidence = np.asarray(self.confidence, dtype=np.float32).reshape(n)
        self.face_up = np.asarray(self.face_up, dtype=bool).reshape(n)
        self.class_id = np.asarray(self.class_id, dtype=np.int64).reshape(n)
        self.label = (
            _obj(self.label, n) if not isinstance(self.label, np.ndarray) else self.label.astype(object).reshape(n)
        )
        self.label_confidence = np.asarray(self.label_confidence, dtype=np.float32).reshape(n)
        self.orientation = np.asarray(self.orientation, dtype=np.float32).reshape(n)
        self.track_id = np.asarray(self.track_id, dtype=np.int64).reshape(n)
        self.zone = _obj(self.zone, n) if not isinstance(self.zone, np.ndarray) else self.zone.astype(object).reshape(n)

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def empty(cls) -> CardDetections:
        return cls.from_corners(np.zeros((0, 4, 2), np.float32))

    @classmethod
    def from_corners(
        cls,
        corners: Any,
        confidence: Any = None,
        face_up: Any = None,
        class_id: Any = None,
    ) -> CardDetections:
        corners = np.asarray(corners, dtype=np.float32).reshape(-1, 4, 2)
        n = len(corners)
        face = np.ones(n, bool) if face_up is None else np.asarray(face_up, bool)
        return cls(
            corners=corners,
            confidence=np.ones(n, np.float32) if confidence is None else confidence,
            face_up=face,
            class_id=(~face).astype(np.int64) if class_id is None else class_id,
            label=np.full(n, None, dtype=object),
            label_confidence=np.zeros(n, np.float32),
            orientation=orientation_of(corners),
            track_id=np.full(n, -1, np.int64),
            zone=np.full(n, None, dtype=object),
        )

    @classmethod
    def merge(cls, parts: list[CardDetections]) -> CardDetections:
        if not parts:
            return cls.empty()
        return cls(**{f.name: np.concatenate([getattr(p, f.name) for p in parts]) for f in dataclasses.fields(cls)})

    # -- array behaviour -------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.corners)

    def __getitem__(self, index: Any) -> CardDetections:
        if isinstance(index, (int, np.integer)):
            index = [int(index)]
        return CardDetections(**{f.name: getattr(self, f.name)[index] for f in dataclasses.fields(self)})

    def __iter__(self) -> Iterator[CardDetections]:
        for i in range(len(self)):
            yield self[i]

    def copy(self) -> CardDetections:
        return CardDetections(**{f.name: getattr(self, f.name).copy() for f in dataclasses.fields(self)})

    def put(self, rows: Any, values: CardDetections) -> None:
        """Rows `rows` (an index array or mask) replaced in place by `values`, in order, every column."""
        for f in dataclasses.fields(self):
            getattr(self, f.name)[rows] = getattr(values, f.name)

    def same_reading(self, other: CardDetections) -> bool:
        """Whether `other` read the same cards the same way: the columns a reader writes (corners
        to the bit, face up or down, label, its confidence, orientation) all equal."""
        return (
            len(self) == len(other)
            and np.array_equal(self.corners, other.corners)
            and np.array_equal(self.face_up, other.face_up)
            and list(self.label) == list(other.label)
            and np.array_equal(self.label_confidence, other.label_confidence)
            and np.array_equal(self.orientation, other.orientation)
        )

    # -- derived geometry ------------------------------------------------------------------
    @property
    def xyxy(self) -> np.ndarray:
        """(N, 4) axis-aligned boxes around the corners."""
        if len(self) == 0:
            return np.zeros((0, 4), np.float32)
        return np.concatenate([self.corners.min(axis=1), self.corners.max(axis=1)], axis=1)

    @property
    def centers(self) -> np.ndarray:
        return self.corners.mean(axis=1) if len(self) else np.zeros((0, 2), np.float32)

    @property
    def area(self) -> np.ndarray:
        """Area of each corner quadrilateral (shoelace), in pixels."""
        x, y = self.corners[..., 0], self.corners[..., 1]
        return 0.5 * np.abs(np.sum(x * np.roll(y, -1, axis=1) - y * np.roll(x, -1, axis=1), axis=1))

    # -- filters -----------------------------------------------------------------------------
    def with_confidence(self, minimum: float) -> CardDetections:
        return self[self.confidence >= minimum]

    def known(self) -> CardDetections:
        """Only the cards whose label is known."""
        return self[np.array([lbl is not None for lbl in self.label], dtype=bool)]

    def labelled(self, label: str) -> CardDetections:
        return self[np.array([lbl == label for lbl in self.label], dtype=bool)]

    # -- output ------------------------------------------------------------------------------
    def to_dicts(self, ndigits: int = 1) -> list[dict[str, Any]]:
        out = []
        for i in range(len(self)):
            out.append(
                {
                    "label": self.label[i] if self.label[i] is not None else UNKNOWN,
                    "confidence": round(float(self.label_confidence[i]), 3),
                    "detector_confidence": round(float(self.confidence[i]), 3),
                    "corners": [[round(float(x), ndigits), round(float(y), ndigits)] for x, y in self.corners[i]],
                    "face_up": bool(self.face_up[i]),
                    "orientation": round(float(self.orientation[i]), 1),
                    "track_id": int(self.track_id[i]) if self.track_id[i] >= 0 else None,
                    "zone": self.zone[i],
                }
            )
        return out
