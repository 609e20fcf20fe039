"""Detectors: geometry over time, one function per kind of cue.

Each takes a seat's `SeatSeries` and a catalogue `SignalSpec` and returns `SignalEvent`s.
Per frame a detector decides "on", "off" or "not seen" (NaN geometry is off); `runs()` turns
that into intervals that last at least the entry's `min_dwell`, bridging gaps up to `max_gap`,
and notes when a live referee could have decided (`decided_at`: the first frame after the
gap has run out), which is the delay from the end of a gesture to its event.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from referee.observations import SignalEvent
from vision.landmarks.types import SIDES
from vision.signals.catalogue import Catalogue, SignalSpec
from vision.signals.features import FACE_TARGETS, SeatSeries, contact_distances, pose_hand_points


@dataclasses.dataclass(frozen=True)
class Run:
    i0: int
    i1: int
    decided: int  # frame index into the series at which the run was closed


def runs(t: np.ndarray, on: np.ndarray, min_dwell: float, max_gap: float) -> list[Run]:
    """Intervals of `on` frames, bridging off-gaps up to max_gap seconds, kept if they last
    min_dwell seconds (a single frame lasts one frame period)."""
    on = np.asarray(on, dtype=bool)
    n = len(t)
    if n == 0:
        return []
    dt = float(np.median(np.diff(t))) if n > 1 else 0.0
    if n == 1:
        # A still picture: a pose held in a photograph counts as held.
        return [Run(0, 0, 0)] if on[0] else []
    out: list[Run] = []
    start: int | None = None
    last = 0  # read only while start is set
    for i in range(n):
        if on[i]:
            if start is None:
                start = i
            last = i
        elif start is not None and t[i] - t[last] > max_gap + 1e-9:
            out.append(Run(start, last, i))
            start = None
    if start is not None:
        out.append(Run(start, last, n - 1))
    return [r for r in out if t[r.i1] - t[r.i0] + dt >= min_dwell - 1e-9]


def _round(x: Any, nd: int = 3) -> Any:
    if isinstance(x, (float, np.floating)):
        return None if not np.isfinite(x) else round(float(x), nd)
    return x


def _event(
    series: SeatSeries, spec: SignalSpec, run: Run, confidence: float, evidence: dict, unsure: bool = False
) -> SignalEvent:
    t = series.t
    dt = float(np.median(np.diff(t))) if len(t) > 1 else 0.0
    confidence = float(np.clip(confidence, 0.0, 1.0))
    ev = {
        "frames": [int(series.index[run.i0]), int(series.index[run.i1])],
        "decided_at": round(float(t[run.decided]), 3),
        **{k: _round(v) for k, v in evidence.items()},
    }
    return SignalEvent(
        series.seat.name,
        spec.id,
        round(float(t[run.i0]), 3),
        round(float(t[run.i1] + dt), 3),
        round(confidence, 3),
        ev,
        unsure=unsure or confidence < spec.unsure_below,
    )


def _dwell_factor(series: SeatSeries, run: Run, spec: SignalSpec) -> float:
    if series.n == 1:
        return 1.0  # a still picture
    dt = float(np.median(np.diff(series.t))) if series.n > 1 else 0.0
    dur = series.t[run.i1] - series.t[run.i0] + dt
    return float(np.clip(dur / max(2 * spec.min_dwell, 1e-6), 0.5, 1.0))


# -- touches -------------------------------------------------------------------------------------


def contact_targets(
    series: SeatSeries, radius: dict[str, float], side: str, pose_visibility: float | None = None
) -> tuple[np.ndarray, dict]:
    """Per frame, the face part that hand touches (the nearest within its radius, measured
    relative to the radius) or "" when none. With `pose_visibility`, Pose's hand points stand in
    where Hands found no hand (`contact_distances`)."""
    d = contact_distances(series, side, pose_visibility)
    rel = np.stack([d[k] / radius[k] for k in FACE_TARGETS], axis=1)  # (T, K)
    rel = np.where(np.isnan(rel), np.inf, rel)
    best = rel.argmin(axis=1)
    touching = rel[np.arange(series.n), best] < 1.0
    names = np.array(FACE_TARGETS, dtype=object)[best]
    return np.where(touching, names, ""), d


def face_touch(series: SeatSeries, spec: SignalSpec, cat: Catalogue, **_: Any) -> list[SignalEvent]:
    target, hand = spec.p("target"), spec.p("hand")
    lo, hi = spec.p("depth_ratio")
    radius = dict(cat.face_contact_radius)
    events = []
    max_hold = spec.params.get("max_hold")
    pose_vis = spec.params.get("pose_visibility")
    for side in SIDES if hand == "any" else (hand,):
        touched, dist = contact_targets(series, radius, side, pose_vis)
        on = touched == target
        has = series.has_hand(side)
        # a pose hand's size: its wrist-to-index span (on the real media, Hands' wrist-to-knuckle
        # size is 0.5-1.7 times it, median about 1)
        ph = series.pose_hand[side]
        pose_size = np.linalg.norm(ph[:, 2, :2] - ph[:, 0, :2], axis=1)
        holds = runs(series.t, touched != "", 0.0, spec.max_gap)
        for run in runs(series.t, on, spec.min_dwell, spec.max_gap):
            sl = slice(run.i0, run.i1 + 1)
            hold = next((h for h in holds if h.i0 <= run.i0 <= h.i1), None)
            if (
                max_hold is not None
                and hold is not None
                and series.n > 1
                and series.t[hold.i1] - series.t[hold.i0] > max_hold
            ):
                continue  # a hand kept at (or in front of) the face is resting, not signalling
            dmin = np.nanmin(dist[target][sl])
            hand_frames = int((on[sl] & has[sl]).sum())
            size = np.where(has[sl], series.hand_size[side][sl], pose_size[sl])
            ratio = float(np.nanmedian(size / series.iod[sl]))
            plausible = lo <= ratio <= hi
            closeness = 1.0 - float(np.nanmedian(dist[target][sl][on[sl]])) / radius[target]
            conf = (0.55 + 0.45 * closeness) * _dwell_factor(series, run, spec) * (1.0 if plausible else 0.6)
            if hand_frames == 0:
                conf *= 0.85  # Pose's coarse hand points alone: plausible, less precise
            others = {k: float(np.nanmedian(v[sl])) for k, v in dist.items() if k != target}
            nearest_other = min(others, key=others.__getitem__)
            # two face parts almost equally near (chin or mouth?): say so
            own_rel = float(np.nanmedian(dist[target][sl])) / radius[target]
            ambiguous = others[nearest_other] / radius[nearest_other] < own_rel + 0.25
            events.append(
                _event(
                    series,
                    spec,
                    run,
                    conf,
                    {
                        "hand": side,
                        "target": target,
                        "min_distance": dmin,
                        "median_distance": float(np.nanmedian(dist[target][sl])),
                        "next_nearest": nearest_other,
                        "next_nearest_distance": others[nearest_other],
                        "hand_face_ratio": ratio,
                        "hand_frames": hand_frames,
                        "pose_frames": int((on[sl] & ~has[sl]).sum()),
                        "side_from": series.hand_from[side][run.i0] if has[run.i0] else "pose",
                        "ambiguous_with_next": ambiguous,
                        "landmarks": "hand tips/pads 3,4,7,8,11,12,15,16,19,20 (where Hands found no hand: "
                        "pose pinky, index, thumb); face " + target,
                    },
                    unsure=not plausible or ambiguous or hand_frames == 0,
                )
            )
    return events


# -- raising a hand ------------------------------------------------------------------------------


def raise_hand(series: SeatSeries, spec: SignalSpec, cat: Catalogue, **_: Any) -> list[SignalEvent]:
    """A hand held up, judged against the head and the shoulders: its top well above the eyes,
    its wrist above the shoulder line (the line Pose sees, or one eye span below the chin when
    the shoulders are out of view), the forearm pointing up where Pose sees the elbow, and the
    hand not touching the face. Where Hands found no hand, Pose's own wrist, pinky, index and
    thumb points stand in (then unsure)."""
    side = spec.p("hand")
    iod = series.iod
    vis = spec.p("min_visibility")
    chin_y = series.targets["chin"][:, 1]
    has = series.has_hand(side)
    pts = series.hand[side]
    pose_pts = pose_hand_points(series, side, vis)  # NaN where Hands has the hand
    hand_top = np.min(np.nan_to_num(pts[:, :, 1], nan=np.inf), axis=1)
    # Pose's index point sits about the knuckles: a hand pointing up reaches further
    pose_up = pose_pts[:, 2, 1] < pose_pts[:, 0, 1]
    reach = np.where(pose_up, spec.p("pose_finger_reach") * iod, 0.0)
    pose_top = np.min(np.nan_to_num(pose_pts[:, :, 1], nan=np.inf), axis=1) - reach
    top_y = np.where(has, hand_top, pose_top)
    top_y = np.where(np.isinf(top_y), np.nan, top_y)
    wrist = np.where(has[:, None], pts[:, 0], pose_pts[:, 0])
    seen = has | np.isfinite(pose_pts[:, 0, 0])
    # The shoulder line and its scale: Pose's, else estimated from the face.
    pose_sh = np.isfinite(series.shoulder_y) & np.isfinite(series.sw)
    shoulder_y = np.where(pose_sh, series.shoulder_y, chin_y + spec.p("shoulders_below_chin") * iod)
    sh_scale = np.where(pose_sh, series.sw, iod / 0.35)
    above_sh = (shoulder_y - wrist[:, 1]) / sh_scale
    above_eyes = (series.eye_line_y - top_y) / iod
    el = series.elbow[side]
    forearm = wrist - el[:, :2]
    length = np.linalg.norm(forearm, axis=1)
    up = -forearm[:, 1] / np.where(length > 0, length, np.nan)  # 1 straight up, 0 level, -1 down
    forearm_ok = ~(el[:, 2] >= vis) | ~np.isfinite(up) | (up >= spec.p("forearm_up"))
    touched, _ = contact_targets(series, dict(cat.face_contact_radius), side, spec.params.get("pose_visibility"))
    with np.errstate(invalid="ignore"):
        by_face = (
            seen
            & (above_sh >= spec.p("wrist_above_shoulders"))
            & (above_eyes >= spec.p("top_above_eyes"))
            & forearm_ok
            & (touched == "")
        )
        # No face in view (turned away, out of the crop): Pose's wrist well above the shoulders,
        # and only where Hands found no hand (a hand held up before the face hides the face).
        pw = series.pose_wrist[side]
        pose_above_sh = (series.shoulder_y - pw[:, 1]) / series.sw
        no_face = np.isnan(iod) & ~has & (pw[:, 2] >= vis) & (pose_above_sh >= spec.p("pose_above_shoulders"))
    by_hand = by_face & has
    by_pose = (by_face & ~has) | no_face
    on = by_hand | by_pose
    events = []
    for run in runs(series.t, on, spec.min_dwell, spec.max_gap):
        sl = slice(run.i0, run.i1 + 1)
        hand_frames = int(by_hand[sl].sum())
        pose_frames = int(by_pose[sl].sum())
        m = above_eyes[sl][on[sl]]
        m = m[np.isfinite(m)]
        margin = float(m.max()) if len(m) else spec.p("top_above_eyes")  # no face: just over the line
        conf = (0.6 + 0.4 * min(margin / 1.5, 1.0)) * _dwell_factor(series, run, spec)
        if hand_frames == 0:
            conf *= 0.75  # the pose alone: plausible, less certain
        events.append(
            _event(
                series,
                spec,
                run,
                conf,
                {
                    "hand": side,
                    "hand_frames": hand_frames,
                    "pose_frames": pose_frames,
                    "max_top_above_eyes": margin,
                    "max_wrist_above_shoulders": float(np.nanmax(np.append(above_sh[sl], -np.inf))),
                    "max_wrist_above_chin": float(np.nanmax(np.append(((chin_y - wrist[:, 1]) / iod)[sl], -np.inf))),
                    "min_forearm_up": float(np.nanmin(np.append(up[sl][on[sl]], np.inf))),
                    "landmarks": "hand wrist 0 and topmost point (or pose wrist/pinky/index/thumb); face eye "
                    "centres and chin 152/175; pose shoulders 11/12 and elbow",
                },
                unsure=hand_frames == 0,
            )
        )
    return events


# -- elbows on the table -------------------------------------------------------------------------


def _speed(t: np.ndarray, xy: np.ndarray, scale: np.ndarray) -> np.ndarray:
    if len(t) < 2:
        return np.zeros(len(t))
    v = np.linalg.norm(np.gradient(xy, t, axis=0), axis=1)
    return v / scale


def elbow_rest(series: SeatSeries, spec: SignalSpec, cat: Catalogue, **_: Any) -> list[SignalEvent]:
    side = spec.p("side")
    if series.seat.table_line is None:
        return []
    el = series.elbow[side]
    sw = series.sw
    height = (series.table_y(el[:, 0]) - el[:, 1]) / sw  # + above the line
    speed = _speed(series.t, el[:, :2], sw)
    on = (
        (el[:, 2] >= spec.p("min_visibility"))
        & (height <= spec.p("above"))
        & (height >= -spec.p("below"))
        & (speed <= spec.p("max_speed"))
    )
    events = []
    for run in runs(series.t, on, spec.min_dwell, spec.max_gap):
        sl = slice(run.i0, run.i1 + 1)
        h = float(np.nanmedian(height[sl]))
        centre = (spec.p("above") - spec.p("below")) / 2
        spread = (spec.p("above") + spec.p("below")) / 2
        conf = (0.6 + 0.4 * (1 - min(abs(h - centre) / spread, 1.0))) * _dwell_factor(series, run, spec)
        events.append(
            _event(
                series,
                spec,
                run,
                conf,
                {
                    "side": side,
                    "median_height": h,
                    "median_speed": float(np.nanmedian(speed[sl])),
                    "visibility": float(np.nanmedian(el[sl, 2])),
                    "landmarks": f"pose elbow {13 if side == 'left' else 14}; seat table line",
                },
            )
        )
    return events


# -- taps on the table ---------------------------------------------------------------------------


def table_tap(series: SeatSeries, spec: SignalSpec, cat: Catalogue, **_: Any) -> list[SignalEvent]:
    side = spec.p("hand")
    if series.seat.table_line is None:
        return []
    pts = series.hand[side]
    t = series.t
    scale = series.body_scale()
    low_idx = np.nanargmax(np.where(np.isnan(pts[:, :, 1]), -np.inf, pts[:, :, 1]), axis=1)
    low = pts[np.arange(series.n), low_idx]
    height = (series.table_y(low[:, 0]) - low[:, 1]) / scale  # eye spans above the table line
    contact = height <= spec.p("contact")
    taps = []  # (i0, i1, lift_before, lift_after)
    for r in runs(t, contact, 0.0, 0.0):
        if t[r.i1] - t[r.i0] > spec.p("max_contact"):
            continue
        w = spec.p("lift_window")
        before = height[(t >= t[r.i0] - w) & (t < t[r.i0])]
        after = height[(t > t[r.i1]) & (t <= t[r.i1] + w)]
        lb = float(np.nanmax(before)) if np.isfinite(before).any() else np.nan
        la = float(np.nanmax(after)) if np.isfinite(after).any() else np.nan
        if lb >= spec.p("lift") and la >= spec.p("lift"):
            taps.append((r.i0, r.i1, lb, la))
    events = []
    bursts: list[list[tuple]] = []
    for tap in taps:
        if bursts and t[tap[0]] - t[bursts[-1][-1][1]] <= spec.p("burst_gap"):
            bursts[-1].append(tap)
        else:
            bursts.append([tap])
    for burst in bursts:
        i0, i1 = burst[0][0], burst[-1][1]
        # Decided once the hand has been lifted again after the last tap.
        after = np.nonzero((t > t[i1]) & (height >= spec.p("lift")))[0]
        decided = int(after[0]) if len(after) else series.n - 1
        n_taps = len(burst)
        sure = n_taps >= spec.p("sure_taps")
        conf = 0.85 if sure else 0.45
        events.append(
            _event(
                series,
                spec,
                Run(i0, i1, decided),
                conf,
                {
                    "hand": side,
                    "taps": n_taps,
                    "tap_times": [round(float(t[b[0]]), 3) for b in burst],
                    "lift_before": [round(b[2], 3) for b in burst],
                    "lift_after": [round(b[3], 3) for b in burst],
                    "landmarks": "hand's lowest point; seat table line",
                    "note": None if sure else "one touch-down looks like laying a card: unsure",
                },
                unsure=not sure,
            )
        )
    return events


# -- winks ----------------------------------------------------------------------------------------


def _running_baseline(t: np.ndarray, x: np.ndarray, window: float, q: float) -> np.ndarray:
    """Per frame i, the q-th percentile (numpy's "linear") of the finite values of x over the
    frames no more than `window` seconds before it, i included; NaN where there are none. All
    frames at once: the same numbers as `np.percentile` frame by frame, to the last bit
    (tests/signals/test_running_baseline.py)."""
    n = len(t)
    out = np.full(n, np.nan)
    if n == 0:
        return out
    t = np.asarray(t, dtype=np.float64)
    rows = np.arange(n)
    start = _window_starts(t, window)
    span = int((rows - start).max()) + 1
    idx = start[:, None] + np.arange(span)[None, :]
    vals = np.asarray(x, dtype=np.float64)[np.minimum(idx, n - 1)]
    vals = np.where((idx <= rows[:, None]) & np.isfinite(vals), vals, np.nan)
    vals.sort(axis=1)  # NaN last
    k = np.sum(np.isfinite(vals), axis=1)
    have = k > 0
    if not have.any():
        return out
    vals, k = vals[have], k[have]
    virtual = (k - 1) * np.true_divide(q, 100)
    prev = np.floor(virtual)
    gamma = virtual - prev
    above = virtual >= k - 1
    lo = np.where(above, k - 1, prev.astype(np.intp))
    hi = np.where(above, k - 1, lo + 1)
    r = np.arange(len(k))
    a, b = vals[r, lo], vals[r, hi]
    diff = b - a
    res = a + diff * gamma
    res = np.where(gamma >= 0.5, b - diff * (1 - gamma), res)
    out[have] = res
    return out


def _window_starts(t: np.ndarray, window: float) -> np.ndarray:
    """Per frame i of sorted times t, the first j with t[i] - t[j] <= window: a binary search,
    then moved by the very comparison the frame-by-frame loop makes, so that rounding at the
    window's edge decides the same way (memory in the frames, not their square: a long video's
    stream has tens of thousands)."""
    i = np.arange(len(t))
    start = np.minimum(np.searchsorted(t, t - window, side="left"), i)
    while True:  # too far back by rounding: one frame on
        late = t[i] - t[start] > window
        if not late.any():
            break
        start[late] += 1
    while True:  # one frame earlier is still within the window
        early = (start > 0) & (t[i] - t[np.maximum(start - 1, 0)] <= window)
        if not early.any():
            return start
        start[early] -= 1


def eye_states(series: SeatSeries, spec: SignalSpec) -> dict[str, dict[str, np.ndarray]]:
    out = {}
    for side in SIDES:
        ear = series.ear[side]
        base = _running_baseline(series.t, ear, spec.p("baseline_window"), spec.p("baseline_percentile"))
        ratio = ear / base
        out[side] = {
            "ear": ear,
            "baseline": base,
            "ratio": ratio,
            "closed": ratio < spec.p("closed"),
            "open": ratio > spec.p("open"),
        }
    return out


def wink(series: SeatSeries, spec: SignalSpec, cat: Catalogue, **_: Any) -> list[SignalEvent]:
    eye = spec.p("eye")
    other = "right" if eye == "left" else "left"
    st = eye_states(series, spec)
    on = st[eye]["closed"] & st[other]["open"]
    # Each eye is judged against its own open baseline, so the baseline needs some history:
    # a still picture, or the first moments of a clip, cannot show a wink (nor tell a squint).
    seen = np.isfinite(series.ear[eye])
    first = series.t[np.argmax(seen)] if seen.any() else np.inf
    on &= series.t - first >= spec.p("min_history")
    # The lip gap against its own running median: a laugh opens the mouth.
    mouth_base = _running_baseline(series.t, series.mouth_open, spec.p("baseline_window"), 50)
    events = []
    for run in runs(series.t, on, spec.min_dwell, spec.max_gap):
        sl = slice(run.i0, run.i1 + 1)
        dur = series.t[run.i1] - series.t[run.i0]
        # A blink closes both: reject a closure of this eye that the other eye shared.
        closed_this = st[eye]["closed"][sl]
        lo, hi = max(0, run.i0 - 1), min(series.n, run.i1 + 2)
        other_closed = float(np.mean(st[other]["closed"][lo:hi]))
        if dur > spec.p("max_duration") or other_closed > spec.p("max_other_closed"):
            continue
        # A laugh narrows both eyes, and FaceMesh often reads one of them as nearly open
        # (real smiling faces: one eye at 0.62-0.65 of the other): an eye closing while the
        # mouth opens wide is a laugh, not a wink.
        mouth_rise = float(np.nanmax(np.append((series.mouth_open - mouth_base)[lo:hi], -np.inf)))
        if mouth_rise >= spec.p("laugh_mouth"):
            continue
        yaw = float(np.nanmedian(np.abs(series.yaw[sl])))
        depth = 1.0 - float(np.nanmedian(st[eye]["ratio"][sl][closed_this]))
        open_other = float(np.nanmedian(st[other]["ratio"][sl]))
        conf = (0.55 + 0.45 * min(depth / 0.8, 1.0)) * (1.0 if yaw <= spec.p("max_yaw") else 0.6)
        events.append(
            _event(
                series,
                spec,
                run,
                conf,
                {
                    "eye": eye,
                    "closed_ratio": float(np.nanmin(st[eye]["ratio"][sl])),
                    "other_ratio": open_other,
                    "baseline": float(np.nanmedian(st[eye]["baseline"][sl])),
                    "other_closed_share": other_closed,
                    "mouth_rise": mouth_rise,
                    "yaw": yaw,
                    "landmarks": "face eye lids (EAR over 33/133/159/145... and 263/362/386/374...)",
                },
                unsure=yaw > spec.p("max_yaw"),
            )
        )
    return events


# -- mouth moving ---------------------------------------------------------------------------------


def mouth_activity(series: SeatSeries, window: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per frame, over a centred window: the std and range of the lip gap, and how often it
    crosses its own mean (talking opens and closes the lips repeatedly; opening once does not)."""
    t, m = series.t, series.mouth_open
    std, rng, cross = np.full(series.n, np.nan), np.full(series.n, np.nan), np.zeros(series.n)
    for i in range(series.n):
        sel = (np.abs(t - t[i]) <= window / 2) & np.isfinite(m)
        if sel.sum() >= 3:
            seg = m[sel]
            std[i], rng[i] = float(np.std(seg)), float(np.ptp(seg))
            sign = np.sign(seg - seg.mean())
            sign = sign[sign != 0]
            cross[i] = int(np.sum(sign[1:] != sign[:-1]))
    return std, rng, cross


def mouth_moving(series: SeatSeries, spec: SignalSpec, cat: Catalogue, **_: Any) -> list[SignalEvent]:
    std, rng, cross = mouth_activity(series, spec.p("window"))
    on = (std >= spec.p("min_std")) & (rng >= spec.p("min_range")) & (cross >= spec.p("min_crossings"))
    moving = np.abs(np.gradient(series.mouth_open)) >= spec.p("min_range") / 8 if series.n > 1 else np.zeros(1, bool)
    events = []
    for run in runs(series.t, on, spec.min_dwell, spec.max_gap):
        # the window smears the run by half a window: keep it to the frames whose lips move
        inside = np.nonzero(moving[run.i0 : run.i1 + 1])[0]
        if len(inside):
            run = Run(run.i0 + int(inside[0]), run.i0 + int(inside[-1]), run.decided)
        sl = slice(run.i0, run.i1 + 1)
        s = float(np.nanmedian(std[sl]))
        conf = (0.55 + 0.45 * min(s / (3 * spec.p("min_std")), 1.0)) * _dwell_factor(series, run, spec)
        # The live decision waits for half a window after the last active frame.
        decided = int(np.searchsorted(series.t, series.t[run.decided] + spec.p("window") / 2))
        run = Run(run.i0, run.i1, min(decided, series.n - 1))
        events.append(
            _event(
                series,
                spec,
                run,
                conf,
                {
                    "lip_gap_std": s,
                    "lip_gap_range": float(np.nanmax(rng[sl])),
                    "lip_gap_mean": float(np.nanmean(series.mouth_open[sl])),
                    "landmarks": "face inner lips 13/14 over the eye span",
                },
            )
        )
    return events


DetectorFn = Callable[..., list[SignalEvent]]
REGISTRY: dict[str, DetectorFn] = {
    "face_touch": face_touch,
    "raise_hand": raise_hand,
    "elbow_rest": elbow_rest,
    "table_tap": table_tap,
    "wink": wink,
    "mouth_moving": mouth_moving,
}


def run_body_detectors(series: SeatSeries, cat: Catalogue, only: Sequence[str] | None = None) -> list[SignalEvent]:
    out: list[SignalEvent] = []
    for spec in cat.signals:
        if only is not None and spec.id not in only:
            continue
        fn = REGISTRY.get(spec.detector)
        if fn is None:
            continue  # card detectors need card detections: vision.signals.cards
        out.extend(fn(series, spec, cat))
    return out
