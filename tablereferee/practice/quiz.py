"""The spotter's quiz, scored as signal detection.

Each clip either holds a signal (who gave it, which one) or nobody's. The quiz-taker says who
signalled and which signal, or "nobody". One answer is one of:

* **hit**: a signal was given, and the quiz-taker named its player and its signal;
* **wrong**: a signal was given and spotted, but the player or the signal named is wrong
  (counted as a miss for d', and shown apart: the eye caught something);
* **miss**: a signal was given, and the quiz-taker said nobody;
* **false alarm**: nobody signalled, and the quiz-taker named someone;
* **correct rejection**: nobody signalled, and the quiz-taker said nobody.

d' = z(hit rate) - z(false-alarm rate), each rate corrected by the log-linear rule
((count + 0.5) / (trials + 1)), so a perfect or an empty record gives a finite d'.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from statistics import NormalDist
from typing import Any

HIT, WRONG, MISS, FALSE_ALARM, CORRECT_REJECTION = "hit", "wrong", "miss", "false alarm", "correct rejection"
OUTCOMES = (HIT, WRONG, MISS, FALSE_ALARM, CORRECT_REJECTION)


def score_answer(truth: tuple[str | None, str | None], said: tuple[str | None, str | None]) -> str:
    """`truth`: (player, signal) of the clip, or (None, None) when nobody signalled;
    `said`: the quiz-taker's (player, signal), or (None, None) for "nobody"."""
    given = truth[0] is not None
    named = said[0] is not None
    if given and named:
        same = said[0] == truth[0] and (said[1] is None or said[1] == truth[1])
        return HIT if same and said[1] is not None else WRONG
    if given:
        return MISS
    return FALSE_ALARM if named else CORRECT_REJECTION


def _z(p: float) -> float:
    return NormalDist().inv_cdf(p)


@dataclasses.dataclass(frozen=True)
class Tally:
    hits: int = 0
    wrong: int = 0
    misses: int = 0
    false_alarms: int = 0
    correct_rejections: int = 0

    @classmethod
    def of(cls, outcomes: Iterable[str]) -> Tally:
        n = dict.fromkeys(OUTCOMES, 0)
        for o in outcomes:
            n[o] += 1
        return cls(n[HIT], n[WRONG], n[MISS], n[FALSE_ALARM], n[CORRECT_REJECTION])

    @property
    def signal_trials(self) -> int:
        return self.hits + self.wrong + self.misses

    @property
    def noise_trials(self) -> int:
        return self.false_alarms + self.correct_rejections

    @property
    def hit_rate(self) -> float:
        return (self.hits + 0.5) / (self.signal_trials + 1)

    @property
    def false_alarm_rate(self) -> float:
        return (self.false_alarms + 0.5) / (self.noise_trials + 1)

    @property
    def d_prime(self) -> float:
        return _z(self.hit_rate) - _z(self.false_alarm_rate)

    def to_dict(self) -> dict[str, Any]:
        return {
            "hits": self.hits,
            "wrong": self.wrong,
            "misses": self.misses,
            "false_alarms": self.false_alarms,
            "correct_rejections": self.correct_rejections,
            "answers": self.signal_trials + self.noise_trials,
            "hit_rate": round(self.hit_rate, 3),
            "false_alarm_rate": round(self.false_alarm_rate, 3),
            "d_prime": round(self.d_prime, 3),
        }
