"""The one way the card models are opened and run (`vision.cards.runtime`)."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from vision.cards import runtime
from vision.cards.detector import DEFAULT_MODEL, UnreadableModel
from vision.cards.embed import MODEL_PATH as EMBEDDER
from vision.cards.embed import CardEmbedder


def test_the_shipped_detector_opens_with_its_shapes_and_metadata():
    session = runtime.open_session(DEFAULT_MODEL, threads=1)
    assert session.input_shape[1] == 3 and session.output_shape[1] == 4 + 2 + 4 * 3
    assert {"names", "kpt_shape", "imgsz", "stride"} <= set(session.metadata)
    assert session.run(np.zeros((1, 3, 480, 480), np.float32)).shape == (1, 18, 60 * 60 + 30 * 30 + 15 * 15)


def test_a_dimension_the_model_leaves_free_is_none():
    session = runtime.open_session(EMBEDDER)
    assert session.input_shape[0] is None  # any number of crops at once
    assert session.run(np.zeros((3, 3, 96, 64), np.float32)).shape == (3, session.output_shape[-1])


def test_one_session_answers_several_threads_at_once_as_it_answers_one():
    session = runtime.open_session(EMBEDDER, threads=1)
    rng = np.random.default_rng(3)
    batches = [rng.random((2, 3, 96, 64), dtype=np.float32) for _ in range(8)]
    alone = [session.run(b) for b in batches]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(session.run, batches))
    for a, b in zip(alone, together):
        np.testing.assert_array_equal(a, b)


def test_a_file_that_is_not_a_model_is_a_one_line_error(tmp_path):
    bad = tmp_path / "card_detector.onnx"
    bad.write_bytes(b"not a model at all\n" * 10)
    with pytest.raises(runtime.ModelFileError) as err:
        runtime.open_session(bad)
    assert str(err.value) and "\n" not in str(err.value)
    with pytest.raises(UnreadableModel, match=r"card_detector\.onnx is not an ONNX model onnxruntime can load: "):
        CardEmbedder(bad)
