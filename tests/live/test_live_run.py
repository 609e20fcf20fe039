"""`run_live` with a video file as the camera and a stream of microphone blocks: cards read
into actions, every captured frame recorded, the microphone recorded in segments and heard."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from referee.table.zones import TableZones, rect_zone
from tablereferee.recording.folder import SegmentWriter, SessionFolder, read_segments
from tablereferee.run import TableConfig, run_live
from vision.audio.sources import SAMPLE_RATE, AudioClip, load
from vision.cards.decks import card
from vision.cards.render import render_card

DEMO = Path(__file__).resolve().parents[2] / "datasets" / "demo"


def _video(path, seconds=3.0, fps=10.0):
    """A dark cloth; the egg Star 3 is turned up in the middle at 1 s."""
    face = render_card(card("beccato", "egg:star-3"), "classic", px_per_mm=1.6)  # ~100 x 140 px
    w = SegmentWriter(path, segment_seconds=100.0)
    for k in range(int(seconds * fps)):
        img = np.full((240, 320, 3), (40, 90, 30), np.uint8)
        if k / fps >= 1.0:
            h, ww = face.shape[:2]
            img[50 : 50 + h, 110 : 110 + ww] = face
        w.write(k / fps, img)
    w.close()
    return w.segments[0]


def test_run_live_from_a_file_camera_and_a_microphone(tmp_path):
    video = _video(tmp_path / "src")
    zones = TableZones([rect_zone("eggs", "cam", 0, 0, 320, 240, "eggs")])
    config = TableConfig(
        game="beccato",
        setup={"players": ["Anna", "Bruno", "Carla", "Dario"]},
        zones=zones,
        finder="contour",
        audio=True,
    )
    hum = load(DEMO / "audio.wav").slice(8.5, 13.0).samples
    blocks = [
        AudioClip(hum[i : i + SAMPLE_RATE // 2], start=i / SAMPLE_RATE) for i in range(0, len(hum), SAMPLE_RATE // 2)
    ]
    result = run_live(
        {"cam": str(video)},
        tmp_path / "session",
        config,
        paced=False,
        microphone=blocks,
        origin=1_800_000_000.0,
        lockstep=True,
    )  # every frame read, whatever the load
    result.session.close()
    entries = result.session.log.entries
    actions = [e.payload["action"] for e in entries if e.kind == "action"]
    assert actions == [{"kind": "draw_egg", "egg": "star-3"}]
    # Every captured frame is recorded, on the same clock.
    folder = SessionFolder.open(tmp_path / "session")
    recorded = list(read_segments(folder.camera_dir("cam")))
    assert len(recorded) == result.captured["cam"] == 30
    # The microphone: recorded in segments, heard, logged as a signal nobody's mouth explains.
    assert list(folder.audio_dir.glob("seg_*.wav"))
    assert folder.audio_clip().duration > 4.0
    signals = [e.payload for e in entries if e.payload.get("type") == "signal"]
    assert [(s["signal"], s["player"]) for s in signals] == [("hum", "unknown")]
    assert folder.manifest["cameras"]["cam"]["kind"] == "file"


def test_a_missing_microphone_is_a_named_error_and_nothing_is_written(tmp_path):
    from click.testing import CliRunner

    from tablereferee.cli import cli

    out = tmp_path / "s"
    result = CliRunner().invoke(
        cli,
        [
            "live",
            "--from",
            str(DEMO),
            "--camera",
            f"cards={DEMO / 'cameras' / 'cards'}",
            "--finder",
            "contour",
            "--mic",
            "no such microphone",
            "--out",
            str(out),
        ],
        input="",
    )
    assert result.exit_code == 3
    assert "AudioDeviceNotFound" in result.output or "AudioBackendMissing" in result.output
    assert not out.exists()


def test_a_missing_camera_is_a_named_error(tmp_path):
    from click.testing import CliRunner

    from tablereferee.cli import cli

    result = CliRunner().invoke(
        cli,
        ["live", "--from", str(DEMO), "--camera", "cards=97", "--finder", "contour", "--out", str(tmp_path / "s")],
        input="",
    )
    assert result.exit_code == 3 and "CameraNotFound" in result.output


def test_live_from_a_table_file_records_the_session(tmp_path):
    from click.testing import CliRunner

    from tablereferee.cli import cli

    out = tmp_path / "s"
    result = CliRunner().invoke(
        cli,
        [
            "live",
            "--table",
            str(DEMO / "session.json"),
            "--camera",
            f"cards={DEMO / 'cameras' / 'cards'}",
            "--finder",
            "contour",
            "--duration",
            "3.5",
            "--out",
            str(out),
        ],
        input="note hello\n",
    )
    assert result.exit_code == 0, result.output
    assert "Egg star-3 is turned up from the deck onto the Orloff henhouse." in result.output
    folder = SessionFolder.open(out)
    assert folder.manifest["options"]["finder"] == "contour" and folder.manifest["zones"]
    assert list(read_segments(folder.camera_dir("cards")))
    notes = [e for e in folder_log(folder) if e.kind == "note"]
    assert [n.payload["text"] for n in notes] == ["hello"]


def folder_log(folder):
    from referee.sessionlog import read_log

    return read_log(folder.log_path).entries


def test_compare_logs_names_what_a_newer_model_changed(tmp_path):
    from referee.table import KeyboardLine, TableSession
    from tablereferee.run import compare_logs
    from tests.live.streams import SETUP, beccato_zones, frames

    def play(path, eggs):
        s = TableSession.start("beccato", SETUP, path, beccato_zones(), clock_origin=1.0)
        s.feed_all(frames(0, 1, {"eggs": eggs}))
        s.feed(KeyboardLine(1.0, "note done"))
        s.close()

    play(tmp_path / "a.db", ["egg:star-3"])
    play(tmp_path / "b.db", ["egg:star-3"])
    play(tmp_path / "c.db", ["egg:star-4"])
    same = compare_logs(tmp_path / "a.db", tmp_path / "b.db")
    assert same["same_log"] and same["same_actions"]
    other = compare_logs(tmp_path / "a.db", tmp_path / "c.db")
    assert not other["same_log"] and not other["same_actions"] and other["first_difference"]["entry"] == 1
    assert other["only_original"] == [{"kind": "draw_egg", "egg": "star-3"}]
    assert other["only_replay"] == [{"kind": "draw_egg", "egg": "star-4"}]
