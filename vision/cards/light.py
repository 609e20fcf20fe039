"""The light on a card divided out, so that a warm lamp, a blue cast or a lamp's gradient
change a crop little: identification (`vision.cards.identify`) and the embedder
(`vision.cards.embed`) both look at crops through it.

A crop is flat-fielded once: `flat_field` returns a `Flat` (a numpy array that says its light is
out already), and given a `Flat` it returns it as it is, so identification hands the same flat
crop to its own features and to the embedder (it was done three or four times a crop).
"""

from __future__ import annotations

import cv2
import numpy as np

LIGHT_SCALE = 10.0  # the light is blurred over a LIGHT_SCALE-th of the card


class Flat(np.ndarray):
    """A crop whose light is divided out already (`flat_field`'s result, or a view of one)."""


def flat_field(crop: np.ndarray) -> np.ndarray:
    """Divide out the light falling on the card: each channel over its own heavy blur (a lamp's
    gradient, a coloured reflection), then white-balanced on the paper. A `Flat` crop is
    returned as it is."""
    if isinstance(crop, Flat):
        return crop
    img = crop.astype(np.float32) + 1.0
    h, w = crop.shape[:2]
    # the light is smooth: blur a sixth-size copy (sigma a tenth of the card) and enlarge it
    small = cv2.resize(img, (max(1, w // 6), max(1, h // 6)), interpolation=cv2.INTER_AREA)
    light = cv2.resize(
        cv2.GaussianBlur(small, (0, 0), max(h, w) / 6.0 / LIGHT_SCALE), (w, h), interpolation=cv2.INTER_LINEAR
    )
    flat = img / light
    ref = np.percentile(flat[::3, ::3].reshape(-1, 3), 90, axis=0)
    return np.clip(flat * (235.0 / np.maximum(ref, 1e-3)), 0, 255).astype(np.uint8).view(Flat)


def turned(flat: np.ndarray) -> np.ndarray:
    """A crop turned 180 degrees, still `Flat` when it was (the light divided out turns with it)."""
    return np.ascontiguousarray(flat[::-1, ::-1]).view(type(flat))
