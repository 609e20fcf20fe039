"""Puts the shipped models, the demo session and the web pages inside the wheel (the rest is in
pyproject.toml).

They live at the repository's top level (models/, datasets/demo/), which a wheel does not
have, so building one copies them into the packages that read them: models/ becomes
vision/models/ and datasets/demo/ becomes tablereferee/datasets/demo/. The lookups
(`MODELS_DIR` in vision/cards/detector.py, `DEMO` in tablereferee/commands/demo.py) take the
packaged copy when there is one and the repository's otherwise. An editable install copies
nothing. The web pages (tablereferee/web/static/, every file below it: `referee serve` serves
them from the package) are copied to the same place in the wheel. MANIFEST.in lists the same
files for the source distribution.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

# repository folder -> (folder inside the built packages, the files to copy)
SHIPPED = {
    "models/card_detector": ("vision/models/card_detector", ["card_detector.onnx", "MODEL_CARD.md"]),
    "models/card_embedder": ("vision/models/card_embedder", ["card_embedder.onnx", "MODEL_CARD.md"]),
    "models/corner_index": ("vision/models/corner_index", ["corner_index.npz", "README.md"]),
    # the Italian regional decks made from scans (vision/cards/regional.py)
    "models/decks": ("vision/models/decks", ["**/*"]),
    "datasets/demo": ("tablereferee/datasets/demo", ["**/*"]),
    # the web pages, their scripts, styles and pictures (not a package: package-data misses them)
    "tablereferee/web/static": ("tablereferee/web/static", ["**/*"]),
}


def shipped_files() -> list[tuple[Path, Path]]:
    """(source, destination relative to the build folder) of every shipped file."""
    pairs = []
    for src, (dest, patterns) in SHIPPED.items():
        for pattern in patterns:
            for f in sorted(Path(src).glob(pattern)):
                if f.is_file():
                    pairs.append((f, Path(dest) / f.relative_to(src)))
    return pairs


class BuildPyWithShipped(build_py):
    """build_py that also copies the shipped models and demo session (not in editable mode)."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        for src, rel in shipped_files():
            out = Path(self.build_lib) / rel
            self.mkpath(str(out.parent))
            self.copy_file(str(src), str(out))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = list(super().get_outputs(include_bytecode))
        if not self.editable_mode:
            outputs += [str(Path(self.build_lib) / rel) for _, rel in shipped_files()]
        return outputs


if __name__ == "__main__":  # setuptools' build backend runs this file as __main__
    setup(cmdclass={"build_py": BuildPyWithShipped})
