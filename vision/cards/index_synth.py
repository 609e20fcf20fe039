"""Synthetic French index corners, to train the corner-index reader (`vision.cards.corner_index`).

A French deck's corner index is a rank (A, 2-10, J, Q, K) over a small suit pip, in red or black,
in whatever font and pip drawing the maker chose. `sample(rng)` draws one such corner as the
reader sees it: the top-left `corner_index.CORNER` fraction of a card rectified from corners a
few percent off, at `corner_index.PATCH` pixels, with its rank and suit (or `NONE` for a patch
that shows no index: a corner turned a quarter, the table, a card's back, a blank corner).

What varies, drawn afresh for every sample:

* **Rank glyph**: every TrueType font on the machine that has digits (DejaVu Sans / Serif /
  Mono in their weights, condensed and oblique cuts; matplotlib's STIX and Computer Modern) and
  OpenCV's Hershey stroke fonts; its width (the "10" squeezed up to half), its weight (the
  glyph thickened or thinned), its size and place.
* **Suit pip**: drawn as a vector shape with random proportions (a heart from its curve or from
  two circles and a point, a diamond with straight or hollow sides, a spade as a turned heart on
  a flared stem, a club as three balls on a stem), or a font's suit glyph; sometimes outlined.
* **The card around it**: paper tint, rounded corner, the table beyond a loose corner, a court
  card's frame and coloured art, or a numeral's first big pip next to the index.
* **The camera**: the corner's error (shift, scale, turn, shear), the card's width in the
  picture (30 to 260 pixels: a soft index), blur, motion blur, noise, JPEG, a light gradient,
  a colour cast, contrast; red and black inks of many shades.

Nothing here runs at table time; the fonts are read with Pillow (matplotlib's dependency).
"""

from __future__ import annotations

import functools
import glob
import math
import os
from collections.abc import Sequence

import cv2
import numpy as np

from vision.cards.corner_index import CORNER, PATCH, RANKS, SUITS

NONE = -1  # label of a patch with no index
RED_SUITS = {"H", "D"}
GLYPH_PX = 96  # fonts rendered at this size, then scaled
CANVAS_W = 200  # the card's width in canvas pixels (the canvas shows its top-left part)


# --- glyphs -----------------------------------------------------------------------------------
def font_files() -> list[str]:
    """TrueType fonts on this machine that carry Latin digits: the system's, and matplotlib's
    bundled ones (STIX, Computer Modern, DejaVu)."""
    roots = ["/usr/share/fonts"]
    try:
        import matplotlib  # deferred: only to find the font files it ships

        roots.append(os.path.join(os.path.dirname(matplotlib.__file__), "mpl-data", "fonts", "ttf"))
    except ImportError:
        pass
    skip = ("STIXSiz", "STIXNonUni", "cmex", "cmsy", "cmmi", "LastResort", "Math", "ExtraLight", "Display")
    out: dict[str, str] = {}
    for root in roots:
        for path in sorted(glob.glob(os.path.join(root, "**", "*.ttf"), recursive=True)):
            name = os.path.basename(path)
            if any(s in name for s in skip) or name in out:
                continue
            out[name] = path
    return [out[k] for k in sorted(out)]


@functools.lru_cache(maxsize=4096)
def _ttf_glyph(path: str, text: str) -> np.ndarray | None:
    """Alpha (0..1 float32) of `text` in a TrueType font at GLYPH_PX, cropped to its ink."""
    from PIL import Image, ImageDraw, ImageFont  # deferred: fonts are rasterised for training data only

    try:
        font = ImageFont.truetype(path, GLYPH_PX)
    except OSError:
        return None
    img = Image.new("L", (GLYPH_PX * 3, GLYPH_PX * 2), 0)
    ImageDraw.Draw(img).text((GLYPH_PX // 2, GLYPH_PX // 3), text, fill=255, font=font)
    a = np.asarray(img, np.float32) / 255.0
    return _crop_ink(a)


@functools.lru_cache(maxsize=512)
def _hershey_glyph(face: int, thick: int, text: str) -> np.ndarray | None:
    img = np.zeros((GLYPH_PX * 2, GLYPH_PX * 3), np.uint8)
    cv2.putText(img, text, (GLYPH_PX // 3, int(GLYPH_PX * 1.4)), face, GLYPH_PX / 30.0, (255,), thick, cv2.LINE_AA)
    return _crop_ink(img.astype(np.float32) / 255.0)


def _crop_ink(a: np.ndarray) -> np.ndarray | None:
    ys, xs = np.nonzero(a > 0.2)
    if len(xs) == 0:
        return None
    return a[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1].copy()


HERSHEY = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_COMPLEX_SMALL,
)
SUIT_CHARS = {
    "S": ("\u2660", "\u2664"),
    "H": ("\u2665", "\u2661"),
    "D": ("\u2666", "\u2662"),
    "C": ("\u2663", "\u2667"),
}


@functools.lru_cache(maxsize=1)
def _fonts_with_digits() -> tuple[str, ...]:
    return tuple(p for p in font_files() if _ttf_glyph(p, "Q") is not None and _ttf_glyph(p, "10") is not None)


@functools.lru_cache(maxsize=1)
def _fonts_with_suits() -> tuple[str, ...]:
    fonts = []
    for p in font_files():
        g = [_ttf_glyph(p, SUIT_CHARS[s][0]) for s in SUITS]
        # a font without the glyph draws a box or nothing: the four must differ
        if (
            all(x is not None for x in g)
            and len({(x.shape, round(float(x.mean()), 3)) for x in g if x is not None}) == 4
        ):
            fonts.append(p)
    return tuple(fonts)


def rank_glyph(rng: np.random.Generator, rank: str, fonts: Sequence[str] | None = None) -> np.ndarray:
    """The rank's alpha in a random font, weight and width."""
    fonts = _fonts_with_digits() if fonts is None else fonts
    text = rank
    g = None
    if rng.random() < 0.2:
        g = _hershey_glyph(int(rng.choice(HERSHEY)), int(rng.integers(3, 9)), text)
    if g is None:
        g = _ttf_glyph(str(rng.choice(fonts)), text)
    if g is None:
        g = _hershey_glyph(cv2.FONT_HERSHEY_SIMPLEX, 5, text)
    assert g is not None
    if rank == "10" and rng.random() < 0.5:  # a "10" drawn as two glyphs set tight (or overlapping)
        one, zero = g, g
        f = str(rng.choice(fonts))
        a, b = _ttf_glyph(f, "1"), _ttf_glyph(f, "0")
        if a is not None and b is not None:
            h = max(a.shape[0], b.shape[0])
            a = cv2.resize(a, (max(1, round(a.shape[1] * h / a.shape[0])), h))
            b = cv2.resize(b, (max(1, round(b.shape[1] * h / b.shape[0])), h))
            gap = int(rng.integers(-h // 10, h // 8))
            w = a.shape[1] + b.shape[1] + gap
            one = np.zeros((h, max(w, a.shape[1], b.shape[1])), np.float32)
            one[:, : a.shape[1]] = a
            x = max(0, a.shape[1] + gap)
            zero = one.copy()
            zero[:, x : x + b.shape[1]] = np.maximum(zero[:, x : x + b.shape[1]], b[:, : zero.shape[1] - x])
            g = zero
    return _weight(rng, g)


def _weight(rng: np.random.Generator, g: np.ndarray) -> np.ndarray:
    r = rng.random()
    if r < 0.25:
        k = int(rng.integers(2, 7))
        g = cv2.dilate(g, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    elif r < 0.4:
        k = int(rng.integers(2, 5))
        g = cv2.erode(g, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    return g


# --- pips -------------------------------------------------------------------------------------
def _poly_mask(pts: np.ndarray, size: int = 200) -> np.ndarray:
    m = np.zeros((size, size), np.uint8)
    cv2.fillPoly(m, [np.round(pts * 8).astype(np.int32)], (255,), cv2.LINE_AA, shift=3)
    return m.astype(np.float32) / 255.0


def _heart_pts(rng: np.random.Generator, size: int = 200) -> np.ndarray:
    """A heart, point down, filling a size x size square (in pixels)."""
    t = np.linspace(0, 2 * np.pi, 240)
    x = 16 * np.sin(t) ** 3
    sharp = rng.uniform(0.6, 1.4)
    y = 13 * np.cos(t) - sharp * 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t)
    x = x * rng.uniform(0.85, 1.2)
    pts = np.stack([x, -y], 1)
    return _fit(pts, size)


def _heart_circles(rng: np.random.Generator, size: int = 200) -> np.ndarray:
    """A heart from two circles and a point (the lobes rounder than the curve's)."""
    r = rng.uniform(0.2, 0.25)
    depth = rng.uniform(0.45, 0.7)
    m = np.zeros((size, size), np.uint8)
    c1 = (0.5 - r * 0.95, 0.05 + r)
    c2 = (0.5 + r * 0.95, 0.05 + r)
    for c in (c1, c2):
        cv2.circle(m, (int(c[0] * size * 8), int(c[1] * size * 8)), int(r * size * 8), (255,), -1, cv2.LINE_AA, shift=3)
    tri = np.array([[0.5 - 1.95 * r, 0.05 + r * 1.15], [0.5 + 1.95 * r, 0.05 + r * 1.15], [0.5, 0.05 + r + depth]])
    cv2.fillPoly(m, [np.round(tri * size * 8).astype(np.int32)], (255,), cv2.LINE_AA, shift=3)
    a = m.astype(np.float32) / 255.0
    cropped = _crop_ink(a)
    return cropped if cropped is not None else a


def _fit(pts: np.ndarray, size: int) -> np.ndarray:
    lo, hi = pts.min(0), pts.max(0)
    scale = 0.9 * size / max(float((hi - lo).max()), 1e-6)
    return (pts - (lo + hi) / 2) * scale + size / 2


def _diamond(rng: np.random.Generator, size: int = 200) -> np.ndarray:
    w = rng.uniform(0.55, 0.85)
    bow = rng.uniform(0.0, 0.18) if rng.random() < 0.6 else 0.0
    corners = np.array([[0, -1], [w, 0], [0, 1], [-w, 0]], np.float64)
    pts = []
    for i in range(4):
        a, b = corners[i], corners[(i + 1) % 4]
        mid = (a + b) / 2 * (1 - bow)  # hollow sides: the control point pulled in
        for t in np.linspace(0, 1, 30, endpoint=False):
            pts.append((1 - t) ** 2 * a + 2 * t * (1 - t) * mid + t**2 * b)
    return _poly_mask(_fit(np.array(pts), size), size)


def _stem(rng: np.random.Generator, m: np.ndarray, top: float, size: int) -> None:
    """A flared stem from height `top` (fraction) to the bottom of the mask, drawn into `m`."""
    half_bottom = rng.uniform(0.14, 0.3)
    half_top = rng.uniform(0.02, 0.06)
    bottom = rng.uniform(0.88, 0.97)
    curve = rng.uniform(0.0, 1.0)
    ys = np.linspace(top, bottom, 20)
    t = (ys - top) / (bottom - top)
    half = half_top + (half_bottom - half_top) * t ** (1 + 2 * curve)
    left = np.stack([0.5 - half, ys], 1)
    right = np.stack([0.5 + half, ys], 1)[::-1]
    pts = np.concatenate([left, right]) * size
    cv2.fillPoly(m, [np.round(pts * 8).astype(np.int32)], (255,), cv2.LINE_AA, shift=3)


def _spade(rng: np.random.Generator, size: int = 200) -> np.ndarray:
    body = (_heart_circles(rng, size) if rng.random() < 0.4 else _poly_mask(_heart_pts(rng, size), size))[::-1]
    inked = _crop_ink(body)
    body = cv2.resize(inked if inked is not None else body, (size, size))
    h = rng.uniform(0.72, 0.85)
    body = cv2.resize(body, (size, int(size * h)))
    m = np.zeros((size, size), np.float32)
    m[: body.shape[0]] = body
    mm = (m * 255).astype(np.uint8)
    _stem(rng, mm, h * rng.uniform(0.6, 0.8), size)
    return mm.astype(np.float32) / 255.0


def _club(rng: np.random.Generator, size: int = 200) -> np.ndarray:
    m = np.zeros((size, size), np.uint8)
    r = rng.uniform(0.17, 0.22)
    spread = rng.uniform(0.9, 1.15)
    cy = rng.uniform(0.5, 0.6)
    centres = [(0.5, cy - r * 1.55 * spread), (0.5 - r * 1.15 * spread, cy), (0.5 + r * 1.15 * spread, cy)]
    for cx, cyy in centres:
        cv2.circle(m, (int(cx * size * 8), int(cyy * size * 8)), int(r * size * 8), (255,), -1, cv2.LINE_AA, shift=3)
    cv2.circle(
        m,
        (int(0.5 * size * 8), int((cy - r * 0.3) * size * 8)),
        int(r * 0.7 * size * 8),
        (255,),
        -1,
        cv2.LINE_AA,
        shift=3,
    )
    _stem(rng, m, cy, size)
    a = m.astype(np.float32) / 255.0
    return _crop_ink(a) if _crop_ink(a) is not None else a  # type: ignore[return-value]


def pip_glyph(rng: np.random.Generator, suit: str) -> np.ndarray:
    """A suit pip's alpha: a vector drawing with random proportions, or a font's glyph."""
    fonts = _fonts_with_suits()
    if fonts and rng.random() < 0.3:
        g = _ttf_glyph(str(rng.choice(fonts)), SUIT_CHARS[suit][0])
        if g is not None:
            return _outline(rng, g)
    if suit == "H":
        g = _heart_circles(rng) if rng.random() < 0.4 else _poly_mask(_heart_pts(rng))
    elif suit == "D":
        g = _diamond(rng)
    elif suit == "S":
        g = _spade(rng)
    else:
        g = _club(rng)
    c = _crop_ink(g)
    return _outline(rng, c if c is not None else g)


def _outline(rng: np.random.Generator, g: np.ndarray) -> np.ndarray:
    if rng.random() < 0.05:  # an outlined pip
        k = max(3, int(min(g.shape) * rng.uniform(0.08, 0.15)))
        return np.clip(g - cv2.erode(g, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))), 0, 1)
    return g


# --- the card and the camera ------------------------------------------------------------------
def _ink(rng: np.random.Generator, red: bool) -> np.ndarray:
    if red:
        return np.array([rng.uniform(10, 90), rng.uniform(0, 70), rng.uniform(140, 240)], np.float32)
    v = rng.uniform(0, 70)
    return np.clip(v + rng.normal(0, 8, 3), 0, 255).astype(np.float32)


def _paste(canvas: np.ndarray, alpha: np.ndarray, colour: np.ndarray, x: float, y: float, w: float, h: float) -> None:
    """Lay `alpha` scaled to w x h at (x, y) (top-left, canvas pixels) onto the canvas in `colour`."""
    w, h = max(1, int(round(w))), max(1, int(round(h)))
    a = cv2.resize(alpha, (w, h), interpolation=cv2.INTER_AREA if w < alpha.shape[1] else cv2.INTER_LINEAR)
    x0, y0 = int(round(x)), int(round(y))
    H, W = canvas.shape[:2]
    xa, ya = max(0, -x0), max(0, -y0)
    xb, yb = min(w, W - x0), min(h, H - y0)
    if xb <= xa or yb <= ya:
        return
    sub = canvas[y0 + ya : y0 + yb, x0 + xa : x0 + xb]
    aa = np.clip(a[ya:yb, xa:xb], 0, 1)[..., None]
    sub[:] = sub * (1 - aa) + colour * aa


def _texture(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A table, a cloth, or a card's back: flat, noisy, striped or a lattice."""
    base = rng.uniform(0, 255, 3).astype(np.float32)
    img = np.ones((h, w, 3), np.float32) * base
    r = rng.random()
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if r < 0.3:
        small = _noise(rng, (max(2, h // 8), max(2, w // 8), 3), rng.uniform(10, 50))
        img = img + cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    elif r < 0.55:
        period = rng.uniform(4, 30)
        ang = rng.uniform(0, np.pi)
        s = np.sin((xx * np.cos(ang) + yy * np.sin(ang)) * 2 * np.pi / period)
        img = img + (s[..., None] * rng.uniform(20, 90, 3)).astype(np.float32)
    elif r < 0.75:  # a lattice (a card's back)
        period = rng.uniform(5, 20)
        s = np.maximum(np.abs(np.sin((xx + yy) * np.pi / period)), np.abs(np.sin((xx - yy) * np.pi / period)))
        other = rng.uniform(0, 255, 3).astype(np.float32)
        img = np.where((s > 0.8)[..., None], other, img)
    img = img + _noise(rng, img.shape, rng.uniform(1, 12))
    return np.clip(img, 0, 255)


def _noise(rng: np.random.Generator, shape: tuple[int, ...], sigma: float) -> np.ndarray:
    """Gaussian noise (float32), by OpenCV's generator seeded from `rng` (numpy's is slow here)."""
    cv2.setRNGSeed(int(rng.integers(1 << 30)))
    out = np.empty(shape, np.float32)
    cv2.randn(out, np.zeros(1), np.full(1, float(sigma)))
    return out


def _court_art(rng: np.random.Generator, canvas: np.ndarray, x0: float, y0: float, ink: np.ndarray) -> None:
    """A court card's frame from (x0, y0) on, and coloured shapes inside it."""
    H, W = canvas.shape[:2]
    colours = [np.array(c, np.float32) for c in ((30, 180, 230), (40, 40, 200), (160, 80, 30), (20, 20, 20), ink)]
    for _ in range(int(rng.integers(6, 20))):
        c = colours[int(rng.integers(len(colours)))]
        px, py = rng.uniform(x0, W), rng.uniform(y0, H)
        if rng.random() < 0.5:
            cv2.circle(canvas, (int(px), int(py)), int(rng.uniform(3, 25)), c.tolist(), -1, cv2.LINE_AA)
        else:
            pts = np.array([[px, py], [px + rng.uniform(-40, 40), py + rng.uniform(-40, 40)]], np.int32)
            cv2.line(canvas, tuple(pts[0]), tuple(pts[1]), c.tolist(), int(rng.integers(1, 6)), cv2.LINE_AA)
    if rng.random() < 0.85:
        col = ink if rng.random() < 0.5 else np.array((20, 20, 20), np.float32)
        cv2.rectangle(canvas, (int(x0), int(y0)), (W + 50, H + 50), col.tolist(), int(rng.integers(1, 4)), cv2.LINE_AA)


def render_corner(
    rng: np.random.Generator, rank: str | None, suit: str | None, card_width: float | None = None
) -> np.ndarray:
    """One synthetic corner patch (PATCH, BGR uint8) as `corner_index.corner_patch` cuts it from a
    rectified card; rank/suit None: a patch showing no index (see `sample`)."""
    W = CANVAS_W
    aspect = rng.uniform(1.38, 1.6)  # card height over width: poker to Italian-narrow bridge
    H = W * aspect
    # the canvas: the card's top-left part, from -m to 0.5 of the card, in canvas pixels
    m = 0.15
    cw, ch = int(W * (0.5 + m)), int(H * (0.5 + m))
    off = np.array([m * W, m * H], np.float32)
    canvas = _texture(rng, ch, cw)
    paper = np.clip(rng.uniform(195, 255) + rng.normal(0, 4, 3), 0, 255).astype(np.float32)
    card = np.zeros((ch, cw), np.uint8)
    rad = rng.uniform(0.02, 0.08) * W
    x0, y0 = off
    cv2.rectangle(card, (int(x0 + rad), int(y0)), (cw + 10, ch + 10), 255, -1)
    cv2.rectangle(card, (int(x0), int(y0 + rad)), (cw + 10, ch + 10), 255, -1)
    cv2.circle(card, (int(x0 + rad), int(y0 + rad)), int(rad), (255,), -1, cv2.LINE_AA)
    a = cv2.GaussianBlur(card.astype(np.float32) / 255.0, (3, 3), 0)[..., None]
    canvas = canvas * (1 - a) + paper * a
    red = suit in RED_SUITS if suit is not None else bool(rng.random() < 0.5)
    ink = _ink(rng, red)

    quarter = False
    if rank is not None and suit is not None:
        art_suit = suit
        _face_content(rng, canvas, rank, art_suit, ink, off, W, H)
        _index(rng, canvas, rank, suit, ink, off, W, H)
    else:
        kind = rng.random()
        if kind < 0.3:  # the table beyond the card (corners far off)
            canvas = _texture(rng, ch, cw)
        elif kind < 0.5:  # a blank corner, or a face's art with no index
            fake_rank = str(rng.choice(["J", "Q", "K", "5", "8"]))
            if rng.random() < 0.6:
                _face_content(rng, canvas, fake_rank, str(rng.choice(SUITS)), ink, off, W, H)
        elif kind < 0.62:  # a card's back
            back = _texture(rng, ch, cw)
            canvas = canvas * (1 - a) + (back * 0.8 + paper * 0.2) * a
        else:  # the index there, turned a quarter (the corners went round the wrong way), or half an index
            quarter = True
            r, s = str(rng.choice(RANKS)), str(rng.choice(SUITS))
            ink = _ink(rng, s in RED_SUITS)
            _face_content(rng, canvas, r, s, ink, off, W, H)
            _index(rng, canvas, r, s, ink, off, W, H)
    patch = _camera(rng, canvas, off, W, H, card_width)
    if quarter:
        patch = _quarter(rng, patch)
    return patch


def _quarter(rng: np.random.Generator, patch: np.ndarray) -> np.ndarray:
    """The patch turned a quarter either way (squeezed back to PATCH), or cut so half shows."""
    pw, ph = PATCH
    if rng.random() < 0.7:
        turned = cv2.rotate(patch, cv2.ROTATE_90_CLOCKWISE if rng.random() < 0.5 else cv2.ROTATE_90_COUNTERCLOCKWISE)
        return cv2.resize(turned, (pw, ph), interpolation=cv2.INTER_AREA)
    # the top of the index only, stretched: a rank with no suit under it
    top = patch[: ph // 2]
    return cv2.resize(top, (pw, ph), interpolation=cv2.INTER_LINEAR)


def _face_content(
    rng: np.random.Generator,
    canvas: np.ndarray,
    rank: str,
    suit: str,
    ink: np.ndarray,
    off: np.ndarray,
    W: float,
    H: float,
) -> None:
    """What a face shows next to its index: a court card's frame and art (often with a big
    suit pip inside the frame's top corner), a numeral's first big pips, an ace's lettering."""
    if rank in ("J", "Q", "K"):
        fx = off[0] + rng.uniform(0.15, 0.26) * W
        fy = off[1] + rng.uniform(0.04, 0.14) * H
        _court_art(rng, canvas, fx, fy, ink)
        if rng.random() < 0.6:
            pip = pip_glyph(rng, suit)
            pw = rng.uniform(0.12, 0.22) * W
            _paste(
                canvas,
                pip,
                ink,
                fx + rng.uniform(0.0, 0.05) * W,
                fy + rng.uniform(0.0, 0.04) * H,
                pw,
                pw * pip.shape[0] / pip.shape[1],
            )
    elif rank != "A" and rng.random() < 0.92:
        pip = pip_glyph(rng, suit)
        pw = rng.uniform(0.15, 0.28) * W
        ph = pw * pip.shape[0] / pip.shape[1]
        px = off[0] + rng.uniform(0.15, 0.3) * W
        py = off[1] + rng.uniform(0.03, 0.18) * H
        _paste(canvas, pip, ink, px, py, pw, ph)
        if rng.random() < 0.3:  # the centre column's top pip (a 3, a 5...)
            _paste(canvas, pip, ink, off[0] + 0.5 * W - pw / 2, py, pw, ph)
        if rng.random() < 0.5:  # the next pip down the column
            _paste(canvas, pip, ink, px, py + rng.uniform(0.2, 0.3) * H, pw, ph)
    elif rank == "A" and rng.random() < 0.15:  # an ace's trademark lettering above the big pip
        for _ in range(int(rng.integers(2, 6))):
            x = off[0] + rng.uniform(0.2, 0.45) * W
            y = off[1] + rng.uniform(0.05, 0.4) * H
            cv2.line(canvas, (int(x), int(y)), (int(x + rng.uniform(5, 30)), int(y)), (30, 30, 30), 2, cv2.LINE_AA)


def _index(
    rng: np.random.Generator,
    canvas: np.ndarray,
    rank: str,
    suit: str,
    ink: np.ndarray,
    off: np.ndarray,
    W: float,
    H: float,
) -> None:
    """The index: the rank glyph over the suit pip, centred on one column near the corner."""
    g = rank_glyph(rng, rank)
    rh = rng.uniform(0.075, 0.13) * H
    rw = rh * g.shape[1] / g.shape[0] * rng.uniform(0.75, 1.2)
    if rank == "10":
        rw *= rng.uniform(0.55, 1.0)
    rw = min(rw, 0.2 * W)
    cx = off[0] + rng.uniform(0.07, 0.13) * W
    top = off[1] + rng.uniform(0.02, 0.06) * H
    cx = max(cx, off[0] + rw / 2 + 0.015 * W)
    rank_ink = ink if rng.random() < 0.95 else _ink(rng, suit in RED_SUITS)
    _paste(canvas, g, rank_ink, cx - rw / 2, top, rw, rh)
    p = pip_glyph(rng, suit)
    pw = rng.uniform(0.55, 0.95) * rh * rng.uniform(0.85, 1.1)
    ph = pw * p.shape[0] / p.shape[1]
    gap = rng.uniform(0.0, 0.025) * H
    _paste(canvas, p, ink, cx - pw / 2 + rng.normal(0, 0.005) * W, top + rh + gap, pw, ph)


def _camera(
    rng: np.random.Generator, canvas: np.ndarray, off: np.ndarray, W: float, H: float, card_width: float | None
) -> np.ndarray:
    """The canvas as the reader's patch of a rectified photo: corner error, resolution, blur,
    light, noise, JPEG."""
    pw, ph = PATCH
    cx_frac, cy_frac = CORNER
    # where the rectified card's corner region lies on the true card (fractions of W, H)
    err = rng.normal(0, 1, 8) * np.array([0.025, 0.02, 0.03, 0.03, 0.03, 0.03, 0.02, 0.02])
    if rng.random() < 0.15:
        err *= 2.0
    sx = 1 + err[2]
    sy = 1 + err[3]
    rot = err[4] * 1.5
    shear = err[5]
    # rectified fraction (u, v) -> true fraction
    a = np.array(
        [
            [sx * math.cos(rot), -math.sin(rot) + shear, err[0]],
            [math.sin(rot), sy * math.cos(rot), err[1]],
            [err[6], err[7], 1],
        ]
    )
    a[2, :2] *= 0.3
    # patch pixel -> rectified fraction
    p2f = np.array([[cx_frac / pw, 0, 0], [0, cy_frac / ph, 0], [0, 0, 1]])
    f2c = np.array([[W, 0, off[0]], [0, H, off[1]], [0, 0, 1]])
    wcam = card_width if card_width is not None else float(np.exp(rng.uniform(np.log(45), np.log(260))))
    # the patch at the camera's resolution first
    cam_w = max(4, int(round(wcam * cx_frac)))
    cam_h = max(6, int(round(cam_w * ph / pw)))
    scale = np.array([[pw / cam_w, 0, 0], [0, ph / cam_h, 0], [0, 0, 1]])
    m = f2c @ a @ p2f @ scale  # camera-patch pixel -> canvas pixel
    img = canvas
    # anti-alias before shrinking
    shrink = (W * cx_frac) / cam_w
    if shrink > 1.5:
        img = cv2.GaussianBlur(img, (0, 0), 0.45 * shrink)
    small = cv2.warpPerspective(
        img.astype(np.float32),
        m,
        (cam_w, cam_h),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REFLECT,
    )
    # light on the card: a gradient, sometimes a shadow's edge, a colour cast
    hh, ww = small.shape[:2]
    yy, xx = np.mgrid[0:hh, 0:ww].astype(np.float32)
    grad = 1 + rng.uniform(-0.4, 0.4) * (xx / ww - 0.5) + rng.uniform(-0.4, 0.4) * (yy / hh - 0.5)
    if rng.random() < 0.2:
        ang = rng.uniform(0, np.pi)
        d = (xx - ww * rng.uniform(0, 1)) * math.cos(ang) + (yy - hh * rng.uniform(0, 1)) * math.sin(ang)
        grad = grad * np.where(d > 0, rng.uniform(0.45, 0.85), 1.0)
    small = small * grad[..., None] * rng.uniform(0.93, 1.07, 3).astype(np.float32)
    r = rng.random()
    if r < 0.35:
        small = cv2.GaussianBlur(small, (0, 0), rng.uniform(0.3, 1.0) * max(1.0, cam_w / 30))
    elif r < 0.45:
        k = int(rng.integers(2, 5))
        kern = np.zeros((2 * k + 1, 2 * k + 1), np.float32)
        kern[k, :] = 1
        rm = cv2.getRotationMatrix2D((k, k), rng.uniform(0, 180), 1.0)
        kern = np.asarray(cv2.warpAffine(kern, rm, kern.shape[::-1]), np.float32)
        small = cv2.filter2D(small, -1, kern / max(float(kern.sum()), 1e-6))
    mean = small.mean()
    small = (small - mean) * rng.uniform(0.7, 1.15) + mean + rng.uniform(-35, 20)
    small = small + _noise(rng, small.shape, rng.uniform(0.5, 9))
    small = np.clip(small, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 95))])
        if ok:
            small = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return cv2.resize(small, (pw, ph), interpolation=cv2.INTER_LINEAR if cam_w < pw else cv2.INTER_AREA)


def sample(rng: np.random.Generator, none_share: float = 0.12) -> tuple[np.ndarray, int, int]:
    """(patch, rank index, suit index): a random index corner, or (NONE, NONE) for a patch with
    no index, `none_share` of the time."""
    if rng.random() < none_share:
        return render_corner(rng, None, None), NONE, NONE
    r, s = int(rng.integers(len(RANKS))), int(rng.integers(len(SUITS)))
    return render_corner(rng, RANKS[r], SUITS[s]), r, s


def batch(seed: int, n: int, none_share: float = 0.12) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """n samples from `seed`: patches (n, h, w, 3) uint8, ranks (n,), suits (n,) (NONE: -1)."""
    rng = np.random.default_rng(seed)
    pw, ph = PATCH
    xs = np.empty((n, ph, pw, 3), np.uint8)
    rs = np.empty(n, np.int64)
    ss = np.empty(n, np.int64)
    for i in range(n):
        xs[i], rs[i], ss[i] = sample(rng, none_share)
    return xs, rs, ss
