import json
import os

import pytest

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "audio")


def fixture_path(name: str) -> str:
    return os.path.join(FIXTURES, name)


@pytest.fixture(scope="session")
def labels() -> dict:
    with open(fixture_path("labels.json")) as f:
        return json.load(f)


@pytest.fixture(scope="session")
def listener():
    from vision.audio.pipeline import AudioListener

    return AudioListener()


@pytest.fixture(scope="session")
def analyses(listener):
    """Each committed fixture analysed once. PocketSphinx decodes the speech of three of them
    only (it is the slow part); the others go through the path without recognition."""
    from vision.audio.pipeline import AudioListener
    from vision.audio.sources import load

    quick = AudioListener(recognize=False)
    decoded = ("speech_en_sport.wav", "speech_en_game.wav", "session.wav")
    rest = ("hum.wav", "mumble.wav", "silence_taps.wav", "speech_en_tv.wav")
    out = {n: listener.analyse(load(fixture_path(n))) for n in decoded}
    out.update({n: quick.analyse(load(fixture_path(n))) for n in rest})
    return out
