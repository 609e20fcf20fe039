"""Free Signal enrolment (vision/signals/free.py) on the real gesture clip's landmarks
(tests/fixtures/people, cached MediaPipe landmarks: a right hand raised at about 1.4-2.2 s,
then a thumbs-up held before the face from about 2.5 s to the end) and on streams built from
real landmarks: one continuous gesture is one event, a raised hand does not fire a thumbs-up,
demonstrations of another gesture are refused with the reason, and events carry the team."""

from __future__ import annotations

import pytest
from signal_streams import Body, _touch_case, free_demonstrations, free_stream, seat_calibration

from vision.signals.engine import detect_signals, seat_series
from vision.signals.free import DemonstrationsDisagree, FreeSignal, FreeSignalError
from vision.signals.real_eval import CACHE, load_landmarks

THUMBS = [(3.0, 4.2), (4.4, 5.6), (5.8, 7.0)]


@pytest.fixture(scope="module")
def clip():
    frames, cal = load_landmarks(CACHE / "mps_gesture_recognizer_test_video.json.gz")
    return frames, cal, cal.seats[0].name


def _cut(clip, a, b):
    frames, cal, seat = clip
    return seat_series([f for f in frames if a <= f.t <= b], cal, seat)


def test_a_held_thumbs_up_is_one_event_named_for_the_team_and_the_raise_does_not_fire(clip):
    frames, cal, seat = clip
    fs = FreeSignal.learn([_cut(clip, a, b) for a, b in THUMBS], name="Reds")
    events = detect_signals(frames, cal, only=["free"], free=fs)
    assert len(events) == 1, [(e.start, e.end) for e in events]  # before: 0.1 s fragments from 2.5 s
    e = events[0]
    assert e.start <= 3.1 and e.end >= 6.5 and e.end - e.start >= 3.0
    assert e.evidence["team"] == "Reds" and fs.label == "Reds's signal"
    assert not any(e.start < 2.3 for e in events)  # the raised hand (1.4-2.2 s) is not the thumbs-up


def test_a_raise_among_thumbs_ups_is_refused_with_the_reason(clip):
    demos = [_cut(clip, *THUMBS[0]), _cut(clip, *THUMBS[1]), _cut(clip, 1.0, 2.4)]
    with pytest.raises(DemonstrationsDisagree, match="demonstration 3 is not the same gesture") as info:
        FreeSignal.learn(demos, name="Reds")
    assert info.value.details["demonstrations"] == [3]
    assert len(info.value.details["costs"]) == 3


def test_three_different_gestures_are_refused(clip):
    demos = [_cut(clip, 0.0, 1.0), _cut(clip, *THUMBS[0]), _cut(clip, 1.0, 2.4)]
    with pytest.raises(DemonstrationsDisagree):
        FreeSignal.learn(demos)


def test_five_honest_salutes_are_accepted_and_a_nose_touch_among_them_is_not():
    calib = seat_calibration({"ana": Body.make()})
    salutes = [seat_series(d, calib, "ana") for d in free_demonstrations(5)]
    fs = FreeSignal.learn(salutes, name="Blues")
    assert len(fs.costs) == 5 and max(fs.costs) * fs.margin <= fs.threshold + 1e-3  # costs kept to 4 places
    touch = _touch_case("base", "right", "nose")
    bad = salutes[:2] + [seat_series(touch.frames, touch.calibration, "ana")]
    with pytest.raises(DemonstrationsDisagree, match="demonstration 3"):
        FreeSignal.learn(bad)
    frames, cal = free_stream(with_salute=True)
    events = detect_signals(frames, cal, only=["free"], free=fs)
    assert len(events) == 1 and events[0].evidence["team"] == "Blues"


def test_costs_survive_a_save_and_old_files_still_load(tmp_path):
    calib = seat_calibration({"ana": Body.make()})
    fs = FreeSignal.learn([seat_series(d, calib, "ana") for d in free_demonstrations(3)], name="Blues")
    fs.save(tmp_path / "f.json")
    again = FreeSignal.load(tmp_path / "f.json")
    assert again.costs == pytest.approx(fs.costs) and again.name == "Blues"
    d = fs.to_dict()
    del d["costs"]
    assert FreeSignal.from_dict(d).costs == ()
    with pytest.raises(FreeSignalError):
        FreeSignal.from_dict({**d, "format": "x"})
