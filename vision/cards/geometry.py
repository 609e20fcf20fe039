"""Quadrilateral geometry of cards in a picture: corner order, orientation, overlap and shape.

A card's quad is (4, 2) float32 image pixels. The card reader's convention (`CardDetections`):
clockwise on screen, a short edge (the card's top) first. Nothing here looks at pixels; finding
quads in a picture is `vision.cards.outlines`.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

ASPECT_RANGE = (0.52, 0.80)  # short over long side of any deck's card (58 x 98 to 63 x 88 mm), 12% either way


# --- orientation and corner order ------------------------------------------------------------
def orientation_of(corners: Any) -> np.ndarray:
    """(N,) degrees clockwise from the image's up to the direction each card's top edge faces
    (the rule `CardDetections.orientation` follows)."""
    corners = np.asarray(corners, np.float32).reshape(-1, 4, 2)
    if len(corners) == 0:
        return np.zeros(0, np.float32)
    top = (corners[:, 0] + corners[:, 1]) / 2
    bottom = (corners[:, 2] + corners[:, 3]) / 2
    v = top - bottom  # image y grows downwards: up is (0, -1)
    deg = np.degrees(np.arctan2(v[:, 0], -v[:, 1]))
    return np.mod(deg, 360.0).astype(np.float32)


def fold_orientation(deg: Any) -> np.ndarray:
    """An orientation known only modulo 180, as a value in [-90, 90)."""
    return (np.mod(np.asarray(deg, np.float32) + 90.0, 180.0) - 90.0).astype(np.float32)


def order_corners(quads: np.ndarray, hint: np.ndarray | None = None) -> np.ndarray:
    """Put each quad's corners clockwise (in the image) with a short edge first.

    Of the two starts that give a short first edge, the one whose first corner is nearest the
    `hint` quad's first corner is kept (the detector's own guess of the card's top-left); with
    no hint, the one whose top edge faces most nearly up in the image.
    """
    quads = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    out = np.empty_like(quads)
    for n, q in enumerate(quads):
        c = q.mean(axis=0)
        ang = np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0])
        q = q[np.argsort(ang, kind="stable")]  # clockwise on screen (y points down)
        edges = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
        short_first = 0 if edges[0] + edges[2] <= edges[1] + edges[3] else 1
        candidates = [np.roll(q, -short_first, axis=0), np.roll(q, -(short_first + 2), axis=0)]
        if hint is not None:
            h0 = np.asarray(hint, np.float32).reshape(-1, 4, 2)[n, 0]
            best = min(candidates, key=lambda cand: float(np.linalg.norm(cand[0] - h0)))
        else:
            best = min(candidates, key=lambda cand: abs(((orientation_of(cand)[0] + 180) % 360) - 180))
        out[n] = best
    return out


def portrait_order(box: np.ndarray) -> np.ndarray:
    """Four corners as top-left, top-right, bottom-right, bottom-left of a portrait card whose
    top is the short edge nearer the top of the picture."""
    c = box.mean(axis=0)
    ang = np.arctan2(box[:, 1] - c[1], box[:, 0] - c[0])
    box = box[np.argsort(ang)]  # clockwise in image coordinates (y down)
    best = None
    for k in range(4):
        q = np.roll(box, -k, axis=0)
        top = np.linalg.norm(q[1] - q[0])
        side = np.linalg.norm(q[2] - q[1])
        if top > side:
            continue
        score = (q[0, 1] + q[1, 1]) / 2
        if best is None or score < best[0]:
            best = (score, q)
    return best[1] if best is not None else box


# --- overlap -----------------------------------------------------------------------------------
def quad_iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two convex quads."""
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    union = cv2.contourArea(a.astype(np.float32)) + cv2.contourArea(b.astype(np.float32)) - inter
    return float(inter) / max(float(union), 1e-6)


def hull_iou(a: np.ndarray, b: np.ndarray) -> float:
    """`quad_iou` of the convex hulls of two quads: a detector's quad whose corners cross is taken
    as the card it spans."""
    return quad_iou(cv2.convexHull(a.astype(np.float32)), cv2.convexHull(b.astype(np.float32)))


def quad_overlap(a: np.ndarray, b: np.ndarray) -> float:
    """The intersection of two convex quads over the smaller one's area: 1 when one lies inside the other."""
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return float(inter) / max(min(cv2.contourArea(a), cv2.contourArea(b)), 1e-6)


# --- shape -------------------------------------------------------------------------------------
def long_axis(quad: np.ndarray) -> np.ndarray:
    """Unit direction of a quad's long sides (averaged)."""
    q = np.asarray(quad, np.float32).reshape(4, 2)
    v = np.roll(q, -1, axis=0) - q
    sides = np.linalg.norm(v, axis=1)
    i = 1 if sides[1] + sides[3] >= sides[0] + sides[2] else 0
    d = v[i] - v[i + 2]  # the two long sides run opposite ways round the quad
    return d / max(float(np.linalg.norm(d)), 1e-6)


def skew_deg(q: np.ndarray) -> float:
    """The larger angle, in degrees, between a quad's opposite sides: 0 for a card seen square,
    a few degrees under a camera's tilt."""
    q = np.asarray(q, np.float64).reshape(4, 2)
    v = np.roll(q, -1, axis=0) - q
    sides = np.maximum(np.linalg.norm(v, axis=1), 1e-6)
    cos = [float(np.dot(v[i] / sides[i], -v[i + 2] / sides[i + 2])) for i in (0, 1)]
    return float(np.degrees(np.arccos(np.clip(min(cos), -1.0, 1.0))))


def card_shaped(
    q: np.ndarray,
    ref_area: float,
    aspect: tuple[float, float] = ASPECT_RANGE,
    area_range: tuple[float, float] = (0.55, 2.2),
    max_skew_deg: float = 20.0,
) -> bool:
    """Convex, of a card's proportions, opposite sides nearly parallel, area near `ref_area`."""
    if not np.all(np.isfinite(q)) or not cv2.isContourConvex(q.reshape(-1, 1, 2).astype(np.float32)):
        return False
    area = cv2.contourArea(q.astype(np.float32))
    if not area_range[0] * ref_area <= area <= area_range[1] * ref_area:
        return False
    v = np.roll(q, -1, axis=0) - q
    sides = np.linalg.norm(v, axis=1)
    short, long_ = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    if long_ < 1 or not aspect[0] <= short / long_ <= aspect[1]:
        return False
    return skew_deg(q) <= max_skew_deg


def aspect_range(aspect: float | None, tolerance: float = 0.12) -> tuple[float, float]:
    """Short over long side allowed for a card of `aspect` (width / height) seen in perspective;
    any card's range when the deck's is not known."""
    if not aspect:
        return ASPECT_RANGE
    a = min(aspect, 1 / aspect)
    return a * (1 - tolerance), min(0.95, a * (1 + tolerance))


def axis_aligned(quad: np.ndarray, tol: float = 1e-3) -> bool:
    """Whether the quad is an upright rectangle: the detector's box, which it gives for a card
    whose corner keypoints collapsed (`vision.cards.detector.COLLAPSED_SHARE`)."""
    q = np.asarray(quad, np.float32).reshape(4, 2)
    d = np.roll(q, -1, axis=0) - q
    scale = max(float(np.abs(d).max()), 1.0)
    return bool(np.all(np.minimum(np.abs(d[:, 0]), np.abs(d[:, 1])) <= tol * scale))


def inscribed_cards(quad: np.ndarray, aspect: float | None = None) -> list[np.ndarray]:
    """The card-shaped rectangles (short over long side `aspect`, else a typical card's) whose
    corners touch the four sides of the quad's upright bounding box: a card turned by some angle
    one way or the other has that box, and only the box tells which angle. Two (turned either
    way), one for a box of the card's own proportions or beyond, none for a degenerate box."""
    q = np.asarray(quad, np.float32).reshape(4, 2)
    (x0, y0), (x1, y1) = q.min(axis=0), q.max(axis=0)
    bw, bh = float(x1 - x0), float(y1 - y0)
    if bw < 2 or bh < 2:
        return []
    a = min(aspect, 1 / aspect) if aspect else float(np.mean(ASPECT_RANGE))
    k = 1.0 / a  # long over short side
    # turned by t from upright: box width s*cos t + l*sin t, height s*sin t + l*cos t
    t = np.linspace(0.0, np.pi / 2, 721)
    ratio = (np.cos(t) + k * np.sin(t)) / (np.sin(t) + k * np.cos(t))  # rises from 1/k to k
    theta = float(t[int(np.argmin(np.abs(ratio - bw / bh)))])
    short = bw / (np.cos(theta) + k * np.sin(theta))
    centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2], np.float32)
    out = []
    for th in (theta, -theta) if 1e-3 < theta < np.pi / 2 - 1e-3 else (theta,):
        u = short / 2 * np.array([np.cos(th), np.sin(th)], np.float32)
        v = short * k / 2 * np.array([-np.sin(th), np.cos(th)], np.float32)
        out.append(np.stack([centre - u - v, centre + u - v, centre + u + v, centre - u + v]).astype(np.float32))
    return out


def region_around(shape: tuple[int, ...], quad: np.ndarray, grow: float) -> tuple[int, int, int, int] | None:
    """The quad's bounding box grown by `grow` of its size (and 4 px) each way, clipped to an
    image of `shape`: (x0, y0, x1, y1), inclusive; None when it is under 16 px either way."""
    h, w = shape[:2]
    quad = np.asarray(quad, np.float32).reshape(4, 2)
    lo, hi = quad.min(axis=0), quad.max(axis=0)
    pad = (hi - lo) * grow + 4
    x0, y0 = np.maximum(lo - pad, 0).astype(int)
    x1, y1 = np.minimum(hi + pad, [w - 1, h - 1]).astype(int)
    if x1 - x0 < 16 or y1 - y0 < 16:
        return None
    return int(x0), int(y0), int(x1), int(y1)
