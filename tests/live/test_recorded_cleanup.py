"""A recorded run that fails before the table starts leaves no stage open, and an `out` folder
that already holds a session is refused before anything is started."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import tablereferee.run as R
from tablereferee.recording.folder import SessionFolderError
from tablereferee.run import run_recorded
from vision.capture.audio import AudioPathFailed

DEMO = Path(__file__).resolve().parents[2] / "datasets" / "demo"


class _Stages:
    made: list[_Stages] = []

    def __init__(self, *args, **kwargs) -> None:
        self.closed = False
        _Stages.made.append(self)

    def close(self) -> None:
        self.closed = True


def _fail(clip):
    raise AudioPathFailed("the audio path's process died")


def test_failing_audio_path_closes_the_stages(tmp_path, monkeypatch):
    _Stages.made = []
    monkeypatch.setattr(R, "Perception", _Stages)
    monkeypatch.setattr(R, "analyse_apart", _fail)
    with pytest.raises(AudioPathFailed):
        run_recorded(DEMO, tmp_path / "out")
    assert len(_Stages.made) == 1 and _Stages.made[0].closed
    assert not (tmp_path / "out").exists()


def test_existing_out_refused_before_any_stage(tmp_path, monkeypatch):
    _Stages.made = []
    started: list[object] = []
    monkeypatch.setattr(R, "Perception", _Stages)
    monkeypatch.setattr(R._Apart, "start", lambda self: started.append(self) or self)
    out = tmp_path / "out"
    out.mkdir()
    shutil.copy2(DEMO / "session.json", out / "session.json")
    for low in (False, True):
        with pytest.raises(SessionFolderError, match="already holds a session"):
            run_recorded(DEMO, out, one_kind_at_a_time=low)
    assert _Stages.made == [] and started == []


def test_replay_refuses_reuse_with_low_memory(tmp_path):
    from click.testing import CliRunner

    from tablereferee.commands.replay import command

    res = CliRunner().invoke(command, [str(DEMO), "--reuse", "--low-memory", "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and "--low-memory" in res.output
    assert not (tmp_path / "o").exists()
