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
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from vision.cards import corner_index as C
from vision.cards import index_synth as S
from vision.cards.rectify import rectify
from vision.cards.refine import candidate_quads

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


# --- real corners ------------------------------------------------------------------------------
REAL_READ_SIZES = ((120, 180), (180, 270))  # the reader rectifies at 120 x 180, the evaluation at 180 x 270
UNSURE_SUIT = -2  # a real patch whose suit is not known: its suit head is not trained on it
# edje/train cards ("photo#box") whose suit the model gave wrong, corrected by eye on the contact
# sheets (`--sheets`); None: no suit (the index not readable by eye either)
SUIT_BY_EYE: dict[str, str | None] = {
    "IMG_2650.JPG#0": None,  # a patch of a court card's art read as spades
    "IMG_2574.JPG#1": None,
    "IMG_2652.JPG#1": None,
    "IMG_2434.JPG#0": None,  # an ace's pip too small to tell spade from club by eye
    "IMG_2603.JPG#2": None,
}


def _photometric(rng: np.random.Generator, patch: np.ndarray) -> np.ndarray:
    """A real patch as another camera might have seen it: light, contrast, blur, noise, JPEG."""
    p = patch.astype(np.float32)
    p = (p - 128) * rng.uniform(0.7, 1.25) + 128 + rng.uniform(-25, 25)
    p *= rng.uniform(0.9, 1.1, 3)[None, None, :]  # a colour cast
    if rng.random() < 0.3:
        p = np.asarray(cv2.GaussianBlur(p, (0, 0), rng.uniform(0.4, 1.2)), np.float32)
    if rng.random() < 0.3:
        p += rng.normal(0, rng.uniform(2, 8), p.shape)
    out = np.clip(p, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 90))])
        if ok:
            out = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
    return out


def _jittered(rng: np.random.Generator, quad: np.ndarray) -> np.ndarray:
    """The quad a few percent off, as a guess at the card's corners is: each corner moved by up to
    3% of the card's diagonal, the whole grown or shrunk by up to 6%."""
    q = np.asarray(quad, np.float32).reshape(4, 2)
    diag = float(np.linalg.norm(q[2] - q[0]))
    centre = q.mean(axis=0)
    q = centre + (q - centre) * rng.uniform(0.95, 1.06)
    return (q + rng.uniform(-0.03, 0.03, (4, 2)) * diag).astype(np.float32)


def real_sources(detector) -> Iterator[tuple[str, str, np.ndarray, list, list[np.ndarray]]]:
    """(source, photo, image, cards, detected quads) of the real photos training may use: every
    edje/train photo (rank labels) and the edje/test photos of the TUNE split (rank and suit);
    never a held-out photo (first number a multiple of 3)."""
    import importlib.util  # deferred: the real photos' loaders, from the evaluation script beside this one

    spec = importlib.util.spec_from_file_location("eval_corner_index", Path(__file__).with_name("eval_corner_index.py"))
    assert spec is not None and spec.loader is not None
    E = sys.modules.setdefault("eval_corner_index", importlib.util.module_from_spec(spec))
    spec.loader.exec_module(E)

    for source, photos in (("edje-train", E.edje_train()), ("edje-test", E.edje_test())):
        for photo, image, cards in photos:
            if source == "edje-test" and E.split_of(photo) != "tune":
                continue
            found = detector(image) if detector is not None else None
            quads = [] if found is None else [np.asarray(q, np.float32) for q in found.corners[found.face_up]]
            yield source, photo, image, cards, quads


def _iou(quad: np.ndarray, box: np.ndarray) -> float:
    a0, a1 = quad.min(axis=0), quad.max(axis=0)
    b0, b1 = box.min(axis=0), box.max(axis=0)
    inter = np.prod(np.clip(np.minimum(a1, b1) - np.maximum(a0, b0), 0, None))
    union = np.prod(a1 - a0) + np.prod(b1 - b0) - inter
    return float(inter / max(union, 1e-6))


def real_corners(model: C.IndexModel, augment: int, seed: int, detector=None, guesses: int = 4) -> dict:
    """Index patches cut from the real photos training may use (`real_sources`), with `augment`
    jittered copies each: the corners guessed for each labelled card (the way the reader guesses:
    `candidate_quads` from its box and from the detector's quad over it) whose patch the
    synthetic-only `model` sees an index in and reads the box's rank in (with the rank among
    its three likeliest, blank paper, the table and a court card's big pip came in labelled
    as ranks: a guess that cut the index off). Suits: the label where the photo has one, else
    the card's suit as the model reads it over all of its corners when that is sure (0.98) and
    not corrected by eye (`SUIT_BY_EYE`), else unknown (`UNSURE_SUIT`). Also, from each photo, two
    patches of the table beyond every box: no index."""
    rng = np.random.default_rng(seed)
    xs: list[np.ndarray] = []
    rs: list[int] = []
    ss: list[int] = []
    boxes: list[int] = []  # the card each patch is of (index into `cards_info`), -1 for the table
    cards_info: list[dict] = []
    t0 = time.time()
    for n_photo, (source, photo, image, cards, detected) in enumerate(real_sources(detector)):
        for n_card, card in enumerate(cards):
            starts = [card.box] + [q for q in detected if _iou(q, card.box) >= 0.3]
            quads: list[np.ndarray] = []
            for start in starts:
                for k, q in enumerate(candidate_quads(image, start)):
                    if k >= guesses:
                        break
                    quads.append(q)
            rank = C.RANKS.index(card.truth[:-1] if not card.rank_only else card.truth)
            kept: list[tuple[np.ndarray, bool]] = []
            suit_logp = np.zeros(len(C.SUITS))
            for q in quads:
                crop = rectify(image, q, REAL_READ_SIZES[1])
                for turned in (False, True):
                    feats = np.stack([C.features(C.corner_patch(crop, turned, sc)) for sc in C.SCALES])
                    pr, ps = model.probabilities(feats)
                    pr, ps = pr.mean(axis=0), ps.mean(axis=0)
                    if (1 - pr[-1] + 1 - ps[-1]) / 2 < C.MIN_INDEX:
                        continue
                    if int(np.argmax(pr[:-1])) != rank:
                        continue
                    kept.append((q, turned))
                    suit_logp += np.log(np.maximum(ps[:-1] / max(ps[:-1].sum(), 1e-9), 1e-9))
            if not kept:
                continue
            if not card.rank_only:
                suit = C.SUITS.index(card.truth[-1])
                suit_from = "label"
            else:
                p = np.exp(suit_logp - suit_logp.max())
                p /= p.sum()
                suit = int(np.argmax(p)) if p.max() >= 0.98 else UNSURE_SUIT
                suit_from = "model" if suit != UNSURE_SUIT else "unknown"
                key = f"{photo}#{n_card}"
                if key in SUIT_BY_EYE:
                    by_eye = SUIT_BY_EYE[key]
                    suit, suit_from = (C.SUITS.index(by_eye), "eye") if by_eye else (UNSURE_SUIT, "unknown")
            cards_info.append(
                {
                    "source": source,
                    "photo": photo,
                    "box": n_card,
                    "truth": card.truth,
                    "suit": suit,
                    "suit_from": suit_from,
                }
            )
            ci = len(cards_info) - 1
            for q, turned in kept:
                for a in range(1 + augment):
                    qa = q if a == 0 else _jittered(rng, q)
                    size = REAL_READ_SIZES[int(rng.integers(2))] if a else REAL_READ_SIZES[1]
                    crop = rectify(image, qa, size)
                    patch = C.corner_patch(crop, turned, 1.0 if a == 0 else float(rng.uniform(0.88, 1.15)))
                    if a:
                        patch = _photometric(rng, patch)
                    xs.append(patch)
                    rs.append(rank)
                    ss.append(suit)
                    boxes.append(ci)
        # the table beyond every box: no index
        h, w = image.shape[:2]
        for _ in range(2):
            for _try in range(20):
                pw = int(rng.uniform(0.08, 0.25) * w)
                ph = int(pw * rng.uniform(1.2, 1.7))
                x0, y0 = int(rng.integers(0, max(1, w - pw))), int(rng.integers(0, max(1, h - ph)))
                cell = np.array([[x0, y0], [x0 + pw, y0 + ph]], np.float32)
                if all(_iou(cell, c.box) == 0 for c in cards):
                    patch = cv2.resize(image[y0 : y0 + ph, x0 : x0 + pw], C.PATCH, interpolation=cv2.INTER_AREA)
                    xs.append(_photometric(rng, patch))
                    rs.append(len(C.RANKS))
                    ss.append(len(C.SUITS))
                    boxes.append(-1)
                    break
        if n_photo % 25 == 0:
            print(f"real: {n_photo + 1} photos, {len(xs)} patches ({time.time() - t0:.0f} s)", flush=True)
    return {
        "patches": np.stack(xs),
        "r": np.array(rs, np.int64),
        "s": np.array(ss, np.int64),
        "card": np.array(boxes, np.int64),
        "cards": cards_info,
    }


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
            known = s[idx] != UNSURE_SUIT  # a real patch whose suit is unknown trains the rank head alone
            ts = _smooth(np.where(known, s[idx], 0), ps.shape[1], smoothing)
            loss_sum += float(-(tr * np.log(pr + 1e-9)).sum() - (known[:, None] * ts * np.log(ps + 1e-9)).sum())
            k = len(idx)
            gr = (pr - tr) / k
            gs = (ps - ts) * known[:, None] / k
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


def real_dataset(args: argparse.Namespace) -> dict:
    """The real patches (`real_corners`, read by the synthetic-only model `args.pseudo_model`)
    with their features, cached in `args.cache`."""
    path = args.cache / f"real_a{args.real_augment}_s{args.seed}.npz"
    if path.is_file():
        with np.load(path, allow_pickle=False) as z:
            data = {k: z[k] for k in ("x", "r", "s", "card", "patches")}
        data["cards"] = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        return by_eye(data)
    from vision.cards.detector import CardDetector  # deferred: the detector's quads, as the reader has them

    pseudo = C.IndexModel.load(args.pseudo_model)
    data = real_corners(pseudo, args.real_augment, args.seed, CardDetector())
    data["x"] = C.features_of(data["patches"]).astype(np.float16)
    np.savez(path, **{k: data[k] for k in ("x", "r", "s", "card", "patches")})
    path.with_suffix(".json").write_text(json.dumps(data["cards"]), encoding="utf-8")
    return by_eye(data)


def by_eye(data: dict) -> dict:
    """The suits corrected by eye (`SUIT_BY_EYE`) applied to cached real patches."""
    for c, info in enumerate(data["cards"]):
        key = f"{info['photo']}#{info['box']}"
        if info["suit_from"] == "label" or key not in SUIT_BY_EYE:
            continue
        eye = SUIT_BY_EYE[key]
        info["suit"], info["suit_from"] = (C.SUITS.index(eye), "eye") if eye else (UNSURE_SUIT, "unknown")
        data["s"][data["card"] == c] = info["suit"]
    return data


def suit_sheets(data: dict, folder: Path) -> None:
    """One contact sheet per suit of the cards whose suit the model gave (rank-only labels): each
    card's first corner patch, to check the suits by eye (`pseudo-<suit>.png`)."""
    folder.mkdir(parents=True, exist_ok=True)
    first: dict[int, int] = {}
    for i, c in enumerate(data["card"]):
        if c >= 0 and c not in first:
            first[int(c)] = i
    for k, suit in enumerate(C.SUITS + ("unknown",)):
        tiles = []
        for c, i in first.items():
            info = data["cards"][c]
            if info["suit_from"] == "label":
                continue
            if (suit == "unknown") != (info["suit"] == UNSURE_SUIT) or (suit != "unknown" and info["suit"] != k):
                continue
            tile = cv2.resize(data["patches"][i], (60, 90))
            tile = cv2.copyMakeBorder(tile, 0, 12, 1, 1, cv2.BORDER_CONSTANT, value=(255, 255, 255))
            label = f"{info['photo'].split('.')[0].replace('IMG_', '').replace('cam_image', 'c')}#{info['box']}"
            cv2.putText(tile, label, (1, 100), cv2.FONT_HERSHEY_SIMPLEX, 0.3, (0, 0, 200), 1)
            tiles.append(tile)
        if not tiles:
            continue
        per = 24
        while len(tiles) % per:
            tiles.append(np.full_like(tiles[0], 255))
        sheet = np.vstack([np.hstack(tiles[i : i + per]) for i in range(0, len(tiles), per)])
        cv2.imwrite(str(folder / f"pseudo-{suit}.png"), sheet)


def real_summary(real: dict, args: argparse.Namespace) -> dict:
    """What real data went in: patches, cards and where their suits came from."""
    cards = real["cards"]
    return {
        "patches": int(len(real["r"])),
        "repeat": args.real_repeat,
        "augment": args.real_augment,
        "cards": len(cards),
        "cards_by_source": {s: sum(c["source"] == s for c in cards) for s in ("edje-train", "edje-test")},
        "suits_from": {k: sum(c["suit_from"] == k for c in cards) for k in ("label", "model", "eye", "unknown")},
        "table_patches": int((real["card"] < 0).sum()),
        "heldout_photos_used": 0,  # `real_sources` skips every held-out edje/test photo
        "pseudo_model": "the synthetic-only model (commit 2e3d73c)",
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
    ap.add_argument("--no-real", action="store_true", help="synthetic patches only")
    ap.add_argument("--real-augment", type=int, default=4, help="jittered copies of each real patch")
    ap.add_argument("--real-repeat", type=int, default=2, help="each real patch seen this many times an epoch")
    ap.add_argument(
        "--pseudo-model",
        type=Path,
        default=C.MODEL_DIR / C.MODEL_FILE,
        help="the synthetic-only model that picks the real corners and reads the rank-only cards' suits",
    )
    ap.add_argument("--sheets", type=Path, help="write the model-given suits' contact sheets here")
    ap.add_argument("--real-only", action="store_true", help="cut the real patches (and sheets), train nothing")
    args = ap.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    args.out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    real = None if args.no_real else real_dataset(args)
    if real is not None and args.sheets:
        suit_sheets(real, args.sheets)
    if args.real_only:
        return 0
    x, r, s = dataset(TRAIN_SEED, args.train, args.cache, "train")
    if real is not None:
        x = np.concatenate([x] + [real["x"]] * args.real_repeat)
        r = np.concatenate([r] + [real["r"]] * args.real_repeat)
        s = np.concatenate([s] + [real["s"]] * args.real_repeat)
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
        "real": None if real is None else real_summary(real, args),
    }
    (args.out / "training.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
