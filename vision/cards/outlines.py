"""Card outlines found in a picture by classical contours, without the trained detector.

* `find_quads_by_contour`: card-like quadrilaterals of paper brighter than the surface around
  it (edges and a brightness threshold); `snap_to_outline` and `outlines_around` look for them
  in the region around one detected quad.
* `card_mask`, `cloth_outlines`, `contour_cards`: cards standing out from a plain cloth, by
  colour; `snap_to_cloth_outlines` puts a frame's detections onto those outlines.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.cards.detections import CardDetections
from vision.cards.geometry import (
    hull_iou,
    order_corners,
    orientation_of,
    portrait_order,
    quad_iou,
    quad_overlap,
    region_around,
)


# --- bright paper on a darker surface ------------------------------------------------------------
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
    quads: list[np.ndarray] = []
    areas: list[float] = []
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
            if edge_contrast(gray, q) < min_contrast:  # a card's paper stands out from the surface around it
                continue
            same = [k for k, p in enumerate(quads) if quad_overlap(q, p) > 0.5]
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


def edge_contrast(gray: np.ndarray, quad: np.ndarray) -> float:
    """Mean grey just inside the quad's edges minus just outside them."""
    c = quad.mean(axis=0)
    inner = (c + (quad - c) * 0.92).astype(np.int32)
    outer = (c + (quad - c) * 1.08).astype(np.int32)
    band = max(2, int(0.02 * np.linalg.norm(quad[0] - quad[2])))
    m_in = np.zeros(gray.shape, np.uint8)
    m_out = np.zeros(gray.shape, np.uint8)
    cv2.polylines(m_in, [inner], True, (255,), band)
    cv2.polylines(m_out, [outer], True, (255,), band)
    if not m_in.any() or not m_out.any():
        return 0.0
    return float(cv2.mean(gray, m_in)[0] - cv2.mean(gray, m_out)[0])


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
    found = find_quads_by_contour(image[y0 : y1 + 1, x0 : x1 + 1], min_area=0.08, min_contrast=12.0)
    if len(found) == 0:
        return quad
    found = found + np.array([x0, y0], np.float32)
    k = best_outline(quad, found, min_iou)
    return quad if k is None else order_corners(found[k][None], hint=quad[None])[0]


def best_outline(
    quad: np.ndarray,
    outlines: np.ndarray,
    min_iou: float = 0.3,
    min_cover: float = 0.7,
    min_growth: float = 0.92,
    max_growth: float = 2.5,
) -> int | None:
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
        if (
            quad_iou(quad, f) >= min_iou
            and inter / area >= min_cover
            and min_growth * area <= f_area <= max_growth * area
            and f_area > best_area
        ):
            best, best_area = k, f_area
        if (
            cv2.pointPolygonTest(f.reshape(-1, 1, 2), (float(centre[0]), float(centre[1])), False) >= 0
            and inter / area >= min_cover
            and area <= f_area <= 8 * area
        ):
            holding.append((f_area, k))
    if best is None and holding:
        # keypoints gathered on a picture inside the card (a quad turned, a fifth of its size):
        # the card-shaped outline around them is the card
        best = min(holding)[1]
    return best


def outlines_around(image: np.ndarray, quad: np.ndarray, grow: float = 0.5, max_count: int = 2) -> list[np.ndarray]:
    """Card-shaped outlines (`find_quads_by_contour`) in the region around `quad` that hold its
    centre and have 0.5 to 2.5 times its area, largest first: the card itself when it lies clear
    of others, whichever way the detector turned its quad."""
    quad = np.asarray(quad, np.float32).reshape(4, 2)
    box = region_around(image.shape, quad, grow)
    if box is None:
        return []
    x0, y0, x1, y1 = box
    found = find_quads_by_contour(image[y0 : y1 + 1, x0 : x1 + 1], min_area=0.05, min_contrast=6.0)
    area = max(cv2.contourArea(quad), 1.0)
    c = quad.mean(axis=0) - [x0, y0]
    out = []
    for f in found:
        a = cv2.contourArea(f)
        if (
            0.5 * area <= a <= 2.5 * area
            and cv2.pointPolygonTest(f.reshape(-1, 1, 2), (float(c[0]), float(c[1])), False) >= 0
        ):
            out.append((a, f + np.array([x0, y0], np.float32)))
    out.sort(key=lambda x: -x[0])
    return [f for _, f in out[:max_count]]


# --- cards on a plain cloth ---------------------------------------------------------------------
def card_mask(image: np.ndarray, distance: float = 45.0) -> np.ndarray:
    """Pixels that are not the cloth: colour (Lab, L1 distance) farther than `distance` from the
    picture's median colour, the cloth that fills most of a table camera's view. A card whose
    print is dark at its edge keeps a whole outline (its white border differs from the cloth)."""
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)
    step = max(1, int(np.sqrt(lab.shape[0] * lab.shape[1] / 20000)))
    cloth = np.median(lab[::step, ::step].reshape(-1, 3), axis=0).astype(np.uint8)
    # the cloth as an OpenCV Scalar, not a frame-sized copy of it (the stubs lack that overload)
    diff = cv2.absdiff(lab, (float(cloth[0]), float(cloth[1]), float(cloth[2]), 0.0))  # type: ignore[call-overload]
    total = cv2.transform(diff, np.ones((1, 3), np.float32))  # L1 over the three channels
    mask = (total > distance).astype(np.uint8) * 255
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))


def cloth_outlines(image: np.ndarray, min_area_frac: float = 0.002, max_area_frac: float = 0.2) -> list[np.ndarray]:
    """Card-shaped regions standing out from the cloth (`card_mask`): (4, 2) rectangles in
    portrait order (`portrait_order`)."""
    h, w = image.shape[:2]
    contours, _ = cv2.findContours(card_mask(image), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    quads = []
    for c in contours:
        hull = cv2.convexHull(c)
        area = cv2.contourArea(hull)  # dark print at a card's edge leaves notches
        if not (min_area_frac * w * h <= area <= max_area_frac * w * h):
            continue
        rect = cv2.minAreaRect(hull)
        rw, rh = rect[1]
        if min(rw, rh) <= 0:
            continue
        if 1.2 <= max(rw, rh) / min(rw, rh) <= 1.9 and area / (rw * rh) >= 0.85:
            quads.append(portrait_order(cv2.boxPoints(rect).astype(np.float32)))
    return quads


def contour_cards(image: np.ndarray, min_area_frac: float = 0.002, max_area_frac: float = 0.2) -> CardDetections:
    """Rectangles of a card's shape standing out from a plain cloth, as `CardDetections`
    (corners in the card's order, top edge the short edge nearer the top of the picture). For
    a plain table without the trained model; cards touching each other merge and are missed."""
    quads = cloth_outlines(image, min_area_frac, max_area_frac)
    if not quads:
        return CardDetections.empty()
    return CardDetections.from_corners(np.stack(quads), confidence=np.ones(len(quads), np.float32))


def snap_to_cloth_outlines(image: np.ndarray, dets: CardDetections, min_iou: float = 0.05) -> CardDetections:
    """The detector finds the cards; their outlines against the cloth give exact corners.

    The card-shaped outlines of the picture (`cloth_outlines`) are matched one to one with the
    detections, best overlap first (IoU of the quadrilaterals at least `min_iou`), then by a
    detection's centre lying on an outline nobody claimed (its corners collapsed); a matched
    detection takes its outline's corners, in the detector's order (of the two portrait
    rotations, the nearer to the detector's corners). A detection left without an outline
    keeps its corners (a card in a hand, on a light table), unless it overlaps an outline
    already taken or has its centre on it (a second, looser guess at the same card). Outlines
    no detection claims are not cards: the detector decides what is a card."""
    if len(dets) == 0:
        return dets
    quads = cloth_outlines(image)
    out = dets.copy()
    pairs = sorted(
        ((hull_iou(out.corners[i], q), i, j) for i in range(len(out)) for j, q in enumerate(quads)), reverse=True
    )
    det_to: dict[int, int] = {}
    taken: set[int] = set()
    for iou, i, j in pairs:
        if iou < min_iou:
            break
        if i in det_to or j in taken:
            continue
        det_to[i] = j
        taken.add(j)
    # A detection whose corners collapsed but whose centre lies on a card no one claimed has
    # found that card: it takes the outline.
    for i in np.argsort(-out.confidence):
        if int(i) in det_to:
            continue
        centre = tuple(map(float, out.centers[i]))
        for j, q in enumerate(quads):
            if j not in taken and cv2.pointPolygonTest(q.reshape(-1, 1, 2), centre, False) >= 0:
                det_to[int(i)] = j
                taken.add(j)
                break
    keep = []
    for i in range(len(out)):
        if i in det_to:
            quad = quads[det_to[i]]
            rotations = [quad, np.roll(quad, -2, axis=0)]  # portrait: the top is a short edge
            errors = [float(np.linalg.norm(r - out.corners[i], axis=1).sum()) for r in rotations]
            out.corners[i] = rotations[int(np.argmin(errors))]
            keep.append(i)
        elif not any(
            hull_iou(out.corners[i], quads[j]) >= 0.15
            or cv2.pointPolygonTest(quads[j].reshape(-1, 1, 2), tuple(map(float, out.centers[i])), False) >= 0
            for j in taken
        ):
            keep.append(i)
    out.orientation = orientation_of(out.corners)
    return out[np.array(keep, dtype=int)]
