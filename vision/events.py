"""Signal events: what the body-signal and audio recognisers report, in one shape.

A signal never changes the game state: it is evidence, logged per player, that a referee or a
player can review ("she touched her left eye, not her nose").
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

from referee.core import jsonable

UNKNOWN_PLAYER = "unknown"


@dataclasses.dataclass(frozen=True)
class SignalEvent:
    """One recognised signal.

    player: the seat's player name, or `UNKNOWN_PLAYER` when it cannot be attributed.
    signal: the catalogue id (e.g. "touch_nose_left", "hum", "talk_sport").
    start, end: seconds on the session clock.
    confidence: 0..1. `unsure=True` is an honest "something like it happened, not certain".
    evidence: what a dispute needs: landmarks, distances, frame indices, features, words heard.
    """

    player: str
    signal: str
    start: float
    end: float
    confidence: float
    evidence: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    unsure: bool = False

    def __post_init__(self) -> None:
        if self.end < self.start:
            raise ValueError(f"event ends ({self.end}) before it starts ({self.start})")
        if not 0.0 <= self.confidence <= 1.0:
            raise ValueError(f"confidence {self.confidence} is outside 0..1")

    def to_dict(self) -> dict[str, Any]:
        return jsonable(self)
