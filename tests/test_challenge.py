"""The instant challenge's buffer and builder, on the demo session's recorded frames fed through
the buffer as a live table's frame listener would (tablereferee/challenge.py)."""

from __future__ import annotations

import atexit
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.core import RefereeError
from referee.observations import SignalEvent
from tablereferee.challenge import (
    SLOW,
    ChallengeBook,
    ChallengeBuffer,
    Challenges,
    NoChallengesLeft,
    NothingToReplay,
    UnknownPlayer,
    build_challenge,
    recorded_frames,
)

ROOT = Path(__file__).resolve().parents[1]
_DEMO: dict[str, Path] = {}


def demo_folder() -> Path:
    """`referee demo --no-clip`'s session, made once per test process (the review's and the
    challenge's tests share it)."""
    if "path" not in _DEMO:
        base = Path(tempfile.mkdtemp(prefix="review-demo-"))
        atexit.register(shutil.rmtree, base, True)
        out = base / "demo"
        done = subprocess.run(
            [sys.executable, "-m", "tablereferee.cli", "demo", "--out", str(out), "--no-clip", "--threads", "1"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        _DEMO["path"] = out
    return _DEMO["path"]


@pytest.fixture(scope="module")
def frames():
    return recorded_frames(demo_folder())


def filled(frames, until: float, keep_signals: bool = True, **kwargs) -> Challenges:
    challenges = Challenges(ChallengeBuffer(**kwargs), predraw=False)
    challenges.teams_from_session(demo_folder())
    for frame, obs, lm in frames:
        if frame.t > until:
            break
        challenges.buffer.add(frame, [o for o in obs if keep_signals or not isinstance(o, SignalEvent)], lm)
    return challenges


def test_the_recording_feeds_every_camera_with_its_observations(frames):
    cams = {f.camera for f, _, _ in frames}
    assert cams == {"cards", "people"}
    assert sum(1 for _, _, lm in frames if lm is not None) > 50  # the people camera's stored landmarks
    assert any(o.__class__.__name__ == "CardsSeen" and o.cards for _, obs, _ in frames for o in obs)
    times = [f.t for f, _, _ in frames]
    assert times == sorted(times)


def test_the_buffer_keeps_the_last_seconds_and_its_memory_is_bounded(frames):
    ten = filled(frames, until=14.0, seconds=10.0)
    for cam in ("cards", "people"):
        kept, _ = ten.buffer.snapshot(0.0, 20.0)
        newest = kept[cam][-1].t
        assert kept[cam][0].t >= newest - 10.0 - 1e-6
    assert ten.buffer.snapshot(0.0, 3.0)[0].get("cards") is None  # the cards camera ran to 14 s: 0-3 s is gone
    small = filled(frames, until=14.0, seconds=10.0, max_bytes=400_000)
    assert small.buffer.bytes <= 400_000
    assert small.buffer.bytes < ten.buffer.bytes / 3


def test_a_challenge_slows_down_around_the_accused_strongest_signal(frames):
    challenges = filled(frames, until=4.5)
    made = challenges.open("Bruno", by="Anna")
    assert made.made_in < 2.0
    assert made.cue.source == "signal"
    assert 1.7 <= made.cue.t <= 2.2  # Bruno's raised fist, 1.76-2.08 s
    normal, slow = made.phases
    assert (normal["rate"], normal["from"], normal["to"]) == (1.0, 0.0, 4.5)
    assert slow["rate"] == SLOW and slow["from"] <= made.cue.t <= slow["to"]
    assert "raise" not in made.cue.text and "raise" not in slow["text"]  # the signal is never named
    assert set(made.frames) == {"cards", "people"}
    assert made.team == "dollar" and challenges.book.left("dollar") == 2


def test_the_frames_are_drawn_from_the_stored_reads(frames):
    made = filled(frames, until=4.5).open("Bruno")
    people = made.frames["people"]
    i = min(range(len(people)), key=lambda j: abs(people[j].t - 2.0))
    assert people[i].landmarks is not None
    raw = cv2.imdecode(np.frombuffer(people[i].jpeg, np.uint8), cv2.IMREAD_COLOR)
    drawn = cv2.imdecode(np.frombuffer(made.jpeg("people", i), np.uint8), cv2.IMREAD_COLOR)
    assert drawn.shape == raw.shape
    changed = np.mean(np.abs(drawn.astype(int) - raw.astype(int)).sum(axis=2) > 60)
    assert changed > 0.01  # landmarks, seat and banner drawn over the frame
    cards = made.frames["cards"]
    j = max(i for i, k in enumerate(cards) if k.cards)
    assert cards[j].cards[0].card.startswith("egg:")
    assert made.jpeg("cards", j) is made.jpeg("cards", j)  # drawn once, then kept


def test_every_frame_is_drawn_ahead_once_a_challenge_is_made(frames):
    challenges = filled(frames, until=4.5)
    challenges.predraw = True
    made = challenges.open("Bruno")
    assert made.drawn.wait(60)
    assert len(made._drawn) == sum(len(k) for k in made.frames.values())
    challenges.close()


def test_without_a_signal_the_closest_approach_of_the_measures_is_slowed_down(frames):
    made = filled(frames, until=4.5, keep_signals=False).open("Bruno")
    assert made.cue.source == "measure"
    assert 1.4 <= made.cue.t <= 2.5  # the raise comes nearest a line


def test_a_player_nobody_watched_gets_the_last_seconds(frames):
    made = filled(frames, until=4.5).open("Carla")
    assert made.cue.source == "call"
    assert made.cue.t == pytest.approx(3.5)


def test_each_team_has_three_challenges_a_game(frames):
    challenges = filled(frames, until=4.5)
    for left in (2, 1, 0):
        challenges.open("Bruno", by="Carla")
        assert challenges.book.left("dollar") == left
    with pytest.raises(NoChallengesLeft) as refused:
        challenges.open("Bruno", by="Anna")
    assert "dollar" in refused.value.message and isinstance(refused.value, RefereeError)
    assert challenges.open("Anna", by="Bruno").team == "star"  # the other team still has its own
    caught = challenges.on_action({"kind": "caught", "caller": "Anna", "target": "Bruno"})
    assert caught is not None and caught.accused == "Bruno"  # a Caught! at the table uses none
    assert challenges.on_action({"kind": "coccode", "caller": "Anna"}) is None


def test_refusals_are_named():
    book = ChallengeBook(per_team=1)
    book.use("x")
    with pytest.raises(NoChallengesLeft):
        book.use("x")
    empty = Challenges(teams={"a": ["Ann"]})
    with pytest.raises(NothingToReplay):
        empty.open("Ann", by="Ann")
    assert empty.book.left("a") == 3  # nothing replayed: the challenge is given back
    with pytest.raises(UnknownPlayer):
        empty.open("Zed")
    with pytest.raises(NothingToReplay):
        build_challenge(ChallengeBuffer(), "Ann")
    with pytest.raises(RefereeError):
        ChallengeBuffer(seconds=0)
