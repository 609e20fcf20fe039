"""Write the detector's fine-tuning dataset with real photos mixed in (`vision/cards/real_mix.py`):
the real training photos of ../shared/testdata/cards_real/edje/train (their boxes; their corners
where --corners-from's detector finds them sure, `real_mix.corner_labels`, else unknown),
synthetic scenes on crops of those photos' surfaces away from the cards, plain synthetic scenes;
validation on the *tune* real test photos; the held-out synthetic split linked with --test-from.
The held-out real photos (first number a multiple of 3) are never written.

    .venv-train/bin/python scripts/make_card_real_mix.py --out datasets/generated/cards_realmix \
        --test-from datasets/generated/cards_v2
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.cards import real_mix, scenes  # noqa: E402
from vision.cards.detector import CardDetector, ModelMismatch, ModelNotFound, UnreadableModel  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "datasets" / "generated" / "cards_realmix")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--real-repeat", type=int, default=2, help="copies of each real training photo")
    ap.add_argument("--scenes-real", type=int, default=500, help="synthetic scenes on real surfaces")
    ap.add_argument("--scenes-plain", type=int, default=500, help="synthetic scenes on the usual backgrounds")
    ap.add_argument(
        "--scenes-faces",
        type=int,
        default=0,
        help="synthetic scenes on real surfaces with the real training cards' own faces laid over each other",
    )
    ap.add_argument("--face-share", type=float, default=0.8, help="share of those scenes' face-up cards drawn real")
    ap.add_argument("--val-scenes", type=int, default=40)
    ap.add_argument("--test-from", type=Path, default=None, help="link this dataset's held-out synthetic split")
    ap.add_argument(
        "--plain-from", type=Path, default=None, help="also copy in this synthetic dataset's training scenes"
    )
    ap.add_argument(
        "--corners-from",
        type=Path,
        default=None,
        metavar="MODEL.onnx",
        help="label the real photos' corners with this detector's sure corners (default: corners unknown)",
    )
    args = ap.parse_args(argv)
    if args.plain_from is not None and not any((args.plain_from / "images" / "train").glob("*.jpg")):
        ap.error(
            f"--plain-from {args.plain_from}: no training scenes in images/train (make_card_dataset.py writes them)"
        )
    for flag in ("real_repeat", "scenes_real", "scenes_plain", "scenes_faces", "val_scenes"):
        if getattr(args, flag) < 0:
            ap.error(f"--{flag.replace('_', '-')} {getattr(args, flag)}: a count, 0 or more")
    if not 0.0 <= args.face_share <= 1.0:
        ap.error(f"--face-share {args.face_share}: a share between 0 and 1")
    if not scenes.has_skimage():
        ap.error("scikit-image is not installed: run this in the training venv (.venv-train)")
    corners_from = None
    if args.corners_from is not None:
        try:
            corners_from = CardDetector(args.corners_from, threads=2)
        except (ModelNotFound, UnreadableModel, ModelMismatch) as exc:
            ap.error(f"--corners-from: {exc}")
    t0 = time.time()
    stats = real_mix.write_mix(
        args.out,
        seed=args.seed,
        real_repeat=args.real_repeat,
        scenes_real=args.scenes_real,
        scenes_plain=args.scenes_plain,
        val_scenes=args.val_scenes,
        test_from=args.test_from,
        plain_from=args.plain_from,
        corners_from=corners_from,
        scenes_faces=args.scenes_faces,
        face_share=args.face_share,
    )
    print(json.dumps(stats, indent=1))
    print(f"wrote {args.out / 'data.yaml'} in {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
