"""Where on the table a card lies: a seat, the henhouse row or the centre.

Zones are polygons in *table coordinates*: the table seen from above as the unit square, where
(0, 0) is the table corner that appears top-left in the picture and (1, 1) the bottom-right one.
`table_corners` (four image points, in that order: top-left, top-right, bottom-right,
bottom-left) map the picture onto the table with a homography; without them the whole frame is
the table.

    layout = TableLayout.default(["Anna", "Bruno", "Carla", "Dario"])   # seats clockwise from the camera side
    layout = TableLayout.load("table.json")
    detections = layout.assign(detections, frame_size=(1280, 720))

A JSON layout: {"table_corners": [[x, y] x 4] (optional), "zones": [{"name": "...",
"polygon": [[x, y], ...]}, ...]}; the first zone containing a card's centre wins.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.core import RefereeError
from vision.cards.detections import CardDetections

HENHOUSES = "henhouses"
CENTRE = "centre"


class BadLayout(RefereeError):
    """A zone layout that cannot be used (no zones, a polygon of fewer than three points...)."""


@dataclasses.dataclass(frozen=True)
class LayoutZone:
    """A named polygon of a `TableLayout`, in table coordinates (the unit square), not pixels:
    `referee.table.zones.Zone` is the calibrated table's zone in one camera's pixels."""

    name: str
    polygon: np.ndarray  # (K, 2) float32 table coordinates

    def contains(self, point: Sequence[float]) -> bool:
        return cv2.pointPolygonTest(self.polygon.reshape(-1, 1, 2), (float(point[0]), float(point[1])), False) >= 0


class TableLayout:
    def __init__(self, zones: Sequence[LayoutZone], table_corners: Any = None) -> None:
        if not zones:
            raise BadLayout("a layout needs at least one zone")
        self.zones = list(zones)
        self.table_corners = None if table_corners is None else np.asarray(table_corners, np.float32).reshape(4, 2)
        self._h = None
        if self.table_corners is not None:
            if not np.isfinite(self.table_corners).all() or abs(cv2.contourArea(self.table_corners)) < 1.0:
                raise BadLayout("table_corners must be four finite [x, y] pixel points around the table")
            unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
            self._h = cv2.getPerspectiveTransform(self.table_corners, unit)
            if not np.isfinite(self._h).all() or abs(np.linalg.det(self._h)) < 1e-12:
                raise BadLayout("table_corners must be four corners of the table, no three in a line")

    # -- construction ------------------------------------------------------------------------
    @classmethod
    def default(cls, seats: Sequence[str], henhouses: bool = True) -> TableLayout:
        """Seats around the table, clockwise starting from the camera side (the bottom of the
        picture); the henhouse row across the middle; the centre (decks, the Chick) below it."""
        zones = []
        if henhouses:
            zones.append(LayoutZone(HENHOUSES, _rect(0.15, 0.36, 0.85, 0.52)))
        zones.append(LayoutZone(CENTRE, _rect(0.30, 0.30, 0.70, 0.66)))
        n = len(seats)
        for i, name in enumerate(seats):
            # seat i faces the centre from angle 90 + i * 360 / n degrees (90: bottom, y down)
            a0 = math.radians(90 + (i - 0.5) * 360 / n)
            a1 = math.radians(90 + (i + 0.5) * 360 / n)
            steps = max(2, int(abs(a1 - a0) / math.radians(10)))
            arc = [(0.5 + 2 * math.cos(a), 0.5 + 2 * math.sin(a)) for a in np.linspace(a0, a1, steps + 1)]
            zones.append(LayoutZone(str(name), np.array([(0.5, 0.5), *arc], np.float32)))
        return cls(zones)

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> TableLayout:
        try:
            zones = []
            for z in doc["zones"]:
                points = np.asarray(z["polygon"], np.float64)
                if (
                    points.ndim != 2
                    or points.shape[1] != 2
                    or len(points) < 3
                    or not (np.abs(points) < 1e6).all()  # finite, and far inside float32's range
                ):
                    raise BadLayout(f"zone {z.get('name')!r}: a polygon needs three finite [x, y] points or more")
                zones.append(LayoutZone(str(z["name"]), points.astype(np.float32)))
            return cls(zones, doc.get("table_corners"))
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
            raise BadLayout(f"not a zone layout: {exc}") from None

    @classmethod
    def load(cls, path: str | Path) -> TableLayout:
        try:
            doc = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError) as exc:
            raise BadLayout(f"cannot read the layout {path}: {exc}", path=str(path)) from None
        return cls.from_dict(doc)

    def to_dict(self) -> dict[str, Any]:
        return {
            "table_corners": None if self.table_corners is None else self.table_corners.tolist(),
            "zones": [{"name": z.name, "polygon": z.polygon.tolist()} for z in self.zones],
        }

    # -- use -----------------------------------------------------------------------------------
    def to_table(self, points: np.ndarray, frame_size: tuple[int, int]) -> np.ndarray:
        """Image points (N, 2) to table coordinates."""
        points = np.asarray(points, np.float32).reshape(-1, 2)
        if self._h is not None:
            return cv2.perspectiveTransform(points.reshape(-1, 1, 2), self._h).reshape(-1, 2)
        w, h = frame_size
        return points / np.array([w, h], np.float32)

    def zone_of(self, table_point: Sequence[float]) -> str | None:
        for zone in self.zones:
            if zone.contains(table_point):
                return zone.name
        return None

    def assign(self, detections: CardDetections, frame_size: tuple[int, int]) -> CardDetections:
        """A copy with each card's zone (by its centre) filled in; None outside every zone."""
        out = detections.copy()
        if len(out):
            for i, p in enumerate(self.to_table(out.centers, frame_size)):
                out.zone[i] = self.zone_of(p)
        return out


def _rect(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
