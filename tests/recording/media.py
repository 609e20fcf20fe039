"""Small videos for the recording tests: camera folders of segments, and single files."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tablereferee.recording.folder import SegmentWriter


def image(k: int, size: tuple[int, int] = (96, 64)) -> np.ndarray:
    """A frame that differs from its neighbours (so the encoder has something to encode)."""
    w, h = size
    img = np.full((h, w, 3), (40 + 3 * k) % 255, np.uint8)
    img[:, (k * 3) % w] = 255
    return img


def camera_folder(folder: Path, seconds: float = 5.0, fps: float = 10.0, segment_seconds: float = 1.0) -> SegmentWriter:
    """A camera's recording of `seconds` at `fps`, in segments; closed."""
    w = SegmentWriter(folder, segment_seconds=segment_seconds, fragment_seconds=0.5)
    for k in range(int(round(seconds * fps))):
        w.write(k / fps, image(k))
    w.close()
    return w


def video_file(path: Path, seconds: float = 4.0, fps: int = 10, faststart: bool = True) -> Path:
    """An ordinary MP4 (its index first with `faststart`, as cameras and phones write them)."""
    import av

    with av.open(str(path), mode="w", options={"movflags": "faststart"} if faststart else {}) as c:
        s = c.add_stream("libx264", rate=fps)
        s.width, s.height, s.pix_fmt = 96, 64, "yuv420p"
        s.options = {"g": str(fps // 2)}
        rng = np.random.default_rng(0)
        for _ in range(int(seconds * fps)):
            frame = av.VideoFrame.from_ndarray(rng.integers(0, 255, (64, 96, 3), dtype=np.uint8), format="bgr24")
            for p in s.encode(frame):
                c.mux(p)
        for p in s.encode(None):
            c.mux(p)
    return path


def cut(path: Path, fraction: float, to: Path | None = None) -> Path:
    """The first `fraction` of a file's bytes (what a full disk or an interrupted copy leaves)."""
    data = path.read_bytes()
    dest = to or path
    dest.write_bytes(data[: int(len(data) * fraction)])
    return dest
