"""Each player's own calibration (vision/signals/personal.py) on streams built from real
MediaPipe landmarks (tests/signals/signal_streams.py): a player who raises the hand only to
the brow is missed by the catalogue's lines; after three performances the same low raise is
read, while a hand lifted only to the chin, and the hand at rest, still are not; a chin touch
made off its centre is read after calibration; the profile round-trips through its file."""

from __future__ import annotations

import numpy as np
import pytest
from signal_streams import Body, lerp, ramp, seat_calibration, stream

from vision.signals.engine import detect_signals, seat_series
from vision.signals.personal import PersonalCalibrationError, Profile, calibrate, detect_personal


def _raise(height: float, t0: float = 1.0, t1: float = 2.4):
    b = Body.make()
    eye_y = (b.targets()["eye_left"][1] + b.targets()["eye_right"][1]) / 2
    chin_y = b.targets()["chin"][1]
    wrist = (b.pose[12, 0] - 0.4 * b.sw, float(lerp(chin_y, eye_y - b.iod, height)))

    def make(t):
        right = lerp(b.rest_hand("right"), b.hand_at("right", 0, wrist), ramp(t, t0, t1))
        return [b.person("ana", {"right": right, "left": b.rest_hand("left")}, t=t)]

    return stream(3.4, make), seat_calibration({"ana": b})


def _chin(offset: float):
    b = Body.make()
    goal = b.targets()["chin"] + np.array([offset, 0.15]) * b.iod

    def make(t):
        right = lerp(b.rest_hand("right"), b.hand_at("right", 8, goal), ramp(t, 1.0, 2.4))
        return [b.person("ana", {"right": right, "left": b.rest_hand("left")}, t=t)]

    return stream(3.4, make), seat_calibration({"ana": b})


def _read(frames, cal, signal, profile=None):
    if profile is None:
        evs = detect_signals(frames, cal, only=[signal])
    else:
        evs = detect_personal(frames, cal, {"ana": profile}, only=[signal])
    return [e for e in evs if e.signal == signal]


def test_a_low_raiser_is_read_after_three_performances_and_nothing_else_fires():
    low = -0.2  # the wrist between chin and eyes: the hand's top just under the line
    frames, cal = _raise(low)
    assert _read(frames, cal, "raise_hand_right") == [], "the catalogue's lines must miss this raise"
    runs = [seat_series(*_raise(h), "ana") for h in (-0.25, -0.2, -0.15)]
    profile = calibrate("ana", {"raise_hand_right": runs})
    changed = profile.params["raise_hand_right"]
    assert changed and all(v < 0.4 for v in changed.values()), changed
    assert len(_read(frames, cal, "raise_hand_right", profile)) == 1
    chin_high, cal2 = _raise(-1.0)  # the hand lifted only to the chin
    assert _read(chin_high, cal2, "raise_hand_right", profile) == []
    rest, cal3 = _raise(-1.0, t0=5.0, t1=6.0)  # never moves within the stream
    assert _read(rest, cal3, "raise_hand_right", profile) == []
    assert any("top_above_eyes" in n or "wrist_above_shoulders" in n for n in profile.notes)


def test_performances_that_never_raise_the_hand_do_not_move_its_line():
    runs = [seat_series(*_raise(h), "ana") for h in (-0.25, -0.2, -0.15)]  # the right hand: the left stays down
    profile = calibrate("ana", {"raise_hand_left": runs})
    assert profile.params == {} and any("too far to be this signal" in n for n in profile.notes)


def test_a_confident_raiser_keeps_the_catalogues_lines():
    runs = [seat_series(*_raise(h), "ana") for h in (1.0, 1.1, 1.2)]
    profile = calibrate("ana", {"raise_hand_right": runs})
    assert profile.params == {}  # calibration never makes a signal harder than the catalogue does


def test_an_off_centre_chin_touch_is_read_after_calibration():
    off = 0.55
    frames, cal = _chin(off)
    before = _read(frames, cal, "touch_chin_right")
    runs = [seat_series(*_chin(o), "ana") for o in (0.5, 0.55, 0.6)]
    profile = calibrate("ana", {"touch_chin_right": runs})
    after = _read(frames, cal, "touch_chin_right", profile)
    assert len(after) >= len(before)
    if not before:
        assert after and "chin" in profile.radius and profile.radius["chin"] > 0.42


def test_the_profile_round_trips_and_bad_input_is_named(tmp_path):
    runs = [seat_series(*_raise(h), "ana") for h in (-0.25, -0.2, -0.15)]
    profile = calibrate("ana", {"raise_hand_right": runs})
    again = Profile.from_dict(profile.to_dict())
    assert again == profile
    with pytest.raises(PersonalCalibrationError):
        Profile.from_dict({"format": "x"})
    with pytest.raises(PersonalCalibrationError, match="2 or 3 times"):
        calibrate("ana", {"raise_hand_right": runs[:1]})


def test_a_touch_performed_far_from_its_target_does_not_widen_the_radius():
    """Performances whose hand stops beyond the widest radius calibration allows were not this
    touch at all: the radius stays the catalogue's and the note says why; a near miss (within
    that widest radius) still widens it."""
    far = calibrate("ana", {"touch_chin_right": [seat_series(*_chin(o), "ana") for o in (0.8, 0.9)]})
    assert far.radius == {} and any("too far to be this signal" in n for n in far.notes), far.notes
    near = calibrate("ana", {"touch_chin_right": [seat_series(*_chin(o), "ana") for o in (0.5, 0.6)]})
    assert 0.42 < near.radius["chin"] <= 0.42 * 1.6 + 1e-3
