"""Train the corner-index reader (vision/cards/corner_index.py) on synthetic index corners.

The training set is drawn by `vision.cards.index_synth` (fonts, pips, cards and cameras at
random; seeds 1000 + chunk), the synthetic held-out set from seeds the training never uses
(900000 + chunk). Features (`corner_index.features`) are made once and cached per chunk. The
classifier is a two-layer perceptron (ReLU) with a rank head and a suit head (each with a
"no index" class), trained with Adam on the sum of the two heads' cross-entropies (a little
label smoothing) in numpy. Writes models/corner_index/corner_index.npz and training.json
(the synthetic held-out figures).

    nice .venv/bin/python scripts/train_corner_index.py   # 80,000 patches, 12 epochs: about 25 min on 2 busy cores

No real photo is used here: they are for `scripts/eval_corner_index.py` alone.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from vision.cards import corner_index as C
from vision.cards import index_synth as S

CHUNK = 5000
TRAIN_SEED, HELDOUT_SEED = 1000, 900000


def chunk(seed: int, cache: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features, ranks and suits of one chunk of CHUNK samples drawn from `seed` (cached)."""
    path = cache / f"chunk_{seed}.npz"
    if path.is_file():
        with np.load(path) as z:
            return z["x"], z["r"], z["s"]
    xs, rs, ss = S.batch(seed, CHUNK)
    feats = C.features_of(xs)
    np.savez(path, x=feats.astype(np.float16), r=rs.astype(np.int8), s=ss.astype(np.int8))
    return feats.astype(np.float16), rs.astype(np.int8), ss.astype(np.int8)


def dataset(first_seed: int, n: int, cache: Path, log: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    parts = []
    t0 = time.time()
    for k in range((n + CHUNK - 1) // CHUNK):
        parts.append(chunk(first_seed + k, cache))
        print(f"{log}: {min(n, (k + 1) * CHUNK)} / {n} samples ({time.time() - t0:.0f} s)", flush=True)
    x = np.concatenate([p[0] for p in parts])[:n]
    r = np.concatenate([p[1] for p in parts])[:n].astype(np.int64)
    s = np.concatenate([p[2] for p in parts])[:n].astype(np.int64)
    # NONE (-1) is each head's last class
    r[r < 0] = len(C.RANKS)
    s[s < 0] = len(C.SUITS)
    return x, r, s


def _init(rng: np.random.Generator, n_in: int, n_out: int) -> tuple[np.ndarray, np.ndarray]:
    return (rng.normal(0, np.sqrt(2.0 / n_in), (n_in, n_out)).astype(np.float32), np.zeros(n_out, np.float32))


def _smooth(y: np.ndarray, k: int, eps: float) -> np.ndarray:
    t = np.full((len(y), k), eps / k, np.float32)
    t[np.arange(len(y)), y] += 1 - eps
    return t


def train(
    x: np.ndarray,
    r: np.ndarray,
    s: np.ndarray,
    hidden: tuple[int, int],
    epochs: int,
    seed: int,
    lr: float = 1e-3,
    batch: int = 256,
    wd: float = 1e-4,
    smoothing: float = 0.05,
) -> C.IndexModel:
    rng = np.random.default_rng(seed)
    mean = x.mean(axis=0, dtype=np.float64).astype(np.float32)
    scale = (x.std(axis=0, dtype=np.float64) + 1e-3).astype(np.float32)
    w1, b1 = _init(rng, x.shape[1], hidden[0])
    w2, b2 = _init(rng, hidden[0], hidden[1])
    wr, br = _init(rng, hidden[1], len(C.RANKS) + 1)
    ws, bs = _init(rng, hidden[1], len(C.SUITS) + 1)
    params = [w1, b1, w2, b2, wr, br, ws, bs]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    step = 0
    n = len(x)
    for epoch in range(epochs):
        t0 = time.time()
        order = rng.permutation(n)
        rate = lr * 0.5 * (1 + np.cos(np.pi * epoch / epochs))  # cosine decay
        loss_sum = 0.0
        for i in range(0, n, batch):
            idx = order[i : i + batch]
            xb = (x[idx].astype(np.float32) - mean) / scale
            xb = xb * (rng.random(xb.shape, np.float32) >= 0.1) / 0.9  # input dropout
            h1p = xb @ w1 + b1
            h1 = np.maximum(h1p, 0)
            h2p = h1 @ w2 + b2
            h2 = np.maximum(h2p, 0)
            pr = C.softmax(h2 @ wr + br)
            ps = C.softmax(h2 @ ws + bs)
            tr = _smooth(r[idx], pr.shape[1], smoothing)
            ts = _smooth(s[idx], ps.shape[1], smoothing)
            loss_sum += float(-(tr * np.log(pr + 1e-9)).sum() - (ts * np.log(ps + 1e-9)).sum())
            k = len(idx)
            gr = (pr - tr) / k
            gs = (ps - ts) / k
            g_wr, g_br = h2.T @ gr, gr.sum(0)
            g_ws, g_bs = h2.T @ gs, gs.sum(0)
            gh2 = (gr @ wr.T + gs @ ws.T) * (h2p > 0)
            g_w2, g_b2 = h1.T @ gh2, gh2.sum(0)
            gh1 = (gh2 @ w2.T) * (h1p > 0)
            g_w1, g_b1 = xb.T @ gh1, gh1.sum(0)
            grads = [g_w1, g_b1, g_w2, g_b2, g_wr, g_br, g_ws, g_bs]
            step += 1
            for j, (p, g) in enumerate(zip(params, grads)):
                if p.ndim == 2:
                    g = g + wd * p
                m[j] = 0.9 * m[j] + 0.1 * g
                v[j] = 0.999 * v[j] + 0.001 * g * g
                mh = m[j] / (1 - 0.9**step)
                vh = v[j] / (1 - 0.999**step)
                p -= (rate * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
        print(f"epoch {epoch + 1}/{epochs}: loss {loss_sum / n:.4f} ({time.time() - t0:.0f} s)", flush=True)
    return C.IndexModel(mean, scale, w1, b1, w2, b2, wr, br, ws, bs)


def synthetic_figures(model: C.IndexModel, x: np.ndarray, r: np.ndarray, s: np.ndarray) -> dict:
    """Per-patch accuracy of each head on held-out synthetic patches, and card-level figures
    of `combine` on single patches (right / wrong when sure / unknown)."""
    pr, ps = model.probabilities(x.astype(np.float32))
    index = r < len(C.RANKS)
    right = wrong_sure = unknown = 0
    none_called = 0
    for k in range(len(x)):
        read = C.combine(pr[k : k + 1], ps[k : k + 1])
        if not index[k]:
            none_called += int(read.unknown)
            continue
        if read.unknown:
            unknown += 1
        elif read.rank == C.RANKS[r[k]] and read.suit == C.SUITS[s[k]]:
            right += 1
        elif read.sure:
            wrong_sure += 1
    n = int(index.sum())
    sure = sum(1 for k in np.nonzero(index)[0] if C.combine(pr[k : k + 1], ps[k : k + 1]).sure)
    return {
        "patches": int(len(x)),
        "with_index": n,
        "rank_accuracy": float((pr[index].argmax(1) == r[index]).mean()),
        "suit_accuracy": float((ps[index].argmax(1) == s[index]).mean()),
        "one_corner_right": right / max(n, 1),
        "one_corner_unknown": unknown / max(n, 1),
        "one_corner_wrong_sure_of_sure": wrong_sure / max(sure, 1),
        "no_index_called_unknown": none_called / max(int((~index).sum()), 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--train", type=int, default=80000, help="synthetic training patches")
    ap.add_argument("--heldout", type=int, default=10000, help="synthetic held-out patches")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--hidden", type=int, nargs=2, default=(384, 192))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/corner_index_cache"))
    ap.add_argument("--out", type=Path, default=C.MODEL_DIR)
    args = ap.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    args.out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    x, r, s = dataset(TRAIN_SEED, args.train, args.cache, "train")
    xh, rh, sh = dataset(HELDOUT_SEED, args.heldout, args.cache, "held-out")
    t1 = time.time()
    model = train(x, r, s, tuple(args.hidden), args.epochs, args.seed)
    t2 = time.time()
    model.save(args.out / C.MODEL_FILE)
    figures = synthetic_figures(model, xh, rh, sh)
    report = {
        "command": "nice .venv/bin/python scripts/train_corner_index.py "
        + " ".join(sys.argv[1:] if argv is None else argv),
        "train_patches": args.train,
        "train_seeds": f"{TRAIN_SEED}..{TRAIN_SEED + (args.train - 1) // CHUNK} ({CHUNK} each)",
        "heldout_seeds": f"{HELDOUT_SEED}..{HELDOUT_SEED + (args.heldout - 1) // CHUNK}",
        "epochs": args.epochs,
        "hidden": list(args.hidden),
        "features": int(x.shape[1]),
        "generate_s": round(t1 - t0),
        "train_s": round(t2 - t1),
        "synthetic_heldout": figures,
    }
    (args.out / "training.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
