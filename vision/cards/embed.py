"""The embedding of a card face: a small network maps a rectified crop to a unit vector (its
embedding), so that two photos of the same face of a deck lie close and two faces of one deck lie
apart, whatever the printing.

It was trained here (`scripts/train_card_embedder.py`) on our own rendered faces in hundreds of
random printings, each photographed into a synthetic scene (perspective, the corners found a few
percent off, blur, noise, lighting), against the clean faces and enrollment-like photos of the
same printing: it learnt what tells faces of *one* deck apart (a club's lobes from a spade's
point, an eighth pip), not a fixed list of cards. So it serves any deck enrolled from photos
with no retraining. Runs with onnxruntime alone; `models/card_embedder/MODEL_CARD.md` gives the
recipe and the measured numbers.

    embedder = CardEmbedder()            # the shipped model, or None when it is missing
    vecs = embedder.embed([crop, ...])   # (N, D) float32, unit rows; crop: rectified BGR
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.cards.detector import MODELS_DIR, ModelNotFound, UnreadableModel
from vision.cards.light import flat_field
from vision.cards.runtime import ModelFileError, open_session

MODEL_PATH = MODELS_DIR / "card_embedder" / "card_embedder.onnx"
INPUT_SIZE = (64, 96)  # (w, h) of the network's input


def prepare(crop: np.ndarray) -> np.ndarray:
    """A rectified BGR crop as the network's input: the light divided out (`flat_field`),
    shrunk to INPUT_SIZE, (3, H, W) float32 in 0..1."""
    flat = flat_field(crop)
    small = cv2.resize(flat, INPUT_SIZE, interpolation=cv2.INTER_AREA)
    return np.ascontiguousarray(small.transpose(2, 0, 1), dtype=np.float32) / 255.0


class CardEmbedder:
    """The ONNX card embedder: crops in, unit vectors out."""

    def __init__(self, path: Path | str = MODEL_PATH, threads: int = 1) -> None:
        self._open(path, threads)

    def _open(self, path: Path | str, threads: int) -> None:
        if not Path(path).is_file():
            raise ModelNotFound(f"no card embedder model at {path}", path=str(path))
        self.path, self.threads = Path(path), threads
        try:
            self.session = open_session(self.path, threads=threads)
        except ModelFileError as exc:
            raise UnreadableModel(
                f"{self.path.name} is not an ONNX model onnxruntime can load: {exc}", path=str(self.path)
            ) from None
        self.dim = int(self.session.output_shape[-1] or 0)

    def __getstate__(self) -> dict:
        """Pickled as its file and threads (a reading process opens its own session)."""
        return {"path": str(self.path), "threads": self.threads}

    def __setstate__(self, state: dict) -> None:
        self._open(state["path"], state["threads"])

    def embed(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        if len(crops) == 0:
            return np.zeros((0, self.dim), np.float32)
        x = np.stack([prepare(c) for c in crops])
        return self.embed_prepared(x)

    def embed_prepared(self, x: np.ndarray) -> np.ndarray:
        v = self.session.run(np.ascontiguousarray(x, np.float32))
        return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-6)


@lru_cache(maxsize=1)
def default_embedder() -> CardEmbedder | None:
    """The shipped embedder, shared; None when its file is missing (identification then uses
    the hand-made features alone)."""
    return CardEmbedder() if MODEL_PATH.is_file() else None
