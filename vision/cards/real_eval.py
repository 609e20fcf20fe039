"""Card reading measured on every real card photo the project has (`scripts/eval_real_media.py`).

The media (tests/fixtures/cards_real, see its ATTRIBUTION.md; tests/fixtures/cards):

* `edje`: 67 real phone and webcam photos of a French deck's 9-to-ace cards, alone or up to five
  together, often overlapping, on carpet, wood, stone, cloth and newspaper; each card has a box
  drawn round it and its name (rank and suit) and whether it is partly hidden (`labels.json`).
* `feliksh` / `geaxgx`: five real frames of a blackjack table and a card on a folder, with each
  card's centre (tests/fixtures/cards/cards.json).
* `scopa`: flat scans of real Italian decks (Napoletane, Piacentine, Bergamasche), each laid on a
  plain grey table with a margin round it.

**The held-out split** (`split_of`): a file whose first number is a multiple of 3
(`IMG_2433.JPG`, `cam_image45.jpg`, `feliksh_screenshot3.png`, `3d.jpg`) is *held out*: no
threshold, weight or bar of card reading is chosen on it; it is only measured. Every other file
is the *tune* split. The rule is fixed by the file name, so a photo added later falls on a side
before anyone has read it.

For each labelled card: *found* when a face-up read covers it (its quad's bounding box overlaps
the labelled box by IoU 0.3 or more, or, where only a centre is known, the quad holds it; each
read covers one card at most); *well placed* when that IoU is 0.75 or more; then *right*, *wrong*
(with its confidence; *sure wrong* at `SURE` or more) or *unknown*. A card not found is *missed*.

Readers (`READERS`): `french52`, the built-in rendered French deck (our printing, not theirs);
`enrolled`, a deck enrolled from the real single-card photos (one photo per card of those that
have one: `enrolment_photos`) and read on the photos of two cards or more, where a card that was
never enrolled must read `unknown`; `enrolled-full`, the same deck with the cards it lacks (and
any whose photo is refused) enrolled from single-card photos of the source's train set
(`extra_enrolment_photos`: edje/enrolment_extra, the suits ours, by eye), so that it holds every
card of the group photos; `italian`, the built-in rendered Italian deck on the scans, and
each shipped regional deck on its own scans.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.cards.identify import SURE
from vision.cards.reader import CardReader
from vision.cards.templates import UnknownDeck, load_deck

ROOT = Path(__file__).resolve().parents[2]
MEDIA = ROOT / "tests" / "fixtures" / "cards_real"
EXTRA = "enrolment_extra"  # under MEDIA / "edje": single-card photos of the train set
SCREENSHOTS = ROOT / "tests" / "fixtures" / "cards"
HELD_OUT_EVERY = 3  # a file whose first number is a multiple of this is held out
FOUND_IOU, PLACED_IOU = 0.3, 0.75
SCAN_MARGIN = 0.5  # of the scan's width, grey table round it
SPLITS = ("tune", "held_out")


def split_of(name: str) -> str:
    """ "held_out" when the first number in the file name is a multiple of HELD_OUT_EVERY, else "tune"."""
    m = re.search(r"\d+", name)
    return "held_out" if m is not None and int(m.group()) % HELD_OUT_EVERY == 0 else "tune"


@dataclasses.dataclass(frozen=True)
class Truth:
    card: str
    box: tuple[float, float, float, float] | None  # x0, y0, x1, y1; None when only the centre is known
    centre: tuple[float, float]
    partial: bool


@dataclasses.dataclass(frozen=True)
class Photo:
    source: str  # edje, feliksh, geaxgx, scopa/<deck>
    name: str
    path: Path
    cards: tuple[Truth, ...]

    @property
    def split(self) -> str:
        return split_of(self.name)


@dataclasses.dataclass(frozen=True)
class Row:
    reader: str
    source: str
    file: str
    split: str
    card: str
    partial: bool
    found: bool
    well_placed: bool | None  # None: no box to place against
    read: str | None
    confidence: float
    in_deck: bool = True  # the card is one of the reader's deck (an enrolled deck may lack it)
    extra: bool = False  # a read that covers no card of the photo's (a fragment, a false find): `card` is ""
    lies_on: str | None = None  # an extra read: the card it lies on (its centre inside that card's box)

    @property
    def outcome(self) -> str:
        if self.extra:
            return "extra"
        if not self.found:
            return "missed"
        if self.read is None:
            return "unknown"
        return "right" if self.read == self.card else "wrong"

    @property
    def sure(self) -> bool:
        return self.read is not None and self.confidence >= SURE


def edje_photos(root: Path = MEDIA) -> list[Photo]:
    labels = json.loads((root / "edje" / "labels.json").read_text())
    out = []
    for name in sorted(k for k in labels if not k.startswith("_")):
        cards = []
        for c in labels[name]:
            x0, y0, x1, y1 = (float(v) for v in c["box"])
            cards.append(Truth(c["card"], (x0, y0, x1, y1), ((x0 + x1) / 2, (y0 + y1) / 2), bool(c["partial"])))
        out.append(Photo("edje", name, root / "edje" / name, tuple(cards)))
    return out


def screenshot_photos(root: Path = SCREENSHOTS) -> list[Photo]:
    """The project's real frames; a card noted "under a hand" is partial."""
    data = json.loads((root / "cards.json").read_text())["cards"]
    out = []
    for name in sorted(data):
        cards = tuple(
            Truth(c["card"].split()[0], None, (float(c["x"]), float(c["y"])), " " in c["card"]) for c in data[name]
        )
        out.append(Photo(name.split("_")[0], name, root / name, cards))
    return out


_SCAN_RANKS = {1: "A", 8: "F", 9: "C", 10: "R"}


def scan_photos(root: Path = MEDIA) -> dict[str, list[Photo]]:
    """deck folder name -> its scans (card ids as the `italian` deck names them: 7D, RB)."""
    out: dict[str, list[Photo]] = {}
    for folder in sorted((root / "scopa").iterdir()) if (root / "scopa").is_dir() else []:
        if not (folder / "cards.json").is_file():
            continue
        photos = []
        for name in sorted(p.name for p in folder.glob("*.jpg") if re.match(r"^\d+[bcds]\.jpg$", p.name)):
            value, suit = int(name[:-5]), name[-5]
            card = f"{_SCAN_RANKS.get(value, str(value))}{suit.upper()}"
            photos.append(Photo(f"scopa/{folder.name}", name, folder / name, (Truth(card, None, (0, 0), False),)))
        out[folder.name] = photos
    return out


def on_table(scan: np.ndarray, margin: float = SCAN_MARGIN) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """A flat scan laid on a plain grey table, and its box there."""
    h, w = scan.shape[:2]
    m = int(round(w * margin))
    img = cv2.copyMakeBorder(scan, m, m, m, m, cv2.BORDER_CONSTANT, value=(90, 95, 100))
    return img, (float(m), float(m), float(m + w), float(m + h))


def enrolment_photos(photos: Sequence[Photo]) -> dict[str, Photo]:
    """card -> the first photo (by name) that shows it alone and whole: the enrolment."""
    out: dict[str, Photo] = {}
    for p in photos:
        if len(p.cards) == 1 and not p.cards[0].partial:
            out.setdefault(p.cards[0].card, p)
    return out


def extra_enrolment_photos(root: Path = MEDIA) -> dict[str, list[Photo]]:
    """card -> single-card photos of the source's train set (edje/enrolment_extra), in name order:
    for the cards the test set's single-card photos lack, and the photos taken again (the next
    by name) where the first is refused."""
    folder = root / "edje" / EXTRA
    if not (folder / "labels.json").is_file():  # without them `enrolled-full` would be `enrolled` in silence
        raise FileNotFoundError(f"the extra enrolment photos are missing: no {folder / 'labels.json'}")
    labels = json.loads((folder / "labels.json").read_text())
    out: dict[str, list[Photo]] = {}
    for name, card in sorted(labels.items()):
        if not name.startswith("_"):
            out.setdefault(card, []).append(Photo("edje", name, folder / name, (Truth(card, None, (0.0, 0.0), False),)))
    return out


def _iou(a: Sequence[float], b: Sequence[float]) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def match(corners: np.ndarray, truths: Sequence[Truth]) -> list[tuple[int | None, float | None]]:
    """For each truth: the read covering it (greedy, best overlap first) and its IoU (None
    without a box)."""
    boxes = [(float(q[:, 0].min()), float(q[:, 1].min()), float(q[:, 0].max()), float(q[:, 1].max())) for q in corners]
    pairs = []
    for t, truth in enumerate(truths):
        for i, q in enumerate(corners):
            if truth.box is not None:
                iou = _iou(truth.box, boxes[i])
                inside = cv2.pointPolygonTest(q.reshape(-1, 1, 2).astype(np.float32), truth.centre, False) >= 0
                if iou >= FOUND_IOU or (inside and iou > 0.1):
                    pairs.append((iou, t, i))
            elif cv2.pointPolygonTest(q.reshape(-1, 1, 2).astype(np.float32), truth.centre, False) >= 0:
                pairs.append((1.0, t, i))
    out: list[tuple[int | None, float | None]] = [(None, None)] * len(truths)
    used: set[int] = set()
    for iou, t, i in sorted(pairs, key=lambda p: -p[0]):
        if out[t][0] is None and i not in used:
            out[t] = (i, iou if truths[t].box is not None else None)
            used.add(i)
    return out


def read_photo(
    reader: CardReader, label: str, photo: Photo, image: np.ndarray | None = None, deck: set[str] | None = None
) -> list[Row]:
    if image is None:
        image = cv2.imread(str(photo.path))
        if image is None:
            raise FileNotFoundError(photo.path)
    reads = reader.read(image)
    reads = reads[reads.face_up]
    rows = []
    row = functools.partial(Row, label, photo.source, photo.name, photo.split)  # this photo's rows
    matched = match(reads.corners, photo.cards)
    for truth, (i, iou) in zip(photo.cards, matched):
        found = i is not None
        rows.append(
            row(
                truth.card,
                truth.partial,
                found,
                (iou is not None and iou >= PLACED_IOU) if found and truth.box is not None else None,
                str(reads.label[i]) if found and reads.label[i] is not None else None,
                float(reads.label_confidence[i]) if found else 0.0,
                deck is None or truth.card in deck,
            )
        )
    used = {i for i, _ in matched if i is not None}
    for i in range(len(reads)):  # the reads that cover no card: a card the table would see that is not there
        if i in used:
            continue
        q = reads.corners[i]
        cx, cy = (float(v) for v in q.mean(axis=0))
        x0, y0, x1, y1 = float(q[:, 0].min()), float(q[:, 1].min()), float(q[:, 0].max()), float(q[:, 1].max())
        # the card it lies on: one it touches that it names (a part of a card lying partly under
        # another), else the one under its centre
        touching = [t for t in photo.cards if t.box is not None and _iou(t.box, (x0, y0, x1, y1)) > 0]
        on = [t for t in touching if t.card == reads.label[i]] or [
            t for t in touching if t.box is not None and t.box[0] <= cx <= t.box[2] and t.box[1] <= cy <= t.box[3]
        ]
        rows.append(
            row(
                card="",
                partial=False,
                found=True,
                well_placed=None,
                read=str(reads.label[i]) if reads.label[i] is not None else None,
                confidence=float(reads.label_confidence[i]),
                extra=True,
                lies_on=on[0].card if on else None,
            )
        )
    return rows


def read_scans(reader: CardReader, label: str, photos: Sequence[Photo]) -> list[Row]:
    rows = []
    for p in photos:
        scan = cv2.imread(str(p.path))
        if scan is None:
            raise FileNotFoundError(p.path)
        img, box = on_table(scan)
        truth = dataclasses.replace(p.cards[0], box=box, centre=((box[0] + box[2]) / 2, (box[1] + box[3]) / 2))
        rows.extend(read_photo(reader, label, dataclasses.replace(p, cards=(truth,)), img))
    return rows


def _image(photo: Photo) -> tuple[str, np.ndarray]:
    img = cv2.imread(str(photo.path))
    if img is None:
        raise FileNotFoundError(photo.path)
    return photo.name, img


def enrol(
    detector,
    photos: dict[str, Photo],
    folder: Path,
    name: str = "edje",
    alternatives: dict[str, list[Photo]] | None = None,
) -> list[str]:
    """Enrol `photos` (card -> photo) as the deck `name` in `folder`, as `referee enroll-deck`
    does with file names giving the cards; the cards enrolled. A refused photo is replaced by
    the card's next photo in `alternatives` while there is one (a user takes it again), else
    left out."""
    from vision.cards.enroll import EnrollmentRejected, enroll_images  # deferred: the enrolled reader only

    spare = {c: list(ps) for c, ps in (alternatives or {}).items() if ps}
    cards = sorted(set(photos) | set(spare))
    chosen = {c: photos[c] if c in photos else spare[c].pop(0) for c in cards}
    images = [_image(chosen[c]) for c in cards]
    while True:
        try:
            enroll_images(name, images, cards, detector=detector, base="french52", decks_dir=folder, replace=True)
            return cards
        except EnrollmentRejected as exc:
            bad = {r["photo"] for r in exc.details.get("rejected", [])}
            again = [
                (c, _image(spare[c].pop(0)) if spare.get(c) else None) for c, im in zip(cards, images) if im[0] in bad
            ]
            kept = [(c, im) for c, im in zip(cards, images) if im[0] not in bad]
            kept += [(c, im) for c, im in again if im is not None]
            if not kept or len(kept) == len(cards) and not any(im is not None for _, im in again):
                raise
            kept.sort(key=lambda ci: ci[0])
            cards, images = [c for c, _ in kept], [im for _, im in kept]


Progress = Callable[[str], None]


def evaluate(
    detector,
    readers: Iterable[str] = ("french52", "enrolled", "enrolled-full", "italian"),
    files: Iterable[str] | None = None,
    progress: Progress | None = None,
) -> list[Row]:
    """Every row of every reader (`READERS` in the module docstring); `files`: only these file
    names (a quick subset; the enrolment is made from all single-card photos whatever `files`)."""
    keep = set(files) if files is not None else None
    edje = edje_photos()
    shots = screenshot_photos()

    def chosen(ps: Sequence[Photo]) -> list[Photo]:
        return [p for p in ps if keep is None or p.name in keep]

    rows: list[Row] = []
    for name in readers:
        if name == "french52":
            reader = CardReader(detector, load_deck("french52"))
            for p in chosen(edje) + chosen(shots):
                rows.extend(read_photo(reader, name, p))
                if progress:
                    progress(f"{name} {p.name}")
        elif name in ("enrolled", "enrolled-full"):
            enrolment = enrolment_photos(edje)
            extra = extra_enrolment_photos() if name == "enrolled-full" else {}
            with tempfile.TemporaryDirectory() as tmp:
                enrolled = set(enrol(detector, enrolment, Path(tmp), alternatives=extra))
                reader = CardReader(detector, load_deck("edje", Path(tmp)))
                for p in chosen([p for p in edje if len(p.cards) >= 2]):
                    rows.extend(read_photo(reader, name, p, deck=enrolled))
                    if progress:
                        progress(f"{name} {p.name}")
        elif name == "italian":
            for deck_folder, scans in scan_photos().items():
                for deck_name in ("italian", deck_folder.lower()):
                    try:
                        deck = load_deck(deck_name)
                    except UnknownDeck:  # a regional deck not shipped: its own row is left out
                        continue
                    rows.extend(read_scans(CardReader(detector, deck), deck_name, chosen(scans)))
                    if progress:
                        progress(f"{deck_name} {deck_folder}")
        else:
            raise ValueError(f"no reader called {name!r}")
    return rows


COUNTS = ("cards", "found", "well_placed", "right", "wrong", "sure_wrong", "unknown", "sure", "missed")


def totals(rows: Iterable[Row]) -> dict[str, Any]:
    every = list(rows)
    extra = [r for r in every if r.extra]
    rows = [r for r in every if not r.extra]
    found = [r for r in rows if r.found]
    out: dict[str, Any] = {
        "cards": len(rows),
        "found": len(found),
        "well_placed": sum(bool(r.well_placed) for r in found),
        "placeable": sum(r.well_placed is not None for r in found),
        "right": sum(r.outcome == "right" for r in rows),
        "wrong": sum(r.outcome == "wrong" for r in rows),
        "sure_wrong": sum(r.outcome == "wrong" and r.sure for r in rows),
        "unknown": sum(r.outcome == "unknown" for r in rows),
        "sure": sum(r.sure for r in found),
        "missed": len(rows) - len(found),
        "wrong_confidences": sorted(round(r.confidence, 2) for r in rows if r.outcome == "wrong"),
        "not_in_deck": sum(not r.in_deck for r in found),
        "not_in_deck_named": sum(not r.in_deck and r.read is not None for r in found),
        # reads that cover no card (fragments of a card, false finds): named, and named for sure
        "extra": len(extra),
        "extra_named": sum(r.read is not None for r in extra),
        "extra_sure": sum(r.sure for r in extra),
        "extra_sure_other": sum(r.sure and r.read != r.lies_on for r in extra),  # not even the card under it
    }
    return out


def summary(rows: Sequence[Row]) -> dict[str, Any]:
    """reader -> split ("tune", "held_out", "all") -> clear / all cards -> `totals`."""
    out: dict[str, Any] = {}
    for reader in dict.fromkeys(r.reader for r in rows):
        mine = [r for r in rows if r.reader == reader]
        out[reader] = {}
        for split in (*SPLITS, "all"):
            part = [r for r in mine if split == "all" or r.split == split]
            out[reader][split] = {"clear": totals(r for r in part if not r.partial), "all": totals(part)}
    return out


def reliability(rows: Iterable[Row], bins: Sequence[float] = (0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 1.0001)) -> list[dict]:
    """How often a named read was right, by its confidence."""
    named = [r for r in rows if r.found and r.read is not None and not r.extra]
    out = []
    for lo, hi in zip(bins[:-1], bins[1:]):
        part = [r for r in named if lo <= r.confidence < hi]
        out.append(
            {
                "from": lo,
                "to": min(hi, 1.0),
                "reads": len(part),
                "right": sum(r.outcome == "right" for r in part),
                "mean_confidence": float(np.mean([r.confidence for r in part])) if part else None,
            }
        )
    return out


def format_table(rows: Sequence[Row], per_file: bool = True) -> str:
    """Per-file rows (one line a card) then the totals, as plain text."""
    lines = []
    if per_file:
        lines.append(
            f"{'reader':<12} {'split':<8} {'file':<26} {'card':<5} {'part':<4} {'outcome':<8} read (confidence)"
        )
        for r in rows:
            if r.extra:
                on = f" on {r.lies_on}" if r.lies_on else " on no card"
                lines.append(
                    f"{r.reader:<12} {r.split:<8} {r.file:<26} {'+':<5} {'':<4} {'extra':<8} "
                    f"{r.read or '-'} ({r.confidence:.2f}){on}"
                )
                continue
            placed = "" if r.well_placed is None else ("" if r.well_placed else " (badly placed)")
            got = (
                f"{r.read} ({r.confidence:.2f})"
                if r.found and r.read
                else (f"- ({r.confidence:.2f})" if r.found else "")
            )
            lines.append(
                f"{r.reader:<12} {r.split:<8} {r.file:<26} {r.card:<5} {'yes' if r.partial else '':<4} "
                f"{r.outcome:<8} {got}{placed}{'' if r.in_deck else ' (not in the deck)'}"
            )
        lines.append("")
    lines.append(
        f"{'reader':<12} {'split':<8} {'cards':<6} {'n':>4} {'found':>6} {'placed':>7} {'right':>6} {'wrong':>6} "
        f"{'sure-wrong':>10} {'unknown':>8} {'extra':>6} {'named':>6} {'sure':>5}  wrong at"
    )
    for reader, splits in summary(rows).items():
        for split, kinds in splits.items():
            for kind, t in kinds.items():
                lines.append(
                    f"{reader:<12} {split:<8} {kind:<6} {t['cards']:>4} {t['found']:>6} "
                    f"{t['well_placed']:>3}/{t['placeable']:<3} {t['right']:>6} {t['wrong']:>6} {t['sure_wrong']:>10} "
                    f"{t['unknown']:>8} {t['extra']:>6} {t['extra_named']:>6} {t['extra_sure']:>5}  "
                    f"{', '.join(f'{c:.2f}' for c in t['wrong_confidences'])}"
                )
    return "\n".join(lines)
