"""Recognition and topics on real decoding (a few short clips only), and model folders."""

import os

import pytest

from tests.audio.conftest import fixture_path
from vision.audio.errors import RecognitionModelMissing
from vision.audio.pipeline import TALKING, AudioListener
from vision.audio.recognize import SphinxRecognizer
from vision.audio.sources import load


def test_english_talk_about_sport_and_tv(analyses):
    (sport,) = analyses["speech_en_sport.wav"].events
    assert sport.signal == "talk_sport"
    assert "football" in sport.evidence["words"].split()
    assert {k["word"] for k in sport.evidence["keywords"]} >= {"football"}
    assert sport.evidence["language"] == "en"
    assert all(sport.start - 0.3 <= w.start < w.end <= sport.end + 0.3 for w in analyses["speech_en_sport.wav"].words)


def test_game_talk_is_talking_without_a_topic(analyses):
    (ev,) = analyses["speech_en_game.wav"].events
    assert ev.signal == TALKING
    assert ev.evidence["topic"] is None and ev.evidence["words"]


def test_events_are_on_the_session_clock(analyses):
    quick = AudioListener(recognize=False)
    ev = analyses["speech_en_sport.wav"].events[0]
    (shifted,) = quick.analyse(load(fixture_path("speech_en_sport.wav"), start=100.0)).events
    assert shifted.start == pytest.approx(ev.start + 100.0, abs=0.01)
    assert shifted.end == pytest.approx(ev.end + 100.0, abs=0.01)
    assert shifted.signal == TALKING and shifted.evidence["reason"] == "recognition switched off"


def test_italian_without_a_model_reports_talking_with_the_reason():
    listener = AudioListener(lang="it")
    (ev,) = listener.analyse(load(fixture_path("speech_it.wav"))).events
    assert ev.signal == TALKING and ev.evidence["topic"] is None
    assert "--model" in ev.evidence["reason"] and listener.no_recognizer_reason


def test_unknown_language():
    with pytest.raises(ValueError):
        AudioListener(lang="de")


def test_missing_model_folder_is_named(tmp_path):
    with pytest.raises(RecognitionModelMissing) as exc:
        SphinxRecognizer.from_folder(tmp_path / "cmusphinx-it")
    assert "cmusphinx-it" in exc.value.message
    (tmp_path / "it.dic").write_text("ciao tS a o\n")
    with pytest.raises(RecognitionModelMissing) as exc:
        SphinxRecognizer.from_folder(tmp_path)
    missing = " ".join(exc.value.details["missing"])
    assert "acoustic" in missing and "language model" in missing and "dictionary" not in missing


def test_a_model_folder_is_found_and_loaded(tmp_path):
    """A folder laid out like a downloaded CMU Sphinx model (here: the English files)."""
    import pocketsphinx

    src = os.path.join(pocketsphinx.get_model_path(), "en-us")
    os.makedirs(tmp_path / "model" / "etc")
    os.symlink(os.path.join(src, "en-us"), tmp_path / "model" / "acoustic")
    for name in ("en-us.lm.bin", "en-us-phone.lm.bin"):
        os.symlink(os.path.join(src, name), tmp_path / "model" / "etc" / name)
    os.symlink(os.path.join(src, "cmudict-en-us.dict"), tmp_path / "model" / "etc" / "words.dict")
    rec = SphinxRecognizer.from_folder(tmp_path / "model", lang="en")
    assert rec.source.endswith("model")
    clip = load(fixture_path("speech_en_sport.wav"), start=100.0).slice(100.8, 103.8)
    words = rec.words(clip)
    assert "football" in [w.text for w in words]
    assert all(100.8 <= w.start < w.end <= 103.85 for w in words)  # on the session clock


def test_long_talk_with_two_topics_gives_two_events(monkeypatch):
    """A minute of talk: sport at the start, TV at the end, game talk between (recognizer faked)."""
    import numpy as np

    from vision.audio.recognize import Word
    from vision.audio.sources import AudioClip

    class Fake:
        lang, source = "en", "fake"

        def words(self, clip):
            said = [
                (2, "football"),
                (3, "goals"),
                (20, "your"),
                (21, "turn"),
                (22, "chicken"),
                (50, "episode"),
                (51, "television"),
            ]
            return [Word(w, clip.start + t, clip.start + t + 0.5, 0.9) for t, w in said]

    from vision.audio import pipeline

    listener = AudioListener(recognizer=Fake())
    n = 2 * 16000  # the fake recognizer hears a minute of talk in it
    clip = AudioClip((np.random.default_rng(0).standard_normal(n) * 0.01).astype(np.float32))
    wins = listener.classify(clip)[:2]
    evs, _ = listener._speech_events(clip, 0.0, 60.0, wins, pipeline.F.NoiseFloor(-40.0, 1.0))
    assert [(e.signal, e.start, e.end) for e in evs] == [("talk_sport", 0.0, 5.5), ("talk_tv", 48.0, 53.5)]


def test_recognizer_on_noise_too_short_for_a_word_hears_nothing():
    import numpy as np

    from vision.audio.recognize import english
    from vision.audio.sources import AudioClip

    for n in (0, 100, 1600):
        x = (np.random.default_rng(n).standard_normal(n) * 0.01).astype(np.float32)
        assert english().words(AudioClip(x)) == []
