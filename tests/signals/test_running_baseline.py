"""The wink detector's running baseline, all frames at once, against `np.percentile` frame by
frame (the way it was first written): the same numbers to the last bit."""

from __future__ import annotations

import tracemalloc

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.signals.detectors import _running_baseline


def frame_by_frame(t: np.ndarray, x: np.ndarray, window: float, q: float) -> np.ndarray:
    out = np.full(len(t), np.nan)
    j = 0
    for i in range(len(t)):
        while t[i] - t[j] > window:
            j += 1
        seg = x[j : i + 1]
        seg = seg[np.isfinite(seg)]
        if len(seg):
            out[i] = np.percentile(seg, q)
    return out


values = st.one_of(
    st.floats(0.0, 1.0, allow_nan=False),
    st.just(float("nan")),
    st.just(float("inf")),
    st.sampled_from([0.1, 0.25, 0.3]),  # ties
)


@settings(max_examples=300, deadline=None)
@given(
    steps=st.lists(st.sampled_from([0.0, 1 / 30, 1 / 15, 0.1, 0.5, 2.0]), min_size=0, max_size=80),
    xs=st.lists(values, min_size=80, max_size=80),
    window=st.sampled_from([0.5, 1.0, 3.0, 1 / 15]),
    q=st.sampled_from([50, 75, 80, 90.0, 33.3, 0, 100]),
)
def test_the_running_baseline_is_numpys_percentile_frame_by_frame(steps, xs, window, q):
    t = np.cumsum(np.array([0.0] + steps))
    x = np.array(xs[: len(t)])
    got = _running_baseline(t, x, window, q)
    want = frame_by_frame(t, x, window, q)
    np.testing.assert_array_equal(got, want)


def test_a_long_video_s_stream_needs_memory_in_its_frames_not_their_square():
    """`referee signals` runs the detectors over a whole video: an hour at 10 frames a second
    is 36,000 frames, whose square would be gigabytes. 20,000 frames here, the same numbers as
    frame by frame on a stretch of them."""
    rng = np.random.default_rng(0)
    t = np.cumsum(rng.choice([0.1, 0.1, 1 / 15, 0.2], 20_000))
    x = rng.uniform(0.2, 0.4, len(t))
    x[rng.random(len(t)) < 0.1] = np.nan
    tracemalloc.start()
    got = _running_baseline(t, x, 3.0, 80)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 40e6, peak  # the square of the frames: 400 MB of booleans
    np.testing.assert_array_equal(got[:600], frame_by_frame(t[:600], x[:600], 3.0, 80))
    np.testing.assert_array_equal(got[-300:], frame_by_frame(t, x, 3.0, 80)[-300:])
