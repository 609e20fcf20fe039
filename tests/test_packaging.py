"""What a wheel ships besides the code: the card models and the demo session (setup.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _setup_module():
    spec = importlib.util.spec_from_file_location("table_referee_setup", ROOT / "setup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # not __main__: defines the helpers, builds nothing
    return module


def test_a_wheel_ships_every_file_the_runtime_reads_from_models_and_the_demo():
    shipped = {dest.as_posix(): src for src, dest in _setup_module().shipped_files()}
    for name in ("card_detector", "card_embedder"):
        assert f"vision/models/{name}/{name}.onnx" in shipped
        assert f"vision/models/{name}/MODEL_CARD.md" in shipped
    demo = {
        p.relative_to(ROOT / "datasets" / "demo").as_posix()
        for p in (ROOT / "datasets" / "demo").rglob("*")
        if p.is_file()
    }
    assert demo and {f"tablereferee/datasets/demo/{rel}" for rel in demo} <= set(shipped)
    assert all(src.is_file() for src in shipped.values())


def test_the_source_distribution_lists_the_same_files():
    manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8").split()
    for name in ("card_detector", "card_embedder"):
        assert f"models/{name}/{name}.onnx" in manifest
    assert "datasets/demo" in manifest
