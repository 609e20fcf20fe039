"""Perspective warp of a card to a canonical upright rectangle.

`rectify(image, corners)` maps the card's corners (top-left, top-right, bottom-right,
bottom-left, as in `CardDetections`) onto a `CANONICAL_SIZE` portrait rectangle, so that
templates and live crops are compared pixel to pixel whatever the camera angle.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.cards.detector import order_corners

# (width, height): portrait, between the poker (63 x 88) and Italian (58 x 98) aspect ratios.
CANONICAL_SIZE: tuple[int, int] = (120, 180)


def target_corners(size: tuple[int, int] = CANONICAL_SIZE) -> np.ndarray:
    w, h = size
    return np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)


def rectify(image: np.ndarray, corners: np.ndarray, size: tuple[int, int] = CANONICAL_SIZE,
            inset: float = 0.0) -> np.ndarray:
    """The card inside `corners` (4, 2) warped to `size`; `inset` (0..0.2) trims a border
    fraction on each side (useful when corners are loose)."""
    corners = np.asarray(corners, np.float32).reshape(4, 2)
    w, h = size
    dst = target_corners(size)
    if inset:
        dx, dy = inset * w, inset * h
        dst = dst + np.array([[-dx, -dy], [dx, -dy], [dx, dy], [-dx, dy]], np.float32)
    scale = 2 if _shrinks(corners, size) else 1  # warp larger, then area-average: no aliasing
    m = cv2.getPerspectiveTransform(corners, dst * scale)
    out = cv2.warpPerspective(image, m, (w * scale, h * scale), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
    return cv2.resize(out, (w, h), interpolation=cv2.INTER_AREA) if scale > 1 else out


def rectify_all(image: np.ndarray, corners: np.ndarray, size: tuple[int, int] = CANONICAL_SIZE) -> list[np.ndarray]:
    return [rectify(image, c, size) for c in np.asarray(corners, np.float32).reshape(-1, 4, 2)]


def _shrinks(corners: np.ndarray, size: tuple[int, int]) -> bool:
    side = float(np.linalg.norm(corners[1] - corners[0]))
    return side > size[0] * 2


def find_quads_by_contour(image: np.ndarray, min_area: float = 0.02, min_contrast: float = 12.0) -> np.ndarray:
    """Card-like quadrilaterals (K, 4, 2) by contours: the fallback when the detector misses.

    Edges (Canny on the blurred grey) and a bright-paper threshold (Otsu) each give external
    contours; those that simplify to four corners, fill their quadrilateral, cover at least
    `min_area` of the photo, have a short/long side ratio of 0.45..0.9 and are brighter just
    inside their edges than just outside (paper on a darker surface) are kept; of two that
    overlap, the outer (the card's edge rather than a frame printed inside it)."""
    h, w = image.shape[:2]
    gray = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    edges = cv2.dilate(cv2.Canny(gray, 40, 120), np.ones((3, 3), np.uint8))
    _, bright = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    quads, areas = [], []
    for mask in (edges, bright):
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for c in contours:
            area = cv2.contourArea(c)
            if area < min_area * w * h or area > 0.95 * w * h:
                continue
            hull = cv2.convexHull(c)
            approx = cv2.approxPolyDP(hull, 0.03 * cv2.arcLength(hull, True), True)
            if len(approx) != 4:
                rect = cv2.minAreaRect(c)
                if cv2.contourArea(cv2.boxPoints(rect)) > 1.15 * area:
                    continue
                approx = cv2.boxPoints(rect)
            q = np.asarray(approx, np.float32).reshape(4, 2)
            sides = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
            short, long_ = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
            ratio = min(short, long_) / max(short, long_, 1e-6)
            if not 0.45 <= ratio <= 0.9:
                continue
            if area < 0.85 * cv2.contourArea(q):  # not filled like a card: a ragged patch
                continue
            if _edge_contrast(gray, q) < min_contrast:  # a card's paper stands out from the surface around it
                continue
            same = [k for k, p in enumerate(quads) if _overlap(q, p) > 0.5]
            if same:  # one card seen twice (its edge, a border printed inside it): keep the outer
                k = same[0]
                if cv2.contourArea(q) > cv2.contourArea(quads[k]):
                    quads[k], areas[k] = q, area
                continue
            quads.append(q)
            areas.append(area)
    if not quads:
        return np.zeros((0, 4, 2), np.float32)
    return order_corners(np.stack(quads))


def _edge_contrast(gray: np.ndarray, quad: np.ndarray) -> float:
    """Mean grey just inside the quad's edges minus just outside them."""
    c = quad.mean(axis=0)
    inner = (c + (quad - c) * 0.92).astype(np.int32)
    outer = (c + (quad - c) * 1.08).astype(np.int32)
    band = max(2, int(0.02 * np.linalg.norm(quad[0] - quad[2])))
    m_in = np.zeros(gray.shape, np.uint8)
    m_out = np.zeros(gray.shape, np.uint8)
    cv2.polylines(m_in, [inner], True, 255, band)
    cv2.polylines(m_out, [outer], True, 255, band)
    if not m_in.any() or not m_out.any():
        return 0.0
    return float(cv2.mean(gray, m_in)[0] - cv2.mean(gray, m_out)[0])


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    union = cv2.contourArea(a.astype(np.float32)) + cv2.contourArea(b.astype(np.float32)) - inter
    return float(inter) / max(float(union), 1e-6)


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return float(inter) / max(min(cv2.contourArea(a), cv2.contourArea(b)), 1e-6)



def snap_to_outline(image: np.ndarray, quad: np.ndarray, min_iou: float = 0.3, grow: float = 0.6) -> np.ndarray:
    """The card's own outline near a detected quad, when one is clear: the contour finder is run
    on the region around the quad (grown by `grow`), and the card-like quadrilateral that best
    matches it (`best_outline`) replaces it, corners in the quad's order. Otherwise (a card in a
    fan, under a hand, on a surface as bright as the paper) the quad is returned unchanged."""
    quad = np.asarray(quad, np.float32).reshape(4, 2)
    h, w = image.shape[:2]
    lo = quad.min(axis=0)
    hi = quad.max(axis=0)
    pad = (hi - lo) * grow
    x0, y0 = np.maximum(lo - pad, 0).astype(int)
    x1, y1 = np.minimum(hi + pad, [w - 1, h - 1]).astype(int)
    if x1 - x0 < 16 or y1 - y0 < 16:
        return quad
    found = find_quads_by_contour(image[y0:y1 + 1, x0:x1 + 1], min_area=0.08, min_contrast=12.0)
    if len(found) == 0:
        return quad
    found = found + np.array([x0, y0], np.float32)
    k = best_outline(quad, found, min_iou)
    return quad if k is None else order_corners(found[k][None], hint=quad[None])[0]


def best_outline(quad: np.ndarray, outlines: np.ndarray, min_iou: float = 0.3, min_cover: float = 0.7,
                 min_growth: float = 0.92, max_growth: float = 2.5) -> int | None:
    """Index of the outline that matches a detected quad: it overlaps the quad with IoU >=
    min_iou and holds at least `min_cover` of it (keypoints tend to fall inside the card, so the
    card's edge is often larger than the quad); of those whose area is `min_growth` to
    `max_growth` times the quad's, the largest. A border printed inside the card is a smaller
    outline: snapping to it zoomed the crop and cost a third of the French reads (measured), so
    an outline smaller than the quad is never taken. None when no outline fits."""
    best, best_area = None, 0.0
    quad = np.asarray(quad, np.float32)
    area = max(cv2.contourArea(quad), 1e-6)
    centre = quad.mean(axis=0)
    holding = []  # outlines that hold the quad's centre (for a quad that is badly off)
    for k, f in enumerate(outlines):
        f = np.asarray(f, np.float32)
        f_area = cv2.contourArea(f)
        inter, _ = cv2.intersectConvexConvex(quad, f)
        if (_iou(quad, f) >= min_iou and inter / area >= min_cover and min_growth * area <= f_area <= max_growth * area
                and f_area > best_area):
            best, best_area = k, f_area
        if (cv2.pointPolygonTest(f.reshape(-1, 1, 2), (float(centre[0]), float(centre[1])), False) >= 0
                and inter / area >= min_cover and area <= f_area <= 8 * area):
            holding.append((f_area, k))
    if best is None and holding:
        # keypoints gathered on a picture inside the card (a quad turned, a fifth of its size):
        # the card-shaped outline around them is the card
        best = min(holding)[1]
    return best




def fit_edges(image: np.ndarray, quad: np.ndarray, reach: float = 0.25, samples: int = 24,
              min_strength: float = 12.0) -> np.ndarray:
    """Move each side of a detected quad onto the strongest nearby edge: along each side,
    `samples` profiles perpendicular to it (up to `reach` x the card's width either way) find
    where the brightness steps most, in the direction of paper inside; a robust line through
    those points (Huber) replaces the side, and adjacent sides intersect in the new corners.
    A side with too few strong steps stays where it was. Works where the outline does not close
    (a corner under a hand, a background close to the paper's colour)."""
    quad = np.asarray(quad, np.float32).reshape(4, 2)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    gray = cv2.GaussianBlur(gray, (3, 3), 0).astype(np.float32)
    h, w = gray.shape
    centre = quad.mean(axis=0)
    width = float(np.linalg.norm(quad[1] - quad[0]))
    r = max(3.0, reach * width)
    steps = np.linspace(-r, r, int(2 * r) + 1, dtype=np.float32)
    lines = []
    for s in range(4):
        a, b = quad[s], quad[(s + 1) % 4]
        d = b - a
        n = np.array([d[1], -d[0]], np.float32) / max(float(np.linalg.norm(d)), 1e-6)
        if np.dot(centre - (a + b) / 2, n) > 0:  # make the normal point outwards
            n = -n
        t = np.linspace(0.15, 0.85, samples, dtype=np.float32)
        base = a[None, :] + d[None, :] * t[:, None]  # (samples, 2)
        xy = base[:, None, :] + steps[None, :, None] * n[None, None, :]  # (samples, steps, 2)
        vals = cv2.remap(gray, np.ascontiguousarray(xy[..., 0]), np.ascontiguousarray(xy[..., 1]),
                         cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        diff = np.abs(vals[:, :-2] - vals[:, 2:])  # paper inside, surface outside: a step along the normal
        thresh = np.maximum(min_strength, 0.5 * diff.max(axis=1, keepdims=True))
        strong = diff >= thresh
        has = strong.any(axis=1)
        # the outermost strong step: the paper's edge, not a border printed inside
        last = diff.shape[1] - 1 - np.argmax(strong[:, ::-1], axis=1)
        pts = [xy[i, last[i] + 1] for i in np.flatnonzero(has)]
        if len(pts) < samples // 3:
            lines.append(None)
            continue
        vx, vy, x0, y0 = cv2.fitLine(np.asarray(pts, np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0], np.float32), np.array([vx, vy], np.float32)))
    out = quad.copy()
    for c in range(4):  # corner c lies on sides c-1 and c
        l1, l2 = lines[(c - 1) % 4], lines[c]
        if l1 is None or l2 is None:
            continue
        (p1, v1), (p2, v2) = l1, l2
        m = np.array([v1, -v2]).T
        if abs(np.linalg.det(m)) < 1e-3:
            continue
        t = np.linalg.solve(m, p2 - p1)
        x = p1 + v1 * t[0]
        if np.linalg.norm(x - quad[c]) <= 1.5 * r and 0 <= x[0] < w and 0 <= x[1] < h:
            out[c] = x
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


def snap_and_fit(image: np.ndarray, quad: np.ndarray, grow: float = 0.6) -> np.ndarray:
    """Corners of a detected card snapped to its outline where it closes (`snap_to_outline`),
    then each side moved onto its edge (`fit_edges`, twice) when that makes the paper stand out
    more from its surroundings (`_edge_contrast`), else left as it was. Works on the region
    around the quad (grown by `grow`), so its cost does not grow with the frame."""
    quad = np.asarray(quad, np.float32).reshape(4, 2)
    box = region_around(image.shape, quad, grow)
    if box is None:
        return quad
    x0, y0, x1, y1 = box
    roi = image[y0:y1 + 1, x0:x1 + 1]
    off = np.array([x0, y0], np.float32)
    gray = cv2.cvtColor(roi, cv2.COLOR_BGR2GRAY) if roi.ndim == 3 else roi
    q = snap_to_outline(roi, quad - off, grow=grow)
    best, score = q, _edge_contrast(gray, q)
    for _ in range(2):
        q = fit_edges(gray, q)
        c = _edge_contrast(gray, q)
        if c > score:
            best, score = q, c
    return best + off
