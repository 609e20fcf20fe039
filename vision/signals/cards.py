"""The card Signal cards from the card reader's output: what the player's hand shows.

Input protocol, per frame: (t, cards) where cards is either the card reader's
`vision.cards.detections.CardDetections` or any sequence of `CardSighting` (or dicts with
"corners", "face_up", "orientation"): quads in frame pixels, face up or down, orientation in
degrees (0 upright, 180 upside down; a value known only modulo 180 lies in [-90, 90)).

Only cards near the player's own hands count (within `hand_reach` hand sizes of a hand's
centre): cards on the table or in a neighbour's hand are ignored. Without a hand in view there
is no hand region, and no card signal is reported.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from referee.observations import SignalEvent
from vision.landmarks.types import SIDES
from vision.signals.catalogue import Catalogue, SignalSpec
from vision.signals.detectors import Run, _event, runs
from vision.signals.features import SeatSeries


@dataclasses.dataclass(frozen=True)
class CardSighting:
    corners: np.ndarray  # (4, 2) px
    face_up: bool = True
    orientation: float | None = None
    label: str | None = None

    @property
    def center(self) -> np.ndarray:
        return np.asarray(self.corners, np.float64).reshape(4, 2).mean(axis=0)


def as_sightings(cards: Any) -> list[CardSighting]:
    if cards is None:
        return []
    if hasattr(cards, "corners") and hasattr(cards, "face_up") and not isinstance(cards, CardSighting):
        corners = np.asarray(cards.corners, np.float64).reshape(-1, 4, 2)
        orient = getattr(cards, "orientation", None)
        labels = getattr(cards, "label", None)
        return [
            CardSighting(
                corners[i],
                bool(cards.face_up[i]),
                None if orient is None else float(orient[i]),
                None if labels is None else labels[i],
            )
            for i in range(len(corners))
        ]
    out = []
    for c in cards:
        if isinstance(c, CardSighting):
            out.append(c)
        elif isinstance(c, dict):
            out.append(
                CardSighting(
                    np.asarray(c["corners"], np.float64),
                    bool(c.get("face_up", True)),
                    c.get("orientation"),
                    c.get("label"),
                )
            )
        else:
            raise TypeError(f"not a card sighting: {c!r}")
    return out


def _hand_cards(series: SeatSeries, i: int, cards: list[CardSighting], reach: float) -> list[CardSighting]:
    centres = []
    for side in SIDES:
        pts = series.hand[side][i]
        if np.isfinite(pts).all():
            centres.append((pts.mean(axis=0), series.hand_size[side][i]))
    if not centres:
        return []
    return [c for c in cards if any(np.linalg.norm(c.center - ctr) <= reach * size for ctr, size in centres)]


def _align(series: SeatSeries, card_frames: Sequence[tuple[float, Any]], reach: float):
    t_cards, held = [], []
    for t, cards in card_frames:
        if series.n == 0:
            break
        i = int(np.argmin(np.abs(series.t - t)))
        if abs(series.t[i] - t) > 0.25:
            continue
        t_cards.append(t)
        held.append((i, _hand_cards(series, i, as_sightings(cards), reach)))
    return np.array(t_cards, np.float64), held


def _angle_diff(a: float, b: float) -> float:
    d = abs((a - b) % 360.0)
    return min(d, 360.0 - d)


def middle_flipped(cards: list[CardSighting], min_flip: float) -> bool:
    """Three or five face-up cards in a row, the middle one turned against both neighbours."""
    up = [c for c in cards if c.face_up and c.orientation is not None]
    if len(up) not in (3, 5):
        return False
    centres = np.array([c.center for c in up])
    axis = np.linalg.svd(centres - centres.mean(axis=0))[2][0]
    order = np.argsort(centres @ axis)
    mid = up[order[len(up) // 2]]
    left, right = up[order[len(up) // 2 - 1]], up[order[len(up) // 2 + 1]]
    return (
        _angle_diff(mid.orientation, left.orientation) >= min_flip
        and _angle_diff(mid.orientation, right.orientation) >= min_flip
        and _angle_diff(left.orientation, right.orientation) < 180 - min_flip
    )


def card_events(
    series: SeatSeries,
    spec: SignalSpec,
    cat: Catalogue,
    card_frames: Sequence[tuple[float, Any]] | None = None,
    **_: Any,
) -> list[SignalEvent]:
    if not card_frames:
        return []
    t, held = _align(series, card_frames, spec.p("hand_reach"))
    if not len(t):
        return []
    if spec.detector == "cards_visible":
        on = np.array([sum(c.face_up for c in cards) == spec.p("count") for _, cards in held])
    elif spec.detector == "cards_middle_flip":
        on = np.array([middle_flipped(cards, spec.p("min_flip")) for _, cards in held])
    else:
        raise ValueError(f"{spec.detector} is not a card detector")
    events = []
    for r in runs(t, on, spec.min_dwell, spec.max_gap):
        i0, i1, dec = held[r.i0][0], held[r.i1][0], held[r.decided][0]
        cards = held[r.i1][1]
        share = float(np.mean(on[r.i0 : r.i1 + 1]))
        ev = _event(
            series,
            spec,
            Run(i0, i1, dec),
            0.5 + 0.45 * share,
            {
                "cards_seen": [
                    {
                        "corners": np.round(c.corners, 1).tolist(),
                        "face_up": c.face_up,
                        "orientation": c.orientation,
                        "label": c.label,
                    }
                    for c in cards
                ],
                "card_frames_on": int(on[r.i0 : r.i1 + 1].sum()),
                "card_frames": int(r.i1 - r.i0 + 1),
            },
        )
        events.append(dataclasses.replace(ev, start=round(float(t[r.i0]), 3), end=round(float(t[r.i1]), 3)))
    return events
