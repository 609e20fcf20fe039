"""The card detector measured on real photos with labelled boxes (`scripts/eval_detector_real.py`).

The photos: `../shared/testdata/cards_real/edje/test` (67 phone and webcam photos of a real
French deck, one LabelImg VOC box per card, every card face up; see its ATTRIBUTION.md), or the
copy in `tests/fixtures/cards_real/edje` (with its `labels.json`). Held out: photos whose first
number is a multiple of 3 (`split_of`), which nothing is tuned or trained on.

Per labelled card:

* *touched*: some detection covers part of it (at least a quarter of the detection lies on the
  card's box);
* *well placed*: a detection's box (around its four corners) has IoU >= 0.5 with the card's box,
  one detection to one card, best IoU first;
* *face up right*: that detection says face up (every labelled card is face up).

Per detection that is not any card's well-placed one:

* a *fragment* when at least half of it lies on a labelled card (a part of a card reported as a
  card);
* a *false* detection otherwise (on the cloth, a book, an unlabelled card).
"""

from __future__ import annotations

import dataclasses
import json
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.cards.detector import box_iou
from vision.cards.real_eval import split_of  # the project's one held-out rule

ROOT = Path(__file__).resolve().parents[2]
SHARED_TEST = ROOT.parent / "shared" / "testdata" / "cards_real" / "edje" / "test"
FIXTURE = ROOT / "tests" / "fixtures" / "cards_real" / "edje"
WELL_PLACED_IOU = 0.5


class NoLabelledPhotos(ValueError):
    """A folder with no photo that has labelled card boxes."""


@dataclasses.dataclass
class Photo:
    path: Path
    boxes: np.ndarray  # (K, 4) xyxy in the photo's pixels
    partial: list[bool]

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def split(self) -> str:
        return split_of(self.name)


def voc_boxes(xml: Path) -> np.ndarray:
    """The boxes of a LabelImg VOC file, (K, 4) xyxy."""
    root = ET.parse(xml).getroot()
    boxes = [
        [float(o.findtext(f"bndbox/{k}") or 0) for k in ("xmin", "ymin", "xmax", "ymax")] for o in root.iter("object")
    ]
    return np.asarray(boxes, np.float32).reshape(-1, 4)


def load_photos(folder: Path = SHARED_TEST) -> list[Photo]:
    """Labelled photos of a folder: VOC `.xml` beside each photo (the shared copy, with
    `../labels_test.json` for the partial flags), or a `labels.json` (the test fixture's copy)."""
    folder = Path(folder)
    labels_json = folder / "labels.json"
    if not labels_json.is_file():
        labels_json = folder.parent / "labels_test.json"
    labels = json.loads(labels_json.read_text()) if labels_json.is_file() else {}
    photos = []
    for path in sorted(p for p in folder.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png")):
        entries = labels.get(path.name)
        xml = path.with_suffix(".xml")
        if xml.is_file():
            boxes = voc_boxes(xml)
        elif entries:
            boxes = np.asarray([e["box"] for e in entries], np.float32).reshape(-1, 4)
        else:
            continue
        partial = [bool(e.get("partial")) for e in entries] if entries and len(entries) == len(boxes) else []
        photos.append(Photo(path, boxes, partial or [False] * len(boxes)))
    if not photos:
        raise NoLabelledPhotos(f"no photo with labelled card boxes in {folder}")
    return photos


def share_inside(dets: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """(D, C): the share of each detection's box that lies on each card's box."""
    lt = np.maximum(dets[:, None, :2], cards[None, :, :2])
    rb = np.minimum(dets[:, None, 2:], cards[None, :, 2:])
    inter = np.prod(np.clip(rb - lt, 0, None), axis=2)
    return inter / np.maximum(np.prod(dets[:, 2:] - dets[:, :2], axis=1)[:, None], 1e-9)


@dataclasses.dataclass
class Row:
    file: str
    split: str
    cards: int
    detections: int
    touched: int
    well_placed: int
    face_up_right: int
    fragments: int
    false: int
    seconds: float = 0.0


def score(photo: Photo, xyxy: np.ndarray, face_up: np.ndarray) -> Row:
    """One photo's row from its detections' boxes (D, 4) and face-up flags (D,)."""
    gt = photo.boxes
    n, d = len(gt), len(xyxy)
    matched: dict[int, int] = {}  # card -> detection
    if n and d:
        iou = box_iou(gt, xyxy)
        for flat in np.argsort(-iou, axis=None):
            c, k = divmod(int(flat), d)
            if iou[c, k] < WELL_PLACED_IOU:
                break
            if c in matched or k in matched.values():
                continue
            matched[c] = k
    inside = share_inside(xyxy, gt) if n and d else np.zeros((d, n))
    touched = int((inside >= 0.25).any(axis=0).sum()) if d else 0
    used = set(matched.values())
    rest = [k for k in range(d) if k not in used]
    fragments = sum(1 for k in rest if n and inside[k].max() >= 0.5)
    return Row(
        file=photo.name,
        split=photo.split,
        cards=n,
        detections=d,
        touched=touched,
        well_placed=len(matched),
        face_up_right=sum(1 for k in matched.values() if face_up[k]),
        fragments=fragments,
        false=len(rest) - fragments,
    )


def evaluate(detect: Callable[[np.ndarray], Any], photos: Sequence[Photo]) -> list[Row]:
    """Run `detect` (a `CardDetector` or anything returning `CardDetections`) on every photo."""
    rows = []
    for photo in photos:
        img = cv2.imread(str(photo.path))
        if img is None:
            raise NoLabelledPhotos(f"{photo.path} is not a picture OpenCV can read")
        t0 = time.perf_counter()
        found = detect(img)
        dt = time.perf_counter() - t0
        row = score(photo, found.xyxy, found.face_up)
        row.seconds = round(dt, 3)
        rows.append(row)
    return rows


FIELDS = ("cards", "detections", "touched", "well_placed", "face_up_right", "fragments", "false")


def totals(rows: Iterable[Row]) -> dict[str, dict[str, int]]:
    """Sums by split ("tune", "held_out") and over all."""
    out: dict[str, dict[str, int]] = {}
    for row in rows:
        for key in (row.split, "all"):
            t = out.setdefault(key, dict.fromkeys(FIELDS, 0) | {"photos": 0, "photos_with_fragments": 0})
            t["photos"] += 1
            t["photos_with_fragments"] += int(row.fragments > 0)
            for f in FIELDS:
                t[f] += getattr(row, f)
    return {k: out[k] for k in ("tune", "held_out", "all") if k in out}


def format_table(rows: Sequence[Row], per_file: bool = True) -> str:
    head = "| file | split | cards | detections | touched | well placed | face up right | fragments | false |"
    lines = [head, "|" + "---|" * 9]
    if per_file:
        for r in rows:
            lines.append(
                f"| {r.file} | {r.split} | {r.cards} | {r.detections} | {r.touched} | {r.well_placed} | "
                f"{r.face_up_right} | {r.fragments} | {r.false} |"
            )
    for split, t in totals(rows).items():
        lines.append(
            f"| **{split}** ({t['photos']} photos, {t['photos_with_fragments']} with fragments) | | {t['cards']} | "
            f"{t['detections']} | {t['touched']} | {t['well_placed']} | {t['face_up_right']} | {t['fragments']} | "
            f"{t['false']} |"
        )
    return "\n".join(lines)
