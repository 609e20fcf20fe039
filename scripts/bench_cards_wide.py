#!/usr/bin/env python
"""The card detector's square input against a wide one, on wide frames: as accurate? how fast?

Ultralytics letterboxes a 1280x720 frame to 480x270 inside the shipped model's 480x480 input:
105 grey rows above and below. The same weights exported at 288x480 (`--wide`, made with the
training environment: `scripts/detector_pt_from_onnx.py`, then Ultralytics' export with
`imgsz=[288, 480]`) see the very same 480x270 picture with 9 rows of padding: the same scale for
any frame at least 5:3 wide, 40% less input. Measured here, in one run, alternating the two
models on every frame:

* the held-out synthetic split (`vision.cards.scenes.render_scene`, split "test": the held-out
  design and backgrounds) at 1280x720 (`--scenes` per deck, every deck) and at the dataset's
  own 640x360: recall of face-up cards and of all cards (a labelled card is found when a
  detection's box overlaps its box with IoU >= 0.5, best first, each detection once), precision,
  the corner error of the found face-up cards (mean corner distance over the card's diagonal,
  best of the four cyclic orders), and the median milliseconds per frame;
* the real photos of tests/fixtures/cards (the truth: each card's centre, cards.json; found when a
  face-up detection's quad holds it) and the count of detections on the photos of
  ../shared/testdata/cards_real (where present) at least 5:3 wide (narrower ones keep the square
  input).

    nice .venv/bin/python scripts/bench_cards_wide.py --wide /tmp/card_detector_288x480.onnx [--scenes 40] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.cards import scenes as synthetic  # noqa: E402
from vision.cards.detector import CardDetector, box_iou  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "cards"
REAL = ROOT.parent / "shared" / "testdata" / "cards_real"


def corner_error(quad: np.ndarray, truth: np.ndarray) -> float:
    diag = float(np.linalg.norm(truth[0] - truth[2]))
    return min(float(np.linalg.norm(np.roll(quad, k, axis=0) - truth, axis=1).mean()) for k in range(4)) / diag


class Score:
    def __init__(self) -> None:
        self.up = self.up_found = self.all = self.all_found = self.dets = self.dets_matched = 0
        self.errors: list[float] = []
        self.ms: list[float] = []

    def add(self, dets, labels, ms: float) -> None:
        self.ms.append(ms)
        self.dets += len(dets)
        if not labels:
            return
        truth = np.array([c for _, c, _ in labels], np.float32)
        tb = np.concatenate([truth.min(axis=1), truth.max(axis=1)], axis=1)
        iou = box_iou(tb, dets.xyxy) if len(dets) else np.zeros((len(labels), 0))
        used: set[int] = set()
        for i in np.argsort(-(iou.max(axis=1) if iou.shape[1] else np.zeros(len(labels)))):
            cls = labels[i][0]
            self.all += 1
            self.up += cls == 0
            order = [j for j in np.argsort(-iou[i]) if iou[i, j] >= 0.5 and j not in used] if iou.shape[1] else []
            if not order:
                continue
            j = int(order[0])
            used.add(j)
            self.all_found += 1
            if cls == 0:
                self.up_found += 1
                self.errors.append(corner_error(dets.corners[j], truth[i]))
        self.dets_matched += len(used)

    def summary(self) -> dict:
        return {
            "face_up_cards": self.up,
            "face_up_found": self.up_found,
            "recall_face_up": round(self.up_found / max(self.up, 1), 4),
            "recall_all": round(self.all_found / max(self.all, 1), 4),
            "precision": round(self.dets_matched / max(self.dets, 1), 4),
            "corner_error_median": round(float(np.median(self.errors)), 4) if self.errors else None,
            "median_ms": round(statistics.median(self.ms), 2) if self.ms else None,
        }


def timed(detector: CardDetector, img: np.ndarray):
    t0 = time.perf_counter()
    dets = detector(img)
    return dets, 1000 * (time.perf_counter() - t0)


def held_out(models: dict[str, CardDetector], n: int, seed: int, w: int, h: int | None) -> dict:
    scores = {k: Score() for k in models}
    for deck in ("beccato", "italian", "french52"):
        rng = np.random.default_rng([seed, sum(map(ord, deck)), w])
        for _ in range(n):
            img, labels, _info = synthetic.render_scene(rng, "test", w=w, h=h, deck_name=deck)
            img = np.asarray(img, np.uint8)
            if img.shape[1] / img.shape[0] < 5 / 3 - 1e-6:
                continue  # a frame narrower than 5:3 keeps the square input
            for name in list(models)[:: 1 if len(scores["square"].ms) % 2 == 0 else -1]:
                dets, ms = timed(models[name], img)
                scores[name].add(dets, labels, ms)
    return {k: s.summary() for k, s in scores.items()}


def real_photos(models: dict[str, CardDetector]) -> dict:
    truth = json.loads((FIXTURES / "cards.json").read_text())["cards"]
    out: dict = {}
    for name, det in models.items():
        found = total = 0
        for file, cards in truth.items():
            img = cv2.imread(str(FIXTURES / file))
            dets = det(img)
            up = dets[dets.face_up]
            for c in cards:
                total += 1
                found += any(
                    cv2.pointPolygonTest(q.reshape(-1, 1, 2).astype(np.float32), (float(c["x"]), float(c["y"])), False)
                    >= 0
                    for q in up.corners
                )
        extra = {}
        if REAL.is_dir():
            files = sorted(p for p in REAL.rglob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
            counts = []
            for p in files:
                img = cv2.imread(str(p))
                if img is not None and img.shape[1] / img.shape[0] >= 5 / 3 - 1e-6:  # the wide ones only
                    counts.append(len(det(img)))
            extra = {
                "cards_real_photos": len(files),
                "wide_photos": len(counts),
                "with_a_card_found": sum(c > 0 for c in counts),
                "detections": sum(counts),
            }
        out[name] = {"fixture_cards": total, "fixture_found": found, **extra}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wide", type=Path, required=True, help="the same model exported at 288x480")
    ap.add_argument("--square", type=Path, default=None, help="default: the shipped model")
    ap.add_argument("--scenes", type=int, default=40, help="held-out scenes per deck and size")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    models = {
        "square": CardDetector(args.square, threads=args.threads),
        "wide": CardDetector(args.wide, threads=args.threads),
    }
    report = {
        "inputs": {k: list(m.imgsz) for k, m in models.items()},
        "held_out_1280x720": held_out(models, args.scenes, args.seed, 1280, 720),
        "held_out_640x360": held_out(models, args.scenes, args.seed, 640, 360),
        "real_photos": real_photos(models),
    }
    print(json.dumps(report, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
