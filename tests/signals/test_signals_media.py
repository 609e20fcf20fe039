"""Real media (tests/fixtures/people, see ATTRIBUTION.md) through MediaPipe and the detectors.

Videos are analysed once per module at 10 frames per second, crops at most 640 px."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from vision.landmarks.calibration import whole_frame
from vision.landmarks.extract import LandmarkExtractor, propose_calibration
from vision.signals.engine import detect_signals, landmarks_from_media, mouth_moving_events

PEOPLE = Path(__file__).resolve().parents[1] / "fixtures" / "people"
GESTURE = PEOPLE / "mps_gesture_recognizer_test_video.mp4"
SEATED = PEOPLE / "mps_image_classification_test_video.mp4"
TOUCHES = (
    "touch_nose_left",
    "touch_nose_right",
    "touch_chin_left",
    "touch_chin_right",
    "touch_eye_left",
    "touch_eye_right",
)


@pytest.fixture(scope="module")
def gesture():
    frames, calib = landmarks_from_media(GESTURE, fps=10)
    return frames, calib, detect_signals(frames, calib)


@pytest.fixture(scope="module")
def seated():
    frames, calib = landmarks_from_media(SEATED, fps=10)
    return frames, calib, detect_signals(frames, calib)


def test_gesture_clip_raises_the_subjects_right_hand_and_touches_nothing(gesture):
    frames, calib, events = gesture
    assert len(calib.seats) == 1 and 70 <= len(frames) <= 80
    raises = [e for e in events if e.signal.startswith("raise_hand")]
    assert [e.signal for e in raises] == ["raise_hand_right"], events
    r = raises[0]
    assert 1.2 <= r.start <= 1.9 and 1.9 <= r.end <= 2.6, r
    assert not r.unsure and r.evidence["hand_frames"] >= 3
    assert [e for e in events if e.signal in TOUCHES] == []
    # the raised hand is the right one by the pose, not by MediaPipe's (selfie) label
    during = [f for f in frames if 1.6 <= f.t <= 2.1]
    hands = [f.persons[0].hands.get("right") for f in during]
    seen = [h for h in hands if h is not None]
    assert len(seen) >= 3 and all(h.label == "Left" for h in seen), [(h.side_from, h.label) for h in seen]
    assert sum(h.side_from == "pose" for h in seen) >= len(seen) / 2
    assert all("left" not in f.persons[0].hands for f in during)


def test_seated_table_clip_has_no_signal(seated):
    frames, calib, events = seated
    minutes = (frames[-1].t - frames[0].t) / 60.0
    assert events == [], events
    assert len(events) / minutes == 0.0


def _one_image(name, **kw):
    frames, calib = landmarks_from_media(PEOPLE / name, **kw)
    return frames, calib, detect_signals(frames, calib)


def test_pointing_up_is_a_raised_left_hand():
    frames, calib, events = _one_image("mptasks_pointing_up.jpg")
    assert [(e.signal, e.unsure) for e in events] == [("raise_hand_left", False)]
    assert events[0].confidence >= 0.8


def test_a_mirrored_source_keeps_the_players_own_sides(tmp_path):
    flipped = tmp_path / "selfie.png"
    cv2.imwrite(str(flipped), cv2.flip(cv2.imread(str(PEOPLE / "mptasks_pointing_up.jpg")), 1))
    frames, calib = landmarks_from_media(flipped, mirrored=True)
    assert calib.mirrored
    assert [e.signal for e in detect_signals(frames, calib)] == ["raise_hand_left"]
    frames, calib = landmarks_from_media(flipped, mirrored=False)
    assert [e.signal for e in detect_signals(frames, calib)] == ["raise_hand_right"]


@pytest.mark.parametrize(
    "name,faces", [("mptasks_face.jpg", 1), ("mp_sergey.png", 1), ("mps_face_detector_testImg.jpeg", 2)]
)
def test_plain_faces_show_nothing(name, faces):
    frames, calib, events = _one_image(name)
    assert len(calib.seats) == faces
    assert all(p.face is not None for p in frames[0].persons)
    assert events == []


@pytest.mark.parametrize(
    "name",
    ["mptasks_thumbs_up.jpg", "mptasks_thumbs_down.jpg", "mptasks_victory.jpg", "mps_pose_landmarker_test_image.jpg"],
)
def test_real_near_misses_show_nothing(name):
    """Hands near, not on, the face; both eyes nearly closed while laughing (not a wink)."""
    frames, calib, events = _one_image(name)
    assert any(p.hands for p in frames[0].persons)
    assert events == []


def test_a_missing_camera_is_a_named_error():
    res = _cli("9", "--max-frames", 1)
    assert res.exit_code != 0 and "CameraNotFound" in res.output


def _four_seat_frame(first: np.ndarray) -> np.ndarray:
    """A 1280x720 frame tiling four people: `first` and three real pictures."""
    tiles = []
    for img in (
        first,
        cv2.imread(str(PEOPLE / "mptasks_pointing_up.jpg")),
        cv2.imread(str(PEOPLE / "mptasks_face.jpg")),
        cv2.imread(str(PEOPLE / "mp_sergey.png")),
    ):
        h, w = img.shape[:2]
        s = min(640 / w, 360 / h)
        small = cv2.resize(img, (int(w * s), int(h * s)), interpolation=cv2.INTER_AREA)
        tile = np.zeros((360, 640, 3), np.uint8)
        y, x = (360 - small.shape[0]) // 2, (640 - small.shape[1]) // 2
        tile[y : y + small.shape[0], x : x + small.shape[1]] = small
        tiles.append(tile)
    return np.vstack([np.hstack(tiles[:2]), np.hstack(tiles[2:])])


def test_four_seat_table_composed_from_real_pictures():
    """A 1280x720 frame tiling four people: four seats proposed, each with its own landmarks,
    and the raised hand attributed to the seat it belongs to."""
    cap = cv2.VideoCapture(str(GESTURE))
    ok, first = cap.read()
    cap.release()
    frame = _four_seat_frame(first)
    calib = propose_calibration([frame], names=["ana", "bruno", "carla", "dario"])
    assert len(calib.seats) == 4
    centres = [((s.region[0] + s.region[2]) / 2, (s.region[1] + s.region[3]) / 2) for s in calib.seats]
    quadrants = [(int(cx >= 0.5), int(cy >= 0.5)) for cx, cy in centres]
    assert quadrants == [(0, 0), (1, 0), (0, 1), (1, 1)]  # names in reading order
    with LandmarkExtractor(calib, static=True) as ex:
        lm = ex.process(frame, 0.0)
    assert all(p.face is not None for p in lm.persons)
    events = detect_signals([lm], calib)
    assert len(events) == 1 and events[0].signal == "raise_hand_left"
    seat = calib.seat(events[0].player)
    x0, y0, x1, y1 = seat.region
    assert events[0].player == "bruno" and x0 >= 0.5 - 1e-6 and y1 <= 0.5 + 1e-6, seat  # top right tile


def test_mouth_moving_events_reuse_landmarks_and_name_the_seat():
    from signal_streams import _mouth_case

    case = _mouth_case("base")
    events = mouth_moving_events(None, case.calibration, frames=case.frames)
    assert [(e.player, e.signal) for e in events] == [("ana", "mouth_moving")]
    with pytest.raises(ValueError, match="calibration"):
        mouth_moving_events(None, None, frames=case.frames)


# -- the command ---------------------------------------------------------------------------------------


def _cli(*args):
    from tablereferee.cli import cli

    return CliRunner().invoke(cli, ["signals", *map(str, args)])


def test_command_prints_events_landmarks_and_writes_an_overlay(tmp_path):
    out = tmp_path / "overlay.mp4"
    calib_path = tmp_path / "table.json"
    res = _cli(
        PEOPLE / "mptasks_pointing_up.jpg", "--json", "--landmarks", "--overlay", out, "--save-calibration", calib_path
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.output.strip().splitlines()[-1])
    assert [e["signal"] for e in data["events"]] == ["raise_hand_left"]
    assert data["events"][0]["player"] == "seat1"
    assert len(data["landmarks"]) == 1 and len(data["landmarks"][0]["persons"][0]["face"]) >= 468
    assert any("table line" in p for p in data["problems"])
    cap = cv2.VideoCapture(str(out))
    ok, img = cap.read()
    cap.release()
    h, w = cv2.imread(str(PEOPLE / "mptasks_pointing_up.jpg")).shape[:2]
    assert ok and abs(img.shape[0] - h) <= 1 and abs(img.shape[1] - w) <= 1  # the codec may round to even
    res = _cli(PEOPLE / "mptasks_face.jpg", "--calibration", calib_path, "--landmarks")
    assert res.exit_code == 0 and "no signal seen" in res.output
    assert "seat1: face=yes pose=yes hands=-" in res.output


def test_command_names_bad_input(tmp_path):
    res = _cli(tmp_path / "nothing.mp4")
    assert res.exit_code != 0 and "MediaNotFound" in res.output
    corrupt = tmp_path / "corrupt.mp4"
    corrupt.write_bytes(b"\x00\x01 not a video " * 100)
    res = _cli(corrupt)
    assert res.exit_code != 0 and ("UnreadableVideo" in res.output or "EmptyVideo" in res.output)
    bad = tmp_path / "table.json"
    bad.write_text('{"format": "table-calibration/1", "seats": [{"name": "a", "region": [2, 0, 3, 1]}]}')
    res = _cli(PEOPLE / "mptasks_face.jpg", "--calibration", bad)
    assert res.exit_code != 0 and "CalibrationError" in res.output


def test_command_learns_a_free_signal_from_demonstrations_and_finds_it(tmp_path):
    """Three short cuts of the real gesture clip around its right-hand raise are the team's
    demonstrations; the whole first 3.6 s of the clip is then searched."""
    cap = cv2.VideoCapture(str(GESTURE))
    frames = []
    while len(frames) < 90:
        ok, img = cap.read()
        if not ok:
            break
        frames.append(cv2.resize(img, (640, 360), interpolation=cv2.INTER_AREA))
    cap.release()

    def write(path, chunk):
        w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 25.0, (640, 360))
        for f in chunk:
            w.write(f)
        w.release()
        return path

    demos = [write(tmp_path / f"demo{k}.mp4", frames[a : a + 32]) for k, a in enumerate((28, 31, 34))]
    clip = write(tmp_path / "game.mp4", frames)
    team = tmp_path / "team.json"
    single = tmp_path / "single.json"
    whole_frame("ana").save(single)  # one player in view: skip proposing seats for each clip
    res = _cli(*demos, "--learn-free", team, "--fps", 8, "--calibration", single)
    assert res.exit_code == 0, res.output
    assert json.loads(res.output.strip().splitlines()[-1])["demonstrations"] == 3
    res = _cli(clip, "--free", team, "--fps", 8, "--json", "--calibration", single)
    assert res.exit_code == 0, res.output
    free = [e for e in json.loads(res.output.strip().splitlines()[-1])["events"] if e["signal"] == "free"]
    assert len(free) == 1 and free[0]["start"] <= 2.0 and free[0]["end"] >= 1.6, free
    res = _cli(*demos[:2], "--learn-free", team)
    assert res.exit_code != 0 and "3 to 5" in res.output
    res = _cli(demos[0], demos[1])
    assert res.exit_code != 0 and "one SOURCE" in res.output


def test_the_seats_run_side_by_side_with_the_same_landmarks_as_one_after_another():
    """Four seats of a real clip over several frames: two workers give exactly the landmarks
    one worker gives (each seat has its own graphs; results are merged in seat order)."""
    cap = cv2.VideoCapture(str(GESTURE))
    frames = []
    while len(frames) < 6:
        ok, img = cap.read()
        if not ok:
            break
        frames.append(_four_seat_frame(img))
    cap.release()
    assert len(frames) == 6
    calib = propose_calibration(frames[:1], names=["ana", "bruno", "carla", "dario"])
    runs = []
    for workers in (1, 2):
        with LandmarkExtractor(calib, workers=workers) as ex:
            assert ex.workers == workers
            runs.append([ex.process(f, i / 10, i) for i, f in enumerate(frames)])
    seen = 0
    for one, two in zip(*runs):
        for a, b in zip(one.persons, two.persons):
            assert a.seat == b.seat
            for x, y in ((a.face, b.face), (a.pose, b.pose)):
                assert (x is None) == (y is None) and (x is None or np.array_equal(x, y))
                seen += x is not None
            assert sorted(a.hands) == sorted(b.hands)
            assert all(np.array_equal(a.hands[k].points, b.hands[k].points) for k in a.hands)
        assert [h.points.tolist() for h in one.unassigned_hands] == [h.points.tolist() for h in two.unassigned_hands]
    assert seen >= 6 * 4  # every seat's face at least was found in every frame
