"""The card reader: detect, rectify, identify, track and place every card of a frame.

    reader = CardReader(CardDetector(), load_deck("beccato"), tracker=CardTracker(),
                        layout=TableLayout.default(["Anna", "Bruno", "Carla"]))
    cards = reader.read(frame.image)                  # CardDetections
    cards = reader.read(frame.image, possible=unseen)  # the referee's still-possible card ids

Each step is optional but the detector: with no deck the cards are found but not named; with no
tracker there are no track ids; with no layout no zones. With `snap` (the default) each detected
quad is made precise (`refine.refine_corners`): snapped to the card's own outline when the
contour finder sees it clearly nearby, its sides moved onto the paper's edges when that makes
the card stand out more, then each side searched for again among the straight edges near it.
The detector's corner keypoints are off by a tenth of the card or more, and a crop is only as
aligned as its corners. With `align` (the default) a card that is not read surely (unknown, or
a confidence under `align_below`) is laid onto each of its `align_candidates` best templates
(`refine.align_to_template`: ECC on the region around the card) and read again from the
corners that fit best. Measured numbers: docs/card-reading.md.
"""

from __future__ import annotations

from typing import Iterable

import cv2
import numpy as np

from vision.cards.detections import CardDetections, fold_orientation, orientation_of
from vision.cards.identify import Identification
from vision.cards.rectify import rectify
from vision.cards.refine import align_to_template, refine_corners
from vision.cards.templates import Deck
from vision.cards.track import CardTracker
from vision.cards.zones import TableLayout

MIN_CARD_SIDE = 12.0  # pixels: smaller quads are not read (their crop says nothing)


class CardReader:
    def __init__(self, detector, deck: Deck | None = None, tracker: CardTracker | None = None,
                 layout: TableLayout | None = None, snap: bool = True, align: bool = True,
                 align_below: float = 0.9, align_candidates: int = 3, align_min_cc: float = 0.7) -> None:
        self.detector = detector
        self.snap = snap
        self.align = align
        self.align_below = align_below
        self.align_candidates = align_candidates
        self.align_min_cc = align_min_cc
        self.deck = deck
        self.tracker = tracker
        self.layout = layout

    def outline(self, image: np.ndarray, cards: CardDetections) -> CardDetections:
        """A copy with each quad snapped to the card's outline where it is clear; a detection
        lying mostly (80%) inside a snapped card is a second guess at that card and is dropped
        (a card that hidden under a clearly visible one is not a detection in the first place)."""
        out = cards.copy()
        snapped = np.zeros(len(out), bool)
        for i in range(len(out)):
            new = refine_corners(image, out.corners[i])
            snapped[i] = not np.array_equal(new, out.corners[i])
            out.corners[i] = new
        keep = np.ones(len(out), bool)
        for i in np.argsort(-out.confidence):
            if not keep[i]:
                continue
            for j in range(len(out)):
                if j != i and keep[j] and snapped[i] and _inside(out.corners[j], out.corners[i]) >= 0.8:
                    keep[j] = False
        out = out[keep]
        out.orientation[:] = orientation_of(out.corners)
        return out

    def identify(self, image: np.ndarray, cards: CardDetections,
                 possible: Iterable[str] | None = None, snap: bool | None = None) -> CardDetections:
        """A copy of `cards` with labels, confidences and orientations from the deck (each quad
        first snapped to its outline when `snap`, by default the reader's setting)."""
        out = cards.copy()
        if self.deck is None or len(out) == 0:
            return out
        snap = self.snap if snap is None else snap
        possible = list(possible) if possible is not None else None
        for i in range(len(out)):
            if snap:  # the card's own outline, where it is clear, is sharper than the keypoints
                out.corners[i] = refine_corners(image, out.corners[i])
            quad = out.corners[i]
            if min(np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)) < MIN_CARD_SIDE:
                continue
            templates = self.deck.faces if out.face_up[i] else self.deck.backs
            if templates is None:
                continue
            width = float(np.linalg.norm(quad[1] - quad[0]))
            pos = possible if out.face_up[i] else None
            crop = rectify(image, quad)
            ident: Identification = templates.identify(crop, pos, width=width)
            if self.align and (not ident.known or ident.confidence < self.align_below):
                quad, ident = self.aligned(image, quad, crop, templates, pos, width, ident)
                out.corners[i] = quad
            apply_identification(out, i, ident)
        return out

    def aligned(self, image: np.ndarray, quad: np.ndarray, crop: np.ndarray, templates,
                possible: list[str] | None, width: float, ident: Identification) -> tuple[np.ndarray, Identification]:
        """A second look at an unsure card: its region laid onto each of its best few templates
        (`align_to_template`); of the alignments that fit (ECC correlation at least
        `align_min_cc`: on held-out scenes three in four alignments onto the right face reached
        0.73, half of those onto a wrong one stayed under 0.57; a hand over the card stays low),
        the corners under which a template matches best, when it matches better than before, and
        the card read again from them. Else the quad and reading given."""
        sims = templates.similarities(crop, width=width)  # (2 rotations, T)
        best = sims.max(axis=0)
        base = float(best.max())
        tried = []
        for k in np.argsort(-best)[:self.align_candidates]:
            new, cc = align_to_template(image, quad, templates.images[int(k)], bool(sims[1, k] > sims[0, k]))
            if new is None or cc < self.align_min_cc or min(np.linalg.norm(new - np.roll(new, -1, axis=0), axis=1)) < MIN_CARD_SIDE:
                continue
            s2 = float(templates.similarities(rectify(image, new), width=width)[:, k].max())
            tried.append((s2, new))
        if not tried:
            return quad, ident
        s2, new = max(tried, key=lambda x: x[0])
        if s2 <= base:
            return quad, ident
        again = templates.identify(rectify(image, new), possible, width=width)
        if again.similarity <= ident.similarity:
            return quad, ident
        return new, again

    def read(self, image: np.ndarray, possible: Iterable[str] | None = None) -> CardDetections:
        cards = self.detector(image)
        if self.snap:
            cards = self.outline(image, cards)
        cards = self.identify(image, cards, possible, snap=False)
        if self.tracker is not None:
            cards = self.tracker.update(cards)
        if self.layout is not None:
            cards = self.layout.assign(cards, (image.shape[1], image.shape[0]))
        return cards


def _inside(a: np.ndarray, b: np.ndarray) -> float:
    """The fraction of quad `a` that lies inside quad `b`."""
    inter, _ = cv2.intersectConvexConvex(np.asarray(a, np.float32), np.asarray(b, np.float32))
    return float(inter) / max(float(cv2.contourArea(np.asarray(a, np.float32))), 1e-6)


def apply_identification(cards: CardDetections, i: int, ident: Identification) -> None:
    """Write one identification into row `i`: label, confidence, corners and orientation.

    A card that matched its template turned 180 degrees has its corners turned too, so corner 0
    is the top-left of the face as printed; a symmetric face's orientation is folded to
    [-90, 90) (up and down cannot be told apart)."""
    cards.label[i] = ident.label
    cards.label_confidence[i] = ident.confidence
    if ident.upside_down:
        cards.corners[i] = np.roll(cards.corners[i], -2, axis=0)
    deg = orientation_of(cards.corners[i])[0]
    cards.orientation[i] = fold_orientation(deg)[()] if ident.symmetric else deg
