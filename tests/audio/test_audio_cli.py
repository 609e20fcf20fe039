"""`referee audio`: JSON events, windows, attribution, and named errors (exit 3 an unusable input, 2 a bad option)."""

import json

import pytest
from click.testing import CliRunner

from tablereferee.commands.audio import command
from tests.audio.conftest import fixture_path


def run(*args):
    return CliRunner().invoke(command, list(args))


def test_json_events_and_windows():
    r = run(fixture_path("hum.wav"), "--json", "--windows", "--start", "50")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert [e["signal"] for e in out["events"]] == ["hum"]
    e = out["events"][0]
    assert e["player"] == "unknown" and 50 < e["start"] < e["end"] <= 50 + out["duration"]
    assert out["windows"][0]["start"] == 50.0 and out["windows"][0]["label"] == "silence"
    assert {"label", "raw_label", "probs", "features"} <= set(out["windows"][0])


def test_text_output():
    r = run(fixture_path("mumble.wav"))
    assert r.exit_code == 0 and "mumble" in r.stdout and "noise floor" in r.stdout


def test_video_track_without_recognition():
    r = run(fixture_path("video_with_audio.mp4"), "--json", "--no-recognition")
    assert r.exit_code == 0, r.output
    assert [e["signal"] for e in json.loads(r.stdout)["events"]] == ["talking"]


def test_mouth_file_attributes_the_event(tmp_path):
    mouth = [
        {"player": "carla", "signal": "mouth_moving", "start": 0.9, "end": 4.2, "confidence": 0.9, "evidence": {}},
        {"player": "dario", "signal": "touch_nose_left", "start": 0, "end": 5, "confidence": 0.9, "evidence": {}},
    ]
    (tmp_path / "mouth.json").write_text(json.dumps({"events": mouth}))
    r = run(fixture_path("hum.wav"), "--json", "--mouth", str(tmp_path / "mouth.json"))
    (e,) = json.loads(r.stdout)["events"]
    assert e["player"] == "carla" and e["evidence"]["who"]["attribution"] == "mouth moving"


def test_italian_without_model_says_so():
    r = run(fixture_path("hum.wav"), "--lang", "it")
    assert r.exit_code == 0 and "note: no 'it' recognition model" in r.stdout


@pytest.mark.parametrize(
    "make,error",
    [
        (lambda p: p.write_bytes(b""), "EmptyAudio"),
        (lambda p: p.write_bytes(b"RIFF....WAVEjunkjunkjunk" * 20), "CorruptAudio"),
        (None, "AudioFileNotFound"),
    ],
)
def test_bad_files(tmp_path, make, error):
    p = tmp_path / "x.wav"
    if make:
        make(p)
    r = run(str(p), "--json")
    assert r.exit_code == 3
    assert json.loads(r.stderr)["error"] == error
    assert r.stdout == ""


def test_video_without_audio():
    r = run(fixture_path("video_no_audio.mp4"))
    assert r.exit_code == 3 and "NoAudioTrack" in r.stderr and "no audio track" in r.stderr


def test_unknown_device():
    r = run("mic", "--device", "no such microphone 1f0c", "--json")
    assert r.exit_code == 2
    assert json.loads(r.stderr)["error"] == "AudioDeviceNotFound"


def test_missing_model_folder(tmp_path):
    r = run(fixture_path("hum.wav"), "--lang", "it", "--model", str(tmp_path / "none"), "--json")
    assert r.exit_code == 3
    assert json.loads(r.stderr)["error"] == "RecognitionModelMissing"


def test_attribute_from_the_video_mouth_cue():
    """--attribute asks the body-signal recogniser for the video's mouth_moving intervals: this
    tiny test video shows no face, so nobody's mouth moves and the talk stays unknown."""
    r = run(fixture_path("video_with_audio.mp4"), "--attribute", "--no-recognition", "--json")
    assert r.exit_code == 0, r.output
    (e,) = json.loads(r.stdout)["events"]
    assert e["player"] == "unknown"
    assert e["evidence"]["who"]["attribution"] == "nobody's mouth moving"


def test_attribute_needs_a_video():
    r = run("mic", "--attribute")
    assert r.exit_code == 2 and "--attribute needs a video" in r.output
