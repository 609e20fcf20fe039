"""Seats and card zones proposed from one camera picture, for a person to check and drag.

A table seen by a camera: the cloth (the table surface, one colour around the middle of the
picture, found as a four-cornered region), the players around its edge (their faces, found by
MediaPipe's face detector, `vision.landmarks.extract.detect_faces`) and, on the cloth, a card
zone in front of each seat and a centre zone (the eggs of Beccato!, the trick of the trick
games). Everything is worked out on the table seen from above, the unit square of
`vision.cards.zones` (corners top-left, top-right, bottom-right, bottom-left of the cloth in
the picture), and mapped back to the camera's pixels:

    proposal = propose_table(image, ["Anna", "Bruno", "Carla", "Dario"], camera="cards")
    proposal.zones_list()        # the zones of a session manifest (`referee.table.zones`)
    proposal.calibration()       # the seats of a TableCalibration, where faces were seen

Seats go round the table from the camera side (the bottom of the picture), clockwise as the
picture shows it (`clockwise=False`: the other way). A face seen at the table edge becomes a
seat where it is; players with no face seen are spread over the widest gaps left, so a picture
of the cloth alone (a camera looking down) proposes evenly spaced seats. A proposal is only
ever a proposal: `notes` says in words what was guessed.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np

from referee.core import RefereeError
from vision.landmarks.calibration import Seat, TableCalibration, seats_from_faces

Point = tuple[float, float]
Box = tuple[float, float, float, float]  # normalised x0, y0, x1, y1

ROLES = ("seat", "eggs", "trick", "other")  # as `referee.table.zones.ROLES`
INNER = 0.44  # the centre zone's side, as a fraction of the cloth's (the demo table's: 0.42-0.44)
MIN_CLOTH = 0.12  # a cloth smaller than this fraction of the picture is not the table


class SeatProposalError(RefereeError):
    """Seats or zones that cannot be proposed: no players, a picture that is not a picture, a
    cloth outline that is not four corners around the table."""


@dataclasses.dataclass(frozen=True)
class ProposedSeat:
    """A player's place: `angle` (degrees, around the table centre seen from above: 90 is the
    camera side, y down), `position` (pixels, where the seat meets the cloth edge), the face
    box that placed it (normalised), or None when it was spread into a gap."""

    player: str
    angle: float
    position: Point
    face: Box | None = None
    moved: bool = False  # placed where a person put it

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "angle": round(self.angle, 2),
            "position": [round(v, 1) for v in self.position],
            "face": None if self.face is None else [round(v, 4) for v in self.face],
            "from": "moved" if self.moved else "face" if self.face is not None else "spaced",
        }


@dataclasses.dataclass(frozen=True)
class ProposedZone:
    """A zone in one camera's pixels, in the shape `referee.table.zones.Zone` reads."""

    name: str
    role: str
    polygon: tuple[Point, ...]
    player: str | None = None

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise SeatProposalError(f"zone {self.name!r}: unknown role {self.role!r}", known=list(ROLES))
        if len(self.polygon) < 3:
            raise SeatProposalError(f"zone {self.name!r} needs three points or more", zone=self.name)

    def to_dict(self, camera: str) -> dict[str, Any]:
        d: dict[str, Any] = {
            "name": self.name,
            "camera": camera,
            "role": self.role,
            "polygon": [[round(x, 1), round(y, 1)] for x, y in self.polygon],
        }
        if self.player:
            d["player"] = self.player
        return d


@dataclasses.dataclass(frozen=True)
class TableProposal:
    camera: str
    size: tuple[int, int]  # width, height of the picture
    cloth: tuple[Point, ...]  # four corners in pixels: top-left, top-right, bottom-right, bottom-left
    cloth_found: bool  # False: no cloth colour stood out, the cloth is the picture less a margin
    seats: tuple[ProposedSeat, ...]
    zones: tuple[ProposedZone, ...]
    faces: tuple[Box, ...] = ()  # every face seen, normalised
    regions: dict[str, Box] = dataclasses.field(default_factory=dict)  # player: where their body is (faces only)
    notes: tuple[str, ...] = ()

    def zones_list(self) -> list[dict[str, Any]]:
        return [z.to_dict(self.camera) for z in self.zones]

    def calibration(self) -> TableCalibration | None:
        """The seats whose faces were seen, as a proposed `TableCalibration` of this camera."""
        if not self.regions:
            return None
        seats = tuple(Seat(p, r, camera=self.camera) for p, r in self.regions.items())
        return TableCalibration(seats=seats, proposed=True)

    def to_dict(self) -> dict[str, Any]:
        calib = self.calibration()
        return {
            "camera": self.camera,
            "size": list(self.size),
            "cloth": [[round(x, 1), round(y, 1)] for x, y in self.cloth],
            "cloth_found": self.cloth_found,
            "seats": [s.to_dict() for s in self.seats],
            "zones": self.zones_list(),
            "faces": [[round(v, 4) for v in f] for f in self.faces],
            "calibration": None if calib is None else calib.to_dict(),
            "notes": list(self.notes),
        }


# -- the cloth ---------------------------------------------------------------------------------


def order_corners(points: Any) -> np.ndarray:
    """Four points as top-left, top-right, bottom-right, bottom-left (by their angle around
    their centre, starting from the top-left quarter)."""
    try:
        pts = np.asarray(points, np.float64).reshape(-1, 2)
    except (TypeError, ValueError):
        raise SeatProposalError("the cloth is four [x, y] corners") from None
    if pts.shape != (4, 2) or not (np.abs(pts) < 1e6).all():  # finite, and far inside float32's range
        raise SeatProposalError("the cloth is four [x, y] corners")
    c = pts.mean(axis=0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])  # y down: -135 is top-left
    order = np.argsort((ang + math.pi) % (2 * math.pi))  # from the left (180 degrees): top-left first, clockwise
    return pts[order]


def find_cloth(image: np.ndarray) -> np.ndarray | None:
    """The table cloth's four corners (pixels, top-left first, clockwise), or None when no one
    colour covers a table-sized region around the middle of the picture.

    The cloth's colour is the median colour of the middle half of the picture (cards cover
    less of it than the cloth does); the region of pixels near that colour that holds the most
    of the middle, with its holes (the cards) filled, is approximated by four corners."""
    if image is None or image.ndim != 3 or image.shape[2] != 3 or min(image.shape[:2]) < 16:
        raise SeatProposalError("a camera picture is a colour image")
    h, w = image.shape[:2]
    scale = 320.0 / max(h, w)
    small = cv2.resize(image, (max(8, int(w * scale)), max(8, int(h * scale))), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (5, 5), 0)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    sh, sw = lab.shape[:2]
    middle = lab[sh // 4 : sh - sh // 4, sw // 4 : sw - sw // 4].reshape(-1, 3)
    ref = np.median(middle, axis=0)
    # chroma counts double: a cloth keeps its colour under uneven light, not its brightness
    dist = np.sqrt(0.25 * (lab[..., 0] - ref[0]) ** 2 + (lab[..., 1] - ref[1]) ** 2 + (lab[..., 2] - ref[2]) ** 2)
    mask = (dist < 18.0).astype(np.uint8) * 255
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    mid = np.zeros_like(mask)
    mid[sh // 4 : sh - sh // 4, sw // 4 : sw - sw // 4] = 1

    def held(contour: np.ndarray) -> int:
        filled = np.zeros(mask.shape, np.uint8)
        cv2.drawContours(filled, [contour], -1, (1,), thickness=-1)
        return int(np.logical_and(filled, mid).sum())

    best = max(contours, key=held)
    hull = cv2.convexHull(best)
    area = cv2.contourArea(hull)
    if area < MIN_CLOTH * sh * sw or held(best) < 0.4 * mid.sum():
        return None  # too small, or not what lies in the middle of the picture
    filled = np.zeros(mask.shape, np.uint8)
    cv2.drawContours(filled, [hull], -1, (1,), thickness=-1)
    if int(np.logical_and(filled, mask).sum()) < 0.6 * area:
        return None  # a ragged region: the cloth colour scattered over a busy picture
    quad = _four_corners(hull)
    return order_corners(quad / scale)


def _four_corners(hull: np.ndarray) -> np.ndarray:
    """A convex outline as four corners: its polygon approximation when that has four points,
    otherwise the four hull points farthest out along the diagonals."""
    peri = cv2.arcLength(hull, True)
    for eps in (0.02, 0.04, 0.06, 0.08):
        approx = cv2.approxPolyDP(hull, eps * peri, True).reshape(-1, 2)
        if len(approx) == 4:
            return approx.astype(np.float64)
    pts = hull.reshape(-1, 2).astype(np.float64)
    s, d = pts.sum(axis=1), pts[:, 0] - pts[:, 1]
    return np.array([pts[np.argmin(s)], pts[np.argmax(d)], pts[np.argmax(s)], pts[np.argmin(d)]])


def default_cloth(size: tuple[int, int], margin: float = 0.04) -> np.ndarray:
    w, h = size
    mx, my = margin * w, margin * h
    return np.array([[mx, my], [w - mx, my], [w - mx, h - my], [mx, h - my]], np.float64)


# -- seats ---------------------------------------------------------------------------------------

_UNIT = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)


def _homographies(cloth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    corners = np.asarray(cloth, np.float32).reshape(4, 2)
    if abs(cv2.contourArea(corners)) < 1.0:
        raise SeatProposalError("the cloth's four corners enclose no area")
    to_px = cv2.getPerspectiveTransform(_UNIT, corners)
    to_table = cv2.getPerspectiveTransform(corners, _UNIT)
    if not (np.isfinite(to_px).all() and np.isfinite(to_table).all()):
        raise SeatProposalError("the cloth's corners must be four corners of the table, no three in a line")
    return to_px, to_table


def _map(h: np.ndarray, points: Any) -> np.ndarray:
    pts = np.asarray(points, np.float32).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, h).reshape(-1, 2).astype(np.float64)


def _edge(angle: float, frac: float = 1.0) -> Point:
    """The point of the unit square's outline (scaled by `frac` around its centre) in the
    direction `angle` (degrees, y down) from the centre."""
    dx, dy = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    k = 0.5 * frac / max(abs(dx), abs(dy))
    return (0.5 + k * dx, 0.5 + k * dy)


def _spread(angles: list[float], n: int, start: float) -> list[float]:
    """`angles` with points added in the middle of the widest gaps until there are `n`."""
    out = sorted(a % 360 for a in angles)
    if not out:
        return [(start + i * 360.0 / n) % 360 for i in range(n)]
    while len(out) < n:
        gaps = [((out[(i + 1) % len(out)] - out[i]) % 360 or 360.0, i) for i in range(len(out))]
        gap, i = max(gaps)
        out.append((out[i] + gap / 2) % 360)
        out.sort()
    return out


def seat_order(angles: Sequence[float], clockwise: bool = True, start: float = 90.0) -> list[int]:
    """Indices of `angles` in seat order: from the seat nearest the camera side (`start`),
    clockwise as the picture shows it (angles grow clockwise with y down) or the other way."""
    if not angles:
        return []
    sign = 1 if clockwise else -1
    first = min(range(len(angles)), key=lambda i: abs((angles[i] - start + 180) % 360 - 180))
    return sorted(range(len(angles)), key=lambda i: (sign * (angles[i] - angles[first])) % 360)


def propose_table(
    image: np.ndarray,
    players: Sequence[str],
    camera: str = "cam0",
    centre_role: str = "eggs",
    clockwise: bool = True,
    faces: Sequence[Sequence[float]] | None = None,
    cloth: Any = None,
    angles: Sequence[float] | None = None,
    positions: Sequence[Sequence[float]] | None = None,
) -> TableProposal:
    """Seats and zones for `players` (in seat order) from one picture. `faces`: face boxes
    (normalised x0, y0, x1, y1[, score]) already found, or None to detect them; `cloth`: four
    corners (pixels) to use instead of finding the cloth; `angles`: the seats' angles, one per
    player in order (a person moved them), instead of proposing them; or `positions`, one
    point (pixels) per player, where a person dragged each seat."""
    players = [str(p) for p in players]
    if not players or any(not p.strip() for p in players) or len(set(players)) != len(players):
        raise SeatProposalError("seats need the players' names, each different, in seat order")
    if centre_role not in ROLES:
        raise SeatProposalError(f"unknown role {centre_role!r} for the centre zone", known=list(ROLES))
    if image is None or getattr(image, "ndim", 0) != 3:
        raise SeatProposalError("a camera picture is a colour image")
    h, w = image.shape[:2]
    notes: list[str] = []
    found = True
    if cloth is None:
        corners = find_cloth(image)
        if corners is None:
            found = False
            corners = default_cloth((w, h))
            notes.append("no table cloth stood out: the whole picture is taken as the table; drag its corners")
    else:
        corners = order_corners(cloth)
    to_px, to_table = _homographies(corners)

    if positions is not None:
        try:
            pts = np.asarray(positions, np.float64).reshape(-1, 2)
        except (TypeError, ValueError):
            raise SeatProposalError("one seat position [x, y] per player", players=players) from None
        if len(pts) != len(players) or not (np.abs(pts) < 1e6).all():  # finite, and far inside float32's range
            raise SeatProposalError("one seat position [x, y] per player", players=players)
        table_pts = _map(to_table, pts)
        angles = [math.degrees(math.atan2(y - 0.5, x - 0.5)) % 360 for x, y in table_pts]
    if faces is None:
        faces = _detect_faces(image) if angles is None else []
    boxes: list[Box] = [(float(f[0]), float(f[1]), float(f[2]), float(f[3])) for f in faces]
    boxes = [b for b in boxes if b[2] > b[0] and b[3] > b[1]]
    if len(boxes) > len(players):
        notes.append(f"{len(boxes)} faces seen for {len(players)} players: the largest are taken")
        boxes = sorted(boxes, key=lambda b: -(b[2] - b[0]) * (b[3] - b[1]))[: len(players)]

    face_of: dict[float, Box] = {}
    if angles is not None:
        if len(angles) != len(players) or not all(math.isfinite(float(a)) for a in angles):
            raise SeatProposalError("one seat angle (degrees) per player", players=players)
        seat_angles = [float(a) % 360 for a in angles]
        boxes = []
    else:
        face_angles = []
        for b in boxes:
            centre = _map(to_table, [((b[0] + b[2]) / 2 * w, (b[1] + b[3]) / 2 * h)])[0]
            a = math.degrees(math.atan2(centre[1] - 0.5, centre[0] - 0.5)) % 360
            face_angles.append(a)
            face_of[a] = b
        spread = _spread(face_angles, len(players), start=90.0)
        seat_angles = [spread[i] for i in seat_order(spread, clockwise)]
        missing = len(players) - len(face_angles)
        if face_angles and missing:
            notes.append(f"{missing} of {len(players)} players were not seen: their seats are spread in the gaps")
        elif not face_angles:
            notes.append("no face seen: the seats are spread evenly round the table from the camera side")

    ordered = sorted(seat_angles)
    if len(ordered) > 1 and min((b - a) % 360 for a, b in zip(ordered, ordered[1:] + ordered[:1])) < 1.0:
        raise SeatProposalError("two seats are in the same place round the table: move one of them")
    seats = []
    for player, a in zip(players, seat_angles):
        pos = _map(to_px, [_edge(a)])[0]
        seats.append(ProposedSeat(player, a, (float(pos[0]), float(pos[1])), face_of.get(a), moved=angles is not None))
    zones = [_zone_px("eggs" if centre_role == "eggs" else centre_role, centre_role, _inner_square(), to_px)]
    zones += zone_for_seats(seats, to_px)

    if not all(math.isfinite(v) for z in zones for p in z.polygon for v in p):
        raise SeatProposalError("the cloth's corners must be four corners of the table, no three in a line")
    regions: dict[str, Box] = {}
    seen = [s for s in seats if s.face is not None]
    if seen:
        proposed = seats_from_faces([s.face for s in seen if s.face is not None])
        for s in seen:
            assert s.face is not None
            fx = (s.face[0] + s.face[2]) / 2
            fy = (s.face[1] + s.face[3]) / 2
            inside = [r for r in proposed if r.contains(fx, fy, 1, 1)]
            if inside:
                region = min(inside, key=lambda r: abs((r.region[0] + r.region[2]) / 2 - fx))
                regions[s.player] = region.region
    return TableProposal(
        camera=str(camera),
        size=(w, h),
        cloth=tuple((float(x), float(y)) for x, y in corners),
        cloth_found=found,
        seats=tuple(seats),
        zones=tuple(zones),
        faces=tuple(boxes),
        regions=regions,
        notes=tuple(notes),
    )


def _inner_square() -> list[Point]:
    lo, hi = 0.5 - INNER / 2, 0.5 + INNER / 2
    return [(lo, lo), (hi, lo), (hi, hi), (lo, hi)]


def _zone_px(name: str, role: str, table_points: Sequence[Point], to_px: np.ndarray, player: str | None = None):
    px = _map(to_px, table_points)
    return ProposedZone(name, role, tuple((float(x), float(y)) for x, y in px), player)


def zone_for_seats(seats: Sequence[ProposedSeat], to_px: np.ndarray) -> list[ProposedZone]:
    """A card zone per seat: the band of cloth between its edge and the centre zone, from half
    way to the seat before it to half way to the seat after it."""
    if len(seats) == 1:
        ring = [(0.0, 360.0)]
    else:
        order = sorted(seats, key=lambda s: s.angle)
        mids = {}
        for i, s in enumerate(order):
            nxt = order[(i + 1) % len(order)]
            mids[s.player] = (s.angle + ((nxt.angle - s.angle) % 360) / 2) % 360
        ring = []
        for i, s in enumerate(order):
            prev = order[i - 1]
            a0 = mids[prev.player]
            a1 = mids[s.player]
            ring.append((a0, a0 + ((a1 - a0) % 360 or 360.0)))
        by_player = {s.player: r for s, r in zip(order, ring)}
        ring = [by_player[s.player] for s in seats]
    zones = []
    for s, (a0, a1) in zip(seats, ring):
        steps = [a0 + k for k in range(0, int(a1 - a0), 15)] + [a1]
        steps += [c for c in (45.0, 135.0, 225.0, 315.0, 405.0, 495.0, 585.0, 675.0) if a0 < c < a1]
        steps = sorted(set(steps))
        outer = [_edge(a) for a in steps]
        inner = [_edge(a, INNER) for a in reversed(steps)]
        zones.append(_zone_px(f"seat:{s.player}", "seat", _corners_only(outer + inner), to_px, s.player))
    return zones


def _corners_only(points: Sequence[Point]) -> list[Point]:
    """The polygon without the points that lie on a straight edge (fewer handles to drag)."""
    out = list(points)
    changed = True
    while changed and len(out) > 3:
        changed = False
        for i in range(len(out)):
            (ax, ay), (bx, by), (cx, cy) = out[i - 1], out[i], out[(i + 1) % len(out)]
            if abs((bx - ax) * (cy - ay) - (by - ay) * (cx - ax)) < 1e-9:
                del out[i]
                changed = True
                break
    return out


def _detect_faces(image: np.ndarray) -> list[Box]:
    from vision.landmarks.extract import detect_faces  # deferred: loads MediaPipe, seconds; only a detection needs it

    return [b[:4] for b in detect_faces(image)]
