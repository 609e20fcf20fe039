#!/usr/bin/env python
"""Read once per card lying still, against reading every card on every frame: the same names?

The card stage (`vision.capture.stages.CardStage`) keeps what a card lying still was read as
(`vision.cards.track.StillCards`) instead of identifying it again on every frame. This measures,
in one run, that it names the cards as reading every frame does, on:

* the held-out synthetic split (`vision.cards.reading_eval.scenes`: the dataset generator's test
  split, the held-out design "outline" on held-out backgrounds, 1280x720), every deck: each
  scene is a short clip of a still table (the scene, then the same scene twice with new sensor
  noise and a slight exposure change), then one clearly visible face-up card replaced in its
  very place by another face of the deck (and that frame again with new noise): the hard case,
  a card that must not keep its old name;
* the real photos (tests/fixtures/cards and, where present, ../shared/testdata/cards_real), each
  three frames (the photo, then two with new sensor noise), read with the rendered French deck.

Reported per set: the share of true face-up cards (at least 90% visible) named right by each
stage, frame by frame and in all; how often the two stages name a card differently; how many
identifications read-once saved; and the time of each stage.

    nice .venv/bin/python scripts/bench_cards_still.py [--scenes 30] [--real-every 1] [--json OUT]
    nice .venv/bin/python scripts/bench_cards_still.py --decks "" --real-every 10   # the real photos alone
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.capture.sources import CameraFrame  # noqa: E402
from vision.capture.stages import CardStage  # noqa: E402
from vision.cards.decks import card, faces  # noqa: E402
from vision.cards.detector import box_iou  # noqa: E402
from vision.cards.reading_eval import scenes  # noqa: E402
from vision.cards.render import HELD_OUT_DESIGN, card_mask, render_card  # noqa: E402

PPM = 4.0
REAL = [ROOT / "tests" / "fixtures" / "cards", ROOT.parent / "shared" / "testdata" / "cards_real"]


def noisy(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    out = img.astype(np.float32) * rng.uniform(0.96, 1.04) + rng.normal(0, 3.0, img.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def put(img: np.ndarray, face_card, corners: np.ndarray) -> np.ndarray:
    """`face_card` drawn in the held-out design with its corners at `corners`."""
    face = render_card(face_card, HELD_OUT_DESIGN, PPM)
    mask = card_mask(face.shape[:2], PPM)
    h, w = face.shape[:2]
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), np.asarray(corners, np.float32))
    size = (img.shape[1], img.shape[0])
    warped = cv2.warpPerspective(face, m, size, flags=cv2.INTER_AREA)
    return np.where(cv2.warpPerspective(mask, m, size)[..., None] > 127, warped, img)


def boxes(quads: np.ndarray) -> np.ndarray:
    q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    return np.concatenate([q.min(axis=1), q.max(axis=1)], axis=1)


def names_of(seen, truth: list[tuple[np.ndarray, str]]) -> list[str | None]:
    """For each true card, the name of the detection over it (IoU >= 0.5, best), or None."""
    if not truth:
        return []
    if not seen.cards:
        return [None] * len(truth)
    det = boxes(np.array([r.corners for r in seen.cards]))
    iou = box_iou(boxes(np.array([c for c, _ in truth])), det)
    out: list[str | None] = []
    for i in range(len(truth)):
        j = int(np.argmax(iou[i]))
        out.append(seen.cards[j].card if iou[i, j] >= 0.5 else None)
    return out


class Pair:
    """The two stages side by side on the same frames."""

    def __init__(self, deck: str) -> None:
        self.once = CardStage("cards", deck=deck, fps=None, threads=2)
        self.every = CardStage("cards", deck=deck, fps=None, threads=2, read_once=False)
        self.seconds = {"once": 0.0, "every": 0.0}
        self.i = 0

    def reset(self) -> None:
        assert self.once.still is not None
        self.once.still.reset()

    def read(self, img: np.ndarray):
        self.i += 1
        frame = CameraFrame("cards", self.i, self.i / 10, img)
        t0 = time.perf_counter()
        a = self.once(frame)
        t1 = time.perf_counter()
        b = self.every(frame)
        t2 = time.perf_counter()
        self.seconds["once"] += t1 - t0
        self.seconds["every"] += t2 - t1
        return a, b


class Tally:
    def __init__(self, frames: int) -> None:
        self.right = {"once": np.zeros(frames, int), "every": np.zeros(frames, int)}
        self.total = np.zeros(frames, int)
        self.differ = 0
        self.detections = 0

    def add(self, k: int, a, b, truth: list[tuple[np.ndarray, str]]) -> None:
        na, nb = names_of(a, truth), names_of(b, truth)
        for (_, want), x, y in zip(truth, na, nb):
            self.total[k] += 1
            self.right["once"][k] += x == want
            self.right["every"][k] += y == want
        self.detections += max(len(a.cards), len(b.cards))
        sa = sorted((r.card or "") for r in a.cards)
        sb = sorted((r.card or "") for r in b.cards)
        self.differ += sum(1 for x, y in zip(sa, sb) if x != y) + abs(len(sa) - len(sb))

    def summary(self, pair: Pair) -> dict:
        total = int(self.total.sum())
        assert pair.once.still is not None
        return {
            "true_cards": total,
            "named_right": {
                k: {"all": round(float(v.sum()) / max(total, 1), 4), "by_frame": v.tolist()}
                for k, v in self.right.items()
            },
            "true_cards_by_frame": self.total.tolist(),
            "names_differing": self.differ,
            "detections": self.detections,
            "identified": {"once": pair.once.still.read, "kept": pair.once.still.reused},
            "seconds": {k: round(v, 2) for k, v in pair.seconds.items()},
        }


def held_out(deck_name: str, n: int, seed: int) -> dict:
    pair = Pair(f"{deck_name}:{HELD_OUT_DESIGN}")
    tally = Tally(5)
    rng = np.random.default_rng([seed, 5])
    all_faces = faces(deck_name)
    for img, labels, info in scenes(deck_name, n, seed):
        img = np.asarray(img, np.uint8)
        truth = [
            (c, card(deck_name, meta["id"]).face_key)
            for (cls, c, _vis), meta in zip(labels, info["cards"])
            if cls == 0 and meta["visible"] >= 0.9
        ]
        frames = [img, noisy(img, rng), noisy(img, rng)]
        swapped, truth2 = img, list(truth)
        if truth:
            k = int(rng.integers(len(truth)))
            corners, old = truth[k]
            new = all_faces[int(rng.integers(len(all_faces)))]
            while new.face_key == old:
                new = all_faces[int(rng.integers(len(all_faces)))]
            swapped = put(img, new, corners)
            truth2[k] = (corners, new.face_key)
        frames += [swapped, noisy(swapped, rng)]
        pair.reset()
        for i, f in enumerate(frames):
            a, b = pair.read(f)
            tally.add(i, a, b, truth if i < 3 else truth2)
    return tally.summary(pair)


def real_photos(every: int = 1) -> dict:
    pair = Pair("french52")
    tally = Tally(3)
    rng = np.random.default_rng(7)
    files = []
    for k, folder in enumerate(REAL):
        if folder.is_dir():
            found = sorted(p for p in folder.rglob("*") if p.suffix.lower() in (".png", ".jpg", ".jpeg"))
            files += found if k == 0 else found[::every]  # the fixtures all, the shared photos a sample
    for path in files:
        img = cv2.imread(str(path))
        if img is None:
            continue
        pair.reset()
        for i, f in enumerate([img, noisy(img, rng), noisy(img, rng)]):
            a, b = pair.read(f)
            tally.add(i, a, b, [])  # no truth here: the two stages must agree
    out = tally.summary(pair)
    out["photos"] = len(files)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenes", type=int, default=30, help="held-out scenes per deck")
    ap.add_argument("--decks", default="beccato,italian,french52")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--real-every", type=int, default=1, help="every Nth of the shared real photos")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    report: dict = {"held_out": {}}
    for d in [d for d in args.decks.split(",") if d]:
        report["held_out"][d] = held_out(d, args.scenes, args.seed)
        show(d, report["held_out"][d])
    report["real_photos"] = real_photos(args.real_every)
    show("real photos", report["real_photos"])
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")


def show(name: str, r: dict) -> None:
    nr = r["named_right"]
    print(
        f"{name:12s} true cards {r['true_cards']:4d}  named right: once {nr['once']['all']:.4f} "
        f"every {nr['every']['all']:.4f} (by frame once {nr['once']['by_frame']} every {nr['every']['by_frame']} "
        f"of {r['true_cards_by_frame']})  names differing {r['names_differing']} of {r['detections']}  "
        f"identified {r['identified']}  seconds {r['seconds']}",
        flush=True,
    )


if __name__ == "__main__":
    main()
