"""The recording commands refuse nonsense with a named error before anything is written, and
say what they could not do: `live` options, a camera the table does not use, `demo --model` on
a file that is no model, `replay` of a session with nothing to replay, `live` on a video that
ends or breaks (a camera loss in the log)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.sessionlog import read_log
from referee.table.zones import TableZones, rect_zone
from tablereferee.cli import cli
from tablereferee.run import BadOption, TableConfig, UnknownCamera, run_live
from tests.recording.media import cut, video_file

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "datasets" / "demo"


def _live(tmp_path, *args):
    out = tmp_path / "s"
    result = CliRunner().invoke(cli, ["live", "--from", str(DEMO), "--out", str(out), "--fast", *args], input="")
    return result, out


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (["--threshold", "5"], "BadOption"),
        (["--threshold", "nan"], "BadOption"),
        (["--threshold", "-0.1"], "BadOption"),
        (["--segment-seconds", "0"], "BadSegmentLength"),
        (["--segment-seconds", "-3"], "BadSegmentLength"),
        (["--segment-seconds", "nan"], "BadSegmentLength"),
        (["--duration", "-5"], "BadOption"),
        (["--duration", "0"], "BadOption"),
        (["--duration", "inf"], "BadOption"),
        (["--camera", "bogus=..."], "UnknownCamera"),
        (["--camera", "card=0"], "UnknownCamera"),  # a typo would leave the card camera out
    ],
)
def test_live_refuses_nonsense_before_writing_anything(tmp_path, args, name):
    result, out = _live(tmp_path, *args)
    assert result.exit_code == 2, result.output
    assert f"error: {name}: " in result.output and "Traceback" not in result.output
    assert not out.exists()


@pytest.mark.parametrize(
    ("spec", "name"),
    [("cards=missing.mp4", "MediaNotFound"), ("cards=README.md", "UnreadableVideo"), ("cards=docs", "MediaNotFound")],
)
def test_live_names_a_camera_that_cannot_be_opened(tmp_path, spec, name):
    result, out = _live(tmp_path, "--camera", spec.replace("=", f"={ROOT}/", 1) if "missing" not in spec else spec)
    assert result.exit_code == 3, result.output
    assert f"error: {name}: " in result.output
    assert not out.exists()


def test_run_live_refuses_the_same_as_the_command(tmp_path):
    config = TableConfig(
        game="beccato", setup={"players": ["Anna", "Bruno"]}, zones=TableZones([rect_zone("eggs", "cam", 0, 0, 9, 9)])
    )
    with pytest.raises(UnknownCamera):
        run_live({"bogus": 0}, tmp_path / "s", config)
    with pytest.raises(BadOption):
        run_live({"cam": 0}, tmp_path / "s", config, duration=-5)
    with pytest.raises(BadOption):
        TableConfig.from_manifest(json.loads((DEMO / "session.json").read_text()), threshold=5.0)
    assert not (tmp_path / "s").exists()


def test_demo_with_a_file_that_is_no_model_is_a_named_error(tmp_path):
    junk = tmp_path / "model.onnx"
    junk.write_text("not a model")
    result = CliRunner().invoke(cli, ["demo", "--model", str(junk), "--out", str(tmp_path / "s"), "--quiet"])
    assert result.exit_code == 3, result.output
    assert "UnreadableModel" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "s").exists()


def test_replay_of_a_session_with_nothing_to_replay_is_refused(tmp_path):
    folder = tmp_path / "empty"
    folder.mkdir()
    shutil.copy(DEMO / "session.json", folder / "session.json")
    result = CliRunner().invoke(cli, ["replay", str(folder), "--out", str(tmp_path / "r")])
    assert result.exit_code == 3, result.output
    assert "error: NothingToReplay: " in result.output
    assert not (tmp_path / "r").exists()


def _table(camera: str = "cam") -> TableConfig:
    return TableConfig(
        game="beccato",
        setup={"players": ["Anna", "Bruno", "Carla", "Dario"]},
        zones=TableZones([rect_zone("eggs", camera, 0, 0, 96, 64, "eggs")]),
        finder="contour",
        audio=False,
    )


def _camera_losses(folder: Path) -> list[dict]:
    contents = read_log(folder / "log.db")
    return [e.payload for e in contents.entries if e.payload.get("type") == "camera"]


def test_live_on_a_video_that_ends_logs_the_camera_lost(tmp_path):
    video = video_file(tmp_path / "table.mp4", seconds=2.0)
    result = run_live({"cam": str(video)}, tmp_path / "s", _table(), paced=False, lockstep=True)
    result.session.close()
    assert _camera_losses(tmp_path / "s") == [
        {"type": "camera", "camera": "cam", "ok": False, "reason": "the video ended"}
    ]


def test_live_on_a_video_that_breaks_logs_where_it_broke(tmp_path):
    video = cut(video_file(tmp_path / "table.mp4", seconds=4.0), 0.5)
    result = run_live({"cam": str(video)}, tmp_path / "s", _table(), paced=False, lockstep=True)
    result.session.close()
    [loss] = _camera_losses(tmp_path / "s")
    assert not loss["ok"] and "table.mp4 is cut or damaged: read" in loss["reason"] and "of 4.0 s" in loss["reason"]
    assert 0 < result.captured["cam"] < 40
