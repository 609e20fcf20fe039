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
) -> list[FoundCard]:
    """The `expected` cards (face up, or backs with face_up=False) of a photo in reading order,
    or a `PhotoProblem`. With the deck's `aspect` (width / height), a card whose found outline is
    off it by more than `aspect_tolerance` (relative) is `BadCardShape`: a template cut from it
    would be misaligned, and a misaligned template misleads every later read."""
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
    for i in reading_order(quads):
        q = quads[i]
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
            found.extend(find_cards(image, detector, want, min_sharpness, aspect=deck_aspect(base)))
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
    lbls, ids = card_labels(base, labels, fronts)
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
