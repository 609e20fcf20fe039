"""The stage pipeline: the stages of a frame run at once, in a fixed order out; live, a slow stage
skips frames and its latency stays bounded; a file read in lockstep loses no frame."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from vision.capture.grabber import Grabber
from vision.capture.pipeline import StagePipeline, follow
from vision.capture.sources import CameraFrame, CaptureSource, SessionClock
from vision.capture.stages import RateGate

IMAGE = np.zeros((4, 4, 3), np.uint8)


class FakeStage:
    """A stage that calls `work(frame)` and answers what frame it saw."""

    def __init__(self, name: str, camera: str, work=None, fps: float | None = None) -> None:
        self.name, self.camera = name, camera
        self.work = work or (lambda frame: None)
        self.gate = RateGate(fps)
        self.seen: list[int] = []
        self.threads: set[str] = set()

    def due(self, t: float) -> bool:
        return self.gate.due(t)

    def __call__(self, frame: CameraFrame) -> list:
        self.threads.add(threading.current_thread().name)
        self.work(frame)
        self.seen.append(frame.index)
        return [(self.name, frame.index)]


def frame(i: int, camera: str = "cam", fps: float = 10.0) -> CameraFrame:
    return CameraFrame(camera, i, i / fps, IMAGE)


def test_the_card_and_signal_stages_of_one_frame_run_at_once_and_answer_in_order():
    both = threading.Barrier(2, timeout=10)  # passes only with both stages inside at once
    signals_done = threading.Event()

    def cards_work(f):
        both.wait()
        assert signals_done.wait(10)  # the card stage finishes last ...

    def signals_work(f):
        both.wait()
        signals_done.set()

    cards = FakeStage("cards:cam", "cam", cards_work)
    signals = FakeStage("signals:cam", "cam", signals_work)
    with StagePipeline([cards, signals]) as pipe:
        out = pipe.process([frame(0)])
    # ... and still comes first: the order one stage after another would give
    assert [o.observations for o in out] == [[("cards:cam", 0)], [("signals:cam", 0)]]
    assert cards.threads.isdisjoint(signals.threads)


def test_a_round_of_two_cameras_runs_both_and_keeps_each_stage_in_frame_order():
    both = threading.Barrier(2, timeout=10)
    cards = FakeStage("cards:table", "table", lambda f: both.wait() if f.index == 0 else None)
    people = FakeStage("signals:seats", "seats", lambda f: both.wait() if f.index == 0 else None)
    with StagePipeline([cards, people]) as pipe:
        out = []
        for i in range(5):
            out += pipe.process([frame(i, "table"), frame(i, "seats")])
    assert [(o.stage, o.index) for o in out[:4]] == [
        ("cards:table", 0),
        ("signals:seats", 0),
        ("cards:table", 1),
        ("signals:seats", 1),
    ]
    assert cards.seen == people.seen == [0, 1, 2, 3, 4]
    assert pipe.stats()["cards:table"]["processed"] == 5 and pipe.dropped == 0


def test_each_stage_keeps_its_own_rate():
    fast = FakeStage("signals:cam", "cam", fps=None)
    slow = FakeStage("cards:cam", "cam", fps=5.0)
    with StagePipeline([slow, fast]) as pipe:
        for i in range(10):  # one second at 10 frames a second
            pipe.process([frame(i)])
    assert fast.seen == list(range(10)) and slow.seen == [0, 2, 4, 6, 8]


def test_two_stages_with_one_name_are_refused():
    with pytest.raises(ValueError, match="two stages with one name"):
        StagePipeline([FakeStage("cards:cam", "cam"), FakeStage("cards:cam", "cam")])


class CameraStandIn(CaptureSource):
    """A camera at `fps` frames a second of real time, on a real session clock."""

    def __init__(self, fps: float, clock: SessionClock, frames: int) -> None:
        super().__init__("cam", clock)
        self.period = 1.0 / fps
        self.frames = frames
        self._next = time.monotonic()

    def read(self) -> CameraFrame | None:
        if self.index >= self.frames:
            return None
        wait = self._next - time.monotonic()
        if wait > 0:
            time.sleep(wait)  # the camera's shutter: the next frame is not there before
        self._next += self.period
        f = CameraFrame(self.name, self.index, self.clock.now(), IMAGE)
        self.index += 1
        return f

    media = True  # ends after `frames`


def test_a_slow_stage_drops_frames_and_its_latency_stays_bounded():
    """A camera at 100 frames a second; a stage that takes 40 ms a frame (an overloaded machine)
    beside one that takes none. A queue would make the slow stage answer later and later (after
    40 of its frames, 40 x 30 ms = 1.2 s late); latest-frame skipping keeps each answer within
    its own time and a frame interval of the frame it answers."""
    clock = SessionClock()
    slow = FakeStage("cards:cam", "cam", lambda f: time.sleep(0.04))  # the artificial slow stage
    fast = FakeStage("signals:cam", "cam")
    grabber = Grabber(CameraStandIn(100.0, clock, frames=2000), lost_after=10.0).start()  # outlasts the test
    with StagePipeline([slow, fast], clock=clock.now) as pipe:
        outs = list(follow([grabber], pipe, stop=lambda: len(slow.seen) >= 40))
        stats = pipe.stats()
    grabber.stop()
    late = [o.latency for o in outs if o.stage == "cards:cam"]
    assert len(late) >= 40
    assert max(late) < 0.25, late  # 40 ms of work + 10 ms between frames, with room for a busy machine
    assert np.mean(late[-10:]) < np.mean(late[:10]) + 0.05  # not growing
    assert stats["cards:cam"]["dropped"] >= 40  # about three frames skipped for each one taken
    assert stats["signals:cam"]["processed"] > 2 * stats["cards:cam"]["processed"]  # the fast one is not held back
    assert slow.seen == sorted(slow.seen) and len(set(slow.seen)) == len(slow.seen)


def test_a_file_read_in_lockstep_gives_every_frame_to_every_stage():
    clock = SessionClock()
    slow = FakeStage("cards:cam", "cam", lambda f: time.sleep(0.005))
    fast = FakeStage("signals:cam", "cam")
    source = CameraStandIn(1000.0, clock, frames=30)
    grabber = Grabber(source, lockstep=True).start()
    with StagePipeline([slow, fast], clock=clock.now) as pipe:
        outs = list(follow([grabber], pipe))
    grabber.stop()
    assert slow.seen == fast.seen == list(range(30))
    assert pipe.dropped == 0 and grabber.dropped == 0 and len(outs) == 60
