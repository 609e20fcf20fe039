"""Enrol a physical deck from photos: each card found, rectified and stored as a template.

Photos, in the guided order (`guide(...)` prints it):

* one photo per card, or
* sheets of several cards each (`per_photo=N`): the cards of a sheet are read in rows, top row
  first, left to right (like text).

Every card must lie **upright** (its top towards the top of the photo, within 90 degrees) on a
plain surface that contrasts with it. Card ids come from the deck the printing follows
(`base="italian"`: its faces in `vision.cards.decks` order), from an explicit list, or, for one
card per photo, from the photo file names (`7C.jpg` is "7C").

Each card is found by the card detector; when the detector finds no face-up card, a contour
finder looks for a bright card-shaped quadrilateral instead (`find_quads_by_contour`: edges,
external contours, four-corner polygons of card-like aspect), so a printing unlike anything the
detector was trained on can still be enrolled. A mistaken photo is rejected with a named reason:
`NoCardFound`, `TooManyCards` (or too few on a sheet), `BlurryPhoto` (the variance of the
Laplacian of the rectified card below `min_sharpness`), `UnreadableImage`. Nothing is written
unless every photo passes; an existing deck is replaced only with `replace=True`, and only once
the new one is complete.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.core import RefereeError
from vision.cards.decks import CARD_SIZE_MM, deck, faces
from vision.cards.detections import CardDetections
from vision.cards.geometry import aspect_range, order_corners, quad_overlap, skew_deg
from vision.cards.outlines import find_quads_by_contour
from vision.cards.reader import INDEX_DECKS, INDEX_NAMES_FROM
from vision.cards.rectify import CANONICAL_SIZE, rectify
from vision.cards.refine import Refined, refine_quad, snap_and_refine
from vision.cards.templates import default_decks_dir, safe_file_name, write_deck_folder
from vision.video import MediaError, read_image

MIN_SHARPNESS = 40.0  # variance of the Laplacian of the card at SHARPNESS_SIZE (measured: docs)
SHARPNESS_SIZE = (180, 270)


class EnrollmentError(RefereeError):
    """An enrollment that cannot go ahead."""


class EmptyEnrollment(EnrollmentError):
    """No photos (or no card ids) were given."""


class DeckExists(EnrollmentError):
    """A deck of that name is enrolled already (pass replace to overwrite it)."""


class PhotoCountMismatch(EnrollmentError):
    """The photos hold more or fewer cards than the deck being enrolled."""


class EnrollmentRejected(EnrollmentError):
    """One or more photos were rejected; `details["rejected"]` names each photo and reason."""


class PhotoProblem(EnrollmentError):
    """Base of the reasons a single photo is rejected."""


class NoCardFound(PhotoProblem):
    """No card in the photo."""


class TooManyCards(PhotoProblem):
    """More cards in the photo than expected (two cards in a one-card photo)."""


class TooFewCards(PhotoProblem):
    """Fewer cards on a sheet than expected."""


class BlurryPhoto(PhotoProblem):
    """The card is too blurred to make a template."""


class UnsureOrder(EnrollmentError):
    """Some photos' file names say which card they show and others do not: which photo is which
    card cannot be known for sure."""


class DuplicateCard(EnrollmentError):
    """Two photos' file names name the same card."""


class WrongCard(PhotoProblem):
    """The photo does not show the card it claims to be (its file name or place in the order)."""


class CardCutOff(PhotoProblem):
    """The card runs off the photo's edge: a template of part of a card."""


class BadCardShape(PhotoProblem):
    """The card found does not have the deck's proportions (part of a card, two cards as one,
    a card lying across the photo)."""


def quad_aspect(quad: np.ndarray) -> float:
    """Short over long side of a quad (opposite sides averaged)."""
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    a, b = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    return float(min(a, b) / max(a, b, 1e-6))


def deck_aspect(base: str | None) -> float | None:
    """Width over height of the deck's cards, when the deck it follows is known."""
    if not base:
        return None

    w, h = CARD_SIZE_MM.get(base, (0.0, 0.0))
    return w / h if h else None


@dataclasses.dataclass
class FoundCard:
    crop: np.ndarray  # rectified, CANONICAL_SIZE
    corners: np.ndarray  # (4, 2) in the photo
    sharpness: float
    method: str  # "detector" or "contour"


def sharpness(image: np.ndarray, corners: np.ndarray) -> float:
    """Variance of the Laplacian of the card rectified to SHARPNESS_SIZE."""
    gray = cv2.cvtColor(rectify(image, corners, SHARPNESS_SIZE), cv2.COLOR_BGR2GRAY)
    return float(cv2.Laplacian(gray, cv2.CV_64F).var())


def refine_with_contours(image: np.ndarray, quads: np.ndarray, aspect: float | None = None) -> np.ndarray:
    """Corners for each detected card of an enrollment photo: the card's own outline (contour
    finder) that contains the detection's centre, when there is one, its sides then fitted to the
    paper's edge (`precise`); else the detection refined (`refine.snap_and_refine`). On a plain
    surface the outline is close, while the detector's keypoints can be a tenth of the card off,
    or turned; a template is only as good as its corners."""
    found = find_quads_by_contour(image)
    out: list[np.ndarray] = []
    for q in quads:
        c = q.mean(axis=0)
        inside = [
            k
            for k, f in enumerate(found)
            if cv2.pointPolygonTest(f.reshape(-1, 1, 2), (float(c[0]), float(c[1])), False) >= 0
        ]
        if inside:
            k = max(inside, key=lambda k: cv2.contourArea(found[k]))  # the card's edge, not a frame inside it
            outline = order_corners(found[k][None])[0]  # enrollment photos are upright: top edge up
            fit = precise(image, outline, aspect)
            if fit.refined:
                q = fit.corners
            else:  # no card-shaped fit on the outline's edges: it may have run into a glare or a
                # shadow beside the card; the detection refined is kept when it is the squarer
                alt = snap_and_refine(image, q, aspect)
                q = alt if skew_deg(alt) < skew_deg(outline) else outline
        else:
            q = snap_and_refine(image, q, aspect)
        if all(quad_overlap(q, p) <= 0.5 for p in out):  # two guesses snapped to one card: one card
            out.append(q)
    return np.stack(out) if out else quads[:0]


def precise(image: np.ndarray, quad: np.ndarray, aspect: float | None = None) -> Refined:
    """An outline's corners fitted to the paper's four edges (`refine.refine_quad`, sub-pixel):
    the contour finder's polygon cuts the rounded corners and follows the blur, about 1% of the
    diagonal off (measured on enrollment photos of the held-out printing: median 1.0%, worst
    3.5%; fitted: median 0.3%, worst 0.6%). Kept as it is (`refined` False) when no card-shaped
    fit is found."""
    return refine_quad(image, quad, reach=0.1, aspect=aspect_range(aspect))


def reading_order(corners: np.ndarray) -> np.ndarray:
    """Indices of quads in rows (top row first), left to right within a row."""
    if len(corners) == 0:
        return np.zeros(0, np.int64)
    centres = corners.mean(axis=1)
    heights = np.array([np.ptp(q[:, 1]) for q in corners])
    order = list(np.argsort(centres[:, 1]))
    rows: list[list[int]] = []
    for i in order:
        if rows and abs(centres[i, 1] - np.mean([centres[j, 1] for j in rows[-1]])) < 0.5 * np.median(heights):
            rows[-1].append(int(i))
        else:
            rows.append([int(i)])
    return np.array([i for row in rows for i in sorted(row, key=lambda j: centres[j, 0])], np.int64)


def find_cards(
    image: np.ndarray,
    detector=None,
    expected: int = 1,
    min_sharpness: float = MIN_SHARPNESS,
    face_up: bool = True,
    aspect: float | None = None,
    aspect_tolerance: float = 0.12,
    claim: str | None = None,
    base: str | None = None,
) -> list[FoundCard]:
    """The `expected` cards (face up, or backs with face_up=False) of a photo in reading order,
    or a `PhotoProblem`. With the deck's `aspect` (width / height), a card whose found outline is
    off it by more than `aspect_tolerance` (relative) is `BadCardShape`: a template cut from it
    would be misaligned, and a misaligned template misleads every later read. `claim`: the card
    a one-card photo is said to show, of the French deck `base`: where more than one card-like
    thing is found (a sock, a flyer, a newspaper's column beside the card), the one whose corner
    index reads that card is the card (`claimed_card`)."""
    method = "detector"
    quads = np.zeros((0, 4, 2), np.float32)
    if detector is not None:
        det: CardDetections = detector(image)
        det = det[det.face_up == face_up]
        if len(det):
            # a photo's cards are its clear, large detections: a weak or small one beside them is
            # a reflection or a pattern (two real cards are both clear and both large)
            det = det[(det.confidence >= 0.5 * det.confidence.max()) & (det.area >= 0.25 * det.area.max())]
            keep: list[int] = []  # cards laid out for a photo do not overlap: a detection half inside
            for i in np.argsort(-det.area):  # another is part of the same card, and the larger wins
                if all(quad_overlap(det.corners[i], det.corners[j]) <= 0.5 for j in keep):
                    keep.append(int(i))
            quads = refine_with_contours(image, order_corners(det.corners[sorted(keep)]), aspect)
    if len(quads) == 0:
        quads, method = find_quads_by_contour(image), "contour"
        quads = np.stack([precise(image, q, aspect).corners for q in quads]) if len(quads) else quads
    if len(quads) == 0:
        raise NoCardFound("no card found in the photo")
    if expected == 1 and len(quads) > 1:
        # a close-up card the detector broke into parts: its outline holds them all
        whole = whole_card(image, quads, aspect)
        if whole is not None:
            quads, method = whole[None], "outline"
        elif claim is not None:
            mine = claimed_card(image, quads, claim, base)
            if mine is not None:
                quads, method = mine[None], "index"
    if len(quads) > expected:
        raise TooManyCards(
            f"{len(quads)} cards found where {expected} {'was' if expected == 1 else 'were'} expected",
            found=len(quads),
            expected=expected,
        )
    if len(quads) < expected:
        raise TooFewCards(
            f"{len(quads)} cards found where {expected} were expected", found=len(quads), expected=expected
        )
    out = []
    h, w = image.shape[:2]
    edge = max(2.0, 0.005 * min(h, w))
    for i in reading_order(quads):
        q = quads[i]
        if expected == 1 and method == "detector":
            whole = whole_card(image, q[None], aspect)
            if whole is not None and cv2.contourArea(whole) > 1.25 * cv2.contourArea(q.astype(np.float32)):
                q, method = whole, "outline"  # the detection was part of the card: the outline is all of it
        if (q[:, 0].min() < edge) or (q[:, 1].min() < edge) or (q[:, 0].max() > w - edge) or (q[:, 1].max() > h - edge):
            raise CardCutOff(
                "the card runs off the photo's edge: take it whole, with a margin of table all round",
            )
        if aspect and abs(quad_aspect(q) / aspect - 1) > aspect_tolerance:
            raise BadCardShape(
                f"the card found is {quad_aspect(q):.2f} wide for 1 high where the deck's "
                f"cards are {aspect:.2f}: lay it flat, whole, and square to the camera",
                found=round(quad_aspect(q), 3),
                expected=round(aspect, 3),
            )
        sharp = sharpness(image, q)
        if sharp < min_sharpness:
            raise BlurryPhoto(
                f"the card is blurred (sharpness {sharp:.0f} < {min_sharpness:.0f}); "
                "hold the camera still, closer, in better light",
                sharpness=round(sharp, 1),
            )
        out.append(FoundCard(rectify(image, q, CANONICAL_SIZE), q, sharp, method))
    return out


_FRENCH_RANKS = {
    "a": "A", "ace": "A", "1": "A", "asso": "A", "j": "J", "jack": "J", "knave": "J", "q": "Q", "queen": "Q",
    "k": "K", "king": "K", **{str(v): str(v) for v in range(2, 11)},
    "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9",
    "ten": "10",
}  # fmt: skip
_FRENCH_SUITS = {
    "s": "S", "spade": "S", "spades": "S", "h": "H", "heart": "H", "hearts": "H", "d": "D", "diamond": "D",
    "diamonds": "D", "c": "C", "club": "C", "clubs": "C", "picche": "S", "cuori": "H", "quadri": "D", "fiori": "C",
}  # fmt: skip
_ITALIAN_RANKS = {
    "a": "A", "1": "A", "asso": "A", "ace": "A", **{str(v): str(v) for v in range(2, 8)},
    "due": "2", "tre": "3", "quattro": "4", "cinque": "5", "sei": "6", "sette": "7",
    "8": "F", "f": "F", "fante": "F", "donna": "F", "9": "C", "cavallo": "C", "10": "R", "r": "R", "re": "R",
}  # fmt: skip
_ITALIAN_SUITS = {
    "c": "C", "coppe": "C", "coppa": "C", "d": "D", "denari": "D", "denaro": "D", "ori": "D", "s": "S",
    "spade": "S", "spada": "S", "b": "B", "bastoni": "B", "bastone": "B",
}  # fmt: skip
_FILLER = {"of", "di", "de", "del", "card", "carta"}


def card_from_file_name(file_name: str | Path, base: str | None) -> str | None:
    """The card a photo's file name gives, as `base`'s card id, or None when it gives none for
    sure: `4S.jpg`, `spades_4.jpg`, `clubs_10.jpg`, `queen_of_hearts.jpg`, `clubs_1.jpg` (the
    ace); `4 di coppe.jpg`, `re_di_bastoni.jpg`, `7d.jpg` (a scan's name: 8-10 are the fante,
    cavallo and re) for the Italian decks. A name the deck lacks (`8C` of a 40-card deck) is None."""
    if not base:
        return None
    stem = Path(file_name).stem.lower().strip()
    french = base.startswith("french")
    ranks, suits = (_FRENCH_RANKS, _FRENCH_SUITS) if french else (_ITALIAN_RANKS, _ITALIAN_SUITS)
    words = [w for w in re.split(r"[\s_\-.]+", stem) if w and w not in _FILLER]
    card = None
    if len(words) == 1:  # "4s", "10h", "qs", "7d": a rank then a one-letter suit
        m = re.fullmatch(r"(10|[1-9]|[a-z])([a-z])", words[0])
        if m and m.group(1) in ranks and m.group(2) in suits:
            card = ranks[m.group(1)] + suits[m.group(2)]
    elif len(words) == 2:
        a, b = words
        if a in ranks and b in suits and len(b) > 1:
            card = ranks[a] + suits[b]
        elif b in ranks and a in suits and len(a) > 1:
            card = ranks[b] + suits[a]
    if card is None:
        return None
    ids = {c.id for c in deck(base)} | {c.face_key for c in deck(base)}
    return card if card in ids else None


def labels_from_file_names(photos: Sequence[str | Path], base: str) -> list[str] | None:
    """Each photo's card from its file name (`card_from_file_name`), or None when no name gives
    one (the photos are then in the guided order). `UnsureOrder` when some do and some do not,
    `DuplicateCard` when two name one card."""
    named = [card_from_file_name(p, base) for p in photos]
    if all(n is None for n in named):
        return None
    if any(n is None for n in named):
        unclear = [Path(p).name for p, n in zip(photos, named) if n is None]
        raise UnsureOrder(
            f"{len(unclear)} of {len(named)} photo names do not say which card they show "
            f"({', '.join(unclear[:5])}{'...' if len(unclear) > 5 else ''}): name every photo after its card "
            "(4S.jpg, spades_4.jpg, '4 di coppe.jpg') or none (then in the order --guide prints)",
            unclear=unclear,
        )
    seen: dict[str, str] = {}
    for p, n in zip(photos, named):
        if n in seen:
            raise DuplicateCard(f"{seen[n]} and {Path(p).name} both name the card {n}", card=n)
        seen[str(n)] = Path(p).name
    return [str(n) for n in named]


def whole_card(image: np.ndarray, quads: np.ndarray, aspect: float | None = None) -> np.ndarray | None:
    """The card's outline (`find_quads_by_contour`, fitted: `precise`) that holds the centres of
    all `quads` (parts of one card), of the deck's shape when known; None when there is none."""
    best = None
    for f in find_quads_by_contour(image):
        poly = f.reshape(-1, 1, 2).astype(np.float32)
        if all(cv2.pointPolygonTest(poly, tuple(float(v) for v in q.mean(axis=0)), False) >= 0 for q in quads):
            outline = order_corners(f[None])[0]
            if aspect and abs(quad_aspect(outline) / aspect - 1) > 0.12:
                continue
            if best is None or cv2.contourArea(poly) > cv2.contourArea(best.reshape(-1, 1, 2).astype(np.float32)):
                best = outline
    if best is None:
        return None
    fit = precise(image, best, aspect)
    return fit.corners if fit.refined else best


INDEX_BASES = INDEX_DECKS  # decks whose corner index `vision.cards.corner_index` reads
CLAIM_INDEX = INDEX_NAMES_FROM  # a corner-index read this sure names the card found, as in the reader


def claimed_card(image: np.ndarray, quads: np.ndarray, claim: str, base: str | None) -> np.ndarray | None:
    """Of the card-like quads of a one-card photo, the one whose corner index reads `claim` (a
    French card id) at CLAIM_INDEX or more when it is the only one; None otherwise (another deck,
    no quad, or two that read it)."""
    if base not in INDEX_BASES:
        return None
    from vision.cards.corner_index import read_index  # deferred: its weights load on first use

    ids = [c.id for c in deck(base)]
    mine = []
    for q in quads:
        r = read_index(rectify(image, q), possible=ids)
        if r.card == claim and r.confidence >= CLAIM_INDEX:
            mine.append(q)
    return mine[0] if len(mine) == 1 else None


def check_claim(crop: np.ndarray, card: str, base: str | None) -> None:
    """`WrongCard` when a French card's pips (`vision.cards.suits`: their shape and number) say
    it is not `card`: a photo of the 8 of clubs named the 4 of spades."""
    if not base or not base.startswith("french"):
        return
    from vision.cards.identify import FRENCH_LABEL, PIP_RANKS, SUIT_SWITCH  # deferred: identification's bars
    from vision.cards.light import flat_field  # deferred: with the check only
    from vision.cards.suits import suit_of  # deferred: with the check only

    m = FRENCH_LABEL.match(card)
    if m is None:
        return
    rank, suit = m.group(1), m.group(2)
    check = suit_of(flat_field(crop))
    names = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
    if check.suit is not None and check.suit != suit and check.margin >= SUIT_SWITCH:
        count = check.count(check.suit)
        shown = f"{count} large {names[check.suit]}" if count else names[check.suit]
        raise WrongCard(
            f"this photo is named {card}, but its pips are {shown}: check which card it shows", claimed=card
        )
    value = PIP_RANKS.get(rank)
    count = check.count(suit)
    if value is not None and value >= 2 and count >= 2 and count != value and check.says(suit, SUIT_SWITCH):
        raise WrongCard(
            f"this photo is named {card}, but it shows {count} large {names[suit]}: check which card it shows",
            claimed=card,
        )


HOW_TO = (
    "How to take the photos:",
    "  - one card a photo (or a sheet of --per-photo cards laid in rows, read like text: top row first, left to right)",
    "  - the card upright (its top towards the top of the photo), flat, whole, with table showing all round it",
    "  - on a plain surface darker than the card (a wooden table, a dark cloth), no pattern, no other card",
    "  - even light, no glare on the card and no shadow across it (no flash); the camera straight above, held still",
    "  - the card filling a half to two thirds of the photo",
    "  - name each photo after its card (4S.jpg, spades_4.jpg, queen_of_hearts.jpg, '4 di coppe.jpg'), or take them",
    "    in the order below",
)


def contact_sheet(crops: dict[str, np.ndarray], columns: int = 13) -> np.ndarray:
    """What was learnt: each template with its card id under it, in rows."""
    cw, ch = CANONICAL_SIZE
    labels = list(crops)
    rows = -(-len(labels) // columns)
    sheet = np.full((rows * (ch + 24) + 4, min(columns, len(labels)) * (cw + 4) + 4, 3), 255, np.uint8)
    for k, lbl in enumerate(labels):
        r, c = divmod(k, columns)
        x, y = 4 + c * (cw + 4), 4 + r * (ch + 24)
        sheet[y : y + ch, x : x + cw] = cv2.resize(crops[lbl], (cw, ch), interpolation=cv2.INTER_AREA)
        cv2.putText(sheet, lbl, (x + 2, y + ch + 17), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1, cv2.LINE_AA)
    return sheet


CONTACT_SHEET = "contact-sheet.jpg"


def card_labels(
    base: str | None = None, labels: Sequence[str] | None = None, photos: Sequence[str | Path] = ()
) -> tuple[list[str], dict[str, list[str]]]:
    """The face labels to enrol, in order, and the card ids of each label."""
    if labels:
        return list(labels), {lbl: [lbl] for lbl in labels}
    if base:
        ids: dict[str, list[str]] = {}
        for card in deck(base):
            ids.setdefault(card.face_key, []).append(card.id)
        return [c.face_key for c in faces(base)], ids
    stems = [Path(p).stem for p in photos]
    return stems, {s: [s] for s in stems}


def guide(base: str | None = None, labels: Sequence[str] | None = None, per_photo: int = 1) -> list[str]:
    """The guided order, one line per photo."""
    names = list(labels or card_labels(base=base)[0])
    if base and not labels:
        names = [f"{c.face_key} ({c.name})" for c in faces(base)]
    lines = []
    for k in range(0, len(names), per_photo):
        lines.append(f"photo {k // per_photo + 1}: " + ", ".join(names[k : k + per_photo]))
    return lines


@dataclasses.dataclass
class EnrollmentResult:
    name: str
    folder: Path
    labels: list[str]
    methods: dict[str, int]  # how many cards each finder found
    sharpness: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {
            "deck": self.name,
            "folder": str(self.folder),
            "cards": len(self.labels),
            "found_by": self.methods,
            "min_sharpness": round(min(self.sharpness.values()), 1),
        }


def enroll_images(
    name: str,
    images: Sequence[tuple[str, np.ndarray]],
    labels: Sequence[str],
    card_ids: dict[str, list[str]] | None = None,
    detector=None,
    per_photo: int = 1,
    backs: Sequence[tuple[str, np.ndarray]] = (),
    base: str | None = None,
    decks_dir: str | Path | None = None,
    replace: bool = False,
    min_sharpness: float = MIN_SHARPNESS,
) -> EnrollmentResult:
    """Enrol from (photo name, BGR image) pairs; see the module docstring."""
    if not images or not labels:
        raise EmptyEnrollment("nothing to enrol: give one photo per card (or sheets of cards)")
    if not name or "/" in name or name.startswith("."):
        raise EnrollmentError(f"{name!r} is not a deck name (a plain folder name)", deck=name)
    root = Path(decks_dir) if decks_dir else default_decks_dir()
    folder = root / name
    if folder.exists() and not replace:
        raise DeckExists(f"a deck called {name!r} exists in {root}; replace it explicitly", deck=name)
    expected_photos = -(-len(labels) // per_photo)
    if len(images) != expected_photos:
        raise PhotoCountMismatch(
            f"{len(labels)} cards at {per_photo} per photo need {expected_photos} photo(s), got {len(images)}",
            cards=len(labels),
            photos=len(images),
            per_photo=per_photo,
        )
    rejected: list[dict[str, Any]] = []
    found: list[FoundCard] = []
    for k, (photo, image) in enumerate(images):
        want = min(per_photo, len(labels) - k * per_photo)
        try:
            claim = labels[k] if per_photo == 1 else None
            cards = find_cards(image, detector, want, min_sharpness, aspect=deck_aspect(base), claim=claim, base=base)
            for card, lbl in zip(cards, labels[k * per_photo : k * per_photo + want]):
                check_claim(card.crop, lbl, base)
            found.extend(cards)
        except PhotoProblem as exc:
            rejected.append(
                {
                    "photo": photo,
                    "reason": exc.name,
                    "message": exc.message,
                    "cards": labels[k * per_photo : k * per_photo + want],
                }
            )
    back_found: dict[str, np.ndarray] = {}
    for photo, image in backs:
        try:
            found_back = find_cards(image, detector, 1, min_sharpness, face_up=False)[0]
            back_found[f"back:{name}:{len(back_found) + 1}"] = found_back.crop
        except PhotoProblem as exc:
            rejected.append({"photo": photo, "reason": exc.name, "message": exc.message, "cards": ["back"]})
    if rejected:
        raise EnrollmentRejected(
            f"{len(rejected)} photo(s) rejected: " + "; ".join(f"{r['photo']}: {r['reason']}" for r in rejected),
            rejected=rejected,
        )
    face_crops = {lbl: f.crop for lbl, f in zip(labels, found)}
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{safe_file_name(name)[:-4]}-", dir=root))
    try:
        write_deck_folder(
            tmp, name, face_crops, back_found, card_ids=card_ids, base=base, extra={"photos": [p for p, _ in images]}
        )
        cv2.imwrite(str(tmp / CONTACT_SHEET), contact_sheet(face_crops))
        if folder.exists():
            shutil.rmtree(folder)
        tmp.replace(folder)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    methods: dict[str, int] = {}
    for f in found:
        methods[f.method] = methods.get(f.method, 0) + 1
    return EnrollmentResult(name, folder, list(labels), methods, {lbl: f.sharpness for lbl, f in zip(labels, found)})


def enroll_deck(
    name: str,
    photos: Iterable[str | Path],
    base: str | None = None,
    labels: Sequence[str] | None = None,
    per_photo: int = 1,
    back_photos: Iterable[str | Path] = (),
    detector=None,
    decks_dir: str | Path | None = None,
    replace: bool = False,
    min_sharpness: float = MIN_SHARPNESS,
) -> EnrollmentResult:
    """Enrol from photo files (an unreadable file is rejected by name like any bad photo)."""
    fronts = [Path(p) for p in photos]
    backs = [Path(p) for p in back_photos]
    if not fronts:
        raise EmptyEnrollment("nothing to enrol: give one photo per card (or sheets of cards)")
    if base is None and not labels and per_photo != 1:
        raise EnrollmentError("sheets of several cards need the deck they follow (base) or the card ids")
    if base and not labels and per_photo == 1:
        named = labels_from_file_names(fronts, base)  # each photo's card from its name, when they say
        if named is not None:
            face_of = {c.id: c.face_key for c in deck(base)} | {c.face_key: c.face_key for c in deck(base)}
            _, all_ids = card_labels(base)
            lbls = [face_of[n] for n in named]
            ids = {lbl: all_ids[lbl] for lbl in lbls}
            return _enroll_files(
                name, fronts, backs, lbls, ids, detector, per_photo, base, decks_dir, replace, min_sharpness
            )
    lbls, ids = card_labels(base, labels, fronts)
    return _enroll_files(name, fronts, backs, lbls, ids, detector, per_photo, base, decks_dir, replace, min_sharpness)


def _enroll_files(
    name: str,
    fronts: list[Path],
    backs: list[Path],
    lbls: list[str],
    ids: dict[str, list[str]],
    detector,
    per_photo: int,
    base: str | None,
    decks_dir: str | Path | None,
    replace: bool,
    min_sharpness: float,
) -> EnrollmentResult:
    images: list[tuple[str, np.ndarray]] = []
    rejected: list[dict[str, Any]] = []
    for p in fronts + backs:
        try:
            images.append((p.name, read_image(p)))
        except MediaError as exc:
            rejected.append({"photo": p.name, "reason": exc.name, "message": exc.message, "cards": []})
    if rejected:
        raise EnrollmentRejected(
            f"{len(rejected)} photo(s) rejected: " + "; ".join(f"{r['photo']}: {r['reason']}" for r in rejected),
            rejected=rejected,
        )
    n = len(fronts)
    return enroll_images(
        name, images[:n], lbls, ids, detector, per_photo, images[n:], base, decks_dir, replace, min_sharpness
    )
