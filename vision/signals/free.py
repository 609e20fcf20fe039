"""Free Signal: a team's own gesture, learnt from 3-5 demonstrations and found by DTW.

Each frame of a player becomes a small feature vector in the player's own units (hands
relative to the nose in eye spans, the eyes' openness, the lip gap), resampled to `RATE` per
second. Subsequence dynamic time warping finds a demonstration anywhere in the live stream;
the rejection threshold is `margin` times the worst leave-one-out cost among the
demonstrations. docs/signals.md, "Free Signal", gives the details.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from referee.core import RefereeError
from referee.observations import SignalEvent
from referee.signal_cards import FREE_SIGNAL
from vision.landmarks.types import SIDES
from vision.signals.features import SeatSeries

RATE = 10.0
HAND_DOWN = (0.0, 6.0)
FORMAT = "free-signal/1"
FEATURES = 15  # the columns of `frame_features`: 2 hands x 3 points x (x, y), 2 eyes, the mouth


MERGE_GAP = 0.6  # s: two matches this close are one gesture (a sign held, seen as several)
MIN_SPAN = 0.5  # a match must cover at least this share of the shortest demonstration's length
DISAGREE_RATIO = 2.0  # a demonstration this many times further from the others than they are apart...
DISAGREE_FLOOR = 1.0  # ...and at least this far (features in eye spans) is another gesture


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


def frame_features(series: SeatSeries, max_gap: float = 0.5) -> np.ndarray:
    """(T, 15) features per frame; rows without a face are NaN."""
    nose = _fill_gaps(series.t, series.targets["nose"], max_gap)
    iod = _fill_gaps(series.t, series.iod[:, None], max_gap)
    cols = []
    for side in SIDES:
        pts = series.hand[side]
        for k in (0, 8, 4):
            rel = _fill_gaps(series.t, (pts[:, k] - nose) / iod, max_gap)
            miss = np.isnan(rel[:, 0]) & np.isfinite(iod[:, 0])
            rel[miss] = HAND_DOWN
            cols.append(rel)
    base = {s: np.nanmedian(series.ear[s]) if np.isfinite(series.ear[s]).any() else 1.0 for s in SIDES}
    eyes = np.stack([series.ear[s] / base[s] for s in SIDES], axis=1)
    return np.concatenate(cols + [eyes, series.mouth_open[:, None] * 4.0], axis=1)


def resample(t: np.ndarray, x: np.ndarray, rate: float = RATE) -> tuple[np.ndarray, np.ndarray]:
    ok = np.isfinite(x).all(axis=1)
    t, x = t[ok], x[ok]
    if len(t) < 2:
        return t, x
    grid = np.arange(t[0], t[-1] + 1e-9, 1.0 / rate)
    return grid, np.stack([np.interp(grid, t, x[:, k]) for k in range(x.shape[1])], axis=1)


def subsequence_dtw(template: np.ndarray, stream: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every end position j of the stream: the cost of the best warping of the whole
    template onto some stream[s..j] (summed Euclidean step costs over the template's length,
    so lingering on the stream costs extra), and that start s."""
    m, n = len(template), len(stream)
    cost = np.linalg.norm(template[:, None, :] - stream[None, :, :], axis=2)
    acc = np.full((m, n), np.inf)
    start = np.zeros((m, n), dtype=np.int64)
    acc[0], start[0] = cost[0], np.arange(n)
    for i in range(1, m):
        # diagonal and vertical steps in one vector operation, then the horizontal recurrence
        diag = np.concatenate([[np.inf], acc[i - 1, :-1]])
        dstart = np.concatenate([[0], start[i - 1, :-1]])
        up = acc[i - 1]
        take_up = up <= diag
        best = np.where(take_up, up, diag)
        bstart = np.where(take_up, start[i - 1], dstart)
        row, rstart = cost[i] + best, bstart.copy()
        for j in range(1, n):
            left = row[j - 1] + cost[i, j]
            if left < row[j]:
                row[j], rstart[j] = left, rstart[j - 1]
        acc[i], start[i] = row, rstart
    return acc[-1] / m, start[-1]


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


def check_agreement(pair: np.ndarray) -> None:
    """Refuse demonstrations that are not the same gesture, saying which and why: one whose
    nearest other is `DISAGREE_RATIO` times further than the others are from each other (and
    over `DISAGREE_FLOOR`), or a set in which no two are near."""
    n = len(pair)
    near = [float(pair[i].min()) for i in range(n)]
    costs = [round(c, 3) for c in near]
    if min(near) > 2 * DISAGREE_FLOOR:
        raise DemonstrationsDisagree(
            "the demonstrations do not agree with each other (the nearest two are "
            f"{min(near):.2f} apart): give the same gesture each time",
            costs=costs,
        )
    bad = []
    for i in range(n):
        rest = [k for k in range(n) if k != i]
        among = min(float(pair[a, b]) for a in rest for b in rest if a < b)
        if near[i] > DISAGREE_FLOOR and near[i] > DISAGREE_RATIO * among:
            bad.append((i, near[i], among))
    if bad:
        which = " and ".join(str(i + 1) for i, _, _ in bad)
        i, c, among = bad[0]
        raise DemonstrationsDisagree(
            f"demonstration {which} is not the same gesture as the others: it is {c:.2f} from the nearest one, "
            f"while the others are {among:.2f} apart; show it again, or leave it out",
            demonstrations=[i + 1 for i, _, _ in bad],
            costs=costs,
        )


def _starts_another(merged: Sequence[Sequence], k: int, own: int) -> bool:
    return any(m[0] == k and m[0] != own for m in merged)


def trim_still(x: np.ndarray, tol: float = 0.15) -> np.ndarray:
    """Drop the leading and trailing frames of a demonstration where nothing moves yet."""
    moving = np.nonzero((np.linalg.norm(x - x[0], axis=1) > tol) | (np.linalg.norm(x - x[-1], axis=1) > tol))[0]
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

    @classmethod
    def learn(
        cls, demonstrations: Sequence[SeatSeries], name: str = "team", margin: float = 1.5, floor: float = 0.3
    ) -> FreeSignal:
        if not 3 <= len(demonstrations) <= 5:
            raise FreeSignalError(f"a Free Signal needs 3 to 5 demonstrations, got {len(demonstrations)}")
        templates = []
        for k, demo in enumerate(demonstrations):
            _, x = resample(demo.t, frame_features(demo))
            x = trim_still(x) if len(x) >= 3 else x
            if len(x) < 3:
                raise FreeSignalError(f"demonstration {k + 1} has fewer than 3 usable frames (no face seen?)")
            templates.append(x)
        pair = pair_costs(templates)
        check_agreement(pair)
        loo = [float(pair[i].min()) for i in range(len(templates))]
        threshold = max(floor, margin * max(loo))
        return cls(name, tuple(templates), threshold, margin, tuple(round(c, 4) for c in loo))

    def match(self, series: SeatSeries) -> list[SignalEvent]:
        """The team's gesture wherever it is in `series`: one event per continuous gesture (a
        sign held longer than it was shown is one event, extended while it is held)."""
        t, x = resample(series.t, frame_features(series))
        if len(x) < 2:
            return []
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
        ends = [tpl[-1] for tpl in self.templates if np.linalg.norm(tpl[-1] - tpl[0]) > self.threshold]
        held = np.min([np.linalg.norm(x - e, axis=1) for e in ends], axis=0) if ends else np.full(len(x), np.inf)
        matches: list[tuple[int, int, float, int]] = []
        used = np.zeros(len(x), bool)
        for j in np.argsort(best):
            if best[j] > self.threshold:
                break
            s = int(best_start[j])
            # lingering still at the end costs almost nothing: end at the earliest equal cost
            while j - 1 > s and best[j - 1] <= best[j] + 0.02 * self.threshold:
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
        events = []
        for s, j_end, score, which in merged:
            end = j_end
            while end + 1 < len(x) and held[end + 1] <= self.threshold and not _starts_another(merged, end + 1, s):
                end += 1
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
            "templates": [np.round(t, 4).tolist() for t in self.templates],
            "costs": list(self.costs),
        }

    @classmethod
    def from_dict(cls, d: dict) -> FreeSignal:
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise FreeSignalError(f"not a Free Signal file (expected format {FORMAT})")
        raw = d.get("templates")
        if not isinstance(raw, list) or not raw:
            raise FreeSignalError("a Free Signal needs a list of templates")
        templates = []
        for k, t in enumerate(raw):
            try:
                x = np.asarray(t, np.float64)
            except (TypeError, ValueError):
                x = np.zeros((0,))
            if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] != FEATURES or not np.isfinite(x).all():
                raise FreeSignalError(f"template {k} must be 2 or more rows of {FEATURES} finite numbers")
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
        return cls(name, tuple(templates), threshold, margin, tuple(float(c) for c in costs))

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict()) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> FreeSignal:
        try:
            doc = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError) as exc:  # ValueError: not JSON, not UTF-8
            raise FreeSignalError(f"cannot read Free Signal {path}: {exc}") from None
        return cls.from_dict(doc)
