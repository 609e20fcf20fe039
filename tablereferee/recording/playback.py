"""The cameras of a recorded session folder (`tablereferee.recording`), read back.

`RecordedCamera` is a `CaptureSource` over one camera's segments: frame times are the recorded
session times; with `paced` it plays them back at the speed they were filmed (a stand-in for
a live camera). `camera_stream` yields the frames of one camera together with the camera's
losses and returns, as a live grabber would have reported them: a gap of more than
`lost_after` seconds without frames is a lost camera (reported `lost_after` after its last
frame), the next frame brings it back, and a camera whose video ends before the session does
is lost for the rest of it.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterator
from pathlib import Path

from referee.observations import CameraStatus
from tablereferee.recording.folder import SegmentProblem, bgr, read_pictures, read_segments
from vision.capture.sources import CameraFrame, CaptureSource, SessionClock
from vision.video import MediaNotFound


class RecordedCamera(CaptureSource):
    kind = "recorded"
    media = True

    def __init__(self, name: str, folder: str | Path, clock: SessionClock | None = None, paced: bool = False) -> None:
        super().__init__(name, clock)
        self.folder = Path(folder)
        self.paced = paced
        if not any(self.folder.glob("seg_*.mp4")):
            raise MediaNotFound(f"{self.folder} holds no recorded segments (seg_*.mp4)", path=str(self.folder))
        self.problems: list[SegmentProblem] = []
        self._frames = read_segments(self.folder, self.problems)

    def read(self) -> CameraFrame | None:
        item = next(self._frames, None)
        if item is None:
            if self.problems:  # the recording breaks: a lost camera, with the segments named
                self.failed, self.reason = True, "; ".join(p.describe() for p in self.problems)
            return None
        t, image = item
        if self.paced:
            wait = t - self.clock.now()
            if wait > 0:
                time.sleep(wait)  # playback at the speed of the recording
        self.size = (image.shape[1], image.shape[0])
        frame = CameraFrame(self.name, self.index, t, image)
        self.index += 1
        return frame


def camera_stream(
    name: str, folder: str | Path, lost_after: float = 2.0, end: float | None = None
) -> Iterator[CameraFrame | CameraStatus]:
    last: float | None = None
    index = 0
    for t, picture in read_pictures(folder):
        if last is not None and t - last > lost_after:
            yield CameraStatus(round(last + lost_after, 3), name, False, f"no frame for {lost_after:g} s")
            yield CameraStatus(t, name, True, "frames again")
        # converted to BGR only if a stage takes the frame (the card stage takes one in two)
        yield CameraFrame.deferred(name, index, t, functools.partial(bgr, picture))
        index += 1
        last = t
    if last is None:
        yield CameraStatus(0.0, name, False, "no recorded frames")
    elif end is not None and last + lost_after < end:
        yield CameraStatus(round(last + lost_after, 3), name, False, f"no frame for {lost_after:g} s")
