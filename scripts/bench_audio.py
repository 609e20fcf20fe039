"""Real-time factor of the audio path (processing seconds per second of audio; < 1 keeps up).

    .venv/bin/python scripts/bench_audio.py [--repeat 3] [--minutes 1]

Runs on at most 2 cores (sched_setaffinity). Measures, on the same audio in the same run:
  decode     reading the WAV with PyAV and resampling (baseline 1)
  classifier features (Praat pitch, spectra, Silero VAD) + classifier + HMM (baseline 2)
  recognizer PocketSphinx decoding all of the audio, hums and silences too (baseline 3: what
             the path would cost without the classifier choosing what to decode)
  whole      load + classify + recognize the speech + topics + events (what `referee audio` does)
and prints each real-time factor and the whole path as a ratio of each baseline.

`--beside-video`: the whole path measured again while the table's video stages run beside it
(another process refereeing the demo session's cameras over and over, its sounds off: the
card stage and the signal stage side by side, as a live table runs them), alternating with
and without them; their real-time factors (median of the rounds) and their ratio.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "audio")


def best_of(fn, repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times), statistics.median(times)


VIDEO = """
import sys, tempfile, pathlib
from tablereferee.recording.folder import SessionFolder
from tablereferee.run import TableConfig, run_recorded
src = SessionFolder.open("datasets/demo")
config = TableConfig.from_manifest(src.manifest)
config.audio = False
print("ready", flush=True)
k = 0
with tempfile.TemporaryDirectory() as tmp:
    while True:
        run_recorded(src.path, pathlib.Path(tmp) / str(k), config, copy_media=False).session.close()
        k += 1
"""


def video_beside() -> subprocess.Popen:
    """The table's video stages, refereeing the demo over and over in a process of its own."""
    root = os.path.join(os.path.dirname(__file__), "..")
    proc = subprocess.Popen(
        [sys.executable, "-c", VIDEO],
        cwd=root,
        env={**os.environ, "PYTHONPATH": root},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--minutes", type=float, default=1.0, help="length of the test audio")
    ap.add_argument(
        "--audio",
        default="session.wav",
        help="fixture repeated to that length: session.wav (about a fifth talk) or "
        "speech_en_sport.wav (mostly talk: the recognizer's worst case)",
    )
    ap.add_argument("--beside-video", action="store_true", help="also with the video stages running beside it")
    args = ap.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        cpus = sorted(os.sched_getaffinity(0))[:2]
        os.sched_setaffinity(0, cpus)
    from vision.audio import sources  # deferred: the audio stack loads once the process is pinned to two cores
    from vision.audio.pipeline import AudioListener  # deferred: as above
    from vision.audio.recognize import english  # deferred: as above

    fixture = os.path.join(FIXTURES, args.audio)
    base = sources.load(fixture)
    reps = int(np.ceil(args.minutes * 60 / base.duration))
    clip = sources.AudioClip(np.tile(base.samples, reps))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.wav")
        sources.save_wav(clip, path)
        listener = AudioListener()
        quick = AudioListener(recognize=False)
        rec = english()
        listener.analyse(sources.load(path))  # warm up: models loaded once per process
        secs = clip.duration
        results = {
            "decode": best_of(lambda: sources.load(path), args.repeat),
            "classifier": best_of(lambda: quick.classify(clip), args.repeat),
            "recognizer": best_of(lambda: rec.words(clip), args.repeat),
            "whole": best_of(lambda: listener.analyse(sources.load(path)), args.repeat),
        }
    print(
        f"audio: {secs:.1f} s ({reps} x {args.audio}), cores: "
        f"{len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count()}, "
        f"best and median of {args.repeat}"
    )
    print(f"{'stage':11s} {'seconds':>8s} {'RTF':>7s} {'RTF med':>8s}")
    for name, (best, med) in results.items():
        print(f"{name:11s} {best:8.2f} {best / secs:7.3f} {med / secs:8.3f}")
    whole = results["whole"][0]
    for name in ("decode", "classifier", "recognizer"):
        print(f"whole / {name:10s} = {whole / results[name][0]:6.2f}")
    if args.beside_video:
        alone: list[float] = []
        beside: list[float] = []
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bench.wav")
            sources.save_wav(clip, path)
            for k in range(args.repeat):
                for with_video in (False, True) if k % 2 == 0 else (True, False):
                    proc = video_beside() if with_video else None
                    try:
                        t = time.perf_counter()
                        listener.analyse(sources.load(path))
                        (beside if with_video else alone).append((time.perf_counter() - t) / secs)
                    finally:
                        if proc is not None:
                            proc.kill()
                            proc.wait()
        ratios = [b / a for a, b in zip(alone, beside)]
        print(
            f"whole path RTF alone {statistics.median(alone):.3f}, beside the video stages "
            f"{statistics.median(beside):.3f} ({statistics.median(ratios):.2f}x; "
            f"rounds {[round(x, 3) for x in beside]})"
        )


if __name__ == "__main__":
    main()
