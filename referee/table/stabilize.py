"""From per-frame card readings to zone contents that stayed the same long enough.

A hand passing over a zone, a blurred frame or a card half laid must not become a reveal. Per
zone, the stabiliser keeps the content it reads in each frame (the sorted face-up cards, an
unread one as `?`, and the number of face-down cards); a content becomes *stable* once it has
been read in consecutive processed frames, and each new stable content is reported once
(`ZoneContent`, with the mean confidence of each card over the run, `since` the first frame of
the run, `t` the frame that decided).

Two confirmations, whichever comes first:

* **sure**: every card of the zone read sure (face up and named at `sure_confidence` or more,
  or face down) and lying still (no corner moved more than `still` card-lengths from one frame
  of the run to the next), the content only adds cards to the zone's stable one (none of its
  face-up cards gone: a hand covering one is never sure), in `sure_frames` frames spanning
  `sure_dwell` s: at 5 card frames a second, two frames, 0.2 s; at 10, two frames, 0.1 s;
* **dwell**: any content, `min_frames` frames spanning `min_dwell` s (an unread card, a low
  confidence, a moving card, readings without corners, a card gone).

A frame where the zone's camera is lost resets that camera's zones: nothing is stable until it
has been seen again.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter, defaultdict
from collections.abc import Sequence

from referee.observations import UNKNOWN_CARD, CardReading, CardsSeen, ZoneContent
from referee.table.zones import TableZones

# A zone's content as the stabiliser compares it: the sorted face-up cards, how many lie face down.
ZoneKey = tuple[tuple[str, ...], int]


@dataclasses.dataclass
class _Candidate:
    key: ZoneKey
    since: float
    frames: int
    conf_sums: list[float]
    sure: bool  # every frame of the run so far read sure and still
    last: tuple[CardReading, ...]  # the previous frame's readings in the zone


def _edge(corners: Sequence[tuple[float, float]]) -> float:
    """A card's long edge in pixels (its size in the picture)."""
    n = len(corners)
    return max(math.dist(corners[i], corners[(i + 1) % n]) for i in range(n))


def _moved(a: CardReading, b: CardReading) -> float:
    """How far card b's corners lie from card a's, in a's card-lengths (corner order kept)."""
    return max(math.dist(p, q) for p, q in zip(a.corners, b.corners)) / max(_edge(a.corners), 1e-6)


def _still(before: Sequence[CardReading], now: Sequence[CardReading], still: float) -> bool:
    """Every card of `now` lies within `still` card-lengths of a card of the same face in
    `before` (each matched once): nothing in the zone moved between the two frames."""
    free = list(before)
    for r in now:
        same = [b for b in free if b.card == r.card and b.face_up == r.face_up and len(b.corners) == len(r.corners)]
        if not same:
            return False
        best = min(same, key=lambda b: _moved(b, r))
        if _moved(best, r) > still:
            return False
        free.remove(best)
    return True


def _sure(readings: Sequence[CardReading], sure_confidence: float) -> bool:
    return all(
        len(r.corners) >= 3
        and (not r.face_up or (r.card not in (None, UNKNOWN_CARD) and r.confidence >= sure_confidence))
        for r in readings
    )


def _adds_only(key: ZoneKey, stable: ZoneKey | None) -> bool:
    """The content keeps every face-up card of the stable one (it only adds or turns up cards)."""
    if stable is None:
        return True
    return not (Counter(stable[0]) - Counter(key[0]))


class ZoneStabilizer:
    def __init__(
        self,
        zones: TableZones,
        min_frames: int = 3,
        min_dwell: float = 0.4,
        *,
        sure_frames: int = 2,
        sure_dwell: float = 0.1,
        sure_confidence: float = 0.9,
        still: float = 0.08,
    ) -> None:
        self.zones = zones
        self.min_frames = min_frames
        self.min_dwell = min_dwell
        self.sure_frames = sure_frames
        self.sure_dwell = sure_dwell
        self.sure_confidence = sure_confidence
        self.still = still
        self._candidate: dict[str, _Candidate] = {}
        self._stable: dict[str, ZoneKey] = {}

    def stable(self, zone: str) -> ZoneKey | None:
        return self._stable.get(zone)

    def set_stable(self, zone: str, cards: tuple[str, ...], face_down: int = 0) -> None:
        """Take a content as stable without seeing it (a stored reading fed again)."""
        self._stable[zone] = (tuple(cards), face_down)
        self._candidate.pop(zone, None)

    def reset_camera(self, camera: str) -> None:
        for z in self.zones.of_camera(camera):
            self._candidate.pop(z.name, None)
            self._stable.pop(z.name, None)

    def _confirmed(self, cand: _Candidate, t: float) -> bool:
        span = t - cand.since
        if cand.frames >= self.min_frames and span >= self.min_dwell - 1e-9:
            return True
        return cand.sure and cand.frames >= self.sure_frames and span >= self.sure_dwell - 1e-9

    def feed(self, seen: CardsSeen) -> list[ZoneContent]:
        per_zone: dict[str, list[CardReading]] = defaultdict(list)
        for r in seen.cards:
            if r.zone is not None:
                per_zone[r.zone].append(r)
        out: list[ZoneContent] = []
        for zone in self.zones.of_camera(seen.camera):
            readings = tuple(per_zone.get(zone.name, ()))
            up = sorted(((r.card or UNKNOWN_CARD), float(r.confidence)) for r in readings if r.face_up)
            down = sum(1 for r in readings if not r.face_up)
            key: ZoneKey = (tuple(c for c, _ in up), down)
            confs = [c for _, c in up]
            stable = self._stable.get(zone.name)
            sure = bool(readings) and _sure(readings, self.sure_confidence) and _adds_only(key, stable)
            cand = self._candidate.get(zone.name)
            if cand is None or cand.key != key:
                cand = _Candidate(key, seen.t, 0, [0.0] * len(confs), sure, readings)
                self._candidate[zone.name] = cand
            else:
                cand.sure = cand.sure and sure and _still(cand.last, readings, self.still)
                cand.last = readings
            cand.frames += 1
            cand.conf_sums = [a + b for a, b in zip(cand.conf_sums, confs)]
            if stable != key and self._confirmed(cand, seen.t):
                self._stable[zone.name] = key
                out.append(
                    ZoneContent(
                        t=seen.t,
                        since=cand.since,
                        camera=seen.camera,
                        zone=zone.name,
                        cards=key[0],
                        confidences=tuple(round(s / cand.frames, 3) for s in cand.conf_sums),
                        face_down=down,
                        frames=cand.frames,
                    )
                )
        return out
