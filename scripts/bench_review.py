"""The review and the instant challenge, timed on the demo session (2 cores at most).

    nice .venv/bin/python scripts/bench_review.py [--session DIR] [--rounds 3] [--no-browser] [--no-package]

Measures, in the same run:
  challenge  from the call to a challenge ready (the buffer's snapshot, the cue, the phases, and
             the first frame of every camera drawn), while a thread keeps feeding the buffer at
             the cameras' own rate (the table keeps running); then every frame drawn. Goal < 2 s.
             Baseline: the same frames decoded from the recorded segments (what a clip made
             from the video costs before drawing anything).
  seek       the review page in Chromium: a jump to a random frame (seek until `seeked`) against
             one step to the next frame, alternated, median ms.
  package    `make_dispute` of the Coccodé with the stored tracks against the same session with
             its tracks folder removed (the landmarks found again by MediaPipe), alternated.
Without --session, `referee demo --no-clip` makes the session first.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

ROOT = Path(__file__).resolve().parents[1]
TIMED = "async (t) => {{ const a = performance.now(); await {}; return performance.now() - a; }}"


def two_cores() -> None:
    if hasattr(os, "sched_setaffinity"):
        cpus = sorted(os.sched_getaffinity(0))[:2]
        os.sched_setaffinity(0, cpus)


def make_demo(base: Path) -> Path:
    out = base / "demo"
    subprocess.run(
        [sys.executable, "-m", "tablereferee.cli", "demo", "--out", str(out), "--no-clip", "--threads", "1"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    return out


def bench_challenge(session: Path, rounds: int) -> None:
    from tablereferee.challenge import Challenges, recorded_frames  # deferred: after the cores are set
    from tablereferee.recording.folder import read_segments  # deferred: as above

    items = recorded_frames(session)
    ready, full, baseline = [], [], []
    for _ in range(rounds):
        challenges = Challenges(predraw=False)  # drawn here, serially, to time it
        challenges.teams_from_session(session)
        before = [x for x in items if x[0].t <= 4.5]
        after = [x for x in items if x[0].t > 4.5]
        for frame, obs, lm in before:
            challenges.buffer.add(frame, obs, lm)
        stop = threading.Event()

        def keep_running(rest=after, buffer=challenges.buffer, stop=stop) -> None:  # the table goes on
            began, t0 = time.perf_counter(), rest[0][0].t if rest else 0.0
            for frame, obs, lm in rest:
                if stop.is_set():
                    return
                wait = (frame.t - t0) - (time.perf_counter() - began)
                if wait > 0:
                    stop.wait(wait)
                buffer.add(frame, obs, lm)

        feeder = threading.Thread(target=keep_running, daemon=True)
        feeder.start()
        called = time.perf_counter()
        made = challenges.open("Bruno", by="Anna", at=4.5)
        for cam in made.frames:
            made.jpeg(cam, 0)
        ready.append(time.perf_counter() - called)
        for cam, kept in made.frames.items():
            for i in range(len(kept)):
                made.jpeg(cam, i)
        full.append(time.perf_counter() - called)
        stop.set()
        feeder.join()
        t0 = time.perf_counter()
        for cam in made.frames:
            for t, _ in read_segments(session / "cameras" / cam):
                if t > 4.5:
                    break
        baseline.append(time.perf_counter() - t0)
    frames = sum(len(k) for k in made.frames.values())
    print(f"challenge ready after the call: median {statistics.median(ready) * 1000:.1f} ms (goal < 2000 ms)")
    print(f"  every frame drawn ({frames} frames): median {statistics.median(full) * 1000:.0f} ms")
    print(f"  baseline, the same frames decoded from the MP4 segments: {statistics.median(baseline) * 1000:.0f} ms")
    print(f"  ready / baseline: {statistics.median(ready) / statistics.median(baseline):.3f}")


def bench_seek(session: Path, rounds: int) -> None:
    from playwright.sync_api import sync_playwright  # deferred: only the browser part (--no-browser skips it)

    from tests.web.browser import CHROMIUM, FLAGS  # deferred: as above

    proc = subprocess.Popen(
        [sys.executable, "-m", "tablereferee.web.review", str(session.parent), "--port", "0"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        url = line.split()[-1]
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS, headless=True)
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(f"{url}/review#s={session.name}")
            page.wait_for_selector("body[data-ready=true]", timeout=60_000)
            frames = page.evaluate("() => window.review.state.master.frames")
            rng = random.Random(7)
            jumps, steps = [], []
            for _ in range(rounds * 10):
                t = rng.choice(frames)
                jumps.append(
                    page.evaluate(
                        TIMED.format("window.review.seek(t)"),
                        t,
                    )
                )
                steps.append(page.evaluate(TIMED.format("window.review.step(1)")))
            browser.close()
    finally:
        proc.terminate()
        proc.wait(10)
    print(f"seek to a random frame (every camera): median {statistics.median(jumps):.1f} ms, max {max(jumps):.1f} ms")
    print(f"  one frame forward: median {statistics.median(steps):.1f} ms")
    print(f"  jump / step: {statistics.median(jumps) / statistics.median(steps):.2f}")


def bench_package(session: Path, rounds: int, base: Path) -> None:
    from tablereferee.recording.clip import make_dispute  # deferred: only the package part (OpenCV, MediaPipe)

    bare = base / "no-tracks"
    shutil.copytree(session, bare)
    shutil.rmtree(bare / "tracks")
    stored, again = [], []
    for r in range(rounds):
        for which, folder, out in ((stored, session, base / f"p{r}a"), (again, bare, base / f"p{r}b")):
            t0 = time.perf_counter()
            make_dispute(folder, 11, out=out, force=True)
            which.append(time.perf_counter() - t0)
    print(f"dispute package of the Coccodé, stored tracks: median {statistics.median(stored):.2f} s")
    print(f"  tracks removed (perception run again): median {statistics.median(again):.2f} s")
    print(f"  stored / again: {statistics.median(stored) / statistics.median(again):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--session")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--no-package", action="store_true")
    args = parser.parse_args()
    two_cores()
    with tempfile.TemporaryDirectory(prefix="bench-review-") as tmp:
        base = Path(tmp)
        session = Path(args.session) if args.session else make_demo(base)
        bench_challenge(session, args.rounds)
        if not args.no_browser:
            bench_seek(session, args.rounds)
        if not args.no_package:
            bench_package(session, args.rounds, base)


if __name__ == "__main__":
    main()
