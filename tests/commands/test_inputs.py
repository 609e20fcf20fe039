"""Bad inputs to `cards`, `signals`, `audio` and `enroll-deck`: each is a named error with the
exit code docs/commands.md gives (2 a bad option, 3 an input that cannot be used), never a
traceback, and nonsense options are refused instead of silently used."""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from tablereferee.cli import cli

ROOT = Path(__file__).resolve().parents[2]
HUM = ROOT / "tests" / "fixtures" / "audio" / "hum.wav"
CARDS_VIDEO = ROOT / "datasets" / "demo" / "cameras" / "cards" / "seg_000000000.mp4"


def run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"{args}: a traceback instead of a named error") from result.exception
    return result


@pytest.fixture(scope="module")
def picture(tmp_path_factory):
    path = tmp_path_factory.mktemp("media") / "table.png"
    cv2.imwrite(str(path), np.full((120, 160, 3), 90, np.uint8))
    return path


def test_cards_on_the_demo_video_whose_first_frames_have_no_card():
    """The demo's card camera starts on an empty table: the tracker died with KeyError: 'index'."""
    result = run("cards", CARDS_VIDEO, "--json", "--max-frames", "12")
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(records) == 12 and any(r["cards"] for r in records)


@pytest.mark.parametrize("conf", ["-1", "0", "1.5", "nan", "inf"])
def test_cards_refuses_a_confidence_outside_0_to_1(picture, conf):
    result = run("cards", picture, "--conf", conf)
    assert result.exit_code == 2 and "--conf" in result.stderr


def test_cards_refuses_an_overlay_of_unknown_format_before_reading(picture, tmp_path):
    result = run("cards", picture, "--overlay", tmp_path / "out.xyz")
    assert result.exit_code == 2 and "--overlay" in result.stderr and result.stdout == ""
    result = run("cards", picture, "--overlay", tmp_path / "no" / "such" / "out.png", "--json")
    assert result.exit_code == 3 and json.loads(result.stderr)["error"] == "OverlayNotWritten"


@pytest.mark.parametrize("content", [b"garbage, not a model", b"", b"\x08\x01" + bytes(range(256)) * 4])
def test_cards_model_that_is_not_a_model(picture, tmp_path, content):
    model = tmp_path / "bad.onnx"
    model.write_bytes(content)
    result = run("cards", picture, "--model", model, "--json")
    assert result.exit_code == 3 and json.loads(result.stderr)["error"] == "UnreadableModel"


def test_cards_model_of_another_kind_is_a_mismatch(picture):
    result = run("cards", picture, "--model", ROOT / "models" / "card_embedder" / "card_embedder.onnx", "--json")
    assert result.exit_code == 3 and json.loads(result.stderr)["error"] == "ModelMismatch"


def test_no_camera_is_the_same_answer_in_cards_and_signals():
    cards = run("cards", "97")
    signals = run("signals", "97")
    assert cards.exit_code == signals.exit_code == 3
    assert "error: CameraNotFound: no camera answers at index 97" in cards.stderr
    assert "error: CameraNotFound: no camera answers at index 97" in signals.stderr


@pytest.mark.parametrize("size", [(1, 1), (1, 300), (300, 1)])
def test_signals_on_a_picture_one_pixel_wide(tmp_path, size):
    path = tmp_path / "thin.png"
    cv2.imwrite(str(path), np.full((*size, 3), 100, np.uint8))
    result = run("signals", path, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["events"] == []


def test_learning_a_free_signal_from_one_pixel_pictures_is_named(tmp_path):
    path = tmp_path / "dot.png"
    cv2.imwrite(str(path), np.full((1, 1, 3), 100, np.uint8))
    result = run("signals", path, path, path, "--learn-free", tmp_path / "free.json")
    assert result.exit_code == 3 and "error: FreeSignalError:" in result.stderr
    assert not (tmp_path / "free.json").exists()


@pytest.mark.parametrize("fps", ["0", "-5", "nan", "inf"])
def test_signals_refuses_a_frame_rate_that_is_not_positive(picture, fps):
    result = run("signals", picture, "--fps", fps)
    assert result.exit_code == 2 and "--fps" in result.stderr


def test_signals_refuses_an_overlay_it_cannot_write(picture, tmp_path):
    assert run("signals", picture, "--overlay", tmp_path / "out.xyz").exit_code == 2
    result = run("signals", picture, "--save-calibration", tmp_path / "no" / "c.json")
    assert result.exit_code == 3 and "error: CalibrationError: cannot write" in result.stderr


@pytest.mark.parametrize(
    "content, fragment",
    [
        (b'{"x":', "is not JSON"),
        (b"\xff\xfe\x00", "is not JSON"),
        (b"[1, 2]", "event 0 is not an object"),
        (b'"events"', "expected a list"),
        (b'[{"signal": "mouth_moving", "player": "Ann"}]', "has no 'start'"),
        (b'[{"signal": "mouth_moving", "player": "Ann", "start": "soon", "end": 2}]', "event 0"),
        (b'[{"signal": "mouth_moving", "player": "Ann", "start": NaN, "end": 2}]', "finite start"),
        (b'[{"signal": "mouth_moving", "player": "Ann", "start": 3, "end": 2}]', "finite start <= end"),
        (b'[{"signal": "mouth_moving", "player": ["Ann"], "start": 1, "end": 2}]', "the player must be a name"),
    ],
)
def test_audio_mouth_file_that_is_not_events(tmp_path, content, fragment):
    mouth = tmp_path / "mouth.json"
    mouth.write_bytes(content)
    result = run("audio", HUM, "--no-recognition", "--mouth", mouth)
    assert result.exit_code == 3 and "error: MouthFileError:" in result.stderr and fragment in result.stderr


@pytest.mark.parametrize("option", [["--start", "nan"], ["--start", "inf"], ["--seconds", "-5"], ["--seconds", "0"]])
def test_audio_refuses_times_that_are_not_numbers(option):
    result = run("audio", HUM, "--no-recognition", *option)
    assert result.exit_code == 2 and option[0] in result.stderr


def test_enroll_deck_unknown_base_and_bad_model(tmp_path, picture):
    result = run("enroll-deck", "x", "--base", "tarocchi", "--guide")
    assert result.exit_code == 2 and "error: UnknownDeck:" in result.stderr
    model = tmp_path / "bad.onnx"
    model.write_bytes(b"nope")
    result = run("enroll-deck", "x", picture, "--model", model, "--decks-dir", tmp_path / "decks")
    assert result.exit_code == 3 and "error: UnreadableModel:" in result.stderr


QUIET_PROGRAM = r"""
import os, sys
from tablereferee.commands._quiet import native_chatter_filtered
os.write(2, b"before\n")
with native_chatter_filtered():
    os.write(2, b"WARNING: All log messages before absl::InitializeLog() is called are written to STDERR\n")
    os.write(2, b"W0000 00:00:1796168615.048759   26751 inference_feedback_manager.cc:114] Feedback manager\n")
    os.write(2, b"I0000 00:00:1796168615.048759   26751 gl_context.cc:369] GL version: 3.2\n")
    os.write(2, b"INFO: Created TensorFlow Lite XNNPACK delegate for CPU.\n")
    os.write(2, b"a real problem\n")
    print("python's own", file=sys.stderr)
os.write(2, b"after\n")
"""


@pytest.mark.parametrize("show", [False, True])
def test_native_library_chatter_is_dropped_and_the_rest_kept(show):
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("REFEREE_LIBRARY_LOGS", None)
    if show:
        env["REFEREE_LIBRARY_LOGS"] = "1"
    done = subprocess.run([sys.executable, "-c", QUIET_PROGRAM], capture_output=True, env=env, timeout=60)
    lines = done.stderr.decode().splitlines()
    kept = ["before", "a real problem", "python's own", "after"]
    assert done.returncode == 0 and (len(lines) == 8 if show else lines == kept), lines


@pytest.mark.parametrize(
    "args, option",
    [
        (["--deck", "beccato", "--possible", "chicken:orloff:1,zz"], "--possible"),  # a typo ruled out every card
        (["--possible", "chicken:orloff:1"], "--possible"),  # ids without a deck mean nothing
        (["--seats", ",,,"], "--seats"),  # no seat: no zones, silently
        (["--threads", "100000"], "--threads"),  # onnxruntime tried to start 100000 threads
    ],
)
def test_cards_refuses_options_that_silently_meant_nothing(picture, args, option):
    result = run("cards", picture, *args)
    assert result.exit_code == 2 and option in result.stderr


def test_cards_accepts_possible_card_ids_of_its_deck(picture):
    assert run("cards", picture, "--deck", "beccato", "--possible", "chicken:orloff:1").exit_code == 0


def test_signals_refuses_an_empty_seat_name(picture):
    result = run("signals", picture, "--names", "Ann,,Bob")
    assert result.exit_code == 2 and "--names" in result.stderr


@pytest.mark.parametrize("command", ["cards", "signals"])
def test_no_camera_prints_one_line_and_no_library_warnings(command):
    """OpenCV used to print its own "can't open camera by index" warnings above the error."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("OPENCV_LOG_LEVEL", "GLOG_minloglevel")}
    done = subprocess.run(
        [sys.executable, "-m", "tablereferee.cli", command, "97"], capture_output=True, env=env, cwd=ROOT, timeout=120
    )
    assert done.returncode == 3
    assert done.stderr.decode().splitlines() == ["error: CameraNotFound: no camera answers at index 97"]
