"""Evaluate the exported card detector (ONNX) on a synthetic split with ground truth
(`vision.cards.detector_eval`).

With onnxruntime and numpy alone (the runtime venv): recall of face-up cards (IoU >= 0.5,
confidence >= 0.25), precision, corner error, and orientation accuracy of the Beccato! faces.
With Ultralytics importable (the training venv), also its box and pose mAP50 / mAP50-95 of the
same ONNX file.

    .venv-train/bin/python scripts/eval_card_detector.py            # held-out test split
    .venv/bin/python scripts/eval_card_detector.py --split val --no-ultralytics
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from vision.cards import detector_eval
from vision.cards.detector import DEFAULT_MODEL


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    ap.add_argument("--data", type=Path, default=detector_eval.DEFAULT_DATA)
    ap.add_argument("--split", default="test")
    ap.add_argument("--imgsz", type=int, default=None, help="input size (default: the model's own)")
    ap.add_argument("--conf", type=float, default=0.25)
    ap.add_argument("--limit", type=int)
    ap.add_argument("--no-ultralytics", action="store_true")
    ap.add_argument(
        "--post",
        action="store_true",
        help="drop fragments as CardDetector does at run time (default: the model's raw detections)",
    )
    ap.add_argument("--json", type=Path, help="also write the metrics here")
    ap.add_argument("--images", type=Path, nargs="*", help="only detect on these images (no ground truth)")
    ap.add_argument("--overlay", type=Path, help="with --images: write pictures with the detections here")
    ap.add_argument("--real", action="store_true", help="only the real photos of tests/fixtures/cards")
    args = ap.parse_args(argv)
    if args.imgsz is None:
        args.imgsz = detector_eval.model_input_size(args.model)
    if args.images:
        found = detector_eval.detect_images(args.model, args.images, args.imgsz, args.conf, args.overlay)
        for k, v in found.items():
            print(k, len(v), [(c, s) for c, s, _ in v])
        return 0
    if args.real:
        print(json.dumps(detector_eval.real_photos(args.model, args.imgsz, args.conf), indent=1))
        return 0
    res = detector_eval.evaluate(
        args.model, args.data, args.split, args.imgsz, args.conf, not args.no_ultralytics, args.limit, post=args.post
    )
    print(json.dumps(res, indent=1))
    if args.json:
        args.json.write_text(json.dumps(res, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
