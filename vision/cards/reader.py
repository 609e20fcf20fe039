"""The card reader: detect, rectify, identify, track and place every card of a frame.

    reader = CardReader(CardDetector(), load_deck("beccato"), tracker=CardTracker(),
                        layout=TableLayout.default(["Anna", "Bruno", "Carla"]))
    cards = reader.read(frame.image)                  # CardDetections
    cards = reader.read(frame.image, possible=unseen)  # the referee's still-possible card ids

Each step is optional but the detector: with no deck the cards are found but not named; with no
tracker there are no track ids; with no layout no zones. With `snap` (the default) each detected
quad is snapped to the card's own outline when the contour finder sees it clearly nearby
(`rectify.snap_to_outline`): the detector's corner keypoints are a few percent off, and a crop
is only as aligned as its corners.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from vision.cards.detections import CardDetections, fold_orientation, orientation_of
from vision.cards.identify import Identification
from vision.cards.rectify import rectify, snap_to_outline
from vision.cards.templates import Deck
from vision.cards.track import CardTracker
from vision.cards.zones import TableLayout

MIN_CARD_SIDE = 12.0  # pixels: smaller quads are not read (their crop says nothing)


class CardReader:
    def __init__(self, detector, deck: Deck | None = None, tracker: CardTracker | None = None,
                 layout: TableLayout | None = None, snap: bool = True) -> None:
        self.detector = detector
        self.snap = snap
        self.deck = deck
        self.tracker = tracker
        self.layout = layout

    def identify(self, image: np.ndarray, cards: CardDetections,
                 possible: Iterable[str] | None = None) -> CardDetections:
        """A copy of `cards` with labels, confidences and orientations from the deck."""
        out = cards.copy()
        if self.deck is None or len(out) == 0:
            return out
        possible = list(possible) if possible is not None else None
        for i in range(len(out)):
            if self.snap:  # the card's own outline, where it is clear, is sharper than the keypoints
                out.corners[i] = snap_to_outline(image, out.corners[i])
            quad = out.corners[i]
            if min(np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)) < MIN_CARD_SIDE:
                continue
            templates = self.deck.faces if out.face_up[i] else self.deck.backs
            if templates is None:
                continue
            width = float(np.linalg.norm(quad[1] - quad[0]))
            ident: Identification = templates.identify(rectify(image, quad),
                                                       possible if out.face_up[i] else None, width=width)
            apply_identification(out, i, ident)
        return out

    def read(self, image: np.ndarray, possible: Iterable[str] | None = None) -> CardDetections:
        cards = self.identify(image, self.detector(image), possible)
        if self.tracker is not None:
            cards = self.tracker.update(cards)
        if self.layout is not None:
            cards = self.layout.assign(cards, (image.shape[1], image.shape[0]))
        return cards


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
