"""Table zones: named regions of a camera's picture where cards mean something.

A zone is a polygon in one camera's pixels with a `role`: `seat` (a player's place: a reveal is
laid there, `player` says whose), `eggs` (where egg cards are turned up and taken), `trick` (the
centre, where trick-taking games play their cards) or `other`. A card belongs to the zone its
centre lies in. Zones are part of the table's calibration and are stored with the session.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from referee.core import RefereeError

ROLES = ("seat", "eggs", "trick", "other")


class BadZones(RefereeError):
    """A zone list that names no zone, repeats a name, or has a malformed polygon or role."""


@dataclasses.dataclass(frozen=True)
class Zone:
    name: str
    camera: str
    polygon: tuple[tuple[float, float], ...]  # pixels of that camera, at least 3 points
    role: str = "other"
    player: str | None = None

    def __post_init__(self) -> None:
        if len(self.polygon) < 3:
            raise BadZones(f"zone {self.name!r} needs a polygon of at least 3 points", zone=self.name)
        if self.role not in ROLES:
            raise BadZones(f"zone {self.name!r}: unknown role {self.role!r}", known=list(ROLES))
        if self.role == "seat" and not self.player:
            raise BadZones(f"seat zone {self.name!r} needs a player", zone=self.name)

    def contains(self, x: float, y: float) -> bool:
        """Point in polygon (even-odd rule)."""
        inside = False
        pts = self.polygon
        j = len(pts) - 1
        for i in range(len(pts)):
            xi, yi = pts[i]
            xj, yj = pts[j]
            if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / ((yj - yi) or 1e-12) + xi:
                inside = not inside
            j = i
        return inside

    def to_dict(self) -> dict[str, Any]:
        d = {"name": self.name, "camera": self.camera, "role": self.role, "polygon": [list(p) for p in self.polygon]}
        if self.player:
            d["player"] = self.player
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Zone:
        try:
            return cls(
                name=str(d["name"]),
                camera=str(d.get("camera", "cam0")),
                polygon=tuple((float(x), float(y)) for x, y in d["polygon"]),
                role=str(d.get("role", "other")),
                player=d.get("player"),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise BadZones(f"malformed zone {d!r}: {exc}") from None


def rect_zone(
    name: str, camera: str, x0: float, y0: float, x1: float, y1: float, role: str = "other", player: str | None = None
) -> Zone:
    return Zone(name, camera, ((x0, y0), (x1, y0), (x1, y1), (x0, y1)), role, player)


class TableZones:
    """Every zone of a table, over all its cameras."""

    def __init__(self, zones: Iterable[Zone]) -> None:
        self.zones = tuple(zones)
        names = [z.name for z in self.zones]
        if len(set(names)) != len(names):
            raise BadZones("two zones share a name", names=names)
        self.by_name = {z.name: z for z in self.zones}

    def __iter__(self) -> Iterator[Zone]:
        return iter(self.zones)

    def of_camera(self, camera: str) -> list[Zone]:
        return [z for z in self.zones if z.camera == camera]

    def seat_of(self, player: str) -> Zone | None:
        return next((z for z in self.zones if z.role == "seat" and z.player == player), None)

    def with_role(self, role: str) -> list[Zone]:
        return [z for z in self.zones if z.role == role]

    def locate(self, camera: str, centers: npt.ArrayLike) -> list[str | None]:
        """The zone name of each point of one camera (None: outside every zone)."""
        zones = self.of_camera(camera)
        out: list[str | None] = []
        for x, y in np.asarray(centers, np.float64).reshape(-1, 2):
            out.append(next((z.name for z in zones if z.contains(float(x), float(y))), None))
        return out

    def to_list(self) -> list[dict[str, Any]]:
        return [z.to_dict() for z in self.zones]

    @classmethod
    def from_list(cls, items: Sequence[Mapping[str, Any]]) -> TableZones:
        if not isinstance(items, Sequence) or not items:
            raise BadZones("a table needs at least one zone")
        return cls(Zone.from_dict(d) for d in items)
