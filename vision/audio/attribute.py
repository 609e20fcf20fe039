"""Who made a sound: one microphone cannot tell, the mouth cue can.

`attribute(events, mouth)` gives each sound event to the seat whose mouth was moving while it
lasted (`SignalEvent(signal="mouth_moving", player=seat, start, end)` intervals from the body
signals). When no mouth, or several, moved enough, the event stays `unknown` and its evidence
says so, with the candidates and their overlaps.

A hum can be made with closed lips: when nobody's mouth moved during a hum the event stays
`unknown` rather than being guessed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

from referee.observations import UNKNOWN_PLAYER, SignalEvent

MOUTH_SIGNAL = "mouth_moving"


def _overlap(a0: float, a1: float, b0: float, b1: float) -> float:
    return max(0.0, min(a1, b1) - max(a0, b0))


def overlaps(event: SignalEvent, mouth: Iterable[SignalEvent]) -> dict[str, float]:
    """Seconds of mouth movement per seat during the event."""
    out: dict[str, float] = {}
    for m in mouth:
        if m.signal != MOUTH_SIGNAL or m.player == UNKNOWN_PLAYER:
            continue
        o = _overlap(event.start, event.end, m.start, m.end)
        if o > 0:
            out[m.player] = out.get(m.player, 0.0) + o
    return out


def attribute(
    events: Sequence[SignalEvent],
    mouth: Sequence[SignalEvent],
    min_overlap: float = 0.3,
    min_fraction: float = 0.25,
    dominance: float = 2.0,
) -> list[SignalEvent]:
    """Events with `player` set where exactly one seat's mouth moved during them.

    A seat is a candidate when its mouth moved for at least `min_overlap` seconds and at least
    `min_fraction` of the event. With several candidates, one whose overlap is `dominance`
    times everyone else's wins; otherwise the event stays unknown.
    """
    out = []
    for ev in events:
        ov = overlaps(ev, mouth)
        dur = max(ev.end - ev.start, 1e-6)
        cands = {p: o for p, o in ov.items() if o >= min_overlap and o / dur >= min_fraction}
        ranked = sorted(cands.items(), key=lambda kv: -kv[1])
        info: dict[str, Any] = {
            "candidates": {p: round(o, 3) for p, o in ranked},
            "mouth_overlap_s": {p: round(o, 3) for p, o in sorted(ov.items())},
        }
        if len(ranked) == 1 or (len(ranked) > 1 and ranked[0][1] >= dominance * ranked[1][1]):
            player = ranked[0][0]
            info["attribution"] = "mouth moving" if len(ranked) == 1 else "mouth moving most"
        else:
            player = UNKNOWN_PLAYER
            info["attribution"] = "nobody's mouth moving" if not ranked else "several mouths moving"
        out.append(dataclasses.replace(ev, player=player, evidence={**dict(ev.evidence), "who": info}))
    return out
