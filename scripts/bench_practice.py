#!/usr/bin/env python
"""Practice benchmarks, all measured in one run on this machine.

* **Camera to verdict** (loopback): the real gesture clip's frames at 10 a second, shrunk to
  640x360 as the practice page sends them, posted one at a time as JPEGs to a real server on
  127.0.0.1 (`/api/practice/drill/{id}/frame`), timed from the JPEG in hand to the verdict
  back: median and 90th percentile, against the same frames read in-process by the same
  `Drill` (no HTTP: the baseline) and a bare loopback request (`GET /api/practice/cards`);
  and the ratio HTTP / in-process. Goal: under 300 ms.
* **Drill frames per second**: frames read a second when posted back to back.
* **Rehearsal timing** (loopback, a refereed table whose Reds' card is the raise): rounds in
  which the gesture clip is "filmed" in real time (each frame's time is when it was taken) and
  the teammate's tap is sent the moment the referee has read the raise; the reaction the
  server measures against the one the client knows (both on this machine's monotonic clock):
  the error is the tap's upload less the fastest frame's. And the tap's own round trip
  (`POST /api/practice/rehearsal/{id}/seen`) against a bare request.
* **Quiz from a recorded session**: the first round (which cuts the session's clips), a later
  round, and one clip frame, against a bare request. The session is the demo's (`referee demo`,
  made here unless `--session DIR` names one).
* **Detection delay per signal**: on the landmark-stream suite (tests/signals/signal_streams.py,
  real MediaPipe points moved along scripted gestures, one case per signal), the detection is
  rerun as each frame arrives, as a drill does; the delay is from the event's start to the
  first frame whose detection holds it.

    .venv/bin/python scripts/bench_practice.py [--seconds 4] [--rounds 5] [--session DIR] [--out bench.json]
"""

from __future__ import annotations

import argparse
import json
import shutil
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
TABLE_SERVER = """
import sys
from pathlib import Path
import uvicorn
from referee.scorekeeper import Scorekeeper
from tablereferee.web import TableHub, create_app
from tablereferee.web.auth import Tokens

port, sessions, practice = int(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
setup = {"players": ["Anna", "Bruno", "Carla", "Dario"],
         "teams": {"Reds": ["Anna", "Carla"], "Blues": ["Bruno", "Dario"]},
         "signals": {"Reds": "raise_hand_right", "Blues": "wink_left"}}
keeper = Scorekeeper.start("beccato", setup, practice / "table.db", time=1000.0)
hub = TableHub(keeper, tokens=Tokens(code="BENCH1", pins={"Reds": "1111", "Blues": "2222"}))
app = create_app(hub, sessions_dir=sessions)
app.state.practice_dir = practice
uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
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


def _serve(script: str, *args: str) -> tuple[subprocess.Popen, str]:
    port = _port()
    proc = subprocess.Popen([sys.executable, "-c", script, str(port), *args], cwd=ROOT)
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, f"http://127.0.0.1:{port}"
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                raise RuntimeError("the practice server did not start") from None
            time.sleep(0.05)  # a retry of the connection


def _bare(c: httpx.Client, n: int = 30) -> list[float]:
    out = []
    for _ in range(n):
        a = time.perf_counter()
        c.get("/api/practice/cards").raise_for_status()
        out.append((time.perf_counter() - a) * 1000)
    return out


def rehearsal(frames: list[tuple[float, bytes]], sessions: Path, folder: Path, rounds: int) -> dict:
    proc, url = _serve(TABLE_SERVER, str(sessions), str(folder))
    try:
        with httpx.Client(base_url=url, timeout=60) as c:
            token = c.post("/api/teams/Reds/unlock", json={"pin": "1111"}).json()["token"]
            c.headers["Authorization"] = f"Bearer {token}"
            bare = _bare(c)
            body = {"team": "Reds", "signaller": "Anna", "spotter": "Carla", "window": 8.0}
            r = c.post("/api/practice/rehearsal", json=body).json()
            taps = []
            for _ in range(30):  # the tap's round trip (taps before any frame: early ones)
                a = time.perf_counter()
                c.post(f"/api/practice/rehearsal/{r['rehearsal']}/seen").raise_for_status()
                taps.append((time.perf_counter() - a) * 1000)
            c.post(f"/api/practice/rehearsal/{r['rehearsal']}/finish").raise_for_status()
            errors, measured = [], []
            for _ in range(rounds):
                r = c.post("/api/practice/rehearsal", json=body).json()
                began = time.monotonic()
                tapped_at = None
                while (t := time.monotonic() - began) <= min(frames[-1][0], 3.2):  # filmed in real time
                    jpeg = min(frames, key=lambda f: abs(f[0] - t))[1]
                    out = c.post(f"/api/practice/drill/{r['drill']}/frame", params={"t": t}, content=jpeg).json()
                    if out["seen"] and tapped_at is None:
                        tapped_at = time.monotonic()
                        c.post(f"/api/practice/rehearsal/{r['rehearsal']}/seen").raise_for_status()
                res = c.post(f"/api/practice/rehearsal/{r['rehearsal']}/finish").json()["result"]
                if tapped_at is None or res["reaction"] is None:
                    continue
                true = tapped_at - (began + res["gesture_start"])
                measured.append(res["reaction"])
                errors.append((res["reaction"] - true) * 1000)
        return {
            "tap_ms": _pct(taps, 50),
            "tap_p90_ms": _pct(taps, 90),
            "bare_request_ms": _pct(bare, 50),
            "tap_over_bare": round(_pct(taps, 50) / _pct(bare, 50), 3),
            "rounds": rounds,
            "rounds_timed": len(errors),
            "reaction_s_median": round(float(np.median(measured)), 3) if measured else None,
            "reaction_error_ms_median": _pct(errors, 50) if errors else None,
            "reaction_error_ms_max_abs": round(max(abs(e) for e in errors), 1) if errors else None,
        }
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def quiz(sessions: Path, folder: Path) -> dict:
    proc, url = _serve(TABLE_SERVER, str(sessions), str(folder))
    try:
        with httpx.Client(base_url=url, timeout=120) as c:
            token = c.post("/api/teams/Reds/unlock", json={"pin": "1111"}).json()["token"]
            c.headers["Authorization"] = f"Bearer {token}"  # the raise is the Reds' secret on this table
            bare = _bare(c)
            a = time.perf_counter()
            first = c.get("/api/practice/quiz", params={"n": 20}).json()
            cut_ms = (time.perf_counter() - a) * 1000
            later = []
            for _ in range(10):
                a = time.perf_counter()
                c.get("/api/practice/quiz", params={"n": 20}).raise_for_status()
                later.append((time.perf_counter() - a) * 1000)
            frame = []
            for clip in first["clips"]:
                for k in range(clip["frames"]):
                    a = time.perf_counter()
                    c.get(f"/api/practice/quiz/clips/{clip['clip']}/{k}.jpg").raise_for_status()
                    frame.append((time.perf_counter() - a) * 1000)
        return {
            "clips": len(first["clips"]),
            "first_round_ms": round(cut_ms, 1),
            "later_round_ms": _pct(later, 50),
            "frame_ms": _pct(frame, 50),
            "bare_request_ms": _pct(bare, 50),
            "later_round_over_bare": round(_pct(later, 50) / _pct(bare, 50), 3),
        }
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def over_http(frames: list[tuple[float, bytes]], folder: Path) -> dict:
    proc, url = _serve(SERVER, str(folder))
    try:
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
    ap.add_argument("--rounds", type=int, default=5, help="rehearsal rounds to time")
    ap.add_argument("--session", type=Path, help="a recorded session folder for the quiz (default: the demo's)")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    frames = clip_jpegs(args.seconds)
    base = in_process(frames)
    with tempfile.TemporaryDirectory() as tmp:
        http = over_http(frames, Path(tmp))
        sessions = Path(tmp) / "sessions"
        sessions.mkdir()
        if args.session:
            shutil.copytree(args.session, sessions / args.session.name)
        else:
            subprocess.run(
                [sys.executable, "-m", "tablereferee.cli", "demo", "--out", str(sessions / "demo"), "--no-clip"],
                cwd=ROOT,
                check=True,
                capture_output=True,
            )
        (Path(tmp) / "q").mkdir()
        (Path(tmp) / "r").mkdir()
        quizzing = quiz(sessions, Path(tmp) / "q")
        rehearsing = rehearsal(frames, Path(tmp) / "r", Path(tmp) / "r", args.rounds)
    delays = detection_delays()
    report = {
        "frames": len(frames),
        "in_process": {k: v for k, v in base.items() if k != "verdict"},
        "http": http,
        "http_over_in_process": round(http["median_ms"] / base["median_ms"], 3),
        "goal_ms": 300,
        "under_goal": http["median_ms"] < 300,
        "rehearsal": rehearsing,
        "quiz": quizzing,
        "detection_delay_s": delays,
    }
    print(json.dumps(report, indent=2))
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
