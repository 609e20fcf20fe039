"""Fit the window classifier on generated clips of the fitting voices and seeds.

    python -m vision.audio.fit [--per-class 40] [--seed 1]

Writes vision/audio/classifier.json. Evaluation (scripts/eval_audio.py) uses other voices and
seeds (synth.HELDOUT_VOICES_*).
"""

from __future__ import annotations

import argparse

import numpy as np

from vision.audio import synth
from vision.audio.classify import CLASSES, WEIGHTS_PATH, Classifier
from vision.audio.features import windows


def labelled_windows(clips):
    X, y = [], []
    for c in clips:
        w = windows(c.clip)
        for a, b, f in zip(w.starts, w.ends, w.features):
            lab = c.label_at(a, b)
            if lab is not None:
                X.append(f)
                y.append(CLASSES.index(lab))
    return np.array(X), np.array(y)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--per-class", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hard", type=float, default=0.3, help="share of clips with a harsh background")
    ap.add_argument("--out", default=WEIGHTS_PATH)
    args = ap.parse_args(argv)
    clips = synth.dataset(args.per_class, args.seed, heldout=False, hard=args.hard)
    X, y = labelled_windows(clips)
    clf = Classifier.fit(
        X,
        y,
        meta={
            "fitted_on": f"synth.dataset({args.per_class}, seed={args.seed}, heldout=False, hard={args.hard})",
            "voices_en": list(synth.TUNE_VOICES_EN),
            "voices_it": list(synth.TUNE_VOICES_IT),
            "windows": int(len(y)),
            "per_class_windows": np.bincount(y, minlength=4).tolist(),
        },
    )
    pred = clf.posteriors(X).argmax(1)
    for k, name in enumerate(CLASSES):
        m = y == k
        print(f"{name:8s} fit-set window accuracy {np.mean(pred[m] == k):.3f} ({m.sum()} windows)")
    clf.save(args.out)
    print("wrote", args.out)


if __name__ == "__main__":
    main()
