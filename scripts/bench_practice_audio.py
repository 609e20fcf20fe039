#!/usr/bin/env python
"""Audible drill benchmarks, all measured in one run on this machine (docs/practice.md, "Audible drills").

* **Microphone chunk to verdict** (loopback): the real hum fixture in quarter-second chunks of
  16-bit PCM, as the practice page sends them, posted one at a time to a real server on
  127.0.0.1 (`/api/practice/audio-drill/{id}/audio`), timed from the chunk in hand to the
  verdict so far back: median and 90th percentile, against the same chunks fed in-process to
  the same `AudioDrill` (no HTTP: the baseline) and a bare loopback request
  (`GET /api/practice/audio-cards`); the ratio HTTP / in-process.
* **Real-time factor of the drill's audio path**: per fixture, the drill's processing time
  (every chunk's analysis and the verdict) over the audio's length, against the table
  microphone's own path analysing the whole clip once (`AudioListener().analyse`, the
  baseline); the ratio drill / whole.
* **Detection delay per audible signal**: from the event's start (its first loud frame) to the
  end of the chunk that first held it plus the server's time for that chunk, as the verdict
  reports it, and its audio part alone (the chunk's end less the event's start).

Rounds alternate HTTP and in-process and the fixtures' order; medians over the rounds are
reported (the machine is shared: its load moves every figure).

    .venv/bin/python scripts/bench_practice_audio.py [--rounds 3] [--out bench.json]
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
from typing import Any

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tablereferee.practice.audio_drill import AudioDrill  # noqa: E402
from vision.audio.pipeline import AudioListener  # noqa: E402
from vision.audio.sources import AudioClip, load  # noqa: E402

AUDIO = ROOT / "tests" / "fixtures" / "audio"
SR = 16_000
CHUNK = SR // 4
SERVER = """
import sys
import uvicorn
from fastapi import FastAPI
from tablereferee.web.practice_audio import router

app = FastAPI()
app.include_router(router)
app.state.practice_dir = sys.argv[2]
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""
# (name, fixture, card, table talk, seconds of the fixture's room added before it)
CASES = [
    ("hum", "hum.wav", "hum", False, 0.0),
    ("mumble", "mumble.wav", "mumble", False, 0.0),
    ("talk_sport", "speech_en_sport.wav", "talk_sport", False, 0.0),
    ("talk_tv", "speech_en_tv.wav", "talk_tv", False, 0.0),
    ("hum, others talking", "hum.wav", "hum", True, 2.5),
    ("mumble, others talking", "mumble.wav", "mumble", True, 2.5),
    ("silence for a hum", "silence_taps.wav", "hum", False, 0.0),
    ("quiet: game talk", "speech_en_game.wav", None, False, 0.0),
]


def samples(name: str, lead: float = 0.0) -> np.ndarray:
    x = load(AUDIO / name).samples
    if lead:
        x = np.concatenate([np.tile(x[:SR], int(lead) + 1)[: int(lead * SR)], x])
    return x


def pcm(x: np.ndarray) -> bytes:
    return (np.clip(x, -1, 1) * 32767).astype("<i2").tobytes()


def chunks(x: np.ndarray) -> list[bytes]:
    return [pcm(x[i : i + CHUNK]) for i in range(0, len(x), CHUNK)]


Timed = list[tuple[float, bool]]  # a chunk's milliseconds, and whether it completed a window (was analysed)


def in_process(x: np.ndarray, signal: str | None, table_talk: bool) -> tuple[Timed, float, dict]:
    """Each chunk's time through `add_pcm` (ms), the verdict's time (ms), and the verdict."""
    d = AudioDrill.start("bench", signal, quiet=signal is None, table_talk=table_talk, window=30)
    d.prepare()
    times: Timed = []
    windows = 0
    for c in chunks(x):
        t = time.perf_counter()
        live = d.add_pcm(c)
        times.append(((time.perf_counter() - t) * 1000, live["windows"] > windows))
        windows = live["windows"]
    t = time.perf_counter()
    v = d.finish()
    return times, (time.perf_counter() - t) * 1000, v


def over_http(http: httpx.Client, x: np.ndarray, signal: str) -> Timed:
    d = http.post("/api/practice/audio-drill", json={"player": "bench", "signal": signal, "window": 30}).json()
    times: Timed = []
    windows = 0
    for c in chunks(x):
        t = time.perf_counter()
        r = http.post(
            f"/api/practice/audio-drill/{d['drill']}/audio",
            content=c,
            headers={"Content-Type": "application/octet-stream"},
        )
        r.raise_for_status()
        times.append(((time.perf_counter() - t) * 1000, r.json()["windows"] > windows))
        windows = r.json()["windows"]
    http.post(f"/api/practice/audio-drill/{d['drill']}/finish").raise_for_status()
    return times


def serve() -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    folder = tempfile.mkdtemp(prefix="bench-practice-audio-")
    proc = subprocess.Popen([sys.executable, "-c", SERVER, str(port), folder], cwd=ROOT)
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, f"http://127.0.0.1:{port}"
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError("the server did not start") from None
            time.sleep(0.05)  # a retry of the connection


def q(xs: list[float], p: float) -> float:
    return float(np.percentile(xs, p)) if xs else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()

    proc, url = serve()
    nodelay = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
    http = httpx.Client(base_url=url, timeout=60, transport=httpx.HTTPTransport(socket_options=nodelay))
    hum = samples("hum.wav")
    try:
        http.get("/api/practice/audio-cards").raise_for_status()
        over_http(http, hum, "hum")  # warm-up: the models load once
        in_process(hum, "hum", False)
        lat_http: Timed = []
        lat_proc: Timed = []
        bare: list[float] = []
        rtf: dict[str, list[tuple[float, float]]] = {c[0]: [] for c in CASES}
        delays: dict[str, list[tuple[float | None, float | None, bool]]] = {c[0]: [] for c in CASES}
        for r in range(args.rounds):
            order = [over_http, in_process] if r % 2 == 0 else [in_process, over_http]
            for step in order:
                if step is over_http:
                    lat_http += over_http(http, hum, "hum")
                else:
                    lat_proc += in_process(hum, "hum", False)[0]
            for _ in range(20):
                t = time.perf_counter()
                http.get("/api/practice/audio-cards").raise_for_status()
                bare.append((time.perf_counter() - t) * 1000)
            cases = CASES if r % 2 == 0 else CASES[::-1]
            for name, fixture, card, talk, lead in cases:
                x = samples(fixture, lead)
                seconds = len(x) / SR
                times, verdict_ms, v = in_process(x, card, talk)
                drill = (sum(ms for ms, _ in times) + verdict_ms) / 1000 / seconds
                clip = AudioClip(x)
                t = time.perf_counter()
                AudioListener().analyse(clip)
                whole = (time.perf_counter() - t) / seconds
                rtf[name].append((drill, whole))
                right = v.get("clean") if card is None else v["heard"] == (fixture != "silence_taps.wav")
                delays[name].append((v["delay"], _audio_delay(v), bool(right)))
                print(f"round {r + 1} {name}: {v['words']}", flush=True)
    finally:
        http.close()
        proc.terminate()
        proc.wait(timeout=10)

    out: dict[str, Any] = {
        "chunk_to_verdict_ms": {
            **{
                f"{way}{part}": _stats([ms for ms, analysed in lat if keep(analysed)])
                for way, lat in (("http", lat_http), ("in_process", lat_proc))
                for part, keep in (("", lambda a: True), (" analysed", bool), (" not analysed", lambda a: not a))
            },
            "bare_request": _stats(bare),
        },
        "real_time_factor": {
            name: {
                "drill": float(np.median([a for a, _ in v])),
                "whole_clip_once": float(np.median([b for _, b in v])),
                "ratio": float(np.median([a / b for a, b in v])),
            }
            for name, v in rtf.items()
        },
        "delay_s": {
            name: {
                "delay": _median([d for d, _, _ in v]),
                "audio_part": _median([a for _, a, _ in v]),
                "right": sum(ok for _, _, ok in v),
                "rounds": len(v),
            }
            for name, v in delays.items()
        },
    }
    c = out["chunk_to_verdict_ms"]
    c["ratio_http_in_process"] = c["http"]["median"] / max(c["in_process"]["median"], 1e-9)
    c["ratio_http_in_process analysed"] = c["http analysed"]["median"] / max(c["in_process analysed"]["median"], 1e-9)
    print("\n| quarter-second chunk to verdict so far | median | p90 | chunks |\n|---|---|---|---|")
    for k, row in c.items():
        if isinstance(row, dict):
            print(f"| {k} | {row['median']:.1f} ms | {row['p90']:.1f} ms | {row['n']} |")
    print(
        f"| ratio HTTP / in-process (all; analysed) | {c['ratio_http_in_process']:.2f}; "
        f"{c['ratio_http_in_process analysed']:.2f} | | |"
    )
    print(
        "\n| fixture | drill RTF | whole clip once RTF | ratio | delay | audio part | right |"
        "\n|---|---|---|---|---|---|---|"
    )
    for name, _, _, _, _ in CASES:
        rt, d = out["real_time_factor"][name], out["delay_s"][name]
        fmt = lambda x: "-" if x is None else f"{x:.2f} s"  # noqa: E731
        print(
            f"| {name} | {rt['drill']:.3f} | {rt['whole_clip_once']:.3f} | {rt['ratio']:.2f} |"
            f" {fmt(d['delay'])} | {fmt(d['audio_part'])} | {d['right']}/{d['rounds']} |"
        )
    if args.out:
        args.out.write_text(json.dumps(out, indent=1))


def _audio_delay(v: dict) -> float | None:
    """The delay's audio part: the end of the chunk that first held the event, less its start."""
    if not v["heard"] or v.get("heard_in_audio") is None:
        return None
    return round(max(v["heard_in_audio"] - v["start"], 0.0), 3)


def _stats(xs: list[float]) -> dict[str, float]:
    return {"median": q(xs, 50), "p90": q(xs, 90), "n": len(xs)}


def _median(xs: list[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return round(float(np.median(vals)), 3) if vals else None


if __name__ == "__main__":
    main()
