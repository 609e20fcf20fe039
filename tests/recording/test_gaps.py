"""Recorded video read back: every stretch without video is named with its reason, a segment
cut by a crash stays readable up to its last fragment and seekable, a cut video file says how
much of it was read, a writer refuses a segment length that means nothing."""

from __future__ import annotations

import math
from pathlib import Path

import av
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablereferee.recording.folder import (
    GAP_SECONDS,
    BadSegmentLength,
    SegmentProblem,
    SegmentWriter,
    SessionFolder,
    camera_gaps,
    gaps_in,
    read_segments,
)
from tests.recording.media import camera_folder, cut, image, video_file
from vision.capture.sources import open_capture
from vision.video import open_frames


def _times(folder, problems=None):
    return [t for t, _ in read_segments(folder, problems, images=False)]


def test_a_whole_recording_has_no_gap(tmp_path):
    camera_folder(tmp_path / "cam")
    assert camera_gaps(tmp_path / "cam", "cam", 0.0, 5.0) == []
    assert len(_times(tmp_path / "cam")) == 50


def test_a_missing_segment_is_named_with_its_times(tmp_path):
    w = camera_folder(tmp_path / "cam")
    w.segments[2].unlink()  # 2.0-2.9 s
    gaps = camera_gaps(tmp_path / "cam", "cam", 0.0, 5.0)
    assert [g.describe() for g in gaps] == ["camera cam: no video from 1.9 s to 3.0 s (no segment file covers it)"]


def test_an_unreadable_segment_is_named_by_file(tmp_path):
    w = camera_folder(tmp_path / "cam")
    w.segments[1].write_bytes(b"\x00" * 100)
    gaps = camera_gaps(tmp_path / "cam", "cam", 0.0, 5.0)
    assert len(gaps) == 1 and (gaps[0].start, gaps[0].end) == (0.9, 2.0)
    assert gaps[0].reason.startswith("seg_000001000.mp4 is unreadable")


def test_the_end_of_the_video_before_the_session_ends_is_named(tmp_path):
    camera_folder(tmp_path / "cam", seconds=2.0)
    gaps = camera_gaps(tmp_path / "cam", "cam", 0.0, 6.0)
    assert [g.describe() for g in gaps] == ["camera cam: no video from 1.9 s to 6.0 s (the video ends)"]
    assert [g.describe() for g in camera_gaps(tmp_path / "none", "none", 0.0, 3.0)] == [
        "camera none: no video from 0.0 s to 3.0 s (no video was recorded)"
    ]


def test_a_segment_cut_by_a_kill_keeps_its_fragments_and_is_named(tmp_path):
    w = SegmentWriter(tmp_path / "cam", segment_seconds=10.0, fragment_seconds=0.5)
    for k in range(40):  # 4 s at 10 fps, the writer never closed: what SIGKILL leaves
        w.write(k / 10, image(k))
    problems: list[SegmentProblem] = []
    times = _times(tmp_path / "cam", problems)
    assert times and times[0] == 0.0 and times[-1] >= 4.0 - 1.5  # the last fragment or so is lost
    assert [p.reason for p in problems] == ["was cut while it was written"]
    w.close()  # closed after all: the same file is whole, indexed, and nothing is named
    problems.clear()
    assert len(_times(tmp_path / "cam", problems)) == 40 and problems == []


def test_a_closed_segment_is_seekable(tmp_path):
    w = SegmentWriter(tmp_path / "cam", segment_seconds=100.0)
    for k in range(60):
        w.write(k / 10, image(k))
    w.close()
    with av.open(str(w.segments[0])) as c:
        stream = c.streams.video[0]
        c.seek(int(4.0 / stream.time_base), stream=stream, backward=True)
        frame = next(c.decode(stream))
        assert frame.time is not None and frame.time <= 4.0  # from a key frame at or before it
        assert any(abs(f.time - 4.0) < 1e-3 for f in c.decode(stream))


def test_the_session_names_the_gaps_of_every_camera(tmp_path):
    folder = SessionFolder.create(tmp_path / "s", {"created": 0.0, "duration": 5.0, "cameras": {"a": {}, "b": {}}})
    camera_folder(folder.camera_dir("a"))
    w = camera_folder(folder.camera_dir("b"))
    w.segments[-1].unlink()
    assert [g.describe() for g in folder.video_gaps()] == ["camera b: no video from 3.9 s to 5.0 s (the video ends)"]
    assert folder.cameras_with_video() == ["a", "b"]


@pytest.mark.parametrize("bad", [0, -3, math.nan, math.inf, 0.1])
def test_a_segment_length_that_means_nothing_is_refused(tmp_path, bad):
    with pytest.raises(BadSegmentLength):
        SegmentWriter(tmp_path / "cam", segment_seconds=bad)


def test_a_cut_video_file_says_how_much_was_read(tmp_path, capfd):
    whole = video_file(tmp_path / "whole.mp4")
    short = cut(whole, 0.5, tmp_path / "cut.mp4")
    src = open_frames(whole)
    assert len(list(src)) == 40 and src.shortfall is None
    src = open_frames(short)
    frames = list(src)
    assert 0 < len(frames) < 40
    assert src.shortfall and "cut.mp4 is cut or damaged: read" in src.shortfall and "of 4.0 s" in src.shortfall
    assert f"warning: {src.shortfall}" in capfd.readouterr().err
    # the same through a camera source: the video breaks, it does not simply end
    cam = open_capture(short, "cam")
    while cam.read() is not None:
        pass
    assert cam.failed and "of 4.0 s" in cam.reason
    whole_cam = open_capture(whole, "cam")
    while whole_cam.read() is not None:
        pass
    assert not whole_cam.failed


@settings(max_examples=300, deadline=None)
@given(
    times=st.lists(st.floats(0, 20, allow_nan=False).map(lambda t: round(t, 3)), max_size=40),
    start=st.floats(0, 10).map(lambda t: round(t, 3)),
    length=st.floats(0, 15).map(lambda t: round(t, 3)),
    cut_at=st.none() | st.floats(0, 25).map(lambda t: round(t, 3)),
)
def test_every_stretch_without_video_is_one_named_gap(times, start, length, cut_at):
    end = start + length
    problems = [] if cut_at is None else [SegmentProblem(Path("seg_x.mp4"), cut_at, "is damaged (test)", 1, cut_at)]
    gaps = gaps_in(times, problems, "cam", start, end)
    long_ = [g for g in gaps if g.end - g.start > 1e-3]
    # no gap holds a frame, every gap is longer than GAP_SECONDS, each has its reason
    for g in long_:
        assert not any(g.start + 1e-3 < t < g.end - 1e-3 for t in times)
        assert g.end - g.start > GAP_SECONDS - 2e-3 and g.reason
    # every stretch of the window longer than GAP_SECONDS without a frame is a gap
    edges = [start] + sorted(t for t in times if start <= t <= end) + [end]
    for a, b in zip(edges, edges[1:], strict=False):
        if b - a > GAP_SECONDS + 2e-3:
            assert any(g.start <= a + 1e-3 and g.end >= b - 1e-3 for g in long_), (a, b, gaps)
    # a damaged segment inside the window is always named
    if cut_at is not None and start <= cut_at <= end:
        assert any("seg_x.mp4 is damaged" in g.reason for g in gaps)
