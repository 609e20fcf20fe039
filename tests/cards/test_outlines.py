"""The cloth mask that the outline finders start from."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.cards.outlines import card_mask

DEMO_PREVIEW = Path(__file__).resolve().parents[2] / "datasets" / "demo" / "preview.jpg"


def _reference_mask(image: np.ndarray, distance: float = 45.0) -> np.ndarray:
    """The mask computed the plain way: the cloth's colour as a whole frame, subtracted."""
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)
    step = max(1, int(np.sqrt(lab.shape[0] * lab.shape[1] / 20000)))
    cloth = np.median(lab[::step, ::step].reshape(-1, 3), axis=0).astype(np.uint8)
    total = np.abs(lab.astype(np.int16) - cloth.astype(np.int16)).sum(axis=2)
    mask = (total > distance).astype(np.uint8) * 255
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))


def test_the_cloth_mask_is_the_plain_l1_distance_from_the_cloth_colour():
    image = cv2.imread(str(DEMO_PREVIEW))
    assert image is not None
    noise = np.random.default_rng(3).integers(0, 256, (90, 160, 3), dtype=np.uint8)
    for picture in (image, cv2.resize(image, (1280, 720)), noise):
        mask = card_mask(picture)
        assert mask.shape == picture.shape[:2] and 0 < int(mask.sum()) < 255 * mask.size
        assert np.array_equal(mask, _reference_mask(picture))
