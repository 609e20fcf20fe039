"""A hand's shape from MediaPipe Hands' 21 points, independent of where the hand is, how big
it looks and how it is turned: how far out each digit is, and where the digits that are out
point in the picture (a thumbs-up and a thumbs-down differ only there). From the 2-D points,
vectorised over frames (NaN rows where there is no hand); plain words for a shape and a place.

    out = digits_out(series.hand["right"])           # (T, 5) 0..1: thumb, index, middle, ring, pinky
    towards = out_direction(series.hand["right"])    # (T, 2) where the digits that are out point
    shape_name(out[k] >= 0.5, ...)                   # "a thumbs-up", "a fist", "an open hand", ...

Used by the Free Signal (`vision.signals.free`) to tell one team's gesture from another.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

FINGERS = ("thumb", "index", "middle", "ring", "pinky")
# Hands' points per finger: the knuckle at the palm (MCP; the thumb's CMC-MCP), then to the tip.
CHAINS = ((1, 2, 3, 4), (5, 6, 7, 8), (9, 10, 11, 12), (13, 14, 15, 16), (17, 18, 19, 20))
WRIST = 0
PALM = (0, 5, 9, 13, 17)
KNUCKLES = [5, 9, 13, 17]
# A digit is out by these ramps (0 below the first number, 1 above the second): a finger
# straight (tip-to-knuckle over its bones) and reaching from the wrist (in wrist-to-knuckle
# lengths); the thumb's tip far from the knuckles' centre (in palm sizes).
STRAIGHT = (0.65, 0.9)
REACH = (1.2, 1.6)
THUMB_FAR = (0.8, 1.2)
THUMB_TUCKED = 0.45  # thumb_far under this: the thumb lies on the fist, so a lone finger up is the index


def _norm(v: np.ndarray) -> np.ndarray:
    return np.linalg.norm(v, axis=-1)


def palm_size(hand: np.ndarray) -> np.ndarray:
    """(T,) the palm's size in pixels: the mean of wrist to index, middle and pinky knuckles and
    the knuckles' width, which keeps a size when the palm is seen edge on or end on."""
    w = hand[:, WRIST]
    parts = [_norm(hand[:, k] - w) for k in (5, 9, 17)] + [_norm(hand[:, 5] - hand[:, 17])]
    return np.mean(parts, axis=0)


def _unit(v: np.ndarray) -> np.ndarray:
    n = _norm(v)[..., None]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 1e-9, v / n, 0.0)


def finger_straightness(hand: np.ndarray) -> np.ndarray:
    """(T, 5) per finger, tip-to-knuckle distance over the sum of its bone lengths: 1 for a
    straight finger, about 0.3-0.6 for one curled into the palm."""
    out = []
    for a, b, c, d in CHAINS:
        bones = _norm(hand[:, b] - hand[:, a]) + _norm(hand[:, c] - hand[:, b]) + _norm(hand[:, d] - hand[:, c])
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append(_norm(hand[:, d] - hand[:, a]) / np.maximum(bones, 1e-9))
    return np.stack(out, axis=1)


def finger_reach(hand: np.ndarray) -> np.ndarray:
    """(T, 4) index to pinky: tip-to-wrist over knuckle-to-wrist (about 2 out, 1 or less curled)."""
    w = hand[:, WRIST]
    out = []
    for a, _b, _c, d in CHAINS[1:]:
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append(_norm(hand[:, d] - w) / np.maximum(_norm(hand[:, a] - w), 1e-9))
    return np.stack(out, axis=1)


def thumb_direction(hand: np.ndarray) -> np.ndarray:
    """(T, 2) unit vector from the thumb's base knuckle (MCP) to its tip."""
    return _unit(hand[:, 4] - hand[:, 2])


def thumb_far(hand: np.ndarray) -> np.ndarray:
    """(T,) the thumb tip's distance from the knuckles' centre, in palm sizes."""
    hand = np.asarray(hand, np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return _norm(hand[:, 4] - hand[:, KNUCKLES].mean(axis=1)) / np.maximum(palm_size(hand), 1e-9)


def _ramp(x: np.ndarray, lo: float, hi: float) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return np.clip((x - lo) / (hi - lo), 0.0, 1.0)


def digits_out(hand: np.ndarray) -> np.ndarray:
    """(T, 5) thumb to pinky, 0..1: how far out each digit is (soft, so that a finger half
    out is half way). A finger: straight (tip-to-knuckle 0.65-0.9 of its bones) and reaching
    away from the wrist (1.2-1.6 knuckle lengths). The thumb: its tip 0.8-1.2 palm sizes from
    the knuckles' centre. NaN rows where there is no hand."""
    hand = np.asarray(hand, np.float64)
    straight = finger_straightness(hand)
    fingers = _ramp(straight[:, 1:], *STRAIGHT) * _ramp(finger_reach(hand), *REACH)
    out = np.concatenate([_ramp(thumb_far(hand), *THUMB_FAR)[:, None], fingers], axis=1)
    out[~np.isfinite(hand).all(axis=(1, 2))] = np.nan
    return out


def out_direction(hand: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """(T, 2) where the digits that are out point, in the picture (y down): the mean of their
    knuckle-to-tip unit vectors, weighted by how far out each is; (0, 0) for a fist. Which
    digit MediaPipe calls it does not matter (it takes a thumb held at the camera for the index)."""
    hand = np.asarray(hand, np.float64)
    out = digits_out(hand) if out is None else out
    dirs = np.stack([_unit(hand[:, d] - hand[:, a]) for a, _b, _c, d in CHAINS], axis=1)  # (T, 5, 2)
    w = np.nan_to_num(out)[:, :, None]
    total = w.sum(axis=1)
    mean = (w * np.nan_to_num(dirs)).sum(axis=1) / np.maximum(total, 1e-9)
    return _unit(mean) * np.minimum(total, 1.0)


def _direction_word(v: np.ndarray) -> str:
    """'up', 'down' or 'sideways' in the picture."""
    x, y = float(v[0]), float(v[1])
    if abs(y) >= abs(x):
        return "up" if y < 0 else "down"
    return "sideways"


def shape_name(out: np.ndarray, thumb_dir: np.ndarray, out_dir: np.ndarray, thumb_tucked: bool = True) -> str:
    """Plain words for one hand shape: `out`, which digits are out (bool, thumb to pinky);
    `thumb_dir`, the thumb's knuckle-to-tip direction; `out_dir`, `out_direction`.
    A lone index up with the thumb not plainly tucked may be a thumb held at the camera, which
    MediaPipe takes for the index: "a thumb or finger up"."""
    thumb, index, middle, ring, pinky = (bool(v) for v in out)
    fingers = [index, middle, ring, pinky]
    if not any(fingers):
        if thumb:
            return {"up": "a thumbs-up", "down": "a thumbs-down"}.get(_direction_word(thumb_dir), "a thumb out")
        return "a fist"
    if sum(fingers) >= 3 and (thumb or sum(fingers) == 4):
        return "an open hand"
    if index and not (middle or ring or pinky):
        if not thumb_tucked and _direction_word(out_dir) == "up":
            return "a thumb or finger up"
        return {"up": "a finger pointing up", "down": "a finger pointing down"}.get(
            _direction_word(out_dir), "a pointing finger"
        )
    if index and middle and not (ring or pinky):
        return "a victory sign"
    if pinky and thumb and not (index or middle or ring):
        return "a hang-loose sign"
    if index and pinky and not (middle or ring):
        return "horns"
    names = [n for n, o in zip(FINGERS, out) if o]
    return "a hand with the " + " and ".join(names) + (" finger" if len(names) == 1 else " fingers") + " out"


ONE_UP = ("a thumbs-up", "a finger pointing up")
SHAPE_NAMES = (
    "a thumbs-up",
    "a thumbs-down",
    "a thumb out",
    "a fist",
    "an open hand",
    "a finger pointing up",
    "a finger pointing down",
    "a pointing finger",
    "a victory sign",
    "a hang-loose sign",
    "horns",
    "a thumb or finger up",
)


def place_name(centre: np.ndarray) -> str:
    """Where a hand is against the face, from its palm centres relative to the nose in eye spans
    (T, 2; y down): raised above the head when the palm is over the brows for a third of the
    time, otherwise
    where it mostly is."""
    ok = np.isfinite(centre).all(axis=1)
    if not ok.any():
        return ""
    c = centre[ok]
    if (c[:, 1] < -1.0).mean() >= 1 / 3:  # the palm's centre over the brows: the fist is over the head
        return "raised above the head"
    x, y = np.median(c[:, 0]), np.median(c[:, 1])
    if y <= 1.6:
        return "before the face" if abs(x) <= 1.0 else "beside the face"
    return "at the chest" if y <= 4.0 else "held low"


def group_name(names: list[str]) -> str:
    """One name for several takes' shapes: theirs when they agree; MediaPipe often takes a
    thumb held at the camera for a pointing finger, so those two together are one finger up."""
    if len(set(names)) == 1:
        return names[0]
    if set(names) <= set(ONE_UP):
        return "a thumb or finger up"
    return Counter(names).most_common(1)[0][0]
