"""Train the card embedder (vision/cards/embed.py) on rendered faces in random printings, export
it to ONNX with a model card.

Each step draws one deck (Beccato!, Italian or French) in one printing (`render.random_design`,
or the training designs `classic` and `bold`; never the held-out `outline`), renders all its
faces, and photographs a batch of them into small synthetic scenes: a training background, the
card turned any way with a little perspective, at 28 to 130 pixels wide (the
network's input is 64 x 96), the scene generator's
lighting, blur and noise (`scenes.photometric`) and, half the time, coloured light in
patches the size of a part of the card, sometimes JPEG; the crop is then
cut from corners a few percent off, as the detector and its refinement leave them. The faces of
the deck are the references: half clean renders (the rendered-deck case), half photographed
large (the enrolled-deck case), and, for faces that are not the same turned 180
degrees, also upside down. Loss: each crop's similarity to every reference of its deck, softmax
cross-entropy towards its own face upright. So the network learns what tells faces of one
printing apart, for any printing.

    .venv-train/bin/python scripts/train_card_embedder.py --minutes 40 --threads 1
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import cv2
import numpy as np

from vision.cards import render as R
from vision.cards import scenes
from vision.cards.decks import faces
from vision.cards.embed import INPUT_SIZE, prepare
from vision.cards.rectify import rectify
from vision.cards.templates import to_canonical

ROOT = Path(__file__).resolve().parents[1]

DECKS = (("beccato", 0.45), ("italian", 0.25), ("french52", 0.30))
PPM = 4.0
MAX_WIDTH = 130  # pixels: a card photographed wider says no more at the network's input size
OUT = ROOT / "models" / "card_embedder"


def photograph(
    face: np.ndarray,
    rng: np.random.Generator,
    width: float,
    jitter: float,
    backgrounds: tuple[str, ...],
    photometric: bool = True,
) -> np.ndarray:
    """`face` (an upright render at PPM) photographed `width` pixels wide onto a small scene and
    cut out again from corners off by `jitter` of the card's diagonal (rms)."""
    fh, fw = face.shape[:2]
    cw, ch = width, width * fh / fw
    size = int(max(cw, ch) * 1.6) + 8
    bg = scenes.background(backgrounds[int(rng.integers(len(backgrounds)))], rng, size, size).astype(np.float32)
    half = np.array([[-cw, -ch], [cw, -ch], [cw, ch], [-cw, ch]], np.float32) / 2
    half[:2, 0] *= 1 - rng.uniform(0, 0.12)  # the far edge a little shorter
    half[:, 1] *= rng.uniform(0.8, 1.0)  # seen from an angle
    a = rng.uniform(-math.pi, math.pi)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]], np.float32)
    dst = (half @ rot.T + size / 2 + rng.uniform(-2, 2, 2)).astype(np.float32)
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [fw, 0], [fw, fh], [0, fh]]), dst)
    flags = cv2.INTER_AREA if width < fw else cv2.INTER_LINEAR
    warped = cv2.warpPerspective(face, m, (size, size), flags=flags).astype(np.float32)
    mask = cv2.warpPerspective(R.card_mask((fh, fw), PPM), m, (size, size), flags=cv2.INTER_LINEAR)
    alpha = mask.astype(np.float32)[..., None] / 255.0
    img = bg * (1 - alpha) + warped * alpha
    if rng.random() < 0.5:
        # coloured light in patches the size of a part of the card (a lamp and a window, a
        # reflection): the scene generator's light field is smooth over a whole frame
        cell = max(2, int(cw * rng.uniform(0.25, 1.0)))
        field = np.stack([scenes.fractal(rng, size, size, 2, cell) for _ in range(3)], axis=2)
        img = img * (1.0 + (field - 0.5) * rng.uniform(0.2, 0.7))
    img = scenes.photometric(rng, img) if photometric else np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 90))])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    diag = float(np.linalg.norm(dst[0] - dst[2]))
    corners = dst + rng.normal(0, jitter * diag / math.sqrt(2), (4, 2)).astype(np.float32)
    return rectify(img, corners)


def batch(rng: np.random.Generator, n: int, backgrounds, varied_pips: bool = False):
    """One deck in one printing: (crops (n, 3, H, W), references (R, 3, H, W), target index of
    each crop among the references). `varied_pips`: random printings with paler or resized pips
    too (`render.random_design`)."""
    deck = str(rng.choice([d for d, _ in DECKS], p=[p for _, p in DECKS]))
    design = R.random_design(rng, varied_pips) if rng.random() < 0.75 else str(rng.choice(R.TRAIN_DESIGNS))
    cards = faces(deck)
    renders = [R.render_card(c, design, PPM) for c in cards]
    refs = []
    enrolled_like = rng.random() < 0.5
    for face in renders:
        if enrolled_like:
            refs.append(photograph(face, rng, rng.uniform(100, MAX_WIDTH), rng.uniform(0, 0.01), backgrounds))
        else:
            refs.append(to_canonical(face))
    turned = [k for k, c in enumerate(cards) if not c.symmetric]
    ref_x = [prepare(r) for r in refs] + [prepare(cv2.rotate(refs[k], cv2.ROTATE_180)) for k in turned]
    pick = rng.integers(len(cards), size=n)
    crops = []
    for k in pick:
        width = float(np.exp(rng.uniform(math.log(28), math.log(MAX_WIDTH))))
        jitter = rng.uniform(0, 0.04)
        crops.append(prepare(photograph(renders[k], rng, width, jitter, backgrounds)))
    return np.stack(crops), np.stack(ref_x), pick


def build_net(dim: int = 128):
    import torch.nn as nn  # deferred: torch, the training venv only
    import torch.nn.functional as F  # deferred: torch, the training venv only

    def block(i, o, s):
        return [nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(
                *block(3, 24, 2),
                *block(24, 24, 1),
                *block(24, 48, 2),
                *block(48, 48, 1),
                *block(48, 64, 2),
                *block(64, 64, 1),
                *block(64, 96, 2),
            )
            w, h = INPUT_SIZE
            self.head = nn.Linear(96 * (h // 16) * (w // 16), dim)

        def forward(self, x):
            return F.normalize(self.head(self.features(x).flatten(1)), dim=1)

    return Net()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=40.0)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--scale", type=float, default=16.0, help="logit scale (1 / temperature)")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--init", type=Path, default=None, help="continue from this state_dict (.pt)")
    ap.add_argument(
        "--varied-pips", action="store_true", help="random printings also print their pips paler, larger or smaller"
    )
    args = ap.parse_args(argv)
    if args.minutes <= 0 or args.batch < 1 or args.threads < 1:
        ap.error("--minutes, --batch and --threads must be positive")
    if args.init and not args.init.is_file():
        ap.error(f"--init: no such checkpoint: {args.init}")
    import torch  # deferred: torch, the training venv only (after the arguments are checked)
    import torch.nn.functional as F  # deferred: torch, the training venv only

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    backgrounds = scenes.available_backgrounds("train")
    net = build_net()
    if args.init:
        net.load_state_dict(torch.load(args.init))
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    args.out.mkdir(parents=True, exist_ok=True)
    log = open(args.out / "train_log.txt", "w")
    t0 = time.time()
    budget = args.minutes * 60
    step, ema = 0, None
    while time.time() - t0 < budget:
        frac = (time.time() - t0) / budget
        for g in opt.param_groups:  # warm up, then cosine down to zero at the time limit
            g["lr"] = args.lr * min(1.0, (step + 1) / 50) * 0.5 * (1 + math.cos(math.pi * frac))
        crops, refs, target = batch(rng, args.batch, backgrounds, args.varied_pips)
        net.train()
        x = torch.from_numpy(np.concatenate([crops, refs]))
        e = net(x)
        q, r = e[: len(crops)], e[len(crops) :]
        logits = args.scale * q @ r.T
        loss = F.cross_entropy(logits, torch.from_numpy(target).long())
        opt.zero_grad()
        loss.backward()
        opt.step()
        acc = float((logits.argmax(1).numpy() == target).mean())
        ema = (loss.item(), acc) if ema is None else (0.98 * ema[0] + 0.02 * loss.item(), 0.98 * ema[1] + 0.02 * acc)
        step += 1
        if step % 20 == 0:
            line = f"step {step} t {time.time() - t0:.0f}s loss {ema[0]:.3f} batch-acc {ema[1]:.3f}"
            print(line, flush=True)
            log.write(line + "\n")
            log.flush()
        if step % 200 == 0:
            torch.save(net.state_dict(), args.out / "last.pt")
    torch.save(net.state_dict(), args.out / "last.pt")
    export(net, args.out / "card_embedder.onnx")
    meta = {
        "steps": step,
        "seconds": round(time.time() - t0),
        "batch": args.batch,
        "seed": args.seed,
        "lr": args.lr,
        "scale": args.scale,
        "final_loss": round(ema[0], 4),
        "final_batch_acc": round(ema[1], 4),
        "trained": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "torch": torch.__version__,
        "init": str(args.init) if args.init else None,
        "varied_pips": args.varied_pips,
    }
    (args.out / "train_meta.json").write_text(json.dumps(meta, indent=1))
    print(json.dumps(meta))
    return 0


def export(net, path: Path) -> None:
    import torch  # deferred: torch, the training venv only

    net.eval()
    w, h = INPUT_SIZE
    torch.onnx.export(
        net,
        torch.zeros(1, 3, h, w),
        str(path),
        input_names=["crops"],
        output_names=["embeddings"],
        dynamic_axes={"crops": {0: "n"}, "embeddings": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )


if __name__ == "__main__":
    sys.exit(main())
