"""The three floors (ARCHITECTURE.md), checked on the source itself.

* `referee/` is pure: it imports neither `vision` nor `tablereferee`, no perception library and
  no clock.
* `vision/` imports only the referee's core types, observations and card definitions, never
  the application.
* An import written inside a function defers a heavy library, and says so: its first line
  carries `# deferred: <reason>`. Anything else belongs at the top of its module, where the
  floors above can see it.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# What the pure floor must never import: perception, the application, a clock.
REFEREE_FORBIDDEN = {
    "vision",
    "tablereferee",
    "cv2",
    "mediapipe",
    "onnxruntime",
    "av",
    "sounddevice",
    "torch",
    "ultralytics",
    "supervision",
    "time",
    "datetime",
}
# The parts of the referee that perception may use.
VISION_MAY_USE = {"referee.core", "referee.observations", "referee.signal_cards", "referee.beccato.cards"}


def _modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def _imports(path: Path) -> list[tuple[int, str, bool]]:
    """(line, absolute module name, inside a function?) of every import in a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    package = parts[:-1]  # a module's package; an __init__'s is its own folder
    nested: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            nested.update(id(sub) for sub in ast.walk(node) if sub is not node)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name, id(node) in nested) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            out.append((node.lineno, name, id(node) in nested))
    return out


def _top(name: str) -> str:
    return name.split(".")[0]


def test_the_pure_floor_imports_no_perception_no_application_and_no_clock():
    wrong = [
        f"{p.relative_to(ROOT)}:{line}: imports {name}"
        for p in _modules("referee")
        for line, name, _ in _imports(p)
        if _top(name) in REFEREE_FORBIDDEN
    ]
    assert not wrong, "referee/ must stay pure:\n" + "\n".join(wrong)


def test_perception_uses_only_the_referees_core_types_and_never_the_application():
    wrong = []
    for p in _modules("vision"):
        for line, name, _ in _imports(p):
            if _top(name) == "tablereferee":
                wrong.append(f"{p.relative_to(ROOT)}:{line}: imports the application ({name})")
            elif _top(name) == "referee" and not any(name == m or name.startswith(m + ".") for m in VISION_MAY_USE):
                wrong.append(f"{p.relative_to(ROOT)}:{line}: imports {name}")
    assert not wrong, "vision/ may use only " + ", ".join(sorted(VISION_MAY_USE)) + ":\n" + "\n".join(wrong)


@pytest.mark.parametrize("folder", ["referee", "vision", "tablereferee", "scripts"])
def test_an_import_inside_a_function_only_defers_a_heavy_library_and_says_why(folder):
    wrong = []
    for p in _modules(folder):
        lines = p.read_text(encoding="utf-8").splitlines()
        for line, name, inside in _imports(p):
            if inside and "# deferred:" not in lines[line - 1]:
                wrong.append(f"{p.relative_to(ROOT)}:{line}: import of {name} inside a function")
    assert not wrong, (
        "move these to the top of their module, or say why they wait with '# deferred: <reason>':\n" + "\n".join(wrong)
    )


def test_the_layer_checks_see_a_forbidden_import(tmp_path, monkeypatch):
    """The checks above read real imports, relative ones and those inside functions included."""
    pkg = tmp_path / "referee" / "table"
    pkg.mkdir(parents=True)
    (pkg / "bad.py").write_text(
        "from ...vision.cards import reader\ndef f():\n    import cv2\n    from vision import observe  # deferred: x\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    found = _imports(pkg / "bad.py")
    assert (1, "vision.cards", False) in found  # three dots from referee/table: the top of the tree
    assert (3, "cv2", True) in found and (4, "vision", True) in found
    with pytest.raises(AssertionError, match="imports cv2"):
        test_the_pure_floor_imports_no_perception_no_application_and_no_clock()


def test_importing_every_referee_module_loads_no_perception_library():
    """The pure floor imports in a bare interpreter without OpenCV, MediaPipe or onnxruntime
    being loaded (they are installed here, so only an import would bring them in)."""
    names = []
    for p in _modules("referee"):
        mod = ".".join(p.relative_to(ROOT).with_suffix("").parts)
        names.append(mod.removesuffix(".__init__"))
    code = (
        "import importlib, sys\n"
        f"for name in {names!r}:\n    importlib.import_module(name)\n"
        "heavy = sorted(m for m in ('cv2', 'mediapipe', 'onnxruntime', 'av', 'vision', 'tablereferee')"
        " if m in sys.modules)\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "", f"importing referee loaded {out.stdout.strip()}"
