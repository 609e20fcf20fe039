"""Read a French card's corner index (rank and suit) from the card rectified upright.

A French deck prints the same index in two opposite corners whatever its maker (Bicycle,
Modiano, Dal Negro...): a rank (A, 2-10, J, Q, K) over a small suit pip. So a card can be named
with no enrolment by reading that index. `read_index(card)` takes a card rectified to a
portrait rectangle (`vision.cards.rectify.rectify`, any size; `CANONICAL_SIZE` 120 x 180 works)
and reads the top-left corner and the bottom-right one turned 180 degrees (`corner_patch`),
each by a small classifier with two heads, one for the rank and one for the suit (the pip's
shape tells hearts from diamonds and spades from clubs; its colour tells red from black), and a
"no index here" class in each. The two corners are combined (`combine`): a corner that sees no
index is left out; two that see one multiply their beliefs, so a disagreement makes the read
unsure. Below `MIN_CONFIDENCE` the read is `unknown`; at `SURE` or more it is sure.

The classifier (features: `features`; weights: models/corner_index/, its model card there) was
trained on synthetic indices (`vision.cards.index_synth`) mixed with real index corners cut from
the Apache-2.0 edje photos that no evaluation holds out (`scripts/train_corner_index.py`), and
checked on the held-out real photos (`scripts/eval_corner_index.py`). It runs in numpy, well under a
millisecond a card. Nothing is downloaded.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable
from pathlib import Path

import cv2
import numpy as np

from referee.core import RefereeError
from vision.cards.detector import MODELS_DIR

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")  # spades, hearts, diamonds, clubs (card ids: "QS", "10H")
CORNER = (0.28, 0.32)  # the index corner: fraction of the rectified card's width and height
PATCH = (40, 60)  # (w, h) pixels the corner is read at
# under this the read is unknown (chosen on the real photos' tune split: models/corner_index/README.md)
MIN_CONFIDENCE = 0.55
SURE = 0.9  # a read at this confidence or more is sure (the project's bar, `vision.cards.identify.SURE`)
SCALES = (0.9, 1.0, 1.12)  # each corner read at these sizes of CORNER, its probabilities averaged (tune split)
MIN_INDEX = 0.5  # a corner whose "no index here" probability is over 1 - MIN_INDEX is left out
# each corner's own probability for the card read, for the two corners to agree (`IndexRead.agree`):
# two blank or patterned corners otherwise "agree" on a weak guess (a pale plain back read as JS)
AGREE_FROM = 0.85

MODEL_DIR = MODELS_DIR / "corner_index"  # packaged in the wheel, or the repository's models/
MODEL_FILE = "corner_index.npz"


class IndexModelMissing(RefereeError):
    """The corner-index model's weights are not where they should be."""


@dataclasses.dataclass(frozen=True)
class IndexRead:
    """What a card's corner index says.

    rank, suit: the best reading ("10", "H"), given even when unsure; confidence: 0..1, the
    rank's and suit's probabilities multiplied; unknown: too unsure to name the card (then
    `card` is None); corners: how many of the two corners showed an index (0, 1 or 2).
    """

    rank: str | None
    suit: str | None
    confidence: float
    unknown: bool
    rank_confidence: float = 0.0
    suit_confidence: float = 0.0
    corners: int = 0
    agree: bool = False  # both corners show an index and each alone reads the same rank and suit

    @property
    def card(self) -> str | None:
        """The card id ("QS", "10H"), None when unknown."""
        if self.unknown or self.rank is None or self.suit is None:
            return None
        return self.rank + self.suit

    @property
    def sure(self) -> bool:
        return not self.unknown and self.confidence >= SURE


# --- the patch and its features ---------------------------------------------------------------
def corner_patch(card: np.ndarray, turned: bool = False, scale: float = 1.0) -> np.ndarray:
    """The top-left CORNER of a rectified card (BGR or grey), at PATCH; `turned`: of the card
    turned 180 degrees (its bottom-right corner, upright); `scale`: of the corner's size."""
    if card.ndim == 2:
        card = cv2.cvtColor(card, cv2.COLOR_GRAY2BGR)
    if turned:
        card = cv2.rotate(card, cv2.ROTATE_180)
    h, w = card.shape[:2]
    x1, y1 = max(2, int(round(w * CORNER[0] * scale))), max(2, int(round(h * CORNER[1] * scale)))
    sub = card[:y1, :x1]
    interp = cv2.INTER_AREA if x1 > PATCH[0] else cv2.INTER_LINEAR
    return cv2.resize(sub, PATCH, interpolation=interp)


_HOG = cv2.HOGDescriptor(PATCH, (8, 8), (4, 4), (4, 4), 9)  # 4-pixel cells: a small pip's point or lobes
GREY_SMALL = (16, 24)
CHROMA_SMALL = (8, 12)


def features(patch: np.ndarray) -> np.ndarray:
    """(D,) float32 of a PATCH-sized BGR patch: gradient histograms of its grey (the glyphs'
    shapes), its grey at 16 x 24 with the paper's level and the ink's contrast taken out, and
    its redness at 8 x 12 against the paper's (the ink's colour)."""
    grey = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY).astype(np.float32)
    lo, hi = np.percentile(grey, (3, 90))
    g = np.clip((grey - lo) / max(float(hi - lo), 12.0), 0, 1.2)
    hog = np.asarray(_HOG.compute(np.clip(g * 200, 0, 255).astype(np.uint8))).ravel()
    small = cv2.resize(g, GREY_SMALL, interpolation=cv2.INTER_AREA).ravel() - 0.7
    lab = cv2.cvtColor(patch, cv2.COLOR_BGR2LAB).astype(np.float32)
    paper = grey >= np.percentile(grey, 60)
    ref = lab[paper][:, 1:].mean(axis=0) if paper.any() else np.full(2, 128.0, np.float32)
    a = cv2.resize(lab[:, :, 1] - ref[0], CHROMA_SMALL, interpolation=cv2.INTER_AREA).ravel() / 30.0
    dark = grey <= np.percentile(grey, 15)
    ink = (lab[dark][:, 1:].mean(axis=0) - ref) / 30.0 if dark.any() else np.zeros(2, np.float32)
    return np.concatenate([hog, small, a, ink]).astype(np.float32)


def features_of(patches: np.ndarray) -> np.ndarray:
    """(N, D) `features` of (N, h, w, 3) patches."""
    return np.stack([features(p) for p in patches])


# --- the classifier ---------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class IndexModel:
    """A two-layer perceptron with a rank head (RANKS + none) and a suit head (SUITS + none),
    on standardised `features`."""

    mean: np.ndarray
    scale: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    wr: np.ndarray
    br: np.ndarray
    ws: np.ndarray
    bs: np.ndarray

    FIELDS = ("mean", "scale", "w1", "b1", "w2", "b2", "wr", "br", "ws", "bs")

    @classmethod
    def load(cls, path: Path | str | None = None) -> IndexModel:
        path = Path(path) if path is not None else MODEL_DIR / MODEL_FILE
        if not path.is_file():
            raise IndexModelMissing(
                f"The corner-index model is not at {path}: train it with scripts/train_corner_index.py."
            )
        with np.load(path) as z:
            return cls(**{k: z[k].astype(np.float32) for k in cls.FIELDS})

    def save(self, path: Path | str) -> None:
        """Weights as float16 (half the file; the reads agree with float32's to 1e-3)."""
        np.savez_compressed(path, **{k: getattr(self, k).astype(np.float16) for k in self.FIELDS})

    def probabilities(self, feats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(N, 14) rank and (N, 5) suit probabilities (the last column: no index)."""
        x = (np.atleast_2d(feats) - self.mean) / self.scale
        h = np.maximum(x @ self.w1 + self.b1, 0)
        h = np.maximum(h @ self.w2 + self.b2, 0)
        return softmax(h @ self.wr + self.br), softmax(h @ self.ws + self.bs)


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


@functools.lru_cache(maxsize=1)
def default_model() -> IndexModel:
    """The shipped model (models/corner_index/corner_index.npz), loaded once."""
    return IndexModel.load()


# --- reading ----------------------------------------------------------------------------------
def combine(
    rank_p: np.ndarray,
    suit_p: np.ndarray,
    min_confidence: float = MIN_CONFIDENCE,
    possible: Iterable[str] | None = None,
) -> IndexRead:
    """One read from the corners' probabilities ((K, 14) and (K, 5), the last column "no
    index"): the corners that show an index (MIN_INDEX) multiply their beliefs over the ranks
    and over the suits; the confidence is the best rank's times the best suit's. `possible`:
    card ids ("QS", "10H"); the ranks and suits none of them has are left out (a 40-card deck
    has no 8, 9 or 10)."""
    seen = [(r, s) for r, s in zip(rank_p, suit_p) if (1 - r[-1] + 1 - s[-1]) / 2 >= MIN_INDEX]
    if not seen:
        return IndexRead(None, None, 0.0, True, corners=0)
    lr = np.sum([np.log(np.maximum(r[:-1] / max(r[:-1].sum(), 1e-9), 1e-9)) for r, _ in seen], axis=0)
    ls = np.sum([np.log(np.maximum(s[:-1] / max(s[:-1].sum(), 1e-9), 1e-9)) for _, s in seen], axis=0)
    if possible is not None:
        ids = [str(c).upper() for c in possible]
        lr = np.where([any(c[:-1] == r for c in ids) for r in RANKS], lr, -np.inf)
        ls = np.where([any(c[-1:] == t for c in ids) for t in SUITS], ls, -np.inf)
        if not np.isfinite(lr).any() or not np.isfinite(ls).any():
            return IndexRead(None, None, 0.0, True, corners=len(seen))
    pr, ps = softmax(lr[None])[0], softmax(ls[None])[0]
    # the index is there as much as the least sure corner says (a half-seen one tempers it)
    there = min((1 - r[-1]) * (1 - s[-1]) for r, s in seen)
    i, j = int(np.argmax(pr)), int(np.argmax(ps))
    conf = float(pr[i] * ps[j] * min(1.0, there / 0.9))
    # both corners read that card alone, each surely (two blank corners "agree" on a weak guess)
    agree = len(seen) == 2 and all(
        int(np.argmax(np.where(np.isfinite(lr), r[:-1], -1.0))) == i
        and int(np.argmax(np.where(np.isfinite(ls), s[:-1], -1.0))) == j
        and r[i] / max(r[:-1].sum(), 1e-9) * s[j] / max(s[:-1].sum(), 1e-9) >= AGREE_FROM
        for r, s in seen
    )
    return IndexRead(
        RANKS[i], SUITS[j], conf, conf < min_confidence, float(pr[i]), float(ps[j]), corners=len(seen), agree=agree
    )


def read_index(
    card_image_rectified: np.ndarray,
    model: IndexModel | None = None,
    min_confidence: float = MIN_CONFIDENCE,
    scales: tuple[float, ...] = SCALES,
    possible: Iterable[str] | None = None,
) -> IndexRead:
    """The rank and suit printed in the corners of a French card rectified upright or upside
    down (portrait, any size: `vision.cards.rectify.rectify`), from its top-left and its
    bottom-right corner turned; `unknown` when unsure (or when no corner shows an index).
    `possible`: the card ids the deck has (`combine`); `scales`: the corner's sizes read."""
    card = np.asarray(card_image_rectified)
    if card.ndim not in (2, 3) or card.shape[0] < 8 or card.shape[1] < 8:
        return IndexRead(None, None, 0.0, True)
    if card.dtype != np.uint8:
        card = np.clip(card, 0, 255).astype(np.uint8)
    model = model or default_model()
    feats = np.stack([features(corner_patch(card, turned, sc)) for turned in (False, True) for sc in scales])
    rank_p, suit_p = model.probabilities(feats)
    k = len(scales)  # each corner's reads at its scales averaged
    rank_p = rank_p.reshape(2, k, -1).mean(axis=1)
    suit_p = suit_p.reshape(2, k, -1).mean(axis=1)
    return combine(rank_p, suit_p, min_confidence, possible)
