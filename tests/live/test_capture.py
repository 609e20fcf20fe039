"""Capture: latest-frame semantics, a lost camera reported and reconnected, recorded cameras
read back with their gaps, segments that survive a crash, named errors for bad sources."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from referee.observations import CameraStatus
from referee.table.zones import BadZones, TableZones, rect_zone
from tablereferee.recording.folder import SegmentWriter, SessionFolder, SessionFolderError, read_segments
from tablereferee.recording.playback import camera_stream
from vision.capture.grabber import Grabber
from vision.capture.sources import CameraFrame, CaptureSource, SessionClock, StreamUnavailable, open_capture
from vision.capture.stages import RateGate, contour_cards
from vision.video import CameraNotFound, MediaNotFound, UnreadableVideo


class ManualClock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


class ScriptedSource(CaptureSource):
    """Frames on demand: `read` blocks until the test releases the next step ("frame", "fail")."""

    def __init__(self, steps: list[str], clock: SessionClock) -> None:
        super().__init__("cam", clock)
        self.steps = list(steps)
        self.go = threading.Semaphore(0)
        self.reopened = 0

    def read(self):
        self.go.acquire()
        if not self.steps:
            return None
        step = self.steps.pop(0)
        if step == "fail":
            self.failed, self.reason = True, "unplugged"
            return None
        frame = CameraFrame(self.name, self.index, float(self.index), np.zeros((4, 4, 3), np.uint8))
        self.index += 1
        return frame

    def reopen(self) -> bool:
        self.reopened += 1
        self.failed = False
        return True


def test_a_slow_consumer_gets_the_latest_frame_and_the_others_are_dropped():
    clock = SessionClock(origin=0.0, monotonic=ManualClock())
    src = ScriptedSource(["frame"] * 5, clock)
    recorded = []
    g = Grabber(src, sink=recorded.append).start()
    for _ in range(6):
        src.go.release()
    with g._cond:
        g._cond.wait_for(lambda: g.finished, timeout=10)
    frame = g.latest()
    assert frame.index == 4 and g.dropped == 4  # four frames no one took: skipped, not queued
    assert [f.index for f in recorded] == [0, 1, 2, 3, 4]  # the recording keeps every frame
    assert g.latest() is None and g.done
    g.stop()


def test_a_lockstep_grabber_hands_over_every_frame_of_a_file():
    clock = SessionClock(origin=0.0, monotonic=ManualClock())
    src = ScriptedSource(["frame"] * 5, clock)
    for _ in range(6):
        src.go.release()  # the file could be read to the end at once
    g = Grabber(src, lockstep=True).start()
    taken = []
    while not g.done:
        frame = g.latest(timeout=10)  # a slow consumer: the reader waits for it
        if frame is not None:
            taken.append(frame.index)
    assert taken == [0, 1, 2, 3, 4] and g.dropped == 0
    g.stop()


def test_lockstep_refuses_a_live_camera_and_writes_nothing(tmp_path, monkeypatch):
    from tablereferee import run as R

    class Webcam(ScriptedSource):
        kind = "webcam"

    clock = SessionClock(origin=0.0, monotonic=ManualClock())
    monkeypatch.setattr("tablereferee.run.open_capture", lambda *a, **k: Webcam([], clock))
    from referee.table.zones import TableZones

    config = R.TableConfig(game="beccato", setup={"players": ["Anna", "Bruno"]}, zones=TableZones([]), finder="contour")
    with pytest.raises(ValueError, match="lockstep reads files only; cam is a live camera"):
        R.run_live({"cam": 0}, tmp_path / "s", config, lockstep=True)
    assert not (tmp_path / "s").exists()


def test_a_lost_camera_is_reported_reconnected_and_back():
    clock = SessionClock(origin=0.0, monotonic=ManualClock())
    src = ScriptedSource(["frame", "fail", "frame"], clock)
    g = Grabber(src, retry=0.001)
    g.start()
    for _ in range(4):
        src.go.release()
    with g._cond:
        g._cond.wait_for(lambda: g.finished, timeout=10)
    events = g.take_events()
    assert [(e.ok, e.reason) for e in events] == [(False, "unplugged"), (True, "frames again")]
    assert src.reopened == 1 and g.frames == 2
    g.stop()


def test_a_camera_that_stops_answering_is_lost_after_the_timeout():
    ticks = ManualClock()
    clock = SessionClock(origin=0.0, monotonic=ticks)
    src = ScriptedSource(["frame", "frame"], clock)
    g = Grabber(src, lost_after=2.0).start()
    src.go.release()
    assert g.latest(timeout=10).index == 0
    ticks.t = 2.5  # no frame for 2.5 s: a blocked driver read
    g.check()
    assert [(e.ok, e.t) for e in g.take_events()] == [(False, 2.5)]
    src.go.release()
    src.go.release()
    src.go.release()
    g.stop()


def test_recorded_camera_gaps_become_lost_and_back(tmp_path):
    w = SegmentWriter(tmp_path / "cam", segment_seconds=1.0)
    img = np.zeros((64, 64, 3), np.uint8)
    for t in [0.0, 0.1, 0.2, 3.0, 3.1]:
        w.write(t, img)
    w.close()
    items = list(camera_stream("cam", tmp_path / "cam", lost_after=2.0, end=8.0))
    statuses = [(i.t, i.ok) for i in items if isinstance(i, CameraStatus)]
    assert statuses == [(2.2, False), (3.0, True), (5.1, False)]
    assert [round(i.t, 2) for i in items if isinstance(i, CameraFrame)] == [0.0, 0.1, 0.2, 3.0, 3.1]


def test_a_segment_cut_by_a_crash_loses_only_itself(tmp_path):
    w = SegmentWriter(tmp_path / "cam", segment_seconds=1.0)
    img = np.full((64, 64, 3), 128, np.uint8)
    for k in range(25):
        w.write(k * 0.1, img)
    # the process dies: the open segment (2.0 s on) is never finished
    last = w.segments[-1]
    w._container = None
    data = last.read_bytes() if last.exists() else b""
    last.write_bytes(data[:200] or b"\x00\x00\x00\x18ftypisom")  # what a killed writer leaves
    problems = []
    times = [t for t, _ in read_segments(tmp_path / "cam", problems)]
    assert times == [round(k * 0.1, 4) for k in range(20)]
    assert [p.path.name for p in problems] == [last.name]  # named, not skipped in silence


def test_session_folders_refuse_what_is_not_theirs(tmp_path):
    with pytest.raises(SessionFolderError):
        SessionFolder.open(tmp_path)
    (tmp_path / "session.json").write_text('{"format": "something else"}')
    with pytest.raises(SessionFolderError):
        SessionFolder.open(tmp_path)
    folder = SessionFolder.create(tmp_path / "s", {"created": 1.0})
    with pytest.raises(SessionFolderError):
        SessionFolder.create(tmp_path / "s", {"created": 1.0})
    folder.append_input(1.5, "coccode Anna")
    with open(folder.path / "inputs.jsonl", "a") as f:
        f.write('{"t": 2.0, "te')  # a line cut by a crash
    assert folder.inputs() == [(1.5, "coccode Anna")]


def test_bad_sources_are_named(tmp_path):
    with pytest.raises(MediaNotFound):
        open_capture(tmp_path / "missing.mp4")
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"not a video at all")
    with pytest.raises(UnreadableVideo):
        open_capture(bad)
    with pytest.raises(CameraNotFound):
        open_capture(97)
    with pytest.raises(StreamUnavailable):
        open_capture("rtsp://127.0.0.1:9/none")


def test_bad_zones_are_named():
    with pytest.raises(BadZones):
        TableZones([rect_zone("a", "c", 0, 0, 1, 1), rect_zone("a", "c", 1, 1, 2, 2)])
    with pytest.raises(BadZones):
        rect_zone("seat:x", "c", 0, 0, 1, 1, "seat")  # a seat zone names its player
    with pytest.raises(BadZones):
        TableZones.from_list([{"name": "z", "polygon": [[0, 0]]}])
    zones = TableZones([rect_zone("left", "c", 0, 0, 10, 10), rect_zone("right", "c", 10, 0, 20, 10)])
    assert zones.locate("c", [[5, 5], [15, 5], [25, 5]]) == ["left", "right", None]


def test_rate_gate_keeps_the_rate_of_frame_time():
    gate = RateGate(5.0)
    times = [k / 25 for k in range(50)]  # 25 fps for 2 s
    assert sum(gate.due(t) for t in times) == 10


def test_contour_cards_finds_light_cards_on_a_dark_cloth():
    img = np.full((360, 640, 3), (40, 90, 30), np.uint8)
    img[50:210, 100:215] = 235  # a portrait card 115 x 160
    img[100:215, 300:460] = 235  # one lying sideways
    dets = contour_cards(img)
    assert len(dets) == 2
    for quad in dets.corners:
        top = np.linalg.norm(quad[1] - quad[0])
        side = np.linalg.norm(quad[2] - quad[1])
        assert top < side  # corners in the card's portrait order


def test_outline_refines_loose_detector_corners():
    from vision.cards.detections import CardDetections
    from vision.cards.outlines import snap_to_cloth_outlines

    img = np.full((360, 640, 3), (40, 90, 30), np.uint8)
    img[50:210, 100:215] = 235  # a portrait card, 115 x 160, corners (100,50) (214,50) (214,209) (100,209)
    img[150:209, 100:130] = (20, 40, 120)  # dark print reaching the card's edge
    true = np.array([[100, 50], [214, 50], [214, 209], [100, 209]], np.float32)
    centre = true.mean(axis=0)
    loose = centre + 0.4 * (true - centre)  # an undertrained model's corners, pulled inwards
    upside_down = np.roll(loose, 2, axis=0)  # and the card read as upside down
    dets = CardDetections.from_corners(np.stack([loose, upside_down]), confidence=[0.9, 0.5])
    out = snap_to_cloth_outlines(img, dets[:1])
    assert np.abs(out.corners[0] - true).max() <= 2.0
    turned = snap_to_cloth_outlines(img, CardDetections.from_corners(upside_down[None], confidence=[0.9]))
    assert np.abs(turned.corners[0] - np.roll(true, 2, axis=0)).max() <= 2.0  # the detector's order kept
    # two detections that land on the same card are one
    assert len(snap_to_cloth_outlines(img, dets)) == 1


def test_a_stream_url_is_read_and_reconnected_when_it_ends(tmp_path):
    """A stream from 127.0.0.1 (a video served over HTTP): read through OpenCV/FFmpeg; when the
    stream ends the camera is reported lost, reopened, and back."""
    import functools
    import http.server

    w = SegmentWriter(tmp_path / "www", segment_seconds=100.0)
    for k in range(10):
        w.write(k / 10, np.full((48, 64, 3), 20 * k, np.uint8))
    w.close()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path / "www"))
    handler.log_message = lambda *a, **k: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/{w.segments[0].name}"
        src = open_capture(url, "net")
        assert src.kind == "stream"
        g = Grabber(src, retry=0.05).start()
        with g._cond:
            assert g._cond.wait_for(lambda: len(g.events) >= 2 and g.frames >= 15, timeout=30)
        events = g.take_events()
        assert [e.ok for e in events[:2]] == [False, True]
        assert g.latest() is not None
        g.stop()
    finally:
        server.shutdown()
