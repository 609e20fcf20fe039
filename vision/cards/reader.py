"""The card reader: detect, rectify, identify, track and place every card of a frame.

    reader = CardReader(CardDetector(), load_deck("beccato"), tracker=CardTracker(),
                        layout=TableLayout.default(["Anna", "Bruno", "Carla"]))
    cards = reader.read(frame.image)                  # CardDetections
    cards = reader.read(frame.image, possible=unseen)  # the referee's still-possible card ids

Each step is optional but the detector: with no deck the cards are found but not named; with no
tracker there are no track ids; with no layout no zones.

The detector's corner keypoints are off by a tenth of the card or more, and a crop is only as
aligned as its corners: with `snap` (the default) each detected quad is made precise. Without a
deck, `refine.snap_and_refine` (snapped to the card's outline, then each side searched for again
among the straight edges near it). With a deck, a few guesses at the corners
(`refine.candidate_quads`: that one, the quad snapped only, refined from the paper around its
centre, as detected, refined from a card outline around it) are read in turn until one reads
surely (confidence `sure`); the one whose crop matches a face best wins (a later guess by
`guess_margin`); at most `max_guesses` (six). With `align` (the default) a
card still not read surely but somewhat like a face of the deck (similarity `align_from` or
more: a hand or another deck's card is not worth the time) is laid onto each of its
`align_candidates` best templates (`refine.align_to_template`: ECC on the region around the
card) and read again from the corners that fit best; still unsure, the same from the next best
guesses, up to `align_guesses` in all. Measured numbers and costs: docs/card-reading.md.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable
from typing import Protocol

import cv2
import numpy as np

from vision.cards.corner_index import CORNER as INDEX_CORNER
from vision.cards.decks import CARD_SIZE_MM
from vision.cards.decks import deck as deck_cards
from vision.cards.detections import CardDetections
from vision.cards.geometry import fold_orientation, order_corners, orientation_of
from vision.cards.identify import SAME_COLOUR, SUIT_SWITCH, SURE, CropFeatures, Identification
from vision.cards.light import flat_field
from vision.cards.rectify import rectify
from vision.cards.refine import align_to_template, candidate_quads, snap_and_refine, snapped
from vision.cards.suits import suit_of
from vision.cards.templates import Deck
from vision.cards.track import CardTracker
from vision.cards.zones import TableLayout

INDEX_DECKS = ("french52", "french40")  # decks whose corner index `vision.cards.corner_index` reads
INDEX_GUESSES = 4  # the corners read for the index: the face's, then the other guesses at them
# An index read names a card its face left unknown from this confidence (tune split of the real
# photos: the index's wrong reads were at 0.57-0.81, its right ones mostly above 0.9)
INDEX_NAMES_FROM = 0.85
# a reading held below sure: a hundredth under it, so that it stays below once rounded to three
# places for the table (`vision.observe`; the stabiliser takes 0.9 as sure)
NOT_SURE = SURE - 0.01

MIN_CARD_SIDE = 12.0  # pixels: smaller quads are not read (their crop says nothing)
# a card the detector calls face down is read face up with its index corner this much paper
# (`paper_in_corner`): paper is under PAPER_SATURATION (HSV, 0-255) and over PAPER_VALUE of the
# crop's bright level
FACE_PAPER, PAPER_SATURATION, PAPER_VALUE = 0.5, 70.0, 0.6


class RowReader(Protocol):
    """What reads a frame's rows for `CardReader.identify` in place (`vision.cards.read_pool`)."""

    def read_rows(self, image: np.ndarray, cards: CardDetections, possible: list[str] | None, snap: bool) -> None: ...


NOT_READ = Identification(None, 0.0, False, False, -1.0, None, 0.0)  # no guess at the corners big enough to read


class CardReader:
    def __init__(
        self,
        detector,
        deck: Deck | None = None,
        tracker: CardTracker | None = None,
        layout: TableLayout | None = None,
        snap: bool = True,
        align: bool = True,
        align_candidates: int = 3,
        align_min_cc: float = 0.7,
        guess_margin: float = 0.03,
        sure: float = SURE,
        max_guesses: int = 6,
        align_from: float = 0.35,
        align_guesses: int = 2,
        index: bool = True,
    ) -> None:
        self.detector = detector
        self.snap = snap
        self.align = align
        self.align_candidates = align_candidates
        self.align_min_cc = align_min_cc
        self.guess_margin = guess_margin
        self.sure = sure
        self.max_guesses = max_guesses
        self.align_from = align_from
        self.align_guesses = align_guesses
        self.deck = deck
        self.aspect = deck_aspect(deck)
        self.tracker = tracker
        self.layout = layout
        # French decks: the corner index gives a second opinion (`_second_opinion`)
        self.index_reader = index and deck is not None and deck.base in INDEX_DECKS
        self.index_ids = [c.id for c in deck_cards(deck.base)] if deck is not None and deck.base in INDEX_DECKS else []
        self.pool: RowReader | None = None  # reads a frame's rows on several cores (`vision.cards.read_pool`)

    def __getstate__(self) -> dict:
        """What a reading process needs of the reader: its deck and settings, not its detector,
        tracker or pool (a `ReadingPool` sends the reader to its workers this way)."""
        state = dict(self.__dict__)
        state.update(detector=None, tracker=None, pool=None)
        return state

    def outline(self, image: np.ndarray, cards: CardDetections) -> CardDetections:
        """A copy with each quad made precise (`refine.snap_and_refine`), less the second guesses
        at a card (`drop_second_guesses`)."""
        out = cards.copy()
        snapped = np.zeros(len(out), bool)
        for i in range(len(out)):
            new = snap_and_refine(image, out.corners[i])
            snapped[i] = not np.array_equal(new, out.corners[i])
            out.corners[i] = new
        out = drop_second_guesses(out, snapped)
        out.orientation[:] = orientation_of(out.corners)
        return out

    def identify(
        self, image: np.ndarray, cards: CardDetections, possible: Iterable[str] | None = None, snap: bool | None = None
    ) -> CardDetections:
        """A copy of `cards` with labels, confidences, corners and orientations from the deck.

        With `snap` (by default the reader's setting) each quad is first made precise: of the
        guesses `refine.candidate_quads` makes at its corners, the one whose crop matches a
        face of the deck best. With `align`, an unsure reading is aligned on the deck's faces and
        read again (`aligned`)."""
        out = cards.copy()
        if self.deck is None or len(out) == 0:
            return out
        snap = self.snap if snap is None else snap
        possible = list(possible) if possible is not None else None
        if self.pool is not None and len(out) > 1:
            self.pool.read_rows(image, out, possible, snap)
        else:
            for i in range(len(out)):
                self.read_row(image, out, i, possible, snap)
        return out

    def read_row(self, image: np.ndarray, out: CardDetections, i: int, possible: list[str] | None, snap: bool) -> None:
        """Row `i` of `out` read in place (`identify`'s work for one card: rows are read
        independently of each other, so that a `ReadingPool` may read them in any process)."""
        assert self.deck is not None
        if not out.face_up[i] and self.index_reader and self.deck.faces is not None:
            # the detector's face-down class is often wrong on real photos (a face-up card
            # lying on or under another: docs/card-reading.md): a French card "face down" is
            # face up when an index corner shows paper round it and the face reads a card the
            # index agrees with, or the index alone reads it surely (an index alone reads a
            # red lattice back as a king, a plain pale back as a jack, both held below sure)
            quad, ident, agreed, face_known = self._read_one(
                image, out.corners[i], self.deck.faces, possible, snap, True
            )
            if (
                (face_known or ident.confidence >= self.sure)
                and ident.known
                and agreed
                and quad is not None
                and paper_in_corner(rectify(image, quad)) >= FACE_PAPER
            ):
                out.face_up[i] = True
                out.corners[i] = quad
                apply_identification(out, i, ident)
                return
        templates = self.deck.faces if out.face_up[i] else self.deck.backs
        if templates is None:
            if snap:
                out.corners[i] = snap_and_refine(image, out.corners[i])
                out.orientation[i] = orientation_of(out.corners[i])[0]
            return
        pos = possible if out.face_up[i] else None
        quad, ident, _, _ = self._read_one(image, out.corners[i], templates, pos, snap, bool(out.face_up[i]))
        if quad is None:
            return
        out.corners[i] = quad
        apply_identification(out, i, ident)

    def _read_one(
        self,
        image: np.ndarray,
        corners: np.ndarray,
        templates,
        pos: list[str] | None,
        snap: bool,
        face_up: bool,
    ) -> tuple[np.ndarray | None, Identification, bool, bool]:
        """One card read from its detected `corners` on `templates`: the corners read on (None:
        no guess big enough to read), the identification, and whether the corner index agreed
        with the face (read the same card), and whether the face alone read a card."""
        guesses = candidate_quads(image, corners, aspect=self.aspect) if snap else [corners]
        best = None
        tried = []
        for quad in itertools.islice(guesses, self.max_guesses):
            if min(np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)) < MIN_CARD_SIDE:
                continue
            width = float(np.linalg.norm(quad[1] - quad[0]))
            feats = templates.features(rectify(image, quad))  # made once, for the read and the alignment
            ident: Identification = templates.identify(None, pos, width=width, feats=feats)
            tried.append((ident.similarity, quad, ident, feats, width))
            # a later guess must match clearly better: among many crops one matches some face
            # by chance (measured: without the margin, more wrong reads)
            if best is None or ident.similarity > best[1].similarity + self.guess_margin:
                best = (quad, ident, feats, width)
            if best[1].known and best[1].confidence >= self.sure:
                break  # sure already: the other guesses would cost time for nothing
        if best is None:
            return None, NOT_READ, False, False
        quad, ident, feats, width = best
        if self.align and (not ident.known or ident.confidence < self.sure) and ident.similarity >= self.align_from:
            quad, ident = self.aligned(image, quad, feats, templates, pos, width, ident)
            # still unsure: the next best guesses are aligned the same way (a guess a few
            # percent off, that read worse, may align where the best one did not)
            for sim, q2, i2, f2, w2 in sorted(tried, key=lambda x: -x[0])[1 : self.align_guesses]:
                if ident.known and ident.confidence >= self.sure or sim < self.align_from:
                    break
                nq, ni = self.aligned(image, q2, f2, templates, pos, w2, i2)
                if ni.known and ni.similarity > ident.similarity + self.guess_margin:
                    quad, ident = nq, ni
        agreed = False
        face_known = ident.known
        if self.index_reader and face_up:
            quad, ident, agreed = self._second_opinion(image, quad, ident, pos, [q for _, q, *_ in tried])
        if not ident.known and snap:
            # the guesses serve the read: an unread card (under a hand, another deck's) keeps
            # the plain snapped quad, which a tracker can follow from frame to frame
            quad = order_corners(snapped(image, corners)[None], hint=corners[None])[0]
        return quad, ident, agreed, face_known

    def _second_opinion(
        self,
        image: np.ndarray,
        quad: np.ndarray,
        ident: Identification,
        possible: list[str] | None,
        guesses: list[np.ndarray],
    ) -> tuple[np.ndarray, Identification, bool]:
        """A French card's corner index (`vision.cards.corner_index`), read on the corners the
        face was read on and the other guesses at them: it names a card the face left unknown
        (below sure unless the index itself is sure), it makes unknown a face read it
        contradicts (its card in the deck or not), but for the card of the same rank and colour,
        which it names when the pips' shapes do not vote against its suit (sure when they vote
        for it: the face tells a club from a spade worst), and it leaves an agreeing read as it
        was. French decks share their corner
        index whatever their design, so the check holds for a deck never seen."""
        from vision.cards.corner_index import read_index  # deferred: its weights load on first use

        ids = self.index_ids  # every card of the base deck: a card missing from an enrolled deck stays itself
        best = None
        for q in [quad, *[g for g in guesses if g is not quad]][:INDEX_GUESSES]:
            r = read_index(rectify(image, q), possible=ids)
            if best is None or r.confidence > best[0].confidence:
                best = (r, q)
            if r.sure:
                break
        assert best is not None
        read, q = best
        if read.unknown or read.card is None:
            return quad, ident, False  # the index has no opinion
        label = self.deck.faces.label_of(read.card) if self.deck is not None else None
        if ident.known:
            if ident.label == label:
                return quad, ident, True
            if label is not None and read.confidence >= INDEX_NAMES_FROM and _suit_sibling(ident.label, read.card):
                # the face and the index agree on the rank and the colour, not on the suit: where the
                # face is weakest (a club and a spade of one printing differ by a few pixels) and the
                # index reads the pip itself; the pips' shapes (`vision.cards.suits`) then decide
                pips = suit_of(flat_field(rectify(image, q)))
                if not pips.against(read.card[-1]):
                    sure = pips.says(read.card[-1], SUIT_SWITCH)
                    confidence = read.confidence if sure else min(read.confidence, NOT_SURE)
                    return q, dataclasses.replace(ident, label=label, confidence=confidence, upside_down=False), True
            # a contradiction, the index's card in the deck or not (a card the deck lacks is
            # read as its nearest enrolled face): unknown
            return (
                quad,
                dataclasses.replace(ident, label=None, confidence=min(ident.confidence, read.confidence)),
                False,
            )
        if label is None or read.confidence < INDEX_NAMES_FROM:
            return quad, ident, False
        # the index alone names the card: sure only when both its corners read that card alone
        # (a quad astride two cards, or one that cuts a corner off, shows one index or two unlike)
        # and the crop is somewhat like a face (a back read as a face shows no face at all)
        sure = read.agree and ident.similarity >= self.align_from
        confidence = read.confidence if sure else min(read.confidence, NOT_SURE)
        return q, dataclasses.replace(ident, label=label, confidence=confidence, upside_down=False), True

    def aligned(
        self,
        image: np.ndarray,
        quad: np.ndarray,
        feats: CropFeatures,
        templates,
        possible: list[str] | None,
        width: float,
        ident: Identification,
    ) -> tuple[np.ndarray, Identification]:
        """An unsure card aligned and read again: its region laid onto each of its best few templates
        (`align_to_template`), or, for a face the embedding cannot tell from others
        (`CardIdentifier.alike`: a 9 of clubs and a 9 of spades), onto what those faces share
        (`CardIdentifier.shared_face`, once for them all): laid onto the spade's own template, a club
        is warped to fit the spade, and the second look between the two then favours the spade
        (measured: docs/card-reading.md); of the alignments that fit (ECC correlation at least
        `align_min_cc`: on held-out scenes three in four alignments onto the right face reached
        0.73, half of those onto a wrong one stayed under 0.57; a hand over the card stays low),
        the corners under which a template matches best, when it matches better than before, and
        the card read again from them. Else the quad and reading given."""
        sims = templates.similarities(None, feats, width)  # (2 rotations, T)
        best = sims.max(axis=0)
        base = float(best.max())
        tried = []
        seen = set()
        for k in np.argsort(-best)[: self.align_candidates]:
            group = templates.alike(int(k))
            if group in seen:
                continue
            seen.add(group)
            new, cc = align_to_template(image, quad, templates.shared_face(group), bool(sims[1, k] > sims[0, k]))
            if (
                new is None
                or cc < self.align_min_cc
                or min(np.linalg.norm(new - np.roll(new, -1, axis=0), axis=1)) < MIN_CARD_SIDE
            ):
                continue
            f2 = templates.features(rectify(image, new))
            tried.append((float(templates.similarities(None, f2, width)[:, list(group)].max()), new, f2))
        if not tried:
            return quad, ident
        s2, new, f2 = max(tried, key=lambda x: x[0])
        if s2 <= base:
            return quad, ident
        again = templates.identify(None, possible, width=width, feats=f2)
        if again.similarity <= ident.similarity:
            return quad, ident
        return new, again

    def read(self, image: np.ndarray, possible: Iterable[str] | None = None) -> CardDetections:
        cards = self.detector(image)
        if self.snap and self.deck is not None:
            raw = cards.corners.copy()
            cards = self.identify(image, cards, possible)
            cards = drop_second_guesses(cards, np.any(cards.corners != raw, axis=(1, 2)))
        elif self.snap:
            cards = self.outline(image, cards)
        else:
            cards = self.identify(image, cards, possible)
        if self.tracker is not None:
            cards = self.tracker.update(cards)
        if self.layout is not None:
            cards = self.layout.assign(cards, (image.shape[1], image.shape[0]))
        return cards


def paper_in_corner(crop: np.ndarray) -> float:
    """The share of paper (bright, nearly colourless) in the crop's more papery index corner
    (its top-left `CORNER` or its bottom-right one): a French face's index is ink on paper, a
    back's corner its pattern (the fixed designs' rendered backs: 0.25-0.32; a pale plain back
    or a wide white border: up to 1.0, so paper alone never makes a face; real faces read face
    up on the tune split: 0.5 and more, mostly)."""
    hsv = cv2.cvtColor(np.asarray(crop), cv2.COLOR_BGR2HSV).astype(np.float32)
    v, s = hsv[..., 2], hsv[..., 1]
    paper = (s < PAPER_SATURATION) & (v > PAPER_VALUE * float(np.percentile(v, 95)))
    h, w = paper.shape
    ch, cw = max(1, int(h * INDEX_CORNER[1])), max(1, int(w * INDEX_CORNER[0]))
    return float(max(paper[:ch, :cw].mean(), paper[h - ch :, w - cw :].mean()))


def _suit_sibling(face: str | None, card: str) -> bool:
    """Whether two French card ids ("KC", "KS") differ by their suit alone, within one colour."""
    if face is None or len(face) < 2 or len(card) < 2:
        return False
    return face[:-1] == card[:-1] and SAME_COLOUR.get(face[-1]) == card[-1]


def deck_aspect(deck: Deck | None) -> float | None:
    """Width over height of the deck's cards, when the deck it follows is known."""
    if deck is None or not deck.base:
        return None

    w, h = CARD_SIZE_MM.get(deck.base, (0.0, 0.0))
    return w / h if h else None


# A read lying at least this share inside a larger read of the same card is a part of that card
SAME_CARD_INSIDE = 0.6


def drop_second_guesses(cards: CardDetections, snapped: np.ndarray) -> CardDetections:
    """`cards` less each detection lying mostly (80%) inside a more confident one whose corners
    were made precise (`snapped`): a second guess at that card (a card that hidden under a
    clearly visible one is not a detection in the first place); and less each read lying mostly
    (SAME_CARD_INSIDE) inside a larger one read as the same card: a part of it (the detector
    broke the card up, and the part's index named it), not a second card of that name."""
    return cards[not_second_guesses(cards, snapped)]


def not_second_guesses(cards: CardDetections, snapped: np.ndarray) -> np.ndarray:
    """The rows `drop_second_guesses` keeps, as a mask."""
    keep = np.ones(len(cards), bool)
    order = np.argsort(-cards.confidence, kind="stable")
    for n, i in enumerate(order):
        if not keep[i]:
            continue
        for j in order[n + 1 :]:  # the less confident only
            if keep[j] and snapped[i] and _inside(cards.corners[j], cards.corners[i]) >= 0.8:
                keep[j] = False
    labels = cards.label
    named = [x for x in labels if x is not None]
    if len(set(named)) == len(named):  # no name read twice: no part of a card read as that card
        return keep
    areas = [abs(float(cv2.contourArea(np.asarray(q, np.float32)))) for q in cards.corners]
    for i in range(len(cards)):
        for j in range(len(cards)):
            if (
                i != j
                and keep[i]
                and keep[j]
                and labels[j] is not None
                and labels[j] == labels[i]
                and areas[j] < areas[i]
                and _inside(cards.corners[j], cards.corners[i]) >= SAME_CARD_INSIDE
            ):
                keep[j] = False
    return keep


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
