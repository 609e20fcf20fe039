"""Train the card detector (Ultralytics pose, 2 classes, 4 corner keypoints) from a model YAML,
export it to ONNX and evaluate it on the held-out synthetic split (`vision.cards.detector_training`).

Runs in the training venv (`.venv-train`: torch, ultralytics; see requirements-train.txt),
entirely offline. Training stops at --epochs or after --hours (Ultralytics' `time`, which
re-plans the learning-rate schedule to end on time), or early when the file STOP appears in
the run folder; whatever happens, the best checkpoint so far is exported and evaluated.

    .venv-train/bin/python scripts/train_card_detector.py --data datasets/generated/cards/data.yaml \
        --hours 0.9 --name main
    .venv-train/bin/python scripts/train_card_detector.py --export-only runs/card_detector/main

`--init CHECKPOINT` continues from weights trained here before (same YAML), e.g. on a richer
dataset; the record of that earlier run (models/card_detector/metrics.json at the time) is kept
in the new metrics.json under "init", so the model card counts all the training it had.

Outputs: runs/card_detector/NAME/ (Ultralytics' run: weights, results.csv), and in --out
(models/card_detector/): card_detector.onnx, metrics.json, train_log.txt.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from vision.cards import detector_training as T
from vision.cards.detector_eval import ROOT


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(ROOT / "datasets" / "generated" / "cards" / "data.yaml"))
    ap.add_argument("--model", default="yolo11n-pose.yaml")
    ap.add_argument("--init", type=Path, help="start from this checkpoint of an earlier run of --model")
    ap.add_argument("--name", default="main")
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--hours", type=float, default=0.0, help="stop after this time (re-plans the schedule)")
    ap.add_argument("--imgsz", type=int, default=320)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (see offline_ultralytics)")
    ap.add_argument("--mosaic", type=float, default=0.5)
    ap.add_argument("--close-mosaic", type=int, default=5)
    ap.add_argument("--cache", default="ram", help="ram, disk or False")
    ap.add_argument("--warmup-epochs", type=float, default=1.0)
    ap.add_argument(
        "--lr0",
        type=float,
        default=None,
        help="initial learning rate, with AdamW (default: Ultralytics' automatic choice, "
        "AdamW at 0.00167 for runs of this size); lower to fine-tune a trained model",
    )
    ap.add_argument(
        "--freeze",
        nargs="+",
        metavar="LAYER",
        help="layers left as --init has them, as Ultralytics names them: 10 (a layer), 23.cv4 (the "
        "pose head's corner branch, for photos whose corners are unknown)",
    )
    ap.add_argument(
        "--rect",
        action="store_true",
        help="train on rectangular batches (each picture letterboxed at its own aspect, as a wide "
        "camera frame is predicted: 1280x720 at 480x288) and export with dynamic height and width",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(ROOT / "models" / "card_detector"))
    ap.add_argument("--export-only", type=Path, help="export and evaluate this run folder")
    ap.add_argument(
        "--select-on",
        type=Path,
        help="data.yaml of a selection split (held-out design and backgrounds, scenes of its "
        "own): ship the epoch that finds most face-up cards there, not the best by "
        "validation fitness",
    )
    ap.add_argument(
        "--select-on-real",
        action="store_true",
        help="ship the epoch that places most face-up cards right on the tune real photos "
        "(tests/fixtures/cards_real/edje; the held-out ones are never looked at)",
    )
    ap.add_argument("--provisional", action="store_true", help="mark the model card provisional")
    args = ap.parse_args(argv)
    if args.select_on and args.select_on_real:
        ap.error("--select-on and --select-on-real choose the shipped epoch two ways: give one")
    for layer in args.freeze or ():
        if not re.fullmatch(r"\d+(\.\w+)*", layer):
            ap.error(f"--freeze {layer}: a layer is named by its number, then its parts (10, 23.cv4)")
    if args.lr0 is not None and not args.lr0 > 0:
        ap.error(f"--lr0 must be a positive learning rate, not {args.lr0}")
    if args.init and not args.init.is_file():
        ap.error(f"--init {args.init}: no such checkpoint")
    if args.cache in ("False", "false", "none", ""):
        args.cache = False
    for flag, data in (("--data", args.data), ("--select-on", args.select_on)):
        if data and (problem := T.test_split_problem(Path(data))):
            ap.error(f"{flag} {data}: {problem}")  # before hours of training, not after
    if args.export_only and args.model == ap.get_default("model"):
        args.model = T.run_arg(args.export_only, "model") or args.model
    run_dir = args.export_only if args.export_only else T.train(args)
    T.export_and_evaluate(Path(run_dir).resolve(), args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
