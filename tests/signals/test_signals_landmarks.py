"""Landmark types, hand ownership by geometry, and the table calibration."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from signal_streams import HEIGHT, WIDTH, Body

from vision.landmarks.assign import RawHand, assign_hands, dedupe_hands, handedness_side
from vision.landmarks.calibration import (
    CalibrationError,
    Seat,
    TableCalibration,
    propose_table_line,
    quadrant_seats,
    seats_from_faces,
    whole_frame,
)
from vision.landmarks.types import FrameLandmarks, Hand, Person


def _two_players():
    a, b = Body.make(scale=0.8, origin=(480.0, 300.0)), Body.make(scale=0.8, origin=(1440.0, 300.0))
    seats = (Seat("ana", (0.0, 0.0, 0.5, 1.0)), Seat("bruno", (0.5, 0.0, 1.0, 1.0)))
    return a, b, seats


def test_hands_go_to_the_pose_wrist_they_sit_on_whatever_mediapipe_labels_them():
    a, b, seats = _two_players()
    hands = []
    for body in (a, b):
        for side in ("left", "right"):
            pts = body.rest_hand(side)
            body.pose[15 if side == "left" else 16, :2] = pts[0, :2]
            # deliberately wrong labels: the pose decides
            hands.append(RawHand(pts, 0.9, "Left" if side == "left" else "Right"))
    owned, rest = assign_hands(
        hands, seats, {"ana": a.face, "bruno": b.face}, {"ana": a.pose, "bruno": b.pose}, WIDTH, HEIGHT
    )
    assert rest == []
    for name, body in (("ana", a), ("bruno", b)):
        assert set(owned[name]) == {"left", "right"}
        for side in ("left", "right"):
            np.testing.assert_allclose(owned[name][side].points, body.rest_hand(side))
            assert owned[name][side].side_from == "pose"


def test_without_a_pose_the_side_comes_from_handedness_flipped_for_an_unmirrored_picture():
    a, b, seats = _two_players()
    pts = a.rest_hand("right")
    owned, rest = assign_hands(
        [RawHand(pts, 0.9, "Left")],
        seats,
        {"ana": a.face, "bruno": b.face},
        {"ana": None, "bruno": None},
        WIDTH,
        HEIGHT,
    )
    assert list(owned["ana"]) == ["right"] and owned["ana"]["right"].side_from == "handedness"
    assert owned["bruno"] == {}
    assert handedness_side("Left", mirrored=True) == "left"
    assert handedness_side("Right", mirrored=False) == "left"


def test_a_hand_out_of_everyones_reach_stays_unassigned():
    a, b, seats = _two_players()
    far = a.rest_hand("right") + np.array([0.0, 5000.0, 0.0])
    owned, rest = assign_hands(
        [RawHand(far, 0.9, "Left")],
        seats,
        {"ana": a.face, "bruno": b.face},
        {"ana": a.pose, "bruno": b.pose},
        WIDTH,
        HEIGHT,
    )
    assert owned == {"ana": {}, "bruno": {}} and len(rest) == 1


def test_a_hand_seen_twice_is_kept_once():
    a, _, _ = _two_players()
    pts = a.rest_hand("left")
    kept = dedupe_hands([RawHand(pts, 0.8, "Right"), RawHand(pts + 2.0, 0.95, "Right")])
    assert len(kept) == 1 and kept[0].score == 0.95


def test_frame_landmarks_round_trip_through_json():
    a, _, _ = _two_players()
    p = a.person("ana", {"left": a.rest_hand("left")})
    f = FrameLandmarks(3, 0.5, WIDTH, HEIGHT, (p,), (Hand(a.rest_hand("right"), 0.5, "Left", "handedness"),), ("face",))
    g = FrameLandmarks.from_dict(json.loads(json.dumps(f.to_dict(ndigits=4))))
    assert g.index == 3 and g.person("ana").hands["left"].side_from == "pose"
    np.testing.assert_allclose(g.person("ana").face, p.face, atol=1e-3)
    assert len(g.unassigned_hands) == 1
    with pytest.raises(ValueError, match="21 points"):
        Hand(np.zeros((20, 3)))
    with pytest.raises(ValueError, match="'left' or 'right'"):
        Person("x", hands={"middle": Hand(np.zeros((21, 3)))})


def test_calibration_saves_loads_and_names_what_is_missing(tmp_path):
    calib = TableCalibration(quadrant_seats(["ana", "bruno", "carla", "dario"], 2, 2), proposed=True)
    calib = calib.with_seat(dataclasses.replace(calib.seat("ana"), table_line=((0.0, 0.4), (0.5, 0.42))))
    path = tmp_path / "table.json"
    calib.save(path)
    again = TableCalibration.load(path)
    assert again == calib
    problems = again.status()
    assert "seat 'bruno' has no table line: elbow and tap signals are off for it" in problems
    assert any("proposed" in p for p in problems)
    assert again.seat("ana").table_y(320, 1280, 720) == pytest.approx((0.4 + 0.02 * 0.5) * 720)
    assert again.renamed("ana", "anna").seat("anna").region == calib.seat("ana").region


@pytest.mark.parametrize(
    "text,match",
    [
        ("not json", "not JSON"),
        ('{"format": "something-else"}', "not a table calibration"),
        ('{"format": "table-calibration/1", "seats": [{"name": "a", "region": [0.5, 0, 0.2, 1]}]}', "not a box"),
        (
            '{"format": "table-calibration/1", "seats": [{"name": "a", "region": [0, 0, 1, 1]}, '
            '{"name": "a", "region": [0, 0, 1, 1]}]}',
            "share the name",
        ),
        ('{"format": "table-calibration/1", "seats": [{"region": [0, 0, 1, 1]}]}', "malformed seat"),
    ],
)
def test_bad_calibration_files_are_named_errors(tmp_path, text, match):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(CalibrationError, match=match):
        TableCalibration.load(path)
    with pytest.raises(CalibrationError, match="no calibration file"):
        TableCalibration.load(tmp_path / "missing.json")


def test_seat_regions_from_faces_do_not_overlap():
    seats = seats_from_faces(
        [(0.1, 0.2, 0.16, 0.3), (0.4, 0.2, 0.46, 0.3), (0.7, 0.25, 0.76, 0.35)], names=["ana", "bruno", "carla"]
    )
    assert [s.name for s in seats] == ["ana", "bruno", "carla"]
    for s, t in zip(seats, seats[1:]):
        assert s.region[2] <= t.region[0] + 1e-9
    rows = seats_from_faces(
        [(0.6, 0.62, 0.66, 0.72), (0.1, 0.1, 0.16, 0.2), (0.1, 0.6, 0.16, 0.7), (0.6, 0.12, 0.66, 0.22)],
        names=["a", "b", "c", "d"],
    )
    assert [(s.name, s.region[0] < 0.4, s.region[1] < 0.3) for s in rows] == [
        ("a", True, True),
        ("b", False, True),
        ("c", True, False),
        ("d", False, False),
    ]
    with pytest.raises(CalibrationError, match="only 1 names"):
        seats_from_faces([(0.1, 0.2, 0.16, 0.3), (0.4, 0.2, 0.46, 0.3)], names=["ana"])


def test_table_line_proposed_only_from_consistent_resting_wrists():
    region = (0.0, 0.0, 1.0, 1.0)
    line = propose_table_line([600, 604, 598, 602], [300] * 4, [200] * 4, region, 720, frames=4)
    assert line is not None and line[0][1] == pytest.approx(601 / 720)
    assert propose_table_line([600], [300], [200], region, 720, frames=1) is None  # a still picture
    assert propose_table_line([600, 420, 700, 520], [300] * 4, [200] * 4, region, 720, frames=4) is None
    assert propose_table_line([350, 340, 352], [300] * 3, [200] * 3, region, 720, frames=3) is None  # at the shoulders


def test_whole_frame_calibration_for_a_single_view():
    calib = whole_frame("ana", mirrored=True)
    assert calib.mirrored and calib.seat("ana").region == (0.0, 0.0, 1.0, 1.0)
    with pytest.raises(CalibrationError, match="no seat 'bob'"):
        calib.seat("bob")


def test_several_cameras_each_cover_some_seats():
    seats = (
        Seat("ana", (0.0, 0.0, 0.5, 1.0), camera="0"),
        Seat("bruno", (0.5, 0.0, 1.0, 1.0), camera="0"),
        Seat("carla", (0.0, 0.0, 1.0, 1.0), camera="1"),
    )
    calib = TableCalibration(seats)
    assert calib.cameras == ("0", "1")
    assert [s.name for s in calib.for_camera("1").seats] == ["carla"]
    with pytest.raises(CalibrationError, match="camera '2'"):
        calib.for_camera("2")


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(0, WIDTH), st.floats(0, HEIGHT), st.sampled_from(["Left", "Right"]), st.floats(0.5, 1.0)),
        max_size=6,
    )
)
def test_assignment_gives_each_slot_at_most_one_hand_and_each_hand_one_place(raw):
    a, b, seats = _two_players()
    template = a.rest_hand("left") - a.rest_hand("left")[0]
    hands = [RawHand(template + np.array([x, y, 0.0]), s, lbl) for x, y, lbl, s in raw]
    owned, rest = assign_hands(
        hands, seats, {"ana": a.face, "bruno": b.face}, {"ana": a.pose, "bruno": b.pose}, WIDTH, HEIGHT
    )
    placed = [h for seat in owned.values() for h in seat.values()] + list(rest)
    assert len(placed) == len(dedupe_hands(hands))
    ids = [id(h.points) for h in placed]
    assert len(set(ids)) == len(ids)
    for seat in owned.values():
        assert set(seat) <= {"left", "right"}
