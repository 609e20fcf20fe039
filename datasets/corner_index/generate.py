"""Draw synthetic index corners (`vision.cards.index_synth`) to look at or to keep.

    .venv/bin/python datasets/corner_index/generate.py --seed 1000 --count 5000 --out /tmp/corners.npz
    .venv/bin/python datasets/corner_index/generate.py --sheet /tmp/sheet.png   # 160 samples, labelled

The training script (scripts/train_corner_index.py) draws the same chunks itself (seed 1000 + k
for training, 900000 + k for the synthetic held-out set); nothing generated is stored in the
repository.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from vision.cards import index_synth
from vision.cards.corner_index import RANKS, SUITS


def sheet(seed: int, count: int = 160, per_row: int = 20) -> np.ndarray:
    """A contact sheet of `count` samples, each enlarged twice and labelled ("none": no index)."""
    xs, rs, ss = index_synth.batch(seed, count)
    tiles = []
    for x, r, s in zip(xs, rs, ss):
        t = cv2.resize(x, (x.shape[1] * 2, x.shape[0] * 2), interpolation=cv2.INTER_NEAREST)
        label = "none" if r < 0 else RANKS[r] + SUITS[s]
        cv2.putText(t, label, (2, t.shape[0] - 4), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 200, 0), 1)
        tiles.append(t)
    tiles += [np.zeros_like(tiles[0])] * (-len(tiles) % per_row)
    return np.vstack([np.hstack(tiles[i : i + per_row]) for i in range(0, len(tiles), per_row)])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Draw synthetic French index corners.")
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--count", type=int, default=5000)
    ap.add_argument("--out", type=Path, help="write patches, ranks and suits (-1: no index) to this .npz")
    ap.add_argument("--sheet", type=Path, help="write a labelled contact sheet (PNG) instead")
    args = ap.parse_args(argv)
    if args.sheet:
        cv2.imwrite(str(args.sheet), sheet(args.seed))
        return 0
    if not args.out:
        ap.error("give --out or --sheet")
    xs, rs, ss = index_synth.batch(args.seed, args.count)
    np.savez_compressed(
        args.out, patches=xs, ranks=rs, suits=ss, rank_names=np.array(RANKS), suit_names=np.array(SUITS)
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
