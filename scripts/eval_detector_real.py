"""The card detector on real photos: per file and in total, tune and held-out apart
(`vision/cards/detector_real.py`: touched, well placed at IoU >= 0.5, face up right, fragments,
false detections).

    .venv/bin/python scripts/eval_detector_real.py                      # the shipped model, shared photos
    .venv/bin/python scripts/eval_detector_real.py --model runs/card_detector/ft/weights/best.onnx
    .venv/bin/python scripts/eval_detector_real.py --raw --totals-only  # without the fragment merge
    .venv/bin/python scripts/eval_detector_real.py --post --totals-only # fragments dropped
    .venv/bin/python scripts/eval_detector_real.py --folder tests/fixtures/cards_real/edje --json out.json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.cards import detector_real as R  # noqa: E402
from vision.cards.detector import CardDetector  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=None, help="card detector ONNX model (default: the shipped one)")
    ap.add_argument("--folder", type=Path, default=R.SHARED_TEST, help="labelled photos")
    ap.add_argument("--conf", type=float, default=0.25)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--raw", action="store_true", help="the model's detections alone, no post-step")
    ap.add_argument("--post", action="store_true", help="drop fragments (CardDetector.post, off by default)")
    ap.add_argument("--totals-only", action="store_true")
    ap.add_argument("--json", dest="json_out", type=Path, default=None)
    args = ap.parse_args(argv)
    detector = CardDetector(args.model, conf=args.conf, threads=args.threads)
    if args.raw and hasattr(detector, "post"):
        detector.post = False
    if args.post:
        detector.post = True
    rows = R.evaluate(detector, R.load_photos(args.folder))
    print(f"# Card detector on real photos: {args.folder} (held out: first number a multiple of 3)\n")
    print(f"model {detector.path}, conf {args.conf}{', fragments dropped' if detector.post else ''}\n")
    print(R.format_table(rows, per_file=not args.totals_only))
    if args.json_out:
        report = {"model": str(detector.path), "rows": [dataclasses.asdict(r) for r in rows], "totals": R.totals(rows)}
        args.json_out.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
