"""Whether a camera's view has moved: a picture shrunk to a small grey thumbnail, brought to zero
mean and unit contrast, compared with an earlier one by its most changed pixels.

Shrinking averages out sensor noise and JPEG blocks, the normalising cancels the camera's gain
and exposure drift, and the few most changed pixels make a small change count (a card put down
on a wide cloth, a fingertip). A seat's models (`vision.landmarks.extract`) and the card
detector (`vision.cards.track.StillFrames`) are not run again while their view stays the same.
"""

from __future__ import annotations

import cv2
import numpy as np


def still_thumbnail(image: np.ndarray, side: int = 80) -> np.ndarray:
    """`image` (BGR or grey) as a grey picture whose longer side is `side` pixels, brought to
    zero mean and unit contrast."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    h, w = grey.shape[:2]
    s = side / max(h, w)
    small = cv2.resize(grey, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
    small = small.astype(np.float32)
    return (small - small.mean()) / (float(small.std()) + 1e-3)


def thumbnail_change(a: np.ndarray, b: np.ndarray) -> float:
    """How much a view moved between two `still_thumbnail`s: the mean of the 8 most changed
    pixels, in 1/50 of the contrast (infinite for thumbnails of different shapes)."""
    if a.shape != b.shape:
        return float("inf")
    d = np.abs(a - b).ravel() * 50.0
    k = min(8, d.size)
    return float(np.partition(d, d.size - k)[-k:].mean())
