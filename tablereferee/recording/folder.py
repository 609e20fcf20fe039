"""A recorded session: one folder that holds everything a replay or a dispute needs.

    SESSION/
      session.json                 what was played and how it was seen (below)
      log.db                       the session log (SQLite, docs/log-format.md): every
                                   observation and action, on the session clock
      inputs.jsonl                 every line the scorekeeper typed, with its session time
      cameras/NAME/seg_<ms>.mp4    each camera's video in segments of `segment_seconds`
                                   (H.264 via PyAV); <ms> is the segment's start on the session
                                   clock, frame times are kept exactly (variable frame rate)
      audio.wav                    the table microphone (16 kHz mono), when there is one

`session.json`: `format` ("table-referee-session/1"), `created` (epoch seconds = the log's
clock origin), `game`, `setup`, `cameras` ({name: source, fps, size}), `zones`, `calibration`
(the body-signal seats, per camera), `options` (threshold, stage rates, deck), `models`
({name: path, sha256, bytes}), `versions` (referee, engine, python and key packages).

A segment is a complete MP4 once closed: a killed process loses at most the segment it was
writing (and the log loses nothing: every entry is its own transaction).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import platform
import threading
from collections.abc import Iterator, Mapping
from fractions import Fraction
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from referee.core import RefereeError
from vision.audio.sources import SAMPLE_RATE, AudioClip, load

if TYPE_CHECKING:
    from av.container import OutputContainer
    from av.video.stream import VideoStream

FORMAT = "table-referee-session/1"
MANIFEST = "session.json"
LOG = "log.db"
INPUTS = "inputs.jsonl"
AUDIO = "audio.wav"
CAMERAS = "cameras"


class SessionFolderError(RefereeError):
    """A session folder that is missing, not a session, or of another format."""


def sha256_of(path: str | os.PathLike[str]) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def model_record(path: str | os.PathLike[str]) -> dict[str, Any]:
    p = Path(path)
    if not p.is_file():
        return {"path": str(p), "missing": True}
    return {"path": str(p), "sha256": sha256_of(p), "bytes": p.stat().st_size}


def versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for pkg in ("table-referee", "numpy", "opencv-python-headless", "onnxruntime", "mediapipe", "av"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            pass
    return out


class SegmentWriter:
    """One camera's frames into MP4 segments of `segment_seconds` (H.264, PyAV).

    `write(t, image)`: t in session seconds. Frames keep their own times (pts in ms from the
    segment's start), so a camera that skipped frames or ran at 7 fps is replayed at the right
    moments. Thread-safe (a grabber thread writes while the table reads)."""

    def __init__(
        self,
        folder: str | os.PathLike[str],
        segment_seconds: float = 10.0,
        crf: int = 26,
        preset: str = "veryfast",
        max_fps: float | None = None,
    ) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.segment_seconds = float(segment_seconds)
        self.crf, self.preset, self.max_fps = crf, preset, max_fps
        self._lock = threading.Lock()
        self._container: OutputContainer | None = None
        self._stream: VideoStream | None = None
        self._t0 = 0.0
        self._last_pts = -1
        self._last_t: float | None = None
        self.segments: list[Path] = []
        self.frames = 0

    def _open(self, t: float, image: np.ndarray) -> None:
        import av  # deferred: PyAV loads FFmpeg (~0.1 s); only writing video needs it

        self._t0 = t
        path = self.folder / f"seg_{int(round(t * 1000)):09d}.mp4"
        self._container = av.open(str(path), mode="w")
        stream = self._container.add_stream("libx264", rate=30)
        stream.width, stream.height = image.shape[1] // 2 * 2, image.shape[0] // 2 * 2
        stream.pix_fmt = "yuv420p"
        stream.time_base = Fraction(1, 1000)
        stream.codec_context.time_base = Fraction(1, 1000)
        stream.options = {"crf": str(self.crf), "preset": self.preset}
        self._stream = stream
        self._last_pts = -1
        self.segments.append(path)

    def _close_segment(self) -> None:
        if self._container is not None and self._stream is not None:
            for packet in self._stream.encode(None):
                self._container.mux(packet)
            self._container.close()
            self._container = self._stream = None

    def write(self, t: float, image: np.ndarray) -> None:
        import av  # deferred: PyAV loads FFmpeg (~0.1 s); only writing video needs it

        with self._lock:
            if self.max_fps and self._last_t is not None and t - self._last_t < 1.0 / self.max_fps - 1e-6:
                return
            if self._container is None or t - self._t0 >= self.segment_seconds:
                self._close_segment()
                self._open(t, image)
            container, stream = self._container, self._stream
            assert container is not None and stream is not None  # _open made them
            pts = max(int(round((t - self._t0) * 1000)), self._last_pts + 1)
            h, w = stream.height, stream.width
            frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(image[:h, :w]), format="bgr24")
            frame.pts = pts
            frame.time_base = Fraction(1, 1000)
            for packet in stream.encode(frame):
                container.mux(packet)
            self._last_pts, self._last_t = pts, t
            self.frames += 1

    def close(self) -> None:
        with self._lock:
            self._close_segment()


def read_segments(folder: str | os.PathLike[str]) -> Iterator[tuple[float, np.ndarray]]:
    """(session time, BGR image) of every frame of a camera folder, in time order. A segment
    that cannot be read (the one being written when the process was killed) is skipped."""
    import av  # deferred: PyAV loads FFmpeg (~0.1 s); only reading video needs it

    for path in sorted(Path(folder).glob("seg_*.mp4")):
        t0 = int(path.stem.split("_", 1)[1]) / 1000.0
        try:
            container = av.open(str(path))
        except (av.error.FFmpegError, OSError):
            continue
        try:
            stream = container.streams.video[0]
            for frame in container.decode(stream):
                t = float(frame.pts * frame.time_base) if frame.pts is not None and frame.time_base else 0.0
                yield round(t0 + t, 4), frame.to_ndarray(format="bgr24")
        except (av.error.FFmpegError, IndexError):
            pass
        finally:
            container.close()


@dataclasses.dataclass
class SessionFolder:
    path: Path
    manifest: dict[str, Any]

    # -- making and opening ------------------------------------------------------------------

    @classmethod
    def create(cls, path: str | os.PathLike[str], manifest: Mapping[str, Any]) -> SessionFolder:
        path = Path(path)
        if (path / MANIFEST).exists():
            raise SessionFolderError(f"{path} already holds a session", path=str(path))
        path.mkdir(parents=True, exist_ok=True)
        data = {"format": FORMAT, **dict(manifest)}
        folder = cls(path, data)
        folder.save()
        return folder

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> SessionFolder:
        path = Path(path)
        file = path / MANIFEST
        if not file.is_file():
            raise SessionFolderError(f"{path} is not a session folder (no {MANIFEST})", path=str(path))
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise SessionFolderError(f"{file} is unreadable: {exc}", path=str(path)) from None
        if data.get("format") != FORMAT:
            raise SessionFolderError(f"{file} is not a {FORMAT} manifest", found=data.get("format"))
        return cls(path, data)

    def save(self) -> None:
        tmp = self.path / (MANIFEST + ".tmp")
        tmp.write_text(json.dumps(self.manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(tmp, self.path / MANIFEST)

    # -- parts -------------------------------------------------------------------------------

    @property
    def log_path(self) -> Path:
        return self.path / LOG

    @property
    def audio_path(self) -> Path:
        return self.path / AUDIO

    @property
    def created(self) -> float:
        return float(self.manifest["created"])

    @property
    def audio_dir(self) -> Path:
        return self.path / "audio"

    def has_audio(self) -> bool:
        return self.audio_path.is_file() or any(self.audio_dir.glob("seg_*.wav"))

    def audio_clip(self) -> AudioClip | None:
        """The table microphone as one `AudioClip` on the session clock: `audio.wav`, or the
        live recording's segments laid at their start times (silence in the gaps)."""
        if self.audio_path.is_file():
            return load(self.audio_path, start=0.0)
        parts = []
        for seg in sorted(self.audio_dir.glob("seg_*.wav")):
            try:
                parts.append(load(seg, start=int(seg.stem.split("_", 1)[1]) / 1000.0))
            except RefereeError:
                continue  # the segment being written when the process was killed
        if not parts:
            return None
        start = parts[0].start
        end = max(p.end for p in parts)
        samples = np.zeros(int(round((end - start) * SAMPLE_RATE)) + 1, np.float32)
        for p in parts:
            i = int(round((p.start - start) * SAMPLE_RATE))
            samples[i : i + len(p.samples)] = p.samples[: len(samples) - i]
        return AudioClip(samples, start=start, source=str(self.audio_dir))

    def camera_dir(self, name: str) -> Path:
        return self.path / CAMERAS / name

    def camera_names(self) -> list[str]:
        root = self.path / CAMERAS
        listed = list(self.manifest.get("cameras", {}))
        found = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
        return listed + [n for n in found if n not in listed]

    def segment_writer(self, name: str, **kwargs: Any) -> SegmentWriter:
        return SegmentWriter(self.camera_dir(name), **kwargs)

    def append_input(self, t: float, text: str) -> None:
        """Keep a typed line (durably: flushed and synced before returning)."""
        with open(self.path / INPUTS, "a", encoding="utf-8") as f:
            f.write(json.dumps({"t": round(float(t), 3), "text": text}, ensure_ascii=False) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def inputs(self) -> list[tuple[float, str]]:
        file = self.path / INPUTS
        if not file.is_file():
            return []
        out = []
        for line in file.read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if not line:
                continue
            try:
                d = json.loads(line)
                out.append((float(d["t"]), str(d["text"])))
            except (ValueError, KeyError, TypeError):
                break  # a line cut by a crash ends the inputs
        return out
