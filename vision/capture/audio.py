"""The table microphone in a live session: recorded in WAV segments and listened to in chunks.

`LiveAudio(blocks, folder)` takes the microphone's blocks (`vision.audio.sources.Microphone
.blocks()`, `AudioClip`s stamped on the session clock) on its own thread, writes them to
`folder/seg_<ms>.wav` segments (16 kHz mono, 16-bit; a segment is closed every
`segment_seconds`, so a killed process loses at most the open one), and every `chunk` seconds
runs the audio path (`vision.audio.pipeline.AudioListener`) over the chunk; the events it finds
(hum, mumble, talk and its topics) wait in `take_events()` for the table. An event that spans
two chunks is reported in two parts.

`analyse_apart(clip)`: the audio path over a recorded microphone in a process of its own, so
that its libraries and models (Praat, SciPy's signal tools, Silero, PocketSphinx: about 200 MB)
are given back when it is done, before the video stages load theirs.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
import time
import wave
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from referee.core import RefereeError
from referee.observations import SignalEvent
from vision.audio.pipeline import AudioListener
from vision.audio.sources import SAMPLE_RATE, AudioClip


class LiveAudio:
    def __init__(
        self,
        blocks: Iterable[AudioClip],
        folder: str | Path,
        chunk: float = 8.0,
        segment_seconds: float = 10.0,
        listener: AudioListener | None = None,
    ) -> None:
        self.blocks = blocks
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.chunk, self.segment_seconds = chunk, segment_seconds
        self.listener = listener
        self._events: list[SignalEvent] = []
        self._lock = threading.Lock()
        self.error: Exception | None = None
        self.seconds = 0.0
        self._wav: wave.Wave_write | None = None
        self._seg_start = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="microphone", daemon=True)

    def start(self) -> LiveAudio:
        self._thread.start()
        return self

    def _write(self, clip: AudioClip) -> None:
        wav = self._wav
        if wav is None or clip.start - self._seg_start >= self.segment_seconds:
            self._close_segment()
            self._seg_start = clip.start
            wav = self._wav = wave.open(str(self.folder / f"seg_{int(round(clip.start * 1000)):09d}.wav"), "wb")
            wav.setnchannels(1)
            wav.setsampwidth(2)
            wav.setframerate(SAMPLE_RATE)
        wav.writeframes((np.clip(clip.samples, -1, 1) * 32767).astype("<i2").tobytes())

    def _close_segment(self) -> None:
        if self._wav is not None:
            self._wav.close()
            self._wav = None

    def _run(self) -> None:
        listener = self.listener or AudioListener()
        pending: list[AudioClip] = []
        try:
            for clip in self.blocks:
                if self._stop.is_set():
                    break
                self._write(clip)
                pending.append(clip)
                if pending[-1].end - pending[0].start >= self.chunk:
                    self._analyse(listener, AudioClip(np.concatenate([c.samples for c in pending]), pending[0].start))
                    pending = []
            if pending:
                self._analyse(listener, AudioClip(np.concatenate([c.samples for c in pending]), pending[0].start))
        except Exception as exc:  # a microphone that fails is reported, the table goes on
            self.error = exc
        finally:
            self._close_segment()

    def _analyse(self, listener: AudioListener, clip: AudioClip) -> None:
        t0 = time.perf_counter()
        events = listener.analyse(clip).events
        self.seconds += time.perf_counter() - t0
        with self._lock:
            self._events.extend(events)

    def take_events(self) -> list[SignalEvent]:
        with self._lock:
            out, self._events = self._events, []
        return out

    def stop(self, timeout: float | None = 30.0) -> None:
        """Stop after the block being read; the chunk so far is still listened to."""
        self._stop.set()
        self._thread.join(timeout)


class AudioPathFailed(RefereeError):
    """The audio path's own process (`analyse_apart`) could not answer: it failed or died."""


def _events_of(clip: AudioClip) -> tuple[list[SignalEvent], float]:
    t0 = time.perf_counter()
    events = list(AudioListener().analyse(clip).events)
    return events, time.perf_counter() - t0


def _child() -> None:
    """The process of `analyse_apart`: a pickled clip in on stdin, its events out on stdout."""
    clip = pickle.load(sys.stdin.buffer)
    answer = os.fdopen(os.dup(1), "wb")  # the events go here; whatever a library prints, to stderr
    os.dup2(2, 1)
    out = _events_of(clip)
    sys.stdout.flush()
    answer.write(pickle.dumps(out))
    answer.close()


def analyse_apart(clip: AudioClip, timeout: float | None = None) -> tuple[list[SignalEvent], float]:
    """The events of `clip` (`AudioListener().analyse(clip).events`, the same ones) found in a
    process of its own that ends with it (a fresh interpreter: nothing of the caller's is
    imported or run again there), and its seconds of analysis. `AudioPathFailed` when it fails
    or takes longer than `timeout` (default: 10 minutes, or 3 times the clip's length if longer)."""
    if timeout is None:
        timeout = max(600.0, 3.0 * len(getattr(clip, "samples", ())) / SAMPLE_RATE)
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, *filter(None, [os.environ.get("PYTHONPATH")])])}
    code = "import sys; from vision.capture.audio import _child; _child()"
    try:
        res = subprocess.run(
            [sys.executable, "-c", code], input=pickle.dumps(clip), capture_output=True, timeout=timeout, env=env
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise AudioPathFailed(f"the audio path did not answer ({type(exc).__name__})") from None
    if res.returncode != 0:
        tail = res.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
        raise AudioPathFailed(f"the audio path failed: {tail[0]}", returncode=res.returncode)
    try:
        events, seconds = pickle.loads(res.stdout)
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError):
        raise AudioPathFailed("the audio path answered nothing readable") from None
    return list(events), float(seconds)
