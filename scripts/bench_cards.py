"""Speed of the card reader on 1280x720 frames, against Ultralytics' own PyTorch predict.

Frames: held-out synthetic table scenes (the dataset generator's test split, 1280x720, a fixed
seed), written to a temporary folder so both sides read the very same pictures. Both sides run
on 2 cores (the process is pinned to two CPUs where there are more); onnxruntime gets `--threads`
(2), Ultralytics keeps its own choice of torch threads (it takes one on a 2-core machine).
Reported: the median milliseconds per frame of

* `detect`: our onnxruntime detector (letterbox, inference, numpy decoding and NMS), run alone
  frame after frame as the baseline is (inside the reader's loop it takes longer: see
  docs/card-reading.md, "Speed");
* `detect+refine`: the same plus corner refinement of every card (`refine.snap_and_refine`, what
  the reader does with no deck);
* `detect+identify, detector's corners`: the detector plus rectifying and identifying every card
  from its corners as detected (no refinement, no template alignment);
* `detect+identify`: the reader as it runs with a deck: guesses at every card's corners, each
  rectified and identified against the deck's templates (the rendered deck in the scenes'
  design) until one reads surely, template alignment of unsure reads;
* `stream`: the card stage as it runs on a live stream (`vision.capture.stages.CardStage`,
  read once: a card lying still keeps what it was read as, `vision.cards.track.StillCards`), on
  clips of `--still-frames` (10) frames of each scene, the scene then the same with new sensor
  noise and a slight exposure change, 1/15 s apart: the mean milliseconds per frame of a clip,
  the first frame's full reading included; the median over the clips. `stream` as live (the
  detector not run again while nothing moves, `vision.cards.track.StillFrames`),
  `stream_detect` with the detector on every frame;
* `detect_identify_pool_ms`, `pool_stream_ms` (with `--read-workers`, default 1): the same
  reader and stream with a `vision.cards.read_pool.ReadingPool` of that many worker processes,
  reading a frame's cards on them and this process at once, checked to read exactly what one
  process reads (`pool_same_reads`); `pool_many_speedup`: on the frames of 4 cards or more, the
  reading's time in one process over its time with the pool;
* `ultralytics`: `YOLO(pt).predict(frame, imgsz, conf)` of the same model in PyTorch (the
  checkpoint `scripts/detector_pt_from_onnx.py` rebuilds from the shipped ONNX file, or `--pt`), run by
  the training environment's Python (`--baseline-python`, default `.venv-train/bin/python`;
  the runtime environment has no torch), warm-up frames excluded as on our side;

and the ratios ultralytics / ours (above 1: ours is faster). The machine's load drifts: `--rounds`
passes (3) alternate ours and Ultralytics', and each figure is the median over the rounds (the
ratio taken within each round), with the per-round ratios alongside.

    .venv-train/bin/python scripts/detector_pt_from_onnx.py    # the baseline's checkpoint, once
    .venv/bin/python scripts/bench_cards.py --frames 30
    .venv/bin/python scripts/bench_cards.py --pt runs/card_detector/main/weights/best.pt --json bench.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from vision.capture.stages import CardStage
from vision.cards import scenes
from vision.cards.detector import CardDetector
from vision.cards.read_pool import ReadingPool
from vision.cards.reader import CardReader
from vision.cards.refine import snap_and_refine
from vision.cards.render import HELD_OUT_DESIGN
from vision.cards.templates import load_deck

ROOT = Path(__file__).resolve().parents[1]

BASELINE = r"""
import json, os, statistics, sys, time
os.environ.setdefault("YOLO_OFFLINE", "1"); os.environ.setdefault("YOLO_AUTOINSTALL", "0")
import cv2, torch
from ultralytics import YOLO  # it picks its own torch threads (one on a 2-core machine)
pt, imgsz, conf, warmup = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
frames = [cv2.imread(p) for p in sys.argv[5:]]
model = YOLO(pt, task="pose")
times, found = [], []
for i, f in enumerate(frames):
    t0 = time.perf_counter()
    r = model.predict(f, imgsz=imgsz, conf=conf, device="cpu", verbose=False)[0]
    dt = time.perf_counter() - t0
    if i >= warmup:
        times.append(dt * 1000)
        found.append(len(r.boxes))
print(json.dumps({"median_ms": statistics.median(times), "frames": len(times), "cards": sum(found),
                  "torch": torch.__version__, "threads": torch.get_num_threads()}))
"""


def pin_two_cores() -> list[int]:
    try:
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) > 2:
            os.sched_setaffinity(0, cpus[:2])
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return []


def make_frames(folder: Path, n: int, seed: int) -> list[tuple[Path, str]]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        deck = ("beccato", "italian", "french52")[i % 3]
        img, _, _ = scenes.render_scene(rng, "test", w=1280, h=720, deck_name=deck)
        p = folder / f"frame_{i:03d}.png"
        cv2.imwrite(str(p), img)
        out.append((p, deck))
    return out


def measure_ours(detector, readers, plain, images, warmup: int, pooled=None) -> dict:
    """One pass over the frames: the median milliseconds of each step, and what was read.
    `pooled`: the same readers with a `ReadingPool` each, timed on the same frames and checked
    to read exactly what one process reads."""
    det_ms, ref_ms, plain_ms, full_ms, cards, read, read_plain = [], [], [], [], 0, 0, 0
    pool_ms: list[float] = []
    many: list[tuple[float, float]] = []  # frames of POOL_MANY cards or more: (one process, pool) ms
    pool_same = True
    for i, (img, _) in enumerate(images):  # the detector alone, frame after frame, as Ultralytics runs
        t0 = time.perf_counter()
        detector(img)
        if i >= warmup:
            det_ms.append((time.perf_counter() - t0) * 1000)
    for i, (img, deck) in enumerate(images):
        t0 = time.perf_counter()
        found = detector(img)
        t1 = time.perf_counter()
        for q in found.corners:
            snap_and_refine(img, q)
        t2 = time.perf_counter()
        named_plain = plain[deck].identify(img, found)
        t3 = time.perf_counter()
        named = readers[deck].identify(img, found)
        t4 = time.perf_counter()
        if pooled is not None:
            by_pool = pooled[deck].identify(img, found)
            t5 = time.perf_counter()
            pool_same &= named.same_reading(by_pool)
            if i >= warmup:
                pool_ms.append((t1 - t0 + t5 - t4) * 1000)
                if len(found) >= POOL_MANY:
                    many.append(((t4 - t3) * 1000, (t5 - t4) * 1000))
        if i >= warmup:
            ref_ms.append((t2 - t0) * 1000)
            plain_ms.append((t1 - t0 + t3 - t2) * 1000)
            full_ms.append((t1 - t0 + t4 - t3) * 1000)
            cards += len(found)
            read += sum(lbl is not None for lbl in named.label)
            read_plain += sum(lbl is not None for lbl in named_plain.label)
    return {
        "frames": len(det_ms),
        "cards_found": cards,
        "cards_named": read,
        "cards_named_from_detector_corners": read_plain,
        "detect_ms": statistics.median(det_ms),
        "detect_refine_ms": statistics.median(ref_ms),
        "detect_identify_detector_corners_ms": statistics.median(plain_ms),
        "detect_identify_ms": statistics.median(full_ms),
        **(
            {
                "detect_identify_pool_ms": statistics.median(pool_ms),
                "pool_same_reads": pool_same,
                "pool_many_frames": len(many),
                "pool_many_speedup": sum(a for a, _ in many) / max(sum(b for _, b in many), 1e-9),
            }
            if pool_ms
            else {}
        ),
    }


POOL_MANY = 4  # cards in a frame from which the pool's own speed-up is reported (`pool_many_speedup`)


def detect_alone(detector, images, warmup: int) -> tuple[float, int]:
    """The median milliseconds of one detector run alone frame after frame, and the cards it found."""
    ms, cards = [], 0
    for i, (img, _) in enumerate(images):
        t0 = time.perf_counter()
        found = detector(img)
        if i >= warmup:
            ms.append((time.perf_counter() - t0) * 1000)
            cards += len(found)
    return statistics.median(ms), cards


def noisy(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The frame again as a camera gives it a moment later: new sensor noise, a slight exposure change."""
    out = img.astype(np.float32) * rng.uniform(0.96, 1.04) + rng.normal(0, 3.0, img.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def make_clips(images, still_frames: int, seed: int) -> list[tuple[list[np.ndarray], str]]:
    """Per scene, a clip of a still table: the scene, then `still_frames - 1` noisy repeats."""
    rng = np.random.default_rng(seed + 1)
    return [([img] + [noisy(img, rng) for _ in range(still_frames - 1)], deck) for img, deck in images]


STREAM_FPS = 15.0  # the still-table clips' frame rate (their frames' times)


def measure_stream(
    stages: dict, clips, warmup: int, prefix: str = "", variants=(("stream", True), ("stream_detect", False))
) -> dict:
    """The card stage reading once per still card: the median over the clips of the mean
    milliseconds per frame of a clip, and the cards it named on the clips' last frames; as it
    runs live (`stream_ms`: frames STREAM_FPS a second apart, the detector not run again while
    nothing moves, `StillFrames`) and with the detector on every frame (`stream_detect_ms`).
    `prefix`: before each key (the pooled stages' figures)."""
    out: dict = {}
    for key, still_frames in variants:
        key = prefix + key
        ms, named = [], 0
        for i, (clip, deck) in enumerate(clips):
            stage = stages[deck]
            stage.still.reset()
            frames, stage.frames = stage.frames, (stage.frames if still_frames else None)
            if stage.frames is not None:
                stage.frames.reset()
            t0 = time.perf_counter()
            for k, img in enumerate(clip):
                dets = stage.read(img, k / STREAM_FPS)
            stage.frames = frames
            if i >= warmup:
                ms.append((time.perf_counter() - t0) * 1000 / len(clip))
                named += sum(lbl is not None for lbl in dets.label)
        out[key + "_ms"], out[key + "_cards_named"] = statistics.median(ms), named
    return out


def run_baseline(python: str, pt: Path, detector, frames, warmup: int, cpus: list[int], tmp: Path) -> dict:
    """Ultralytics' own predict of the same model on the same frames, in the training environment."""
    env = dict(os.environ, OMP_NUM_THREADS="2", YOLO_CONFIG_DIR=str(tmp / "yolo"))
    cmd = [
        python,
        "-c",
        BASELINE,
        str(pt),
        str(detector.imgsz[0]),
        str(detector.conf),
        str(warmup),
        *[str(p) for p, _ in frames],
    ]
    res = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        env=env,
        preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None,
    )
    if res.returncode != 0:
        return {"error": res.stderr.strip().splitlines()[-1:] or ["failed"]}
    return json.loads(res.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--model", default=None, help="ONNX model (default: the shipped one)")
    ap.add_argument(
        "--pt",
        default=None,
        help="the same model as an Ultralytics .pt (default: "
        "models/card_detector/card_detector.pt, else runs/card_detector/main/weights/best.pt)",
    )
    ap.add_argument("--baseline-python", default=str(ROOT / ".venv-train" / "bin" / "python"))
    ap.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="passes over the frames, ours and Ultralytics' "
        "alternated; the medians and the ratio are the median over the rounds",
    )
    ap.add_argument("--threads", type=int, default=2, help="onnxruntime threads (torch gets Ultralytics' own choice)")
    ap.add_argument(
        "--compare",
        nargs="*",
        default=[],
        help="other ONNX models (an int8 one, another input size): their detection alone timed in the same rounds",
    )
    ap.add_argument(
        "--still-frames",
        type=int,
        default=10,
        help="frames of each still-table clip for the stream measure (0: no stream measure)",
    )
    ap.add_argument(
        "--compare-threads",
        type=int,
        nargs="*",
        default=[],
        help="onnxruntime intra-op thread counts to time the shipped detector at beside --threads",
    )
    ap.add_argument(
        "--read-workers",
        type=int,
        default=1,
        help="worker processes of the pooled reader and stream timed beside the one-process ones "
        "(`vision.cards.read_pool`; 0: not timed)",
    )
    ap.add_argument("--json", dest="json_out", default=None)
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.frames < 1 or args.warmup < 0 or args.read_workers < 0:
        ap.error("--rounds and --frames take 1 or more, --warmup and --read-workers 0 or more")
    cpus = pin_two_cores()
    detector = CardDetector(args.model, threads=args.threads)
    readers = {d: CardReader(detector, load_deck(f"{d}:{HELD_OUT_DESIGN}")) for d in ("beccato", "italian", "french52")}
    result: dict = {"cpus": cpus, "model": str(detector.path), "imgsz": detector.imgsz}
    with tempfile.TemporaryDirectory() as tmp:
        frames = make_frames(Path(tmp), args.frames + args.warmup, args.seed)
        images = [(cv2.imread(str(p)), d) for p, d in frames]
        plain = {d: CardReader(detector, r.deck, snap=False, align=False) for d, r in readers.items()}
        pt = (
            Path(args.pt)
            if args.pt
            else next(
                (
                    p
                    for p in (
                        ROOT / "models/card_detector/card_detector.pt",
                        ROOT / "runs/card_detector/main/weights/best.pt",
                    )
                    if p.is_file()
                ),
                None,
            )
        )
        have_baseline = pt is not None and Path(args.baseline_python).is_file()
        if not have_baseline:
            result["ultralytics"] = {"error": "no .pt model or no baseline Python (pass --pt and --baseline-python)"}
        ours: list[dict] = []
        theirs: list[dict] = []
        others = {m: CardDetector(m, threads=args.threads) for m in args.compare}
        others.update(
            {f"threads={n}": CardDetector(args.model, threads=n) for n in args.compare_threads if n != args.threads}
        )
        clips = make_clips(images, args.still_frames, args.seed) if args.still_frames > 0 else []
        stages = {
            d: CardStage("bench", deck=f"{d}:{HELD_OUT_DESIGN}", fps=None, model=args.model, threads=args.threads)
            for d in readers
        }
        pooled = None
        if args.read_workers > 0:
            pooled = {d: CardReader(detector, r.deck) for d, r in readers.items()}
            pools = [ReadingPool(r, args.read_workers) for r in pooled.values()]
            pool_stages = {
                d: CardStage(
                    "bench",
                    deck=f"{d}:{HELD_OUT_DESIGN}",
                    fps=None,
                    model=args.model,
                    threads=args.threads,
                    read_workers=args.read_workers,
                )
                for d in readers
            }
            for pool in pools + [st.pool for st in pool_stages.values() if st.pool is not None]:
                if not pool.wait_ready():
                    ap.exit(1, "the reading workers did not start\n")
        other_ms: dict[str, list[float]] = {m: [] for m in others}
        other_cards: dict[str, int] = {}
        for _ in range(args.rounds):  # alternated, so that a change of the machine's load hits both sides
            ours.append(measure_ours(detector, readers, plain, images, args.warmup, pooled))
            if clips:
                ours[-1].update(measure_stream(stages, clips, args.warmup))
                if pooled is not None:
                    ours[-1].update(measure_stream(pool_stages, clips, args.warmup, "pool_", (("stream", True),)))
            for m, det in others.items():
                ms, n = detect_alone(det, images, args.warmup)
                other_ms[m].append(ms)
                other_cards[m] = n
            if have_baseline and pt is not None:
                base = run_baseline(args.baseline_python, pt, detector, frames, args.warmup, cpus, Path(tmp))
                if "error" in base:  # no ratio from some of the rounds only
                    result["ultralytics"] = base
                    have_baseline, theirs = False, []
                else:
                    theirs.append(base)
        first = ours[0]
        result.update(
            {
                "frames": first["frames"],
                "rounds": args.rounds,
                "cards_found": first["cards_found"],
                "cards_named": first["cards_named"],
                "cards_named_from_detector_corners": first["cards_named_from_detector_corners"],
            }
        )
        if pooled is not None:
            result["read_workers"] = args.read_workers
            result["pool_same_reads"] = all(o["pool_same_reads"] for o in ours)
            result["detect_identify_pool_ms"] = round(statistics.median(o["detect_identify_pool_ms"] for o in ours), 2)
            # the reading alone (no detector) of the frames of POOL_MANY cards or more, one process over the pool
            result["pool_many_frames"] = first["pool_many_frames"]
            result["pool_many_speedup"] = round(statistics.median(o["pool_many_speedup"] for o in ours), 2)
            result["pool_many_speedup_per_round"] = [round(o["pool_many_speedup"], 2) for o in ours]
        if clips:
            result["still_frames"] = args.still_frames
            for key in ("stream", "stream_detect") + (("pool_stream",) if pooled is not None else ()):
                result[key + "_cards_named"] = first[key + "_cards_named"]
                result[key + "_ms"] = round(statistics.median(o[key + "_ms"] for o in ours), 2)
        for key in ("detect_ms", "detect_refine_ms", "detect_identify_detector_corners_ms", "detect_identify_ms"):
            result[key] = round(statistics.median(o[key] for o in ours), 2)
        if theirs:
            result["ultralytics"] = dict(
                theirs[0],
                pt=str(pt),
                median_ms=round(statistics.median(t["median_ms"] for t in theirs), 2),
                median_ms_per_round=[round(t["median_ms"], 2) for t in theirs],
            )
            keys = [("ratio_detect", "detect_ms"), ("ratio_detect_identify", "detect_identify_ms")]
            if clips:
                keys += [("ratio_stream", "stream_ms"), ("ratio_stream_detect", "stream_detect_ms")]
            if pooled is not None:
                keys += [("ratio_detect_identify_pool", "detect_identify_pool_ms")]
                if clips:
                    keys += [("ratio_pool_stream", "pool_stream_ms")]
            for name, key in keys:
                per_round = [t["median_ms"] / o[key] for o, t in zip(ours, theirs)]
                result[name] = round(statistics.median(per_round), 2)
                result[name + "_per_round"] = [round(r, 2) for r in per_round]
        if others:
            result["compare"] = {}
            for m, times in other_ms.items():
                row: dict = {"detect_ms": round(statistics.median(times), 2), "cards_found": other_cards[m]}
                if theirs:
                    per_round = [t["median_ms"] / x for x, t in zip(times, theirs)]
                    row["ratio_detect"] = round(statistics.median(per_round), 2)
                    row["ratio_detect_per_round"] = [round(r, 2) for r in per_round]
                result["compare"][m] = row
        if pooled is not None:
            for pool in pools:
                pool.close()
            for st in pool_stages.values():
                st.close()
    print(json.dumps(result, indent=1))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
