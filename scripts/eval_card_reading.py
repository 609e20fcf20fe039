"""Card reading on held-out synthetic scenes: detector recall and identification accuracy,
rendered and enrolled decks, from detected and from true corners, and the corner error
(`vision.cards.reading_eval`: what is measured and how). One JSON line per deck and seed.

    .venv/bin/python scripts/eval_card_reading.py --scenes 40 --json out.json
    .venv/bin/python scripts/eval_card_reading.py --scenes 20 --no-align     # without the template alignment
    .venv/bin/python scripts/eval_card_reading.py --scenes 20 --no-snap --no-align  # corners as detected
    .venv/bin/python scripts/eval_card_reading.py --scenes 20 --no-embed   # hand-made features alone
    .venv/bin/python scripts/eval_card_reading.py --seed 2024,99,7,11,31 --json out.json  # and their totals
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from vision.cards import embed, reading_eval
from vision.cards.detector import CardDetector


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--decks", default="beccato,italian,french52")
    ap.add_argument("--scenes", type=int, default=40, help="held-out scenes per deck")
    ap.add_argument(
        "--seed", default="2024", help="a seed, or several separated by commas (their totals are reported too)"
    )
    ap.add_argument("--model", default=None)
    ap.add_argument("--no-enrol", action="store_true")
    ap.add_argument("--no-align", action="store_true", help="read without the template alignment of unsure cards")
    ap.add_argument("--no-snap", action="store_true", help="read from the detector's corners as they are")
    ap.add_argument(
        "--no-embed",
        action="store_true",
        help="identify with the hand-made features alone (as when models/card_embedder is missing)",
    )
    ap.add_argument("--json", dest="json_out", default=None)
    args = ap.parse_args(argv)
    try:
        seeds = [int(x) for x in str(args.seed).split(",")]
    except ValueError:
        seeds = []
    if not seeds or min(seeds) < 0:  # numpy's generators take no negative seed
        ap.error(f"--seed takes whole numbers (0 or more) separated by commas, not {args.seed!r}")
    if args.no_embed:
        embed.default_embedder = lambda: None  # what CardIdentifier finds when the model file is missing
    detector = CardDetector(args.model, threads=2)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in seeds:
            for deck_name in args.decks.split(","):
                t0 = time.perf_counter()
                r = reading_eval.evaluate(
                    detector,
                    deck_name,
                    args.scenes,
                    seed,
                    Path(tmp),
                    not args.no_enrol,
                    snap=not args.no_snap,
                    align=not args.no_align,
                )
                r["seed"] = seed
                r["seconds"] = round(time.perf_counter() - t0, 1)
                results.append(r)
                print(json.dumps(r), flush=True)
    doc = {
        "model": str(detector.path),
        "seed": seeds[0] if len(seeds) == 1 else seeds,
        "snap": not args.no_snap,
        "align": not args.no_align,
        "embed": not args.no_embed,
        "results": results,
    }
    if len(seeds) > 1:
        doc["totals"] = reading_eval.totals(results)
        for deck, cells in doc["totals"].items():
            print(
                deck,
                " ".join(
                    f"{key[3:]} {c['right']}/{c['n']} (wrong {c['wrong_n']})"
                    for key, c in cells.items()
                    if key.startswith("id_") and "clear" in key
                ),
            )
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
