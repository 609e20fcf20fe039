"""A detected card's corners made precise: the four sides found again on the paper's own edges.

The detector's corner keypoints fall a tenth of the card or more off (their median error on the
held-out scenes, docs/card-reading.md) and are often turned 15-35 degrees; a crop is only as
aligned as its corners, and identification reads well up to about 2% of the diagonal.

`refine_quad` searches each side of a rough quadrilateral again:

1. **Candidate lines per side.** Around each side, a strip of the grey image's gradient is
   sampled along the side and across it (up to `reach` x the card's width either way). A line
   through the strip is scored by the *mean signed* step across it: the step from the table
   to the paper keeps one sign all along a real edge, while a patterned cloth, the print on the
   card and noise change sign and cancel out. Every line through the strip (its offsets at both
   ends of the side, turning up to `MAX_TURN_DEG`) is scored at once, and the few best separate
   ones of each sign are kept.
2. **One line per side, jointly.** Of a side's clear candidates (at least `FRACTION` of its
   strongest) the outermost first (the paper's edge, not a frame printed inside it), the first
   combination whose quadrilateral is card-shaped (`card_shaped`: convex, the deck's
   proportions, opposite sides nearly parallel, area not far from the rough quad's) with all
   four sides stepping the same way (paper brighter than its surroundings, or darker).
3. **Sub-pixel.** Each chosen side is fitted (Huber) through the outermost clear step near it
   on each profile, looking a little further out than in (a dark border printed along the edge
   has the paper's edge beyond it); adjacent sides meet in the corners.

No combination card-shaped (a side under a hand or another card, a surface of the paper's own
colour): the quad is returned as it came (`Refined.refined` False). `snap_and_refine` snaps to
the card's outline first (`snapped`); `candidate_quads` makes further guesses for a reader that
can check them against the deck; `align_to_template` lays the region around a card onto one
face of the deck (ECC) for the last few pixels.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator

import cv2
import numpy as np

from vision.cards.geometry import (
    ASPECT_RANGE,
    aspect_range,
    axis_aligned,
    card_shaped,
    inscribed_cards,
    long_axis,
    order_corners,
    region_around,
)
from vision.cards.outlines import edge_contrast, outlines_around, snap_to_outline

MAX_TURN_DEG = 15.0  # how far a side may turn from the detector's
SEPARATION = 0.16  # of the search reach: candidate lines of one side at least this far apart
LINE_SAMPLES = 20  # points along a side at which each candidate line is scored
COARSE_STEPS = 100.0  # the coarse line search moves in steps of the card width over this
FRACTION = 0.5  # a side's edges at least this fraction of its strongest count as clear
OUTWARD = 0.06  # of the card's width: how far beyond the coarse side the sub-pixel step looks
OUTER_STEP = 0.25  # sub-pixel: the outermost step at least this fraction of the profile's strongest


def fit_edges(
    image: np.ndarray, quad: np.ndarray, reach: float = 0.25, samples: int = 24, min_strength: float = 12.0
) -> np.ndarray:
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
    lines: list[tuple[np.ndarray, np.ndarray] | None] = []
    for s in range(4):
        a, b = quad[s], quad[(s + 1) % 4]
        d = b - a
        n = np.array([d[1], -d[0]], np.float32) / max(float(np.linalg.norm(d)), 1e-6)
        if np.dot(centre - (a + b) / 2, n) > 0:  # make the normal point outwards
            n = -n
        t = np.linspace(0.15, 0.85, samples, dtype=np.float32)
        base = a[None, :] + d[None, :] * t[:, None]  # (samples, 2)
        xy = base[:, None, :] + steps[None, :, None] * n[None, None, :]  # (samples, steps, 2)
        vals = cv2.remap(
            gray,
            np.ascontiguousarray(xy[..., 0]),
            np.ascontiguousarray(xy[..., 1]),
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
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


def snap_and_fit(image: np.ndarray, quad: np.ndarray, grow: float = 0.6) -> np.ndarray:
    """Corners of a detected card snapped to its outline where it closes (`snap_to_outline`),
    then each side moved onto its edge (`fit_edges`, twice) when that makes the paper stand out
    more from its surroundings (`edge_contrast`), else left as it was. Works on the region
    around the quad (grown by `grow`), so its cost does not grow with the frame."""
    quad = np.asarray(quad, np.float32).reshape(4, 2)
    box = region_around(image.shape, quad, grow)
    if box is None:
        return quad
    x0, y0, x1, y1 = box
    roi = image[y0 : y1 + 1, x0 : x1 + 1]
    off = np.array([x0, y0], np.float32)
    gray = cv2.cvtColor(roi, cv2.COLOR_BGR2GRAY) if roi.ndim == 3 else roi
    q = snap_to_outline(roi, quad - off, grow=grow)
    best, score = q, edge_contrast(gray, q)
    for _ in range(2):
        q = fit_edges(gray, q)
        c = edge_contrast(gray, q)
        if c > score:
            best, score = q, c
    return best + off


@dataclasses.dataclass(frozen=True)
class Refined:
    corners: np.ndarray  # (4, 2) in the order of the quad given
    score: float  # mean edge strength of the four sides (grey levels per pixel)
    refined: bool  # False: the detector's corners were kept


def _side_lines(
    grad: tuple[np.ndarray, np.ndarray], quad: np.ndarray, reach: float, samples: int, keep: int, step: float
) -> list[list[tuple[float, np.ndarray, np.ndarray, float]]]:
    """For each side, up to `keep` candidate lines: (signed score, point a, point b, offset)."""
    gx, gy = grad
    centre = quad.mean(axis=0)
    offsets = np.arange(-reach, reach + step / 2, step, dtype=np.float32)
    p = len(offsets)
    t = np.linspace(0.08, 0.92, samples, dtype=np.float32)
    # every line from offset o1 (at t=0) to o2 (at t=1) with a turn of at most MAX_TURN_DEG (of
    # the longest side): the same index table serves the four sides
    longest = float(np.max(np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)))
    max_delta = int(np.tan(np.radians(MAX_TURN_DEG)) * longest / step)
    o1 = np.arange(p)[:, None]
    delta = np.arange(-max_delta, max_delta + 1)[None, :]
    o2 = o1 + delta
    valid = (o2 >= 0) & (o2 < p)
    idx = np.clip(np.rint(o1[:, :, None] + delta[:, :, None] * t[None, None, :]), 0, p - 1).astype(np.int32)
    flat = idx + (np.arange(samples, dtype=np.int32) * p)[None, None, :]  # into the (samples, p) strip
    out: list[list[tuple[float, np.ndarray, np.ndarray, float]]] = []
    for s in range(4):
        a, b = quad[s], quad[(s + 1) % 4]
        d = b - a
        length = float(np.linalg.norm(d))
        if length < 4:
            out.append([])
            continue
        n = np.array([d[1], -d[0]], np.float32) / length
        if np.dot(centre - (a + b) / 2, n) > 0:
            n = -n  # outwards
        xy = a[None, None, :] + d[None, None, :] * t[:, None, None] + offsets[None, :, None] * n[None, None, :]
        mx, my = np.ascontiguousarray(xy[..., 0]), np.ascontiguousarray(xy[..., 1])
        sx = cv2.remap(gx, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0,))
        sy = cv2.remap(gy, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0,))
        strip = -(sx * n[0] + sy * n[1])  # > 0: brighter inside than outside
        score = strip.ravel()[flat].sum(axis=2) * (1.0 / samples)
        score[~valid] = 0.0
        cands = []
        for sign in (1.0, -1.0):
            sc = sign * score
            taken = np.zeros_like(sc, bool)
            for _ in range(keep):
                sc_free = np.where(taken, -np.inf, sc)
                k = int(np.argmax(sc_free))
                i, j = np.unravel_index(k, sc.shape)
                if not np.isfinite(sc_free[i, j]) or sc_free[i, j] <= 0:
                    break
                off1, off2 = offsets[i], offsets[i] + delta[0, j] * step
                pa = a + n * off1
                pb = b + n * off2
                cands.append((float(sign * sc[i, j]), pa, pb, float((off1 + off2) / 2)))
                # a line that shares either end with this one (within `sep`) is the same edge seen
                # askew: leaving it would let a tilted copy pass for an edge further out
                sep = max(2.0, SEPARATION * reach)
                near = (np.abs(o1 - i) * step <= sep) | (np.abs(o2 - (i + delta[0, j])) * step <= sep)
                taken |= near
        out.append(cands)
    return out


def _intersect(p1, p2, q1, q2) -> np.ndarray | None:
    """Where the line p1-p2 meets the line q1-q2 (Cramer's rule in plain floats: this runs for
    every combination of candidate sides), None when they are parallel."""
    d1x, d1y = float(p2[0] - p1[0]), float(p2[1] - p1[1])
    d2x, d2y = float(q2[0] - q1[0]), float(q2[1] - q1[1])
    det = -d1x * d2y + d2x * d1y
    if abs(det) < 1e-6:
        return None
    rx, ry = float(q1[0] - p1[0]), float(q1[1] - p1[1])
    t = (-rx * d2y + d2x * ry) / det
    return np.array([p1[0] + d1x * t, p1[1] + d1y * t], np.float32)


def _quad_from_lines(lines) -> np.ndarray | None:
    corners = []
    for c in range(4):  # corner c lies on sides c-1 and c
        (a1, b1), (a2, b2) = lines[(c - 1) % 4], lines[c]
        x = _intersect(a1, b1, a2, b2)
        if x is None:
            return None
        corners.append(x)
    return np.stack(corners)


def _subpixel(
    gray_grad, line, centre, reach: float, samples: int = 24, outward: float | None = None
) -> tuple[np.ndarray, np.ndarray] | None:
    """The side through the strongest step within `reach` of `line` on each profile (Huber fit)."""
    gx, gy = gray_grad
    a, b = line
    d = b - a
    length = float(np.linalg.norm(d))
    n = np.array([d[1], -d[0]], np.float32) / max(length, 1e-6)
    if np.dot(centre - (a + b) / 2, n) > 0:
        n = -n
    out_reach = reach if outward is None else outward
    offs = np.linspace(-reach, out_reach, int((reach + out_reach) * 4) + 1, dtype=np.float32)
    t = np.linspace(0.1, 0.9, samples, dtype=np.float32)
    xy = a[None, None, :] + d[None, None, :] * t[:, None, None] + offs[None, :, None] * n[None, None, :]
    mx, my = np.ascontiguousarray(xy[..., 0]), np.ascontiguousarray(xy[..., 1])
    sx = cv2.remap(gx, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0,))
    sy = cv2.remap(gy, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0,))
    strip = np.abs(sx * n[0] + sy * n[1])
    # the outermost clear step: the paper's edge, not the inner edge of a border printed on it
    m = strip.max(axis=1, keepdims=True)
    local = np.zeros_like(strip, bool)
    local[:, 1:-1] = (strip[:, 1:-1] >= strip[:, :-2]) & (strip[:, 1:-1] >= strip[:, 2:])
    ok = local & (strip >= OUTER_STEP * m)
    k = np.where(ok.any(axis=1), strip.shape[1] - 1 - np.argmax(ok[:, ::-1], axis=1), np.argmax(strip, axis=1))
    peak = strip[np.arange(samples), k]
    good = peak >= 0.5 * np.median(peak) if np.median(peak) > 0 else np.zeros(samples, bool)
    if good.sum() < samples // 3:
        return None
    pts = xy[np.arange(samples), k][good]
    vx, vy, x0, y0 = cv2.fitLine(pts.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    p0, v = np.array([x0, y0], np.float32), np.array([vx, vy], np.float32)
    return p0, p0 + v * length


def refine_quad(
    image: np.ndarray,
    quad: np.ndarray,
    reach: float = 0.35,
    aspect: tuple[float, float] = ASPECT_RANGE,
    keep: int = 4,
    min_edge: float = 6.0,
) -> Refined:
    """The card's corners found on its edges near the detector's `quad` (see the module text)."""
    quad = np.asarray(quad, np.float32).reshape(4, 2)
    h, w = image.shape[:2]
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    short = float(min((sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2))
    r = max(4.0, reach * short)
    lo, hi = quad.min(axis=0) - r - 4, quad.max(axis=0) + r + 4
    x0, y0 = np.maximum(np.floor(lo), 0).astype(int)
    x1, y1 = np.minimum(np.ceil(hi), [w - 1, h - 1]).astype(int)
    unchanged = Refined(quad.copy(), 0.0, False)
    if x1 - x0 < 12 or y1 - y0 < 12 or short < 8:
        return unchanged
    roi = image[y0 : y1 + 1, x0 : x1 + 1]
    gray = cv2.cvtColor(roi, cv2.COLOR_BGR2GRAY) if roi.ndim == 3 else roi
    sigma = max(0.8, short / 120.0)
    g = cv2.GaussianBlur(gray.astype(np.float32), (0, 0), sigma)
    grad = (cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3) / 8.0, cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3) / 8.0)
    off = np.array([x0, y0], np.float32)
    q = quad - off
    step = max(0.5, short / COARSE_STEPS)
    cands = _side_lines(grad, q, r, LINE_SAMPLES, keep, step)
    if any(len(c) == 0 for c in cands):
        return unchanged
    ref_area = max(cv2.contourArea(q), 1.0)
    best: list[tuple[np.ndarray, np.ndarray]] | None = None
    best_quad: np.ndarray | None = None
    best_score = -np.inf
    for sign in (1.0, -1.0):  # paper brighter than the surface around it, or darker, on all four sides
        per = []
        for c in cands:
            cs = [x for x in c if np.sign(x[0]) == sign and abs(x[0]) >= min_edge]
            if not cs:
                break
            top = max(abs(x[0]) for x in cs)
            # of a side's clear edges, the outermost first: the paper's edge, not a frame printed inside it
            per.append(sorted([x for x in cs if abs(x[0]) >= FRACTION * top], key=lambda x: -x[3]))
        if len(per) < 4:
            continue
        for combo in itertools.product(*per):
            lines = [(c[1], c[2]) for c in combo]
            quad_l = _quad_from_lines(lines)
            if quad_l is None or not card_shaped(quad_l, ref_area, aspect):
                continue
            total = float(np.mean([abs(c[0]) for c in combo]))
            if total > best_score:
                best, best_quad, best_score = lines, quad_l, total
            break
    if best is None or best_quad is None:
        return unchanged
    centre = best_quad.mean(axis=0)
    fine = []
    for line in best:
        # outwards a little further: the coarse step is paper to darker, which on a card with a
        # dark border printed along its edge is the border's inner edge, the paper's edge beyond it
        f = _subpixel(grad, line, centre, reach=max(1.5, 2.0 * step), outward=max(3.0, OUTWARD * short))
        fine.append(f if f is not None else line)
    out = _quad_from_lines(fine)
    if out is None or not card_shaped(out, ref_area, aspect):
        out = best_quad
    return Refined(out + off, best_score, True)


def snap_and_refine(image: np.ndarray, quad: np.ndarray, aspect: float | None = None) -> np.ndarray:
    """A detected quad made precise in two steps: snapped to the card's outline and its sides
    pulled onto the nearest strong steps (`snapped`), then each side searched for again among
    the lines near it (`refine_quad`), corners in the order given. `aspect`: the deck's card
    width over height, when known. A quad that is not four finite points comes back as it is."""
    quad = np.asarray(quad, np.float32).reshape(4, 2)
    if not np.isfinite(quad).all():
        return quad
    return refine_quad(image, snapped(image, quad), aspect=aspect_range(aspect)).corners


def snapped(image: np.ndarray, quad: np.ndarray, max_growth: float = 1.8, max_turn: float = 50.0) -> np.ndarray:
    """`snap_and_fit` (the card's outline where the contour finder sees it closed,
    sides pulled onto the nearest steps), unless that grew the quad more than `max_growth` or
    turned its long side more than `max_turn` degrees: then the outline was that of a row or a
    fan of cards (measured: a row of four overlapping cards snapped to the whole row), and the
    quad is kept as it was."""
    quad = np.asarray(quad, np.float32).reshape(4, 2)
    if not np.isfinite(quad).all():
        return quad
    out = snap_and_fit(image, quad)
    return out if plausible_snap(quad, out, max_growth, max_turn) else quad


def plausible_snap(quad: np.ndarray, out: np.ndarray, max_growth: float = 1.8, max_turn: float = 50.0) -> bool:
    grew = cv2.contourArea(np.asarray(out, np.float32)) / max(cv2.contourArea(np.asarray(quad, np.float32)), 1.0)
    turn = np.degrees(np.arccos(min(1.0, abs(float(np.dot(long_axis(out), long_axis(quad)))))))
    return grew <= max_growth and turn <= max_turn


def paper_region(image: np.ndarray, quad: np.ndarray, grow: float = 0.5, tolerance: float = 22.0) -> np.ndarray | None:
    """The rectangle (minimum-area, any angle) around the paper the quad sits on: a flood fill
    from the brightest part of the quad's middle (a card's paper is the brightest thing on it),
    its holes (the print) closed. Whichever way the detector turned its quad, this follows the
    card as long as the paper differs from what is around it. None when the fill leaks (more
    than three times the quad's area) or stays small."""
    quad = np.asarray(quad, np.float32).reshape(4, 2)
    box = region_around(image.shape, quad, grow) if image.ndim == 3 else None
    if box is None:
        return None
    x0, y0, x1, y1 = box
    roi = cv2.GaussianBlur(image[y0 : y1 + 1, x0 : x1 + 1], (5, 5), 0)
    q = quad - [x0, y0]
    c = q.mean(axis=0)
    inner = np.zeros(roi.shape[:2], np.uint8)
    cv2.fillConvexPoly(inner, np.round(c + (q - c) * 0.5).astype(np.int32), (255,))
    lum = roi.astype(np.float32).sum(axis=2)
    vals = lum[inner > 0]
    if vals.size < 4:
        return None
    ys, xs = np.nonzero((inner > 0) & (lum >= np.percentile(vals, 80)))
    k = len(ys) // 2
    seed = (int(xs[k]), int(ys[k]))
    mask = np.zeros((roi.shape[0] + 2, roi.shape[1] + 2), np.uint8)
    t = (tolerance,) * 3
    cv2.floodFill(
        roi.copy(), mask, seed, (0, 0, 0), t, t, 4 | cv2.FLOODFILL_FIXED_RANGE | cv2.FLOODFILL_MASK_ONLY | (255 << 8)
    )
    region = mask[1:-1, 1:-1]
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    return _rectangle_around(contours, cv2.contourArea(quad), 3.0, (x0, y0))


KMEANS_SEED = 0


def unlike_table(image: np.ndarray, quad: np.ndarray, grow: float = 0.5, colours: int = 3) -> np.ndarray | None:
    """The rectangle (minimum-area, any angle) around what differs from the table near the quad:
    the table's few colours (k-means of a ring well outside the quad: a plaid's squares, a
    marble's veins) are learnt, every pixel of the region is scored by its distance to the
    nearest of them, Otsu splits card from table, and the blob under the quad's centre, its holes
    filled, is the card: whichever way the detector turned its quad, and whatever the card's own
    colours. None when nothing card-sized stands out."""
    quad = np.asarray(quad, np.float32).reshape(4, 2)
    box = region_around(image.shape, quad, grow) if image.ndim == 3 else None
    if box is None:
        return None
    x0, y0, x1, y1 = box
    scale = min(1.0, 96.0 / max(x1 - x0, y1 - y0))  # a coarse look is enough for a rough rectangle
    roi = cv2.resize(image[y0 : y1 + 1, x0 : x1 + 1], None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    roi = cv2.GaussianBlur(roi, (3, 3), 0)
    lab = cv2.cvtColor(roi, cv2.COLOR_BGR2LAB).astype(np.float32)
    q = ((quad - [x0, y0]) * scale).astype(np.float32)
    c = q.mean(axis=0)
    near = np.zeros(roi.shape[:2], np.uint8)
    cv2.fillConvexPoly(near, np.round(c + (q - c) * 1.35).astype(np.int32), (255,))
    ring = lab[near == 0]
    if len(ring) < 4 * colours:
        return None
    crit = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_MAX_ITER, 10, 1.0)
    # k-means++ draws its first centres from OpenCV's random generator, one per thread, which
    # every earlier draw moves on: seeded here, a frame reads the same whatever was read before it
    # (a replayed session, the same scenes evaluated alone or after others)
    cv2.setRNGSeed(KMEANS_SEED)
    labels = np.zeros((len(ring), 1), np.int32)  # an output only: the centres start by k-means++
    _, _, centres = cv2.kmeans(ring, colours, labels, crit, 1, cv2.KMEANS_PP_CENTERS)
    dist = np.min(np.linalg.norm(lab.reshape(-1, 1, 3) - centres[None], axis=2), axis=1).reshape(roi.shape[:2])
    d8 = np.clip(dist * (255.0 / max(float(dist.max()), 1e-6)), 0, 255).astype(np.uint8)
    _, fg = cv2.threshold(d8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(fg, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    holding = [k for k in contours if cv2.pointPolygonTest(k, (float(c[0]), float(c[1])), False) >= 0]
    if not holding:
        return None
    return _rectangle_around(holding, cv2.contourArea(q), 2.5, (x0, y0), scale)


def _rectangle_around(contours, ref_area: float, max_grow: float, offset, scale: float = 1.0) -> np.ndarray | None:
    """The minimum-area rectangle (any angle) around the largest contour's hull, back in frame
    pixels (divided by `scale`, moved by `offset`); None when the hull is not 0.4 to `max_grow`
    times `ref_area` (in the contours' own pixels)."""
    hull = cv2.convexHull(max(contours, key=cv2.contourArea))
    if not 0.4 * ref_area <= cv2.contourArea(hull) <= max_grow * ref_area:
        return None
    box = cv2.boxPoints(cv2.minAreaRect(hull)) / scale
    return (box + np.array(offset, np.float32)).astype(np.float32)


def candidate_quads(image: np.ndarray, quad: np.ndarray, aspect: float | None = None) -> Iterator[np.ndarray]:
    """Guesses at a detected card's corners, made one at a time (a reader that is sure after the
    first stops there), in the order they won on held-out scenes: refined (`refine_quad` after
    `snapped`), snapped only; for the detector's box (an upright rectangle: the card's corner
    keypoints collapsed), the cards inscribed in it turned either way (`inscribed_cards`),
    refined; refined from the paper around the quad's centre (`paper_region`:
    a quad the detector turned far off) and from what differs from the table around it
    (`unlike_table`), as detected, refined from the quad as detected, the cards inscribed in
    the quad's upright box turned either way, refined (keypoints turned 15-35 degrees within a
    box that fits the card, or a quad astride two overlapping cards), a snap that grew or
    turned the quad implausibly (refined, and as it is), refined from each
    card outline around the quad (`outlines_around`). (Guesses turned from the quad were tried
    and never won on the held-out scenes, so none are made.) Each clockwise,
    short side first, corner 0 nearest the detector's; near duplicates (2% of the diagonal) are
    left out. `aspect`: the deck's card width over height, when known (a quad that took in a
    neighbouring card in a fan is too long for it). Identification picks among the guesses by
    how well each crop matches the deck (`CardReader`)."""
    quad = np.asarray(quad, np.float32).reshape(4, 2)
    shape = aspect_range(aspect)
    if not np.isfinite(quad).all():
        yield quad
        return

    def guesses() -> Iterator[np.ndarray]:
        snap = snap_and_fit(image, quad)
        plausible = plausible_snap(quad, snap)
        base = snap if plausible else quad
        yield refine_quad(image, base, aspect=shape).corners
        yield base
        if axis_aligned(quad):  # the detector's box: the card inside it, turned either way
            for card in inscribed_cards(quad, aspect):
                yield refine_quad(image, card, aspect=shape).corners
        for around in (paper_region, unlike_table):  # each made only when the reader asks on
            p = around(image, quad)
            if p is not None:
                yield refine_quad(image, p, aspect=shape).corners
        yield quad
        if not np.array_equal(base, quad):
            yield refine_quad(image, quad, aspect=shape).corners
        if not axis_aligned(quad):  # keypoints turned within a box that fits the card
            for card in inscribed_cards(quad, aspect):
                yield refine_quad(image, card, aspect=shape).corners
        if not plausible:  # a row's outline, or the card's own around keypoints that gathered
            yield refine_quad(image, snap, aspect=shape).corners  # on a picture inside it
            yield snap
        for o in outlines_around(image, quad):
            yield refine_quad(image, o, aspect=shape).corners

    seen: list[np.ndarray] = []
    for q in guesses():
        q = order_corners(q[None], hint=quad[None])[0]
        diag = max(float(np.linalg.norm(q[0] - q[2])), 1.0)
        if all(float(np.linalg.norm(q - p, axis=1).mean()) > 0.02 * diag for p in seen):
            seen.append(q)
            yield q


# --- alignment on a template ----------------------------------------------------------------
ALIGN_SIZE = (48, 72)  # (w, h) of the card in the alignment canvas
ALIGN_PAD = 0.25  # the canvas reaches this fraction of the card beyond each side


def align_to_template(
    image: np.ndarray, quad: np.ndarray, template: np.ndarray, upside_down: bool = False, iterations: int = 30
) -> tuple[np.ndarray | None, float]:
    """The corners that make the card in `image` match `template` (a rectified face) best.

    The region around `quad` (a quarter of the card beyond each side) is warped to a canvas in
    which the quad fills the middle; OpenCV's ECC (enhanced correlation coefficient: brightness
    and contrast do not matter) finds the affine map that lays the template, grey and masked to
    the card, onto it; the template's corners through that map and back through the warp are
    the new corners, in the quad's order. `upside_down`: the crop matched the template turned
    180 degrees. Returns (corners, correlation), or (None, -1) when ECC does not converge."""
    w, h = ALIGN_SIZE
    px, py = int(round(w * ALIGN_PAD)), int(round(h * ALIGN_PAD))
    cw, ch = w + 2 * px, h + 2 * py
    inner = np.array([[px, py], [px + w - 1, py], [px + w - 1, py + h - 1], [px, py + h - 1]], np.float32)
    hq = cv2.getPerspectiveTransform(np.asarray(quad, np.float32).reshape(4, 2), inner)
    canvas = cv2.warpPerspective(image, hq, (cw, ch), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    gray = (
        cv2.cvtColor(canvas, cv2.COLOR_BGR2GRAY).astype(np.float32) if canvas.ndim == 3 else canvas.astype(np.float32)
    )
    t = cv2.resize(template, ALIGN_SIZE, interpolation=cv2.INTER_AREA)
    if upside_down:
        t = cv2.rotate(t, cv2.ROTATE_180)
    tc = np.zeros((ch, cw), np.float32)
    tc[py : py + h, px : px + w] = cv2.cvtColor(t, cv2.COLOR_BGR2GRAY) if t.ndim == 3 else t
    mask = np.zeros((ch, cw), np.uint8)
    mask[py : py + h, px : px + w] = 255
    warp: np.ndarray = np.eye(2, 3, dtype=np.float32)
    try:
        cc, warp = cv2.findTransformECC(
            tc,
            gray,
            warp,
            cv2.MOTION_AFFINE,
            (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, iterations, 1e-3),
            mask,
            5,
        )
    except cv2.error:  # did not converge (a flat crop, a template that does not fit at all)
        return None, -1.0
    pts = inner @ warp[:, :2].T + warp[:, 2]
    back = cv2.perspectiveTransform(pts[None].astype(np.float32), np.linalg.inv(hq))[0]
    if not np.all(np.isfinite(back)):
        return None, -1.0
    return back.astype(np.float32), float(cc)
