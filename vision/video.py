"""Frames from an image, a video file or a camera, each with its time in seconds.

`open_frames(source)` takes a path (an image or a video) or a camera index (an int, or a
string of digits such as "0") and returns an iterable `FrameSource` of `Frame`s. OpenCV's
VideoCapture reads videos and cameras; images are read with `cv2.imdecode` (so any path works).

Named errors (all `MediaError`, a `RefereeError`): `MediaNotFound` (no such file),
`UnreadableImage` (a file with an image name that does not decode), `UnreadableVideo` (a file
OpenCV cannot open), `EmptyVideo` (a video that yields no frame), `CameraNotFound`.

A video that stops before the duration it states (cut, or damaged part-way) is read up to the
damage, and how much was read is said once it ends: `VideoSource.shortfall` ("table.mp4 is cut
or damaged: read 2.2 of 7.8 s"), also written to stderr as a warning line.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from referee.core import RefereeError

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".webp", ".tif", ".tiff", ".ppm", ".pgm"})


class MediaError(RefereeError):
    """A picture, video or camera that cannot be read."""


class MediaNotFound(MediaError):
    """No file at the given path."""


class UnreadableImage(MediaError):
    """A file that should be an image but does not decode as one."""


class UnreadableVideo(MediaError):
    """A file that is neither a readable image nor a video OpenCV can open."""


class EmptyVideo(MediaError):
    """A video that opens but yields no frame."""


class CameraNotFound(MediaError):
    """No camera answers at that index."""


def short_read(name: str, read_to: float | None, duration: float | None, frame: float = 0.5) -> str | None:
    """A video read only `read_to` seconds into the `duration` it states, in words; None when
    it was read to within `frame` seconds of its end (or its duration is not known)."""
    if duration is None or not duration > 0 or not np.isfinite(duration):
        return None
    got = 0.0 if read_to is None else read_to
    if got + frame >= duration:
        return None
    return f"{name} is cut or damaged: read {got:.1f} of {duration:.1f} s"


def warn(message: str) -> None:
    """A warning line for the person at the terminal (stderr: a command's stdout stays data)."""
    print(f"warning: {message}", file=sys.stderr, flush=True)


@dataclasses.dataclass(frozen=True)
class Frame:
    index: int
    time: float  # seconds from the start of the source
    image: np.ndarray  # BGR uint8 (H, W, 3)


def read_image(path: str | Path) -> np.ndarray:
    """A BGR image, or a named error."""
    path = Path(path)
    if not path.is_file():
        raise MediaNotFound(f"no file {str(path)!r}", path=str(path))
    data = np.fromfile(str(path), dtype=np.uint8)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise UnreadableImage(f"{path.name} is not a readable image", path=str(path))
    return image


class FrameSource:
    """An iterable of `Frame`s; `kind` is "image", "video" or "camera"; `fps` may be None."""

    kind: str
    fps: float | None
    size: tuple[int, int] | None  # (width, height) when known

    def __iter__(self) -> Iterator[Frame]:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ImageSource(FrameSource):
    kind = "image"
    fps = None

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.image = read_image(self.path)
        self.size = (self.image.shape[1], self.image.shape[0])

    def __iter__(self) -> Iterator[Frame]:
        yield Frame(0, 0.0, self.image)


class VideoSource(FrameSource):
    """A video file. The first frame is read on opening, so an empty video fails at once."""

    kind = "video"

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise MediaNotFound(f"no file {str(self.path)!r}", path=str(self.path))
        self._cap = cv2.VideoCapture(str(self.path))
        if not self._cap.isOpened():
            self._cap.release()
            raise UnreadableVideo(
                f"{self.path.name} is neither an image nor a video OpenCV can read", path=str(self.path)
            )
        fps = self._cap.get(cv2.CAP_PROP_FPS)
        self.fps = float(fps) if fps and fps > 0 and np.isfinite(fps) else None
        count = self._cap.get(cv2.CAP_PROP_FRAME_COUNT)
        # the duration the file states; a stream without one is not checked
        self.duration = float(count) / self.fps if self.fps and count and count > 0 else None
        self.shortfall: str | None = None  # once read to its end: how much of a cut video was read
        ok, first = self._cap.read()
        if not ok or first is None:
            self._cap.release()
            raise EmptyVideo(f"{self.path.name} has no frames", path=str(self.path))
        self._first: np.ndarray | None = first
        self.size = (first.shape[1], first.shape[0])

    def _time(self, index: int) -> float:
        msec = self._cap.get(cv2.CAP_PROP_POS_MSEC)
        if self.fps:
            return index / self.fps
        return float(msec) / 1000.0 if msec and msec > 0 else float(index)

    def __iter__(self) -> Iterator[Frame]:
        if self._first is None:
            raise RuntimeError("a VideoSource is read once")
        first, self._first = self._first, None
        yield Frame(0, 0.0, first)
        index = 1
        while True:
            ok, image = self._cap.read()
            if not ok or image is None:
                break
            yield Frame(index, self._time(index), image)
            index += 1
        self.close()
        frame = 1.0 / self.fps if self.fps else 0.0
        self.shortfall = short_read(self.path.name, self._time(index - 1) + frame, self.duration, 0.5 + frame)
        if self.shortfall:
            warn(self.shortfall)

    def close(self) -> None:
        self._cap.release()


class CameraSource(FrameSource):
    """A live camera; frame times come from a monotonic clock started at the first frame."""

    kind = "camera"

    def __init__(self, index: int, max_frames: int | None = None) -> None:
        self.index = index
        self.max_frames = max_frames
        self._cap = cv2.VideoCapture(index)
        ok, first = self._cap.read() if self._cap.isOpened() else (False, None)
        if not ok or first is None:
            self._cap.release()
            raise CameraNotFound(f"no camera answers at index {index}", index=index)
        self._first: np.ndarray | None = first
        fps = self._cap.get(cv2.CAP_PROP_FPS)
        self.fps = float(fps) if fps and fps > 0 else None
        self.size = (first.shape[1], first.shape[0])

    def __iter__(self) -> Iterator[Frame]:
        start = time.monotonic()
        image, self._first = self._first, None
        index = 0
        while image is not None and (self.max_frames is None or index < self.max_frames):
            yield Frame(index, time.monotonic() - start, image)
            index += 1
            ok, image = self._cap.read()
            if not ok:
                break
        self.close()

    def close(self) -> None:
        self._cap.release()


def open_frames(source: str | int | Path, max_frames: int | None = None) -> FrameSource:
    """An image, a video file or a camera index as a `FrameSource` (see the module docstring)."""
    if isinstance(source, int) or (isinstance(source, str) and source.isdigit() and not Path(source).exists()):
        return CameraSource(int(source), max_frames=max_frames)
    path = Path(source)
    if not path.exists():
        raise MediaNotFound(f"no file {str(path)!r}", path=str(path))
    if path.suffix.lower() in IMAGE_SUFFIXES:
        return ImageSource(path)
    return VideoSource(path)
