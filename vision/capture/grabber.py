"""Latest-frame capture: one thread per camera, the consumer always gets the newest frame.

A camera delivers frames at its own rate; the table processes them at the rate each stage
needs, and when the machine falls behind it must skip frames rather than queue them (a queue
makes the referee answer later and later). `Grabber` reads its source on its own thread and
keeps only the newest frame; `latest(after)` returns it if it is newer than the one the caller
had (`dropped` counts the frames no one took). Every frame read can also go to a `sink` (the
session recorder) on the reading thread, so the recording keeps every frame even when the
referee skips some.

With `lockstep` (a recorded file read as fast as the machine allows, e.g. in tests and batch
runs) the reading thread waits until the consumer has taken each frame before reading the
next: every frame is processed, whatever the load, and nothing is dropped.

When the source fails (no frame for `lost_after` seconds, or a read error) the grabber reports
the camera lost (a `CameraStatus` with `ok=False`, at the millisecond on the session clock),
tries `reopen()` every `retry` seconds, and reports it back when frames come again. A video
file or a recording (`source.media`) that ends or breaks is reported lost too ("the video
ended", or where it broke) and the grabber is `finished`: a file does not come back.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from referee.observations import CameraStatus
from vision.capture.sources import CameraFrame, CaptureSource


class Grabber:
    def __init__(
        self,
        source: CaptureSource,
        sink: Callable[[CameraFrame], None] | None = None,
        retry: float = 1.0,
        lost_after: float = 2.0,
        lockstep: bool = False,
    ) -> None:
        self.source = source
        self.lockstep = lockstep
        self.name = source.name
        self.sink = sink
        self.retry, self.lost_after = retry, lost_after
        self._cond = threading.Condition()
        self._latest: CameraFrame | None = None
        self._taken_index = -1
        self.frames = 0
        self.dropped = 0
        self.finished = False
        self.lost = False
        self.events: list[CameraStatus] = []
        self._last_frame_at: float | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"grab-{self.name}", daemon=True)

    def start(self) -> Grabber:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        self._thread.join(timeout=5)
        self.source.close()

    def _set_lost(self, lost: bool, reason: str) -> None:
        with self._cond:
            if lost != self.lost:
                self.lost = lost
                self.events.append(CameraStatus(round(self.source.clock.now(), 3), self.name, not lost, reason))
                self._cond.notify_all()

    def _untaken(self) -> bool:
        return self._latest is not None and self._latest.index > self._taken_index

    def _run(self) -> None:
        while not self._stop.is_set():
            if self.lockstep:
                with self._cond:
                    while self._untaken() and not self._stop.is_set():
                        self._cond.wait(0.5)  # woken by latest(); the timeout only re-checks stop
                if self._stop.is_set():
                    return
            try:
                frame = self.source.read()
            except Exception as exc:  # a driver error is a lost camera, not a dead table
                frame = None
                self.source.failed, self.source.reason = True, f"{type(exc).__name__}: {exc}"
            if frame is None:
                if self.source.media or not self.source.failed:
                    with self._cond:
                        if self.source.media:  # the camera's video is over: say so in the log
                            reason = self.source.reason if self.source.failed else "the video ended"
                            self._set_lost(True, reason or "the video ended")
                        self.finished = True
                        self._cond.notify_all()
                    return
                self._set_lost(True, self.source.reason or "no frame")
                while not self._stop.wait(self.retry):
                    if self.source.reopen():
                        break
                continue
            self._last_frame_at = self.source.clock.now()
            if self.lost:
                self._set_lost(False, "frames again")
            if self.sink is not None:
                self.sink(frame)
            with self._cond:
                if self._latest is not None and self._latest.index > self._taken_index:
                    self.dropped += 1
                self._latest = frame
                self.frames += 1
                self._cond.notify_all()

    def latest(self, timeout: float | None = None) -> CameraFrame | None:
        """The newest frame not yet taken; waits up to `timeout` for one (None: no wait)."""
        with self._cond:

            def ready():
                return (self._latest is not None and self._latest.index > self._taken_index) or self.finished

            if timeout:
                self._cond.wait_for(ready, timeout)
            if self._latest is None or self._latest.index <= self._taken_index:
                return None
            self._taken_index = self._latest.index
            self._cond.notify_all()  # a lockstep reader may read the next frame
            return self._latest

    def wait(self, timeout: float) -> bool:
        """Wait up to `timeout` s for a frame not yet taken (or the end); take nothing."""
        with self._cond:
            return self._cond.wait_for(
                lambda: (self._latest is not None and self._latest.index > self._taken_index) or self.finished, timeout
            )

    def check(self) -> None:
        """Called by the consumer: a camera that gave no frame for `lost_after` s is lost
        (a blocked driver read never returns an error)."""
        last = self._last_frame_at
        if (
            last is not None
            and not self.finished
            and not self.lost
            and self.source.clock.now() - last > self.lost_after
        ):
            self._set_lost(True, f"no frame for {self.lost_after:g} s")

    def take_events(self) -> list[CameraStatus]:
        with self._cond:
            out, self.events = self.events, []
            return out

    @property
    def done(self) -> bool:
        with self._cond:
            return self.finished and (self._latest is None or self._latest.index <= self._taken_index)
