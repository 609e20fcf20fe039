"""Table calibration: who sits where, and where the table surface is.

A `TableCalibration` names the seats (a player per seat, with the region of the frame where
that player's head, arms and hands are) and, per seat, the table line: the line across the
seat where the table surface meets the player's body in the image (for elbows and taps).
All coordinates are normalised to the frame (0..1, x right, y down), so a calibration survives
a change of resolution. It is proposed automatically from the first seconds of a source
(`propose_calibration`), editable as JSON (`save` / `load`), and stored with the session.

`status()` names exactly what is missing ("seat 'ana' has no table line: elbow and tap signals
are off for it"), python-chess style: an empty list means complete.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np

from referee.core import RefereeError

FORMAT = "table-calibration/1"


class CalibrationError(RefereeError):
    """A calibration file or edit that cannot be used."""


Box = tuple[float, float, float, float]  # x0, y0, x1, y1 normalised
Line = tuple[tuple[float, float], tuple[float, float]]  # two points (x, y) normalised


def _box(value: Sequence[float], what: str) -> Box:
    try:
        x0, y0, x1, y1 = (float(v) for v in value)
    except (TypeError, ValueError):
        raise CalibrationError(f"{what} must be four numbers x0, y0, x1, y1", value=repr(value)) from None
    if not (0.0 <= x0 < x1 <= 1.0 and 0.0 <= y0 < y1 <= 1.0):
        raise CalibrationError(f"{what} {value} is not a box inside the frame (0..1, x0<x1, y0<y1)")
    return (x0, y0, x1, y1)


@dataclasses.dataclass(frozen=True)
class Seat:
    """One player's place. `region`: where to look for them; `table_line`: two points (x, y)
    of the table surface line in front of them, or None when unknown; `camera`: which source
    sees this seat (several cameras can each cover some seats)."""

    name: str
    region: Box
    table_line: Line | None = None
    camera: str = "0"

    def __post_init__(self) -> None:
        if not self.name or not isinstance(self.name, str):
            raise CalibrationError("a seat needs a player name")
        object.__setattr__(self, "region", _box(self.region, f"seat {self.name!r} region"))
        if self.table_line is not None:
            try:
                (ax, ay), (bx, by) = self.table_line
                line = ((float(ax), float(ay)), (float(bx), float(by)))
            except (TypeError, ValueError):
                raise CalibrationError(f"seat {self.name!r} table_line must be two points [[x, y], [x, y]]") from None
            if line[0][0] == line[1][0]:
                raise CalibrationError(f"seat {self.name!r} table_line is vertical; it must run across the seat")
            object.__setattr__(self, "table_line", line)

    def region_px(self, width: int, height: int) -> tuple[int, int, int, int]:
        x0, y0, x1, y1 = self.region
        return (int(round(x0 * width)), int(round(y0 * height)), int(round(x1 * width)), int(round(y1 * height)))

    def table_y(self, x_px: float, width: int, height: int) -> float | None:
        """The table line's y in pixels at image column x_px (extrapolated linearly)."""
        if self.table_line is None:
            return None
        (ax, ay), (bx, by) = self.table_line
        x = x_px / width
        return float((ay + (by - ay) * (x - ax) / (bx - ax)) * height)

    def contains(self, x_px: float, y_px: float, width: int, height: int) -> bool:
        x0, y0, x1, y1 = self.region
        return x0 * width <= x_px <= x1 * width and y0 * height <= y_px <= y1 * height


@dataclasses.dataclass(frozen=True)
class TableCalibration:
    seats: tuple[Seat, ...]
    mirrored: bool = False  # the source is a selfie view (left and right swapped)
    table_polygon: tuple[tuple[float, float], ...] | None = None  # optional, for drawing
    proposed: bool = False  # True until a person has checked it

    def __post_init__(self) -> None:
        seats = tuple(self.seats)
        names = [s.name for s in seats]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise CalibrationError(f"two seats share the name {dup[0]!r}", names=names)
        object.__setattr__(self, "seats", seats)
        if self.table_polygon is not None:
            object.__setattr__(self, "table_polygon", tuple((float(x), float(y)) for x, y in self.table_polygon))

    def seat(self, name: str) -> Seat:
        for s in self.seats:
            if s.name == name:
                return s
        raise CalibrationError(f"no seat {name!r}; seats: {', '.join(s.name for s in self.seats) or 'none'}")

    def status(self) -> list[str]:
        problems = []
        if not self.seats:
            problems.append("no seats: nobody to attribute signals to")
        for s in self.seats:
            if s.table_line is None:
                problems.append(f"seat {s.name!r} has no table line: elbow and tap signals are off for it")
        if self.proposed:
            problems.append("proposed automatically and not yet checked by a person")
        return problems

    def with_seat(self, seat: Seat) -> TableCalibration:
        """A copy with `seat` added, or replacing the seat of the same name (an edit)."""
        seats = [s for s in self.seats if s.name != seat.name] + [seat]
        return dataclasses.replace(self, seats=tuple(seats))

    @property
    def cameras(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(s.camera for s in self.seats))

    def for_camera(self, camera: str) -> TableCalibration:
        """The seats one camera covers (several cameras can each cover some seats): run one
        `LandmarkExtractor` per camera with this, and merge the events."""
        seats = tuple(s for s in self.seats if s.camera == str(camera))
        if not seats:
            raise CalibrationError(f"no seat is covered by camera {camera!r}; cameras: {', '.join(self.cameras)}")
        return dataclasses.replace(self, seats=seats)

    def renamed(self, old: str, new: str) -> TableCalibration:
        self.seat(old)
        return dataclasses.replace(
            self, seats=tuple(dataclasses.replace(s, name=new) if s.name == old else s for s in self.seats)
        )

    # -- JSON --------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "mirrored": self.mirrored,
            "proposed": self.proposed,
            "table_polygon": None if self.table_polygon is None else [list(p) for p in self.table_polygon],
            "seats": [
                {
                    "name": s.name,
                    "region": [round(v, 4) for v in s.region],
                    "camera": s.camera,
                    "table_line": None if s.table_line is None else [[round(v, 4) for v in p] for p in s.table_line],
                }
                for s in self.seats
            ],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> TableCalibration:
        if not isinstance(d, Mapping) or d.get("format") != FORMAT:
            raise CalibrationError(f'not a table calibration (expected "format": "{FORMAT}")')
        raw_seats = d.get("seats", ())
        if not isinstance(raw_seats, list):
            raise CalibrationError("seats must be a list of seats")
        seats = []
        for n, s in enumerate(raw_seats):
            if not isinstance(s, Mapping):
                raise CalibrationError(f"seat {n} is not an object with a name and a region")
            try:
                name, region = s["name"], s["region"]
            except KeyError as exc:
                raise CalibrationError(f"malformed seat in calibration: seat {n} has no {exc}") from None
            if not isinstance(name, str):
                raise CalibrationError(f"seat {n}: the name must be text, not {name!r}")
            if not isinstance(region, list):
                raise CalibrationError(f"seat {name!r} region must be four numbers x0, y0, x1, y1")
            line = s.get("table_line")
            seats.append(
                # any shape of points here: Seat checks and converts them
                Seat(
                    name,
                    cast(Box, tuple(region)),
                    _points(line, f"seat {name!r} table_line", 2),
                    str(s.get("camera", "0")),
                )
            )
        poly = d.get("table_polygon")
        return cls(
            seats=tuple(seats),
            mirrored=bool(d.get("mirrored", False)),
            proposed=bool(d.get("proposed", False)),
            table_polygon=_points(poly, "table_polygon"),
        )

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> TableCalibration:
        path = Path(path)
        if not path.is_file():
            raise CalibrationError(f"no calibration file {str(path)!r}")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise CalibrationError(f"cannot read {path}: {exc.strerror or exc}") from None
        except (ValueError, RecursionError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
            raise CalibrationError(f"{path.name} is not JSON: {exc}") from None
        return cls.from_dict(data)


def _points(value: Any, what: str, count: int | None = None) -> Any:
    """None, or a tuple of finite (x, y) points (exactly `count` of them when given)."""
    if value is None:
        return None
    try:
        points = tuple((float(x), float(y)) for x, y in value)
    except (TypeError, ValueError):
        raise CalibrationError(f"{what} must be a list of [x, y] points") from None
    if (count is not None and len(points) != count) or not all(math.isfinite(v) for p in points for v in p):
        raise CalibrationError(f"{what} must be {count or 'some'} [x, y] points of finite numbers")
    return points


def whole_frame(name: str = "player1", mirrored: bool = False) -> TableCalibration:
    """One seat covering the whole frame: the calibration for a single-player view."""
    return TableCalibration(seats=(Seat(name, (0.0, 0.0, 1.0, 1.0)),), mirrored=mirrored, proposed=True)


def quadrant_seats(names: Sequence[str], cols: int, rows: int) -> tuple[Seat, ...]:
    """Seats on a regular grid (e.g. a frame that tiles several cameras)."""
    seats = []
    for i, name in enumerate(names):
        r, c = divmod(i, cols)
        seats.append(Seat(name, (c / cols, r / rows, (c + 1) / cols, (r + 1) / rows), camera=str(i)))
    return tuple(seats)


def _reading_order(boxes: list[tuple[float, ...]]) -> list[tuple[float, ...]]:
    """Rows top to bottom (a face joins a row when its centre lies within the row's first face
    height), left to right within a row."""
    rows: list[list[tuple[float, ...]]] = []
    for b in sorted(boxes, key=lambda b: (b[1] + b[3]) / 2):
        cy = (b[1] + b[3]) / 2
        for row in rows:
            r = row[0]
            if abs(cy - (r[1] + r[3]) / 2) <= (r[3] - r[1]):
                row.append(b)
                break
        else:
            rows.append([b])
    return [b for row in rows for b in sorted(row, key=lambda b: (b[0] + b[2]) / 2)]


def seats_from_faces(
    face_boxes: Iterable[Box], names: Sequence[str] | None = None, reach: float = 3.0, below: float = 6.0
) -> tuple[Seat, ...]:
    """Propose a region per face box (normalised x0, y0, x1, y1): `reach` face widths either
    side, from one face height above to `below` face heights under it; neighbouring regions
    are split half way between the faces. Seats are ordered left to right, top to bottom."""
    boxes = _reading_order([tuple(b)[:4] for b in face_boxes])
    regions = []
    for x0, y0, x1, y1 in boxes:
        w, h = x1 - x0, y1 - y0
        cx = (x0 + x1) / 2
        regions.append([max(0.0, cx - reach * w), max(0.0, y0 - h), min(1.0, cx + reach * w), min(1.0, y1 + below * h)])
    centers = [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in boxes]
    for i in range(len(regions)):
        for j in range(len(regions)):
            if i == j:
                continue
            a, b = regions[i], regions[j]
            overlap_x = min(a[2], b[2]) - max(a[0], b[0])
            overlap_y = min(a[3], b[3]) - max(a[1], b[1])
            if overlap_x > 0 and overlap_y > 0:
                (cxi, cyi), (cxj, cyj) = centers[i], centers[j]
                if abs(cxi - cxj) >= abs(cyi - cyj):
                    mid = (cxi + cxj) / 2
                    if cxi < cxj:
                        a[2] = min(a[2], mid)
                    else:
                        a[0] = max(a[0], mid)
                else:
                    mid = (cyi + cyj) / 2
                    if cyi < cyj:
                        a[3] = min(a[3], mid)
                    else:
                        a[1] = max(a[1], mid)
    names = list(names) if names else [f"seat{i + 1}" for i in range(len(regions))]
    if len(names) < len(regions):
        raise CalibrationError(f"{len(regions)} faces found but only {len(names)} names given")
    return tuple(Seat(n, (r[0], r[1], r[2], r[3])) for n, r in zip(names, regions))


def propose_table_line(
    wrists_y: Sequence[float],
    shoulders_y: Sequence[float],
    shoulder_w: Sequence[float],
    region: Box,
    height: int,
    frames: int,
    min_frames: int = 3,
):
    """A level table line for a seat from the first seconds of its landmarks (pixels), or None.

    Players at a card table rest their hands on it: the line is the median wrist height among
    wrists well below the shoulders (half a shoulder width) and inside the frame, when such
    wrists were seen in at least `min_frames` frames and agree (spread under 0.3 shoulder
    widths). A single picture never proposes a line: it cannot tell resting from passing."""
    if frames < min_frames:
        return None
    sh = float(np.median(shoulders_y)) if len(shoulders_y) else None
    sw = float(np.median(shoulder_w)) if len(shoulder_w) else None
    low = [w for w in wrists_y if (sh is None or w > sh + 0.5 * (sw or 0)) and w < 0.97 * height]
    if len(low) < min_frames:
        return None
    spread = float(np.percentile(low, 75) - np.percentile(low, 25))
    if spread > 0.3 * (sw or 0.1 * height):
        return None
    yn = min(max(float(np.median(low)) / height, 0.0), 1.0)
    x0, _, x1, _ = region
    return ((x0, yn), (x1, yn))
