"""The body signals on every real people photo and clip (tests/fixtures/people, ATTRIBUTION.md),
from their MediaPipe landmarks cached in tests/fixtures/people/landmarks (one test extracts a
photo afresh and checks the cache against it). Floors sit at the measured figures of
docs/signals.md: 2 of 2 expected signals, at most 1 false event (a held-out photo), over 18
files."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from vision.landmarks.types import POSE_INDEX, POSE_PINKY, POSE_THUMB, POSE_WRIST, FrameLandmarks, Hand
from vision.signals.engine import detect_signals, seat_series
from vision.signals.features import EYE_LID_PAIRS, pose_hand_points
from vision.signals.real_eval import (
    CACHE,
    FIXTURES,
    HELD_OUT,
    MEDIA,
    TUNE,
    evaluate,
    find_media,
    landmarks_for,
    load_landmarks,
    markdown_table,
)

# The one known false event: a forearm across the forehead, the hand resting on the top of
# the head, read as a raised hand (held out: no threshold was tuned on it).
KNOWN_FALSE = {"mptasks_google_sample_woman_hands"}


@pytest.fixture(scope="module")
def report():
    return evaluate(dirs=(FIXTURES,))


def _cached(stem: str):
    return load_landmarks(CACHE / f"{stem}.json.gz")


def test_every_real_file_is_in_the_fixtures_with_its_landmarks_and_a_split():
    for m in MEDIA:
        assert find_media(m.stem, (FIXTURES,)) is not None, m.stem
        assert (CACHE / f"{m.stem}.json.gz").is_file(), m.stem
    splits = [m.split for m in MEDIA]
    assert set(splits) == {TUNE, HELD_OUT} and splits.count(HELD_OUT) == 8


def test_the_real_table_holds_its_floors(report):
    assert report["absent"] == [] and len(report["rows"]) == len(MEDIA)
    total = report["totals"]["all"]
    assert total["hits"] >= 2 and total["misses"] == 0, total
    assert total["false_events"] <= 1, [r["false"] for r in report["rows"] if r["false"]]
    assert report["totals"][TUNE]["false_events"] == 0
    assert {r["file"] for r in report["rows"] if r["false_events"]} <= KNOWN_FALSE
    gesture = next(r for r in report["rows"] if r["file"] == "mps_gesture_recognizer_test_video")
    assert gesture["hits"] == 1 and gesture["false_events"] == 0, gesture
    table = markdown_table(report, report)
    assert table.count("\n| m") + table.count("\n| s") == len(MEDIA) and "**held-out**: 8 files" in table


def test_without_hands_pose_still_finds_the_raised_hand_and_no_sure_false_event():
    """As if Hands had missed every hand: Pose's own hand points find the pointing hand
    (unsure), and no sure event fires anywhere. (Before, Pose's wrist alone found neither
    positive.)"""
    r = evaluate(dirs=(FIXTURES,), without_hands=True)
    row = next(x for x in r["rows"] if x["file"] == "mptasks_pointing_up")
    assert row["hits"] == 1 and len(row["fired"]) == 1 and "unsure" in row["fired"][0], row
    assert r["totals"]["all"]["hits"] >= 1
    assert r["totals"]["all"]["false_sure"] == 0 and r["totals"]["all"]["false_events"] <= 1, r["totals"]


def test_pose_placing_the_unseen_hand_on_the_seen_one_touches_nothing():
    """In the gesture clip, from 4 s, Pose puts the (out of view) left hand on the right
    thumbs-up held before the face, visibility 0.6-0.8: those points are set aside, so no
    chin touch fires (one did before this check)."""
    frames, calib = _cached("mps_gesture_recognizer_test_video")
    series = seat_series(frames, calib, calib.seats[0].name)
    late = series.t >= 4.0
    raw = series.pose_hand["left"][late]
    assert (raw[:, 2, 2] >= 0.5).mean() > 0.8  # Pose claims to see the left index
    used = np.isfinite(pose_hand_points(series, "left", 0.5)[late][:, :, 0]).any(axis=1)
    assert used.mean() < 0.1, series.t[late][used]  # measured: 1 frame of 38
    assert [e.signal for e in detect_signals(frames, calib)] == ["raise_hand_right"]


def _lowered_raise(drop: float) -> tuple[list[FrameLandmarks], object, float]:
    """The real pointing-up photo with the raised hand (Hands' points and Pose's hand points)
    moved down until its wrist is `drop` eye spans under the chin: a hand held up beside the
    face."""
    frames, calib = _cached("mptasks_pointing_up")
    p = frames[0].persons[0]
    assert p.face is not None and p.pose is not None
    iod = float(np.linalg.norm(p.face[263, :2] - p.face[33, :2]))
    chin_y = float(p.face[[152, 175], 1].mean())
    hand = p.hands["left"]
    dy = chin_y + drop * iod - float(hand.points[0, 1])
    pts = hand.points.copy()
    pts[:, 1] += dy
    pose = p.pose.copy()
    for idx in (POSE_WRIST, POSE_PINKY, POSE_INDEX, POSE_THUMB):
        pose[idx["left"], 1] += dy
    moved = p.replace(hands={"left": dataclasses.replace(hand, points=pts)}, pose=pose)
    return [dataclasses.replace(frames[0], persons=(moved,))], calib, iod


def test_a_hand_held_up_beside_the_face_with_the_wrist_under_the_chin_is_a_raise():
    """The old rule wanted the wrist 0.3 eye spans above the chin and missed such a raise;
    judged against the shoulders and the eyes it is found, sure."""
    frames, calib, _ = _lowered_raise(0.1)
    events = detect_signals(frames, calib)
    assert [(e.signal, e.unsure) for e in events] == [("raise_hand_left", False)], events
    assert events[0].evidence["max_wrist_above_chin"] < 0.3 <= events[0].evidence["max_wrist_above_shoulders"] + 0.3
    # lowered further, to the chest, it is no longer raised
    frames, calib, _ = _lowered_raise(1.2)
    assert detect_signals(frames, calib) == []


def _eyes_stream(close: dict[str, float], mouth: float = 0.0) -> tuple[list[FrameLandmarks], object]:
    """The real gesture clip's face and pose in its first second (no hand in view), looped
    into a 2.5 s stream, with the lids closed by `close` (side -> share of the way) from 1.2
    to 1.5 s, and the lower lip opened by `mouth` eye spans meanwhile."""
    frames, calib = _cached("mps_gesture_recognizer_test_video")
    src = [f for f in frames if f.t < 1.0]
    out = []
    for i in range(25):
        f = src[i % len(src)]
        p = f.persons[0]
        assert p.face is not None
        face = p.face.copy()
        if 1.2 <= i / 10 < 1.5:
            for side, k in close.items():
                for up, lo in EYE_LID_PAIRS[side]:
                    face[up, :2] += k * (face[lo, :2] - face[up, :2])
            iod = float(np.linalg.norm(face[263, :2] - face[33, :2]))
            face[[14, 87, 178, 88, 95, 317, 402, 318, 324, 17, 84, 181, 91, 146, 314, 405, 321, 375], 1] += mouth * iod
        hands: dict[str, Hand] = {}
        out.append(dataclasses.replace(f, index=i, t=i / 10, persons=(p.replace(face=face, hands=hands),)))
    return out, calib


def test_winks_on_a_real_face_and_what_is_not_one():
    wink, calib = _eyes_stream({"left": 0.85})
    assert [e.signal for e in detect_signals(wink, calib)] == ["wink_left"]
    blink, _ = _eyes_stream({"left": 0.85, "right": 0.85})
    assert detect_signals(blink, calib) == []
    # a laugh: one eye read half closed, the other nearly open (as FaceMesh reads real
    # laughing faces), the mouth wide open
    laugh, _ = _eyes_stream({"left": 0.6, "right": 0.15}, mouth=0.2)
    assert detect_signals(laugh, calib) == []


def test_a_still_picture_never_shows_a_wink():
    """Each eye is judged against its own baseline, which a photo does not have: the laughing
    woman (eyes read at 0.62 of each other) and the smiling thumbs-up (0.65) show nothing."""
    for stem in ("mps_pose_landmarker_test_image", "mptasks_thumbs_up"):
        frames, calib = _cached(stem)
        s = seat_series(frames, calib, calib.seats[0].name)
        ratio = min(s.ear["left"][0], s.ear["right"][0]) / max(s.ear["left"][0], s.ear["right"][0])
        assert ratio < 0.7
        assert [e for e in detect_signals(frames, calib) if e.signal.startswith("wink")] == []


def test_the_cached_landmarks_are_what_mediapipe_gives_now():
    fresh, calib = landmarks_for(FIXTURES / "mptasks_pointing_up.jpg", cache_dir=None)
    cached, cached_calib = _cached("mptasks_pointing_up")
    a, b = fresh[0].persons[0], cached[0].persons[0]
    assert a.face is not None and b.face is not None and a.pose is not None and b.pose is not None
    assert np.abs(a.face[:, :2] - b.face[:, :2]).max() < 1.0
    assert np.abs(a.pose[:, :2] - b.pose[:, :2]).max() < 1.0
    assert sorted(a.hands) == sorted(b.hands)
    assert [e.signal for e in detect_signals(fresh, calib)] == [e.signal for e in detect_signals(cached, cached_calib)]


def test_the_script_prints_the_table_and_writes_the_report(tmp_path, capsys):
    import importlib.util

    from vision.signals.real_eval import ROOT

    spec = importlib.util.spec_from_file_location("eval_real_signals", ROOT / "scripts" / "eval_real_signals.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = tmp_path / "report.json"
    before = FIXTURES / "real_signals_before.json"
    assert mod.main(["--json", str(out), "--before", str(before)]) == 0
    printed = capsys.readouterr().out
    assert mod.main(["--before", str(tmp_path / "missing.json")]) == 2
    assert "cannot read the earlier report" in capsys.readouterr().err
    assert "| file | split | expected | fired before | fired |" in printed
    data = json.loads(out.read_text())
    assert data["totals"]["all"]["files"] == len(MEDIA) and len(data["rows"]) == len(MEDIA)


def test_hands_looks_again_around_the_face_when_it_misses_a_hand():
    """Frame 23 of the real gesture clip (0.92 s): the right fist arriving at the cheek. Hands
    on the seat's crop finds no hand; on the enlarged crop around the face it finds the right
    one. Frame 3 (no hand in view) stays empty either way."""
    import cv2

    from vision.landmarks.extract import LandmarkExtractor

    _, calib = _cached("mps_gesture_recognizer_test_video")
    cap = cv2.VideoCapture(str(FIXTURES / "mps_gesture_recognizer_test_video.mp4"))
    images = {}
    for i in range(24):
        ok, img = cap.read()
        assert ok
        if i in (3, 23):
            images[i] = img
    cap.release()
    found = {}
    for zoom in (False, True):
        with LandmarkExtractor(calib, static=True, zoom_hands=zoom) as ex:
            found[zoom] = {i: sorted(ex.process(img, 0.0, i).persons[0].hands) for i, img in images.items()}
    assert found[False] == {3: [], 23: []}
    assert found[True] == {3: [], 23: ["right"]}


def test_chosen_files_are_scored_and_unknown_ones_listed(tmp_path):
    r = evaluate([FIXTURES / "mptasks_pointing_up.jpg", tmp_path / "holiday.jpg"])
    assert [row["file"] for row in r["rows"]] == ["mptasks_pointing_up"]
    assert r["rows"][0]["hits"] == 1 and r["unlabelled"] == [str(tmp_path / "holiday.jpg")]
    assert r["totals"]["all"] == {
        "files": 1,
        "hits": 1,
        "misses": 0,
        "false_events": 0,
        "false_sure": 0,
        "expected": 1,
        "recall": 1.0,
    }
