"""Synthetic photos for the card-reading tests: our rendered faces placed on a cloth with a
known perspective, so the truth (corners, card id) is known exactly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.cards.render import card_mask, render_card

PPM = 5.0


def cloth(h: int = 720, w: int = 960, colour=(70, 110, 40), seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = np.full((h, w, 3), colour, np.uint8)
    return cv2.add(img, rng.integers(0, 20, img.shape, dtype=np.uint8))


def place(image: np.ndarray, card, corners, design: str = "classic") -> np.ndarray:
    """Draw `card` with its top-left, top-right, bottom-right, bottom-left at `corners`."""
    face = render_card(card, design, PPM)
    mask = card_mask(face.shape[:2], PPM)
    h, w = face.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    m = cv2.getPerspectiveTransform(src, np.asarray(corners, np.float32))
    size = (image.shape[1], image.shape[0])
    warped = cv2.warpPerspective(face, m, size, flags=cv2.INTER_AREA)
    wmask = cv2.warpPerspective(mask, m, size)
    return np.where(wmask[..., None] > 127, warped, image)


def quad(
    cx: float, cy: float, height: float, angle: float = 0.0, aspect: float = 63 / 88, skew: float = 0.0
) -> np.ndarray:
    """Corners of an upright card of `height` px centred at (cx, cy), turned `angle` degrees
    clockwise, with a little perspective (`skew`: the top edge shorter by that fraction)."""
    w, h = height * aspect, height
    pts = np.array([[-w / 2 * (1 - skew), -h / 2], [w / 2 * (1 - skew), -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    a = np.radians(angle)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return (pts @ rot.T + [cx, cy]).astype(np.float32)


def degrade(image: np.ndarray, seed: int = 0, blur: float = 0.8, noise: float = 4.0, jpeg: int = 80) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = cv2.GaussianBlur(image, (0, 0), blur) if blur else image
    out = np.clip(out.astype(np.float32) * rng.uniform(0.85, 1.1, 3) + rng.normal(0, noise, out.shape), 0, 255)
    ok, enc = cv2.imencode(".jpg", out.astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, jpeg])
    return cv2.imdecode(enc, cv2.IMREAD_COLOR)


def assert_runs_without_torch(code: str) -> None:
    """Run `code` in a fresh interpreter, then check that neither torch nor ultralytics was
    imported: the run time needs onnxruntime alone."""
    code += "import sys\nassert 'torch' not in sys.modules and 'ultralytics' not in sys.modules\nprint('ok')\n"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip().endswith("ok")


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "cards"
