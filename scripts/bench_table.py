#!/usr/bin/env python
"""The whole table on this machine: cards and four seats at 1280x720, live, against today's
sequential loop in the same run.

Two camera stand-ins run in real time at `--fps` (30) frames a second, each behind its
latest-frame grabber (`vision.capture.grabber`), as `run_live` reads webcams:

* `cards`: a top-down 1280x720 view of a cloth (`vision.cards.scenes.background("felt")`) with
  4, 10 or 20 of our rendered Beccato! cards lying on it (the demo's slots,
  scripts/make_demo_session.py), lying there before the measured window starts (read during the
  warm-up: the steady state of a table that has been running); one of them is picked up and put
  down a little further every half second (a card played: read again); each frame has its own
  sensor noise and goes through JPEG, as a webcam's MJPEG does (decoded on the grabber's thread);
* `people`: four seats at 1280x720, the real people of tests/fixtures/people tiled as
  scripts/bench_signals.py does (the gesture clip, its mirror image, two real stills); with
  `--moving`, the gesture clip at four offsets, so that no seat is still (a still seat's Hands
  and Pose are not run again while its view stays the same).

The stages run on every frame they can take (no rate gates; the landmark models keep their own
rates: face 15/s, hands 12/s, pose 5/s). Variants (each in its own process, so that memory and
CPU are its own; baseline and new alternate, `--repeat` rounds):

* `sequential` (the baseline, today's loop, `tablereferee.run.run_live`): each round the newest
  frame of each camera, the card stage (every card identified on every frame) then the signal
  stage, one after the other;
* `parallel`: `vision.capture.pipeline.StagePipeline` behind the same grabbers: each stage on its
  own thread, a busy stage skips frames (`follow`), cards read once while they lie still
  (`StillCards`), the detector not run while nothing on the cloth moves (`StillFrames`);
* `parallel-detect`: the same, the detector run on every frame the stage takes;
* `parallel-every` (not with --quick): the same, every card identified on every frame (what the
  threads alone give);
* `people-only` (not with --quick): the people camera and its stage alone, as in `parallel`;
* `process`: as `parallel`, the card stage in a process of its own
  (`vision.capture.pipeline.ProcessStage`: frames through shared memory), so that its Python work
  holds no GIL the seats' MediaPipe threads wait for (CPU and memory: both processes').

Per variant: frames processed per second (the table's: the slower stage's), per stage; CPU used
(process CPU time over wall time: 2.0 is both cores); latency from a frame's capture to its
observation, p50 and p95; frames dropped; peak memory (the process's maximum RSS, models
included); cards named right per frame; each landmark model's turns a seat a second (what the
seats' models really got: a frame rate bought by running the models less often is no gain).
Figures are medians over the rounds; ratios are taken within each round.

    nice .venv/bin/python scripts/bench_table.py [--cards 4 10 20] [--seconds 6] [--repeat 3] [--json OUT]
    nice .venv/bin/python scripts/bench_table.py --quick [--moving] [--busy-cloth]
    .venv/bin/python scripts/bench_table.py --cards 4 20 --card-fps 5 --people-fps 10   # the live rates
    .venv/bin/python scripts/bench_table.py --cards 4 20 --variants parallel --rates 10 8 3   # a 6-seat table's rates
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import make_demo_session as demo  # noqa: E402
from bench_signals import table_frames  # noqa: E402

from vision.capture.grabber import Grabber  # noqa: E402
from vision.capture.pipeline import ProcessStage, StagePipeline, follow, table_stages  # noqa: E402
from vision.capture.sources import CameraFrame, CaptureSource, SessionClock  # noqa: E402
from vision.capture.stages import CardStage, SignalStage  # noqa: E402
from vision.cards import scenes  # noqa: E402
from vision.cards.decks import card  # noqa: E402
from vision.landmarks.calibration import TableCalibration, quadrant_seats  # noqa: E402
from vision.landmarks.extract import Rates  # noqa: E402

W, H = 1280, 720
VARIANTS = ("sequential", "parallel", "parallel-detect", "parallel-every", "process", "people-only")
# The demo's twenty slots, in the order they fill: the four henhouses, then the seats.
SLOT_ORDER = [f"egg{i}" for i in range(4)] + [f"{p}{i}" for i in range(4) for p in ("Carla", "Anna", "Bruno", "Dario")]
CARD_IDS = [
    "egg:star-3",
    "egg:dollar-1",
    "egg:moon-2",
    "egg:sun-4",
    "chicken:orloff:1",
    "chicken:brahma:1",
    "chicken:padovana:1",
    "chicken:serama:1",
    "chicken:orloff:2",
    "chicken:brahma:2",
    "chicken:padovana:2",
    "chicken:serama:2",
    "chicken:orloff:3",
    "chicken:brahma:3",
    "chicken:padovana:3",
    "chicken:serama:3",
    "egg:moon-5",
    "egg:star-1",
    "egg:dollar-2",
    "egg:sun-1",
]
NOISE_FRAMES = 12  # distinct sensor-noise frames per card position
BUSY_STEPS = 12  # --busy-cloth: positions of the sliding card, one frame each


def jpeg(img: np.ndarray) -> bytes:
    ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 85])
    assert ok
    return enc.tobytes()


def card_frames(n: int, busy: bool = False) -> tuple[list[list[bytes]], list[str]]:
    """The cards camera: for each of two positions of the played card, NOISE_FRAMES JPEG frames
    of `n` cards on the cloth; and the cards' face keys (the truth). `busy`: BUSY_STEPS
    positions of one frame each, the played card sliding a little further on every frame."""
    rng = np.random.default_rng(30)
    cloth = scenes.background("felt", rng, H, W)
    cloth = np.clip(cloth, 0, 255).astype(np.uint8)
    ids = CARD_IDS[:n]
    rest = cloth
    for slot, cid in list(zip(SLOT_ORDER, ids))[1:]:
        centre, rot = demo.SLOTS[slot]
        rest = demo.place(rest, cid, centre, rot, (float(rng.uniform(-6, 6)), float(rng.uniform(-6, 6)), 0.0))
    positions = []
    (x, y), rot = demo.SLOTS[SLOT_ORDER[0]]
    moves = [(8.0 * k, 2.0 * k) for k in range(BUSY_STEPS)] if busy else [(0.0, 0.0), (40.0, 12.0)]
    for dx, drot in moves:  # the played card, picked up and put down again (busy: sliding)
        img = demo.place(rest, ids[0], (x, y), rot, (dx, 0.0, drot))
        frames = []
        for _ in range(1 if busy else NOISE_FRAMES):
            noisy = img.astype(np.float32) * rng.uniform(0.97, 1.03) + rng.normal(0, 3.0, img.shape)
            frames.append(jpeg(np.clip(noisy, 0, 255).astype(np.uint8)))
        positions.append(frames)
    return positions, [card("beccato", c).face_key for c in ids]


def people_frames(n: int, moving: bool = False) -> list[bytes]:
    return [jpeg(f) for f in table_frames(n, moving)]


class Camera(CaptureSource):
    """A camera stand-in: JPEG frames, decoded at `fps` frames a second of real time."""

    media = True  # it ends after `count` frames

    def __init__(self, name: str, frames, fps: float, count: int, clock: SessionClock, pick) -> None:
        super().__init__(name, clock)
        self.frames, self.period, self.count, self.pick = frames, 1.0 / fps, count, pick
        self._next = time.monotonic()

    def read(self) -> CameraFrame | None:
        if self.index >= self.count:
            return None
        wait = self._next - time.monotonic()
        if wait > 0:
            time.sleep(wait)  # the camera's next exposure
        self._next += self.period
        t = self.clock.now()
        img = cv2.imdecode(np.frombuffer(self.pick(self.frames, self.index), np.uint8), cv2.IMREAD_COLOR)
        frame = CameraFrame(self.name, self.index, t, img)
        self.index += 1
        return frame


def worker(
    variant: str,
    n: int,
    seconds: float,
    fps: float,
    ort_threads: int,
    moving: bool = False,
    card_fps: float | None = None,
    busy: bool = False,
    people_fps: float | None = None,
    rates: tuple[float, float, float] | None = None,
) -> dict:
    positions, truth = card_frames(n, busy)
    people = people_frames(60, moving)
    options: dict[str, Any] = {"deck": "beccato", "fps": card_fps, "threads": ort_threads}
    options["read_once"] = variant in ("parallel", "parallel-detect", "process")
    options["still_frames"] = variant != "parallel-detect"
    people_only = variant == "people-only"
    card: Any = None if people_only else CardStage("cards", **options)
    calib = TableCalibration(quadrant_seats(["ana", "bruno", "carla", "dario"], 2, 2))
    model_rates = None if rates is None else Rates(face=rates[0], hands=rates[1], pose=rates[2])
    signal = SignalStage("people", calib, fps=people_fps, rates=model_rates)
    # warm-up: the models load and start before the clock does
    for i in range(2):
        img = cv2.imdecode(np.frombuffer(positions[0][i % len(positions[0])], np.uint8), cv2.IMREAD_COLOR)
        if card is not None:
            card(CameraFrame("cards", -2 + i, 0.0, img))
        img = cv2.imdecode(np.frombuffer(people[i], np.uint8), cv2.IMREAD_COLOR)
        signal(CameraFrame("people", -2 + i, 0.0, img))
    # The cards lie on the cloth before the measured window (read during the warm-up, as on a
    # table that has been running): the window measures the steady state, one card picked up and
    # put down every half second.
    still, frames = (None, None) if card is None else (card.still, card.frames)
    read0 = (still.read, still.reused) if still is not None else (0, 0)
    runs0 = (frames.detected, frames.skipped) if frames is not None else (0, 0)
    if variant == "process":  # the card stage in a process of its own, warmed up the same way
        card = ProcessStage("cards", functools.partial(CardStage, "cards", **options), max_size=(W, H))
        for i in range(2):
            card(
                CameraFrame(
                    "cards", -2 + i, 0.0, cv2.imdecode(np.frombuffer(positions[0][i % len(positions[0])], np.uint8), 1)
                )
            )
        child0 = card.usage()
    half = max(1, int(round(fps / 2)))
    count = int(round(seconds * fps))
    clock = SessionClock()
    cams = [
        Camera(
            "cards",
            positions,
            fps,
            count,
            clock,
            (lambda fr, i: fr[i % BUSY_STEPS][0]) if busy else (lambda fr, i: fr[(i // half) % 2][i % NOISE_FRAMES]),
        ),
        Camera("people", people, fps, count, clock, lambda fr, i: fr[i % len(fr)]),
    ][people_only:]
    grabbers = [Grabber(c, lost_after=30.0) for c in cams]
    latency: dict[str, list[float]] = {c.name: [] for c in cams}
    named: list[int] = []
    processed = {c.name: 0 for c in cams}
    stage_dropped = 0

    def score(obs) -> None:
        got = [r.card for r in obs.cards if r.card]
        right = 0
        for key in truth:
            if key in got:
                got.remove(key)
                right += 1
        named.append(right)

    r0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    for g in grabbers:
        g.start()
    if variant == "sequential":
        # today's loop (tablereferee.run: _live_items and Perception): the newest frame of each
        # camera in turn, its stages one after the other
        while not all(g.done for g in grabbers):
            took = False
            for g in grabbers:
                f = g.latest()
                if f is None:
                    continue
                took = True
                if f.camera == "cards":
                    obs = card(f)
                    score(obs)
                else:
                    signal(f)
                latency[f.camera].append(clock.now() - f.t)
                processed[f.camera] += 1
            if not took:
                grabbers[0].wait(0.005)
    else:
        cards = {} if card is None else {"cards": card}
        with StagePipeline(table_stages(cards, {"people": signal}), clock=clock.now) as pipe:
            for out in follow(grabbers, pipe):
                latency[out.camera].append(out.latency or 0.0)  # the pipeline has the clock: never None
                processed[out.camera] += 1
                if out.camera == "cards":
                    score(out.observations[0])
            stage_dropped = pipe.dropped
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    for g in grabbers:
        g.stop()
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if variant == "process":
        child1 = card.usage()
        cpu += child1["cpu_s"] - child0["cpu_s"]
        rss += child1["peak_rss_mb"]  # the two processes' peaks added: at most what they held together
        card.close()
    every = [x for v in latency.values() for x in v]
    # each model's turns a seat a second in the window (a turn: measured, or kept on a still view)
    window = [fr for fr in signal.landmarks if fr.t > 0]
    seat_rates = {
        m: round(sum(getattr(p, f"{m}_t") == fr.t for fr in window for p in fr.persons) / len(calib.seats) / wall, 1)
        for m in ("face", "hands", "pose")
    }
    signal.close()
    return {
        "variant": variant,
        "cards": n,
        "wall_s": round(wall, 3),
        "frames_offered": count,
        "fps": {cam: round(processed[cam] / wall, 2) for cam in processed},
        "table_fps": round(min(processed.values()) / wall, 2),
        "cpu_cores": round(cpu / wall, 2),
        "latency_ms": {
            "p50": round(1000 * float(np.percentile(every, 50)), 1),
            "p95": round(1000 * float(np.percentile(every, 95)), 1),
            **{f"{cam}_p95": round(1000 * float(np.percentile(v, 95)), 1) for cam, v in latency.items() if v},
        },
        "dropped": {"grabbers": sum(g.dropped for g in grabbers), "busy_stages": stage_dropped},
        "peak_rss_mb": round(rss, 1),
        "cards_named_right": round(float(np.mean(named)), 2) if named else None,
        "cards_read": None
        if still is None or variant == "process"
        else {"read": still.read - read0[0], "reused": still.reused - read0[1]},
        "detector_runs": None
        if frames is None or variant == "process"
        else {"run": frames.detected - runs0[0], "skipped": frames.skipped - runs0[1]},
        "ort_threads": ort_threads,
        "moving_seats": 4 if moving else 2,
        "busy_cloth": busy,
        "seat_rates": seat_rates,
    }


def run_child(variant: str, n: int, args) -> dict:
    cmd = (
        [
            sys.executable,
            __file__,
            "--worker",
            variant,
            "--cards",
            str(n),
            "--seconds",
            str(args.seconds),
            "--fps",
            str(args.fps),
            "--ort-threads",
            str(args.ort_threads),
        ]
        + ["--moving"] * args.moving
        + ["--busy-cloth"] * args.busy_cloth
        + ([f"--card-fps={args.card_fps}"] if args.card_fps else [])
        + ([f"--people-fps={args.people_fps}"] if args.people_fps else [])
        + (["--rates", *map(str, args.rates)] if args.rates else [])
    )
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=ROOT)
    if res.returncode != 0:
        raise SystemExit(f"{variant} with {n} cards failed:\n{res.stderr[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def positive(text: str) -> float:
    """A rate given on the command line: a number above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text} is not a rate: give a number of times a second above 0")
    return value


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cards", type=int, nargs="+", default=[4, 10, 20])
    ap.add_argument("--seconds", type=float, default=6.0, help="of camera time per run")
    ap.add_argument("--fps", type=float, default=30.0, help="the cameras' frame rate")
    ap.add_argument("--repeat", type=int, default=3, help="rounds, baseline and new alternating")
    ap.add_argument("--variants", nargs="+", choices=VARIANTS, default=None)
    ap.add_argument("--ort-threads", type=int, default=2, help="onnxruntime threads of the card detector")
    ap.add_argument("--quick", action="store_true", help="4 and 20 cards, 3 s, one round, two variants")
    ap.add_argument("--json", default=None, help="write the figures here")
    ap.add_argument("--moving", action="store_true", help="every seat of the people camera moves")
    ap.add_argument(
        "--busy-cloth", action="store_true", help="the played card slides on every frame (nothing lies still)"
    )
    ap.add_argument(
        "--card-fps",
        type=positive,
        default=None,
        help="the card stage at most this many frames a second, as live (default: every frame it can take)",
    )
    ap.add_argument(
        "--people-fps",
        type=positive,
        default=None,
        help="the people stage at most this many frames a second (live: 10; default: every frame it can take)",
    )
    ap.add_argument(
        "--rates",
        type=positive,
        nargs=3,
        metavar=("FACE", "HANDS", "POSE"),
        default=None,
        help="each seat's model runs a second (default: the table's 15 12 5)",
    )
    ap.add_argument("--worker", choices=VARIANTS, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        print(
            json.dumps(
                worker(
                    args.worker,
                    args.cards[0],
                    args.seconds,
                    args.fps,
                    args.ort_threads,
                    args.moving,
                    args.card_fps,
                    args.busy_cloth,
                    args.people_fps,
                    tuple(args.rates) if args.rates else None,
                )
            )
        )
        return
    if args.quick:
        args.cards, args.seconds, args.repeat = [4, 20], 3.0, 1
    variants = args.variants or (["sequential", "parallel"] if args.quick else list(VARIANTS))
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    runs: dict[tuple[int, str], list[dict]] = {}
    for k in range(args.repeat):
        for n in args.cards:
            order = variants if k % 2 == 0 else variants[::-1]  # alternate who goes first
            for v in order:
                r = run_child(v, n, args)
                runs.setdefault((n, v), []).append(r)
                print(
                    f"round {k + 1} {n:2d} cards {v:15s} table {r['table_fps']:5.1f} fps {r['fps']} "
                    f"cpu {r['cpu_cores']:.2f} latency p50/p95 {r['latency_ms']['p50']}/{r['latency_ms']['p95']} ms "
                    f"rss {r['peak_rss_mb']} MB named {r['cards_named_right']}/{n} detector {r['detector_runs']} "
                    f"turns a seat a second {r['seat_rates']}",
                    file=sys.stderr,
                    flush=True,
                )
    report: dict = {
        "cores": cores,
        "camera_fps": args.fps,
        "seconds": args.seconds,
        "rounds": args.repeat,
        "by_cards": {},
    }
    base = variants[0] if "sequential" not in variants else "sequential"
    for n in args.cards:
        row: dict = {}
        for v in variants:
            rs = runs[(n, v)]
            med = statistics.median
            row[v] = {
                "table_fps": med(r["table_fps"] for r in rs),
                "fps": {cam: med(r["fps"][cam] for r in rs) for cam in rs[0]["fps"]},
                "cpu_cores": med(r["cpu_cores"] for r in rs),
                "latency_p50_ms": med(r["latency_ms"]["p50"] for r in rs),
                "latency_p95_ms": med(r["latency_ms"]["p95"] for r in rs),
                "peak_rss_mb": med(r["peak_rss_mb"] for r in rs),
                "cards_named_right": med(named)
                if (named := [r["cards_named_right"] for r in rs if r["cards_named_right"] is not None])
                else None,
                "dropped": rs[-1]["dropped"],
                "cards_read": rs[-1]["cards_read"],
                "detector_runs": rs[-1]["detector_runs"],
            }
            if v != base:
                ratios = [a["table_fps"] / b["table_fps"] for a, b in zip(rs, runs[(n, base)]) if b["table_fps"]]
                row[v]["fps_vs_" + base] = {
                    "median": round(med(ratios), 2),
                    "rounds": [round(x, 2) for x in ratios],
                }
        report["by_cards"][str(n)] = row
    print(f"{cores} cores, cameras at {args.fps:g} fps, {args.seconds:g} s a run, {args.repeat} round(s)")
    print(f"{'cards':>5} {'variant':15} {'table fps':>9} {'ratio':>6} {'cpu':>5}", "p50 ms  p95 ms  RSS MB named")
    for n in args.cards:
        for v in variants:
            x = report["by_cards"][str(n)][v]
            ratio = x.get(f"fps_vs_{base}", {}).get("median", 1.0)
            print(
                f"{n:5d} {v:15} {x['table_fps']:9.2f} {ratio:6.2f} {x['cpu_cores']:5.2f} {x['latency_p50_ms']:7.1f} "
                f"{x['latency_p95_ms']:7.1f} {x['peak_rss_mb']:7.0f} {x['cards_named_right']}/{n}"
            )
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
