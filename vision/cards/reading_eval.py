"""Card reading measured on held-out synthetic scenes: detector recall and identification
accuracy (`scripts/eval_card_reading.py` is the command).

Scenes come from the dataset generator's held-out split (`render_scene(rng, "test", ...)`: the
held-out card design "outline" on held-out backgrounds, never seen in training), at 1280x720,
with a seed of their own. For every deck:

* recall of face-up cards: a labelled face-up card is found when a detection's box overlaps
  its box with IoU >= 0.5 (and "class right" when that detection says face up);
* identification accuracy of the found face-up cards, two ways:
  A. against the deck rendered in the same design (`DECK:outline`, no photo);
  B. against the deck *enrolled from one rendered photo per card* (each face of the held-out
     design photographed alone on a held-out background with perspective and lighting, found
     by the detector or the contour fallback, rectified, stored: `vision.cards.enroll`);
  over cards at least 90% visible ("clear") and over all found cards (fans and piles hide
  most of a card: an unknown there is honest); and the same from the *true* corners ("gt_"),
  which measures identification apart from the detector's corner error;
* unknown rate and wrong rate separately (a wrong label is worse than `unknown`);
* the corner error of the found clear cards: the mean distance of the four corners from the
  true ones over the card's diagonal (best of the four cyclic orders: up and down are
  identification's business), for the detector's own corners ("raw"), after refinement
  (`refine.snap_and_refine`) and as the reader leaves them (refined, and aligned on a template
  when the read was unsure), as median, 90th percentile and the share under 2% and 5%.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.cards import scenes as synthetic
from vision.cards.decks import faces
from vision.cards.detections import CardDetections
from vision.cards.detector import CardDetector, box_iou
from vision.cards.enroll import PhotoProblem, deck_aspect, find_cards
from vision.cards.geometry import orientation_of
from vision.cards.identify import SURE  # treat a read below it as unsure
from vision.cards.reader import CardReader
from vision.cards.refine import snap_and_refine
from vision.cards.render import HELD_OUT_DESIGN, card_mask, render_card
from vision.cards.templates import load_deck, write_deck_folder


def scenes(deck_name: str, n: int, seed: int, w: int = 1280, h: int = 720):
    """`n` held-out scenes of `deck_name` (`scenes.render_scene` of the test split), seeded by deck."""
    rng = np.random.default_rng([seed, sum(map(ord, deck_name))])
    for _ in range(n):
        img, labels, info = synthetic.render_scene(rng, "test", w=w, h=h, deck_name=deck_name)
        yield img, labels, info


def enrolment_photo(card, rng, design: str = HELD_OUT_DESIGN) -> np.ndarray:
    """One photo of one face: the card alone on a plain cloth (as the enrollment guide asks), a
    camera above at an angle, with the scene generator's lighting, colour, blur and noise."""
    h, w = 720, 960
    bg = synthetic.background("felt", rng, h, w).astype(np.uint8)
    face = render_card(card, design, 5.0)
    mask = card_mask((face.shape[0], face.shape[1]), 5.0)
    fh, fw = face.shape[:2]
    height = rng.uniform(380, 520)
    cx, cy = w / 2 + rng.uniform(-80, 80), h / 2 + rng.uniform(-40, 40)
    a = np.radians(rng.uniform(-12, 12))
    half = np.array([[-fw, -fh], [fw, -fh], [fw, fh], [-fw, fh]], np.float32) / 2 * (height / fh)
    half[:2, 0] *= 1 - rng.uniform(0, 0.08)  # the far edge a little shorter
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]], np.float32)
    dst = (half @ rot.T + [cx, cy]).astype(np.float32)
    m = cv2.getPerspectiveTransform(np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float32), dst)
    img = np.where(
        cv2.warpPerspective(mask, m, (w, h))[..., None] > 127,
        cv2.warpPerspective(face, m, (w, h), flags=cv2.INTER_AREA),
        bg,
    )
    return synthetic.photometric(np.random.default_rng(int(rng.integers(1 << 30))), img.astype(np.float32))


def enrol_by_photos(detector, deck_name: str, seed: int, tries: int = 3):
    """Enrol each face from photos as a user would: a photo the enrollment rejects (no card
    found, blur...) is taken again, up to `tries` photos per card."""
    rng = np.random.default_rng([seed, 7, sum(map(ord, deck_name))])
    crops: dict[str, np.ndarray] = {}
    rejected: dict[str, list[str]] = {}
    methods: dict[str, int] = {}
    retakes = 0
    for card in faces(deck_name):
        for attempt in range(tries):
            try:
                found = find_cards(enrolment_photo(card, rng), detector, 1, aspect=deck_aspect(deck_name))[0]
            except PhotoProblem as exc:
                rejected.setdefault(card.face_key, []).append(exc.name)
                retakes += attempt + 1 < tries
                continue
            crops[card.face_key] = found.crop
            methods[found.method] = methods.get(found.method, 0) + 1
            break
    return crops, {
        "cards": len(faces(deck_name)),
        "enrolled": len(crops),
        "found_by": methods,
        "photos_retaken": retakes,
        "not_enrolled": {k: v for k, v in rejected.items() if k not in crops},
    }


def up_or_down(corners: np.ndarray) -> np.ndarray:
    """The true corners as a detector that knows the card's corners but not which short edge is
    its top would give them: the order whose top edge faces most nearly up in the image.

    (`order_corners` takes the image's shorter edge for the top: a card seen steeply from the
    side can look as wide as it is tall, and was then read turned a quarter.)"""
    quads = np.stack([corners, np.roll(corners, 2, axis=0)]).astype(np.float32)
    turn = (orientation_of(quads) + 180) % 360 - 180
    return quads[int(np.argmin(np.abs(turn)))]


def corner_error(quad: np.ndarray, truth: np.ndarray) -> float:
    """Mean corner distance over the diagonal, best of the four cyclic orders."""
    truth = np.asarray(truth, np.float32)
    diag = float(np.linalg.norm(truth[0] - truth[2]))
    return min(float(np.linalg.norm(np.roll(quad, k, axis=0) - truth, axis=1).mean()) for k in range(4)) / diag


def error_summary(errors: list[float]) -> dict:
    e = np.asarray(errors, np.float64)
    if len(e) == 0:
        return {"n": 0}
    return {
        "n": len(e),
        "median": round(float(np.median(e)), 4),
        "p90": round(float(np.percentile(e, 90)), 4),
        "under_2pct": round(float(np.mean(e < 0.02)), 4),
        "under_5pct": round(float(np.mean(e < 0.05)), 4),
    }


def evaluate(
    detector: CardDetector, deck_name: str, n: int, seed: int, enrolled_dir: Path, enrol: bool = True, **reader_options
) -> dict:
    rendered = load_deck(f"{deck_name}:{HELD_OUT_DESIGN}")
    readers = {"rendered": CardReader(detector, rendered, **reader_options)}
    enrol_info = None
    if enrol:
        # A card whose photos are all rejected is left out of the templates (its reads are then
        # wrong or unknown); the reasons are reported.
        t0 = time.perf_counter()
        crops, enrol_info = enrol_by_photos(detector, deck_name, seed)
        enrol_info["seconds"] = round(time.perf_counter() - t0, 1)
        write_deck_folder(enrolled_dir / f"eval-{deck_name}", f"eval-{deck_name}", crops, {}, base=deck_name)
        readers["enrolled"] = CardReader(detector, load_deck(f"eval-{deck_name}", enrolled_dir), **reader_options)
    gt_up = found = found_cls = 0
    clear_up = clear_found = 0
    ident = {k: {"clear": [0, 0, 0, 0], "all": [0, 0, 0, 0]} for k in readers}  # n, right, unknown, wrong
    errors: dict[str, list[float]] = {"raw": [], "refined": [], "read_rendered": []}
    named: dict[str, list[tuple[float, bool]]] = {k: [] for k in readers}  # clear cards named: confidence, right
    for img, labels, info in scenes(deck_name, n, seed):
        det = detector(img)
        for (cls, corners, _vis), meta in zip(labels, info["cards"]):
            if cls != 0:
                continue
            gt_up += 1
            clear = meta["visible"] >= 0.9
            clear_up += clear
            truth = (
                meta["id"].rsplit(":", 1)[0]
                if meta["id"].split(":")[0] in ("chicken", "guild", "signal")
                else meta["id"]
            )
            # identification alone, from the true corners (a perfect detector that cannot tell
            # up from down: top edge towards the image top)
            gt = CardDetections.from_corners(up_or_down(corners))
            for name, reader in readers.items():
                label = reader.identify(img, gt, snap=False).label[0]
                for key in ("gt_clear", "gt_all") if clear else ("gt_all",):
                    ident[name].setdefault(key, [0, 0, 0, 0])
                    s = ident[name][key]
                    s[0] += 1
                    s[1] += label == truth
                    s[2] += label is None
                    s[3] += label is not None and label != truth
            box = np.array([[*corners.min(0), *corners.max(0)]], np.float32)
            if len(det) == 0:
                continue
            iou = box_iou(box, det.xyxy)[0]
            j = int(np.argmax(iou))
            if iou[j] < 0.5:
                continue
            found += 1
            clear_found += clear
            found_cls += bool(det.face_up[j])
            if clear:
                errors["raw"].append(corner_error(det.corners[j], corners))
                errors["refined"].append(corner_error(snap_and_refine(img, det.corners[j]), corners))
            for name, reader in readers.items():
                one = det[j]
                one.face_up[0] = True  # identification is measured apart from the face-up class
                r = reader.identify(img, one)
                label = r.label[0]
                if clear and name == "rendered":
                    errors["read_rendered"].append(corner_error(r.corners[0], corners))
                if clear and label is not None:
                    named[name].append((float(r.label_confidence[0]), label == truth))
                for key in ("clear", "all") if clear else ("all",):
                    s = ident[name][key]
                    s[0] += 1
                    s[1] += label == truth
                    s[2] += label is None
                    s[3] += label is not None and label != truth
    out = {
        "deck": deck_name,
        "scenes": n,
        "face_up_cards": gt_up,
        "recall_face_up": round(found / max(gt_up, 1), 4),
        "recall_face_up_class_right": round(found_cls / max(gt_up, 1), 4),
        "recall_clear_face_up": round(clear_found / max(clear_up, 1), 4),
        "clear_face_up_cards": clear_up,
        "enrolment": enrol_info,
        "corner_error_clear": {k: error_summary(v) for k, v in errors.items()},
    }
    for name, reads in named.items():
        # how far a read's confidence can be trusted: the reads at SURE or above, and how many
        # of them are wrong
        sure = [right for conf, right in reads if conf >= SURE]
        out[f"sure_{name}_clear"] = {
            "confidence_at_least": SURE,
            "named": len(reads),
            "sure": len(sure),
            "sure_wrong": len(sure) - sum(sure),
            "unsure_wrong": sum(not right for conf, right in reads if conf < SURE),
        }
    for name, d in ident.items():
        for key, (k, right, unk, wrong) in d.items():
            out[f"id_{name}_{key}"] = rates(k, right, unk, wrong)
    return out


def rates(n: int, right: int, unknown: int, wrong: int) -> dict:
    """An identification cell: its counts, and each as a share of n."""
    return {
        "n": n,
        "right": right,
        "unknown_n": unknown,
        "wrong_n": wrong,
        "accuracy": round(right / max(n, 1), 4),
        "unknown": round(unknown / max(n, 1), 4),
        "wrong": round(wrong / max(n, 1), 4),
    }


def totals(results: list[dict]) -> dict:
    """The identification cells and sure-read counts of several runs (seeds, decks) summed:
    {deck: {key: cell}} with an "all" deck over every deck."""
    out: dict[str, dict[str, Any]] = {}
    for r in results:
        for deck in (r["deck"], "all"):
            acc = out.setdefault(deck, {})
            for key, v in r.items():
                if key.startswith("id_"):
                    c = acc.setdefault(key, [0, 0, 0, 0])
                    for i, f in enumerate(("n", "right", "unknown_n", "wrong_n")):
                        c[i] += v[f]
                elif key.startswith("sure_"):
                    c = acc.setdefault(key, {"confidence_at_least": v["confidence_at_least"]})
                    for f in ("named", "sure", "sure_wrong", "unsure_wrong"):
                        c[f] = c.get(f, 0) + v[f]
    return {
        deck: {key: rates(*v) if isinstance(v, list) else v for key, v in sorted(acc.items())}
        for deck, acc in out.items()
    }
