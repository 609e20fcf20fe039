"""From per-frame card readings to zone contents that stayed the same long enough.

A hand passing over a zone, a blurred frame or a card half laid must not become a reveal. Per
zone, the stabiliser keeps the content it reads in each frame (the sorted face-up cards, an
unread one as `?`, and the number of face-down cards); a content becomes *stable* once it has
been read in `min_frames` consecutive processed frames spanning at least `min_dwell` seconds;
each new stable content is reported once (`ZoneContent`, with the mean confidence of each card
over the dwell). A frame where the zone's camera is lost resets that camera's zones: nothing is
stable until it has been seen again.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict

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


class ZoneStabilizer:
    def __init__(self, zones: TableZones, min_frames: int = 3, min_dwell: float = 0.4) -> None:
        self.zones = zones
        self.min_frames = min_frames
        self.min_dwell = min_dwell
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

    def feed(self, seen: CardsSeen) -> list[ZoneContent]:
        per_zone: dict[str, list[CardReading]] = defaultdict(list)
        for r in seen.cards:
            if r.zone is not None:
                per_zone[r.zone].append(r)
        out: list[ZoneContent] = []
        for zone in self.zones.of_camera(seen.camera):
            readings = per_zone.get(zone.name, [])
            up = sorted(((r.card or UNKNOWN_CARD), float(r.confidence)) for r in readings if r.face_up)
            down = sum(1 for r in readings if not r.face_up)
            key: ZoneKey = (tuple(c for c, _ in up), down)
            confs = [c for _, c in up]
            cand = self._candidate.get(zone.name)
            if cand is None or cand.key != key:
                cand = _Candidate(key, seen.t, 0, [0.0] * len(confs))
                self._candidate[zone.name] = cand
            cand.frames += 1
            cand.conf_sums = [a + b for a, b in zip(cand.conf_sums, confs)]
            if (
                cand.frames >= self.min_frames
                and seen.t - cand.since >= self.min_dwell - 1e-9
                and self._stable.get(zone.name) != key
            ):
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
