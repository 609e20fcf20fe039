"""The audio path in a process of its own (`vision.capture.audio.analyse_apart`): the events
the listener finds in this process, and a named error when it cannot answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.audio.pipeline import AudioListener
from vision.audio.sources import load
from vision.capture.audio import AudioPathFailed, analyse_apart

DEMO = Path(__file__).resolve().parents[2] / "datasets" / "demo"


def test_the_audio_path_apart_finds_the_events_it_finds_here():
    clip = load(DEMO / "audio.wav", start=0.0).slice(8.0, 14.0)  # the demo's hum
    here = list(AudioListener().analyse(clip).events)
    apart, seconds = analyse_apart(clip)
    assert apart == here and [e.signal for e in apart] == ["hum"]
    assert seconds > 0


def test_an_audio_path_that_fails_apart_is_a_named_error():
    with pytest.raises(AudioPathFailed, match="the audio path failed"):
        analyse_apart("not a clip")


def test_an_unreadable_answer_from_the_audio_path_is_a_named_error(monkeypatch):
    """A child that exits well but answers something that is not its events (a library's stray
    output, a cut pipe) is `AudioPathFailed`, not a raw unpickling error."""
    import subprocess  # deferred: only this test fakes the child process

    import vision.capture.audio as audio

    def run(*args, **kwargs):
        return subprocess.CompletedProcess(args, 0, stdout=b"INFO: created a delegate\n", stderr=b"")

    monkeypatch.setattr(audio.subprocess, "run", run)
    clip = load(DEMO / "audio.wav", start=0.0).slice(8.0, 9.0)
    with pytest.raises(AudioPathFailed, match="nothing readable"):
        analyse_apart(clip)
