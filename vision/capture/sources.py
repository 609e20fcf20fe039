"""One source of frames: a webcam index, a video file, a stream URL or a recorded camera.

`open_capture(spec)` answers a `CaptureSource` whose `read()` gives the next `CameraFrame` or
None when the source has nothing more (end of file) or failed (a camera unplugged, a stream
cut: `failed` says which, `reason` why). `reopen()` tries to connect again. Frame times are on
the session clock: seconds since `clock.origin` for live sources, media time plus `offset` for
files and recordings (`paced=True` makes a file behave like a camera: frames come out at the
speed they were filmed).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from vision.video import CameraNotFound, MediaError, MediaNotFound, UnreadableVideo, short_read


class StreamUnavailable(MediaError):
    """A stream URL that does not answer."""


class CameraFrame:
    """One frame of one camera: `camera`, `index` (its place in that camera's frames), `t`
    (seconds on the session clock) and `image` (BGR uint8). Read-only once made.

    `CameraFrame.deferred(camera, index, t, convert)`: a frame whose image is made by
    `convert()` when first asked for (a recording's decoded picture, converted to BGR), once,
    on whichever thread asks first: a frame that no stage takes is never converted."""

    __slots__ = ("camera", "index", "t", "_image", "_convert", "_lock")
    camera: str
    index: int
    t: float
    _image: np.ndarray
    _convert: Callable[[], np.ndarray] | None
    _lock: threading.Lock | None

    def __init__(self, camera: str, index: int, t: float, image: np.ndarray) -> None:
        for name, value in (("camera", camera), ("index", index), ("t", t), ("_image", image)):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_convert", None)
        object.__setattr__(self, "_lock", None)

    @classmethod
    def deferred(cls, camera: str, index: int, t: float, convert: Callable[[], np.ndarray]) -> CameraFrame:
        frame = cls(camera, index, t, None)  # type: ignore[arg-type]  # made by convert, when asked
        object.__setattr__(frame, "_convert", convert)
        object.__setattr__(frame, "_lock", threading.Lock())
        return frame

    @property
    def image(self) -> np.ndarray:
        if self._convert is not None:
            assert self._lock is not None  # made with the converter
            with self._lock:  # two stages of one camera may ask at once: converted once
                convert = self._convert
                if convert is not None:
                    object.__setattr__(self, "_image", convert())
                    object.__setattr__(self, "_convert", None)  # what it held is let go
        image: np.ndarray = self._image
        return image

    def __setattr__(self, name: str, value: object) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")

    def __repr__(self) -> str:
        return f"CameraFrame(camera={self.camera!r}, index={self.index!r}, t={self.t!r})"


class SessionClock:
    """Session time: seconds since the session started (`origin`, epoch seconds, for the log)."""

    def __init__(self, origin: float | None = None, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._monotonic = monotonic
        self._start = monotonic()
        self.origin = time.time() if origin is None else float(origin)

    def now(self) -> float:
        return self._monotonic() - self._start


class CaptureSource:
    """Frames of one camera. Subclasses implement `_open`, `_read` and `_close`."""

    kind = "source"
    # A file or a recording that ends, or breaks, has ended for good: its grabber reports the
    # camera lost and stops, instead of trying to reopen it.
    media = False

    def __init__(self, name: str, clock: SessionClock | None = None) -> None:
        self.name = name
        self.clock = clock or SessionClock()
        self.failed = False
        self.reason = ""
        self.index = 0
        self.fps: float | None = None
        self.size: tuple[int, int] | None = None

    def read(self) -> CameraFrame | None:
        raise NotImplementedError

    def reopen(self) -> bool:
        return False

    def close(self) -> None:
        pass

    def describe(self) -> dict:
        return {"kind": self.kind, "fps": self.fps, "size": list(self.size) if self.size else None}


class OpenCVSource(CaptureSource):
    """A webcam index or a stream URL through OpenCV (FFmpeg for URLs); times from the clock."""

    def __init__(self, name: str, spec: int | str, clock: SessionClock | None = None) -> None:
        super().__init__(name, clock)
        self.spec = spec
        self.kind = "webcam" if isinstance(spec, int) else "stream"
        self._cap: cv2.VideoCapture | None = None
        if not self._connect():
            err = CameraNotFound if self.kind == "webcam" else StreamUnavailable
            raise err(f"{self.kind} {spec!r} does not answer", camera=name, source=str(spec))

    def _connect(self) -> bool:
        cap = cv2.VideoCapture(self.spec)
        if not cap.isOpened():
            cap.release()
            return False
        self._cap = cap
        fps = cap.get(cv2.CAP_PROP_FPS)
        self.fps = float(fps) if fps and fps > 0 and np.isfinite(fps) else None
        return True

    def read(self) -> CameraFrame | None:
        if self._cap is None:
            return None
        ok, image = self._cap.read()
        if not ok or image is None:
            self.failed, self.reason = True, "no frame from the device"
            return None
        self.size = (image.shape[1], image.shape[0])
        frame = CameraFrame(self.name, self.index, self.clock.now(), image)
        self.index += 1
        return frame

    def reopen(self) -> bool:
        self.close()
        if self._connect():
            self.failed, self.reason = False, ""
            return True
        return False

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class FileSource(CaptureSource):
    """A video file read with PyAV; frame times are its presentation times plus `offset`.
    With `paced`, `read` waits until the session clock reaches the frame's time (a camera
    stand-in for tests and benchmarks)."""

    kind = "file"
    media = True

    def __init__(
        self, name: str, path: str | Path, clock: SessionClock | None = None, offset: float = 0.0, paced: bool = False
    ) -> None:
        super().__init__(name, clock)
        self.path = Path(path)
        if not self.path.is_file():
            raise MediaNotFound(f"no file {str(self.path)!r}", path=str(self.path))
        self.offset, self.paced = float(offset), paced
        self.duration: float | None = None  # what the file says it holds, in seconds
        self.last_t: float | None = None  # media time of the last frame read
        self._frames = _decode(self.path, self)
        try:
            self._next = next(self._frames)
        except StopIteration:
            raise UnreadableVideo(f"{self.path.name} has no video frames", path=str(self.path)) from None

    def shortfall(self) -> str | None:
        """Once read to its end: how much of a video that stopped before its stated duration
        was read ("read 2.2 of 7.8 s"), or None for a video read whole."""
        return short_read(self.path.name, self.last_t, self.duration)

    def read(self) -> CameraFrame | None:
        if self._next is None:
            return None
        t, image = self._next
        self.last_t = t
        try:
            self._next = next(self._frames)
        except StopIteration:
            self._next = None
            short = self.shortfall()
            if short:  # the file breaks before its end: a lost camera, not an end
                self.failed, self.reason = True, short
        except MediaError as exc:
            self._next, self.failed, self.reason = None, True, exc.message
        t += self.offset
        if self.paced:
            wait = t - self.clock.now()
            if wait > 0:
                time.sleep(wait)  # a file paced like a camera: the wait is the point
        self.size = (image.shape[1], image.shape[0])
        frame = CameraFrame(self.name, self.index, round(t, 4), image)
        self.index += 1
        return frame


def _decode(path: Path, owner: FileSource | None = None):
    """(time, BGR image) of every video frame of a file, with PyAV; named errors. `owner`
    learns the duration the file states."""
    import av  # deferred: PyAV loads FFmpeg (~0.1 s); only a video file needs it

    try:
        container = av.open(str(path))
    except (av.error.FFmpegError, OSError) as exc:
        raise UnreadableVideo(f"{path.name} is not a readable video: {exc}", path=str(path)) from None
    try:
        if not container.streams.video:
            raise UnreadableVideo(f"{path.name} has no video track", path=str(path))
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        if owner is not None:
            if stream.duration and stream.time_base:
                owner.duration = float(stream.duration * stream.time_base)
            elif container.duration:
                owner.duration = container.duration / 1_000_000
        try:
            for frame in container.decode(stream):
                t = float(frame.time) if frame.time is not None else 0.0
                yield t, frame.to_ndarray(format="bgr24")
        except av.error.FFmpegError as exc:
            raise UnreadableVideo(f"{path.name} is damaged: {exc}", path=str(path)) from None
    finally:
        container.close()


def open_capture(
    spec: str | int | Path,
    name: str = "cam0",
    clock: SessionClock | None = None,
    paced: bool = False,
    offset: float = 0.0,
) -> CaptureSource:
    """A webcam index (int or digits), a stream URL (`rtsp://`, `http://`...) or a video file."""
    if isinstance(spec, int) or (isinstance(spec, str) and spec.isdigit() and not Path(spec).exists()):
        return OpenCVSource(name, int(spec), clock)
    if isinstance(spec, str) and "://" in spec:
        return OpenCVSource(name, spec, clock)
    return FileSource(name, spec, clock, offset=offset, paced=paced)
