"""Frame sources and their named errors."""

import cv2
import numpy as np
import pytest

from vision.video import (
    CameraNotFound,
    EmptyVideo,
    MediaNotFound,
    UnreadableImage,
    UnreadableVideo,
    open_frames,
    read_image,
)


def test_an_image_is_one_frame_at_time_zero(tmp_path):
    p = tmp_path / "a.png"
    cv2.imwrite(str(p), np.full((20, 30, 3), 7, np.uint8))
    src = open_frames(p)
    frames = list(src)
    assert src.kind == "image" and src.size == (30, 20)
    assert len(frames) == 1 and frames[0].time == 0.0 and frames[0].image.shape == (20, 30, 3)


def test_a_video_gives_timestamped_frames(tmp_path):
    p = tmp_path / "v.avi"
    w = cv2.VideoWriter(str(p), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for i in range(5):
        w.write(np.full((48, 64, 3), 40 * i, np.uint8))
    w.release()
    with open_frames(str(p)) as src:
        frames = list(src)
    assert src.kind == "video" and src.fps == pytest.approx(10)
    assert [f.index for f in frames] == [0, 1, 2, 3, 4]
    assert [f.time for f in frames] == pytest.approx([0, 0.1, 0.2, 0.3, 0.4])
    assert frames[4].image.mean() > frames[1].image.mean()


def test_bad_media_are_named_errors(tmp_path):
    bad = tmp_path / "broken.png"
    bad.write_bytes(b"\x89PNG but not really")
    with pytest.raises(UnreadableImage):
        open_frames(bad)
    (tmp_path / "empty.jpg").write_bytes(b"")
    with pytest.raises(UnreadableImage):
        read_image(tmp_path / "empty.jpg")
    empty = tmp_path / "empty.avi"
    w = cv2.VideoWriter(str(empty), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    w.release()
    with pytest.raises(EmptyVideo) as err:
        open_frames(empty)
    assert err.value.details["path"] == str(empty)
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"\x00" * 100)
    with pytest.raises((UnreadableVideo, EmptyVideo)):
        open_frames(junk)
    with pytest.raises(MediaNotFound):
        open_frames(tmp_path / "missing.mp4")
    with pytest.raises(CameraNotFound):
        open_frames(97)
