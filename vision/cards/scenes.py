"""Synthetic card scenes for the card detector, with YOLO pose labels (`scripts/make_card_dataset.py`).

Cards of our own rendered decks (vision/cards/render.py) on many backgrounds (procedural felt,
wood, cloth, noise, marble; scikit-image's texture photos when it is installed), under a camera
perspective, rotation, lighting and colour shifts, blur, noise and JPEG; scattered cards, piles,
rows with overlapping cards, and fans of 3-4 cards held in a hand (the middle one upside down
sometimes; fans closed so that only one or two cards show), face-up and face-down cards.

Label per card (YOLO pose, normalised to the image):
    class cx cy w h  x0 y0 v0  x1 y1 v1  x2 y2 v2  x3 y3 v3
class 0 card_face_up, 1 card_face_down; the box is around the whole card (hidden parts too);
corners top-left, top-right, bottom-right, bottom-left of the upright face, v=2 visible, v=1
hidden under another card, a hand or a coin or phone lying on it. 180-degree-symmetric faces
and backs are canonicalised: corners 0-1 are the short edge whose midpoint is nearer the image
top (see docs/card-detector.md).

Held out: the design `outline` and the backgrounds in TEST_BACKGROUNDS appear only in the test
split. In training and validation scenes, RANDOM_DESIGN_SHARE of the scenes use a design drawn
by `render.random_design`, so the detector meets many printings, never the held-out one's. The
test split consumes the random stream exactly as before, so its scenes do not change.
`write_dataset` writes OUT/images/{train,val,test}, OUT/labels/..., OUT/data.yaml, OUT/meta.json
and OUT/cards/<split>.jsonl: per image, the card id, deck and design of each label line in order
(ground truth for identification).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shutil
from pathlib import Path

import cv2
import numpy as np

from vision.cards import decks as D
from vision.cards import render as R

CLASSES = ("card_face_up", "card_face_down")
TRAIN_BACKGROUNDS = ("felt", "wood", "stripes", "noise", "gradient", "skimage_brick", "skimage_grass")
TEST_BACKGROUNDS = ("marble", "plaid", "skimage_gravel")
# `--varied` training scenes add these backgrounds: clutter, dots, a colour mosaic and photographs
# (scikit-image's sample photos, cropped, scaled and turned), none of them the held-out kinds
VARIED_BACKGROUNDS = ("clutter", "dots", "mosaic", "skimage_photo")
SKIMAGE_PHOTOS = (
    "astronaut",
    "camera",
    "chelsea",
    "coffee",
    "coins",
    "hubble_deep_field",
    "immunohistochemistry",
    "moon",
    "rocket",
    "retina",
    "cell",
    "clock",
    "horse",
)
PX_PER_MM = 4.0  # resolution of the rendered faces that are warped into scenes
MIN_VISIBLE = 0.2  # a card less visible than this is not labelled
RANDOM_DESIGN_SHARE = 0.6  # training/validation scenes drawn in a random design


# --- backgrounds ---------------------------------------------------------------------------------
def _smooth_noise(rng, h, w, scale):
    small = rng.random((max(2, h // scale), max(2, w // scale))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def fractal(rng, h, w, octaves=4, base=64):
    out = np.zeros((h, w), np.float32)
    amp, total = 1.0, 0.0
    for o in range(octaves):
        out += amp * _smooth_noise(rng, h, w, max(2, base >> o))
        total += amp
        amp *= 0.5
    out /= total
    return (out - out.min()) / (np.ptp(out) + 1e-6)


def _colour(rng, lo=30, hi=220):
    return np.array(rng.integers(lo, hi, 3), np.float32)


_SKIMAGE: dict[str, np.ndarray] | None = None
_PHOTOS: list[np.ndarray] | None = None


def _skimage_bgr(names) -> list[np.ndarray]:
    """scikit-image's sample images, BGR uint8; none when it is missing or its data unreadable
    (procedural backgrounds only)."""
    try:
        from skimage import data  # deferred: optional (training requirements) and slow to import

        out = []
        for name in names:
            img = np.asarray(getattr(data, name)())
            if img.ndim == 2:
                out.append(cv2.cvtColor(img.astype(np.uint8), cv2.COLOR_GRAY2BGR))
            else:
                out.append(cv2.cvtColor(img[..., :3].astype(np.uint8), cv2.COLOR_RGB2BGR))
        return out
    except Exception:
        return []


def _skimage_textures() -> dict[str, np.ndarray]:
    global _SKIMAGE
    if _SKIMAGE is None:
        names = ("brick", "grass", "gravel")
        _SKIMAGE = dict(zip(names, _skimage_bgr(names)))
    return _SKIMAGE


def procedural_only() -> None:
    """Leave scikit-image's backgrounds out from now on: the same scenes whether or not it is installed."""
    global _SKIMAGE, _PHOTOS
    _SKIMAGE, _PHOTOS = {}, []


def has_skimage() -> bool:
    """Whether scikit-image's photographed backgrounds are at hand (installed, its data readable)."""
    return bool(_skimage_textures())


def _skimage_photos() -> list[np.ndarray]:
    global _PHOTOS
    if _PHOTOS is None:
        _PHOTOS = _skimage_bgr(SKIMAGE_PHOTOS)
    return _PHOTOS


# Real table surfaces (crops of real photos away from their cards: patterned cloth, newspaper,
# carpet, wood), registered by `use_real_backgrounds` for training scenes only; none by default,
# so a seed gives the scenes it always gave.
REAL_BACKGROUND = "real_photo"
_REAL: list[np.ndarray] = []
_REAL_SHARE = 0.0


def _register(pool: list[np.ndarray], images: list[np.ndarray], share: float) -> float:
    """Fill `pool` with the usable BGR `images` (at least 16 px a side); the share that applies."""
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"share must be between 0 and 1, not {share}")
    pool[:] = [np.ascontiguousarray(c) for c in images if c is not None and c.ndim == 3 and min(c.shape[:2]) >= 16]
    return share if pool else 0.0


def use_real_backgrounds(crops: list[np.ndarray], share: float = 0.5) -> None:
    """Draw `share` of the training and validation scenes on these real surfaces (BGR crops);
    an empty list stops it. The test split never uses them."""
    global _REAL_SHARE
    _REAL_SHARE = _register(_REAL, crops, share)


_REAL_FACES: list[np.ndarray] = []
_REAL_FACE_SHARE = 0.0
REAL_FACE_DECK = "french52"  # the deck the real faces are of: their size on the table
REAL_FACE_CLOSE = 0.5  # share of the real-face scenes whose cards are 120-300 px high
REAL_FACE_DESIGN = "real"  # the design recorded for a card drawn with a real face (its id is not known)


def use_real_faces(faces: list[np.ndarray], share: float = 0.5) -> None:
    """Draw `share` of the face-up cards of training and validation scenes with these real faces
    (BGR, upright, rectified from real photos: `real_mix.real_faces`), in scenes of the French
    deck; an empty list stops it. The test split never uses them."""
    global _REAL_FACE_SHARE
    _REAL_FACE_SHARE = _register(_REAL_FACES, faces, share)


def real_face(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """A real face resized to `size` (width, height), turned 180 degrees half the time."""
    face = _REAL_FACES[int(rng.integers(len(_REAL_FACES)))]
    face = cv2.resize(face, size, interpolation=cv2.INTER_AREA)
    return face[::-1, ::-1].copy() if rng.random() < 0.5 else face


def real_surface(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A real surface crop turned, scaled and mirrored into (h, w), its texture near the scale it
    was photographed at (reflected where the crop is smaller than the frame)."""
    crop = _REAL[int(rng.integers(len(_REAL)))].astype(np.float32)
    ch, cw = crop.shape[:2]
    s = rng.uniform(0.8, 2.2)  # the real photos are about 500 px high, the scenes 640 px wide
    M: np.ndarray = cv2.getRotationMatrix2D(
        (cw / 2, ch / 2), float(rng.choice([0, 90, 180, 270]) + rng.uniform(-20, 20)), s
    )
    M[:, 2] += (w / 2 - cw / 2, h / 2 - ch / 2)
    img = cv2.warpAffine(crop, M, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT_101)
    return img * rng.uniform(0.75, 1.2, 3).astype(np.float32)


def available_backgrounds(split: str, varied: bool = False) -> tuple[str, ...]:
    names: tuple[str, ...] = TEST_BACKGROUNDS if split == "test" else TRAIN_BACKGROUNDS
    if varied and split != "test":
        names = names + VARIED_BACKGROUNDS
    tex = _skimage_textures()
    return tuple(
        n for n in names if not n.startswith("skimage_") or (n == "skimage_photo" and _skimage_photos()) or n[8:] in tex
    )


def background(kind: str, rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    if kind == "felt":
        base = _colour(rng, 20, 160) * np.array([rng.uniform(0.5, 1.2), 1, rng.uniform(0.5, 1.2)])
        n = rng.normal(0, rng.uniform(3, 10), (h, w, 1)).astype(np.float32)
        img = base[None, None] + n + (fractal(rng, h, w, 3, 128)[..., None] - 0.5) * 30
    elif kind == "wood":
        c1, c2 = (
            np.array([40, 80, 140], np.float32) * rng.uniform(0.6, 1.3),
            np.array([70, 130, 190], np.float32) * rng.uniform(0.6, 1.3),
        )
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        ang = rng.uniform(0, math.pi)
        u = x * math.cos(ang) + y * math.sin(ang)
        warp = fractal(rng, h, w, 3, 96) * rng.uniform(10, 40)
        t = (np.sin((u + warp) / rng.uniform(3, 9)) + 1) / 2
        t = t ** rng.uniform(0.5, 2)
        img = c1 * t[..., None] + c2 * (1 - t[..., None])
        img += rng.normal(0, 4, (h, w, 1)).astype(np.float32)
    elif kind == "stripes":
        c1, c2 = _colour(rng), _colour(rng)
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        period = rng.uniform(6, 40)
        ang = rng.uniform(0, math.pi)
        t = ((x * math.cos(ang) + y * math.sin(ang)) / period) % 1.0 < rng.uniform(0.3, 0.7)
        img = np.where(t[..., None], c1, c2).astype(np.float32)
        img = cv2.GaussianBlur(img, (0, 0), 0.8) + rng.normal(0, 5, (h, w, 1)).astype(np.float32)
    elif kind == "noise":
        c1, c2 = _colour(rng), _colour(rng)
        t = fractal(rng, h, w, 5, int(rng.integers(16, 128)))[..., None]
        img = c1 * t + c2 * (1 - t)
    elif kind == "gradient":
        c1, c2 = _colour(rng), _colour(rng)
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        ang = rng.uniform(0, 2 * math.pi)
        t = x * math.cos(ang) + y * math.sin(ang)
        t = ((t - t.min()) / (np.ptp(t) + 1e-6))[..., None]
        img = c1 * t + c2 * (1 - t) + rng.normal(0, 3, (h, w, 1)).astype(np.float32)
    elif kind == "marble":
        c1, c2 = _colour(rng, 150, 250), _colour(rng, 40, 160)
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        turb = fractal(rng, h, w, 5, 64) * rng.uniform(4, 10)
        t = np.abs(np.sin(x / rng.uniform(20, 60) + y / rng.uniform(30, 90) + turb)) ** 0.3
        img = c1 * t[..., None] + c2 * (1 - t[..., None])
    elif kind == "plaid":
        c1, c2, c3 = _colour(rng), _colour(rng), _colour(rng)
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        p = rng.uniform(12, 50)
        a = ((x / p) % 1.0 < 0.4)[..., None]
        b = ((y / p) % 1.0 < 0.4)[..., None]
        img = np.where(a & b, c3, np.where(a | b, (c1 + c3) / 2, c2)).astype(np.float32)
        img = cv2.GaussianBlur(img, (0, 0), 1.0) + rng.normal(0, 6, (h, w, 1)).astype(np.float32)
    elif kind == "clutter":  # a table with things on it: sheets, books, cups, pens
        img = background(str(rng.choice(["felt", "wood", "gradient"])), rng, h, w).astype(np.float32)
        for _ in range(int(rng.integers(3, 12))):
            col = tuple(float(v) for v in _colour(rng, 10, 245))
            c = (float(rng.uniform(0, w)), float(rng.uniform(0, h)))
            r = rng.random()
            if r < 0.45:
                size = (float(rng.uniform(0.05, 0.5) * w), float(rng.uniform(0.05, 0.5) * h))
                cv2.fillPoly(
                    img, [cv2.boxPoints((c, size, float(rng.uniform(0, 180)))).astype(np.int32)], col, cv2.LINE_AA
                )
            elif r < 0.75:
                ax = (int(rng.uniform(0.02, 0.15) * w), int(rng.uniform(0.02, 0.15) * w))
                cv2.ellipse(img, (int(c[0]), int(c[1])), ax, float(rng.uniform(0, 180)), 0, 360, col, -1, cv2.LINE_AA)
            else:
                p2 = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
                cv2.line(img, (int(c[0]), int(c[1])), p2, col, int(rng.integers(1, 6)), cv2.LINE_AA)
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 2.0))
    elif kind == "dots":
        c1, c2 = _colour(rng), _colour(rng)
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        p, ang = rng.uniform(8, 40), rng.uniform(0, math.pi)
        u, v = x * math.cos(ang) + y * math.sin(ang), -x * math.sin(ang) + y * math.cos(ang)
        d = np.hypot((u / p) % 1.0 - 0.5, (v / p) % 1.0 - 0.5)
        img = np.where((d < rng.uniform(0.15, 0.4))[..., None], c1, c2).astype(np.float32)
        img = cv2.GaussianBlur(img, (0, 0), 0.8) + rng.normal(0, 5, (h, w, 1)).astype(np.float32)
    elif kind == "mosaic":
        k = int(rng.integers(3, 7))
        cols = np.stack([_colour(rng) for _ in range(k)])
        t = np.minimum((fractal(rng, h, w, 3, int(rng.integers(24, 96))) * k).astype(np.int32), k - 1)
        img = cols[t] + rng.normal(0, 4, (h, w, 1)).astype(np.float32)
    elif kind == "skimage_photo":
        photos = _skimage_photos()
        photo = photos[int(rng.integers(len(photos)))]
        ph, pw = photo.shape[:2]
        s = max(w / pw, h / ph) * rng.uniform(1.0, 2.5)
        M: np.ndarray = cv2.getRotationMatrix2D((pw / 2, ph / 2), float(rng.uniform(-180, 180)), s)
        M[:, 2] += (w / 2 - pw / 2 + rng.uniform(-0.3, 0.3) * w, h / 2 - ph / 2 + rng.uniform(-0.3, 0.3) * h)
        img = cv2.warpAffine(photo, M, (w, h), borderMode=cv2.BORDER_REFLECT).astype(np.float32)
        img = img * rng.uniform(0.7, 1.2, 3).astype(np.float32)
    elif kind.startswith("skimage_"):
        tex: np.ndarray = _skimage_textures()[kind[8:]].astype(np.float32)
        th, tw = tex.shape[:2]
        s = rng.uniform(0.5, 2.0)
        tex = cv2.resize(tex, (max(8, int(tw * s)), max(8, int(th * s))))
        reps = (h // tex.shape[0] + 2, w // tex.shape[1] + 2, 1)
        big = np.tile(tex, reps)
        y0, x0 = int(rng.integers(0, tex.shape[0])), int(rng.integers(0, tex.shape[1]))
        img = big[y0 : y0 + h, x0 : x0 + w] * rng.uniform(0.7, 1.2, 3).astype(np.float32)
    else:
        raise ValueError(f"unknown background {kind!r}")
    return np.clip(img, 0, 255).astype(np.uint8)


# --- card placement ------------------------------------------------------------------------------
@dataclasses.dataclass
class Placed:
    card: D.Card
    face_up: bool
    design: str | R.Design
    cx: float
    cy: float
    angle: float  # degrees, counter-clockwise in image terms
    height: float  # card height in pixels on the table plane


def _affine(cw, ch, p: Placed) -> np.ndarray:
    s = p.height / ch
    a = math.radians(p.angle)
    ca, sa = math.cos(a) * s, math.sin(a) * s
    # card pixel (u, v) -> table (x, y): rotate about the card centre, scale, translate
    m = np.array([[ca, sa, 0], [-sa, ca, 0], [0, 0, 1]], np.float64)
    t0 = np.array([[1, 0, -cw / 2], [0, 1, -ch / 2], [0, 0, 1]], np.float64)
    t1 = np.array([[1, 0, p.cx], [0, 1, p.cy], [0, 0, 1]], np.float64)
    return t1 @ m @ t0


def _perspective(rng, w, h, strength):
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    jit = rng.uniform(-strength, strength, (4, 2)) * np.float32([w, h])
    # a camera tilt: the far edge (top) shrinks more often than not
    shrink = rng.uniform(0, strength) * w
    jit[0, 0] += shrink
    jit[1, 0] -= shrink
    return cv2.getPerspectiveTransform(src, (src + jit).astype(np.float32)).astype(np.float64)


def _pick_card(rng, deck_name: str) -> D.Card:
    cards = D.deck(deck_name)
    return cards[int(rng.integers(len(cards)))]


def _back(deck_name: str, card: D.Card | None, rng) -> D.Card:
    bs = D.backs(deck_name)
    if deck_name == "beccato" and card is not None:
        kind = card.kind if card.kind in D.BECCATO_BACK_KINDS else "chicken"
        return D.card("beccato", f"back:beccato:{kind}")
    return bs[int(rng.integers(len(bs)))]


def layout(
    rng, w, h, deck_name, designs, smallest: float = 45.0, tricks: bool = False
) -> tuple[list[Placed], list[dict]]:
    """Cards on the table plane, bottom first, and hands (occluders) to draw on top; card heights
    log-uniform from `smallest` pixels to 300 (or three quarters of the image).

    `tricks` adds a fifth of scenes with a trick tossed onto the centre: 2-4 face-up cards
    at any angle, each lying partly over the one before."""
    if tricks and rng.random() < 0.2:
        kind = "trick"
    else:
        kind = rng.choice(["scatter", "fan", "pile", "row", "mixed"], p=[0.3, 0.3, 0.12, 0.13, 0.15])
    placed: list[Placed] = []
    hands: list[dict] = []
    design = designs[int(rng.integers(len(designs)))]
    base_h = float(math.exp(rng.uniform(math.log(smallest), math.log(min(h * 0.75, 300)))))

    def new(face_up=True, **kw):
        c = _pick_card(rng, deck_name)
        return Placed(c, face_up, design, **kw)

    def scatter(n):
        for _ in range(n):
            hh = base_h * rng.uniform(0.85, 1.15)
            placed.append(
                new(
                    face_up=bool(rng.random() < 0.75),
                    cx=rng.uniform(0.1, 0.9) * w,
                    cy=rng.uniform(0.12, 0.88) * h,
                    angle=rng.uniform(-180, 180),
                    height=hh,
                )
            )

    def fan():
        n = int(rng.choice([3, 4]))
        closed = rng.random() < 0.25  # only one or two cards show
        spread = rng.uniform(1.5, 4) if closed else rng.uniform(8, 22)
        base = rng.uniform(-35, 35) + (180 if rng.random() < 0.1 else 0)
        px, py = rng.uniform(0.25, 0.75) * w, rng.uniform(0.5, 0.9) * h
        hh = base_h
        upside = int(rng.integers(n)) if rng.random() < 0.4 else -1
        if n == 3 and rng.random() < 0.5 and upside >= 0:
            upside = 1  # the middle one
        for i in range(n):
            ang = base + (i - (n - 1) / 2) * spread
            a = math.radians(ang)
            r = hh * 0.38
            cx, cy = px - math.sin(a) * r, py - math.cos(a) * r
            angle = ang + (180 if i == upside else 0)
            placed.append(Placed(_pick_card(rng, deck_name), True, design, cx, cy, angle, hh))
        # the holding hand covers the lower part of the fan
        hands.append(
            {
                "x": px + rng.uniform(-0.1, 0.1) * hh,
                "y": py + hh * rng.uniform(0.02, 0.15),
                "r": hh * rng.uniform(0.3, 0.45),
                "angle": base + rng.uniform(-20, 20),
            }
        )

    def pile():
        n = int(rng.integers(3, 9))
        cx, cy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
        ang = rng.uniform(-180, 180)
        face_up = bool(rng.random() < 0.35)
        for _ in range(n):
            placed.append(
                new(
                    face_up=face_up,
                    cx=cx + rng.normal(0, 1.5),
                    cy=cy + rng.normal(0, 1.5),
                    angle=ang + rng.normal(0, 4),
                    height=base_h,
                )
            )

    def row():
        n = int(rng.integers(2, 6))
        ang = rng.uniform(-20, 20) + (90 if rng.random() < 0.2 else 0)
        a = math.radians(ang)
        gap = base_h * rng.uniform(0.75, 1.0)
        x0, y0 = rng.uniform(0.15, 0.4) * w, rng.uniform(0.25, 0.75) * h
        for i in range(n):
            cx, cy = x0 + math.cos(a) * gap * i, y0 - math.sin(a) * gap * i
            placed.append(new(face_up=True, cx=cx, cy=cy, angle=ang + rng.normal(0, 3), height=base_h))
            if rng.random() < 0.6:  # an egg (or another card) laid half over it
                placed.append(
                    new(
                        face_up=True,
                        cx=cx + rng.normal(0, 0.05) * base_h,
                        cy=cy + base_h * rng.uniform(0.3, 0.5),
                        angle=ang + rng.normal(0, 6),
                        height=base_h * rng.uniform(0.9, 1.0),
                    )
                )

    def trick():
        n = int(rng.integers(2, 5))
        cx, cy = rng.uniform(0.25, 0.75) * w, rng.uniform(0.25, 0.75) * h
        for _ in range(n):
            placed.append(
                new(
                    face_up=bool(rng.random() < 0.9),
                    cx=cx,
                    cy=cy,
                    angle=rng.uniform(-180, 180),
                    height=base_h * rng.uniform(0.95, 1.05),
                )
            )
            step, a = base_h * rng.uniform(0.15, 0.6), rng.uniform(0, 2 * math.pi)
            cx, cy = cx + math.cos(a) * step, cy + math.sin(a) * step

    if kind == "trick":
        trick()
        scatter(int(rng.integers(0, 3)))
    elif kind == "scatter":
        scatter(int(rng.integers(1, 7)))
    elif kind == "fan":
        fan()
        if rng.random() < 0.5:
            scatter(int(rng.integers(1, 3)))
    elif kind == "pile":
        pile()
        scatter(int(rng.integers(0, 4)))
    elif kind == "row":
        row()
    else:
        pile()
        fan()
        scatter(int(rng.integers(0, 3)))
    if rng.random() < 0.15 and placed:  # a passing hand over scattered cards
        p = placed[int(rng.integers(len(placed)))]
        hands.append(
            {
                "x": p.cx + rng.normal(0, 0.3) * p.height,
                "y": p.cy + rng.normal(0, 0.3) * p.height,
                "r": p.height * rng.uniform(0.25, 0.4),
                "angle": rng.uniform(-180, 180),
            }
        )
    return placed, hands


# --- drawing -------------------------------------------------------------------------------------
def _hand_mask(h, w, hand, P) -> np.ndarray:
    """A palm with four fingers and a thumb, drawn on the table plane then projected."""
    m = np.zeros((h, w), np.uint8)
    cx, cy, r, ang = hand["x"], hand["y"], hand["r"], math.radians(hand["angle"])
    pts = []
    for t in np.linspace(0, 2 * math.pi, 40, endpoint=False):
        x, y = math.cos(t) * r * 0.8, math.sin(t) * r
        pts.append((x, y))
    polys = [pts]
    for k in range(4):  # fingers reaching up
        fx = (k - 1.5) * r * 0.38
        polys.append(
            [
                (fx - r * 0.16, -r * 0.6),
                (fx + r * 0.16, -r * 0.6),
                (fx + r * 0.14, -r * (1.5 + 0.2 * (k in (1, 2)))),
                (fx - r * 0.14, -r * (1.5 + 0.2 * (k in (1, 2)))),
            ]
        )
    polys.append([(r * 0.6, -r * 0.1), (r * 0.8, r * 0.2), (r * 1.5, -r * 0.6), (r * 1.3, -r * 0.85)])  # thumb
    ca, sa = math.cos(ang), math.sin(ang)
    for poly in polys:
        q = np.array([[cx + x * ca + y * sa, cy - x * sa + y * ca, 1.0] for x, y in poly]).T
        q = P @ q
        q = (q[:2] / q[2]).T
        cv2.fillPoly(m, [np.round(q).astype(np.int32)], (255,), cv2.LINE_AA)
    return m


def _skin(rng):
    tone = rng.uniform(0, 1)
    dark, light = np.array([50, 80, 120]), np.array([170, 195, 235])
    return (dark + (light - dark) * tone).astype(np.float32)


def _distractors(rng, img: np.ndarray, owner: np.ndarray) -> None:
    """Coins and phones lying on the table, drawn into `img`; what they cover is no card's in
    `owner` (-3), so a card under one is that much less visible and its corners there are
    hidden."""
    h, w = owner.shape
    for _ in range(int(rng.integers(0, 3))):
        covered = np.zeros((h, w), np.uint8)
        if rng.random() < 0.5:
            c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
            r = int(rng.uniform(5, 18))
            cv2.circle(img, c, r, tuple(float(v) for v in _colour(rng, 60, 200)), -1, cv2.LINE_AA)
            cv2.circle(covered, c, r, (255,), -1, cv2.LINE_AA)
        else:
            rect = (
                (float(rng.uniform(0, w)), float(rng.uniform(0, h))),
                (float(rng.uniform(20, 60)), float(rng.uniform(40, 110))),
                float(rng.uniform(0, 180)),
            )
            poly = [cv2.boxPoints(rect).astype(np.int32)]
            cv2.fillPoly(img, poly, tuple(float(v) for v in _colour(rng, 10, 70)), cv2.LINE_AA)
            cv2.fillPoly(covered, poly, (255,), cv2.LINE_AA)
        owner[covered > 0] = -3


def render_scene(
    rng: np.random.Generator,
    split: str,
    w: int = 640,
    h: int | None = None,
    deck_name: str | None = None,
    varied: bool = False,
):
    """One scene: (BGR image, labels [(cls, corners 4x2, vis[4])], info).

    `varied` (training and validation only): more backgrounds (VARIED_BACKGROUNDS), designs with
    paler or resized pips, smaller cards, steeper camera tilts and tricks tossed onto the centre
    (`layout`'s `tricks`). Without it a seed gives the scenes it always gave; the test split
    ignores it."""
    varied = varied and split != "test"
    if h is None:
        h = int(rng.choice([360, 480]))
    bgs = available_backgrounds(split, varied)
    if split != "test" and _REAL_SHARE and rng.random() < _REAL_SHARE:
        bg_kind = REAL_BACKGROUND
        img = real_surface(rng, h, w)
    else:
        bg_kind = bgs[int(rng.integers(len(bgs)))]
        img = background(bg_kind, rng, h, w).astype(np.float32)
    designs: tuple[str | R.Design, ...] = (R.HELD_OUT_DESIGN,) if split == "test" else R.TRAIN_DESIGNS
    if split != "test" and rng.random() < RANDOM_DESIGN_SHARE:
        designs = (R.random_design(rng, varied_pips=varied),)
    if deck_name is None and split != "test" and _REAL_FACE_SHARE:
        deck_name = REAL_FACE_DECK
    real_faces = split != "test" and _REAL_FACE_SHARE > 0 and deck_name == REAL_FACE_DECK
    if deck_name is None:
        deck_name = str(rng.choice(["beccato", "italian", "french52"], p=[0.45, 0.25, 0.3]))
    tilt = rng.uniform(0.0, 0.18)
    small = 45.0
    if varied:
        tilt = tilt if rng.random() < 0.6 else rng.uniform(0.12, 0.3)
        small = 45.0 if rng.random() < 0.6 else 28.0
    if real_faces and rng.random() < REAL_FACE_CLOSE:
        small = 120.0  # close up, as a phone photographs a pair of cards: where real cards break up
    P = _perspective(rng, w, h, tilt)
    empty = rng.random() < 0.04
    placed, hands = ([], []) if empty else layout(rng, w, h, deck_name, designs, small, tricks=varied)

    owner = np.full((h, w), -1, np.int32)
    kept: list[tuple] = []  # (index in owner map, corners, face_up, symmetric, card drawn, design)
    for p in placed:
        card = p.card if p.face_up else _back(deck_name, p.card, rng)
        design: str | R.Design
        if p.face_up and real_faces and rng.random() < _REAL_FACE_SHARE:
            # a real face: its corners are the labels' (a French face reads the same both ways up)
            face, design = real_face(rng, R.card_size_px(deck_name, PX_PER_MM)), REAL_FACE_DESIGN
        else:
            face, design = R.render_card(card, p.design, PX_PER_MM), p.design
        ch, cw = face.shape[:2]
        H = P @ _affine(cw, ch, p)
        corners = cv2.perspectiveTransform(np.array([[[0, 0], [cw, 0], [cw, ch], [0, ch]]], np.float32), H)[0]
        if (
            corners[:, 0].min() < 2
            or corners[:, 1].min() < 2
            or corners[:, 0].max() > w - 3
            or corners[:, 1].max() > h - 3
        ):
            continue
        x0, y0 = np.floor(corners.min(0)).astype(int)
        x1, y1 = np.ceil(corners.max(0)).astype(int) + 1
        T = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ H
        size = (x1 - x0, y1 - y0)
        warped = cv2.warpPerspective(face, T, size, flags=cv2.INTER_AREA if p.height < ch else cv2.INTER_LINEAR)
        mask = cv2.warpPerspective(R.card_mask((ch, cw), PX_PER_MM), T, size, flags=cv2.INTER_LINEAR)
        a = mask.astype(np.float32)[..., None] / 255.0
        # a soft shadow under the card
        sh = cv2.GaussianBlur(mask, (0, 0), max(1.0, p.height * 0.02)).astype(np.float32)[..., None] / 255.0
        dx, dy = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        sy0, sx0 = y0 + dy, x0 + dx
        sy1, sx1 = min(h, sy0 + size[1]), min(w, sx0 + size[0])
        img[sy0:sy1, sx0:sx1] *= 1 - 0.35 * sh[: sy1 - sy0, : sx1 - sx0]
        roi = img[y0:y1, x0:x1]
        roi[:] = roi * (1 - a) + warped.astype(np.float32) * a
        idx = len(kept)
        owner[y0:y1, x0:x1][mask > 127] = idx
        kept.append((idx, corners, p.face_up, card.symmetric, card, design))
    for hand in hands:
        m = _hand_mask(h, w, hand, P)
        a = cv2.GaussianBlur(m, (3, 3), 0).astype(np.float32)[..., None] / 255.0
        skin = _skin(rng)
        shade = fractal(rng, h, w, 2, 64)[..., None] * 40 - 20
        img = img * (1 - a) + (skin + shade) * a
        owner[m > 127] = -2
    _distractors(rng, img, owner)
    labels = []
    ids = []
    for idx, corners, face_up, symmetric, card, design in kept:
        area = cv2.contourArea(corners.astype(np.float32))
        visible = float((owner == idx).sum()) / max(area, 1.0)
        if visible < MIN_VISIBLE:
            continue
        c = corners.copy()
        if symmetric:
            top = (c[0, 1] + c[1, 1]) / 2
            bottom = (c[2, 1] + c[3, 1]) / 2
            if bottom < top:
                c = c[[2, 3, 0, 1]]
        centre = c.mean(0)
        vis = []
        for k in range(4):
            q = c[k] + (centre - c[k]) * 0.06  # just inside the rounded corner
            qx, qy = int(np.clip(q[0], 0, w - 1)), int(np.clip(q[1], 0, h - 1))
            vis.append(2 if owner[qy, qx] == idx else 1)
        labels.append((0 if face_up else 1, c, vis))
        ids.append(
            {
                "id": None if design == REAL_FACE_DESIGN else card.id,
                "deck": card.deck,
                "design": getattr(design, "name", design),
                "symmetric": card.symmetric,
                "visible": round(visible, 3),
            }
        )
    if rng.random() < 0.08 and labels:  # an annotation rectangle around a card, as on recorded video
        _, c, _ = labels[int(rng.integers(len(labels)))]
        col = (float(rng.uniform(0, 120)), float(rng.uniform(150, 255)), float(rng.uniform(0, 120)))
        cv2.polylines(img, [c.astype(np.int32)], True, col, int(rng.integers(1, 3)), cv2.LINE_AA)
    img = photometric(rng, img)
    info = {
        "background": bg_kind,
        "deck": deck_name,
        "design": designs[0] if split == "test" else "train",
        "cards": ids,
    }
    return img, labels, info


def photometric(rng, img: np.ndarray) -> np.ndarray:
    h, w = img.shape[:2]
    # lighting: a smooth gain field, a colour cast, contrast and brightness
    field = 1.0 + (fractal(rng, h, w, 2, 160) - 0.5) * rng.uniform(0, 0.8)
    img = img * field[..., None]
    img = img * rng.uniform(0.8, 1.15, 3).astype(np.float32)
    mean = img.mean()
    img = (img - mean) * rng.uniform(0.7, 1.25) + mean + rng.uniform(-35, 30)
    if rng.random() < 0.2:  # a glare spot
        gy, gx = rng.uniform(0, h), rng.uniform(0, w)
        y, x = np.ogrid[0:h, 0:w]
        g = np.exp(-((x - gx) ** 2 + (y - gy) ** 2) / (2 * (rng.uniform(0.05, 0.2) * w) ** 2))
        img = img + g[..., None].astype(np.float32) * rng.uniform(40, 120)
    img = np.clip(img, 0, 255)
    r = rng.random()
    if r < 0.3:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 1.8))
    elif r < 0.45:  # motion blur
        k = int(rng.integers(3, 10))
        kern: np.ndarray = np.zeros((k, k), np.float32)
        kern[k // 2, :] = 1.0 / k
        M = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
        kern = cv2.warpAffine(kern, M, (k, k))
        img = cv2.filter2D(img, -1, kern / max(kern.sum(), 1e-6))
    if rng.random() < 0.6:
        img = img + rng.normal(0, rng.uniform(2, 12), img.shape).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def yolo_line(cls: int, corners: np.ndarray, vis, w: int, h: int) -> str:
    x0, y0 = corners.min(0)
    x1, y1 = corners.max(0)
    vals = [(x0 + x1) / 2 / w, (y0 + y1) / 2 / h, (x1 - x0) / w, (y1 - y0) / h]
    for (x, y), v in zip(corners, vis):
        vals += [x / w, y / h, v]
    return f"{cls} " + " ".join(f"{v:.6f}" if not isinstance(v, int) else str(v) for v in vals)


def parse_label_line(line: str) -> tuple[int, np.ndarray, np.ndarray, list[int]]:
    """(class, box cx cy w h normalised, corners 4x2 normalised, visibilities)."""
    parts = line.split()
    cls = int(parts[0])
    box = np.array([float(v) for v in parts[1:5]])
    kp = np.array([float(v) for v in parts[5:17]]).reshape(4, 3)
    return cls, box, kp[:, :2], [int(v) for v in kp[:, 2]]


def link_test_split(out: Path, source: Path) -> None:
    """OUT's test split is SOURCE's (images, labels and the card index, linked, not copied): every
    model is measured on the same held-out scenes whatever data it was trained on."""
    source = source.resolve()
    parts = [Path("images/test"), Path("labels/test"), Path("cards/test.jsonl")]
    missing = [str(source / p) for p in parts if not (source / p).exists()]
    if missing:
        raise FileNotFoundError(f"--test-from {source}: no held-out split there ({', '.join(missing)})")
    for part in parts:
        link = out / part
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.is_symlink() or link.is_file():
            link.unlink()
        elif link.exists():
            shutil.rmtree(link)
        link.symlink_to(os.path.relpath(source / part, link.parent))


def write_dataset(
    out: Path,
    counts: dict[str, int],
    seed: int,
    width: int = 640,
    progress=True,
    varied: bool = False,
    test_from: Path | None = None,
) -> dict:
    from tqdm import tqdm  # deferred: a progress bar from the training requirements, not the package's

    out = out.resolve()
    if test_from is not None:
        if counts.get("test"):
            raise ValueError("a test split is either generated or linked from another dataset, not both")
        link_test_split(out, test_from)
    stats: dict = {"seed": seed, "width": width, "varied": varied, "splits": {}, "skimage": bool(_skimage_textures())}
    for s_i, (split, n) in enumerate(counts.items()):
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
        rng = np.random.default_rng([seed, s_i])
        n_cards, n_up = 0, 0
        bgs: dict[str, int] = {}
        (out / "cards").mkdir(parents=True, exist_ok=True)
        index = open(out / "cards" / f"{split}.jsonl", "w")
        for i in tqdm(range(n), desc=split, disable=not progress, mininterval=2.0):
            img, labels, info = render_scene(rng, split, width, varied=varied)
            name = f"{split}_{i:06d}"
            quality = int(rng.integers(35, 96))
            cv2.imwrite(str(out / "images" / split / f"{name}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, quality])
            hh, ww = img.shape[:2]
            (out / "labels" / split / f"{name}.txt").write_text(
                "".join(yolo_line(c, k, v, ww, hh) + "\n" for c, k, v in labels)
            )
            n_cards += len(labels)
            n_up += sum(1 for c, _, _ in labels if c == 0)
            bgs[info["background"]] = bgs.get(info["background"], 0) + 1
            index.write(json.dumps({"image": f"{name}.jpg", **info}) + "\n")
        index.close()
        stats["splits"][split] = {
            "images": n,
            "cards": n_cards,
            "face_up": n_up,
            "backgrounds": bgs,
            "designs": [R.HELD_OUT_DESIGN]
            if split == "test"
            else list(R.TRAIN_DESIGNS) + [f"random ({RANDOM_DESIGN_SHARE:.0%} of scenes)"],
        }
    yaml = (
        f"path: {out}\ntrain: images/train\nval: images/val\n"
        + ("test: images/test\n" if "test" in counts or test_from is not None else "")
        + "kpt_shape: [4, 3]\nflip_idx: [1, 0, 3, 2]\nnames:\n"
        + "".join(f"  {i}: {n}\n" for i, n in enumerate(CLASSES))
    )
    (out / "data.yaml").write_text(yaml)
    (out / "meta.json").write_text(json.dumps(stats, indent=1))
    return stats
