"""What a wheel ships besides the code: the card models, the demo session, the web pages (setup.py)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

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
    assert "vision/models/corner_index/corner_index.npz" in shipped
    decks = {p.relative_to(ROOT / "models").as_posix() for p in (ROOT / "models" / "decks").rglob("*") if p.is_file()}
    assert len(decks) > 120 and {f"vision/models/{rel}" for rel in decks} <= set(shipped)  # 3 decks of 41 templates
    assert all(src.is_file() for src in shipped.values())


def test_the_source_distribution_lists_the_same_files():
    manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8").split()
    for name in ("card_detector", "card_embedder"):
        assert f"models/{name}/{name}.onnx" in manifest
    assert "datasets/demo" in manifest
    assert "models/corner_index/corner_index.npz" in manifest and "models/decks" in manifest


def _static_files() -> set[str]:
    static = ROOT / "tablereferee" / "web" / "static"
    return {p.relative_to(ROOT).as_posix() for p in static.rglob("*") if p.is_file()}


def test_a_wheel_ships_every_file_of_the_web_pages():
    shipped = {dest.as_posix() for _, dest in _setup_module().shipped_files()}
    pages = _static_files()
    assert pages <= shipped
    assert {p for p in shipped if p.startswith("tablereferee/web/static/")} == pages
    assert "graft tablereferee/web/static" in (ROOT / "MANIFEST.in").read_text(encoding="utf-8")


@pytest.mark.slow
def test_a_built_wheel_holds_the_web_pages(tmp_path):
    """Build the wheel for real and look inside (about 10 s; pip fetches the setuptools that
    pyproject.toml asks for from the package index)."""
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert _static_files() <= names
    assert {"tablereferee/web/static/table.html", "tablereferee/web/static/phone.html"} <= names
    assert "tablereferee/web/app.py" in names


def test_every_data_file_of_the_packages_is_shipped():
    """A file the code reads beside itself (the audible drill's table talk, the catalogue, the
    web pages) goes into the wheel: by pyproject.toml's package data or setup.py's copies; a
    package-data file is in the source distribution's manifest too."""
    import fnmatch
    import tomllib

    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    globs = setuptools["package-data"]["*"]
    copied = {dest.as_posix() for _, dest in _setup_module().shipped_files()}
    manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8")
    for package in ("tablereferee", "vision", "referee"):
        for p in (ROOT / package).rglob("*"):
            if not p.is_file() or p.suffix in (".py", ".pyc") or "__pycache__" in p.parts:
                continue
            rel = p.relative_to(ROOT).as_posix()
            assert rel in copied or any(fnmatch.fnmatch(p.name, g) for g in globs), f"{rel} is not shipped"
            if p.suffix == ".wav":
                assert rel in manifest, f"{rel} is not in MANIFEST.in"
