"""How the shipped Italian regional decks read on camera photos of their printed scans.

    .venv/bin/python scripts/eval_regional_decks.py [--per-card 3] [--seed 7] [--json]

Each card of each deck, printed and photographed on a table (vision/cards/regional_eval.py),
read from its true corners by the deck's own templates, by the rendered `italian` deck, and by
the other regional decks. Prints right / unknown / wrong and the wrong reads at or above the
"sure" confidence.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.cards.regional import REGIONAL_DECKS  # noqa: E402
from vision.cards.regional_eval import evaluate  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-card", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = evaluate(list(REGIONAL_DECKS), per_card=args.per_card, seed=args.seed)
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(f"{args.per_card} photos per card, seed {args.seed}; sure = confidence >= {result['sure']}")
    print(f"{'deck':<12} {'read by':<22} {'cards':>5} {'right':>6} {'unknown':>7} {'wrong':>5} {'wrong sure':>10}")
    for deck, rows in result["decks"].items():
        for by, r in rows.items():
            print(
                f"{deck:<12} {by:<22} {r['cards']:>5} {r['right']:>6} {r['unknown']:>7} {r['wrong']:>5} "
                f"{r['wrong_sure']:>10}"
            )


if __name__ == "__main__":
    main()
