"""End to end on the bundled demo session: it referees to the composition's ground truth, a
replay (perception run again) gives the same log, a replay reusing the stored observations
too, and a dispute package can be cut from it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.sessionlog import read_log, replay
from tablereferee.cli import cli
from tablereferee.recording.folder import SessionFolder, read_segments

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "datasets" / "demo"


@pytest.fixture(scope="module")
def demo_session(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo") / "session"
    result = CliRunner().invoke(cli, ["demo", "--out", str(out), "--no-clip", "--threads", "1"])
    return out, result


def test_the_demo_referees_to_the_expected_game(demo_session):
    out, result = demo_session
    assert result.exit_code == 0, result.output
    assert "result: as expected" in result.output
    expected = json.loads((DEMO / "expected.json").read_text())
    contents = read_log(out / "log.db")
    actions = [{"source": e.source, **e.payload["action"]} for e in contents.entries if e.kind == "action"]
    assert actions == expected["actions"]
    state = replay(contents).state
    assert state.scores() == expected["scores"]
    assert state.scores()["dollar"]["eggs"] == 2 and state.scores()["star"]["eggs"] == 0
    # Everything on one clock: signals (the raised fist, the hum) and the lost camera are logged.
    observed = [e.payload for e in contents.entries if e.kind == "observation"]
    signals = {(p["player"], p["signal"]) for p in observed if p["type"] == "signal"}
    assert ("Bruno", "raise_hand_right") in signals and ("unknown", "hum") in signals
    assert any(p["type"] == "camera" and p["camera"] == "people" and not p["ok"] for p in observed)


def test_the_session_folder_holds_what_a_replay_needs(demo_session):
    out, _ = demo_session
    folder = SessionFolder.open(out)
    m = folder.manifest
    assert m["game"] == "beccato" and m["zones"] and m["calibration"]["seats"][0]["name"] == "Bruno"
    assert m["models"]["cards:cards"]["deck"] == "beccato" and "sha256" in m["models"]["audio"]["classifier"]
    assert m["versions"]["python"]
    assert [t for t, _ in folder.inputs()] == [4.0, 8.0]
    assert folder.audio_path.is_file()
    assert len(list(read_segments(folder.camera_dir("cards")))) == 140


def test_a_replay_gives_the_same_log(demo_session, tmp_path):
    out, _ = demo_session
    result = CliRunner().invoke(cli, ["replay", str(out), "--out", str(tmp_path / "r"), "--json", "--threads", "1"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["comparison"]["same_log"], report["comparison"]["first_difference"]
    a, b = read_log(out / "log.db"), read_log(tmp_path / "r" / "log.db")
    assert [e.checksum for e in a.entries] == [e.checksum for e in b.entries]


def test_a_replay_reusing_the_stored_observations_gives_the_same_log(demo_session, tmp_path):
    out, _ = demo_session
    result = CliRunner().invoke(cli, ["replay", str(out), "--reuse", "--out", str(tmp_path / "r"), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "same log" in result.output


def test_a_dispute_package_for_the_reveal(demo_session, tmp_path):
    out, _ = demo_session
    reveal = next(
        e for e in read_log(out / "log.db").entries if e.kind == "action" and e.payload["action"]["kind"] == "reveal"
    )
    dest = tmp_path / "dispute"
    result = CliRunner().invoke(
        cli,
        [
            "clip",
            str(out),
            "--event",
            str(reveal.seq),
            "--out",
            str(dest),
            "--before",
            "1",
            "--after",
            "1",
            "--no-landmarks",
        ],
    )
    assert result.exit_code == 0, result.output
    package = json.loads((dest / "package.json").read_text())
    assert package["reasoning"][0]["rule"] == "reveal" and package["reasoning"][0]["confidence"] > 0.8
    assert package["evidence_entries"] and package["models"]["cards:cards"]
    frames = list(read_segments_of(dest / "clip.mp4"))
    assert len(frames) == package["clip_frames"] >= 15
    assert "rule `reveal`" in (dest / "reasoning.md").read_text()
    assert any(json.loads(line)["seq"] == reveal.seq for line in (dest / "excerpt.jsonl").read_text().splitlines())


def read_segments_of(path: Path):
    import av

    with av.open(str(path)) as c:
        yield from c.decode(video=0)


def test_clip_of_a_missing_entry_is_a_named_error(demo_session):
    out, _ = demo_session
    result = CliRunner().invoke(cli, ["clip", str(out), "--event", "999"])
    assert result.exit_code == 3 and "NoSuchEvent" in result.output


def test_replay_of_a_folder_that_is_no_session_is_a_named_error(tmp_path):
    result = CliRunner().invoke(cli, ["replay", str(tmp_path)])
    assert result.exit_code == 3 and "SessionFolderError" in result.output
