#!/usr/bin/env python
"""Practice benchmarks, all measured in one run on this machine.

* **Camera to verdict** (loopback): the real gesture clip's frames at 10 a second, shrunk to
  640x360 as the practice page sends them, posted one at a time as JPEGs to a real server on
  127.0.0.1 (`/api/practice/drill/{id}/frame`), timed from the JPEG in hand to the verdict
  back: median and 90th percentile, against the same frames read in-process by the same
  `Drill` (no HTTP: the baseline) and a bare loopback request (`GET /api/practice/cards`);
  and the ratio HTTP / in-process. Goal: under 300 ms.
* **Drill frames per second**: frames read a second when posted back to back.
* **Detection delay per signal**: on the landmark-stream suite (tests/signals/signal_streams.py,
  real MediaPipe points moved along scripted gestures, one case per signal), the detection is
  rerun as each frame arrives, as a drill does; the delay is from the event's start to the
  first frame whose detection holds it.

    .venv/bin/python scripts/bench_practice.py [--seconds 4] [--out bench.json]
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2
import httpx
import numpy as np

from vision.signals.engine import detect_signals

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "signals"))
CLIP = ROOT / "tests" / "fixtures" / "people" / "mps_gesture_recognizer_test_video.mp4"
SERVER = """
import sys
import uvicorn
from fastapi import FastAPI
from tablereferee.web.practice import router

app = FastAPI()
app.include_router(router)
app.state.practice_dir = sys.argv[2]
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""


def clip_jpegs(seconds: float, fps: float = 10.0) -> list[tuple[float, bytes]]:
    cap = cv2.VideoCapture(str(CLIP))
    src = cap.get(cv2.CAP_PROP_FPS)
    out, i = [], 0
    while i / src <= seconds:
        ok, img = cap.read()
        if not ok:
            break
        if i % round(src / fps) == 0:
            small = cv2.resize(img, (640, 360), interpolation=cv2.INTER_AREA)
            out.append((i / src, cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 80])[1].tobytes()))
        i += 1
    cap.release()
    return out


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pct(xs: list[float], q: float) -> float:
    return round(float(np.percentile(xs, q)), 1)


def in_process(frames: list[tuple[float, bytes]]) -> dict:
    from tablereferee.practice.drill import Drill  # deferred: loads MediaPipe

    drill = Drill.start("Anna", "raise_hand_right")
    drill.prepare()
    times = []
    began = time.perf_counter()
    for t, jpeg in frames:
        a = time.perf_counter()
        drill.add_jpeg(jpeg, t)
        times.append((time.perf_counter() - a) * 1000)
    total = time.perf_counter() - began
    v = drill.finish()
    return {"median_ms": _pct(times, 50), "p90_ms": _pct(times, 90), "fps": round(len(frames) / total, 2), "verdict": v}


def over_http(frames: list[tuple[float, bytes]], folder: Path) -> dict:
    port = _port()
    proc = subprocess.Popen([sys.executable, "-c", SERVER, str(port), str(folder)], cwd=ROOT)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("the practice server did not start") from None
                time.sleep(0.05)  # a retry of the connection
        with httpx.Client(base_url=url, timeout=30) as c:
            bare = []
            for _ in range(30):
                a = time.perf_counter()
                c.get("/api/practice/cards").raise_for_status()
                bare.append((time.perf_counter() - a) * 1000)
            d = c.post("/api/practice/drill", json={"player": "Anna", "signal": "raise_hand_right"}).json()
            times, seen_at = [], None
            began = time.perf_counter()
            for t, jpeg in frames:
                a = time.perf_counter()
                r = c.post(
                    f"/api/practice/drill/{d['drill']}/frame",
                    params={"t": t},
                    content=jpeg,
                    headers={"content-type": "image/jpeg"},
                ).json()
                times.append((time.perf_counter() - a) * 1000)
                if r["seen"] and seen_at is None:
                    seen_at = t
            total = time.perf_counter() - began
            v = c.post(f"/api/practice/drill/{d['drill']}/finish").json()
        return {
            "median_ms": _pct(times, 50),
            "p90_ms": _pct(times, 90),
            "fps": round(len(frames) / total, 2),
            "bare_request_ms": _pct(bare, 50),
            "verdict": {k: v[k] for k in ("seen", "start", "delay", "recognised_at")},
            "nonchalance": v["nonchalance"]["score"],
        }
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def detection_delays() -> dict:
    import signal_streams as ss  # deferred: the suite's streams are built from MediaPipe points

    cases = {
        "raise_hand_right": ss._raise_case("base", "right"),
        "touch_nose_left": ss._touch_case("base", "left", "nose"),
        "touch_chin_right": ss._touch_case("base", "right", "chin", point=8, offset=(0.0, 0.05)),
        "touch_eye_left": ss._touch_case("base", "left", "eye_left"),
        "wink_left": ss._eye_case("base", {"left": 1.0}, expected=[("ana", "wink_left", 1.0, 1.35)]),
        "rest_elbow_right": ss._elbow_case("base", "right"),
        "tap_table_left": ss._tap_case("base", "left"),
    }
    out = {}
    for signal, case in cases.items():
        found = None
        for k in range(2, len(case.frames) + 1):
            evs = [e for e in detect_signals(case.frames[:k], case.calibration, only=[signal]) if e.signal == signal]
            if evs:
                found = (case.frames[k - 1].t, min(e.start for e in evs))
                break
        out[signal] = None if found is None else round(found[0] - found[1], 3)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=4.0, help="seconds of the gesture clip to send")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    frames = clip_jpegs(args.seconds)
    base = in_process(frames)
    with tempfile.TemporaryDirectory() as tmp:
        http = over_http(frames, Path(tmp))
    delays = detection_delays()
    report = {
        "frames": len(frames),
        "in_process": {k: v for k, v in base.items() if k != "verdict"},
        "http": http,
        "http_over_in_process": round(http["median_ms"] / base["median_ms"], 3),
        "goal_ms": 300,
        "under_goal": http["median_ms"] < 300,
        "detection_delay_s": delays,
    }
    print(json.dumps(report, indent=2))
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
