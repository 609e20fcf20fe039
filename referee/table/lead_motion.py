"""How a lead card arrived in the trick zone: slid (Striscio), tossed (Volo) or placed.

In Beccaccino (Marafone) the leader may announce with a gesture: a knock on the table (Busso),
a card tossed so that it lands from the air (Volo), a card slid along the cloth into the trick
(Striscio). The knock comes from the table microphone; this module reads the other two from the
card camera. It is pure: recent `CardsSeen` frames (and, where the card camera also sees hands,
`HandsSeen`) in, one `LeadMotion` out. No clock, no I/O, no model.

Steps
-----
1. `trace_card`: the landed card is followed backwards through the recent frames. A reading
   with the same track id continues the path; otherwise (no track ids: the live card stage
   reads every frame afresh; or a broken track) the nearest reading of the same face (or of an
   unread card) that a card could have reached in the time between the two frames (`max_speed`
   card-lengths a second, plus `reach`) does, unless it is another card: one lying in that
   place in the later frame, or one whose track ends elsewhere on the table. A frame without
   one is a gap; a gap longer than `max_gap` ends the path. Track ids (`vision.cards.track`,
   ByteTrack) help but are not relied on: ByteTrack matches boxes by overlap, and a card slid or
   tossed at 5 frames a second moves more than its own size between frames, so its track
   breaks exactly where the motion is.
2. `classify_path`: every measure is in **card-lengths** (the landed card's long edge in the
   picture) and **seconds** (the frames' timestamps), so the same motion reads the same at any
   resolution, any frame rate, and wherever (and however turned) the table lies in the picture.
   The card's apparent size is compared with its size at rest: a card in the air is closer to
   a camera above the table and looks bigger, both its edges longer (motion blur stretches the
   outline only along the way it moves: growth is the lesser of the two edges').

   * slide: the card travelled `slide_path` card-lengths or more at table level (its apparent
     size within `flat_size` of its size at rest), along a roughly straight path (net /
     travelled distance at least `straightness`), seen in consecutive frames (no gap over
     `gap_frames` frame periods: one dropped frame is fine), not spun round (`slide_spin`),
     fingertips on it where hands are seen.
   * toss: the card was seen airborne (apparent size up by `air_size`, or turned by `spin`
     degrees from the way it came to lie while travelling) with no hand on it when it landed;
     or, where hands are seen, it appeared at its place (or one `jump` away) with no hand on it.
   * placed: anything else: a short path, a hand on it as it landed.

   Each class gets a score in 0..1 from soft ramps between a "not at all" and a "clearly"
   value of each measure; the result is the best class with `confidence` = its score less
   half the other's, or `placed` with 1 - the best score when neither reaches 0.5.

Limits: a toss from out of view (the card first seen on the cloth, no hand landmarks in the card
camera's picture) cannot be told from a placement and reads as placed; a card lowered into place
while visible from high up, with no hands seen, may look airborne and read as a doubtful toss
(the table asks); a low toss (about a card-length up, no spin) with no hands seen may read as a
slide; at 5 frames a second a quick slide may be seen only once, near its end (a doubtful slide,
or a plain lead).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from referee.observations import CardReading, CardsSeen, HandsSeen

KINDS = ("slide", "toss", "placed")
CALL_OF = {"slide": "striscio", "toss": "volo"}  # the Beccaccino announcement of each motion


@dataclasses.dataclass(frozen=True)
class MotionThresholds:
    """The cue's settings, in card-lengths, seconds, degrees and ratios (see the module doc).
    Each `(lo, hi)` pair is a ramp: at `lo` the evidence is nil, at `hi` it is full."""

    lookback: float = 1.5  # s before the card first lay in the zone
    max_gap: float = 0.6  # s without the card that end its path
    max_speed: float = 30.0  # card-lengths per second a card can travel (a toss ~ 2.5 m/s)
    reach: float = 0.6  # card-lengths added to max_speed * dt when following it
    rest: float = 0.25  # card-lengths from its final place that count as at rest
    slide_path: tuple[float, float] = (0.5, 1.2)
    flat_size: tuple[float, float] = (0.06, 0.13)  # |apparent size / size at rest - 1|
    straightness: tuple[float, float] = (0.6, 0.85)
    gap_frames: tuple[float, float] = (2.5, 4.5)  # longest gap, in frame periods
    air_size: tuple[float, float] = (0.06, 0.15)  # apparent size / size at rest - 1
    spin: tuple[float, float] = (25.0, 70.0)  # degrees turned on the way
    slide_spin: tuple[float, float] = (30.0, 75.0)  # a slide turning this much is in doubt
    jump: tuple[float, float] = (1.0, 2.0)  # card-lengths of a single step from first sight
    touch: float = 0.35  # card-lengths between a fingertip and the card that count as touching
    settle: float = 0.3  # s after landing in which a hand on the card means it was set down


@dataclasses.dataclass(frozen=True)
class PathPoint:
    t: float
    center: tuple[float, float]
    size: float  # square root of the card's area in the picture, pixels
    length: float  # the card's long edge, pixels
    orientation: float  # degrees, modulo 180 in [-90, 90)
    corners: tuple[tuple[float, float], ...]
    width: float = 0.0  # the card's short edge, pixels

    @classmethod
    def of(cls, t: float, corners: Sequence[Sequence[float]]) -> PathPoint:
        q = np.asarray(corners, np.float64).reshape(4, 2)
        x, y = q[:, 0], q[:, 1]
        area = 0.5 * abs(float(np.sum(x * np.roll(y, -1) - y * np.roll(x, -1))))
        edges = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
        long_pair = max((edges[0] + edges[2]) / 2, (edges[1] + edges[3]) / 2)
        short_pair = min((edges[0] + edges[2]) / 2, (edges[1] + edges[3]) / 2)
        # the direction of the long axis (modulo 180): mean of the two long edges' directions
        if (edges[1] + edges[3]) >= (edges[0] + edges[2]):
            v = (q[2] - q[1]) + (q[3] - q[0])
        else:
            v = (q[1] - q[0]) + (q[2] - q[3])
        ang = _fold(math.degrees(math.atan2(float(v[1]), float(v[0]))))
        c = q.mean(axis=0)
        return cls(
            float(t),
            (float(c[0]), float(c[1])),
            math.sqrt(area),
            float(long_pair),
            ang,
            tuple((float(a), float(b)) for a, b in q),
            float(short_pair),
        )

    def scale(self, rest: PathPoint) -> tuple[float, float]:
        """Its long and short edges against those of the card at rest."""
        return self.length / max(rest.length, 1e-6), self.width / max(rest.width, 1e-6)


def _grown(ratios: tuple[float, float]) -> float:
    """How much bigger a card looks: both edges grow when it is nearer the camera, while motion
    blur stretches its outline along the way it moves only; so the lesser growth."""
    return min(ratios) - 1.0


def _changed(ratios: tuple[float, float]) -> float:
    """How much its apparent size changed, blur aside: the edge that changed least."""
    return min(abs(ratios[0] - 1.0), abs(ratios[1] - 1.0))


@dataclasses.dataclass(frozen=True)
class LeadMotion:
    """How one card arrived in a zone. `kind` is slide, toss or placed; `call` the announcement
    it stands for (striscio, volo, or None); `features` the measures it rests on (card-lengths,
    seconds, degrees) and `scores` each class's score."""

    t: float  # when the card first lay at rest
    camera: str
    zone: str
    card: str
    kind: str
    confidence: float
    scores: Mapping[str, float]
    features: Mapping[str, Any]
    reason: str

    @property
    def call(self) -> str | None:
        return CALL_OF.get(self.kind)

    def to_payload(self) -> dict[str, Any]:
        return {
            "type": "motion",
            "t": round(self.t, 3),
            "camera": self.camera,
            "zone": self.zone,
            "card": self.card,
            "kind": self.kind,
            "confidence": round(self.confidence, 3),
            "scores": {k: round(float(v), 3) for k, v in self.scores.items()},
            "features": dict(self.features),
            "reason": self.reason,
        }

    @classmethod
    def from_payload(cls, payload: Mapping[str, Any]) -> LeadMotion:
        return cls(
            t=float(payload["t"]),
            camera=str(payload["camera"]),
            zone=str(payload["zone"]),
            card=str(payload["card"]),
            kind=str(payload["kind"]),
            confidence=float(payload["confidence"]),
            scores=dict(payload.get("scores", {})),
            features=dict(payload.get("features", {})),
            reason=str(payload.get("reason", "")),
        )


# -- following the card back in time ------------------------------------------------------------


def _has_corners(r: CardReading) -> bool:
    return len(r.corners) == 4


def _center(r: CardReading) -> tuple[float, float]:
    c = np.mean(np.asarray(r.corners, np.float64), axis=0)
    return float(c[0]), float(c[1])


def trace_card(
    frames: Sequence[CardsSeen], zone: str, card: str, t_from: float, th: MotionThresholds = MotionThresholds()
) -> list[PathPoint]:
    """The path of `card`, lying now in `zone` (in the last frame), back to `t_from` at most:
    oldest first. Empty when the last frame has no reading of it with corners."""
    if not frames:
        return []
    last = frames[-1]
    start = next((r for r in last.cards if r.zone == zone and r.card == card and _has_corners(r)), None)
    if start is None:
        return []
    cur_r, cur = start, PathPoint.of(last.t, start.corners)
    unit = max(cur.length, 1e-6)
    path = [cur]
    later = last  # the frame of the last step: a card that is still there then is another card
    # tracks that end on the table as other cards (a tracker breaks a fast card's track: an id
    # of its own is no proof, another card's id is)
    others = {r.track_id for r in last.cards if r is not start and r.track_id >= 0}
    for seen in reversed(frames[:-1]):
        if seen.t < t_from:
            break
        dt = cur.t - seen.t
        if dt <= 0:
            continue
        if dt > th.max_gap:
            break
        best: tuple[float, CardReading] | None = None
        for r in seen.cards:
            if not _has_corners(r) or (r.card is not None and r.card != card):
                continue
            if cur_r.track_id >= 0 and r.track_id == cur_r.track_id:
                best = (-1.0, r)
                break
            if r.track_id >= 0 and r.track_id in others:
                continue  # a card that still lies elsewhere at the end
            c = _center(r)
            d = math.dist(c, cur.center) / unit
            if d > th.max_speed * dt + th.reach or (best is not None and d >= best[0]):
                continue
            if any(
                o is not cur_r and _has_corners(o) and math.dist(_center(o), c) / unit <= th.rest for o in later.cards
            ):
                continue  # a card lying there still in the later frame: not the one that moved
            best = (d, r)
        if best is None:
            continue  # a gap: missed in this frame
        cur_r, cur, later = best[1], PathPoint.of(seen.t, best[1].corners), seen
        path.append(cur)
    return path[::-1]


# -- hands ---------------------------------------------------------------------------------------


def _point_to_quad(p: tuple[float, float], quad: Sequence[Sequence[float]]) -> float:
    """Distance from a point to a convex quadrilateral (0 inside), pixels."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    x, y = p
    inside = True
    sign = 0.0
    best = math.inf
    for i in range(4):
        a, b = q[i], q[(i + 1) % 4]
        ab = b - a
        cross = ab[0] * (y - a[1]) - ab[1] * (x - a[0])
        if cross != 0:
            if sign == 0:
                sign = math.copysign(1, cross)
            elif math.copysign(1, cross) != sign:
                inside = False
        L2 = float(ab @ ab) or 1e-12
        u = min(1.0, max(0.0, ((x - a[0]) * ab[0] + (y - a[1]) * ab[1]) / L2))
        best = min(best, math.dist((x, y), (a[0] + u * ab[0], a[1] + u * ab[1])))
    return 0.0 if inside else best


def _touching(
    point: PathPoint, hands: Sequence[HandsSeen], window: tuple[float, float], reach_px: float
) -> bool | None:
    """Whether a fingertip seen in `window` (seconds) lies on or within `reach_px` of the card;
    None when no hands were looked for in that window."""
    seen = [h for h in hands if window[0] <= h.t <= window[1]]
    if not seen:
        return None
    for h in seen:
        for hand in h.hands:
            for p in hand.points:
                if _point_to_quad((float(p[0]), float(p[1])), point.corners) <= reach_px:
                    return True
    return False


# -- the measures and the classes ------------------------------------------------------------------


def _fold(deg: float) -> float:
    return (deg + 90.0) % 180.0 - 90.0


def _ramp(x: float, lohi: tuple[float, float]) -> float:
    lo, hi = lohi
    if hi == lo:
        return 1.0 if x >= hi else 0.0
    return min(1.0, max(0.0, (x - lo) / (hi - lo)))


def measure(
    path: Sequence[PathPoint],
    hands: Sequence[HandsSeen] = (),
    period: float | None = None,
    th: MotionThresholds = MotionThresholds(),
) -> dict[str, Any]:
    """The measures of a path (oldest first, ending at rest) that the classes are judged on."""
    final = path[-1]
    unit = max(final.length, 1e-6)
    r = len(path) - 1  # the first point of the rest that lasts until the end
    while (
        r > 0
        and math.dist(path[r - 1].center, final.center) / unit <= th.rest
        and _changed(path[r - 1].scale(final)) <= th.flat_size[0]
    ):
        r -= 1  # a card right above its place is not at rest yet: it looks bigger
    moving, landing = list(path[:r]), path[r]
    rest = path[r:]
    rest_len = float(np.median([p.length for p in rest]))
    at_rest = dataclasses.replace(final, length=rest_len, width=float(np.median([p.width for p in rest])))
    unit = max(rest_len, 1e-6)
    pts = moving + [landing]
    # to where it lies now (the last quarter card-length it crept after landing included)
    steps = [math.dist(a.center, b.center) / unit for a, b in zip(pts + [final], pts[1:] + [final])]
    travelled = float(sum(steps))
    net = math.dist(pts[0].center, final.center) / unit
    ratios = [p.scale(at_rest) for p in moving]
    # how far it was turned from the way it came to lie (not the sum of the steps: the
    # corners' jitter would add up over many frames)
    turned = max((abs(_fold(p.orientation - landing.orientation)) for p in moving), default=0.0)
    gaps = [b.t - a.t for a, b in zip(pts, pts[1:])]
    if period is None or period <= 0:
        dts = [b.t - a.t for a, b in zip(path, path[1:]) if b.t > a.t]
        period = float(np.median(dts)) if dts else 0.0
    reach_px = th.touch * unit
    hand_period = _period([h.t for h in hands]) or period or 0.1
    touched_on_way = [_touching(p, hands, (p.t - hand_period / 2, p.t + hand_period / 2), reach_px) for p in moving]
    known = [x for x in touched_on_way if x is not None]
    at_landing = _touching(landing, hands, (landing.t - hand_period / 2, landing.t + th.settle), reach_px)
    return {
        "card_length_px": round(unit, 1),
        "observations": len(moving),  # seen on its way before it lay at rest
        "travelled": round(travelled, 3),  # card-lengths, along the path
        "net": round(net, 3),  # card-lengths, first sight to rest
        "straightness": round(net / travelled, 3) if travelled > 1e-9 else 1.0,
        # how much its apparent size changed on the way (a slide stays flat), and how much bigger
        # it looked (in the air): of three sightings or more the second most, so that one noisy
        # outline neither lifts a slid card off the table nor makes a flight
        "size_change": round(_robust_max([_changed(x) for x in ratios]), 3),
        "size_growth": round(max(0.0, _robust_max([_grown(x) for x in ratios])), 3),
        "turned_deg": round(turned, 1),
        "duration_s": round(landing.t - pts[0].t, 3),
        "longest_gap_s": round(max(gaps, default=0.0), 3),
        "frame_period_s": round(period or 0.0, 4),
        "landed_at": round(landing.t, 3),
        "hand_on_the_way": None if not known else any(known),
        "hand_at_landing": at_landing,
    }


def scores_of(f: Mapping[str, Any], th: MotionThresholds = MotionThresholds()) -> dict[str, float]:
    """Each class's score (0..1) from the measures."""
    n = int(f["observations"])
    period = float(f["frame_period_s"]) or 0.0
    gap_periods = float(f["longest_gap_s"]) / period if period > 0 else 0.0
    hand_way = f["hand_on_the_way"]
    # seen once on its way (a quick slide at 5 fps): less sure, unless fingers were on it
    seen_moving = 1.0 if n >= 2 else ((0.9 if hand_way else 0.75) if n == 1 else 0.0)
    slide = (
        _ramp(float(f["travelled"]), th.slide_path)
        * (1.0 - _ramp(float(f["size_change"]), th.flat_size))
        * _ramp(float(f["straightness"]), th.straightness)
        * seen_moving
        * (1.0 - 0.5 * _ramp(gap_periods, th.gap_frames))
        * (1.0 - 0.5 * _ramp(float(f["turned_deg"]), th.slide_spin))
        * (1.0 if hand_way else 0.6 if hand_way is False else 0.95)
    )
    airborne = max(
        _ramp(float(f["size_growth"]), th.air_size),
        _ramp(float(f["turned_deg"]), th.spin) * _ramp(float(f["travelled"]), (0.5, 1.0)),
    )
    sudden = 1.0 if n == 0 else (_ramp(float(f["net"]), th.jump) if n == 1 else 0.0)
    landing = f["hand_at_landing"]
    seen_air, seen_sudden = {False: (1.0, 0.7), None: (0.75, 0.0), True: (0.25, 0.0)}[landing]
    toss = max(airborne * seen_air, sudden * seen_sudden)
    return {"slide": round(slide, 4), "toss": round(toss, 4)}


def classify_path(
    path: Sequence[PathPoint],
    *,
    camera: str,
    zone: str,
    card: str,
    hands: Sequence[HandsSeen] = (),
    period: float | None = None,
    th: MotionThresholds = MotionThresholds(),
) -> LeadMotion:
    """Judge a path (oldest first; its last point is where the card lies now)."""
    if not path:
        raise ValueError("a path needs at least the point where the card lies")
    f = measure(path, hands, period, th)
    s = scores_of(f, th)
    best = max(("slide", "toss"), key=lambda k: s[k])
    other = s["toss" if best == "slide" else "slide"]
    if s[best] >= 0.5:
        kind, conf = best, max(0.0, s[best] - 0.5 * other)
    else:
        kind, conf = "placed", 1.0 - s[best]
        if not f["observations"] and f["hand_at_landing"] is None:
            conf *= 0.6  # first seen lying there, no hands seen: a toss from out of view looks the same
    return LeadMotion(
        t=float(f["landed_at"]),
        camera=camera,
        zone=zone,
        card=card,
        kind=kind,
        confidence=round(conf, 3),
        scores={**s, "placed": round(1.0 - max(s.values()), 4)},
        features=f,
        reason=_reason(kind, f),
    )


def _reason(kind: str, f: Mapping[str, Any]) -> str:
    hands = {True: "a hand on it", False: "no hand on it", None: "hands not seen"}
    seen = (
        f"seen {f['observations']} time(s) on its way over {f['travelled']:.1f} card-lengths "
        f"(straightness {f['straightness']:.2f}, size {100 * f['size_growth']:+.0f}%, turned "
        f"{f['turned_deg']:.0f} deg, longest gap {f['longest_gap_s']:.2f} s)"
        if f["observations"]
        else "first seen where it lies"
    )
    text = {"slide": "slid along the table", "toss": "tossed: it landed from the air", "placed": "placed"}[kind]
    return f"{text}: {seen}; on landing {hands[f['hand_at_landing']]}"


def _robust_max(values: Sequence[float]) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return float(ordered[-2] if len(ordered) >= 3 else ordered[-1])


def _period(ts: Iterable[float]) -> float | None:
    ts = sorted(set(ts))
    d = [b - a for a, b in zip(ts, ts[1:]) if b > a]
    return float(np.median(d)) if d else None


def lead_motion(
    frames: Sequence[CardsSeen],
    zone: str,
    card: str,
    since: float,
    hands: Sequence[HandsSeen] = (),
    th: MotionThresholds = MotionThresholds(),
) -> LeadMotion | None:
    """How `card`, lying in `zone` in the last of `frames` (one camera, oldest first) since
    `since`, got there; None when its corners were not seen (nothing to judge)."""
    if not frames:
        return None
    camera = frames[-1].camera
    frames = [f for f in frames if f.camera == camera]
    path = trace_card(frames, zone, card, since - th.lookback, th)
    if not path:
        return None
    cam_hands = [h for h in hands if h.camera == camera and path[0].t - 1.0 <= h.t <= frames[-1].t + 1.0]
    period = _period(f.t for f in frames if f.t >= since - th.lookback)
    return classify_path(path, camera=camera, zone=zone, card=card, hands=cam_hands, period=period, th=th)
