"""Perspective warp of a card to a canonical upright rectangle.

`rectify(image, corners)` maps the card's corners (top-left, top-right, bottom-right,
bottom-left, as in `CardDetections`) onto a `CANONICAL_SIZE` portrait rectangle, so that
templates and live crops are compared pixel to pixel whatever the camera angle.
"""

from __future__ import annotations

import cv2
import numpy as np

# (width, height): portrait, between the poker (63 x 88) and Italian (58 x 98) aspect ratios.
CANONICAL_SIZE: tuple[int, int] = (120, 180)


def target_corners(size: tuple[int, int] = CANONICAL_SIZE) -> np.ndarray:
    w, h = size
    return np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)


def rectify(
    image: np.ndarray, corners: np.ndarray, size: tuple[int, int] = CANONICAL_SIZE, inset: float = 0.0
) -> np.ndarray:
    """The card inside `corners` (4, 2) warped to `size`; `inset` (0..0.2) trims a border
    fraction on each side (useful when corners are loose)."""
    corners = np.asarray(corners, np.float32).reshape(4, 2)
    w, h = size
    dst = target_corners(size)
    if inset:
        dx, dy = inset * w, inset * h
        dst = dst + np.array([[-dx, -dy], [dx, -dy], [dx, dy], [-dx, dy]], np.float32)
    scale = 2 if _shrinks(corners, size) else 1  # warp larger, then area-average: no aliasing
    m = cv2.getPerspectiveTransform(corners, dst * scale)
    out = cv2.warpPerspective(image, m, (w * scale, h * scale), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return cv2.resize(out, (w, h), interpolation=cv2.INTER_AREA) if scale > 1 else out


def rectify_all(image: np.ndarray, corners: np.ndarray, size: tuple[int, int] = CANONICAL_SIZE) -> list[np.ndarray]:
    return [rectify(image, c, size) for c in np.asarray(corners, np.float32).reshape(-1, 4, 2)]


def _shrinks(corners: np.ndarray, size: tuple[int, int]) -> bool:
    side = float(np.linalg.norm(corners[1] - corners[0]))
    return side > size[0] * 2
