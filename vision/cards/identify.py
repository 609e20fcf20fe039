"""Which card is this? A rectified crop against a deck's faces, with a confidence.

`CardIdentifier` compares a crop, upright and turned 180 degrees (which says which way up the
card lies), with each face of the deck: by hand-made features (the light divided out, then the
whole face's grey, its index corner, its chroma and the colour of its print) and, when the model
ships, by the cosine of their embeddings (`vision.cards.embed`). A softmax over each face's best
rotation gives the confidence. Faces the embedding cannot tell apart (outlined clubs and spades,
suit-symbol siblings) are decided between by a second look at their grey. A crop like no face,
or too unsure, is unknown (label None); the referee's `possible` card ids settle near ties.

Terms and how each feature, weight and bar was chosen: docs/card-reading.md ("Identification").
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

import cv2
import numpy as np

from vision.cards import embed
from vision.cards.light import flat_field, turned
from vision.cards.suits import SUITS, SuitCheck, suit_of

FACE_GREY_SIZE = (30, 45)  # (w, h) of the whole face's grey in the first comparison
CORNER = (0.24, 0.22)  # the index corner: fraction of width and height
CORNER_SIZE = (24, 32)
CHROMA_SIZE = (10, 15)
_R = 1
SHIFTS = tuple((dx, dy) for dx in range(-_R, _R + 1) for dy in range(-_R, _R + 1))  # in FACE_GREY_SIZE pixels
WEIGHTS = (0.4, 0.25, 0.1, 0.25)  # whole face, index corner, chroma, ink colour (measured: docs/card-reading.md)
REFINE_WEIGHT = 0.3  # of the gradient histograms in the second look at near ties (hand-made features alone)
MIN_SIMILARITY_HAND, MIN_CONFIDENCE_HAND = 0.55, 0.5  # a known read, hand-made features alone
MIN_SIMILARITY_WITH_EMBED, MIN_CONFIDENCE_WITH_EMBED = 0.65, 0.55  # ... with the embedding
EMBED_WEIGHT = 0.7  # of the embeddings' cosine similarity, against the hand-made features'
SURE = 0.9  # a read at this confidence or more is sure (how often such reads are wrong: docs/card-reading.md)
FIT_FOR_SURE = 0.8  # ... and only when its crop is this like its face (with the embedding; measured there)
# templates whose embeddings are this alike: the second look (`grey_similarity`) decides between them
EMBED_BLIND = 0.95
HAND_ALIKE = 0.85  # ... or whose hand-made scores against each other are this high (measured: docs/card-reading.md)
GREY_SIZE = (60, 90)  # (w, h) of the second look's grey, between faces the embedding cannot tell apart
# templates' grey at GREY_SIZE, blurred this much (pixels): as sharp as the crop
GREY_BLURS = (0.0, 0.7, 1.2, 1.8, 2.5, 3.5)
GREY_NORM = 1.0  # the local brightness and contrast taken out over this blur (pixels at GREY_SIZE) ...
GREY_FLOOR = 10.0  # ... the contrast no less than this (grey levels): flat paper's noise is not made an edge
# a second look whose best grey correlation is under this names no face: the crop fits none (a real 2 of clubs
# against our own printing's: 0.13)
GREY_FIT = 0.15
GREY_HAND = 1 / 30  # the hand-made score's weight against the grey's there: it parts only equal shapes
# of the softmax over the grey correlations (fitted to how often a margin was right, from the corners the reader
# found: seeds 7, 11, 31, drawn and enrolled templates)
GREY_TEMPERATURE = 0.03
SIBLING_INK = 20.0  # faces that differ by their suit symbol alone, printed in colours this near (Lab a, b), are alike
# (one photo per card: a club's and a spade's measured up to 25.6 apart, 95% within 17 and 99% within 21:
# docs/card-reading.md)
_RE = 2  # the grey comparison's shifts, in GREY_SIZE pixels
# The suit check (`vision.cards.suits`), on French faces: a read whose pips vote for another suit is
# named that suit's card (same rank) when the pips outvote the rest by SUIT_SWITCH (a big pip's
# vote, or three index pips') and that face is of the same colour (its print differs by the pip
# alone) or within SUIT_NEAR of the best (similarity), else unknown; a read the pips do not back
# by SUIT_BACKED is not sure (docs/card-reading.md, "The suit check")
SUIT_SWITCH = 2.0
SUIT_NEAR = 0.1
SUIT_BACKED = 1.0
PIPS_AGREE = 0.8  # the confidence of a read the face alone left unknown that its pips name
PIP_RANKS = {"A": 1, **{str(v): v for v in range(2, 11)}}
NOTCHLESS = ("D", "S")  # the suits whose pips a blur can fake (`_suit_checked`)
SAME_COLOUR = {"S": "C", "C": "S", "H": "D", "D": "H"}
FRENCH_LABEL = re.compile(r"^(10|[2-9AJQK])([SHDC])$")


def _face_grey(crop: np.ndarray, margin: int = _R) -> np.ndarray:
    """(H+2m, W+2m) float32 blurred grey, unnormalised, with a margin for shifting."""
    gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    w, h = FACE_GREY_SIZE
    small = cv2.resize(gray, (w + 2 * margin, h + 2 * margin), interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(small.astype(np.float32), (3, 3), 0)


def _norm(v: np.ndarray) -> np.ndarray:
    v = v.reshape(v.shape[0], -1).astype(np.float32)
    v = v - v.mean(axis=1, keepdims=True)
    return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-6)


EDGE_MARGIN = 0.1  # of the card's width and height, left out of the whole-face features


def _inner(crop: np.ndarray) -> np.ndarray:
    """The crop without a band along its edges: where corner errors, a frame printed near the
    edge and the table showing past a rounded corner differ most from one photo to the next."""
    if EDGE_MARGIN <= 0:
        return crop
    h, w = crop.shape[:2]
    mx, my = int(round(w * EDGE_MARGIN)), int(round(h * EDGE_MARGIN))
    return crop[my : h - my, mx : w - mx]


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), 1e-6)


def _chroma(crop: np.ndarray) -> np.ndarray:
    lab = cv2.cvtColor(cv2.resize(crop, CHROMA_SIZE, interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2LAB)
    ab = lab[:, :, 1:].astype(np.float32) - 128.0
    return ab.reshape(-1)


INK_SIZE = (40, 60)
INK_SHARE = 0.12  # the darkest eighth of the face: its print
INK_SCALE = 30.0  # ink colours this far apart (Lab a, b) score 0


def _ink(crop: np.ndarray) -> np.ndarray:
    """(a, b) of the face's print: the mean Lab chroma of its darkest pixels, whatever the
    paper's own cast (a blotchy light, a tinted photo), which the whole-face chroma mixes in. A
    red and a black face of a built-in French deck differ here by 14 (2s, outlined) to 72 (aces,
    filled); two faces of one colour enrolled from photos, by up to 26 (docs/card-reading.md)."""
    lab = cv2.cvtColor(cv2.resize(crop, INK_SIZE, interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2LAB).reshape(-1, 3)
    lum = lab[:, 0].astype(np.float32)
    dark = lum <= np.percentile(lum, 100 * INK_SHARE)
    return lab[dark, 1:].astype(np.float32).mean(axis=0) - 128.0


def _corner(crop: np.ndarray, margin: int = 2) -> np.ndarray:
    """(H+2m, W+2m) float32 grey of the top-left index corner, sharper than the whole face."""
    h, w = crop.shape[:2]
    cw, ch = CORNER_SIZE
    sx, sy = w * CORNER[0] / cw, h * CORNER[1] / ch  # source pixels per feature pixel
    x0, y0 = int(round(margin * sx)), int(round(margin * sy))
    x1, y1 = int(round(w * CORNER[0] + 2 * margin * sx)), int(round(h * CORNER[1] + 2 * margin * sy))
    pad = cv2.copyMakeBorder(crop, y0, 0, x0, 0, cv2.BORDER_REPLICATE)
    patch = cv2.cvtColor(pad[:y1, :x1], cv2.COLOR_BGR2GRAY)
    return cv2.resize(patch, (cw + 2 * margin, ch + 2 * margin), interpolation=cv2.INTER_AREA).astype(np.float32)


CORNER_SHIFTS = tuple((dx, dy) for dx in (-2, -1, 0, 1, 2) for dy in (-2, -1, 0, 1, 2))


HOG_SIZE = (96, 144)
_HOG = cv2.HOGDescriptor(HOG_SIZE, (16, 16), (8, 8), (8, 8), 9)


def _hog(crop: np.ndarray) -> np.ndarray:
    """Histograms of gradient directions (shape: a club's lobes against a spade's point),
    tolerant of the few pixels a corner may be off."""
    g = cv2.cvtColor(cv2.resize(crop, HOG_SIZE, interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
    return np.asarray(_HOG.compute(g)).ravel()


def _grey(crop: np.ndarray, blur: float = 0.0) -> np.ndarray:
    """(h, w) float32: the grey at GREY_SIZE, blurred by `blur` pixels (none at 0)."""
    g = cv2.cvtColor(cv2.resize(crop, GREY_SIZE, interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY).astype(np.float32)
    return cv2.GaussianBlur(g, (0, 0), blur) if blur > 0 else g


def _contrast(grey: np.ndarray) -> np.ndarray:
    """The grey with its local brightness and contrast taken out (each over a GREY_NORM blur,
    the contrast no less than GREY_FLOOR): what a pip's outline and fill look like against the
    paper next to them, whatever shadow, glare or dim light lies over that part of the card.
    `flat_field` divides out only light as smooth as a tenth of the card; a template enrolled
    from a photo keeps that photo's sharper shadows, and where they crossed a club, its grey
    fitted a spade's as well (measured: docs/card-reading.md)."""
    detail = grey - cv2.GaussianBlur(grey, (0, 0), GREY_NORM)
    return detail / np.sqrt(cv2.GaussianBlur(detail * detail, (0, 0), GREY_NORM) + GREY_FLOOR**2)


def _both_ways(crop: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return crop, cv2.rotate(crop, cv2.ROTATE_180)


@dataclasses.dataclass(frozen=True)
class CropFeatures:
    face_grey: np.ndarray  # (2 rotations, n shifts, D) normalised
    corner: np.ndarray  # (2 rotations, n corner shifts, Dk) normalised
    chroma: np.ndarray  # (2 rotations, Dc) raw a, b values
    ink: np.ndarray  # (2,) a, b of the print (the same both ways up)
    flat: np.ndarray  # the crop with its light divided out (`flat_field`)
    emb: np.ndarray | None = None  # (2 rotations, D): the embedding, when used

    # The second looks' features are made only when a near tie asks for them (each one crop in
    # many): the gradient histograms without the embedding, the grey with it.
    # (cached_property writes the instance's __dict__, which frozen allows.)
    @functools.cached_property
    def hog(self) -> np.ndarray:
        """(2 rotations, Dh): `_hog`."""
        return np.stack([_hog(_inner(rot)) for rot in _both_ways(self.flat)])

    @functools.cached_property
    def suit(self) -> SuitCheck:
        """What the pips' shapes say the suit is (`vision.cards.suits`), asked of French faces only."""
        return suit_of(self.flat)

    @functools.cached_property
    def grey(self) -> np.ndarray:
        """(2 rotations, h, w): `_grey`, its local brightness and contrast out (`_contrast`)."""
        return np.stack([_contrast(_grey(_inner(rot))) for rot in _both_ways(self.flat)])

    @classmethod
    def of(
        cls,
        crop: np.ndarray,
        shifts: Sequence[tuple[int, int]] = SHIFTS,
        corner_shifts: Sequence[tuple[int, int]] = CORNER_SHIFTS,
    ) -> CropFeatures:
        crop = flat_field(crop)
        grays, corners, chromas = [], [], []
        w, h = FACE_GREY_SIZE
        cw, ch = CORNER_SIZE
        for rot in _both_ways(crop):
            g = _face_grey(_inner(rot))
            grays.append(_norm(np.stack([g[_R + dy : _R + dy + h, _R + dx : _R + dx + w] for dx, dy in shifts])))
            k = _corner(rot)
            corners.append(_norm(np.stack([k[2 + dy : 2 + dy + ch, 2 + dx : 2 + dx + cw] for dx, dy in corner_shifts])))
            chromas.append(_chroma(_inner(rot)))
        return cls(np.stack(grays), np.stack(corners), np.stack(chromas), _ink(_inner(crop)), crop)


LEVELS = (48, 80)  # card widths (pixels) at which softened templates are kept
LEVEL_MARGIN = 1.25  # a card under 1.25 x a level's width uses that level


def _soften(image: np.ndarray, width: int) -> np.ndarray:
    h, w = image.shape[:2]
    small = cv2.resize(image, (width, max(1, round(width * h / w))), interpolation=cv2.INTER_AREA)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


@dataclasses.dataclass(frozen=True)
class _Level:
    face_grey_mean: np.ndarray
    corner_mean: np.ndarray
    face_grey: np.ndarray  # (T, D) unit, mean taken out
    corner: np.ndarray
    chroma: np.ndarray
    hog: np.ndarray
    ink: np.ndarray  # (T, 2)

    @classmethod
    def of(cls, feats: Sequence[CropFeatures]) -> _Level:
        gray = np.stack([f.face_grey[0, 0] for f in feats])
        corner = np.stack([f.corner[0, 0] for f in feats])
        # What every face shares (paper, border, layout) says nothing about which face it is:
        # with three faces or more, it is taken out of both sides of the comparison.
        gm = gray.mean(axis=0) if len(gray) >= 3 else np.zeros_like(gray[0])
        km = corner.mean(axis=0) if len(corner) >= 3 else np.zeros_like(corner[0])
        return cls(
            gm,
            km,
            _unit(gray - gm),
            _unit(corner - km),
            np.stack([f.chroma[0] for f in feats]),
            np.stack([f.hog[0] for f in feats]),
            np.stack([f.ink for f in feats]),
        )


@dataclasses.dataclass(frozen=True)
class Identification:
    label: str | None  # the face id, None when unknown
    confidence: float  # 0..1
    upside_down: bool  # the crop matched its template turned 180 degrees
    symmetric: bool  # the face looks the same turned 180 degrees: up/down cannot be told
    similarity: float  # best similarity, -1..1
    runner_up: str | None
    margin: float  # best minus runner-up similarity
    possible: bool | None = None  # whether the label is among those the referee passed

    @property
    def known(self) -> bool:
        return self.label is not None


def _fused(hand: np.ndarray, embedded: np.ndarray | None) -> np.ndarray:
    """The similarity: the hand-made score, with the embeddings' cosine when there is one."""
    return hand if embedded is None else (1 - EMBED_WEIGHT) * hand + EMBED_WEIGHT * embedded


class Embedder(Protocol):
    """Maps rectified crops to unit vectors (`vision.cards.embed.CardEmbedder`)."""

    def embed(self, crops: Sequence[np.ndarray]) -> np.ndarray: ...


@dataclasses.dataclass(frozen=True)
class IdentifierSettings:
    """How a `CardIdentifier` decides; the defaults are the measured ones (docs/card-reading.md)."""

    temperature: float = 0.03  # of the softmax that turns the faces' similarities into a confidence
    min_similarity: float | None = None  # a known read is this like its face (None: MIN_SIMILARITY_HAND or _WITH_EMBED)
    min_confidence: float | None = None  # ... and this sure (None: MIN_CONFIDENCE_HAND or _WITH_EMBED)
    tie_margin: float = 0.04  # a face the referee says is possible wins over a best this near
    refine_margin: float = 0.05  # faces this near the best get a second look (without the embedding; with
    # it, the suit-symbol siblings of another colour)
    blind_margin: float = 0.2  # faces the embedding cannot tell apart get a second look this near the best
    refine_temperature: float = 0.03  # of the softmax over the second look's scores, without the embedding


class CardIdentifier:
    """Names rectified crops against a deck's faces.

    labels: one per distinct face (`Card.face_key`); images: rectified BGR crops at
    `rectify.CANONICAL_SIZE`; card_ids: for each label, the card ids that share the face (the
    three copies of a chicken), so `possible` may name card ids or face labels; symmetric: which
    faces look the same turned 180 degrees (by default measured: a template that matches itself
    turned with a correlation above 0.9); siblings: groups of labels whose faces differ by their
    suit symbol alone (`decks.symbol_siblings`), which the embedding is not left to tell apart;
    embedder: "default" (the shipped model, when there), an embedder, or None (hand-made
    features alone); settings: the margins, temperatures and bars.
    """

    def __init__(
        self,
        name: str,
        labels: Sequence[str],
        images: Sequence[np.ndarray],
        *,
        card_ids: Mapping[str, Sequence[str]] | None = None,
        symmetric: Sequence[bool] | None = None,
        siblings: Iterable[Iterable[str]] = (),
        embedder: Embedder | str | None = "default",
        settings: IdentifierSettings | None = None,
    ) -> None:
        if len(labels) != len(images) or not labels:
            raise ValueError("templates need one image per label, and at least one")
        self.name = name
        self.labels = list(labels)
        self.images = [np.asarray(im) for im in images]
        self.card_ids = {lbl: tuple(card_ids.get(lbl, (lbl,))) if card_ids else (lbl,) for lbl in self.labels}
        self._label_of_id = {cid: lbl for lbl, ids in self.card_ids.items() for cid in ids}
        self.settings = settings = settings or IdentifierSettings()
        feats = [CropFeatures.of(im, shifts=((0, 0),), corner_shifts=((0, 0),)) for im in self.images]
        # The faces are also kept as a card seen small would look (shrunk to LEVELS pixels wide
        # and enlarged back): a 50-pixel card's crop is compared with equally soft templates.
        self._levels: dict[int | None, _Level] = {None: _Level.of(feats)}
        for width in LEVELS:
            self._levels[width] = _Level.of(
                [CropFeatures.of(_soften(im, width), shifts=((0, 0),), corner_shifts=((0, 0),)) for im in self.images]
            )
        # The embedding (vision.cards.embed), when its model is there: "default" is the
        # shipped one, None the hand-made features alone.
        if embedder == "default":
            embedder = embed.default_embedder()
        elif isinstance(embedder, str):
            raise ValueError(f"embedder {embedder!r}: 'default', an embedder or None")
        self.embedder = embedder
        self._emb = embedder.embed([f.flat for f in feats]) if embedder is not None else None  # (T, D)
        # pairs of faces the embedding cannot tell apart (their vectors this alike)
        self._blind: np.ndarray | None = None
        self._symbol: np.ndarray | None = None
        if self._emb is not None:
            # ... or that the hand-made features find alike: enrolled from photos, two such faces'
            # embeddings can stand apart by their photos' light alone
            hand = np.stack([self._scores(f, None)[0].max(axis=0) for f in feats])  # (T, T)
            self._blind = (self._emb @ self._emb.T >= EMBED_BLIND) | (np.maximum(hand, hand.T) >= HAND_ALIKE)
            # ... or that the deck says differ by their suit symbol alone (a 7 of clubs and a 7 of
            # spades), printed in colours as near as the templates show: enrolled from photos,
            # each photo's light can part or join their embeddings however their shapes go
            self._blind |= self._sibling_pairs(siblings)
            # faces that differ by their suit symbol alone whatever their colours: a light that
            # tints the print can leave the first look unsure which colour it is (`_second_look_candidates`)
            self._symbol = self._sibling_pairs(siblings, ink=np.inf)
        # French faces (every label a rank and a French suit, a heart among them) get the suit check
        self._index = {lbl: i for i, lbl in enumerate(self.labels)}
        matches = [FRENCH_LABEL.match(lbl) for lbl in self.labels]
        self._suits: dict[str, str] = {}
        if all(matches) and any(m.group(2) == "H" for m in matches if m):
            self._suits = {lbl: m.group(2) for lbl, m in zip(self.labels, matches) if m}
        # ... and what the check says of each template: a printing whose pips it misreads (our
        # rendered clubs read as spades) gives crops it misreads alike, which say nothing new
        self._template_suit = [f.suit for f in feats] if self._suits else []
        # the bars for a known read, as measured for each (docs/card-reading.md)
        self.min_similarity = (
            settings.min_similarity
            if settings.min_similarity is not None
            else (MIN_SIMILARITY_HAND if embedder is None else MIN_SIMILARITY_WITH_EMBED)
        )
        self.min_confidence = (
            settings.min_confidence
            if settings.min_confidence is not None
            else (MIN_CONFIDENCE_HAND if embedder is None else MIN_CONFIDENCE_WITH_EMBED)
        )
        # A face is symmetric when it matches itself turned 180 degrees nearly as well as upright.
        self_rot = np.array([float(f.face_grey[1, 0] @ f.face_grey[0, 0]) for f in feats])  # plain NCC
        self.symmetric = self_rot > 0.9 if symmetric is None else np.asarray(symmetric, bool)

    def _second_look_candidates(self, s: np.ndarray, pool: np.ndarray, most: int = 6) -> list[int]:
        """The second look's candidates, from the similarities `s` of the faces in `pool`: the
        best, then (best first) each face the embedding cannot tell from a candidate
        already in (`_blind`) within `blind_margin` of the best, or that differs from one by its
        suit symbol alone, whatever its colour, within `refine_margin` (a near tie: a tinted light
        can leave the first look unsure of the print's colour, and the embedding
        favoured a 7 of diamonds over a 7 of spades whose print the hand-made features called
        black). With the 5 of diamonds on top under a red lamp: the 5 of clubs (alike to it),
        then the 5 of spades (the club's sibling, though not the diamond's). At most `most`."""
        blind, symbol = self._blind, self._symbol
        if blind is None or symbol is None:
            raise ValueError("the second look's candidates are sought with an embedding only")
        ps = np.where(pool, s, -np.inf)
        order = [int(j) for j in np.argsort(-ps) if pool[j]]
        best = ps[order[0]]
        near = [j for j in order[1:] if s[j] >= best - max(self.settings.blind_margin, self.settings.refine_margin)]
        cands = [order[0]]
        grown = True
        while grown and len(cands) < most:
            grown = False
            for j in near:
                if j in cands:
                    continue
                if (s[j] >= best - self.settings.blind_margin and blind[cands, j].any()) or (
                    s[j] >= best - self.settings.refine_margin and symbol[cands, j].any()
                ):
                    cands.append(j)
                    grown = True
                    break
        return cands

    def alike(self, k: int) -> tuple[int, ...]:
        """The faces the embedding cannot tell from face `k` (`_blind`), `k` among them."""
        if self._blind is None:
            return (k,)
        row = self._blind[k].copy()
        row[k] = True
        return tuple(int(j) for j in np.nonzero(row)[0])

    def shared_face(self, group: Sequence[int]) -> np.ndarray:
        """The mean of the faces of `group`: what they share, and none of their differences favoured."""
        first = self.images[group[0]]
        if len(group) == 1:
            return first
        size = (first.shape[1], first.shape[0])
        return np.mean(
            [cv2.resize(self.images[j], size, interpolation=cv2.INTER_AREA).astype(np.float32) for j in group], axis=0
        ).astype(np.uint8)

    def _sibling_pairs(self, siblings: Iterable[Iterable[str]], ink: float = SIBLING_INK) -> np.ndarray:
        """(T, T) bool: faces of one group of `siblings` whose print colours (`_ink`, measured on
        the full-detail templates) are within `ink` (Lab a, b)."""
        index = {lbl: i for i, lbl in enumerate(self.labels)}
        inks = self._levels[None].ink
        pairs = np.zeros((len(self.labels), len(self.labels)), bool)
        for group in siblings:
            members = [index[lbl] for lbl in group if lbl in index]
            for i in members:
                for j in members:
                    pairs[i, j] = bool(np.linalg.norm(inks[i] - inks[j]) <= ink)
        return pairs

    def __len__(self) -> int:
        return len(self.labels)

    def label_of(self, card_id: str) -> str | None:
        return self._label_of_id.get(card_id, card_id if card_id in self.card_ids else None)

    def _level(self, width: float | None) -> _Level:
        """The template level for a card `width` pixels wide in the frame (None: full detail)."""
        for w in sorted(LEVELS):
            if width is not None and width < w * LEVEL_MARGIN:
                return self._levels[w]
        return self._levels[None]

    def similarities(
        self, crop: np.ndarray | None, feats: CropFeatures | None = None, width: float | None = None
    ) -> np.ndarray:
        """(2, T): similarity of the crop at 0 and 180 degrees to each template."""
        return _fused(*self._scores(self._features_of(crop, feats), width))

    def _scores(self, f: CropFeatures, width: float | None) -> tuple[np.ndarray, np.ndarray | None]:
        """(2, T) each: the hand-made features' score, and the embeddings' cosine (None
        without an embedder)."""
        lv = self._level(width)
        g = _unit(f.face_grey - lv.face_grey_mean)  # (2 rotations, shifts, D)
        gray = (g.reshape(-1, g.shape[-1]) @ lv.face_grey.T).reshape(2, -1, len(self.labels)).max(axis=1)  # best shift
        k = _unit(f.corner - lv.corner_mean)
        corner = (k.reshape(-1, k.shape[-1]) @ lv.corner.T).reshape(2, -1, len(self.labels)).max(axis=1)
        dc = f.chroma[:, None, :] - lv.chroma[None, :, :]
        chroma = np.clip(1.0 - np.sqrt(np.mean(dc * dc, axis=2)) / 40.0, -1, 1)  # 1 equal, 0 at 40 rms apart
        ink = np.clip(1.0 - np.linalg.norm(f.ink[None, :] - lv.ink, axis=1) / INK_SCALE, -1, 1)[None, :]
        wg, wk, wc, wi = WEIGHTS
        hand = wg * gray + wk * corner + wc * chroma + wi * ink
        if self._emb is None or f.emb is None:
            return hand, None
        return hand, f.emb @ self._emb.T

    def _features_of(self, crop: np.ndarray | None, feats: CropFeatures | None) -> CropFeatures:
        """`feats` when given, else the crop's `features`."""
        if feats is not None:
            return feats
        if crop is None:
            raise ValueError("identification needs the crop or its features")
        return self.features(crop)

    def features(self, crop: np.ndarray) -> CropFeatures:
        """The crop's features, with its embedding (both ways up) when the templates
        have an embedder."""
        f = CropFeatures.of(crop)
        if self._emb is None or self.embedder is None:
            return f
        # the crop flat-fielded once: the embedder takes the flat crop as it is (`light.Flat`)
        return dataclasses.replace(f, emb=self.embedder.embed([f.flat, turned(f.flat)]))

    def refine(
        self,
        crop: np.ndarray | None,
        candidates: Sequence[int],
        rotations: Sequence[int],
        feats: CropFeatures | None = None,
        width: float | None = None,
    ) -> np.ndarray:
        """Second look at near-tied faces: gradient-direction histograms with what the
        candidates share taken out (a club's lobes against a spade's point)."""
        if feats is not None:
            f = feats
        elif crop is not None:
            f = CropFeatures.of(crop)
        else:
            raise ValueError("a second look needs the crop or its features")
        t = self._level(width).hog[list(candidates)]
        m = t.mean(axis=0)
        t = _unit(t - m)
        v = _unit(f.hog - m)  # (2, Dh)
        return np.array([float(v[r] @ t[n]) for n, r in enumerate(rotations)], np.float32)

    @functools.cached_property
    def _greys(self) -> np.ndarray:
        """(T, len(GREY_BLURS), h - 2 _RE, w - 2 _RE): each template's `_grey` at each blur, its
        local brightness and contrast out (`_contrast`), less a margin so that a crop's may shift
        over it."""
        flat = [_inner(flat_field(im)) for im in self.images]
        return np.stack([[_contrast(_grey(f, b))[_RE:-_RE, _RE:-_RE] for b in GREY_BLURS] for f in flat])

    def grey_similarity(self, candidates: Sequence[int], rotations: Sequence[int], feats: CropFeatures) -> np.ndarray:
        """Second look at faces the embedding cannot tell apart: the crop's grey
        (`CropFeatures.grey`, both ways up as `rotations` say) correlated with each candidate's
        template blurred as much as the crop is (the blur of GREY_BLURS at which the best
        candidate fits best: one blur for all, since it is the crop's), at shifts of up to `_RE`
        pixels (normalised: -1..1); both with their local brightness and contrast out."""
        scores = np.array(
            [
                [
                    cv2.matchTemplate(feats.grey[r], self._greys[n, b], cv2.TM_CCOEFF_NORMED).max()
                    for n, r in zip(candidates, rotations)
                ]
                for b in range(len(GREY_BLURS))
            ],
            np.float32,
        )
        return scores[int(np.argmax(scores.max(axis=1)))]

    def _suit_checked(
        self, feats: CropFeatures, top: int, confidence: float, known: bool, s: np.ndarray, pool: np.ndarray
    ) -> tuple[int, float, bool]:
        """The read `top` against what its pips' shapes say its suit is (`vision.cards.suits`):
        named the pips' suit (the same rank) when they clearly say another and that face is
        near; unknown when they say another and it is not; not sure when they do not back it."""
        label = self.labels[top]
        suit = self._suits[label]
        rank = label[: -len(suit)]
        check = feats.suit
        own = self._template_suit[top]  # the check on the face's own template
        unsure = float(np.nextafter(SURE, 0.0))
        if check.against(suit, least=1e-6) and check.suit is not None and check.suit != own.suit:
            j = self._index.get(rank + check.suit)
            near = SAME_COLOUR[suit] == check.suit or s[j if j is not None else top] >= s[top] - SUIT_NEAR
            if check.margin < SUIT_SWITCH:
                confidence = min(confidence, unsure)  # the pips lean to another suit: not sure
            elif check.suit in NOTCHLESS and SAME_COLOUR[suit] == check.suit and check.votes[SUITS.index(suit)] > 0:
                # blur fills a heart's notch and a club's lobes in (they look a diamond and a spade),
                # never the other way, and unevenly: while some pips still vote for the read's own
                # suit, it keeps its name, not sure
                confidence = min(confidence, unsure)
            elif j is None or not pool[j] or not near:
                return top, confidence, False  # the pips say another suit, and not which card of the deck
            else:
                top, suit, confidence = j, check.suit, min(confidence, unsure)
                own = self._template_suit[top]
        # an ace to a ten shows as many large pips as its rank: the pips counted another number
        # (a nine read as a ten, or a card the deck lacks read as its neighbour) is not this card,
        # where the check counts the template's own pips right
        value = PIP_RANKS.get(rank)
        count = check.count(suit)
        counts_right = own.says(suit, SUIT_BACKED) and own.count(suit) == value
        if value is not None and count and count != value and counts_right:
            return top, confidence, False
        if (
            not known
            and counts_right
            and value is not None
            and value >= 2
            and count == value
            and check.says(suit, SUIT_SWITCH)
        ):
            # the face's rank, the pips' number (two or more: one pip is little proof) and their suit
            # agree: the card is named, however
            # unlike our printing of it the face is (not sure on that alone)
            return top, max(min(confidence, unsure), PIPS_AGREE), True
        return top, confidence, known

    def identify(
        self,
        crop: np.ndarray | None,
        possible: Iterable[str] | None = None,
        width: float | None = None,
        feats: CropFeatures | None = None,
    ) -> Identification:
        """Name a rectified crop; `width`: the card's width in the frame, in pixels, when known
        (a small card is compared with softened templates); `feats`: the crop's `features`, when
        already made (the crop itself is then not needed)."""
        feats = self._features_of(crop, feats)
        hand, embedded = self._scores(feats, width)
        sims = _fused(hand, embedded)
        best_rot = np.argmax(sims, axis=0)  # per template
        s = sims.max(axis=0)
        order = [int(j) for j in np.argsort(-s)]
        allowed: set[str] | None = None
        if possible is not None:
            allowed = {lbl for lbl in (self.label_of(p) for p in possible) if lbl is not None}
        pool = np.ones(len(s), bool)
        if allowed is not None:
            in_allowed = np.array([lbl in allowed for lbl in self.labels])
            # The best possible face wins a near tie (within tie_margin); a clear best outside
            # `possible` is still reported.
            if in_allowed[order[0]] or (in_allowed & (s >= s[order[0]] - self.settings.tie_margin)).any():
                pool = in_allowed
        ps = np.where(pool, s, -np.inf)
        top = int(np.argmax(ps))
        p1 = np.exp(np.clip((ps - ps[top]) / self.settings.temperature, -60, 0))
        p1 = p1 / p1.sum()
        # A second look at near ties, by the hand-made features and gradient histograms. With the
        # embedding only among faces it cannot tell apart (`blind`: their templates'
        # vectors alike, as outlined clubs and spades, or faces that differ by their suit symbol
        # alone; and those siblings in other colours in a near tie: `_second_look_candidates`),
        # where its cosine decides little, and by their grey blurred as the crop is
        # (`grey_similarity`; the hand-made score parts only equal shapes); elsewhere the second look
        # turned more right reads wrong than wrong reads right (measured: docs/card-reading.md).
        if self._emb is not None:
            cands = self._second_look_candidates(s, pool)
        else:
            cands = [j for j in order if pool[j] and s[j] >= s[top] - self.settings.refine_margin][:6]
        fits = True  # the second look's grey fits one of its candidates (GREY_FIT)
        runner: int | None
        if len(cands) >= 2:
            h = hand.max(axis=0)[cands]
            rots = [int(best_rot[j]) for j in cands]
            if self._emb is not None:
                grey = self.grey_similarity(cands, rots, feats)
                fits = bool(grey.max() >= GREY_FIT)
                r = grey + GREY_HAND * h
                temperature = GREY_TEMPERATURE
            else:
                r = h + REFINE_WEIGHT * self.refine(crop, cands, rots, feats, width)
                temperature = self.settings.refine_temperature
            k = int(np.argmax(r))
            top = cands[k]
            p2 = np.exp(np.clip((r - r[k]) / temperature, -60, 0))
            confidence = float(p1[cands].sum() * p2[k] / p2.sum())
            runner = cands[int(np.argsort(-r)[1])]
            margin = float(r[k] - np.sort(r)[-2])
        else:
            confidence = float(p1[top])
            rest = [j for j in order if j != top]
            runner = rest[0] if rest else None
            margin = float(s[top] - s[runner]) if runner is not None else 1.0
        # How like a face of the deck the crop is: after a second look between faces the embedding
        # cannot tell apart, like its likest candidate (a club the second look names
        # can be a little less like its template than the spade's, and no less a card of this deck).
        like = max(s[j] for j in cands) if len(cands) >= 2 and self._emb is not None else s[top]
        known = like >= self.min_similarity and confidence >= self.min_confidence and fits
        if self._emb is not None and s[top] < FIT_FOR_SURE:
            # A crop cut from corners that missed the card (a corner short, the cloth beside it)
            # can be sure which of two siblings it shows without looking much like either: it
            # is not reported sure, and the reader looks again at its corners.
            confidence = min(confidence, float(np.nextafter(SURE, 0.0)))
        if self._suits:
            top, confidence, known = self._suit_checked(feats, top, confidence, known, s, pool)
        label = self.labels[top]
        return Identification(
            label=label if known else None,
            confidence=confidence,
            upside_down=bool(best_rot[top] == 1) and not bool(self.symmetric[top]),
            symmetric=bool(self.symmetric[top]),
            similarity=float(s[top]),
            runner_up=self.labels[runner] if runner is not None else None,
            margin=margin,
            possible=(label in allowed) if allowed is not None else None,
        )
