"""The audible drill (tablereferee/practice/audio_drill.py) on the real hum fixture
(tests/fixtures/audio/hum.wav: a hum at 1.0-4.0 s in its room's noise), made briefer (cut at
2.6 s) and quieter (more of its own room added, so it stands fewer dB above the floor): a
briefer, quieter hum that is still heard scores higher than the whole loud one, one too quiet to
hear scores zero; the chunking does not change what is heard; a muted microphone after the
room raises no false alarm; the shipped table talk is the one built from the fixtures."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tablereferee.practice.audio_drill import TABLE_TALK, AudioDrill, build_table_talk
from vision.audio.sources import load

AUDIO = Path(__file__).resolve().parents[1] / "fixtures" / "audio"
SR = 16_000
HUM = load(AUDIO / "hum.wav").samples
ROOM = HUM[:SR]  # the fixture's first second: its room, no hum


def room(n: int) -> np.ndarray:
    return np.tile(ROOM, n // SR + 1)[:n]


def run(x: np.ndarray, signal: str | None = "hum", chunk: int = 4000, **kw) -> dict:
    d = AudioDrill.start("Anna", signal, window=20, **kw)
    for i in range(0, len(x), chunk):
        d.add_pcm((np.clip(x[i : i + chunk], -1, 1) * 32767).astype("<i2").tobytes())
    return d.finish()


@pytest.fixture(scope="module")
def brief() -> np.ndarray:
    return np.concatenate([HUM[: int(2.6 * SR)], room(int(1.5 * SR))])


def test_a_brief_quiet_hum_still_heard_scores_higher_than_a_long_loud_one(brief):
    loud = run(HUM)
    short = run(brief)
    quiet = run(brief + 2 * room(len(brief)))  # the room 9.5 dB louder: the hum nearer the floor
    for v in (loud, short, quiet):
        assert v["heard"] and v["taken_for"] == "hum"
    assert loud["nonchalance"]["score"] < short["nonchalance"]["score"] < quiet["nonchalance"]["score"]
    assert short["nonchalance"]["parts"]["brief"] > loud["nonchalance"]["parts"]["brief"]
    assert quiet["nonchalance"]["parts"]["quiet"] > short["nonchalance"]["parts"]["quiet"]
    assert quiet["nonchalance"]["measured"]["loudness_db"] < short["nonchalance"]["measured"]["loudness_db"] - 5


def test_a_hum_too_quiet_to_hear_scores_zero(brief):
    v = run(brief + 4 * room(len(brief)))
    assert not v["heard"] and v["nonchalance"] == {"score": 0.0, "read": False, "parts": {}}


def test_chunks_of_any_size_hear_the_same_hum():
    fine, coarse = run(HUM, chunk=1600), run(HUM, chunk=16000)
    assert fine["heard"] and coarse["heard"]
    assert (fine["start"], fine["end"]) == (coarse["start"], coarse["end"])
    # recognition waits for the chunk that completes the window: coarser chunks, later
    assert fine["delay"] <= coarse["delay"] <= fine["delay"] + 1.0


def test_a_muted_microphone_after_the_room_is_no_mumble():
    # digital silence after a room's noise is taken for a mumble by the classifier; the drill's
    # dither (about -80 dBFS) keeps it the room at rest
    v = run(np.concatenate([room(3 * SR), np.zeros(3 * SR, np.float32)]), signal=None, quiet=True)
    assert v["clean"] and v["events"] == []


def test_the_shipped_table_talk_is_built_from_the_fixtures():
    built, shipped = build_table_talk(AUDIO), load(TABLE_TALK).samples
    assert len(built) == len(shipped) == int(10.7 * SR)
    assert np.max(np.abs(np.clip(built, -1, 1) - shipped)) <= 3 / 32768  # written at 32767, read at 32768
