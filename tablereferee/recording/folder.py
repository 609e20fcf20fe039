"""A recorded session: one folder that holds everything a replay or a dispute needs.

    SESSION/
      session.json                 what was played and how it was seen (below)
      log.db                       the session log (SQLite, docs/log-format.md): every
                                   observation and action, on the session clock
      inputs.jsonl                 every line the scorekeeper typed, with its session time
      cameras/NAME/seg_<ms>.mp4    each camera's video in segments of `segment_seconds`
                                   (H.264 via PyAV, fragmented MP4); <ms> is the segment's start
                                   on the session clock, frame times are kept exactly (variable
                                   frame rate)
      audio.wav                    the table microphone (16 kHz mono), when there is one

`session.json`: `format` ("table-referee-session/1"), `created` (epoch seconds = the log's
clock origin), `game`, `setup`, `cameras` ({name: source, fps, size}), `zones`, `calibration`
(the body-signal seats, per camera), `options` (threshold, stage rates, deck), `models`
({name: path, sha256, bytes}), `versions` (referee, engine, python and key packages).

A segment is a fragmented MP4: a fragment every `fragment_seconds` (1 s) of video, each handed to
the operating system as soon as it is complete (and an encoder without B-frames and with a short
look-ahead, so that a frame reaches its fragment within about 6 frames). A killed process loses
at most the last second or two of each camera, never the whole segment it was writing: the cut
segment stays readable up to its last fragment (`tests/recording/test_kill.py` measures it).
Every segment starts on a key frame and a closed one ends with its fragment index, so segments
stay seekable. The log loses nothing: every entry is its own transaction.

Reading back (`read_segments`) never skips in silence: what could not be read is collected as
`SegmentProblem`s, and `camera_gaps` names every stretch of a camera without video (a missing,
unreadable or cut segment, a lost camera) as a `VideoGap` ("camera cards: no video from 4.0 s
to 8.1 s (no segment file covers it)"), for `replay`, `clip` and the dispute package.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import platform
import threading
from collections.abc import Iterator, Mapping, Sequence
from fractions import Fraction
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from referee.core import RefereeError
from referee.sessionlog import read_log
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


class BadSegmentLength(RefereeError):
    """A segment or fragment length that is not a positive number of seconds."""


GAP_SECONDS = 1.0  # a camera without a frame for longer than this has a gap in its video
MIN_SEGMENT_SECONDS = 0.5  # shorter would be a segment per frame or two
# Fragmented MP4: a moov without samples first, then one moof+mdat per `frag_duration`, every
# one written out as it completes (flush_packets); the closing mfra index keeps it seekable.
# Forcing a key frame per fragment instead would make a static table's video 6x larger (demo
# cards camera, 14 s: 617 KB against 98 KB).
_MOVFLAGS = "empty_moov+default_base_moof"
# No B-frames, a 5-frame look-ahead, slice threads (no frame-thread delay): a frame is muxed at
# most ~6 frames after it was written, and the demo's video is 4% smaller than with the defaults.
_X264 = "rc-lookahead=5:bframes=0:sync-lookahead=0:sliced-threads=1"


def check_segment_seconds(seconds: float, what: str = "segment length") -> float:
    """`seconds` as a float, or `BadSegmentLength` for 0, a negative number, nan or infinity."""
    try:
        value = float(seconds)
    except (TypeError, ValueError):
        raise BadSegmentLength(f"the {what} must be a number of seconds, not {seconds!r}") from None
    if not math.isfinite(value) or value < MIN_SEGMENT_SECONDS:
        raise BadSegmentLength(
            f"the {what} must be at least {MIN_SEGMENT_SECONDS:g} s, not {seconds:g}", seconds=seconds
        )
    return value


class SegmentWriter:
    """One camera's frames into MP4 segments of `segment_seconds` (H.264, PyAV).

    `write(t, image)`: t in session seconds. Frames keep their own times (pts in ms from the
    segment's start), so a camera that skipped frames or ran at 7 fps is replayed at the right
    moments. Every `fragment_seconds` of video is a fragment that reaches the file at once: a
    kill loses at most about that much video (and the encoder's few frames of delay). Thread-safe (a
    grabber thread writes while the table reads)."""

    def __init__(
        self,
        folder: str | os.PathLike[str],
        segment_seconds: float = 10.0,
        crf: int = 26,
        preset: str = "veryfast",
        max_fps: float | None = None,
        fragment_seconds: float = 1.0,
    ) -> None:
        self.segment_seconds = check_segment_seconds(segment_seconds)
        self.fragment_seconds = check_segment_seconds(fragment_seconds, "fragment length")
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
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
        frag = str(int(self.fragment_seconds * 1_000_000))
        self._container = av.open(
            str(path), mode="w", options={"movflags": _MOVFLAGS, "frag_duration": frag, "flush_packets": "1"}
        )
        stream = self._container.add_stream("libx264", rate=30)
        stream.width, stream.height = image.shape[1] // 2 * 2, image.shape[0] // 2 * 2
        stream.pix_fmt = "yuv420p"
        stream.time_base = Fraction(1, 1000)
        stream.codec_context.time_base = Fraction(1, 1000)
        stream.options = {"crf": str(self.crf), "preset": self.preset, "x264-params": _X264}
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


@dataclasses.dataclass(frozen=True)
class SegmentProblem:
    """A segment of a camera folder that could not be read whole."""

    path: Path
    start: float  # the segment's start on the session clock (from its name)
    reason: str
    frames: int = 0  # frames read from it before the problem
    last: float | None = None  # session time of the last frame read from it

    def describe(self) -> str:
        return f"{self.path.name} {self.reason}"


def segment_start(path: Path) -> float | None:
    """The session time a segment starts at, from its name (`seg_<ms>.mp4`), or None."""
    try:
        return int(path.stem.split("_", 1)[1]) / 1000.0
    except (IndexError, ValueError):
        return None


def _was_closed(path: Path) -> bool:
    """A fragmented segment closed properly ends with its index (`mfro`); one cut by a kill
    does not (an older, non-fragmented segment has its `moov` and no fragments)."""
    try:
        with open(path, "rb") as f:
            head = f.read(8192)  # ftyp and the empty moov (with its mvex) of a fragmented file
            f.seek(max(0, path.stat().st_size - 16))
            tail = f.read(16)
    except OSError:
        return False
    return b"mfro" in tail or b"moof" not in head and b"mvex" not in head


def read_segments(
    folder: str | os.PathLike[str], problems: list[SegmentProblem] | None = None, images: bool = True
) -> Iterator[tuple[float, np.ndarray]]:
    """(session time, BGR image) of every frame of a camera folder, in time order. What cannot
    be read (a segment cut or damaged by a crash, a file that is no video) is not skipped in
    silence: each is appended to `problems` as a `SegmentProblem`, with the frames that could
    be read from it yielded first. With `images=False` the frames are decoded but not
    converted (the image is an empty array): enough to know which times have video."""
    empty = np.zeros((0, 0, 3), np.uint8)
    for t, picture in read_pictures(folder, problems):
        yield t, bgr(picture) if images else empty


def bgr(picture: Any) -> np.ndarray:
    """A decoded picture of `read_pictures` as a BGR image."""
    image: np.ndarray = picture.to_ndarray(format="bgr24")
    return image


def read_pictures(
    folder: str | os.PathLike[str], problems: list[SegmentProblem] | None = None
) -> Iterator[tuple[float, Any]]:
    """As `read_segments`, with each frame as its decoded picture (a PyAV `VideoFrame`, its
    planes as decoded), for `bgr` to convert when it is needed: a frame nothing looks at costs
    its decoding only."""
    import av  # deferred: PyAV loads FFmpeg (~0.1 s); only reading video needs it

    found = problems if problems is not None else []
    for path in sorted(Path(folder).glob("seg_*.mp4")):
        t0 = segment_start(path)
        if t0 is None:
            found.append(SegmentProblem(path, 0.0, "is not named seg_<milliseconds>.mp4"))
            continue
        try:
            container = av.open(str(path))
        except (av.error.FFmpegError, OSError) as exc:
            found.append(SegmentProblem(path, t0, f"is unreadable ({_plain(exc)})"))
            continue
        n, last = 0, None
        try:
            stream = container.streams.video[0]
            for frame in container.decode(stream):
                t = float(frame.pts * frame.time_base) if frame.pts is not None and frame.time_base else 0.0
                last = round(t0 + t, 4)
                n += 1
                yield last, frame
        except (av.error.FFmpegError, IndexError) as exc:
            found.append(SegmentProblem(path, t0, f"is damaged ({_plain(exc)})", n, last))
        else:
            if n == 0:
                found.append(SegmentProblem(path, t0, "holds no frames"))
            elif not _was_closed(path):
                found.append(SegmentProblem(path, t0, "was cut while it was written", n, last))
        finally:
            container.close()


def _plain(exc: BaseException) -> str:
    """An FFmpeg error in words: its message without the errno and the path."""
    text = getattr(exc, "strerror", None) or str(exc)
    return str(text).split(": '", 1)[0]


@dataclasses.dataclass(frozen=True)
class VideoGap:
    """A stretch of session time in which a camera has no video, and why."""

    camera: str
    start: float
    end: float
    reason: str

    def describe(self) -> str:
        if self.end - self.start < 1e-3:  # a segment not read whole, its time covered otherwise
            return f"camera {self.camera}: {self.reason} (at {self.start:.1f} s)"
        return f"camera {self.camera}: no video from {self.start:.1f} s to {self.end:.1f} s ({self.reason})"

    def covers(self, t: float) -> bool:
        return self.start - 1e-6 <= t <= self.end + 1e-6

    def to_dict(self) -> dict[str, Any]:
        return {"camera": self.camera, "start": round(self.start, 3), "end": round(self.end, 3), "reason": self.reason}


def camera_gaps(
    folder: str | os.PathLike[str],
    camera: str,
    start: float = 0.0,
    end: float | None = None,
    gap: float = GAP_SECONDS,
) -> list[VideoGap]:
    """Every stretch of [start, end] longer than `gap` without a frame of `camera`'s video in
    `folder`, and every segment that could not be read whole, as `VideoGap`s in time order.
    `end` None: up to the camera's last frame."""
    problems: list[SegmentProblem] = []
    times = [t for t, _ in read_segments(folder, problems, images=False)]
    return gaps_in(times, problems, camera, start, end, gap)


def gaps_in(
    times: Sequence[float],
    problems: Sequence[SegmentProblem],
    camera: str,
    start: float = 0.0,
    end: float | None = None,
    gap: float = GAP_SECONDS,
) -> list[VideoGap]:
    """`camera_gaps` of frames read at `times` with `problems`: every stretch of [start, end]
    longer than `gap` without a frame, with its reason, and every problem in the window."""
    times = sorted(times)
    out: list[VideoGap] = []

    def why(a: float, b: float) -> str:
        named = [p for p in problems if a - 1e-6 <= (p.last if p.last is not None else p.start) <= b + 1e-6]
        if named:
            return "; ".join(p.describe() for p in named)
        if not times:
            return "no video was recorded" if not problems else "; ".join(p.describe() for p in problems)
        if b >= times[-1] and a >= times[-1] - 1e-6:
            return "the video ends"
        return "no segment file covers it"

    stop = end if end is not None else (times[-1] if times else start)
    edges = [start] + [t for t in times if start <= t <= stop] + [stop]
    for a, b in zip(edges, edges[1:], strict=False):
        if b - a > gap:
            out.append(VideoGap(camera, round(a, 3), round(b, 3), why(a, b)))
    for p in problems:  # a damaged segment is named even when its neighbours cover the time
        at = p.last if p.last is not None else p.start
        if start - 1e-6 <= at <= stop + 1e-6 and not any(g.covers(at) and p.describe() in g.reason for g in out):
            out.append(VideoGap(camera, round(at, 3), round(at, 3), p.describe()))
    return sorted(out, key=lambda g: (g.start, g.end))


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

    def end(self) -> float | None:
        """When the session ended: the manifest's duration, or (a killed session never wrote
        it) the time of the log's last entry; None when neither is known."""
        if self.manifest.get("duration") is not None:
            return float(self.manifest["duration"])
        if not self.log_path.is_file():
            return None
        try:
            contents = read_log(self.log_path)
        except RefereeError:
            return None
        return max((e.time - contents.header.created for e in contents.entries), default=None)

    def video_gaps(
        self, start: float = 0.0, end: float | None = None, cameras: list[str] | None = None
    ) -> list[VideoGap]:
        """Every gap in the video of `cameras` (default: every camera of the session) between
        `start` and `end` (default: the session's end, `end()`), in time order."""
        stop = self.end() if end is None else end
        out: list[VideoGap] = []
        for name in self.camera_names() if cameras is None else cameras:
            out += camera_gaps(self.camera_dir(name), name, start, stop)
        return sorted(out, key=lambda g: (g.start, g.camera))

    def cameras_with_video(self) -> list[str]:
        """The cameras with at least one readable frame (the first frame of each is decoded)."""
        return [n for n in self.camera_names() if next(read_segments(self.camera_dir(n), images=False), None)]

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
