"""How the card models (the detector, the embedder) are run: one onnxruntime session each,
opened the same way for both.

Its threads never spin while idle: on a 2-core table machine that also runs MediaPipe (or under
any other load), spinning threads made inference several times slower (measured, docs/card-detector.md).

    session = open_session(path, threads=2)   # ModelFileError when onnxruntime cannot load it
    out = session.run(x)                       # the first output, a numpy array
    session.input_shape, session.output_shape  # None where the model leaves a dimension free
    session.metadata                           # the ONNX file's metadata (Ultralytics' names, imgsz...)

Importing this module loads nothing heavy; `open_session` loads onnxruntime. OpenVINO was
measured as the engine instead and not kept (docs/card-detector.md, "Speed").
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

Shape = tuple[int | None, ...]  # None: a dimension the model leaves free


class ModelFileError(Exception):
    """onnxruntime could not load a model file (not ONNX, truncated, another format): the first
    line of its message; the caller turns it into its own named error."""


class Session:
    """An ONNX model ready to run on the CPU."""

    def __init__(self, path: str | Path, threads: int | None = None) -> None:
        import onnxruntime as ort  # deferred: heavy, loaded only when a model is opened

        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = int(threads)
            options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3
        try:
            self._session = ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime's own errors (InvalidProtobuf, Fail...) share no base class
            text = str(exc).strip()
            first = (text.splitlines()[0] if text else type(exc).__name__)[:200]
            raise ModelFileError(first) from None
        inp = self._session.get_inputs()[0]
        self._input = inp.name
        self.input_shape: Shape = tuple(d if isinstance(d, int) else None for d in inp.shape)
        out = self._session.get_outputs()[0].shape
        self.output_shape: Shape = tuple(d if isinstance(d, int) else None for d in out)
        self.metadata: dict[str, str] = dict(self._session.get_modelmeta().custom_metadata_map)

    def run(self, x: np.ndarray) -> np.ndarray:
        """The model's first output for the input `x` (safe from several threads at once)."""
        return self._session.run(None, {self._input: x})[0]


def open_session(path: str | Path, threads: int | None = None) -> Session:
    """The model at `path`, with `threads` threads for one inference (None: one per core)."""
    return Session(path, threads)
