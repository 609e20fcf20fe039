"""Window classes on the committed fixtures (held-out voices and seed), smoothing, calibration."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.audio.conftest import fixture_path
from vision.audio import features as F
from vision.audio.classify import CLASSES, Classifier, default_classifier, viterbi
from vision.audio.sources import SAMPLE_RATE, AudioClip, load


@pytest.mark.parametrize(
    "name,label",
    [("hum.wav", "hum"), ("mumble.wav", "mumble"), ("speech_en_tv.wav", "speech"), ("silence_taps.wav", "silence")],
)
def test_fixture_windows_get_their_class(analyses, labels, name, label):
    a, b = labels[name]["content"]
    inside = [w for w in analyses[name].windows if w.start >= a - 0.05 and w.end <= b + 0.05]
    lead = [w for w in analyses[name].windows if w.end <= a + 0.05]
    assert inside and lead
    assert np.mean([w.label == label for w in inside]) >= 0.8
    assert all(w.label == "silence" for w in lead)  # the calibration second


def test_session_events_in_order(analyses, labels):
    """silence (with card taps), hum, talk about sport, mumble: one event each, in place."""
    events = analyses["session.wav"].events
    assert [e.signal for e in events] == ["hum", "talk_sport", "mumble"]
    truth = [s for s in labels["session.wav"]["segments"] if s["label"] != "silence"]
    for e, s in zip(events, truth):
        overlap = min(e.end, s["end"]) - max(e.start, s["start"])
        assert overlap > 0.7 * (s["end"] - s["start"]), (e, s)


def test_events_carry_features_as_evidence(analyses):
    hum = [e for e in analyses["hum.wav"].events if e.signal == "hum"][0]
    f = hum.evidence["features"]
    assert set(f) == set(F.FEATURE_NAMES)
    # what makes it a hum: long voiced runs of steady pitch, no syllable rhythm, dark spectrum
    assert f["longest_voiced_s"] > 0.6 and f["pitch_step_st"] < 0.3 and f["balance_db"] < -10
    assert hum.player == "unknown" and 0.5 < hum.confidence <= 1


def test_mumble_is_darker_than_speech(analyses):
    m = analyses["mumble.wav"].events[0].evidence["features"]
    s = analyses["speech_en_tv.wav"].events[0].evidence["features"]
    assert m["balance_db"] < s["balance_db"] - 10


def test_viterbi_removes_a_single_window_flicker():
    p = np.tile([[0.1, 0.8, 0.05, 0.05]], (9, 1))
    p[4] = [0.1, 0.35, 0.5, 0.05]  # one window leaning to mumble in the middle of speech
    assert list(viterbi(p)) == [1] * 9
    p[3:7] = [0.05, 0.05, 0.85, 0.05]  # four windows: a real change
    assert list(viterbi(p)) == [1, 1, 1, 2, 2, 2, 2, 1, 1]


@given(st.lists(st.lists(st.floats(0.01, 1.0), min_size=4, max_size=4), min_size=1, max_size=30))
def test_viterbi_path_is_valid_and_follows_unanimous_evidence(rows):
    p = np.array(rows) / np.array(rows).sum(1, keepdims=True)
    path = viterbi(p)
    assert len(path) == len(rows) and set(path) <= set(range(4))
    same = np.full_like(p, 0.02)
    same[:, 3] = 0.94
    assert list(viterbi(same)) == [3] * len(rows)


@settings(max_examples=25, deadline=None)
@given(st.floats(-30, 30), st.integers(0, 10_000))
def test_noise_floor_follows_the_room_gain(gain_db, seed):
    """Calibration is relative: the same room 10 dB louder has a floor 10 dB higher."""
    noise = np.random.default_rng(seed).standard_normal(SAMPLE_RATE).astype(np.float32) * 1e-3
    base = F.NoiseFloor.calibrate(AudioClip(noise)).db
    louder = F.NoiseFloor.calibrate(AudioClip(noise * np.float32(10 ** (gain_db / 20)))).db
    assert louder == pytest.approx(max(base + gain_db, -90.0), abs=0.05)


def test_noise_floor_ignores_a_word_during_calibration():
    rng = np.random.default_rng(0)
    noise = rng.standard_normal(SAMPLE_RATE).astype(np.float32) * 1e-3
    quiet = F.NoiseFloor.calibrate(AudioClip(noise)).db
    burst = noise.copy()
    burst[4000:8000] += 0.3 * np.sin(np.arange(4000) / 5).astype(np.float32)  # a quarter second
    assert F.NoiseFloor.calibrate(AudioClip(burst)).db == pytest.approx(quiet, abs=1.0)


def test_digital_silence_is_clamped():
    assert F.NoiseFloor.calibrate(AudioClip(np.zeros(SAMPLE_RATE, np.float32))).db == -90.0


def test_short_clip_gives_one_window():
    clip = load(fixture_path("hum.wav")).slice(1.5, 1.9)
    w = F.windows(clip)
    assert w.features.shape == (1, len(F.FEATURE_NAMES))
    assert np.all(np.isfinite(w.features))


def test_shipped_weights_match_the_features():
    clf = default_classifier()
    assert clf.classes == CLASSES and clf.features == F.FEATURE_NAMES
    assert clf.weights.shape == (len(F.FEATURE_NAMES) + 1, len(CLASSES))
    assert clf.meta["voices_en"] and not set(clf.meta["voices_en"]) & {"en-us+m7", "en-gb+klatt3"}


def test_fit_learns_a_separable_toy_problem(tmp_path):
    rng = np.random.default_rng(1)
    y = np.repeat(np.arange(4), 50)
    X = rng.standard_normal((200, len(F.FEATURE_NAMES))) * 0.3
    X[np.arange(200), y] += 3.0
    clf = Classifier.fit(X, y)
    assert np.mean(clf.posteriors(X).argmax(1) == y) > 0.97
    clf.save(str(tmp_path / "c.json"))
    again = Classifier.load(str(tmp_path / "c.json"))
    assert np.allclose(again.posteriors(X), clf.posteriors(X), atol=1e-4)


@pytest.mark.parametrize("n", [0, 1, 100, 700, 5000])
def test_very_short_clips_are_silence_not_a_crash(n):
    from vision.audio.pipeline import AudioListener

    x = (np.random.default_rng(n).standard_normal(n) * 0.01).astype(np.float32)
    a = AudioListener().analyse(AudioClip(x, start=2.0))
    assert [w.label for w in a.windows] == ["silence"] and a.events == []
    assert a.windows[0].start == 2.0


def test_calibrated_noise_spectrum_keeps_a_hum_dark_in_hiss():
    """White noise 6 dB under a low hum makes it look bright unless the room's noise spectrum,
    measured during calibration, is taken out before the spectral balance."""
    rng = np.random.default_rng(3)
    t = np.arange(3 * SAMPLE_RATE) / SAMPLE_RATE
    hum = sum(np.sin(2 * np.pi * 150 * k * t) / k**2 for k in range(1, 6))
    hum[:SAMPLE_RATE] = 0  # the calibration second
    hum *= 0.05 / np.sqrt(np.mean(hum[SAMPLE_RATE:] ** 2))
    noise = rng.standard_normal(len(t)) * 0.05 * 10 ** (-6 / 20)
    clip = AudioClip((hum + noise).astype(np.float32))
    floor = F.NoiseFloor.calibrate(clip)
    assert floor.bands[1] > 0
    track = F.frame_track(clip)
    i0, i1 = 150, 250  # 1.5-2.5 s
    k = F.FEATURE_NAMES.index("balance_db")
    with_noise_out = F.window_features(track, floor, i0, i1)[k]
    raw = F.window_features(track, F.NoiseFloor(floor.db, 1.0), i0, i1)[k]
    assert with_noise_out < raw - 5


def test_a_live_chunk_that_opens_mid_sentence_keeps_the_session_floor():
    """Chunks of a stream: the second one is all talk. Calibrating on it would take the talk
    for the room at rest; carrying on from the first chunk keeps the room's floor."""
    from vision.audio.pipeline import AudioListener

    talk = load(fixture_path("speech_en_sport.wav"))
    quiet = talk.slice(0.0, 1.0)  # the room before anyone speaks
    words = talk.slice(1.0, 3.4)
    chunk2 = AudioClip(words.samples, start=quiet.end)
    live = AudioListener(recognize=False)
    first = live.analyse(quiet)
    assert first.events == []
    second = live.analyse(chunk2)
    assert second.noise_floor_db == first.noise_floor_db
    assert [e.signal for e in second.events] == ["talking"]
    alone = AudioListener(recognize=False).analyse(chunk2)
    assert alone.noise_floor_db > first.noise_floor_db + 6  # what calibrating on talk would do
