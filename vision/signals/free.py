"""Free Signal: a team's own gesture, learnt from 3-5 demonstrations and found by DTW.

Each frame of a player becomes a small feature vector in the player's own units (each hand's
place against the nose in eye spans, which digits are out and where they point, from
`vision.signals.hand_shape`; the eyes' openness, the lip gap), resampled to `RATE` per second.
Subsequence dynamic time warping finds a demonstration anywhere in the live stream; the
rejection threshold is `margin` times the worst leave-one-out cost among the demonstrations,
and demonstrations that disagree are refused saying what each shows (`describe`).
docs/signals.md, "Free Signal" and "Free Signals", gives the details and the real-media table.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from referee.core import RefereeError
from referee.observations import SignalEvent
from referee.signal_cards import FREE_SIGNAL
from vision.landmarks.types import SIDES
from vision.signals.features import SeatSeries
from vision.signals.hand_shape import (
    ONE_UP,
    PALM,
    SHAPE_NAMES,
    THUMB_TUCKED,
    digits_out,
    group_name,
    out_direction,
    place_name,
    shape_name,
    thumb_direction,
    thumb_far,
)

RATE = 10.0
HAND_DOWN = (0.0, 6.0)
FORMAT = "free-signal/2"  # /1: three points a hand and the face (before the hand's shape was read)
# The columns of `frame_features`, per hand (left, then right): the palm's centre relative to the
# nose (2), how far out each digit is, most out first (5), and thumb to pinky (5), the direction
# the digits that are out point (2); then the eyes (2) and the mouth (1). A column that could not
# be seen at all (the hand's place with no face in view) is NaN and is left out of every cost.
HAND_FEATURES = 2 + 5 + 5 + 2
FEATURES = 2 * HAND_FEATURES + 3
# Weights: a unit of the DTW cost is about an eye span of hand movement, one digit put out or
# curled, or a quarter turn of the digits' direction.
W_POSITION = 1.0  # the palm's centre, eye spans (MediaPipe's wrist moves when it turns the hand)
W_OUT_SORTED = 1.0  # how many digits are out, whichever MediaPipe calls them
W_OUT_DIGIT = 0.25  # which digit: MediaPipe mistakes a thumb held at the camera for the index
W_DIRECTION = 0.8  # where the digits that are out point


STAY = 0.02  # squared cost units: the toll of a template frame on a stream frame already used, so that
# a sign held on both sides is laid along the stream, not all onto one of its frames
MIN_SEEN = 0.15  # s: a hand seen for less than this (one frame at 10 a second) is a false detection
MERGE_GAP = 0.6  # s: two matches this close are one gesture (a sign held, seen as several)
MIN_SPAN = 0.5  # a match must cover at least this share of the shortest demonstration's length
DISAGREE_RATIO = 2.0  # a demonstration this many times further from the others than they are apart...
DISAGREE_FLOOR = 1.0  # ...and at least this far (the units of `frame_features`) is another gesture


class FreeSignalError(RefereeError):
    """A Free Signal that cannot be learnt or loaded."""


class DemonstrationsDisagree(FreeSignalError):
    """Demonstrations that are not all the same gesture."""


def _fill_gaps(t: np.ndarray, x: np.ndarray, max_gap: float) -> np.ndarray:
    """Interpolate NaN rows of x lying in gaps no longer than max_gap seconds (a hand missed for
    a frame or two by the detector is not a hand gone)."""
    x = x.copy()
    ok = np.isfinite(x).all(axis=1)
    idx = np.nonzero(ok)[0]
    for a, b in zip(idx, idx[1:]):
        if b - a > 1 and t[b] - t[a] <= max_gap:
            w = ((t[a + 1 : b] - t[a]) / (t[b] - t[a]))[:, None]
            x[a + 1 : b] = x[a] + w * (x[b] - x[a])
    return x


def _hold_ends(t: np.ndarray, x: np.ndarray, max_gap: float) -> np.ndarray:
    """NaN rows at the start or the end of x, over no more than max_gap seconds, take the
    nearest finite row (a hand lost for a frame or two as a recording begins or ends)."""
    x = x.copy()
    idx = np.nonzero(np.isfinite(x).all(axis=1))[0]
    if len(idx) == 0:
        return x
    a, b = idx[0], idx[-1]
    if 0 < a and t[a] - t[0] <= max_gap:
        x[:a] = x[a]
    if b < len(x) - 1 and t[-1] - t[b] <= max_gap:
        x[b + 1 :] = x[b]
    return x


def _nearest_fill(x: np.ndarray) -> np.ndarray:
    """NaN rows take the nearest finite row (a face hidden by the hand is where it was)."""
    ok = np.isfinite(x).all(axis=1)
    if ok.all() or not ok.any():
        return x
    idx = np.nonzero(ok)[0]
    pos = np.searchsorted(idx, np.arange(len(x)))
    lo, hi = idx[np.clip(pos - 1, 0, len(idx) - 1)], idx[np.clip(pos, 0, len(idx) - 1)]
    rows = np.arange(len(x))
    pick = np.where(np.abs(rows - lo) <= np.abs(hi - rows), lo, hi)
    return x[pick]


def _reference(series: SeatSeries, max_gap: float) -> tuple[np.ndarray, np.ndarray, bool]:
    """Per frame, the nose (px) and the eye span the hands are measured from, and whether a face
    was seen at all. A face missing (hidden by the hand) is taken where it was last or next seen;
    with no face at all, positions are NaN (left out) and only the hands' shapes count."""
    ref = np.concatenate([series.targets["nose"], series.iod[:, None]], axis=1)
    ref = _fill_gaps(series.t, ref, max_gap)
    seen = bool(np.isfinite(ref).all(axis=1).any())
    ref = _nearest_fill(ref)
    return ref[:, :2], ref[:, 2], seen


def _drop_flashes(t: np.ndarray, pts: np.ndarray, min_seen: float) -> np.ndarray:
    """A hand seen for under `min_seen` seconds between frames without it is a false detection
    (or the other hand, named on the wrong side for a frame): dropped."""
    seen = np.isfinite(pts).all(axis=1)
    out = pts.copy()
    i = 0
    while i < len(seen):
        if not seen[i]:
            i += 1
            continue
        j = i
        while j + 1 < len(seen) and seen[j + 1]:
            j += 1
        if t[j] - t[i] < min_seen and (i > 0 or j < len(seen) - 1):
            out[i : j + 1] = np.nan
        i = j + 1
    return out


def hand_features(series: SeatSeries, side: str, max_gap: float = 0.5) -> np.ndarray:
    """(T, HAND_FEATURES) for one hand, weighted (see the W_ constants). A hand out of view sits
    at the fixed "hand down" place with no digit out."""
    pts = _drop_flashes(series.t, series.hand[side].reshape(series.n, -1), MIN_SEEN)
    pts = _hold_ends(series.t, _fill_gaps(series.t, pts, max_gap), max_gap).reshape(series.n, 21, 2)
    nose, iod, seen = _reference(series, max_gap)
    present = np.isfinite(pts).all(axis=(1, 2))
    out = digits_out(pts)  # (T, 5), NaN where no hand
    if seen:
        pos = (pts[:, list(PALM)].mean(axis=1) - nose) / iod[:, None]
        pos[~present] = HAND_DOWN
    else:
        pos = np.full((series.n, 2), np.nan)
    direction = out_direction(pts, out)
    ranked = -np.sort(-out, axis=1)
    shape = np.concatenate([W_OUT_SORTED * ranked, W_OUT_DIGIT * out, W_DIRECTION * direction], axis=1)
    shape[~present] = 0.0
    return np.concatenate([W_POSITION * pos, shape], axis=1)


def frame_features(series: SeatSeries, max_gap: float = 0.5) -> np.ndarray:
    """(T, FEATURES) features per frame: each hand's place and shape (`hand_features`), the eyes'
    openness against their own median and the lip gap; rows with no face yet are NaN."""
    cols = [hand_features(series, side, max_gap) for side in SIDES]
    base = {s: np.nanmedian(series.ear[s]) if np.isfinite(series.ear[s]).any() else 1.0 for s in SIDES}
    eyes = np.stack([series.ear[s] / base[s] for s in SIDES], axis=1)
    face = np.concatenate([eyes, series.mouth_open[:, None] * 4.0], axis=1)
    if np.isfinite(face).all(axis=1).any():
        face = _nearest_fill(_fill_gaps(series.t, face, max_gap))
    return np.concatenate(cols + [face], axis=1)


def resample(t: np.ndarray, x: np.ndarray, rate: float = RATE) -> tuple[np.ndarray, np.ndarray]:
    """x on a regular grid of `rate` a second; rows with a gap are dropped first (a column NaN
    all along, a part never seen, stays NaN)."""
    seen = np.isfinite(x).any(axis=0)
    ok = np.isfinite(x[:, seen]).all(axis=1) if seen.any() else np.zeros(len(x), bool)
    t, x = t[ok], x[ok]
    if len(t) < 2:
        return t, x
    grid = np.arange(t[0], t[-1] + 1e-9, 1.0 / rate)
    cols = [np.interp(grid, t, x[:, k]) if seen[k] else np.full(len(grid), np.nan) for k in range(x.shape[1])]
    return grid, np.stack(cols, axis=1)


def distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Euclidean distance over the last axis, leaving out columns unknown (NaN) in either."""
    d = np.asarray(a) - np.asarray(b)
    return np.sqrt(np.nansum(d * d, axis=-1))


def subsequence_dtw(template: np.ndarray, stream: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every end position j of the stream: the cost of the best warping of the whole
    template onto some stream[s..j] (the root of the mean squared Euclidean step cost over the
    template's length, so that lingering on the stream costs extra and a part of the gesture
    done differently weighs more than a little jitter all along), and that start s."""
    m, n = len(template), len(stream)
    cost = distance(template[:, None, :], stream[None, :, :]) ** 2
    acc = np.full((m, n), np.inf)
    start = np.zeros((m, n), dtype=np.int64)
    acc[0], start[0] = cost[0], np.arange(n)
    for i in range(1, m):
        # diagonal and vertical steps in one vector operation, then the horizontal recurrence
        diag = np.concatenate([[np.inf], acc[i - 1, :-1]])
        dstart = np.concatenate([[0], start[i - 1, :-1]])
        up = acc[i - 1] + STAY  # the template moving on while the stream stands still
        take_up = up < diag
        best = np.where(take_up, up, diag)
        bstart = np.where(take_up, start[i - 1], dstart)
        row, rstart = cost[i] + best, bstart.copy()
        for j in range(1, n):
            left = row[j - 1] + cost[i, j]
            if left < row[j]:
                row[j], rstart[j] = left, rstart[j - 1]
        acc[i], start[i] = row, rstart
    return np.sqrt(acc[-1] / m), start[-1]


def pair_cost(a: np.ndarray, b: np.ndarray) -> float:
    """How far apart two demonstrations are: the worse of finding each in the other."""
    return max(float(subsequence_dtw(a, b)[0].min()), float(subsequence_dtw(b, a)[0].min()))


def pair_costs(templates: Sequence[np.ndarray]) -> np.ndarray:
    """The cost between every two demonstrations (inf on the diagonal)."""
    n = len(templates)
    pair = np.full((n, n), np.inf)
    for i in range(n):
        for j in range(i + 1, n):
            pair[i, j] = pair[j, i] = pair_cost(templates[i], templates[j])
    return pair


def agreement(templates: Sequence[np.ndarray]) -> list[float]:
    """Each demonstration's cost to the nearest of the others."""
    pair = pair_costs(templates)
    return [float(pair[i].min()) for i in range(len(templates))]


def describe(series: SeatSeries, max_gap: float = 0.5) -> str:
    """A demonstration in plain words: the hand that shows it, its shape and where it is held
    ("a thumbs-up before the face (right hand)", "a fist raised above the head (right hand)")."""
    nose, iod, seen = _reference(series, max_gap)
    best, best_n = None, 0
    for side in SIDES:
        pts = _drop_flashes(series.t, series.hand[side].reshape(series.n, -1), MIN_SEEN).reshape(series.n, 21, 2)
        n = int(np.isfinite(pts).all(axis=(1, 2)).sum())
        if n > best_n:
            best, best_n = (side, pts), n
    if best is None:
        return "no hand in view"
    side, pts = best
    ok = np.isfinite(pts).all(axis=(1, 2))
    pts, nose, iod = pts[ok], nose[ok], iod[ok]
    out = digits_out(pts) >= 0.5
    tucked = thumb_far(pts) < THUMB_TUCKED
    names = [
        shape_name(o, td, pd, bool(tk)) for o, td, pd, tk in zip(out, thumb_direction(pts), out_direction(pts), tucked)
    ]
    shape = Counter(names).most_common(1)[0][0]  # a tie: the first seen
    where = place_name((pts[:, list(PALM)].mean(axis=1) - nose) / iod[:, None]) if seen else ""
    return f"{shape} {where} ({side} hand)" if where else f"{shape} ({side} hand)"


def _numbers(ks: Sequence[int]) -> str:
    ks = [k + 1 for k in ks]
    word = "demonstration" if len(ks) == 1 else "demonstrations"
    return f"{word} " + (str(ks[0]) if len(ks) == 1 else ", ".join(map(str, ks[:-1])) + f" and {ks[-1]}")


def _split_words(description: str) -> tuple[str | None, str]:
    """A description's shape name and the rest (where, which hand); None for no known shape."""
    for name in sorted(SHAPE_NAMES, key=len, reverse=True):
        if description.startswith(name):
            return name, description[len(name) :]
    return None, description


def _group_words(descriptions: Sequence[str], ks: Sequence[int], also: Sequence[int] = ()) -> str:
    """One description for several demonstrations (their shapes named together). With `also`
    (the demonstrations they are set against), a thumbs-up and a pointing finger on either
    side are both named "a thumb or finger up": MediaPipe confuses the two, so the words must
    not claim a difference it cannot see."""
    parts = [_split_words(descriptions[k]) for k in ks]
    if any(shape is None for shape, _ in parts):
        said = [descriptions[k] for k in ks]
        return max(said, key=said.count)
    shapes = [shape for shape, _ in parts if shape is not None]
    rest = {r for _, r in parts}
    others = {_split_words(descriptions[k])[0] for k in also}
    one_up = {*ONE_UP, "a thumb or finger up"}
    name = "a thumb or finger up" if also and set(shapes) | others <= one_up else group_name(shapes)
    return name + (rest.pop() if len(rest) == 1 else "")


def check_agreement(pair: np.ndarray, descriptions: Sequence[str] | None = None) -> None:
    """Refuse demonstrations that are not the same gesture, saying which and why: one whose
    nearest other is `DISAGREE_RATIO` times further than the others are from each other (and
    over `DISAGREE_FLOOR`), or a set in which no two are near. With `descriptions` (`describe`
    of each), the reason names what each shows."""
    n = len(pair)
    near = [float(pair[i].min()) for i in range(n)]
    costs = [round(c, 3) for c in near]
    words = list(descriptions) if descriptions is not None and len(descriptions) == n else None
    if min(near) > 2 * DISAGREE_FLOOR:
        shown = (": " + "; ".join(f"{k + 1} is {w}" for k, w in enumerate(words))) if words else ""
        raise DemonstrationsDisagree(
            "the demonstrations do not agree with each other (the nearest two are "
            f"{min(near):.2f} apart){shown}: give the same gesture each time",
            costs=costs,
            descriptions=words or [],
        )
    bad = []
    for i in range(n):
        rest = [k for k in range(n) if k != i]
        among = min(float(pair[a, b]) for a in rest for b in rest if a < b)
        if near[i] > DISAGREE_FLOOR and near[i] > DISAGREE_RATIO * among:
            bad.append((i, near[i], among))
    if bad:
        odd = [i for i, _, _ in bad]
        which = " and ".join(str(i + 1) for i in odd)
        i, c, among = bad[0]
        what = ""
        if words:
            good = [k for k in range(n) if k not in odd]
            theirs, mine = _group_words(words, good, odd), _group_words(words, odd, good)
            if mine != theirs:
                what = f"{_numbers(odd)} {'is' if len(odd) == 1 else 'are'} {mine}, {_numbers(good)} {theirs}; "
            else:
                what = f"all look like {theirs}, but {_numbers(odd)} moves differently; "
        raise DemonstrationsDisagree(
            f"demonstration {which} is not the same gesture as the others: {what}it is {c:.2f} from the "
            f"nearest one, while the others are {among:.2f} apart; show it again, or leave it out",
            demonstrations=[i + 1 for i in odd],
            costs=costs,
            descriptions=words or [],
        )


def _starts_another(merged: Sequence[Sequence], k: int, own: int) -> bool:
    return any(m[0] == k and m[0] != own for m in merged)


def trim_still(x: np.ndarray, tol: float = 0.15) -> np.ndarray:
    """Drop the leading and trailing frames of a demonstration where nothing moves yet."""
    moving = np.nonzero((distance(x, x[0]) > tol) | (distance(x, x[-1]) > tol))[0]
    if len(moving) < 3:
        return x
    a, b = max(0, moving[0] - 1), min(len(x), moving[-1] + 2)
    return x[a:b]


@dataclasses.dataclass(frozen=True)
class FreeSignal:
    """A team's learnt signal: `templates` (feature sequences at RATE) and `threshold`."""

    name: str
    templates: tuple[np.ndarray, ...]
    threshold: float
    margin: float = 1.5
    costs: tuple[float, ...] = ()  # each demonstration's warping cost to its nearest other one
    descriptions: tuple[str, ...] = ()  # each demonstration in words (`describe`)

    @classmethod
    def learn(
        cls, demonstrations: Sequence[SeatSeries], name: str = "team", margin: float = 1.5, floor: float = 0.3
    ) -> FreeSignal:
        if not 3 <= len(demonstrations) <= 5:
            raise FreeSignalError(f"a Free Signal needs 3 to 5 demonstrations, got {len(demonstrations)}")
        templates = []
        for k, demo in enumerate(demonstrations):
            seen = np.isfinite(demo.iod) | demo.has_hand("left") | demo.has_hand("right")
            if seen.sum() < 3:
                raise FreeSignalError(
                    f"demonstration {k + 1} shows neither a face nor a hand in {int(seen.sum())} of its "
                    f"{demo.n} frames: give it where the camera sees you"
                )
            _, x = resample(demo.t, frame_features(demo))
            x = trim_still(x) if len(x) >= 3 else x
            if len(x) < 3:
                raise FreeSignalError(f"demonstration {k + 1} has fewer than 3 usable frames (nobody seen?)")
            templates.append(x)
        words = tuple(describe(demo) for demo in demonstrations)
        pair = pair_costs(templates)
        check_agreement(pair, words)
        loo = [float(pair[i].min()) for i in range(len(templates))]
        threshold = max(floor, margin * max(loo))
        return cls(name, tuple(templates), threshold, margin, tuple(round(c, 4) for c in loo), words)

    def cost(self, series: SeatSeries) -> float | None:
        """How near one more demonstration comes to the learnt ones (the DTW cost of the nearest,
        on the same scale as `threshold`); None when it has fewer than 3 usable frames."""
        _, x = resample(series.t, frame_features(series))
        if len(x) < 3:
            return None
        x = trim_still(x)
        return min(float(subsequence_dtw(tpl, x)[0].min()) for tpl in self.templates)

    @property
    def words(self) -> str:
        """What was learnt, for people: the gesture, the threshold and how near the demonstrations are."""
        shown = ""
        if self.descriptions:
            shown = _group_words(self.descriptions, range(len(self.descriptions))) + ", "
        near = f" (the demonstrations are {max(self.costs):.2f} from each other at most)" if self.costs else ""
        return (
            f"{self.label}: {shown}learnt from {len(self.templates)} demonstrations; a gesture is taken for it "
            f"when it comes within {self.threshold:.2f} of one of them{near}"
        )

    def match(self, series: SeatSeries) -> list[SignalEvent]:
        """The team's gesture wherever it is in `series`: one event per continuous gesture (a
        sign held longer than it was shown is one event, extended while it is held)."""
        t, x = resample(series.t, frame_features(series))
        if len(x) < 2:
            return []
        place = [k for side in range(2) for k in (side * HAND_FEATURES, side * HAND_FEATURES + 1)]
        if all(np.isfinite(tpl[:, place]).any() for tpl in self.templates) and not np.isfinite(x[:, place]).any():
            return []  # learnt with the face in view (the hand's place counts): not judged without one
        best = np.full(len(x), np.inf)
        best_start = np.zeros(len(x), dtype=np.int64)
        best_tpl = np.zeros(len(x), dtype=np.int64)
        for k, tpl in enumerate(self.templates):
            c, starts = subsequence_dtw(tpl, x)
            better = c < best
            best[better], best_start[better], best_tpl[better] = c[better], starts[better], k
        min_span = MIN_SPAN * min(len(tpl) for tpl in self.templates)
        # how far each frame is from the pose a demonstration ends in, when that is a sign held
        # (not where it began: a gesture that returns to rest is not held)
        # or a sign held all through (a demonstration that stays at its end pose)
        ends = [
            tpl[-1]
            for tpl in self.templates
            if distance(tpl[-1], tpl[0]) > self.threshold or distance(tpl, tpl[-1]).max() <= self.threshold
        ]
        held = np.min([distance(x, e) for e in ends], axis=0) if ends else np.full(len(x), np.inf)
        matches: list[tuple[int, int, float, int]] = []
        used = np.zeros(len(x), bool)
        for j in np.argsort(best):
            if best[j] > self.threshold:
                break
            s = int(best_start[j])
            # lingering still at the end costs almost nothing: end at the earliest equal cost of
            # the same warping (the same start; another start is another match)
            c0 = best[j]
            while j - 1 > s and best_start[j - 1] == s and best[j - 1] <= c0 + 0.02 * self.threshold:
                j -= 1
            if j - s + 1 < min_span or used[s : j + 1].any():
                continue  # the whole gesture warped onto a moment: not the gesture
            used[s : j + 1] = True
            matches.append((s, int(j), float(best[j]), int(best_tpl[j])))
        matches.sort()
        merged: list[tuple[int, int, float, int]] = []
        for m in matches:
            if merged and t[m[0]] - t[merged[-1][1]] <= MERGE_GAP + 1e-9:
                last = merged[-1]
                best_of = m if m[2] < last[2] else last
                merged[-1] = (last[0], max(last[1], m[1]), best_of[2], best_of[3])
            else:
                merged.append(m)
        spans: list[tuple[int, int, float, int, int]] = []  # start, end, cost, template, decided at
        for s, j_end, score, which in merged:
            end = j_end
            while end + 1 < len(x) and held[end + 1] <= self.threshold and not _starts_another(merged, end + 1, s):
                end += 1
            if spans and t[s] - t[spans[-1][1]] <= MERGE_GAP + 1e-9:  # held up to the next one: one gesture
                a0, _, c0, w0, d0 = spans[-1]
                spans[-1] = (a0, end, c0, w0, d0) if c0 <= score else (a0, end, score, which, d0)
            else:
                spans.append((s, end, score, which, j_end))
        events = []
        for s, end, score, which, j_end in spans:
            conf = float(np.clip(0.5 + 0.5 * (1 - score / self.threshold), 0, 1))
            events.append(
                SignalEvent(
                    series.seat.name,
                    FREE_SIGNAL,
                    round(float(t[s]), 3),
                    round(float(t[end]), 3),
                    round(conf, 3),
                    {
                        "team": self.name,
                        "team_signal": self.name,
                        "dtw_cost": round(score, 4),
                        "threshold": round(self.threshold, 4),
                        "template": int(which),
                        "decided_at": round(float(t[j_end]), 3),
                    },
                    unsure=score > 0.8 * self.threshold,
                )
            )
        return sorted(events, key=lambda e: e.start)

    @property
    def label(self) -> str:
        """How the events are named to people: the team's own signal."""
        return f"{self.name}'s signal"

    def to_dict(self) -> dict:
        return {
            "format": FORMAT,
            "name": self.name,
            "threshold": self.threshold,
            "margin": self.margin,
            "rate": RATE,
            "templates": [
                [[None if math.isnan(v) else v for v in row] for row in np.round(t, 4).tolist()] for t in self.templates
            ],
            "costs": list(self.costs),
            "descriptions": list(self.descriptions),
        }

    @classmethod
    def from_dict(cls, d: dict) -> FreeSignal:
        if isinstance(d, dict) and d.get("format") == "free-signal/1":
            raise FreeSignalError(
                "this Free Signal was learnt by an older referee (free-signal/1, before hand shapes were "
                "read): enrol the team's signal again from its demonstrations"
            )
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise FreeSignalError(f"not a Free Signal file (expected format {FORMAT})")
        raw = d.get("templates")
        if not isinstance(raw, list) or not raw:
            raise FreeSignalError("a Free Signal needs a list of templates")
        templates = []
        for k, t in enumerate(raw):
            try:
                rows = [[np.nan if v is None else v for v in row] for row in t]  # null: a part never seen
                x = np.asarray(rows, np.float64)
                unseen = np.array([[v is None for v in row] for row in t], bool)
            except (TypeError, ValueError):
                x, unseen = np.zeros((0,)), np.zeros((0,), bool)
            finite = np.isfinite(x) | unseen if x.shape == unseen.shape else np.zeros((0,), bool)
            if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] != FEATURES or not finite.all():
                raise FreeSignalError(
                    f"template {k} must be 2 or more rows of {FEATURES} finite numbers (or null, not seen)"
                )
            seen = np.isfinite(x)
            if not seen.any() or not (seen.all(axis=0) | ~seen.any(axis=0)).all():
                # a learnt part is seen in every row or in none (`resample`): anything else is a
                # damaged file, and a template seen nowhere would match any stream at no cost
                raise FreeSignalError(
                    f"template {k} is damaged: a part is seen in some of its rows only, or nothing is seen at all"
                )
            templates.append(x)
        try:
            name, threshold, margin = str(d["name"]), float(d["threshold"]), float(d.get("margin", 1.5))
        except KeyError as exc:
            raise FreeSignalError(f"a Free Signal file needs {exc}") from None
        except (TypeError, ValueError) as exc:
            raise FreeSignalError(f"the threshold and margin must be numbers: {exc}") from None
        if not (math.isfinite(threshold) and threshold > 0 and math.isfinite(margin) and margin > 0):
            raise FreeSignalError("the threshold and margin must be positive finite numbers")
        costs = d.get("costs") or []
        if not isinstance(costs, list) or not all(isinstance(c, (int, float)) for c in costs):
            costs = []
        words = d.get("descriptions") or []
        if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
            words = []
        return cls(name, tuple(templates), threshold, margin, tuple(float(c) for c in costs), tuple(words))

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict()) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> FreeSignal:
        try:
            doc = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError) as exc:  # ValueError: not JSON, not UTF-8
            raise FreeSignalError(f"cannot read Free Signal {path}: {exc}") from None
        return cls.from_dict(doc)
