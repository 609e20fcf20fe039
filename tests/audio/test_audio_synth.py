"""The offline generator of test audio (espeak-ng, sox, numpy)."""

import numpy as np
import pytest

from vision.audio import synth
from vision.audio.sources import SAMPLE_RATE

needs_tools = pytest.mark.skipif(
    not synth.have_tools(), reason="espeak-ng and sox not installed (bash scripts/install-debian.sh)"
)


def test_fitting_and_heldout_voices_do_not_overlap():
    assert not set(synth.TUNE_VOICES_EN) & set(synth.HELDOUT_VOICES_EN)
    assert not set(synth.TUNE_VOICES_IT) & set(synth.HELDOUT_VOICES_IT)


@needs_tools
@pytest.mark.parametrize("label", synth.CLASSES)
def test_make_clip_is_labelled_and_deterministic(label):
    a = synth.make_clip(
        label, np.random.default_rng(5), synth.HELDOUT_VOICES_EN, synth.HELDOUT_VOICES_IT, seconds=1.5, noise="pink"
    )
    b = synth.make_clip(
        label, np.random.default_rng(5), synth.HELDOUT_VOICES_EN, synth.HELDOUT_VOICES_IT, seconds=1.5, noise="pink"
    )
    assert np.array_equal(a.clip.samples, b.clip.samples)
    s, e = a.content
    assert s == synth.LEAD and e <= a.clip.duration - 0.45
    lead = a.clip.samples[: int(SAMPLE_RATE * s)]
    body = a.clip.samples[int(SAMPLE_RATE * s) : int(SAMPLE_RATE * e)]
    if label != "silence":
        # the content stands above the room noise by about the chosen SNR
        gain = 10 * np.log10(np.mean(body**2) / np.mean(lead**2))
        assert gain > 8
    assert a.label_at(0.0, 1.0) == "silence" and a.label_at(s, min(e, s + 1.0)) == label


@needs_tools
def test_espeak_speaks_both_languages():
    en = synth.espeak("the football match", "en-us")
    it = synth.espeak("la partita di calcio", "it")
    assert 0.5 < len(en) / SAMPLE_RATE < 3 and 0.5 < len(it) / SAMPLE_RATE < 3
    assert np.max(np.abs(en)) == pytest.approx(1.0, abs=1e-3)


def test_unknown_class():
    with pytest.raises(ValueError):
        synth.make_clip("whistle", np.random.default_rng(0), ("en-us",), ("it",))
