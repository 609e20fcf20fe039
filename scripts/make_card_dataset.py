"""Write a synthetic card dataset for the card detector: scenes of our rendered decks with YOLO
pose labels (`vision.cards.scenes`: what is in them, the label format, what is held out).

    python scripts/make_card_dataset.py --train 2000 --val 200 --test 300

Output (git-ignored): OUT/images/{train,val,test}, OUT/labels/..., OUT/data.yaml, OUT/meta.json,
OUT/cards/<split>.jsonl. Needs scikit-image (`requirements-train.txt`) for its photographed
backgrounds; without it, pass `--procedural-only` (the runtime venv: numpy, OpenCV, tqdm).
`--test-from DATASET --test 0` links another dataset's held-out split, so a new training set is
measured on the same scenes.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from vision.cards import scenes

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "datasets" / "generated" / "cards")
    ap.add_argument("--train", type=int, default=2000)
    ap.add_argument("--val", type=int, default=200)
    ap.add_argument("--test", type=int, default=300, help="held-out design and backgrounds")
    ap.add_argument("--width", type=int, default=640)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--varied",
        action="store_true",
        help="training and validation scenes with more backgrounds, paler or resized pips, "
        "smaller cards, steeper tilts and tricks tossed onto the centre (the test "
        "split is unchanged)",
    )
    ap.add_argument(
        "--procedural-only",
        action="store_true",
        help="without scikit-image: leave out its photographed backgrounds (brick, grass, gravel, sample photographs)",
    )
    ap.add_argument(
        "--test-from",
        type=Path,
        metavar="DATASET",
        help="link DATASET's held-out test split instead of generating one (with --test 0)",
    )
    args = ap.parse_args(argv)
    if args.test_from is not None and args.test:
        ap.error("--test-from links another dataset's test split: pass --test 0 with it")
    if args.procedural_only:
        scenes.procedural_only()  # the same scenes whether or not scikit-image is installed
    elif not scenes.has_skimage():
        ap.error(
            "scikit-image is not installed (or its sample data unreadable): its brick, grass and "
            "gravel and its sample photographs are backgrounds of every split, gravel one of the "
            "held-out three. Install requirements-train.txt, or pass --procedural-only to "
            "generate without them"
        )
    t0 = time.time()
    counts = {k: v for k, v in (("train", args.train), ("val", args.val), ("test", args.test)) if v > 0}
    try:
        stats = scenes.write_dataset(
            args.out, counts, args.seed, args.width, varied=args.varied, test_from=args.test_from
        )
    except FileNotFoundError as exc:
        ap.error(str(exc))
    print(json.dumps(stats["splits"], indent=1))
    print(f"wrote {args.out / 'data.yaml'} in {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
