"""Window classes (silence / speech / mumble / hum) from the features, smoothed over time.

A multinomial logistic regression on standardised features (weights in `classifier.json`,
fitted by `python -m vision.audio.fit` on generated clips of the fitting voices and seeds),
then a sticky hidden Markov model (Viterbi) over the window posteriors so a class does not
flicker from one half-second to the next.
"""

from __future__ import annotations

import dataclasses
import json
import os

import numpy as np

from vision.audio.features import FEATURE_NAMES

CLASSES = ("silence", "speech", "mumble", "hum")
WEIGHTS_PATH = os.path.join(os.path.dirname(__file__), "classifier.json")


@dataclasses.dataclass(frozen=True)
class Classifier:
    classes: tuple[str, ...]
    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray  # (n_features + 1, n_classes), last row: bias
    meta: dict = dataclasses.field(default_factory=dict)

    @classmethod
    def load(cls, path: str = WEIGHTS_PATH) -> Classifier:
        with open(path) as f:
            d = json.load(f)
        if tuple(d["features"]) != FEATURE_NAMES:
            raise ValueError(f"{path} was fitted on other features: {d['features']}")
        return cls(
            tuple(d["classes"]),
            tuple(d["features"]),
            np.array(d["mean"]),
            np.array(d["scale"]),
            np.array(d["weights"]),
            d.get("meta", {}),
        )

    def save(self, path: str = WEIGHTS_PATH) -> None:
        with open(path, "w") as f:
            json.dump(
                {
                    "classes": list(self.classes),
                    "features": list(self.features),
                    "mean": self.mean.round(6).tolist(),
                    "scale": self.scale.round(6).tolist(),
                    "weights": self.weights.round(6).tolist(),
                    "meta": self.meta,
                },
                f,
                indent=1,
            )
            f.write("\n")

    def _design(self, X: np.ndarray) -> np.ndarray:
        Z = (np.asarray(X, float) - self.mean) / self.scale
        return np.hstack([Z, np.ones((len(Z), 1))])

    def posteriors(self, X: np.ndarray) -> np.ndarray:
        """(n_windows, n_classes) class probabilities of each window on its own."""
        if len(X) == 0:
            return np.zeros((0, len(self.classes)))
        logits = self._design(X) @ self.weights
        logits -= logits.max(1, keepdims=True)
        p = np.exp(logits)
        return p / p.sum(1, keepdims=True)

    @classmethod
    def fit(cls, X: np.ndarray, y: np.ndarray, l2: float = 1e-2, meta: dict | None = None) -> Classifier:
        """Fit by L-BFGS on the cross-entropy with an L2 penalty (classes balanced by weight)."""
        from scipy.optimize import minimize  # deferred: SciPy takes half a second to load; only fitting needs it

        X = np.asarray(X, float)
        mean, scale = X.mean(0), X.std(0) + 1e-6
        Z = np.hstack([(X - mean) / scale, np.ones((len(X), 1))])
        k, d = len(CLASSES), Z.shape[1]
        Y = np.eye(k)[y]
        counts = np.bincount(y, minlength=k).astype(float)
        sw = (len(y) / (k * np.maximum(counts, 1)))[y]

        def loss(w):
            W = w.reshape(d, k)
            L = Z @ W
            L -= L.max(1, keepdims=True)
            logp = L - np.log(np.exp(L).sum(1, keepdims=True))
            P = np.exp(logp)
            value = -(sw * (Y * logp).sum(1)).sum() / len(y) + l2 * (W[:-1] ** 2).sum()
            grad = Z.T @ ((P - Y) * sw[:, None]) / len(y)
            grad[:-1] += 2 * l2 * W[:-1]
            return value, grad.ravel()

        res = minimize(loss, np.zeros(d * k), jac=True, method="L-BFGS-B", options={"maxiter": 2000})
        return cls(CLASSES, FEATURE_NAMES, mean, scale, res.x.reshape(d, k), meta or {})


def viterbi(posteriors: np.ndarray, stay: float = 0.85) -> np.ndarray:
    """The most likely class sequence under a sticky HMM whose emissions are the posteriors."""
    n, k = posteriors.shape
    if n == 0:
        return np.zeros(0, int)
    trans = np.full((k, k), (1 - stay) / (k - 1))
    np.fill_diagonal(trans, stay)
    lt = np.log(trans)
    le = np.log(np.clip(posteriors, 1e-9, 1))
    score = le[0] - np.log(k)
    back = np.zeros((n, k), int)
    for t in range(1, n):
        cand = score[:, None] + lt
        back[t] = cand.argmax(0)
        score = cand.max(0) + le[t]
    path = np.empty(n, int)
    path[-1] = int(score.argmax())
    for t in range(n - 1, 0, -1):
        path[t - 1] = back[t, path[t]]
    return path


_DEFAULT: Classifier | None = None


def default_classifier() -> Classifier:
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Classifier.load()
    return _DEFAULT
