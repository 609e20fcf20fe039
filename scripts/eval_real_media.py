"""One evaluation over all the real media: cards (vision/cards/real_eval.py) and body signals
(vision/signals/real_eval.py), per file and in total, tune and held-out apart, next to the
synthetic figures (vision/cards/reading_eval.py, when asked: `--synthetic N`).

    .venv/bin/python scripts/eval_real_media.py                       # cards and signals, per file and totals
    .venv/bin/python scripts/eval_real_media.py --json out.json       # the same as JSON
    .venv/bin/python scripts/eval_real_media.py --readers french52    # one card reader
    .venv/bin/python scripts/eval_real_media.py --totals-only --no-signals
    .venv/bin/python scripts/eval_real_media.py --synthetic 10        # and 10 held-out synthetic scenes a deck
    .venv/bin/python scripts/eval_real_media.py --plot docs/images/reliability-real.png  # reliability (tune split)
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.cards import real_eval  # noqa: E402
from vision.cards.detector import CardDetector  # noqa: E402


def synthetic(detector, scenes: int) -> dict:
    """The held-out synthetic figures of the French deck (`reading_eval.evaluate`), for the side by side."""
    from vision.cards import reading_eval  # deferred: renders scenes, asked for only

    with tempfile.TemporaryDirectory() as tmp:
        return reading_eval.evaluate(detector, "french52", scenes, 2024, Path(tmp))


def plot(rows, path: Path) -> None:
    """A reliability plot of the named reads of the tune split: how often right, by confidence."""
    import matplotlib  # deferred: only for the plot

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # deferred: only for the plot

    fig, ax = plt.subplots(figsize=(5, 4), dpi=100)
    ax.plot([0, 1], [0, 1], color="grey", lw=1, ls="--", label="calibrated")
    for reader in dict.fromkeys(r.reader for r in rows):
        for split, marker in (("tune", "o"), ("held_out", "s")):
            bins = [
                b
                for b in real_eval.reliability(r for r in rows if r.reader == reader and r.split == split)
                if b["reads"]
            ]
            if not bins:
                continue
            xs = [b["mean_confidence"] for b in bins]
            ys = [b["right"] / b["reads"] for b in bins]
            ax.plot(xs, ys, marker=marker, label=f"{reader}, {split.replace('_', '-')}")
            for x, y, b in zip(xs, ys, bins):
                ax.annotate(str(b["reads"]), (x, y), fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.axvline(real_eval.SURE, color="red", lw=0.8, label="sure")
    ax.set_xlabel("confidence of a named read")
    ax.set_ylabel("share right")
    ax.set_xlim(0.4, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_title("Card reads on real photos (numbers: reads in the bin)", fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--readers", default="french52,enrolled,enrolled-full,italian", help="card readers, comma-separated"
    )
    ap.add_argument("--files", default=None, help="only these card files (comma-separated names)")
    ap.add_argument("--totals-only", action="store_true", help="no per-file rows")
    ap.add_argument("--no-signals", action="store_true", help="cards only")
    ap.add_argument("--synthetic", type=int, default=0, help="also this many held-out synthetic scenes (French deck)")
    ap.add_argument("--plot", type=Path, default=None, help="write a reliability plot (PNG) here")
    ap.add_argument("--json", dest="json_out", type=Path, default=None)
    ap.add_argument("--model", default=None, help="card detector ONNX model")
    args = ap.parse_args(argv)
    detector = CardDetector(args.model, threads=2)
    files = [f.strip() for f in args.files.split(",")] if args.files else None
    rows = real_eval.evaluate(detector, [r.strip() for r in args.readers.split(",") if r.strip()], files)
    print("# Cards on real media (held out: files whose first number is a multiple of 3)\n")
    print(real_eval.format_table(rows, per_file=not args.totals_only))
    report: dict = {
        "cards": {
            "rows": [dataclasses.asdict(r) | {"outcome": r.outcome} for r in rows],
            "totals": real_eval.summary(rows),
            "reliability": {
                reader: real_eval.reliability(r for r in rows if r.reader == reader and r.split == "tune")
                for reader in dict.fromkeys(r.reader for r in rows)
            },
        }
    }
    if args.synthetic:
        report["synthetic"] = synthetic(detector, args.synthetic)
        print("\n# Synthetic held-out scenes (french52, seed 2024)\n")
        print(json.dumps(report["synthetic"], indent=1, default=str))
    if not args.no_signals:
        try:
            from vision.signals import real_eval as signals_eval  # deferred: MediaPipe, asked for only
        except ImportError as exc:  # the signals stage is not installed here
            print(f"\n(signals not measured: {exc})")
        else:
            signals = signals_eval.evaluate()
            report["signals"] = signals
            print("\n# Body signals on real people\n")
            print(signals_eval.markdown_table(signals))
    if args.plot:
        plot(rows, args.plot)
    if args.json_out:
        args.json_out.write_text(json.dumps(report, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
