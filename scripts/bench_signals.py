#!/usr/bin/env python
"""Body-signal benchmarks, all measured in one run on this machine.

Speed: frames per second of the landmark pipeline (`LandmarkExtractor`: FaceMesh, Hands and Pose
per seat crop at their own rates) on a 4-seat 1280x720 table composed by tiling real clips and
pictures from tests/fixtures/people, against the naive baseline (MediaPipe Holistic on each seat
crop, every frame), and their ratio.

Accuracy (--accuracy): per-signal precision, recall and decision delay (from the end of a
gesture to the frame at which its event is decided) on the landmark-stream suite, and false
events per minute on the real clips (the seated-table clip has no signal; in the gesture clip
everything but the right-hand raise counts as false).

With `--moving` every seat is the gesture clip (at four offsets, two of them mirrored), so no
seat is still; the default table has two still pictures below (a still seat's Hands and Pose
are not run again while its view stays the same). `--tree DIR` measures the landmark code of
another checkout of this repository (e.g. a git worktree of an earlier commit) on the same
frames: a before/after in one run, alternating with this tree's (`--against DIR`).

    .venv/bin/python scripts/bench_signals.py [--frames 60] [--moving] [--accuracy] [--out bench.json]
    nice .venv/bin/python scripts/bench_signals.py --frames 60 --against /tmp/base --repeat 3
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if "--tree" in sys.argv:  # another checkout's landmark code, measured on this tree's frames
    sys.path.insert(0, str(Path(sys.argv[sys.argv.index("--tree") + 1]).resolve()))
else:
    sys.path.insert(0, str(ROOT))
PEOPLE = ROOT / "tests" / "fixtures" / "people"

from vision.landmarks.calibration import TableCalibration, quadrant_seats  # noqa: E402
from vision.landmarks.extract import HolisticPerSeat, LandmarkExtractor, Rates  # noqa: E402
from vision.signals.engine import detect_signals, landmarks_from_media, seat_series  # noqa: E402
from vision.signals.free import FreeSignal  # noqa: E402


def _fit(img: np.ndarray, w: int = 640, h: int = 360) -> np.ndarray:
    s = min(w / img.shape[1], h / img.shape[0])
    small = cv2.resize(img, (int(img.shape[1] * s), int(img.shape[0] * s)), interpolation=cv2.INTER_AREA)
    tile = np.zeros((h, w, 3), np.uint8)
    y, x = (h - small.shape[0]) // 2, (w - small.shape[1]) // 2
    tile[y : y + small.shape[0], x : x + small.shape[1]] = small
    return tile


def table_frames(n: int, moving: bool = False) -> list[np.ndarray]:
    """n frames of a 4-seat 1280x720 table: the gesture clip (and its mirror image, 1 s later)
    on top, two real still pictures below; `moving`: below too the clip (2 s and 3 s later,
    the second mirrored), so that every seat moves."""
    cap = cv2.VideoCapture(str(PEOPLE / "mps_gesture_recognizer_test_video.mp4"))
    clip: list[np.ndarray] = []
    while len(clip) < n + 75:
        ok, img = cap.read()
        if not ok:
            break
        clip.append(_fit(img))
    cap.release()
    still = [_fit(cv2.imread(str(PEOPLE / "mptasks_pointing_up.jpg"))), _fit(cv2.imread(str(PEOPLE / "mp_sergey.png")))]
    frames = []
    for i in range(n):
        a = clip[i % len(clip)]
        b = cv2.flip(clip[(i + 25) % len(clip)], 1)
        below = [clip[(i + 50) % len(clip)], cv2.flip(clip[(i + 75) % len(clip)], 1)] if moving else still
        frames.append(np.vstack([np.hstack([a, b]), np.hstack(below)]))
    return frames


def calibration() -> TableCalibration:
    return TableCalibration(quadrant_seats(["ana", "bruno", "carla", "dario"], 2, 2))


FPS_SRC = 25.0


def pipeline(n: int, moving: bool) -> dict:
    """The landmark pipeline on n frames: wall and process CPU time (all threads) per frame."""
    frames = table_frames(n, moving)
    with LandmarkExtractor(calibration(), Rates()) as ex:
        ex.process(frames[0], 0.0, 0)  # warm-up: graphs start, first detections
        t0, c0 = time.perf_counter(), time.process_time()
        found = 0
        for i, f in enumerate(frames[1:], 1):
            lm = ex.process(f, i / FPS_SRC, i)
            found += sum(p.face is not None for p in lm.persons)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    m = n - 1
    return {
        "fps": round(m / wall, 2),
        "ms_per_frame": round(1000 * wall / m, 1),
        "cpu_ms_per_frame": round(1000 * cpu / m, 1),
        "faces_per_frame": round(found / m, 2),
    }


def _pipeline_apart(n: int, moving: bool, tree: Path | None) -> dict:
    """`pipeline` in a fresh interpreter, of this tree's landmark code or of `tree`'s."""
    cmd = [sys.executable, __file__, "--frames", str(n), "--pipeline-only"] + ["--moving"] * moving
    cmd += ["--tree", str(tree)] if tree else []
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=900, cwd=ROOT)
    if res.returncode != 0:
        raise SystemExit(f"the pipeline run failed:\n{res.stderr[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def speed(n: int, moving: bool = False, against: Path | None = None, repeat: int = 1) -> dict:
    frames = table_frames(n, moving)
    calib = calibration()
    out: dict = {
        "frames": n,
        "frame_size": [1280, 720],
        "seats": 4,
        "moving_seats": 4 if moving else 2,
        "source_fps": FPS_SRC,
        "cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "rates": dataclasses.asdict(Rates()),
    }
    rounds: list[dict] = []
    for k in range(repeat):
        row: dict = {}
        order = ["ours", "holistic", "against"] if k % 2 == 0 else ["against", "holistic", "ours"]
        for who in order:
            if who == "ours":
                row["pipeline"] = _pipeline_apart(n, moving, None) if against else pipeline(n, moving)
            elif who == "against" and against:
                row["against"] = _pipeline_apart(n, moving, against)
            elif who == "holistic":
                base = HolisticPerSeat(calib)
                try:
                    base.process(frames[0], 0.0, 0)
                    t0, c0 = time.perf_counter(), time.process_time()
                    base_found = 0
                    for i, f in enumerate(frames[1:], 1):
                        base_found += base.process(f, i / FPS_SRC, i)
                    naive, cpu = time.perf_counter() - t0, time.process_time() - c0
                finally:
                    base.close()
                m = n - 1
                row["baseline_holistic_per_seat"] = {
                    "fps": round(m / naive, 2),
                    "ms_per_frame": round(1000 * naive / m, 1),
                    "cpu_ms_per_frame": round(1000 * cpu / m, 1),
                    "people_per_frame": round(base_found / m, 2),
                }
        hol = row["baseline_holistic_per_seat"]
        row["speedup"] = round(hol["ms_per_frame"] / row["pipeline"]["ms_per_frame"], 2)
        row["cpu_speedup"] = round(hol["cpu_ms_per_frame"] / row["pipeline"]["cpu_ms_per_frame"], 2)
        if against:
            row["against_speedup"] = round(hol["ms_per_frame"] / row["against"]["ms_per_frame"], 2)
            row["cpu_vs_against"] = round(row["against"]["cpu_ms_per_frame"] / row["pipeline"]["cpu_ms_per_frame"], 2)
        rounds.append(row)
    out.update(rounds[0] if repeat == 1 else {"rounds": rounds})
    if repeat > 1:
        for key in ("speedup", "cpu_speedup", "against_speedup", "cpu_vs_against"):
            if key in rounds[0]:
                out[key + "_median"] = statistics.median(r[key] for r in rounds)
    return out


def accuracy() -> dict:
    sys.path.insert(0, str(ROOT / "tests" / "signals"))
    from signal_streams import score, suite  # deferred: a test helper, on the path only for this run

    stats = score(suite())
    per_signal = {
        k: {
            "precision": round(v["precision"], 3),
            "recall": round(v["recall"], 3),
            "tp": v["tp"],
            "fp": v["fp"],
            "fn": v["fn"],
            "median_delay_s": None if v["median_delay_s"] is None else round(v["median_delay_s"], 3),
        }
        for k, v in sorted(stats.items())
    }
    # Free Signal: learnt from 3 demonstrations, looked for in a stream with it and one without
    from signal_streams import Body, free_demonstrations, free_stream, seat_calibration  # deferred: as above

    calib = seat_calibration({"ana": Body.make()})
    fs = FreeSignal.learn([seat_series(d, calib, "ana") for d in free_demonstrations(3)])
    tp = fp = fn = 0
    delays = []
    for with_it in (True, False):
        frames, cal = free_stream(with_it)
        found = [e for e in detect_signals(frames, cal, free=fs) if e.signal == "free"]
        hits = [e for e in found if e.start <= 4.8 and e.end >= 3.5] if with_it else []
        tp += len(hits[:1])
        fn += int(with_it and not hits)
        fp += len(found) - len(hits[:1])
        delays += [e.evidence["decided_at"] - 4.77 for e in hits[:1]]
    per_signal["free"] = {
        "precision": round(tp / (tp + fp), 3) if tp + fp else 1.0,
        "recall": round(tp / (tp + fn), 3) if tp + fn else 1.0,
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "median_delay_s": round(float(np.median(delays)), 3) if delays else None,
        "threshold": round(fs.threshold, 3),
    }
    real = {}
    for name, allowed in (
        ("mps_image_classification_test_video.mp4", set()),
        ("mps_gesture_recognizer_test_video.mp4", {"raise_hand_right"}),
    ):
        frames, calib = landmarks_from_media(PEOPLE / name, fps=10)
        events = detect_signals(frames, calib)
        false = [e for e in events if e.signal not in allowed]
        minutes = (frames[-1].t - frames[0].t) / 60.0
        real[name] = {
            "minutes": round(minutes, 3),
            "false_events": len(false),
            "false_events_per_minute": round(len(false) / minutes, 2),
            "events": [(e.signal, e.start, e.end) for e in events],
        }
    return {"landmark_suite": per_signal, "real_clips": real}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=60)
    ap.add_argument("--accuracy", action="store_true")
    ap.add_argument("--moving", action="store_true", help="every seat moves (the clip at four offsets)")
    ap.add_argument("--against", type=Path, help="another checkout: its landmark code in the same run")
    ap.add_argument("--repeat", type=int, default=1, help="rounds, alternating who goes first")
    ap.add_argument("--tree", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--pipeline-only", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out")
    args = ap.parse_args()
    if args.pipeline_only:
        print(json.dumps(pipeline(args.frames, args.moving)))
        return
    result = {"speed": speed(args.frames, args.moving, args.against, args.repeat)}
    if args.accuracy:
        result["accuracy"] = accuracy()
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
