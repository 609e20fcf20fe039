"""Our own card faces and backs, drawn from the definitions in `vision.cards.decks`.

Every face is drawn here with OpenCV primitives (no copied art): big rank/suit indices in the
corners, a distinct colour and pattern per suit and per breed, and Beccato! faces that have a
clear top (a title banner above, the ground below) so a card held upside down can be read.

Several *designs* (styles) exist for every deck so that one can be held out of the detector's
training data: `TRAIN_DESIGNS` are used by the scene generator for training, `HELD_OUT_DESIGN`
only in its held-out split. `random_design(rng)` draws a new design (paper tint, font, stroke,
border, four-colour suits, index tabs, back colour and pattern) so the detector's training sees
many printings instead of two; it never draws the held-out design's outlined pips, font or
dotted back.

    img = render_card(card, design="classic", px_per_mm=8)   # BGR uint8, portrait
    mask = card_mask(img.shape[:2], px_per_mm)               # uint8 0/255, rounded corners

Only numpy and OpenCV are used, so the renderer runs in the runtime environment.
"""

from __future__ import annotations

import dataclasses
import math
import zlib
from functools import lru_cache

import cv2
import numpy as np

from referee.signal_cards import BY_ID, SIGNAL_CARDS
from vision.cards.decks import (
    BREEDS,
    CARD_SIZE_MM,
    GUILD_SYMBOLS,
    GUILDS,
    Card,
    backs,
    deck,
)

CORNER_RADIUS_MM = 3.0


@dataclasses.dataclass(frozen=True)
class Design:
    name: str
    paper: tuple[int, int, int]  # BGR
    font: int
    thick: float  # stroke scale
    border: tuple[int, int, int] | None
    four_colour: bool  # French suits in four colours instead of red/black
    outline_pips: bool  # pips drawn as outlines with a light fill
    back_colour: tuple[int, int, int]
    back_pattern: str  # one of BACK_PATTERNS
    index_box: bool  # indices on a coloured tab
    beccato_back_tint: float = 0.0  # Beccato! backs: how far their kind colour is pulled to back_colour
    pip_tone: float = 0.0  # filled pips printed this far towards white (a pale or faded print)
    pip_scale: float = 1.0  # pips this much larger or smaller than the standard layout's


DESIGNS: dict[str, Design] = {
    "classic": Design(
        "classic", (245, 248, 250), cv2.FONT_HERSHEY_SIMPLEX, 1.0, None, False, False, (40, 40, 170), "lattice", False
    ),
    "bold": Design(
        "bold", (225, 240, 245), cv2.FONT_HERSHEY_DUPLEX, 1.6, (60, 60, 60), True, False, (140, 70, 20), "rings", True
    ),
    "outline": Design(
        "outline",
        (255, 255, 255),
        cv2.FONT_HERSHEY_COMPLEX,
        1.2,
        (150, 120, 40),
        False,
        True,
        (40, 110, 30),
        "dots",
        False,
    ),
}
TRAIN_DESIGNS: tuple[str, ...] = ("classic", "bold")
HELD_OUT_DESIGN = "outline"
BACK_PATTERNS = ("lattice", "rings", "dots", "stripes", "checks", "plain", "waves", "diamonds")
_RANDOM_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_PLAIN)
_RANDOM_BACKS = tuple(p for p in BACK_PATTERNS if p != DESIGNS[HELD_OUT_DESIGN].back_pattern)


def _required(value: str | None, card: Card, what: str) -> str:
    """A field the card's kind always has (a suited card's suit, a chicken's breed)."""
    if value is None:
        raise ValueError(f"card {card.id!r} has no {what}")
    return value


def _hsv_bgr(h: float, s: float, v: float) -> tuple[int, int, int]:
    b, g, r = cv2.cvtColor(np.array([[[h, s, v]]], np.uint8), cv2.COLOR_HSV2BGR)[0, 0]
    return int(b), int(g), int(r)


def random_design(rng: np.random.Generator, varied_pips: bool = False) -> Design:
    """A design drawn at random for training scenes; never the held-out design's distinctive
    traits (outlined pips, its font, its dotted back). Designs are hashable, so renders cache.
    `varied_pips`: half the designs also print their (filled) pips paler and all of them a little
    larger or smaller (drawn after the rest, so the other traits of a seed's designs do not
    change)."""
    paper = _hsv_bgr(rng.uniform(0, 180), rng.uniform(0, 45), rng.uniform(205, 255))
    border = None if rng.random() < 0.4 else _hsv_bgr(rng.uniform(0, 180), rng.uniform(40, 255), rng.uniform(30, 170))
    back = _hsv_bgr(rng.uniform(0, 180), rng.uniform(60, 255), rng.uniform(40, 220))
    design = Design(
        name=f"random-{int(rng.integers(1 << 30)):08x}",
        paper=paper,
        font=int(_RANDOM_FONTS[int(rng.integers(len(_RANDOM_FONTS)))]),
        thick=float(rng.uniform(0.8, 1.9)),
        border=border,
        four_colour=bool(rng.random() < 0.4),
        outline_pips=False,
        back_colour=back,
        back_pattern=str(_RANDOM_BACKS[int(rng.integers(len(_RANDOM_BACKS)))]),
        index_box=bool(rng.random() < 0.4),
        beccato_back_tint=float(rng.uniform(0, 0.7)),
    )
    if varied_pips:
        tone = float(rng.uniform(0.0, 0.55)) if rng.random() < 0.5 else 0.0
        design = dataclasses.replace(design, pip_tone=tone, pip_scale=float(rng.uniform(0.8, 1.15)))
    return design


# --- colours (BGR) ----------------------------------------------------------------------------
BLACK = (25, 25, 25)
RED = (30, 30, 200)
FRENCH_COLOURS = {"S": BLACK, "H": RED, "D": RED, "C": BLACK}
FRENCH_FOUR = {"S": BLACK, "H": RED, "D": (190, 90, 10), "C": (30, 130, 30)}
ROBES = {"S": (110, 50, 30), "H": (40, 40, 190), "D": (20, 130, 230), "C": (40, 120, 40)}  # court robes
ITALIAN_COLOURS = {"C": (40, 40, 190), "D": (20, 150, 210), "S": (170, 90, 20), "B": (30, 110, 40)}
# per breed: (card background, body, pattern colour, pattern)
BREED_STYLE: dict[str, tuple[tuple[int, int, int], tuple[int, int, int], tuple[int, int, int], str]] = {
    "orloff": ((200, 225, 245), (40, 70, 150), (20, 30, 60), "speckle"),
    "padovana": ((235, 225, 200), (235, 235, 235), (60, 60, 60), "crest"),
    "brahma": ((210, 210, 230), (210, 210, 210), (40, 40, 40), "collar"),
    "cocincina": ((190, 230, 200), (90, 180, 235), (30, 110, 200), "stripes"),
    "livornese": ((245, 235, 215), (250, 250, 250), (180, 180, 180), "plain"),
    "moroseta": ((235, 210, 235), (245, 240, 250), (200, 170, 220), "fluffy"),
    "araucana": ((215, 240, 240), (130, 110, 90), (230, 230, 230), "tufts"),
    "sussex": ((200, 200, 200), (40, 50, 170), (240, 240, 240), "spots"),
    "serama": ((150, 210, 250), (30, 100, 200), (20, 40, 120), "rooster"),
}
GUILD_COLOURS = {"dollar": (40, 140, 40), "star": (30, 160, 220), "moon": (150, 60, 40), "sun": (120, 40, 140)}
BACK_KIND_COLOURS = {
    "chicken": (30, 110, 220),
    "henhouse": (60, 40, 120),
    "egg": (170, 140, 40),
    "guild": (40, 90, 40),
    "chick": (40, 210, 240),
    "signal": (130, 40, 130),
}


def card_size_px(deck_name: str, px_per_mm: float) -> tuple[int, int]:
    """(width, height) in pixels of a card of `deck_name` rendered at `px_per_mm`."""
    w, h = CARD_SIZE_MM[deck_name]
    return int(round(w * px_per_mm)), int(round(h * px_per_mm))


def card_mask(shape: tuple[int, int], px_per_mm: float) -> np.ndarray:
    """A 0/255 mask of a card of image shape (h, w) with rounded corners."""
    h, w = shape
    r = max(1, int(round(CORNER_RADIUS_MM * px_per_mm)))
    m = np.zeros((h, w), np.uint8)
    cv2.rectangle(m, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(m, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(m, (cx, cy), r, (255,), -1, cv2.LINE_AA)
    return m


# --- primitives -------------------------------------------------------------------------------
def _pt(x: float, y: float) -> tuple[int, int]:
    return int(round(x)), int(round(y))


def _text(img, text, center, height, colour, font, thick=1.0, rotate180=False):
    """Text centred at `center` whose capital letters are about `height` px tall."""
    scale = height / 22.0
    th = max(1, int(round(scale * 2.2 * thick)))
    (tw, tht), base = cv2.getTextSize(text, font, scale, th)
    if not rotate180:
        org = _pt(center[0] - tw / 2, center[1] + tht / 2)
        cv2.putText(img, text, org, font, scale, colour, th, cv2.LINE_AA)
        return
    pad = th + 2
    patch = np.zeros((tht + base + 2 * pad, tw + 2 * pad, 3), np.uint8)
    mask = np.zeros(patch.shape[:2], np.uint8)
    cv2.putText(patch, text, (pad, pad + tht), font, scale, colour, th, cv2.LINE_AA)
    cv2.putText(mask, text, (pad, pad + tht), font, scale, 255, th, cv2.LINE_AA)
    patch, mask = patch[::-1, ::-1], mask[::-1, ::-1]
    ph, pw = mask.shape
    x0 = int(round(center[0] - pw / 2))
    y0 = int(round(center[1] - ph / 2 + base / 2))
    _paste(img, patch, mask, x0, y0)


def _text_fit(img, text, center, max_w, max_h, colour, font, thick=1.0):
    height = max_h
    scale = height / 22.0
    th = max(1, int(round(scale * 2.2 * thick)))
    tw = cv2.getTextSize(text, font, scale, th)[0][0]
    if tw > max_w:
        height *= max_w / tw
    _text(img, text, center, height, colour, font, thick)


def _paste(img, patch, mask, x0, y0):
    h, w = img.shape[:2]
    ph, pw = mask.shape
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(w, x0 + pw), min(h, y0 + ph)
    if xa >= xb or ya >= yb:
        return
    sub = mask[ya - y0 : yb - y0, xa - x0 : xb - x0].astype(np.float32)[..., None] / 255.0
    src = patch[ya - y0 : yb - y0, xa - x0 : xb - x0].astype(np.float32)
    dst = img[ya:yb, xa:xb].astype(np.float32)
    img[ya:yb, xa:xb] = (src * sub + dst * (1 - sub)).astype(np.uint8)


def _lighter(c, f=0.55):
    return tuple(int(v + (255 - v) * f) for v in c)


def _shape(img, suit: str, center, size: float, colour, outline=False, flip=False, tone: float = 0.0):
    """Draw suit `suit` ("fS" "fH" "fD" "fC" French; "iC" "iD" "iS" "iB" Italian) of height `size`,
    filled with `colour` (`tone` of the way to white), or outlined with a light fill."""
    # work on the shape's own neighbourhood only
    H, W = img.shape[:2]
    x0, y0 = max(0, int(center[0] - size)), max(0, int(center[1] - size))
    x1, y1 = min(W, int(center[0] + size) + 2), min(H, int(center[1] + size) + 2)
    if x0 >= x1 or y0 >= y1:
        return
    full, img = img, img[y0:y1, x0:x1]
    layer: np.ndarray = np.zeros(img.shape[:2], np.uint8)
    cx, cy, s = center[0] - x0, center[1] - y0, size
    AA = cv2.LINE_AA
    if suit == "fH":
        r = s * 0.27
        cv2.circle(layer, _pt(cx - r * 0.95, cy - s * 0.2), int(r), (255,), -1, AA)
        cv2.circle(layer, _pt(cx + r * 0.95, cy - s * 0.2), int(r), (255,), -1, AA)
        cv2.fillPoly(
            layer,
            [np.array([_pt(cx - s * 0.52, cy - s * 0.12), _pt(cx + s * 0.52, cy - s * 0.12), _pt(cx, cy + s * 0.5)])],
            (255,),
            AA,
        )
    elif suit == "fD":
        cv2.fillPoly(
            layer,
            [np.array([_pt(cx, cy - s / 2), _pt(cx + s * 0.36, cy), _pt(cx, cy + s / 2), _pt(cx - s * 0.36, cy)])],
            (255,),
            AA,
        )
    elif suit == "fS":
        r = s * 0.25
        cv2.circle(layer, _pt(cx - r * 0.95, cy + s * 0.08), int(r), (255,), -1, AA)
        cv2.circle(layer, _pt(cx + r * 0.95, cy + s * 0.08), int(r), (255,), -1, AA)
        cv2.fillPoly(
            layer, [np.array([_pt(cx - s * 0.48, cy), _pt(cx + s * 0.48, cy), _pt(cx, cy - s * 0.5)])], (255,), AA
        )
        cv2.fillPoly(
            layer,
            [np.array([_pt(cx, cy + s * 0.05), _pt(cx + s * 0.16, cy + s * 0.5), _pt(cx - s * 0.16, cy + s * 0.5)])],
            (255,),
            AA,
        )
    elif suit == "fC":
        r = s * 0.22
        cv2.circle(layer, _pt(cx, cy - s * 0.26), int(r), (255,), -1, AA)
        cv2.circle(layer, _pt(cx - s * 0.24, cy + s * 0.06), int(r), (255,), -1, AA)
        cv2.circle(layer, _pt(cx + s * 0.24, cy + s * 0.06), int(r), (255,), -1, AA)
        cv2.fillPoly(
            layer,
            [np.array([_pt(cx, cy - s * 0.05), _pt(cx + s * 0.15, cy + s * 0.5), _pt(cx - s * 0.15, cy + s * 0.5)])],
            (255,),
            AA,
        )
    elif suit == "iC":  # coppe: a cup
        cv2.ellipse(layer, _pt(cx, cy - s * 0.2), _pt(s * 0.36, s * 0.26), 0, 0, 180, (255,), -1, AA)
        cv2.rectangle(layer, _pt(cx - s * 0.36, cy - s * 0.32), _pt(cx + s * 0.36, cy - s * 0.2), 255, -1)
        cv2.rectangle(layer, _pt(cx - s * 0.06, cy), _pt(cx + s * 0.06, cy + s * 0.38), 255, -1)
        cv2.ellipse(layer, _pt(cx, cy + s * 0.42), _pt(s * 0.26, s * 0.08), 0, 0, 360, (255,), -1, AA)
    elif suit == "iD":  # denari: a coin with a ring and a centre
        cv2.circle(layer, _pt(cx, cy), int(s * 0.45), (255,), -1, AA)
        cv2.circle(layer, _pt(cx, cy), int(s * 0.3), (0,), max(1, int(s * 0.06)), AA)
        cv2.circle(layer, _pt(cx, cy), max(1, int(s * 0.1)), (0,), -1, AA)
    elif suit == "iS":  # spade: a sword, blade up
        cv2.fillPoly(
            layer,
            [
                np.array(
                    [
                        _pt(cx, cy - s * 0.5),
                        _pt(cx + s * 0.08, cy - s * 0.35),
                        _pt(cx + s * 0.08, cy + s * 0.18),
                        _pt(cx - s * 0.08, cy + s * 0.18),
                        _pt(cx - s * 0.08, cy - s * 0.35),
                    ]
                )
            ],
            (255,),
            AA,
        )
        cv2.rectangle(layer, _pt(cx - s * 0.3, cy + s * 0.16), _pt(cx + s * 0.3, cy + s * 0.24), 255, -1)
        cv2.rectangle(layer, _pt(cx - s * 0.05, cy + s * 0.24), _pt(cx + s * 0.05, cy + s * 0.44), 255, -1)
        cv2.circle(layer, _pt(cx, cy + s * 0.46), max(1, int(s * 0.06)), (255,), -1, AA)
    elif suit == "iB":  # bastoni: a knotted club
        cv2.fillPoly(
            layer,
            [
                np.array(
                    [
                        _pt(cx - s * 0.07, cy + s * 0.5),
                        _pt(cx + s * 0.07, cy + s * 0.5),
                        _pt(cx + s * 0.16, cy - s * 0.45),
                        _pt(cx - s * 0.16, cy - s * 0.45),
                    ]
                )
            ],
            (255,),
            AA,
        )
        cv2.circle(layer, _pt(cx, cy - s * 0.42), int(s * 0.17), (255,), -1, AA)
        for k in (-0.2, 0.05, 0.28):
            knot = _pt(cx + (s * 0.12 if k > 0 else -s * 0.12), cy + s * k)
            cv2.circle(layer, knot, max(1, int(s * 0.06)), (255,), -1, AA)
    else:
        raise ValueError(f"unknown suit shape {suit!r}")
    if flip:
        # rotate the layer 180 degrees about `center`
        m = cv2.getRotationMatrix2D((float(cx), float(cy)), 180, 1.0)
        layer = cv2.warpAffine(layer, m, (layer.shape[1], layer.shape[0]))
    fill = np.array(_lighter(colour, 0.75) if outline else _lighter(colour, tone) if tone else colour, np.float32)
    a = layer.astype(np.float32)[..., None] / 255.0
    img[:] = (img.astype(np.float32) * (1 - a) + fill * a).astype(np.uint8)
    if outline:
        k = max(3, int(size * 0.08) | 1)
        edge = cv2.morphologyEx(layer, cv2.MORPH_GRADIENT, np.ones((k, k), np.uint8))
        a = edge.astype(np.float32)[..., None] / 255.0
        img[:] = (img.astype(np.float32) * (1 - a) + np.array(colour, np.float32) * a).astype(np.uint8)
    del full


def _seed(*parts) -> int:
    return zlib.crc32("|".join(map(str, parts)).encode())


# --- suited cards -----------------------------------------------------------------------------
# pip positions (x, y) in units of the pip area, for ranks 1..10; y < 0.5 is the top half.
_PIPS: dict[int, list[tuple[float, float]]] = {
    1: [(0.5, 0.5)],
    2: [(0.5, 0.0), (0.5, 1.0)],
    3: [(0.5, 0.0), (0.5, 0.5), (0.5, 1.0)],
    4: [(0, 0), (1, 0), (0, 1), (1, 1)],
    5: [(0, 0), (1, 0), (0.5, 0.5), (0, 1), (1, 1)],
    6: [(0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    7: [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    8: [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0.5, 0.75), (0, 1), (1, 1)],
    9: [(0, 0), (1, 0), (0, 1 / 3), (1, 1 / 3), (0.5, 0.5), (0, 2 / 3), (1, 2 / 3), (0, 1), (1, 1)],
    10: [(0, 0), (1, 0), (0.5, 1 / 6), (0, 1 / 3), (1, 1 / 3), (0, 2 / 3), (1, 2 / 3), (0.5, 5 / 6), (0, 1), (1, 1)],
}


def _suit_colour(c: Card, d: Design):
    suit = _required(c.suit, c, "suit")
    if c.deck == "italian":
        return ITALIAN_COLOURS[suit]
    return (FRENCH_FOUR if d.four_colour else FRENCH_COLOURS)[suit]


def _draw_suited(img: np.ndarray, c: Card, d: Design, ppm: float) -> None:
    h, w = img.shape[:2]
    colour = _suit_colour(c, d)
    shape = ("i" if c.deck == "italian" else "f") + _required(c.suit, c, "suit")
    label = _required(c.rank, c, "rank")
    # corner indices: top-left upright, bottom-right rotated (the face is 180-degree symmetric)
    ih = 8.5 * ppm
    ix, iy = 5.8 * ppm, 7.0 * ppm
    if d.index_box:
        for x0, y0 in ((0.8 * ppm, 0.8 * ppm), (w - 11.2 * ppm, h - 18.5 * ppm)):
            cv2.rectangle(img, _pt(x0, y0), _pt(x0 + 10.4 * ppm, y0 + 17.7 * ppm), _lighter(colour, 0.8), -1)
    for flip in (False, True):
        cxy = (ix, iy) if not flip else (w - ix, h - iy)
        sxy = (ix, iy + 9.0 * ppm) if not flip else (w - ix, h - iy - 9.0 * ppm)
        _text(img, label, cxy, ih if len(label) == 1 else ih * 0.85, colour, d.font, d.thick, rotate180=flip)
        _shape(img, shape, sxy, 6.0 * ppm, colour, d.outline_pips, flip, d.pip_tone)
    # the body
    x0, x1 = 15 * ppm, w - 15 * ppm
    y0, y1 = 14 * ppm, h - 14 * ppm
    if c.court:
        cv2.rectangle(img, _pt(x0 - 2 * ppm, y0), _pt(x1 + 2 * ppm, y1), colour, max(1, int(0.6 * ppm * d.thick)))
        top = img[: h // 2].copy()
        _court(img, c, d, ppm, colour, shape, (x0, y0, x1, y1))
        del top
        return
    n = 1 if label in ("A", "1") else int(label)
    pip = (10.5 if n <= 3 else 9.0 if n <= 8 else 7.5) * ppm
    if c.deck == "italian":
        pip *= 1.3
    if n == 1:
        pip = 26 * ppm
    pip *= d.pip_scale
    for u, v in _PIPS[n]:
        px = x0 + (x1 - x0) * u if n >= 4 else w / 2
        py = y0 + pip / 2 + (y1 - y0 - pip) * v
        if n == 1:
            py = h / 2
        _shape(img, shape, (px, py), pip, colour, d.outline_pips, flip=(v > 0.5), tone=d.pip_tone)


def _court(img, c: Card, d: Design, ppm: float, colour, shape, box) -> None:
    """A double-ended court figure: the top half drawn, the bottom half its 180-degree copy."""
    h, w = img.shape[:2]
    x0, y0, x1, y1 = box
    half = np.full_like(img, d.paper)
    half[:] = img
    cx = w / 2
    mid = h / 2
    head_y = y0 + (mid - y0) * 0.35
    r = 7.0 * ppm
    skin = (170, 200, 235)
    # shoulders / robe
    robe = _lighter(ROBES[_required(c.suit, c, "suit")] if c.deck != "italian" else colour, 0.35)
    cv2.ellipse(half, _pt(cx, mid), _pt((x1 - x0) / 2, (mid - head_y) * 0.8), 0, 180, 360, robe, -1, cv2.LINE_AA)
    cv2.circle(half, _pt(cx, head_y), int(r), skin, -1, cv2.LINE_AA)
    cv2.circle(half, _pt(cx, head_y), int(r), BLACK, max(1, int(0.3 * ppm)), cv2.LINE_AA)
    if c.rank in ("K", "R"):  # crown
        pts = [(-1, 0), (-1, -1.2), (-0.5, -0.5), (0, -1.4), (0.5, -0.5), (1, -1.2), (1, 0)]
        cv2.fillPoly(
            half, [np.array([_pt(cx + a * r, head_y - r * 0.8 + b * r) for a, b in pts])], (20, 180, 230), cv2.LINE_AA
        )
    elif c.rank in ("Q",):  # veil
        cv2.ellipse(
            half, _pt(cx, head_y - r * 0.3), _pt(r * 1.3, r * 1.1), 0, 180, 360, _lighter(colour, 0.6), -1, cv2.LINE_AA
        )
        cv2.circle(half, _pt(cx, head_y), int(r * 0.9), skin, -1, cv2.LINE_AA)
    elif c.rank in ("C",):  # horse head beside the rider
        cv2.ellipse(
            half,
            _pt(cx + 9 * ppm, head_y + 3 * ppm),
            _pt(3.2 * ppm, 6 * ppm),
            25,
            0,
            360,
            (60, 90, 140),
            -1,
            cv2.LINE_AA,
        )
        cv2.circle(half, _pt(cx + 10 * ppm, head_y + 0 * ppm), max(1, int(0.7 * ppm)), BLACK, -1)
    else:  # J / F: a cap with a feather
        cv2.ellipse(half, _pt(cx, head_y - r * 0.6), _pt(r * 1.2, r * 0.6), 0, 180, 360, colour, -1, cv2.LINE_AA)
        cv2.line(
            half,
            _pt(cx + r, head_y - r),
            _pt(cx + r * 2, head_y - r * 2.2),
            colour,
            max(1, int(0.6 * ppm)),
            cv2.LINE_AA,
        )
    # eyes
    for ex in (-0.35, 0.35):
        cv2.circle(half, _pt(cx + ex * r, head_y - 0.1 * r), max(1, int(0.5 * ppm)), BLACK, -1)
    # the suit held in hand, and the rank letter big
    _shape(half, shape, (cx - 8 * ppm, mid - 7 * ppm), 8 * ppm, colour, d.outline_pips, tone=d.pip_tone)
    _text(half, c.rank, (cx + 8 * ppm, mid - 8 * ppm), 8 * ppm, colour, d.font, d.thick)
    hh = int(h // 2)
    img[:hh] = half[:hh]
    img[h - hh :] = half[:hh][::-1, ::-1]


# --- Beccato! -----------------------------------------------------------------------------------
def _banner(img, text, d: Design, ppm: float, colour):
    h, w = img.shape[:2]
    bh = 11 * ppm
    cv2.rectangle(img, _pt(3 * ppm, 3 * ppm), _pt(w - 3 * ppm, 3 * ppm + bh), colour, -1)
    _text_fit(img, text.upper(), (w / 2, 3 * ppm + bh / 2), w - 10 * ppm, bh * 0.6, (255, 255, 255), d.font, d.thick)


def _banner_colour(breed: str):
    _, body, pat, _ = BREED_STYLE[breed]
    for c in (pat, body):
        if sum(c) / 3 < 140:
            return c
    return (110, 110, 110)


def _ground(img, ppm: float, colour):
    h, w = img.shape[:2]
    cv2.rectangle(img, _pt(3 * ppm, h - 12 * ppm), _pt(w - 3 * ppm, h - 3 * ppm), colour, -1)


def _chicken(img, centre, size, breed: str, ppm: float):
    bg, body, pat, kind = BREED_STYLE[breed]
    cx, cy, s = centre[0], centre[1], size
    AA = cv2.LINE_AA
    # legs and feet (bottom)
    for dx in (-0.12, 0.1):
        cv2.line(
            img,
            _pt(cx + dx * s, cy + 0.25 * s),
            _pt(cx + dx * s, cy + 0.5 * s),
            (30, 140, 220),
            max(1, int(s * 0.035)),
            AA,
        )
        cv2.line(
            img,
            _pt(cx + dx * s, cy + 0.5 * s),
            _pt(cx + (dx + 0.08) * s, cy + 0.52 * s),
            (30, 140, 220),
            max(1, int(s * 0.03)),
            AA,
        )
    # tail (left), bigger for a rooster
    tail = 0.45 if kind == "rooster" else 0.28
    tail_c = pat if kind != "plain" else _lighter(body, -0.0)
    cv2.ellipse(img, _pt(cx - 0.3 * s, cy - 0.12 * s), _pt(0.14 * s, tail * s), -25, 0, 360, tail_c, -1, AA)
    if kind == "rooster":
        cv2.ellipse(img, _pt(cx - 0.38 * s, cy - 0.05 * s), _pt(0.1 * s, 0.38 * s), -50, 0, 360, (40, 160, 40), -1, AA)
    # body
    cv2.ellipse(img, _pt(cx, cy + 0.05 * s), _pt(0.32 * s, 0.24 * s), 0, 0, 360, body, -1, AA)
    cv2.ellipse(img, _pt(cx, cy + 0.05 * s), _pt(0.32 * s, 0.24 * s), 0, 0, 360, BLACK, max(1, int(s * 0.012)), AA)
    # head and neck (right, up)
    hx, hy, hr = cx + 0.24 * s, cy - 0.25 * s, 0.12 * s
    cv2.ellipse(img, _pt(cx + 0.18 * s, cy - 0.1 * s), _pt(0.1 * s, 0.18 * s), 20, 0, 360, body, -1, AA)
    cv2.circle(img, _pt(hx, hy), int(hr), body, -1, AA)
    # pattern
    rng = np.random.default_rng(_seed("pattern", breed))
    if kind in ("speckle", "spots"):
        n, rad = (26, 0.02) if kind == "speckle" else (9, 0.045)
        for _ in range(n):
            a, rr = rng.uniform(0, 2 * math.pi), math.sqrt(rng.uniform(0, 1))
            cv2.circle(
                img,
                _pt(cx + math.cos(a) * rr * 0.27 * s, cy + 0.05 * s + math.sin(a) * rr * 0.19 * s),
                max(1, int(rad * s)),
                pat,
                -1,
                AA,
            )
    elif kind == "stripes":
        for k in range(-3, 4):
            x = cx + k * 0.07 * s
            cv2.line(
                img, _pt(x - 0.05 * s, cy - 0.12 * s), _pt(x + 0.05 * s, cy + 0.24 * s), pat, max(1, int(s * 0.025)), AA
            )
    elif kind == "collar":
        cv2.ellipse(
            img, _pt(cx + 0.18 * s, cy - 0.1 * s), _pt(0.1 * s, 0.16 * s), 20, 0, 360, pat, max(1, int(s * 0.04)), AA
        )
    elif kind == "fluffy":
        for k in range(10):
            a = k * 2 * math.pi / 10
            cv2.circle(
                img,
                _pt(cx + math.cos(a) * 0.3 * s, cy + 0.05 * s + math.sin(a) * 0.22 * s),
                max(1, int(0.06 * s)),
                body,
                -1,
                AA,
            )
        cv2.ellipse(img, _pt(cx, cy + 0.05 * s), _pt(0.22 * s, 0.15 * s), 0, 0, 360, pat, max(1, int(s * 0.02)), AA)
    elif kind == "crest":
        for k in range(7):
            a = -math.pi / 2 + (k - 3) * 0.35
            cv2.circle(
                img, _pt(hx + math.cos(a) * hr * 1.1, hy + math.sin(a) * hr * 1.1), max(1, int(hr * 0.55)), pat, -1, AA
            )
    elif kind == "tufts":
        for dx in (-1.0, 0.6):
            cv2.circle(img, _pt(hx + dx * hr, hy + hr * 0.5), max(1, int(hr * 0.45)), pat, -1, AA)
    elif kind == "rooster":
        cv2.ellipse(img, _pt(cx + 0.05 * s, cy + 0.05 * s), _pt(0.2 * s, 0.12 * s), 10, 0, 360, pat, -1, AA)
    # comb (top of head), wattle, beak, eye
    if kind != "crest":
        for k in range(3):
            cv2.circle(
                img,
                _pt(hx - hr * 0.5 + k * hr * 0.5, hy - hr * 1.05),
                max(1, int(hr * (0.45 if kind == "rooster" else 0.32))),
                (30, 30, 210),
                -1,
                AA,
            )
    cv2.ellipse(img, _pt(hx + hr * 0.4, hy + hr * 1.1), _pt(hr * 0.22, hr * 0.4), 0, 0, 360, (30, 30, 210), -1, AA)
    cv2.fillPoly(
        img,
        [
            np.array(
                [
                    _pt(hx + hr * 0.85, hy - hr * 0.25),
                    _pt(hx + hr * 1.65, hy + hr * 0.05),
                    _pt(hx + hr * 0.85, hy + hr * 0.35),
                ]
            )
        ],
        (30, 170, 240),
        AA,
    )
    cv2.circle(img, _pt(hx + hr * 0.3, hy - hr * 0.15), max(1, int(hr * 0.16)), BLACK, -1, AA)


def _guild_symbol(img, guild: str, centre, size, colour, d: Design):
    cx, cy, s = centre[0], centre[1], size
    AA = cv2.LINE_AA
    if guild == "dollar":
        _text(img, "$", (cx, cy), s * 0.9, colour, d.font, d.thick * 1.4)
    elif guild == "star":
        pts = []
        for k in range(10):
            r = s * (0.5 if k % 2 == 0 else 0.2)
            a = -math.pi / 2 + k * math.pi / 5
            pts.append(_pt(cx + math.cos(a) * r, cy + math.sin(a) * r))
        cv2.fillPoly(img, [np.array(pts)], colour, AA)
    elif guild == "moon":
        layer = np.zeros(img.shape[:2], np.uint8)
        cv2.circle(layer, _pt(cx, cy), int(s * 0.45), (255,), -1, AA)
        cv2.circle(layer, _pt(cx + s * 0.22, cy - s * 0.1), int(s * 0.38), (0,), -1, AA)
        img[layer > 127] = colour
    elif guild == "sun":
        for k in range(12):
            a = k * math.pi / 6
            cv2.line(
                img,
                _pt(cx + math.cos(a) * s * 0.25, cy + math.sin(a) * s * 0.25),
                _pt(cx + math.cos(a) * s * 0.48, cy + math.sin(a) * s * 0.48),
                colour,
                max(1, int(s * 0.06)),
                AA,
            )
        cv2.circle(img, _pt(cx, cy), int(s * 0.25), colour, -1, AA)
    else:
        raise ValueError(guild)


def _egg(img, centre, size, guild: str, n: int, ppm: float, d: Design):
    cx, cy, s = centre[0], centre[1], size
    colour = GUILD_COLOURS[guild]
    rng = np.random.default_rng(_seed("egg", guild, n))
    shell = tuple(int(v) for v in rng.integers(150, 250, 3))
    layer = np.zeros(img.shape[:2], np.uint8)
    # an egg: narrower at the top
    cv2.ellipse(layer, _pt(cx, cy + 0.08 * s), _pt(0.33 * s, 0.34 * s), 0, 0, 180, (255,), -1, cv2.LINE_AA)
    cv2.ellipse(layer, _pt(cx, cy + 0.08 * s), _pt(0.33 * s, 0.5 * s), 0, 180, 360, (255,), -1, cv2.LINE_AA)
    inside = layer > 127
    img[inside] = shell
    pat = img.copy()
    kind = (n - 1) % 7
    pc = tuple(int(v) for v in rng.integers(20, 140, 3))
    if kind == 0:
        for k in range(-4, 5):
            cv2.line(pat, _pt(cx - s, cy + k * 0.1 * s), _pt(cx + s, cy + k * 0.1 * s), pc, max(1, int(0.025 * s)))
    elif kind == 1:
        for _ in range(25):
            cv2.circle(
                pat,
                _pt(cx + rng.uniform(-0.3, 0.3) * s, cy + rng.uniform(-0.4, 0.4) * s),
                max(1, int(0.03 * s)),
                pc,
                -1,
            )
    elif kind == 2:
        pts = [_pt(cx - 0.4 * s + k * 0.1 * s, cy + (0.06 if k % 2 else -0.06) * s) for k in range(9)]
        cv2.polylines(pat, [np.array(pts)], False, pc, max(1, int(0.04 * s)))
    elif kind == 3:
        for k in range(-4, 5):
            cv2.line(pat, _pt(cx + k * 0.1 * s, cy - s), _pt(cx + k * 0.1 * s, cy + s), pc, max(1, int(0.02 * s)))
    elif kind == 4:
        for r in (0.08, 0.16, 0.24):
            cv2.circle(pat, _pt(cx, cy + 0.12 * s), int(r * s), pc, max(1, int(0.025 * s)))
    elif kind == 5:
        cv2.rectangle(pat, _pt(cx - s, cy - 0.05 * s), _pt(cx + s, cy + 0.12 * s), pc, -1)
    else:
        for k in range(-5, 6):
            cv2.line(pat, _pt(cx + k * 0.1 * s, cy - s), _pt(cx + k * 0.1 * s + s, cy + s), pc, max(1, int(0.02 * s)))
    img[inside] = pat[inside]
    cv2.ellipse(
        img, _pt(cx, cy + 0.08 * s), _pt(0.33 * s, 0.34 * s), 0, 0, 180, BLACK, max(1, int(0.01 * s)), cv2.LINE_AA
    )
    cv2.ellipse(
        img, _pt(cx, cy + 0.08 * s), _pt(0.33 * s, 0.5 * s), 0, 180, 360, BLACK, max(1, int(0.01 * s)), cv2.LINE_AA
    )
    # the Guild symbol on a white medallion in the egg
    cv2.circle(img, _pt(cx, cy + 0.12 * s), int(0.13 * s), (255, 255, 255), -1, cv2.LINE_AA)
    _guild_symbol(img, guild, (cx, cy + 0.12 * s), 0.2 * s, colour, d)


def _house(img, centre, size, breed: str, ppm: float):
    bg, body, pat, _ = BREED_STYLE[breed]
    cx, cy, s = centre[0], centre[1], size
    wall = _lighter(pat, 0.3)
    cv2.rectangle(img, _pt(cx - 0.35 * s, cy - 0.1 * s), _pt(cx + 0.35 * s, cy + 0.4 * s), wall, -1)
    cv2.fillPoly(
        img,
        [np.array([_pt(cx - 0.45 * s, cy - 0.08 * s), _pt(cx, cy - 0.45 * s), _pt(cx + 0.45 * s, cy - 0.08 * s)])],
        (40, 40, 150),
        cv2.LINE_AA,
    )
    cv2.ellipse(img, _pt(cx, cy + 0.4 * s), _pt(0.12 * s, 0.2 * s), 0, 180, 360, (20, 20, 20), -1, cv2.LINE_AA)
    cv2.rectangle(img, _pt(cx + 0.15 * s, cy), _pt(cx + 0.28 * s, cy + 0.12 * s), (200, 240, 250), -1)


def _chick(img, centre, size):
    cx, cy, s = centre[0], centre[1], size
    AA = cv2.LINE_AA
    y = (40, 220, 250)
    cv2.ellipse(img, _pt(cx, cy + 0.12 * s), _pt(0.3 * s, 0.25 * s), 0, 0, 360, y, -1, AA)
    cv2.circle(img, _pt(cx + 0.1 * s, cy - 0.22 * s), int(0.18 * s), y, -1, AA)
    cv2.circle(img, _pt(cx + 0.15 * s, cy - 0.26 * s), max(1, int(0.03 * s)), BLACK, -1, AA)
    cv2.fillPoly(
        img,
        [
            np.array(
                [_pt(cx + 0.26 * s, cy - 0.24 * s), _pt(cx + 0.38 * s, cy - 0.2 * s), _pt(cx + 0.26 * s, cy - 0.16 * s)]
            )
        ],
        (20, 120, 240),
        AA,
    )
    for dx in (-0.08, 0.08):
        cv2.line(
            img,
            _pt(cx + dx * s, cy + 0.36 * s),
            _pt(cx + dx * s, cy + 0.48 * s),
            (20, 120, 240),
            max(1, int(0.03 * s)),
            AA,
        )
    # egg shell below
    cv2.ellipse(img, _pt(cx, cy + 0.3 * s), _pt(0.34 * s, 0.16 * s), 0, 0, 180, (235, 245, 250), -1, AA)


_CUE_COLOURS = {"body": (60, 120, 200), "face": (160, 80, 160), "cards": (60, 150, 60), "audio": (170, 110, 40)}


def _signal(img, c: Card, d: Design, ppm: float):
    h, w = img.shape[:2]
    sig = BY_ID[_required(c.signal, c, "signal")]
    idx = [s.id for s in SIGNAL_CARDS].index(sig.id)
    colour = _CUE_COLOURS[sig.cue]
    # a code strip: one bar per bit of the signal's index (distinct for every signal)
    for bit in range(5):
        on = (idx + 1) >> bit & 1
        x = 8 * ppm + bit * (w - 16 * ppm) / 5
        cv2.rectangle(
            img,
            _pt(x + ppm, 17 * ppm),
            _pt(x + (w - 16 * ppm) / 5 - ppm, 22 * ppm),
            colour if on else _lighter(colour, 0.8),
            -1,
        )
    words = sig.text.rstrip(".").split()
    lines, line = [], ""
    for word in words:
        if len(line) + len(word) + 1 > 14 and line:
            lines.append(line)
            line = word
        else:
            line = (line + " " + word).strip()
    lines.append(line)
    y = 30 * ppm
    for ln in lines:
        _text_fit(img, ln, (w / 2, y), w - 12 * ppm, 5.5 * ppm, BLACK, d.font, d.thick * 0.8)
        y += 8 * ppm
    # an icon of the cue near the bottom
    icx, icy = w / 2, h - 14 * ppm
    if sig.cue == "audio":
        for r in (3, 6, 9):
            cv2.ellipse(
                img,
                _pt(icx - 4 * ppm, icy),
                _pt(r * ppm, r * ppm),
                0,
                -45,
                45,
                colour,
                max(1, int(0.8 * ppm)),
                cv2.LINE_AA,
            )
        cv2.circle(img, _pt(icx - 6 * ppm, icy), int(2 * ppm), colour, -1)
    elif sig.cue == "cards":
        for k, ang in enumerate((-20, 0, 20)):
            rect = ((icx + (k - 1) * 4 * ppm, icy), (7 * ppm, 10 * ppm), ang)
            box = cv2.boxPoints(rect).astype(np.int32)
            cv2.fillPoly(img, [box], (255, 255, 255))
            cv2.polylines(img, [box], True, colour, max(1, int(0.5 * ppm)), cv2.LINE_AA)
    else:
        cv2.circle(img, _pt(icx, icy - 2 * ppm), int(4 * ppm), colour, max(1, int(0.8 * ppm)), cv2.LINE_AA)
        cv2.ellipse(
            img,
            _pt(icx, icy + 7 * ppm),
            _pt(7 * ppm, 5 * ppm),
            0,
            180,
            360,
            colour,
            max(1, int(0.8 * ppm)),
            cv2.LINE_AA,
        )


def _draw_beccato(img: np.ndarray, c: Card, d: Design, ppm: float) -> None:
    _draw_beccato_face(img, c, d, ppm)
    h, w = img.shape[:2]
    if d.name == "outline" and c.kind in ("chicken", "henhouse", "chick"):
        # this design's illustrations face the other way (the title and index stay on top)
        y0, y1, x0, x1 = int(15 * ppm), int(h - 13 * ppm), int(3 * ppm), int(w - 3 * ppm)
        img[y0:y1, x0:x1] = img[y0:y1, x0:x1][:, ::-1]
    # indices on top of the picture, top-left only (the card has a top)
    if c.kind == "chicken":
        _chicken_index(img, c, d, ppm)
    elif c.kind == "chick":
        _text(img, "5", (8 * ppm, 21 * ppm), 7 * ppm, (20, 120, 220), d.font, d.thick)
    if d.name == "bold" and c.kind != "signal":
        # this design frames the picture with a dotted rule
        for x in np.arange(5 * ppm, w - 5 * ppm, 3 * ppm):
            cv2.circle(img, _pt(x, 15.5 * ppm), max(1, int(0.6 * ppm)), (60, 60, 60), -1)


def _chicken_index(img, c: Card, d: Design, ppm: float) -> None:
    tag = _required(c.breed, c, "breed")[:2].upper()
    cv2.circle(img, _pt(9 * ppm, 23 * ppm), int(5.5 * ppm), (255, 255, 255), -1, cv2.LINE_AA)
    _text(img, tag, (9 * ppm, 23 * ppm), 4.5 * ppm, BLACK, d.font, d.thick)


def _draw_beccato_face(img: np.ndarray, c: Card, d: Design, ppm: float) -> None:
    h, w = img.shape[:2]
    if c.kind == "chicken":
        breed = _required(c.breed, c, "breed")
        bg, body, pat, _ = BREED_STYLE[breed]
        img[int(3 * ppm) : h - int(3 * ppm), int(3 * ppm) : w - int(3 * ppm)] = bg
        _ground(img, ppm, (60, 140, 90))
        _banner(img, c.name, d, ppm, _banner_colour(breed))
        _chicken(img, (w / 2, h * 0.55), min(w * 0.95, h * 0.6), breed, ppm)

    elif c.kind == "henhouse":
        breed = _required(c.breed, c, "breed")
        bg, body, pat, _ = BREED_STYLE[breed]
        img[int(3 * ppm) : h - int(3 * ppm), int(3 * ppm) : w - int(3 * ppm)] = _lighter(bg, 0.4)
        _ground(img, ppm, (40, 110, 150))
        _banner(img, c.name.replace(" henhouse", ""), d, ppm, (40, 40, 150))
        _house(img, (w / 2, h * 0.5), w * 0.8, breed, ppm)
        # a small chicken of the breed beside the door, and an empty egg place at the bottom
        _chicken(img, (w * 0.25, h * 0.62), w * 0.3, breed, ppm)
        cv2.ellipse(
            img,
            _pt(w / 2, h - 20 * ppm),
            _pt(6 * ppm, 8 * ppm),
            0,
            0,
            360,
            (90, 90, 90),
            max(1, int(0.5 * ppm)),
            cv2.LINE_AA,
        )
    elif c.kind == "egg":
        guild, rank = _required(c.guild, c, "guild"), _required(c.rank, c, "rank")
        colour = GUILD_COLOURS[guild]
        img[int(3 * ppm) : h - int(3 * ppm), int(3 * ppm) : w - int(3 * ppm)] = _lighter(colour, 0.85)
        _banner(img, f"Egg {rank}", d, ppm, colour)
        _egg(img, (w / 2, h * 0.56), h * 0.55, guild, int(rank), ppm, d)
        _text(img, rank, (8 * ppm, 21 * ppm), 7 * ppm, colour, d.font, d.thick)
        _guild_symbol(img, guild, (w - 9 * ppm, 21 * ppm), 8 * ppm, colour, d)
    elif c.kind == "guild":
        guild = _required(c.guild, c, "guild")
        colour = GUILD_COLOURS[guild]
        img[int(3 * ppm) : h - int(3 * ppm), int(3 * ppm) : w - int(3 * ppm)] = _lighter(colour, 0.6)
        _banner(img, "Guild", d, ppm, colour)
        cv2.circle(img, _pt(w / 2, h * 0.5), int(w * 0.33), (255, 255, 255), -1, cv2.LINE_AA)
        _guild_symbol(img, guild, (w / 2, h * 0.5), w * 0.5, colour, d)
        _ground(img, ppm, colour)
        _text_fit(img, guild.upper(), (w / 2, h - 7.5 * ppm), w - 12 * ppm, 5 * ppm, (255, 255, 255), d.font, d.thick)
    elif c.kind == "chick":
        img[int(3 * ppm) : h - int(3 * ppm), int(3 * ppm) : w - int(3 * ppm)] = (200, 245, 250)
        _banner(img, "Chick", d, ppm, (20, 140, 220))
        _ground(img, ppm, (60, 140, 90))
        _chick(img, (w / 2, h * 0.55), w * 0.8)
    elif c.kind == "signal":
        img[int(3 * ppm) : h - int(3 * ppm), int(3 * ppm) : w - int(3 * ppm)] = (235, 235, 225)
        _banner(img, "Signal", d, ppm, (120, 50, 120))
        _signal(img, c, d, ppm)
    else:
        raise ValueError(f"cannot draw a {c.kind!r} card")


# --- backs ----------------------------------------------------------------------------------------
def _draw_back(img: np.ndarray, c: Card, d: Design, ppm: float) -> None:
    h, w = img.shape[:2]
    colour = d.back_colour
    if c.deck == "beccato":
        kind = np.array(BACK_KIND_COLOURS[c.id.split(":")[2]], np.float32)
        t = d.beccato_back_tint
        tinted = [int(round(x)) for x in kind * (1 - t) + np.array(d.back_colour, np.float32) * t]
        colour = (tinted[0], tinted[1], tinted[2])
    m = int(3 * ppm)
    img[m : h - m, m : w - m] = colour
    light = _lighter(colour, 0.45)
    step = 5 * ppm
    if d.back_pattern == "lattice":
        for k in range(-int(h / step), int((w + h) / step) + 1):
            x = k * step
            cv2.line(img, _pt(x, m), _pt(x + h, m + h), light, max(1, int(0.4 * ppm)), cv2.LINE_AA)
            cv2.line(img, _pt(x, m), _pt(x - h, m + h), light, max(1, int(0.4 * ppm)), cv2.LINE_AA)
    elif d.back_pattern == "rings":
        for r in np.arange(step, max(w, h), step):
            cv2.ellipse(
                img, _pt(w / 2, h / 2), _pt(r * w / h, r), 0, 0, 360, light, max(1, int(0.6 * ppm)), cv2.LINE_AA
            )
    elif d.back_pattern == "dots":
        for yy in np.arange(m + step / 2, h - m, step):
            for xx in np.arange(m + step / 2, w - m, step):
                cv2.circle(img, _pt(xx, yy), max(1, int(1.1 * ppm)), light, -1, cv2.LINE_AA)
    elif d.back_pattern == "stripes":
        for k in range(-int(h / step), int((w + h) / step) + 1):
            x = k * step
            cv2.line(img, _pt(x, m), _pt(x + h, m + h), light, max(1, int(1.2 * ppm)), cv2.LINE_AA)
    elif d.back_pattern == "checks":
        sq = int(round(step))
        for yy in range(m, h - m, sq):
            for xx in range(m + (sq if ((yy - m) // sq) % 2 else 0), w - m, 2 * sq):
                img[yy : min(yy + sq, h - m), xx : min(xx + sq, w - m)] = light
    elif d.back_pattern == "waves":
        xs = np.arange(m, w - m, max(1.0, ppm / 2))
        for yy in np.arange(m + step / 2, h - m, step):
            pts = np.stack([xs, yy + 0.3 * step * np.sin(xs / step * 2 * math.pi)], 1)
            cv2.polylines(img, [np.round(pts).astype(np.int32)], False, light, max(1, int(0.5 * ppm)), cv2.LINE_AA)
    elif d.back_pattern == "diamonds":
        r = step * 0.45
        for yy in np.arange(m + step / 2, h - m, step):
            for xx in np.arange(m + step / 2, w - m, step):
                pts = np.array([[xx, yy - r], [xx + r * 0.7, yy], [xx, yy + r], [xx - r * 0.7, yy]], np.float32)
                cv2.fillConvexPoly(img, np.round(pts).astype(np.int32), light, cv2.LINE_AA)
    elif d.back_pattern != "plain":
        raise ValueError(f"unknown back pattern {d.back_pattern!r}")
    inner = 6 * ppm
    cv2.rectangle(
        img, _pt(inner, inner), _pt(w - inner, h - inner), (245, 245, 245), max(1, int(0.8 * ppm)), cv2.LINE_AA
    )
    if c.deck == "beccato":
        cv2.ellipse(img, _pt(w / 2, h * 0.3), _pt(w * 0.36, h * 0.09), 0, 0, 360, (245, 245, 245), -1, cv2.LINE_AA)
        _text_fit(img, "BECCATO!", (w / 2, h * 0.3), w * 0.6, 6 * ppm, colour, d.font, d.thick)
    # backs are 180-degree symmetric
    hh = h // 2
    img[h - hh :] = img[:hh][::-1, ::-1]


# --- public API -----------------------------------------------------------------------------------
def render_card(c: Card, design: str | Design = "classic", px_per_mm: float = 8.0) -> np.ndarray:
    """The face (or back) of card `c` in `design` (a name of DESIGNS or a Design), as a BGR uint8
    image, portrait, with the card's paper filling the whole rectangle (use `card_mask` for the
    rounded corners)."""
    return _render_cached(c, design, float(px_per_mm)).copy()


def render_card_once(c: Card, design: str | Design = "classic", px_per_mm: float = 8.0) -> np.ndarray:
    """`render_card`'s image, drawn afresh and not kept in its cache: for images that are made
    once and kept elsewhere (a deck's templates)."""
    return _render(c, design, float(px_per_mm))


@lru_cache(maxsize=2048)
def _render_cached(c: Card, design: str | Design, ppm: float) -> np.ndarray:
    return _render(c, design, ppm)


def _render(c: Card, design: str | Design, ppm: float) -> np.ndarray:
    if isinstance(design, Design):
        d = design
    else:
        try:
            d = DESIGNS[design]
        except KeyError:
            raise KeyError(f"no design {design!r}; known: {', '.join(DESIGNS)}") from None
    w, h = card_size_px(c.deck, ppm)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = d.paper
    if c.kind == "back":
        _draw_back(img, c, d, ppm)
    elif c.deck == "beccato":
        _draw_beccato(img, c, d, ppm)
    else:
        _draw_suited(img, c, d, ppm)
    if d.border is not None:
        cv2.rectangle(
            img,
            _pt(1.2 * ppm, 1.2 * ppm),
            _pt(w - 1.2 * ppm, h - 1.2 * ppm),
            d.border,
            max(1, int(0.7 * ppm * d.thick)),
            cv2.LINE_AA,
        )
    img.setflags(write=False)
    return img


def render_deck(
    deck_name: str, design: str = "classic", px_per_mm: float = 8.0, with_backs: bool = True
) -> dict[str, np.ndarray]:
    """Every card id of `deck_name` (and its backs) to its rendered image."""
    cards = deck(deck_name) + (backs(deck_name) if with_backs else ())
    return {c.id: render_card(c, design, px_per_mm) for c in cards}


__all__ = [
    "DESIGNS",
    "TRAIN_DESIGNS",
    "HELD_OUT_DESIGN",
    "BACK_PATTERNS",
    "Design",
    "random_design",
    "BREEDS",
    "GUILDS",
    "GUILD_SYMBOLS",
    "card_size_px",
    "card_mask",
    "render_card",
    "render_deck",
]
