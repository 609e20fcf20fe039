"""A stage in a process of its own: frames in through shared memory, answers back, named errors."""

from __future__ import annotations

import functools
import os

import numpy as np
import pytest

from vision.capture.pipeline import ProcessStage, StageFailed, StagePipeline, table_stages
from vision.capture.sources import CameraFrame


class Summing:
    """A stage that answers where it ran and what it saw; frame 13 breaks it."""

    def __init__(self, offset: int = 0) -> None:
        self.offset = offset

    def __call__(self, frame: CameraFrame) -> tuple[int, int, float, int]:
        if frame.index == 13:
            raise ValueError("unlucky frame")
        return os.getpid(), frame.index, frame.t, int(frame.image.sum()) + self.offset


def broken() -> Summing:
    raise OSError("no such model")


def test_a_stage_in_its_own_process_sees_every_frame_and_answers_in_order():
    stage = ProcessStage("cards", functools.partial(Summing, 1), max_size=(64, 48))
    try:
        img = np.arange(48 * 64 * 3, dtype=np.uint8).reshape(48, 64, 3)
        with StagePipeline(table_stages({"cards": stage}, {})) as pipe:
            out = pipe.process([CameraFrame("cards", 0, 0.0, img), CameraFrame("cards", 1, 0.1, img[:10, :20])])
        (pid0, i0, t0, s0), (pid1, i1, _, s1) = [o.observations[0] for o in out]
        assert pid0 == pid1 != os.getpid()
        assert (i0, t0, s0) == (0, 0.0, int(img.sum()) + 1) and (i1, s1) == (1, int(img[:10, :20].sum()) + 1)
        with pytest.raises(StageFailed, match="failed on frame 13: ValueError: unlucky frame"):
            stage(CameraFrame("cards", 13, 1.3, img))
        assert stage(CameraFrame("cards", 14, 1.4, img))[1] == 14  # an error is one frame's, not the stage's
        with pytest.raises(StageFailed, match="larger than this stage takes"):
            stage(CameraFrame("cards", 15, 1.5, np.zeros((100, 100, 3), np.uint8)))
        assert stage.usage()["cpu_s"] > 0
    finally:
        stage.close()


def test_a_stage_that_cannot_start_is_a_named_error():
    with pytest.raises(StageFailed, match="could not start: OSError: no such model"):
        ProcessStage("cards", broken, max_size=(8, 8))
