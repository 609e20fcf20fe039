"""The run loop's stages side by side (`tablereferee.run`, `vision.capture.pipeline`): live, a
stage still busy skips the frames the table takes meanwhile (counted) and answers the newest
one once free, never a backlog; a recording gives the log that the stages one after another
give. Synchronised on the frames the table takes, never on sleeps or timings."""

from __future__ import annotations

import gzip
import json
import multiprocessing
import threading
import types
from pathlib import Path

import numpy as np
import pytest

import tablereferee.run as R
from referee.observations import CardsSeen
from referee.table.zones import TableZones, rect_zone
from tablereferee.run import TableConfig, compare_logs, run_live, run_recorded
from vision.capture.grabber import Grabber
from vision.capture.sources import CameraFrame, CaptureSource
from vision.cards.read_pool import ReadingPool

DEMO = Path(__file__).resolve().parents[2] / "datasets" / "demo"
IMAGE = np.zeros((24, 32, 3), np.uint8)
FRAMES = 40  # the camera's frames
HELD = 6  # the frames the table takes while the slow stage works on its first one


class Taken:
    """The frame indices the table has taken from the camera, and a wait for one of them."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.indices: list[int] = []

    def add(self, index: int) -> None:
        with self.cond:
            self.indices.append(index)
            self.cond.notify_all()

    def wait_for(self, index: int, timeout: float = 20.0) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: bool(self.indices) and self.indices[-1] >= index, timeout)


class Camera(CaptureSource):
    """A file-like camera that reads its next frame once the table has taken the one before
    (so the grabber skips none, and every frame reaches the table's stages to take or skip)."""

    kind = "file"
    media = True

    def __init__(self, name: str, clock, taken: Taken, patience: float = 20.0) -> None:
        super().__init__(name, clock)
        self.taken, self.patience = taken, patience

    def read(self) -> CameraFrame | None:
        if self.index >= FRAMES:
            return None
        if self.index > 0 and not self.taken.wait_for(self.index - 1, self.patience):
            raise RuntimeError("the table stopped taking frames")
        frame = CameraFrame(self.name, self.index, self.clock.now(), IMAGE)
        self.index += 1
        return frame


class SlowCards:
    """The artificial slow stage: its first frame keeps it busy until the table has offered it
    HELD more frames (an overloaded machine); then it answers every frame at once."""

    instances: list[SlowCards] = []

    def __init__(self, camera: str, taken: Taken, **_: object) -> None:
        self.camera, self.taken = camera, taken
        self.finder, self.model_path = "slow", None
        self.deck = types.SimpleNamespace(name="beccato", source="none")
        self.seen: list[int] = []
        self.threads: set[str] = set()
        SlowCards.instances.append(self)

    def due(self, t: float) -> bool:
        return True  # every frame, so that each one is either read or skipped

    def __call__(self, frame: CameraFrame) -> CardsSeen:
        self.threads.add(threading.current_thread().name)
        if not self.seen:
            # the table takes a frame only once it has given the one before to its stages: with
            # frame HELD + 1 taken, frames 1..HELD have all been offered to this busy stage
            assert self.taken.wait_for(frame.index + HELD + 1), "the loop waited for the busy stage"
        self.seen.append(frame.index)
        return CardsSeen(frame.t, frame.camera, (), frame.index)


class Listener:
    def __init__(self) -> None:
        self.frames: list[int] = []
        self.cards: list[int] = []

    def started(self, session) -> None:
        pass

    def frame(self, frame: CameraFrame, observations) -> None:
        self.frames.append(frame.index)
        self.cards += [o.frame for o in observations if isinstance(o, CardsSeen)]


@pytest.fixture
def slow_table(monkeypatch):
    taken = Taken()

    class Counting(Grabber):
        def latest(self, timeout=None):
            frame = super().latest(timeout)
            if frame is not None:
                taken.add(frame.index)
            return frame

    SlowCards.instances = []
    monkeypatch.setattr(R, "Grabber", Counting)
    monkeypatch.setattr(R, "open_capture", lambda spec, name, clock, paced=False: Camera(name, clock, taken))
    monkeypatch.setattr(R, "CardStage", lambda camera, **kw: SlowCards(camera, taken, **kw))
    return taken


def test_a_busy_stage_skips_the_frames_the_live_table_takes_meanwhile_and_then_reads_the_newest(slow_table, tmp_path):
    config = TableConfig(
        game="beccato",
        setup={"players": ["Anna", "Bruno", "Carla", "Dario"]},
        zones=TableZones([rect_zone("eggs", "cam", 0, 0, 32, 24, "eggs")]),
        audio=False,
    )
    listener = Listener()
    result = run_live({"cam": "stand-in"}, tmp_path / "s", config, record=False, listener=listener)
    result.session.close()
    (stage,) = SlowCards.instances
    assert result.captured == {"cam": FRAMES} and result.dropped == {"cam": 0}  # the grabber skipped none
    assert slow_table.indices == list(range(FRAMES))  # the table took every frame, in order
    skipped = result.stage_dropped["cards:cam"]
    # the HELD frames taken while the stage was busy were skipped and counted ...
    assert skipped >= HELD
    # ... not queued: the next frame it read came after them (a queue would answer frame 1 next,
    # and every answer later and later)
    assert stage.seen[0] == 0 and stage.seen[1] > HELD
    assert stage.seen == sorted(set(stage.seen))
    assert len(stage.seen) + skipped == FRAMES  # each frame read or skipped, none twice
    assert result.stage_frames["cards"] == len(stage.seen)
    # it ran on its own thread, not the table's
    assert threading.main_thread().name not in stage.threads and stage.threads
    # every frame reached the table in order, each with what the stage read of it
    assert listener.frames == list(range(FRAMES))
    assert listener.cards == stage.seen


def test_a_stage_that_fails_is_an_error_on_the_tables_thread_and_the_run_ends_in_order(monkeypatch, tmp_path):
    taken = Taken()

    class Failing(SlowCards):
        def __call__(self, frame):
            raise RuntimeError("the card reader broke")

    class Counting(Grabber):
        def latest(self, timeout=None):
            frame = super().latest(timeout)
            if frame is not None:
                taken.add(frame.index)
            return frame

    monkeypatch.setattr(R, "Grabber", Counting)
    # the table stops at frame 0: the camera need not wait long for the next frame to be taken
    monkeypatch.setattr(R, "open_capture", lambda spec, name, clock, paced=False: Camera(name, clock, taken, 0.2))
    monkeypatch.setattr(R, "CardStage", lambda camera, **kw: Failing(camera, taken, **kw))
    config = TableConfig(
        game="beccato",
        setup={"players": ["Anna", "Bruno", "Carla", "Dario"]},
        zones=TableZones([rect_zone("eggs", "cam", 0, 0, 32, 24, "eggs")]),
        audio=False,
    )
    with pytest.raises(RuntimeError, match="the card reader broke"):
        run_live({"cam": "stand-in"}, tmp_path / "s", config, record=False)
    # and the run still ended in order: the stages' workers are gone, the log is closed
    assert not [t for t in threading.enumerate() if t.name.startswith("stage-cards:cam") and t.is_alive()]
    assert (tmp_path / "s" / "session.json").is_file()


def _demo_config() -> TableConfig:
    """The demo's cards camera (contour finder: no model) and its people camera (MediaPipe),
    sounds off."""
    config = TableConfig.from_manifest(json.loads((DEMO / "session.json").read_text()), finder="contour")
    config.audio, config.duration = False, 6.0
    return config


@pytest.fixture(scope="module")
def one_after_another(tmp_path_factory):
    """The demo refereed with its stages one after another on the table's thread (the baseline)."""
    a = run_recorded(DEMO, tmp_path_factory.mktemp("seq"), _demo_config(), parallel=False, copy_media=False)
    a.session.close()
    return a


def test_a_recording_through_the_stages_side_by_side_gives_the_log_of_one_after_another(one_after_another, tmp_path):
    """Every due frame processed, the observations in frame order."""
    a = one_after_another
    b = run_recorded(DEMO, tmp_path / "par", _demo_config(), parallel=True, copy_media=False)
    b.session.close()
    assert a.stage_frames == b.stage_frames and a.stage_frames["cards"] > 0 and a.stage_frames["signals"] > 0
    same = compare_logs(a.folder.log_path, b.folder.log_path)
    assert same["same_log"], same["first_difference"]
    assert same["entries"][0] > 3
    assert _tracks(a.folder.path) == _tracks(b.folder.path) and _tracks(a.folder.path)


def test_a_recording_with_the_signal_stages_first_gives_the_same_log_and_tracks(
    one_after_another, tmp_path, monkeypatch
):
    """One kind of stage at a time: the seats' landmarks over the whole recording first, their
    graphs closed before the card stage is made, then the cards with the table; what the signal
    stage answered is given again in frame order, so the log and tracks are those of one stage
    after another."""
    made: list[str] = []
    closed: list[str] = []
    card_stage, signal_close = R.CardStage, R.SignalStage.close

    def card(*args, **kwargs):
        made.append("cards")
        return card_stage(*args, **kwargs)

    def close(self):
        closed.append(f"signals:{len(made)} card stages made")
        signal_close(self)

    monkeypatch.setattr(R, "CardStage", card)
    monkeypatch.setattr(R.SignalStage, "close", close)
    a = one_after_another
    b = run_recorded(DEMO, tmp_path / "first", _demo_config(), copy_media=False, one_kind_at_a_time=True)
    b.session.close()
    assert closed == ["signals:0 card stages made"] and made == ["cards"]  # the graphs went before the cards came
    assert a.stage_frames == b.stage_frames and b.stage_frames["signals"] > 0
    assert b.stage_seconds["signals"] > 0  # the first pass's time is counted
    same = compare_logs(a.folder.log_path, b.folder.log_path)
    assert same["same_log"], same["first_difference"]
    assert any(e.payload.get("type") == "signal" for e in b.session.log.entries)  # the replayed stage's events
    assert _tracks(a.folder.path) == _tracks(b.folder.path)


def _tracks(folder: Path) -> dict[str, bytes]:
    """Every file of a session's tracks, unpacked (a gzip member's header holds its time)."""
    out = {}
    for f in sorted((folder / "tracks").rglob("*")):
        if f.is_file():
            out[str(f.relative_to(folder))] = gzip.decompress(f.read_bytes()) if f.suffix == ".gz" else f.read_bytes()
    return out


def test_a_recording_read_with_reading_workers_gives_the_same_log_and_tracks(one_after_another, tmp_path, monkeypatch):
    """`options.read_workers`: a frame's cards read on a worker process beside the card stage
    (`vision.cards.read_pool`) give the log and tracks of one process; the workers stop with the run."""
    shared: list[int] = []  # the frames the worker took part in
    read_rows = ReadingPool.read_rows

    def counted(self, *args):
        read_rows(self, *args)
        shared.append(self.frames)

    monkeypatch.setattr(ReadingPool, "read_rows", counted)
    config = _demo_config()
    config.read_workers = 1
    assert config.options()["read_workers"] == 1  # stored with the session
    b = run_recorded(DEMO, tmp_path / "pool", config, parallel=True, copy_media=False)
    b.session.close()
    a = one_after_another
    same = compare_logs(a.folder.log_path, b.folder.log_path)
    assert same["same_log"], same["first_difference"]
    assert _tracks(a.folder.path) == _tracks(b.folder.path)
    assert shared and shared[-1] >= 1  # frames of several cards were read on both processes
    assert not [p for p in multiprocessing.active_children() if p.name == "card-reader"]


@pytest.mark.parametrize("value", [-1, 9, 1.5, "2", True])
def test_a_table_file_asking_for_impossible_reading_workers_is_refused(value):
    manifest = json.loads((DEMO / "session.json").read_text())
    manifest.setdefault("options", {})["read_workers"] = value
    with pytest.raises(R.TableConfigError, match="read_workers|malformed"):
        TableConfig.from_manifest(manifest)


def test_a_table_file_without_reading_workers_stores_no_such_option():
    config = TableConfig.from_manifest(json.loads((DEMO / "session.json").read_text()))
    assert config.read_workers == 0 and "read_workers" not in config.options()
