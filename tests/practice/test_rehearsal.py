"""The team rehearsal's timing (tablereferee/practice/rehearsal.py) on the server's clock: the
gesture's start mapped through the drill's fastest frame, the first tap after it the reaction,
taps before it early; a signal the referee did not read has no reaction."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tablereferee.practice.drill import Drill
from tablereferee.practice.rehearsal import Rehearsal, RehearsalOver, public_result

NO_QUIZ = {"answers": 0, "spotted": 0, "noticed": 0, "missed": 0, "spotted_share": None}


def _drill(arrivals: list[float], times: list[float]) -> Drill:
    drill = Drill.start("Anna", "raise_hand_right", secret=True, team="Reds", window=6.0)
    drill.frames = [SimpleNamespace(t=t) for t in times]  # type: ignore[misc]  # only the times are read
    drill.arrivals = list(arrivals)
    return drill


def test_the_reaction_runs_from_the_gestures_start_to_the_first_tap_after_it():
    # frames at t = 0, 0.1 ... arrive 100 s + t + 0.04 (the fastest) or later: offset 100.04
    times = [k / 10 for k in range(30)]
    arrivals = [100.0 + t + 0.04 + (0.05 if k % 3 else 0.0) for k, t in enumerate(times)]
    drill = _drill(arrivals, times)
    assert drill.server_time(1.0) == pytest.approx(101.04)
    r = Rehearsal.start(drill, team="Reds", signaller="Anna", spotter="Carla")
    assert r.tap(now=100.54)["at"] == pytest.approx(0.5)  # before the gesture: early
    r.tap(now=100.04 + 1.6 + 0.45)  # the gesture began at 1.6 s: 0.45 s later
    r.tap(now=100.04 + 1.6 + 0.9)  # a second tap does not count
    out = r.finish({"seen": True, "start": 1.6, "end": 2.1, "delay": 0.32}, NO_QUIZ)
    assert out["reaction"] == pytest.approx(0.45, abs=1e-3) and out["early_taps"] == 1
    assert out["words"].startswith("Carla saw it 0.45 s after the gesture began (the referee read it in 0.32 s).")
    assert "1 tap before the gesture began" in out["words"] and "No quiz-taker" in out["words"]
    assert r.finish({"seen": False}, NO_QUIZ) is out  # finished once
    with pytest.raises(RehearsalOver):
        r.tap(now=200.0)
    assert "drill" not in public_result(out) and r.status()["state"] == "over"


def test_an_unread_signal_has_no_reaction_and_every_tap_is_early():
    drill = _drill([50.0, 50.1, 50.2], [0.0, 0.1, 0.2])
    r = Rehearsal.start(drill, team="Reds", signaller="Anna", spotter=None)
    r.tap(now=50.15)
    quiz = {"answers": 4, "spotted": 1, "noticed": 2, "missed": 2, "spotted_share": 0.25}
    out = r.finish({"seen": False, "start": None, "delay": None}, quiz)
    assert out["reaction"] is None and out["early_taps"] == 1 and not out["seen"]
    assert out["words"].startswith("The referee did not read the signal")
    assert "spotted this signal in 1 of 4 clips (2 noticed someone signal)" in out["words"]


def test_a_round_with_no_frame_arrival_times_nothing():
    drill = _drill([], [])
    r = Rehearsal.start(drill, team="Reds", signaller="Anna", spotter="Carla")
    assert r.status()["state"] == "waiting" and r.tap(now=1.0)["at"] is None
    out = r.finish({"seen": True, "start": 1.0, "delay": 0.3}, NO_QUIZ)
    assert out["reaction"] is None and out["words"].startswith("Carla did not tap seen")
