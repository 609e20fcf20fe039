"""Which French suit a card shows, from the shape of its pips: hearts from diamonds and spades
from clubs, not left to a whole-face similarity.

`suit_of(crop)` takes a rectified card (any size, upright or not: every measure here is the same
turned) with its light divided out (`vision.cards.light.flat_field`), finds its pips (each a
blob of ink, red or black, none touching the card's edge, of a pip's size), and names each pip's
suit by two measures of its outline that no printing changes:

* its *notches*: the convexity defects deeper than NOTCH of the pip's size (the square root of its
  area). A diamond has none; a heart one, between its lobes; a spade two, where its stem meets
  it; a club four, between its three lobes and at its stem;
* its *solidity*: its area over its convex hull's (a diamond 0.97-1.00, a heart 0.96-0.99, a
  spade 0.90-0.94, a club 0.81-0.87 on the real photos' tune split).

A pip votes for a suit only when its colour, notches and solidity all agree (`pip_suit`);
pictures, logos and a court card's robes rarely do, and pips of one card do so all alike. The
suit is the one most pips vote for, and how sure the check is says how many voted for it
against any other (`SuitCheck`). Measured: docs/card-reading.md ("The suit check").
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

WORK_WIDTH = 240  # the crop is looked at this wide (a pip's notches are a pixel or two at 120)
INK_DARK = 150.0  # Lab L under this is ink ...
INK_CHROMA = 35.0  # ... and so is colour this strong (Lab a, b)
RED_A = 20.0  # a pip whose median Lab a is over this is red ...
BLACK_CHROMA = 18.0  # ... under this chroma, black; between, neither
MIN_PIP_AREA = 40  # pixels at WORK_WIDTH: the smallest pip read (an index's is 50-120)
MAX_PIP_SIDE = 0.3  # of the card's width or height: larger is a picture
PIP_UNIT = 125.0  # pixels at WORK_WIDTH: a pip this large casts one vote (`pip_weight`)
BIG_PIP = 0.5  # a pip at least this share of its suit's largest one's area is a large pip (not the index's)
MIN_SHARE = 0.5  # a suit voted by less of its colour's pips than this is not named
NOTCH = 0.12  # a convexity defect this deep (of the pip's size) is a notch
# suit -> (red, notches, lowest solidity, highest solidity)
SHAPES: dict[str, tuple[bool, tuple[int, ...], float, float]] = {
    "D": (True, (0,), 0.94, 1.05),
    "H": (True, (1,), 0.93, 1.05),
    "S": (False, (2,), 0.88, 0.96),
    "C": (False, (3, 4, 5), 0.76, 0.89),
}
SUITS = ("S", "H", "D", "C")


@dataclasses.dataclass(frozen=True)
class SuitCheck:
    """What the pips say: `votes` per suit (S, H, D, C order), each pip's weighed by its size
    (`pip_weight`); `suit` the most voted (None without a vote); `margin` its votes less the next
    suit's."""

    votes: tuple[float, float, float, float]
    big: tuple[int, int, int, int] = (0, 0, 0, 0)  # per suit: its pips at least BIG_PIP of its largest
    share: float = 1.0  # of the weight of all pips of the best suit's colour, how much voted for it

    def count(self, suit: str) -> int:
        """How many large pips of `suit` the card shows: its rank, on an ace to a ten (the index's
        small pips left out)."""
        return self.big[SUITS.index(suit)]

    @property
    def suit(self) -> str | None:
        if max(self.votes) == 0 or self.share < MIN_SHARE:
            return None  # no pip, or most pips of its colour fit no suit (a printing unlike the shapes)
        return SUITS[int(np.argmax(self.votes))]

    @property
    def margin(self) -> float:
        v = sorted(self.votes, reverse=True)
        return v[0] - v[1]

    def says(self, suit: str, least: float = 1.0) -> bool:
        """The check names `suit` by at least `least` votes more than any other suit."""
        return self.suit == suit and self.margin >= least

    def against(self, suit: str, least: float = 1.0) -> bool:
        """The check names another suit than `suit`, by at least `least` votes more than any other."""
        return self.suit is not None and self.suit != suit and self.margin >= least


def pips(flat: np.ndarray) -> list[tuple[int, float, int, bool | None]]:
    """Each pip-sized blob of ink of a flat-fielded card: (area, solidity, notches, red: True,
    False or None when its colour is neither)."""
    h, w = flat.shape[:2]
    if w != WORK_WIDTH:
        flat = cv2.resize(flat, (WORK_WIDTH, max(1, round(h * WORK_WIDTH / w))), interpolation=cv2.INTER_CUBIC)
        h, w = flat.shape[:2]
    lab = cv2.cvtColor(flat, cv2.COLOR_BGR2LAB).astype(np.float32)
    a, b = lab[..., 1] - 128.0, lab[..., 2] - 128.0
    chroma = np.hypot(a, b)
    ink = ((lab[..., 0] < INK_DARK) | (chroma > INK_CHROMA)).astype(np.uint8)
    n, lbl, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    out = []
    for k in range(1, n):
        x, y, bw, bh, area = (int(v) for v in stats[k])
        if area < MIN_PIP_AREA or bw > MAX_PIP_SIDE * w or bh > MAX_PIP_SIDE * h:
            continue
        if x <= 1 or y <= 1 or x + bw >= w - 1 or y + bh >= h - 1:
            continue  # touching the edge: the table or a shadow past it
        m = (lbl[y : y + bh, x : x + bw] == k).astype(np.uint8)
        contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        c = max(contours, key=cv2.contourArea)
        hull_area = cv2.contourArea(cv2.convexHull(c))
        area = max(area, int(cv2.contourArea(c)))  # an outlined pip's shape is its outline, filled
        solidity = area / max(hull_area, 1.0)
        notches = 0
        if len(c) >= 4:
            try:
                defects = cv2.convexityDefects(c, cv2.convexHull(c, returnPoints=False))
            except cv2.error:  # a self-crossing outline: no notches to count
                defects = None
            if defects is not None:
                notches = int(((defects[:, 0, 3] / 256.0) > NOTCH * np.sqrt(area)).sum())
        pa = a[y : y + bh, x : x + bw][m > 0]
        pc = chroma[y : y + bh, x : x + bw][m > 0]
        red: bool | None = None
        if float(np.median(pa)) > RED_A:
            red = True
        elif float(np.median(pc)) < BLACK_CHROMA:
            red = False
        out.append((area, float(solidity), notches, red))
    return out


def pip_suit(solidity: float, notches: int, red: bool | None) -> str | None:
    """The suit a pip's outline and colour agree on, or None."""
    if red is None:
        return None
    for suit, (is_red, counts, lo, hi) in SHAPES.items():
        if is_red == red and notches in counts and lo <= solidity <= hi:
            return suit
    return None


def pip_weight(area: int) -> float:
    """A pip's vote: a large pip's notches are many pixels deep, a small index pip's one or two
    (a heart's notch fills in and it looks a diamond): the square root of its area over a
    PIP_UNIT's, from 0.5 to 4."""
    return float(np.clip(np.sqrt(area / PIP_UNIT), 0.5, 4.0))


def suit_of(flat: np.ndarray) -> SuitCheck:
    """The pips' votes on a flat-fielded rectified card's suit (`SuitCheck`)."""
    votes = [0.0, 0.0, 0.0, 0.0]
    areas: list[list[int]] = [[], [], [], []]
    found = pips(flat)
    for area, solidity, notches, red in found:
        s = pip_suit(solidity, notches, red)
        if s is not None:
            votes[SUITS.index(s)] += pip_weight(area)
            areas[SUITS.index(s)].append(area)
    # the large pips of each suit: those of its colour as large as its largest voter, whatever their
    # own vote (a blurred heart's notch fills in, and it votes a diamond: it is a pip all the same)
    big = [
        sum(r == (SUITS[k] in "HD") and BIG_PIP * max(these) <= a <= max(these) / BIG_PIP for a, _, _, r in found)
        if these
        else 0
        for k, these in enumerate(areas)
    ]
    best = int(np.argmax(votes))
    share = 1.0
    if votes[best] > 0:
        # the pips of its colour and of its voters' size (not an index's glyph or a speck), voting or not
        mid = float(np.median(areas[best]))
        red = SUITS[best] in "HD"
        alike = sum(pip_weight(a) for a, _, _, r in found if r == red and 0.5 * mid <= a <= 2.0 * mid)
        share = min(1.0, sum(pip_weight(a) for a in areas[best] if 0.5 * mid <= a <= 2.0 * mid) / max(alike, 1e-6))
    return SuitCheck((votes[0], votes[1], votes[2], votes[3]), (big[0], big[1], big[2], big[3]), share)
