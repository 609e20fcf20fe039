"""Everything the table session can observe: typed, timestamped values on one session clock.

This is the one list of what perception and the keyboard hand to the referee. Every value
carries a time on the session clock (0 = the start of the session; the log stores
`clock_origin + t`). Perception stages produce `CardsSeen` (the cards read in one frame of one
camera, already placed in zones) and `SignalEvent`s (a body or audible signal, evidence that
never changes the game); the keyboard produces
`KeyboardLine`s (calls with who called and whom, corrections, one-tap confirmations); a camera
that stops or comes back produces `CameraStatus`; a card camera whose picture the landmarks
stage also reads produces `HandsSeen` (fingertips, for the lead-motion cue).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from referee.core import jsonable

UNKNOWN_CARD = "?"
UNKNOWN_PLAYER = "unknown"  # a signal that cannot be attributed to a seat


@dataclasses.dataclass(frozen=True)
class CardReading:
    """One card in one frame. `card` is the face id of `vision.cards.decks` ("chicken:orloff",
    "egg:sun-4", "3D") or None while unknown; `confidence` 0..1 combines the detector's and the
    identification's; `zone` is the table zone its centre lies in (None: outside every zone)."""

    card: str | None
    confidence: float
    face_up: bool = True
    zone: str | None = None
    corners: tuple[tuple[float, float], ...] = ()
    track_id: int = -1

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = jsonable(self)
        return data


@dataclasses.dataclass(frozen=True)
class CardsSeen:
    """The cards one camera read in one processed frame."""

    t: float
    camera: str
    cards: tuple[CardReading, ...]
    frame: int = -1


@dataclasses.dataclass(frozen=True)
class KeyboardLine:
    """A line typed by the scorekeeper: a game command ("coccode Anna", "caught Dario Anna"),
    a correction, a note, or a confirmation ("yes 12", "no 12")."""

    t: float
    text: str


@dataclasses.dataclass(frozen=True)
class CameraStatus:
    """A camera lost (`ok=False`) or back (`ok=True`), with the reason."""

    t: float
    camera: str
    ok: bool
    reason: str = ""


@dataclasses.dataclass(frozen=True)
class HandTips:
    """One hand's fingertips and finger pads in a card camera's pixels (`player`: whose, when
    the landmarks stage knew it)."""

    points: tuple[tuple[float, float], ...]
    player: str | None = None


@dataclasses.dataclass(frozen=True)
class HandsSeen:
    """The hands one card camera saw in one frame (an empty tuple: looked for, none seen). Only
    the lead-motion cue uses them (a hand on a card as it lands); they are not logged."""

    t: float
    camera: str
    hands: tuple[HandTips, ...] = ()


@dataclasses.dataclass(frozen=True)
class ZoneContent:
    """What a zone holds once it has stayed the same for the stabiliser's dwell: the face-up
    cards (face ids, `UNKNOWN_CARD` for one not read), their mean confidences over the dwell,
    and how many cards lie face down."""

    t: float  # when the content became stable
    since: float  # when it was first seen
    camera: str
    zone: str
    cards: tuple[str, ...]
    confidences: tuple[float, ...]
    face_down: int = 0
    frames: int = 0

    def to_payload(self) -> dict[str, Any]:
        return {
            "type": "cards",
            "camera": self.camera,
            "zone": self.zone,
            "cards": list(self.cards),
            "confidences": [round(c, 3) for c in self.confidences],
            "face_down": self.face_down,
            "since": round(self.since, 3),
            "frames": self.frames,
        }

    @classmethod
    def from_payload(cls, t: float, payload: Mapping[str, Any]) -> ZoneContent:
        return cls(
            t=t,
            since=float(payload["since"]),
            camera=payload["camera"],
            zone=payload["zone"],
            cards=tuple(payload["cards"]),
            confidences=tuple(payload["confidences"]),
            face_down=int(payload.get("face_down", 0)),
            frames=int(payload.get("frames", 0)),
        )


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
        data: dict[str, Any] = jsonable(self)
        return data


def engine_card(face: str) -> str:
    """The rules engines' name for a face id: a chicken or henhouse its breed, an egg its name
    ("sun-4"), a suited card its code ("3D")."""
    kind, _, rest = face.partition(":")
    if not rest:
        return face
    if kind in ("chicken", "henhouse", "guild", "signal"):
        return rest.split(":", 1)[0]
    return rest


def card_kind(face: str) -> str:
    """'chicken', 'egg', 'henhouse', ... for a Beccato! face id; 'pip' for a suited card."""
    kind, sep, _ = face.partition(":")
    return kind if sep else ("unknown" if face == UNKNOWN_CARD else "pip")
