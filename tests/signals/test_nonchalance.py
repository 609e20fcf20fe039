"""The nonchalance score (vision/signals/nonchalance.py) on landmark streams built from real
MediaPipe landmarks (tests/signals/signal_streams.py): a small brief raise that is still read
scores higher than a big long one; an unread gesture scores zero; a gesture given while the
other hand moves scores higher than the same gesture alone; and the real gesture clip's raise
of the right hand (cached landmarks) is read and scored."""

from __future__ import annotations

import numpy as np
import pytest
from signal_streams import Body, lerp, ramp, seat_calibration, stream

from vision.signals.catalogue import default_catalogue
from vision.signals.engine import detect_signals, seat_series
from vision.signals.nonchalance import NOT_READ, best_event, nonchalance
from vision.signals.real_eval import CACHE, load_landmarks

CAT = default_catalogue()
SPEC = next(s for s in CAT.signals if s.id == "raise_hand_right")


def _raise(height: float, t0: float, t1: float, rise: float = 0.25, wave_other: bool = False):
    """The right hand raised to `height` (1: wrist an eye span above the eyes; 0: at the chin)
    between t0 and t1; `wave_other`: the left hand sweeps back and forth meanwhile."""
    b = Body.make()
    eye_y = (b.targets()["eye_left"][1] + b.targets()["eye_right"][1]) / 2
    chin_y = b.targets()["chin"][1]
    sh = b.pose[12, :2]
    wrist = (sh[0] - 0.4 * b.sw, float(lerp(chin_y, eye_y - b.iod, height)))

    def make(t):
        k = ramp(t, t0, t1, rise)
        right = lerp(b.rest_hand("right"), b.hand_at("right", 0, wrist), k)
        left = b.rest_hand("left")
        if wave_other:
            left = left + np.array([np.sin(2 * np.pi * 2.0 * t) * 1.5 * b.iod, 0.0, 0.0])
        return [b.person("ana", {"right": right, "left": left}, t=t)]

    frames = stream(4.0, make)
    cal = seat_calibration({"ana": b})
    return frames, cal


def _score(frames, cal):
    events = detect_signals(frames, cal, only=["raise_hand_right"])
    ev = best_event(events, "raise_hand_right", "ana")
    return nonchalance(seat_series(frames, cal, "ana"), SPEC, CAT, ev), ev


def test_a_small_brief_raise_still_read_scores_higher_than_a_big_long_one():
    small, ev_small = _score(*_raise(0.55, 1.0, 1.7, rise=0.2))
    big, ev_big = _score(*_raise(1.6, 0.6, 3.4, rise=0.4))
    assert ev_small is not None and ev_big is not None, "both must be read"
    assert small.read and big.read
    assert small.score > big.score + 10, (small, big)
    assert small.parts["subtle"] > big.parts["subtle"]
    assert small.parts["brief"] > big.parts["brief"]
    assert small.peak_margin is not None and big.peak_margin is not None
    assert 0 < small.peak_margin < big.peak_margin
    assert 0 < big.score < 100 and 0 < small.score < 100


def test_an_unread_gesture_scores_zero():
    # the hand lifted only to the chin: the raise's line is never crossed
    low, ev = _score(*_raise(-0.6, 1.0, 2.4))
    assert ev is None
    assert low == NOT_READ and low.score == 0 and not low.read
    assert "not read" in low.lines()[0]


def test_movement_of_the_other_hand_masks_the_gesture():
    alone, _ = _score(*_raise(0.9, 1.0, 2.4))
    masked, ev = _score(*_raise(0.9, 1.0, 2.4, wave_other=True))
    assert ev is not None
    assert masked.parts["masked"] > alone.parts["masked"] + 0.3
    assert masked.score > alone.score


def test_a_snatched_raise_scores_less_unhurried_than_a_slow_one():
    slow, _ = _score(*_raise(0.9, 1.0, 2.4, rise=0.6))
    fast, _ = _score(*_raise(0.9, 1.0, 2.4, rise=0.07))
    assert slow.parts["unhurried"] > fast.parts["unhurried"]


def test_the_real_clips_raise_of_the_right_hand_is_read_and_scored():
    frames, cal = load_landmarks(CACHE / "mps_gesture_recognizer_test_video.json.gz")
    seat = cal.seats[0].name
    ev = best_event(detect_signals(frames, cal, only=["raise_hand_right"]), "raise_hand_right", seat)
    assert ev is not None
    n = nonchalance(seat_series(frames, cal, seat), SPEC, CAT, ev)
    assert n.read and 0 < n.score < 100
    assert n.measure is not None and "right hand above the eyes" in n.measure
    d = n.to_dict()
    assert set(d["parts"]) == {"subtle", "brief", "unhurried", "masked"}
    assert n.lines()[0].startswith("nonchalance ")


@pytest.mark.parametrize("signal", ["touch_nose_right", "wink_left"])
def test_no_event_is_zero_for_every_detector(signal):
    spec = next(s for s in CAT.signals if s.id == signal)
    frames, cal = _raise(0.9, 1.0, 2.4)
    assert nonchalance(seat_series(frames, cal, "ana"), spec, CAT, None).score == 0
