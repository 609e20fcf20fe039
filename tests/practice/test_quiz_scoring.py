"""The spotter's quiz scored as signal detection (tablereferee/practice/quiz.py), and the
practice history in SQLite (tablereferee/practice/store.py)."""

from __future__ import annotations

from statistics import NormalDist

import pytest

from tablereferee.practice.quiz import (
    CORRECT_REJECTION,
    FALSE_ALARM,
    HIT,
    MISS,
    WRONG,
    Tally,
    score_answer,
)
from tablereferee.practice.store import SECRET_LABEL, PracticeStore

ANNA_RAISE = ("Anna", "raise_hand_right")
NOBODY = (None, None)


@pytest.mark.parametrize(
    ("truth", "said", "outcome"),
    [
        (ANNA_RAISE, ANNA_RAISE, HIT),
        (ANNA_RAISE, ("Anna", "touch_nose_left"), WRONG),
        (ANNA_RAISE, ("Ben", "raise_hand_right"), WRONG),
        (ANNA_RAISE, ("Anna", None), WRONG),
        (ANNA_RAISE, NOBODY, MISS),
        (NOBODY, ANNA_RAISE, FALSE_ALARM),
        (NOBODY, NOBODY, CORRECT_REJECTION),
    ],
)
def test_each_answer_is_one_outcome(truth, said, outcome):
    assert score_answer(truth, said) == outcome


def test_d_prime_is_the_gap_of_the_z_scores_with_the_log_linear_correction():
    t = Tally.of([HIT] * 8 + [MISS] * 2 + [FALSE_ALARM] * 1 + [CORRECT_REJECTION] * 9)
    z = NormalDist().inv_cdf
    assert t.hit_rate == pytest.approx(8.5 / 11) and t.false_alarm_rate == pytest.approx(1.5 / 11)
    assert t.d_prime == pytest.approx(z(8.5 / 11) - z(1.5 / 11))
    assert t.d_prime > 1.5


def test_a_perfect_record_has_a_finite_d_prime_and_guessing_none():
    perfect = Tally.of([HIT] * 5 + [CORRECT_REJECTION] * 5)
    assert 0 < perfect.d_prime < 4
    yes_to_all = Tally.of([HIT] * 5 + [FALSE_ALARM] * 5)
    assert yes_to_all.d_prime == pytest.approx(0.0)
    empty = Tally.of([])
    assert empty.d_prime == pytest.approx(0.0) and empty.to_dict()["answers"] == 0


def test_a_wrong_name_counts_as_a_miss_for_d_prime_but_is_shown_apart():
    t = Tally.of([WRONG, WRONG, HIT, CORRECT_REJECTION])
    assert t.signal_trials == 3 and t.hits == 1 and t.wrong == 2
    assert t.to_dict()["wrong"] == 2


def test_the_store_keeps_drills_answers_and_ranks_the_leaderboard(tmp_path):
    store = PracticeStore(tmp_path / "practice.sqlite")
    result = {
        "drill": "d1",
        "player": "Anna",
        "card": {"signal": "raise_hand_right"},
        "seen": True,
        "delay": 0.3,
        "confidence": 0.9,
        "frames": 40,
        "nonchalance": {"score": 55.0},
        "cue": "the right hand held up",
    }
    store.add_drill(result)
    store.add_drill({**result, "drill": "d2", "card": {"signal": "touch_nose_left"}, "seen": False}, secret=True)
    h = store.history("Anna")
    assert [d["signal"] for d in h] == ["raise_hand_right", SECRET_LABEL]  # the team's own card never written
    assert store.summary("Anna")["raise_hand_right"] == {
        "drills": 1,
        "seen": 1,
        "mean_delay": 0.3,
        "mean_nonchalance": 55.0,
    }
    for _ in range(3):
        store.add_answer("Ben", "c1", ANNA_RAISE, ANNA_RAISE)
        store.add_answer("Ben", "c2", NOBODY, NOBODY)
        store.add_answer("Carla", "c1", ANNA_RAISE, NOBODY)
        store.add_answer("Carla", "c2", NOBODY, ANNA_RAISE)
    board = store.leaderboard()
    assert [r["player"] for r in board] == ["Ben", "Carla"]
    assert board[0]["hits"] == 3 and board[1]["false_alarms"] == 3 and board[1]["d_prime"] < 0
    store.close()
    again = PracticeStore(tmp_path / "practice.sqlite")  # kept on disk
    assert len(again.history("Anna")) == 2 and again.players() == ["Anna", "Ben", "Carla"]
    again.close()
    assert "touch_nose_left" not in (tmp_path / "practice.sqlite").read_bytes().decode("latin-1")
