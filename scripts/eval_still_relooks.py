"""How a still card that read unsure is best looked at again: read afresh from the new frame's
detection (what `StillCards` does: every corner guess, alignment, the corner index) or, cheaper,
from the corners its first reading settled on alone (`CardReader.identify(..., snap=False)`).

Held-out synthetic scenes (the test split, 1280x720) of each deck; every clear face-up card the
detector finds (box IoU 0.5) is read once; each card that reads unsure is looked at again on
`--looks` new frames of the same still view (new sensor noise and a slight exposure change,
`bench_cards.noisy`), both ways on the same frame. Reported per deck: the cards, those unsure at
the first look, per look how many read sure and right for the first time each way, the sure and
wrong reads each way, and the mean milliseconds of a look each way.

    .venv/bin/python scripts/eval_still_relooks.py --scenes 90 --looks 6
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_cards import noisy  # noqa: E402  (the benchmark's own "a moment later")

from vision.cards.detector import CardDetector, box_iou  # noqa: E402
from vision.cards.identify import SURE  # noqa: E402
from vision.cards.reader import CardReader  # noqa: E402
from vision.cards.reading_eval import scenes  # noqa: E402
from vision.cards.render import HELD_OUT_DESIGN  # noqa: E402
from vision.cards.templates import load_deck  # noqa: E402

DECKS = ("beccato", "italian", "french52")
FACE_KINDS = ("chicken", "guild", "signal")  # card ids whose face is shared by copies: named by the face


def sure_right(reads, truth: str) -> tuple[bool, bool]:
    """(sure and right, sure and wrong) of a one-row reading."""
    sure = reads.label[0] is not None and reads.label_confidence[0] >= SURE
    return bool(sure and reads.label[0] == truth), bool(sure and reads.label[0] != truth)


def evaluate(detector: CardDetector, deck: str, n: int, looks: int, seed: int) -> dict:
    reader = CardReader(detector, load_deck(f"{deck}:{HELD_OUT_DESIGN}"))
    rng = np.random.default_rng(seed)
    first = {"afresh": [0] * looks, "remembered": [0] * looks}
    wrong = {"afresh": 0, "remembered": 0}
    ms = {"afresh": 0.0, "remembered": 0.0}
    clear = unsure = done = first_wrong = 0
    for img, labels, info in scenes(deck, n, seed):
        found = detector(img)
        if not len(found):
            continue
        for (cls, corners, _vis), meta in zip(labels, info["cards"]):
            if cls != 0 or meta["visible"] < 0.9:
                continue
            kind = meta["id"].split(":")[0]
            truth = meta["id"].rsplit(":", 1)[0] if kind in FACE_KINDS else meta["id"]
            box = np.array([[*corners.min(0), *corners.max(0)]], np.float32)
            iou = box_iou(box, found.xyxy)[0]
            j = int(np.argmax(iou))
            if iou[j] < 0.5:
                continue
            clear += 1
            one = found[j]
            one.face_up[0] = True
            read = reader.identify(img, one)
            right, bad = sure_right(read, truth)
            first_wrong += bad
            if right or bad:
                continue
            unsure += 1
            named = {"afresh": False, "remembered": False}
            for k in range(looks):
                again = noisy(img, rng)
                seen = detector(again)
                if not len(seen):
                    continue
                row = seen[int(np.argmax(box_iou(box, seen.xyxy)[0]))]
                row.face_up[0] = True
                t0 = time.perf_counter()
                afresh = reader.identify(again, row)
                t1 = time.perf_counter()
                remembered = reader.identify(again, read, snap=False)
                t2 = time.perf_counter()
                ms["afresh"] += (t1 - t0) * 1000
                ms["remembered"] += (t2 - t1) * 1000
                done += 1
                for way, reads in (("afresh", afresh), ("remembered", remembered)):
                    ok, bad = sure_right(reads, truth)
                    wrong[way] += bad
                    if ok and not named[way]:
                        first[way][k] += 1
                        named[way] = True
    return {
        "deck": deck,
        "clear_cards": clear,
        "sure_wrong_at_first": first_wrong,
        "unsure_at_first": unsure,
        "named_first_at_look": first,
        "named": {w: sum(v) for w, v in first.items()},
        "sure_wrong": wrong,
        "ms_a_look": {w: round(v / max(done, 1), 1) for w, v in ms.items()},
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenes", type=int, default=90, help="held-out scenes a deck")
    ap.add_argument("--looks", type=int, default=6, help="new frames each unsure card is looked at on")
    ap.add_argument("--seed", type=int, default=101)
    ap.add_argument("--decks", nargs="+", choices=DECKS, default=list(DECKS))
    args = ap.parse_args(argv)
    if args.scenes < 1 or args.looks < 1:
        ap.error("--scenes and --looks take 1 or more")
    detector = CardDetector(threads=1)
    out = [evaluate(detector, d, args.scenes, args.looks, args.seed) for d in args.decks]
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
